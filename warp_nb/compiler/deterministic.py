"""Deterministic mode's lowering plan for one typed kernel (CompileOptions.deterministic above 0). In:
the typed IR (and whether a backward body is wanted). Out: a `Plan` saying how each entry point runs,
or a KernelDeterminismError at the user's line for what deterministic mode cannot order.

The float atomics (atomic_add/sub/min/max, `a[i] += x`) whose results a kernel does not use are
*deferred*: each is appended to a record log of the chunk of threads running it and the logs are
replayed after the launch in thread order (native/arrays/deterministic.h), so every element receives
its updates in the order a serial loop over the threads gives, whatever the thread count or schedule.
Deferring is unobservable only if the kernel neither reads nor writes a deferred target in any other
way, so that is refused (as Warp refuses it), as are mixed operations on one target and the returned
value of a float atomic. An int32 counter whose returned value the kernel consumes (slot allocation,
`slot = wp.atomic_add(counter, 0, 1)`) needs the slots in thread order: such a kernel runs on one
thread, in thread order (what Warp's CPU backend does for every kernel), and its backward is refused
(the counter has moved on by then). A backward body that reads a gradient it also accumulates (a
kernel storing into an array it reads, custom adjoints) cannot defer either; it runs on one thread.

Knows the IR and the registry's atomic names; knows nothing about C++ text or launching."""

from __future__ import annotations


from .records import record
from .. import types as T
from ..errors import KernelDeterminismError
from ..types.array_type import ArrayType
from . import ir

DEFER = "defer"  # the entry point logs its float atomics per chunk; the launch replays them in order
SERIAL = "serial"  # the entry point runs on one thread, in thread order, with ordinary atomics
PLAIN = ""  # nothing to order (no float atomic): the entry point and launch of the default mode

_FIX_ACCESS = ("Fix: use separate input and output arrays, or split the direct access and atomic update into "
               "separate kernel launches.")


@record(frozen=True)
class Plan:
    """How a kernel's atomics are made deterministic, forward and backward."""

    forward: str  # DEFER or SERIAL
    backward: str  # DEFER or SERIAL (what a backward entry point does, when there is one)


@record
class _Target:
    """What a kernel does to one array (a kernel parameter, or an array field of a struct parameter)."""

    name: str
    ops: dict  # deferred operation family -> Loc of its first use
    counter: object = None  # Loc of a consumed int32 atomic_add
    read: object = None  # Loc of a direct read
    written: object = None  # Loc of a direct store


def plan_kernel(fn: ir.Function, backward: bool) -> Plan:
    """How `fn`'s entry points run in deterministic mode; raises KernelDeterminismError for what it
    cannot order (see the module docstring)."""
    targets: dict = {}
    local: list = []
    custom = _walk(fn, {id(p): (k,) for k, p in enumerate(fn.params)},
                   {(k,): _Target(n, {}) for k, n in enumerate(fn.param_names)}, targets, local)
    counters = False
    for t in targets.values():
        if len(t.ops) > 1:
            a, b = sorted(t.ops)[:2]
            raise _error(f"array '{t.name}' receives both '{a}' and '{b}' atomic operations. Fix: write each "
                         f"operation to a separate array, or split them into separate kernel launches.",
                         t.ops[b], fn)
        if t.ops or t.counter is not None:
            where = next(iter(t.ops.values()), t.counter)
            for what, loc in (("read", t.read), ("written", t.written)):
                if loc is not None:
                    raise _error(f"array '{t.name}' receives deterministic atomic updates and is also {what} "
                                 f"directly. Warp would change the operation order. {_FIX_ACCESS}", where, fn)
        counters = counters or t.counter is not None
    # atomics into a thread's own storage (a local array, a tile) must land before the thread ends:
    # such kernels run on one thread with every atomic applied where it runs
    forward = SERIAL if counters or local or fn.block_dim > 1 else DEFER if _has_float_atomic(fn, set()) else PLAIN
    if not backward:
        return Plan(forward, SERIAL)
    if counters:
        raise _error(f"Deterministic mode cannot differentiate kernel '{fn.name}' automatically. Cause: the "
                     "forward kernel uses the value returned by atomic_add() as a slot, but the counter has "
                     "changed by the time the backward kernel runs. Fix: save the forward slot mapping and "
                     "return it from @wp.func_replay, set enable_backward=False when the kernel is not "
                     "differentiable, or disable deterministic mode for this kernel.", fn.loc, fn, whole=True)
    if custom:
        for inst in custom:
            _refuse_custom_counters(inst, fn)
    # a gradient accumulated (an array read) and read back (a store's or atomic's adjoint) in one
    # backward body: a deferred accumulation would be missing from the read
    rereads = any(t.read is not None and (t.written is not None or t.ops) for t in targets.values())
    return Plan(forward, SERIAL if rereads or custom or local or fn.block_dim > 1 else DEFER)


def _walk(fn: ir.Function, alias: dict, roots: dict, targets: dict, local: list, depth: int = 0) -> list:
    """Record what `fn` does to the arrays of `roots` (keyed by root; `alias` maps id(Var) to the
    root it views) into `targets`, and into `local` the statements making thread-local arrays or
    using tiles; returns the custom-adjoint functions called."""
    custom = []

    def target(var) -> _Target | None:
        root = alias.get(id(var))
        if root is None or root not in roots:
            return None
        return targets.setdefault(root, roots[root])

    def visit(stmts) -> None:
        for s in stmts:
            value = getattr(s, "value", None)
            if isinstance(value, ir.NewArray) and value.ptr is None or \
                    isinstance(value, ir.Call) and value.builtin.name.startswith("tile"):
                local.append(s)
            if isinstance(s, ir.Let):
                src = _aliased(value)
                if src is not None and id(src) in alias:
                    alias[id(s.dst)] = alias[id(src)]
                elif isinstance(value, ir.Extract) and isinstance(s.dst.type, ArrayType) and id(value.base) in alias:
                    root = alias[id(value.base)] + tuple(value.path)  # an array field of a struct
                    alias[id(s.dst)] = root
                    base = roots.get(alias[id(value.base)])
                    roots.setdefault(root, _Target(f"{base.name if base else '?'}.{'.'.join(map(str, value.path))}", {}))
            elif isinstance(s, ir.Assign) and id(s.src) in alias:
                alias[id(s.dst)] = alias[id(s.src)]
            if isinstance(value, ir.Load):
                t = target(value.array)
                if t is not None and t.read is None:
                    t.read = s.loc
            if isinstance(s, ir.Store):
                t = target(s.array)
                if t is not None and t.written is None:
                    t.written = s.loc
            if isinstance(value, ir.Call) and value.builtin.atomic and value.args:
                _atomic(value, s, target(value.args[0]), fn)
            elif isinstance(value, ir.Call) and value.builtin.side_effects:
                for a in value.args:
                    t = target(a)
                    if t is not None and t.written is None:
                        t.written = s.loc
            if isinstance(value, ir.CallFunc) and depth < 32:
                inst = value.func
                if inst.custom_grad is not None:
                    custom.append(inst.custom_grad)
                inner = {id(p): alias[id(a)] for p, a in zip(inst.ir.params, value.args) if id(a) in alias}
                custom.extend(_walk(inst.ir, inner, roots, targets, local, depth + 1))
            for block in ir.child_blocks(s):
                visit(block)

    visit(fn.body)
    return custom


def _has_float_atomic(fn: ir.Function, seen: set) -> bool:
    """Whether `fn` or a function it calls makes a float atomic update."""
    def visit(stmts) -> bool:
        for s in stmts:
            value = getattr(s, "value", None)
            dtype = getattr(value.args[0].type, "dtype", None) if isinstance(value, ir.Call) and value.args else None
            if dtype is not None and value.builtin.atomic and T.is_float_type(T.scalar_type_of(dtype)):
                return True  # (on arrays, indexed and fabric arrays)
            if isinstance(value, ir.CallFunc) and id(value.func.ir) not in seen:
                seen.add(id(value.func.ir))
                if _has_float_atomic(value.func.ir, seen):
                    return True
            if any(visit(block) for block in ir.child_blocks(s)):
                return True
        return False
    return visit(fn.body)


def _aliased(value):
    """The array Var a Let's value views or copies (a view, a slice, a copy), else None."""
    if isinstance(value, (ir.View, ir.SliceView)):
        return value.array
    if isinstance(value, ir.Copy):
        return value.src
    return None


def _atomic(call: ir.Call, s, t: _Target | None, fn: ir.Function) -> None:
    """One atomic on target `t`: deferred (a float, result unused), a counter (an int32 add whose
    result is used), refused (any other used result), or left alone (integers: order-free)."""
    op = call.builtin.atomic
    array = call.args[0].type
    if not isinstance(array, ArrayType):
        return
    scalar = T.scalar_type_of(array.dtype)
    is_float = T.is_float_type(scalar)
    consumed = isinstance(s, ir.Let)
    name = f"atomic_{op}"
    if consumed and (is_float or (op == "add" and scalar is not T.int32)):
        raise _error(f"the kernel uses the return value of {name}() as a slot, but the counter is not an int32 "
                     f"array. Fix: use an int32 counter, do not use the atomic return value, or disable "
                     f"deterministic mode for this kernel.", s.loc, fn)
    if consumed and op != "add":
        raise _error(f"the kernel uses the value returned by wp.{name}(), but stable slot assignment supports "
                     f"only the return value of wp.atomic_add(). Fix: do not use this atomic return value, replace "
                     f"the algorithm with atomic_add() slot assignment, or disable deterministic mode for this "
                     f"kernel.", s.loc, fn)
    if t is None:
        return
    if consumed:
        t.counter = t.counter or s.loc
    elif is_float and op in ("add", "sub", "min", "max"):
        t.ops.setdefault("add" if op == "sub" else op, s.loc)


def _refuse_custom_counters(inst, kernel: ir.Function) -> None:
    """A custom adjoint that consumes an atomic's result hands out slots in its own schedule."""
    def visit(stmts):
        for s in stmts:
            value = getattr(s, "value", None)
            if isinstance(s, ir.Let) and isinstance(value, ir.Call) and value.builtin.atomic:
                raise _error("Deterministic mode cannot differentiate this kernel automatically. Cause: the custom "
                             f"adjoint of '{inst.ir.name}' uses the value returned by wp.atomic_{value.builtin.atomic}"
                             "(), whose slots the backward threads would take in any order. Fix: compute the slots "
                             "in a separate kernel, or disable deterministic mode for this kernel.", s.loc, kernel,
                             whole=True)
            for block in ir.child_blocks(s):
                visit(block)
    visit(inst.ir.body)


def _error(text: str, loc, fn: ir.Function, whole: bool = False) -> KernelDeterminismError:
    message = text if whole else f"Deterministic mode cannot compile this kernel. Cause: {text}"
    return KernelDeterminismError(message, loc, fn.name)
