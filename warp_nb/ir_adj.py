"""The reverse-mode IR that `adjoint` produces and `emit` reads: the statements of a backward
function, after a replay of the forward statements. Every adjoint variable is an ordinary
`ir.Var` (named adj_<primal>); these nodes say how gradients flow. Nothing here knows C++."""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import Loc
from .ir import Var


@dataclass(frozen=True)
class Accumulate:
    """dst<path> += src (path into dst: components, fields)."""

    dst: Var
    src: Var
    path: tuple = ()


@dataclass(frozen=True)
class Zero:
    """dst = 0 (a mutable value's adjoint after it has been passed on)."""

    dst: Var


@dataclass(frozen=True)
class AdjCall:
    """adj_<builtin>(args..., adj_args..., adj_ret): the registry's adjoint of one call."""

    builtin: object
    resolved: object
    args: tuple
    adj_args: tuple
    adj_ret: Var | None


@dataclass(frozen=True)
class AdjFuncCall:
    """adj_<func>(args..., adj_args..., adj_ret) for a user function (or its custom gradient)."""

    func: object  # typecheck.FuncInstance
    args: tuple
    adj_args: tuple
    adj_ret: Var | None


@dataclass(frozen=True)
class AdjConstruct:
    """The adjoint of building a value from parts (vec3(x, y, z), float32(i), ...)."""

    type: object
    args: tuple
    adj_args: tuple
    adj_ret: Var


@dataclass(frozen=True)
class AdjUpdate:
    """dst = base with base<path> = value: value gets adj_dst<path>, base gets the rest."""

    adj_dst: Var
    path: tuple
    adj_base: Var
    adj_value: Var


@dataclass(frozen=True)
class AdjLoad:
    """value = array[indices]: add adj_value to array.grad[indices] (atomically unless each thread
    owns the element it reads)."""

    array: Var
    indices: tuple
    adj_value: Var
    owned: bool


@dataclass(frozen=True)
class AdjStore:
    """array[indices]<path> = value: value's adjoint reads array.grad[indices]<path>."""

    array: Var
    indices: tuple
    path: tuple
    adj_value: Var


@dataclass(frozen=True)
class RevIf:
    cond: Var
    body: tuple
    orelse: tuple


@dataclass(frozen=True)
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


@dataclass
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
