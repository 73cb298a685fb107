"""wp.static(expr) evaluated when a kernel or function is declared, as Warp does: a syntax tree
and its Scope in; the values of the static expressions that need nothing of the function itself
out, stored in the Scope by the call's position (Scope.static_values), where typing finds them.
Knows Python evaluation; knows nothing of types or the IR.

Why at declaration: the expression then sees the globals as they were when the kernel was
written (a name rebound later does not change it), and a side-effecting expression runs once.
An expression that names a parameter or local of the function (an unrolled loop's variable, a
local bound to a number) waits for typing, which knows those values. One that fails (d["missing"],
1 / 0) raises KernelTypeError at declaration, as in Warp; one naming what is not defined yet waits."""

from __future__ import annotations

import ast
import textwrap

from . import syntax as S
from .parse import parse_definition
from ..builtins.registry import BUILTINS
from ..errors import KernelTypeError
from .scope import MISSING


def resolve_at_declaration(fn, scope) -> None:
    """resolve_static_expressions for a Python function being decorated; a function that does not
    parse is left alone (its error is raised, at its line, when it is compiled). A function whose
    code names nothing called `static` has no wp.static(...) to resolve: it is not parsed here, so
    defining a kernel costs no parse (the compile parses it when it is first needed)."""
    code = getattr(fn, "__code__", None)
    if code is not None and "static" not in code.co_names and not _binds_static(fn, code):
        return
    try:
        fdef = parse_definition(fn)
    except Exception:  # noqa: BLE001 - never fail a decorator; compiling reports it
        return
    if "static" in fdef.source:
        resolve_static_expressions(fdef, scope)


def _binds_static(fn, code) -> bool:
    """Whether a global or closure name of `fn` is bound to wp.static now (`alias = wp.static`): the
    alias may be rebound before the compile, so its expressions are resolved at declaration too."""
    static = BUILTINS["static"]
    found = getattr(fn, "__globals__", {})
    if any(found.get(n) is static for n in code.co_names):
        return True
    return any(getattr(c, "cell_contents", None) is static for c in (fn.__closure__ or ())
               if c is not None and _cell_is_set(c))


def _cell_is_set(cell) -> bool:
    try:
        _ = cell.cell_contents
    except ValueError:  # a closure variable not bound yet
        return False
    return True


def resolve_static_expressions(fdef: S.FunctionDef, scope) -> None:
    """Evaluate each wp.static(...) of `fdef` that names only globals and closure variables."""
    local_names = set(fdef.params) | S.assigned_names(fdef.body)  # loop targets included
    for call in _calls(fdef.body):
        if not _names_static(call.func, scope):
            continue
        expr = _argument(call)
        if expr is None:
            continue
        names = {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
        if names & local_names:
            continue  # typing evaluates it, with the function's compile-time locals
        namespace = dict(scope.globals)
        for name, cell in scope.cells.items():
            try:
                namespace[name] = cell.cell_contents
            except ValueError:
                pass
        try:
            value = eval(compile(ast.Expression(expr), call.loc.file, "eval"), namespace)  # noqa: S307 (the user's code)
        except NameError:  # a global defined after the function, say: typing evaluates it again, at its line
            continue
        except Exception as e:  # noqa: BLE001 - the user's expression failed: as Warp, when the function is declared
            raise KernelTypeError(f"Error evaluating static expression: {e} (in {call.source}, "
                                  f"{type(e).__name__})", call.loc) from None
        scope.static_values[static_key(call)] = value


def static_key(call: S.Call) -> tuple:
    """Where a wp.static call's value is kept (Scope.static_values): its position, its text and
    which use of its syntax node it is."""
    return call.loc.line, call.loc.col, call.source, call.occurrence


def _names_static(func, scope) -> bool:
    """Whether a call's function is wp.static (spelt wp.static, warp.static, or any name bound to it)."""
    static = BUILTINS["static"]
    if isinstance(func, S.Attribute) and func.attr == "static" and isinstance(func.value, S.Name):
        return func.value.id in ("wp", "warp")
    if isinstance(func, S.Name):
        obj = scope.lookup(func.id)
        return obj is not MISSING and obj is static
    return False


def _argument(call: S.Call):
    """The Python expression inside wp.static(...), from the call's own text."""
    if len(call.args) != 1 or call.kwargs or not call.source:
        return None
    try:
        node = ast.parse("(" + textwrap.dedent(call.source).strip() + ")", mode="eval").body
    except SyntaxError:
        return None
    return node.args[0] if isinstance(node, ast.Call) and len(node.args) == 1 else None


def _calls(node):
    """Every call in a syntax tree, outermost first (a nested wp.static is inside its outer one's text)."""
    if isinstance(node, S.Call):
        yield node
    if isinstance(node, tuple):
        for x in node:
            yield from _calls(x)
    elif hasattr(node, "__dataclass_fields__"):
        for field in node.__dataclass_fields__:
            if field not in ("loc", "source"):
                yield from _calls(getattr(node, field))

