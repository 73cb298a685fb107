"""What an entry point of an emitted kernel must do, as the emitter describes it to the target
that writes it (`EntryPoint`; the CPU's writer is runtime/cpu_entry.py, CUDA's cuda/entry.py), and
the analysis that finds the kernel's reductions, which the body and the entry points share.

A reduction here is an atomic_add/atomic_sub (or `a[0] += x`) into a constant element of a
kernel parameter array that the kernel touches in no other way. The body adds such sums into
accumulators it is given (one C++ reference per accumulator); an entry point keeps them privately
(on the CPU per chunk of the launch, in registers; on CUDA per GPU thread) and adds them to the
array atomically once. Knows IR; knows nothing about C++ entry points, compiling or devices."""

from __future__ import annotations

from dataclasses import replace

from ..records import record
from .. import ir
from ...types.array_type import ArrayType


@record
class Accumulator:
    """A per-chunk accumulator of an array element, summed after the launch."""

    name: str  # C++ name of the per-chunk accumulator
    array: ir.Var  # the kernel parameter accumulated into
    indices: tuple  # constant indices (Python ints)
    cpp_type: str


def find_reductions(fn: ir.Function, consts: dict) -> dict:
    """Map id(Effect) -> Accumulator for every privatisable atomic accumulation in a kernel.
    `consts` maps id(Var) -> constant value for Vars bound to constants."""
    from .cpp import cpp_type

    params = {id(p): p for p in fn.params if isinstance(p.type, ArrayType)}
    if not params or not _has_atomic_effect(fn.body):
        return {}  # the common case, decided without the full scan
    candidates: dict = {}  # id(array) -> list of (effect, indices)
    disqualified: set = set()

    def visit(stmts):
        for s in stmts:
            if isinstance(s, ir.Effect) and isinstance(s.value, ir.Call) and \
                    s.value.builtin.atomic in _SUMS and id(s.value.args[0]) in params:
                array = s.value.args[0]
                ndim = array.type.ndim
                idx = tuple(consts.get(id(a)) for a in s.value.args[1:1 + ndim])
                if None in idx or not _plain_value(s.value.args[-1].type):
                    disqualified.add(id(array))
                else:
                    candidates.setdefault(id(array), []).append((s, idx))
                _uses(s.value.args[1:], disqualified, params)
                continue
            for v in _used_vars(s):
                if id(v) in params:
                    disqualified.add(id(v))
            for block in ir.child_blocks(s):
                visit(block)

    ir.constants(fn.body, consts)
    visit(fn.body)
    out, accumulators = {}, {}
    for array_id, uses in candidates.items():
        if array_id in disqualified:
            continue
        array = params[array_id]
        for effect, idx in uses:
            key = (array_id, idx)
            acc = accumulators.get(key)
            if acc is None:
                acc = Accumulator(f"wpnb_acc{len(accumulators)}", array, idx, cpp_type(array.type.dtype))
                accumulators[key] = acc
            out[id(effect)] = acc
    return out


_SUMS = ("add", "sub")  # the atomics a reduction can privatise (accumulate in a register, then add once)


def _has_atomic_effect(stmts) -> bool:
    for s in stmts:
        if isinstance(s, ir.Effect) and isinstance(s.value, ir.Call) and s.value.builtin.atomic in _SUMS:
            return True
        if any(_has_atomic_effect(b) for b in ir.child_blocks(s)):
            return True
    return False


def _plain_value(t) -> bool:
    from ... import types as T
    return T.is_scalar_type(t) and t._kind != "bool" or T.kind_of(t) in ("vector", "matrix")


def _used_vars(s) -> list:
    """Vars a statement reads (not looking into nested blocks)."""
    out = []
    value = getattr(s, "value", None)
    for node in (s, value):
        if node is None or isinstance(node, ir.Var):
            if isinstance(node, ir.Var):
                out.append(node)
            continue
        for name in ("args", "indices", "items", "path"):
            out += [x for x in getattr(node, name, ()) if isinstance(x, ir.Var)]
        for name in ("array", "base", "src", "cond", "query"):
            x = getattr(node, name, None)
            if isinstance(x, ir.Var):
                out.append(x)
    for c in getattr(s, "carried", ()):
        out.append(c.init)
    for p in getattr(s, "phis", ()):
        out += [x for x in (p.then_src, p.else_src) if x is not None]
    return out


def _uses(vars_, disqualified: set, params: dict) -> None:
    for v in vars_:
        if id(v) in params:
            disqualified.add(id(v))


@record(frozen=True)
class EntryPoint:
    """What one entry point of a kernel must do; a target writes it (`Target.entry_point`) and
    names it (`Target.entry_name`). The body it calls is `<symbol>_<body>`, a template over the
    contiguity flag WPNB_C taking the argument struct `<symbol>_args`, one int32 per tid dimension
    and, for a forward body with reductions, one reference per accumulator."""

    symbol: str  # the kernel's C++ symbol
    direction: str  # "forward" or "backward"
    tid_count: int  # indices the body takes (at least 1)
    lanes: int = 1  # lanes per block: more than one needs a block entry point (native/block.h)
    accumulators: tuple = ()  # Accumulators (privatised reductions) the body adds into, in its order
    arrays: tuple = ()  # names of the kernel's array parameters
    one_lane_blocks: bool = False  # a tile kernel in blocks of one lane (what CUDA tells native/block.h)
    # index_ranges.Guards of a forward body compiled twice (template flag WPNB_K): when every guard
    # holds for a chunk of threads, the body with WPNB_K false (unchecked) may run it; none: one body
    guards: tuple = ()
    # every check of the unit is one of those guarded accesses: the unchecked body can fail none,
    # so it need not say which thread runs (what a failed check reports)
    only_guarded_checks: bool = False
    # deterministic mode (compiler/deterministic.py): "defer" (log float atomics per chunk, replayed
    # in thread order after the launch: the target exports `<entry>_replay`), "serial" (run on one
    # thread), "" (not deterministic)
    deterministic: str = ""
    # how the entry point is called (compiler/entry_abi.py): "warp" (wp.launch), or
    # "external_constant_params" (another program launches `exported`, its one parameter, of the
    # C++ type `param_type` and argument-struct member `param_name`, in a __constant__ buffer: CUDA only)
    abi: str = "warp"
    exported: str = ""
    param_type: str = ""
    param_name: str = ""

    @property
    def body(self) -> str:
        """The suffix of the body function it calls: `body` or `backward_body`."""
        return "body" if self.direction == "forward" else f"{self.direction}_body"


def entry_points(fn: ir.Function, reductions: dict, backward: bool, guards: tuple = (),
                 only_guarded_checks: bool = False, deterministic=None) -> tuple:
    """The entry points a kernel needs: forward (with the accumulators of `reductions`, as the
    body writer found them, and the `guards` of its versioned bodies) and, with a backward body,
    backward (versioned on the same guards)."""
    accumulators = tuple({id(a): a for a in reductions.values()}.values())
    common = {"symbol": fn.symbol, "tid_count": max(fn.tid_count, 1), "lanes": fn.block_dim,
              "arrays": tuple(p.name for p in fn.params if isinstance(p.type, ArrayType)),
              "one_lane_blocks": fn.uses_blocks and fn.block_dim == 1}
    common.update(guards=guards, only_guarded_checks=only_guarded_checks)
    plan = deterministic
    out = (EntryPoint(direction="forward", accumulators=accumulators, deterministic=plan.forward if plan else "",
                      **common),)
    return out + (EntryPoint(direction="backward", deterministic=plan.backward if plan else "", **common),) \
        if backward else out


def external_entry_points(entry_points: tuple, fn: ir.Function, exported: str) -> tuple:
    """The entry points of a kernel with Warp's external_constant_params ABI (checked by
    compiler/entry_abi.py): its forward one, launched by another program as `exported`."""
    from .cpp import cpp_type
    from ..entry_abi import EXTERNAL_CONSTANT_PARAMS
    param = fn.params[0]
    return tuple(replace(e, abi=EXTERNAL_CONSTANT_PARAMS, exported=exported, param_type=cpp_type(param.type),
                         param_name=param.name) for e in entry_points if e.direction == "forward")
