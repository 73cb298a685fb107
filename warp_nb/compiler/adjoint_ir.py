"""The reverse-mode IR that `adjoint` produces and `emit` reads: the statements of a backward
function, after a replay of the forward statements. Every adjoint variable is an ordinary
`ir.Var` (named adj_<primal>); these nodes say how gradients flow. Nothing here knows C++."""

from __future__ import annotations

from dataclasses import field

from .records import record
from ..errors import Loc
from .ir import Var, format_block


@record(frozen=True)
class Accumulate:
    """dst<path> += src (path into dst: components, fields)."""

    dst: Var
    src: Var
    path: tuple = ()


@record(frozen=True)
class TupleItem:
    """Component k of a tuple-typed adjoint, as the source of an Accumulate (emit writes `.v{k}`)."""

    var: Var
    k: int


@record(frozen=True)
class ReplayBlock:
    """Several replay statements that stand together (a loop and its trip counter)."""

    stmts: tuple


@record(frozen=True)
class Zero:
    """dst = 0 (a mutable value's adjoint after it has been passed on)."""

    dst: Var


@record(frozen=True)
class AdjCall:
    """adj_<builtin>(args..., adj_args..., adj_ret): the registry's adjoint of one call."""

    builtin: object
    resolved: object
    args: tuple
    adj_args: tuple
    adj_ret: Var | None


@record(frozen=True)
class AdjFuncCall:
    """adj_<func>(args..., adj_args..., adj_ret) for a user function (or its custom gradient)."""

    func: object  # typecheck.FuncInstance
    args: tuple
    adj_args: tuple
    adj_ret: Var | None


@record(frozen=True)
class AdjConstruct:
    """The adjoint of building a value from parts (vec3(x, y, z), float32(i), ...)."""

    type: object
    args: tuple
    adj_args: tuple
    adj_ret: Var


@record(frozen=True)
class AdjUpdate:
    """dst = base with base<path> = value: value gets adj_dst<path>, base gets the rest."""

    adj_dst: Var
    path: tuple
    adj_base: Var
    adj_value: Var


@record(frozen=True)
class AdjLoad:
    """value = array[indices]: add adj_value to array.grad[indices] (atomically unless each thread
    owns the element it reads)."""

    array: Var
    indices: tuple
    adj_value: Var
    owned: bool


@record(frozen=True)
class AdjStore:
    """array[indices]<path> = value: value's adjoint reads array.grad[indices]<path>."""

    array: Var
    indices: tuple
    path: tuple
    adj_value: Var


@record(frozen=True)
class AdjPrint:
    """The adjoint of print(), as Warp's backward pass shows it: a line `adj: <adjoint>` for each
    printed value (the zero of its type where no gradient reaches it; None for a value print()
    shows no text for, an array or a struct, which is then shown by the same placeholder)."""

    items: tuple  # (the printed Var, its adjoint Var or None)


@record(frozen=True)
class RevIf:
    """The reverse of an If: the adjoint statements of each branch."""

    cond: Var
    body: tuple
    orelse: tuple


@record(frozen=True)
class RevLoop:
    """The reverse of a dynamic loop, by recomputation: for k = n-1 .. 0, rerun the loop from its
    initial state for k iterations, replay iteration k without its state write-back, then run
    iteration k's reverse. Memory stays constant; the cost is quadratic in the trip count."""

    kind: str  # "for" | "while" | "iterate" (a query loop: cond_body advances the query)
    counter: Var | None  # the loop variable (for)
    start: Var | None
    step: Var | None
    trips: Var  # number of iterations the forward replay ran (mutable int32)
    k: Var  # reverse iteration index (mutable int32)
    j: Var  # recomputation index (mutable int32)
    carried: tuple  # ir.Carried
    cond_body: tuple  # while: statements computing the condition (replayed)
    body_replay: tuple  # forward statements of one iteration, with the state write-back
    body_replay_no_writeback: tuple
    body_reverse: tuple
    loc: Loc
    # adjoints of the values one iteration defines: reset before each iteration's reverse, since
    # the same variables hold the next (earlier) iteration's values
    iteration_adjoints: tuple = ()


@record(frozen=True)
class AdjointFunction:
    """A typed function with its backward code: the primal, the replay and reverse blocks, and
    every variable the backward code declares."""

    primal: object  # ir.Function
    replay: tuple
    reverse: tuple
    adj: dict  # id(primal Var) -> adjoint Var
    locals: list = field(default_factory=list)  # extra variables (adjoints, loop counters ...)
    ret_var: Var | None = None  # the single-exit return value (functions)
    ret_adjoint: Var | None = None  # the adjoint that receives the caller's adj_ret
    prints: bool = False  # its reverse sweep shows adjoints (AdjPrint): a kernel's may read seeds for them


# --- printing ---------------------------------------------------------------------------------


def format_adjoint(adj: AdjointFunction) -> str:
    """Stable text for the backward code of one function: the replay, then the reverse sweep."""
    head = f"adjoint of {adj.primal.symbol}"
    if adj.ret_adjoint is not None:
        head += f" (receives {adj.ret_adjoint!r})"
    return "\n".join([head + ":", "    replay:", *_block(adj.replay, 2), "    reverse:", *_block(adj.reverse, 2)])


def _path(path: tuple) -> str:
    return "".join(f".{p}" if isinstance(p, str) else f"[{p!r}]" for p in path)


def _args(*groups) -> str:
    return "; ".join(", ".join(map(repr, g)) for g in groups)


def _block(stmts, depth: int) -> list[str]:
    pad, out = "    " * depth, []
    for s in stmts:
        if isinstance(s, Accumulate):
            src = f"{s.src.var!r}.v{s.src.k}" if isinstance(s.src, TupleItem) else repr(s.src)
            out.append(f"{pad}{s.dst!r}{_path(s.path)} += {src}")
        elif isinstance(s, Zero):
            out.append(f"{pad}{s.dst!r} = 0")
        elif isinstance(s, AdjCall):
            out.append(f"{pad}adj_{s.builtin.name}({_args(s.args, s.adj_args)}; {s.adj_ret!r})")
        elif isinstance(s, AdjFuncCall):
            out.append(f"{pad}adj_{s.func.symbol}({_args(s.args, s.adj_args)}; {s.adj_ret!r})")
        elif isinstance(s, AdjConstruct):
            out.append(f"{pad}adj_construct({_args(s.args, s.adj_args)}; {s.adj_ret!r})")
        elif isinstance(s, AdjUpdate):
            out.append(f"{pad}{s.adj_value!r} += {s.adj_dst!r}{_path(s.path)}; {s.adj_base!r} += {s.adj_dst!r} "
                       f"without {_path(s.path)}")
        elif isinstance(s, AdjLoad):
            kind = "add" if s.owned else "atomic add"
            out.append(f"{pad}{s.array!r}.grad[{', '.join(map(repr, s.indices))}] {kind} {s.adj_value!r}")
        elif isinstance(s, AdjStore):
            out.append(f"{pad}{s.adj_value!r} += {s.array!r}.grad[{', '.join(map(repr, s.indices))}]{_path(s.path)}")
        elif isinstance(s, AdjPrint):
            out.append(f"{pad}print adj({', '.join(repr(a) for _, a in s.items)})")
        elif isinstance(s, RevIf):
            out.append(f"{pad}if {s.cond!r}:")
            out += _block(s.body, depth + 1)
            if s.orelse:
                out.append(f"{pad}else:")
                out += _block(s.orelse, depth + 1)
        elif isinstance(s, RevLoop):
            out.append(f"{pad}reverse {s.kind} loop (trips {s.trips!r}, k {s.k!r}, j {s.j!r}):")
            for name in ("cond_body", "body_replay", "body_replay_no_writeback", "body_reverse"):
                out.append(f"{pad}    {name}:")
                out += _block(getattr(s, name), depth + 2)
        elif isinstance(s, ReplayBlock):
            out += _block(s.stmts, depth)
        else:  # a forward statement (replay)
            out += format_block((s,), depth)
    return out

