"""The typed IR: what `typecheck` produces and `adjoint` and `emit` read.

Values are SSA variables (`Var`): each is assigned once, by one `Let`, and has a type. The only
variables assigned more than once are `mutable` ones: the join variables of an `If` (its phis)
and the state variables a loop carries from one iteration to the next. Control flow stays
structured (If, For, While), so the IR maps one to one onto C++. Every node carries the
user's source location. Nothing here knows about C++ text or Python's ast."""

from __future__ import annotations

import dataclasses
import hashlib
from dataclasses import field
from typing import Any

from .records import record
from ..errors import Loc
from ..types import type_name


@record(frozen=True, eq=False)
class Var:
    """An SSA value (compared by identity). `name` is unique inside its function and readable."""

    name: str
    type: Any
    mutable: bool = False

    def __repr__(self):
        return self.name


class TupleType:
    """The type of a multiple-value return: a fixed list of types."""

    def __init__(self, items: tuple):
        self.items = tuple(items)

    def __eq__(self, other):
        return isinstance(other, TupleType) and len(other.items) == len(self.items) and all(
            a is b or a == b for a, b in zip(self.items, other.items))

    def __hash__(self):
        return hash(("tuple",) + tuple(map(id, self.items)))

    def type_name(self) -> str:
        return f"tuple({', '.join(type_name(t) for t in self.items)})"


# --- right-hand sides -------------------------------------------------------------------------


@record(frozen=True)
class Const:
    """A constant value of a known type."""

    value: Any  # a Python number or bool, or a composite instance
    type: Any


@record(frozen=True)
class Call:
    """A builtin call resolved to one overload of the registry."""

    builtin: Any  # registry.Builtin
    args: tuple  # Vars
    resolved: Any  # registry.Resolved: argument and result types, template bindings


@record(frozen=True)
class CallFunc:
    """A call of a user @wp.func, resolved to one typed instance."""

    func: Any  # typecheck.FuncInstance
    args: tuple


@record(frozen=True)
class GradCall:
    """wp.grad(f)(args): the gradient of f's scalar result with respect to each argument, at
    args: f's adjoint run once with adj_ret = 1 (one value, or a tuple for several arguments)."""

    func: Any  # a registry.Builtin, or a typecheck.FuncInstance
    args: tuple
    resolved: Any = None  # the builtin's registry.Resolved (None for a user function)


@record(frozen=True)
class Construct:
    """A value built from parts or converted: vec3(x, y, z), float32(i), mat33(...), Struct()."""

    type: Any
    args: tuple


@record(frozen=True)
class Load:
    """a[i, j]: read one element of an array (all indices given)."""

    array: Var
    indices: tuple


@record(frozen=True)
class View:
    """a[i]: the sub-array of a multi-dimensional array (fewer indices than dimensions)."""

    array: Var
    indices: tuple


@record(frozen=True)
class NewArray:
    """An array made in a kernel: over memory at `ptr` (wp.array(ptr=..., shape=..., dtype=...)), or,
    with ptr None, a zeroed local buffer of the constant `fixed` shape (wp.zeros(shape=..., dtype=...):
    Warp's fixed-size array). `shape` holds the Vars of the dimensions."""

    dtype: Any
    shape: tuple
    ptr: Any = None
    fixed: tuple | None = None
    source: Any = None  # a function's returned fixed array (a value) whose elements the local array takes


@record(frozen=True)
class AxisSlice:
    """One sliced axis of an array slice, start:stop:step (None where a bound is not written)."""

    start: Var | None
    stop: Var | None
    step: Var | None


@record(frozen=True)
class SliceView:
    """a[1:n:2, i]: a view of an array; per written axis an index Var (the axis is dropped) or an
    AxisSlice (kept); the axes after the last one written are kept whole."""

    array: Var
    axes: tuple


@record(frozen=True)
class Extract:
    """A component of a composite (v[i], v.x, m[i, j], m[i]) or a struct field (s.name).
    `path` holds Vars (dynamic indices), ints (constant indices) or str (field names)."""

    base: Var
    path: tuple


@record(frozen=True)
class Update:
    """A copy of `base` with the component at `path` replaced by `value` (v[0] = x in SSA form)."""

    base: Var
    path: tuple
    value: Var


@record(frozen=True)
class Copy:
    """A copy of a value (a new SSA variable holding what `src` holds)."""

    src: Var


@record(frozen=True)
class AddressOf:
    """wp.address_of(x): the address (a uint64) of storage the kernel can write: an array element
    (`indices` given) or a mutable variable, then the component `path` inside it."""

    base: Var
    indices: tuple
    path: tuple


@record(frozen=True)
class TupleOf:
    """A tuple value (multiple return values of a function)."""

    items: tuple


@record(frozen=True)
class Tid:
    """The thread index: component `index` of `count` (count == 1 means the linear index)."""

    index: int
    count: int


# --- statements -------------------------------------------------------------------------------


@record(frozen=True)
class Let:
    """dst = value: the one assignment of an SSA variable."""

    dst: Var
    value: Any
    loc: Loc


@record(frozen=True)
class Assign:
    """Write to a mutable variable (a phi input or a loop state update)."""

    dst: Var
    src: Var
    loc: Loc


@record(frozen=True)
class Store:
    """a[indices] = value, or a[indices].path = value when `path` is not empty. `rereads`: the
    value is a nonlinear function of the element it overwrites (a[i] *= v, a[i].x /= v), so its
    adjoint would need the old value, which this store destroys."""

    array: Var
    indices: tuple
    value: Var
    loc: Loc
    path: tuple = ()
    rereads: bool = False


@record(frozen=True)
class Effect:
    """A call evaluated for its side effects (print, an atomic whose result is unused)."""

    value: Any  # Call or CallFunc
    loc: Loc


@record(frozen=True)
class Print:
    """printf(fmt, args) on the device."""

    fmt: str  # printf format
    args: tuple
    loc: Loc


@record(frozen=True)
class If:
    """Structured if/else; `phis` join the values the branches assign."""

    cond: Var
    body: tuple
    orelse: tuple
    loc: Loc
    phis: tuple = ()  # Phi nodes, joined after the branches


@record(frozen=True)
class Phi:
    """A join variable of an If: then_src or else_src, by the branch taken."""

    dst: Var  # mutable; assigned at the end of each branch that falls through
    then_src: Var | None
    else_src: Var | None


@record(frozen=True)
class Carried:
    """A variable a loop carries across iterations: `state` is mutable, set to `init` before the
    loop and to the iteration's final value at the end of each iteration (and before continue/break)."""

    name: str
    state: Var
    init: Var


@record(frozen=True)
class For:
    """A counted loop: var from start to stop by step."""

    var: Var  # the loop counter (int32)
    start: Var
    stop: Var
    step: Var
    body: tuple
    loc: Loc
    carried: tuple = ()


@record(frozen=True)
class While:
    """A loop whose condition is computed by cond_body at the top of each iteration."""

    cond_body: tuple  # statements evaluating the condition at the top of each iteration
    cond: Var
    body: tuple
    loc: Loc
    carried: tuple = ()


@record(frozen=True)
class Iterate:
    """for x in query: a loop over an iterator builtin (hash grid, mesh and BVH queries)."""

    var: Var
    query: Var
    next_builtin: Any
    body: tuple
    loc: Loc
    carried: tuple = ()


@record(frozen=True)
class Break:
    """Leave the innermost loop (after writing its loop state)."""

    loc: Loc
    writes: tuple = ()  # Assigns of loop state before leaving


@record(frozen=True)
class Continue:
    """Go to the next iteration (after writing its loop state)."""

    loc: Loc
    writes: tuple = ()


@record(frozen=True)
class Return:
    """Return from the function (a value, or None)."""

    value: Var | None
    loc: Loc


@record(frozen=True)
class Check:
    """A debug-mode assertion: `assert cond` in the user's code."""

    cond: Var
    loc: Loc


@record(frozen=True, eq=False)
class Function:
    """A typed kernel or function body (its lists are filled while typing, then only read)."""

    name: str  # the user's name
    symbol: str  # the C++ name (unique per typed instance)
    params: list  # Vars
    param_names: list  # the user's parameter names
    body: tuple
    return_type: Any  # None for kernels and functions without a return value
    is_kernel: bool
    loc: Loc
    tid_count: int = 0  # how many indices wp.tid() is unpacked into (0: not used)
    #: the most indices any wp.tid() of the source is unpacked into, dead code (folded away) too: the
    #: rank of Warp's launch bounds (wp.Launch.bounds.shape), which keeps the written arity
    tid_arity: int = 0
    block_dim: int = 1  # the lanes per block a kernel was typed for (native/tiles/block.h)
    uses_blocks: bool = False  # its code depends on the lanes of its blocks (tiles, wp.block_dim())
    lanes_agree: bool = False  # the lanes of a block compute the same (compiler/lanes.py lanes_agree)
    funcs: list = field(default_factory=list)  # FuncInstances called (direct)
    structs: list = field(default_factory=list)  # struct types used (direct)
    locals: list = field(default_factory=list)  # every Var defined in the body, in order
    checks: list = field(default_factory=list)  # Locs of debug checks (array accesses, asserts)
    #: @wp.func(inline=...): True (always inline), False (never), None (the C++ compiler chooses);
    #: the function's adjoint, custom gradient and replay take it too
    inline: bool | None = None


# --- printing and fingerprints ----------------------------------------------------------------


def format_function(fn: Function) -> str:
    """Stable text for an IR function (tests and the debug switch print this)."""
    params = ", ".join(f"{p.name}: {type_name(p.type)}" for p in fn.params)
    head = f"{'kernel' if fn.is_kernel else 'func'} {fn.symbol}({params})"
    if fn.return_type is not None:
        head += f" -> {type_name(fn.return_type)}"
    return head + ":\n" + "\n".join(format_block(fn.body, 1))


def format_value(v) -> str:
    if isinstance(v, Const):
        return f"const {v.value!r}"
    if isinstance(v, Call):
        return f"{v.builtin.name}({', '.join(map(repr, v.args))})"
    if isinstance(v, CallFunc):
        return f"{v.func.symbol}({', '.join(map(repr, v.args))})"
    if isinstance(v, Construct):
        return f"{type_name(v.type)}({', '.join(map(repr, v.args))})"
    if isinstance(v, (Load, View)):
        return f"{'load' if isinstance(v, Load) else 'view'} {v.array!r}[{', '.join(map(repr, v.indices))}]"
    if isinstance(v, SliceView):
        def axis(a):
            if isinstance(a, AxisSlice):
                return ":".join("" if b is None else repr(b) for b in (a.start, a.stop, a.step))
            return repr(a)
        return f"slice {v.array!r}[{', '.join(axis(a) for a in v.axes)}]"
    if isinstance(v, NewArray):
        where = f"at {v.ptr!r}" if v.ptr is not None else "local"
        return f"new array {where} shape ({', '.join(map(repr, v.shape))}) of {type_name(v.dtype)}"
    if isinstance(v, Extract):
        return f"{v.base!r}{''.join(f'[{p!r}]' for p in v.path)}"
    if isinstance(v, Update):
        return f"{v.base!r} with {''.join(f'[{p!r}]' for p in v.path)} = {v.value!r}"
    if isinstance(v, Copy):
        return repr(v.src)
    if isinstance(v, AddressOf):
        index = f"[{', '.join(map(repr, v.indices))}]" if v.indices else ""
        return f"address of {v.base!r}{index}{''.join(f'[{p!r}]' for p in v.path)}"
    if isinstance(v, TupleOf):
        return f"({', '.join(map(repr, v.items))})"
    if isinstance(v, Tid):
        return f"tid({v.index} of {v.count})"
    return repr(v)


def format_block(stmts, depth) -> list[str]:
    pad, out = "    " * depth, []
    for s in stmts:
        if isinstance(s, Let):
            out.append(f"{pad}{s.dst.name}: {type_name(s.dst.type)} = {format_value(s.value)}")
        elif isinstance(s, Assign):
            out.append(f"{pad}{s.dst.name} := {s.src.name}")
        elif isinstance(s, Store):
            path = "".join(f".{p}" if isinstance(p, str) else f"[{p!r}]" for p in s.path)
            out.append(f"{pad}store {s.array!r}[{', '.join(map(repr, s.indices))}]{path} = {s.value!r}")
        elif isinstance(s, Effect):
            out.append(f"{pad}{format_value(s.value)}")
        elif isinstance(s, Print):
            out.append(f"{pad}print {s.fmt!r} {', '.join(map(repr, s.args))}")
        elif isinstance(s, If):
            out.append(f"{pad}if {s.cond!r}:")
            out += format_block(s.body, depth + 1)
            if s.orelse:
                out.append(f"{pad}else:")
                out += format_block(s.orelse, depth + 1)
            for p in s.phis:
                out.append(f"{pad}phi {p.dst!r} = ({p.then_src!r}, {p.else_src!r})")
        elif isinstance(s, (For, While, Iterate)):
            for c in s.carried:
                out.append(f"{pad}carry {c.state!r} = {c.init!r}")
            if isinstance(s, For):
                out.append(f"{pad}for {s.var!r} in range({s.start!r}, {s.stop!r}, {s.step!r}):")
            elif isinstance(s, Iterate):
                out.append(f"{pad}for {s.var!r} in {s.query!r}:")
            else:
                out.append(f"{pad}while:")
                out += format_block(s.cond_body, depth + 1)
                out.append(f"{pad}    test {s.cond!r}")
            out += format_block(s.body, depth + 1)
        elif isinstance(s, (Break, Continue)):
            for w in s.writes:
                out.append(f"{pad}{w.dst.name} := {w.src.name}")
            out.append(f"{pad}{type(s).__name__.lower()}")
        elif isinstance(s, Return):
            out.append(f"{pad}return {s.value!r}" if s.value is not None else f"{pad}return")
        elif isinstance(s, Check):
            out.append(f"{pad}check {s.cond!r}")
    return out


def fingerprint(fn: Function) -> str:
    """A digest of what a function computes: parameter and local types, statements, constants
    and the symbols of what it calls. Source locations and the function's own symbol do not
    enter, so moving code leaves its C++ (and cache entry) alone; nor does the debug printer."""
    h = hashlib.blake2b(digest_size=4)
    for f in dataclasses.fields(fn):
        if f.name not in ("symbol", "loc", "checks"):
            h.update(f"{f.name}={_token(getattr(fn, f.name))};".encode())
    return h.hexdigest()


def _token(x) -> str:
    if isinstance(x, Var):
        return f"%{x.name}:{type_name(x.type)}{'!' if x.mutable else ''}"
    if isinstance(x, (tuple, list)):
        return "[" + ",".join(_token(y) for y in x) + "]"
    if x is None or isinstance(x, (str, int, float, bool)):
        return repr(x)
    if dataclasses.is_dataclass(x) and type(x).__module__ == __name__:  # an IR node
        return type(x).__name__ + "(" + ",".join(
            _token(getattr(x, f.name)) for f in dataclasses.fields(x) if f.name not in ("loc", "resolved")) + ")"
    symbol = getattr(x, "symbol", None)  # a function instance or a builtin: its C++ name
    if isinstance(symbol, str):
        return symbol
    key = getattr(x, "key", None)  # a struct type: its definition's key
    return f"{type_name(x)}@{key}" if isinstance(key, str) else (type_name(x) if not isinstance(x, Loc) else "")


def child_blocks(s) -> list:
    """The statement blocks nested directly in a statement (branches, loop bodies)."""
    if isinstance(s, If):
        return [s.body, s.orelse]
    if isinstance(s, While):
        return [s.cond_body, s.body]
    if isinstance(s, (For, Iterate)):
        return [s.body]
    return []


def constants(stmts, out: dict | None = None) -> dict:
    """id(Var) -> value, for every Var the statements (nested blocks too) bind to a constant."""
    out = {} if out is None else out
    for s in stmts:
        if isinstance(s, Let) and isinstance(s.value, Const):
            out[id(s.dst)] = s.value.value
        for block in child_blocks(s):
            constants(block, out)
    return out


def called_instances(fn: Function) -> list:
    """Every user-function instance `fn` calls, directly or not, callees first, each once (by C++
    symbol: symbols name content, so two instances with one symbol are the same code); custom
    gradient and replay functions count as called by the function they belong to."""
    out: list = []
    seen: set = set()

    def visit(f: Function) -> None:
        for inst in f.funcs:
            for dep in (inst, inst.custom_grad, inst.custom_replay):
                if dep is not None and dep.symbol not in seen:
                    seen.add(dep.symbol)
                    visit(dep.ir)
                    out.append(dep)

    visit(fn)
    return out


def array_param_usage(fn: Function) -> tuple[set, set]:
    """(read, written): positions of the array parameters a kernel reads and writes (stores and
    atomics write; arrays handed to functions count as both)."""
    index = {id(p): k for k, p in enumerate(fn.params)}
    read, written = set(), set()

    def visit(stmts):
        for s in stmts:
            value = getattr(s, "value", None)
            if isinstance(value, (Load, View, SliceView)) and id(value.array) in index:
                read.add(index[id(value.array)])
            if isinstance(s, Store) and id(s.array) in index:
                written.add(index[id(s.array)])
            if isinstance(value, (Call, CallFunc)):
                for a in value.args:
                    if id(a) in index:
                        read.add(index[id(a)])
                        if isinstance(value, CallFunc) or value.builtin.side_effects:
                            written.add(index[id(a)])
            for block in child_blocks(s):
                visit(block)

    visit(fn.body)
    return read, written


def cannot_fault(stmts) -> bool:
    """Whether evaluating these statements unconditionally is harmless: only constants, copies,
    components and side-effect-free builtins (no array access, no user function, no control flow).
    Integer division by zero gives 0 in kernels, so arithmetic never traps."""
    for s in stmts:
        if not isinstance(s, Let):
            return False
        v = s.value
        if isinstance(v, Call):
            if v.builtin.side_effects or v.builtin.inout_for(v.resolved.overload):
                return False
        elif not isinstance(v, (Const, Copy, Extract, Construct, Tid)):
            return False
    return True
