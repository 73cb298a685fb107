"""The syntax tree of a kernel or function: the subset of Python that kernels accept, as small
frozen nodes that each carry their source location. `parse` builds it from Python source;
`typecheck` reads it. Nothing here knows about types, builtins or C++."""

from __future__ import annotations

from typing import Any

from .records import record
from ..errors import Loc

# --- expressions -----------------------------------------------------------------------------


@record(frozen=True)
class Name:
    """A variable or global name as written."""

    id: str
    loc: Loc


@record(frozen=True)
class Constant:
    """A literal number, bool or string."""

    value: Any  # int, float, bool, str (strings only as print/printf arguments)
    loc: Loc


@record(frozen=True)
class Attribute:
    """value.attr: a component, a struct field, a module's name."""

    value: Any
    attr: str
    loc: Loc


@record(frozen=True)
class Subscript:
    """value[indices]: an element, a view, a component."""

    value: Any
    indices: tuple  # one expression per index: a[i, j] -> (i, j)
    loc: Loc


@record(frozen=True)
class Slice:
    """lower:upper:step inside a subscript (each part an expression or None)."""

    lower: Any
    upper: Any
    step: Any
    loc: Loc


@record(frozen=True)
class Starred:
    """*value among a call's arguments (the components of a vector, matrix rows, a constant slice)."""

    value: Any
    loc: Loc


@record(frozen=True)
class Call:
    """func(args, keywords): a builtin, a @wp.func, a constructor."""

    func: Any
    args: tuple
    kwargs: tuple  # ((name, expr), ...)
    loc: Loc
    source: str = ""  # the call's own text, over as many lines as it spans (wp.static reads it)
    # a wp.static call: which use of its node this is (a code transformer may put one node in several
    # places, and each place is evaluated on its own, as in Warp)
    occurrence: int = 0


@record(frozen=True)
class BinOp:
    """left op right, with op the registry's operator name."""

    op: str  # registry name: add sub mul div floordiv mod pow matmul bit_and bit_or bit_xor lshift rshift
    left: Any
    right: Any
    loc: Loc


@record(frozen=True)
class UnaryOp:
    """op operand (-x, +x, ~x, not x)."""

    op: str  # neg pos invert logical_not
    operand: Any
    loc: Loc


@record(frozen=True)
class Compare:
    """left op right, one comparison (a chain is split into a BoolOp of these)."""

    op: str  # lt le gt ge eq ne
    left: Any
    right: Any
    loc: Loc


@record(frozen=True)
class BoolOp:
    """Short-circuit `and` / `or` over two or more values."""

    op: str  # "and" | "or" (short-circuit)
    values: tuple
    loc: Loc


@record(frozen=True)
class IfExp:
    """body if test else orelse."""

    test: Any
    body: Any
    orelse: Any
    loc: Loc


@record(frozen=True)
class Tuple:
    """(a, b, ...): a multiple return value or assignment target."""

    elts: tuple
    loc: Loc


# --- statements ------------------------------------------------------------------------------


@record(frozen=True)
class Assign:
    """target = value."""

    target: Any  # Name | Subscript | Attribute | Tuple of Names
    value: Any
    loc: Loc
    annotation: Any = None  # x: float = 1.0


@record(frozen=True)
class AugAssign:
    """target op= value (an atomic on an array element, as in Warp)."""

    target: Any
    op: str
    value: Any
    loc: Loc


@record(frozen=True)
class ExprStmt:
    """An expression evaluated for its effect (a call)."""

    value: Any
    loc: Loc


@record(frozen=True)
class If:
    """if test: body else: orelse."""

    test: Any
    body: tuple
    orelse: tuple
    loc: Loc


@record(frozen=True)
class For:
    """for target in iter: body (a range or an iterator builtin)."""

    target: str
    iter: Any  # a Call: range(...) or an iterator builtin
    body: tuple
    loc: Loc


@record(frozen=True)
class While:
    """while test: body."""

    test: Any
    body: tuple
    loc: Loc


@record(frozen=True)
class Break:
    """break out of the innermost loop."""

    loc: Loc


@record(frozen=True)
class Continue:
    """continue with the next iteration of the innermost loop."""

    loc: Loc


@record(frozen=True)
class Return:
    """return value (None: a bare return)."""

    value: Any  # None for a bare return
    loc: Loc


@record(frozen=True)
class Assert:
    """assert test (a debug-mode check, as Warp makes it)."""

    test: Any
    loc: Loc


@record(frozen=True)
class FunctionDef:
    """A parsed kernel or function: its name, parameters and body."""

    name: str
    params: tuple  # parameter names, in order
    defaults: tuple  # default value expressions for the last len(defaults) params
    body: tuple
    loc: Loc
    source: str  # the function's source text (dedented)


def walk(x):
    """Every syntax node in `x` (a node, or a tuple or list of them), depth first."""
    if isinstance(x, (tuple, list)):
        for y in x:
            yield from walk(y)
    elif hasattr(x, "__dataclass_fields__") and not isinstance(x, type):
        yield x
        for name in x.__dataclass_fields__:
            if name != "loc":
                yield from walk(getattr(x, name))


def assigned_names(stmts) -> set[str]:
    """Names assigned anywhere in these statements (including nested blocks, loop targets and
    the roots of component stores such as `v[0] = x`)."""
    out: set[str] = set()

    def target_names(t):
        if isinstance(t, Name):
            out.add(t.id)
        elif isinstance(t, Tuple):
            for e in t.elts:
                target_names(e)
        elif isinstance(t, (Subscript, Attribute)):
            target_names(t.value)  # v[0] = x rebinds a local vector v (stores into arrays are filtered later)

    for s in stmts:
        if isinstance(s, (Assign, AugAssign)):
            target_names(s.target)
        elif isinstance(s, If):
            out |= assigned_names(s.body) | assigned_names(s.orelse)
        elif isinstance(s, For):
            out.add(s.target)
            out |= assigned_names(s.body)
        elif isinstance(s, While):
            out |= assigned_names(s.body)
    return out
