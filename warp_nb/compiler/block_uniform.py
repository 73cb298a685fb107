"""Which tiles of a kernel typed for blocks of several lanes hold the same value in every lane, so
that on the CPU one lane computes them once for the block (native/tiles/block_cpu.h,
block_frame_t). The region-based idea of OpenCL CPU compilers, per statement: every lane runs the
kernel as today, but the statements that write a block-uniform tile run on lane 0 alone, into a
frame the lanes share, and the other lanes read lane 0's result.

A value is block-uniform when it cannot depend on the lane: not the lane's own wp.tid() component
(the last one a kernel unpacks; the launch checks that the leading ones are its block's, else the
lanes keep their own frames: launch/launcher.py), not wp.untile or a lane's own element, not an
atomic's result, not a call of a user function with effects, barriers or lane-dependent code
(_pure_func), not anything written under control flow whose condition depends on the lane. Tiles gathered from every lane (wp.tile(x)) are uniform.

Correctness under the fiber schedule (each round, lane 0 runs to its next barrier before lane 1
starts, and every lane passes the same barriers): lane 0 is never behind another lane, so a lane
that reads a shared tile sees lane 0's value at the end of the current round. That is the value it
needs unless lane 0 writes the tile again later in the round: a barrier (a fence) goes before each
shared write that may follow such a read since the last fence. Memory is treated the same way: a
shared store after a per-lane access, or a shared load after a per-lane write, gets a fence.
Kernels where lanes might pass different barriers (a return, break or continue under a
lane-dependent condition, a tile operation with a barrier under one, a user function with barriers
under its own control flow) are left as they are: no sharing."""

from __future__ import annotations

from dataclasses import dataclass, field

from . import ir
from ..types.array_type import ArrayType
from ..types.tiles import TileType

#: templates of the lane exchanges (native/tiles/tile_block.h) whose result every lane holds alike
_GATHERS = ("tile_from_lanes", "tile_from_vector_lanes", "tile_from_matrix_lanes", "tile_full_from_lane",
            "tile_lanes_update", "tile_scatter_lanes")


@dataclass
class BlockSharing:
    """What the emitter needs (emit/body.py): the tiles in the block's shared frame, the statements
    (and phi, loop-state and break/continue moves) lane 0 runs alone, and those a fence precedes."""

    shared: dict = field(default_factory=dict)  # id(Var) -> Var
    lead: set = field(default_factory=set)  # ids of Let / Effect / Assign / Phi / Carried
    fences: set = field(default_factory=set)


class _Bail(Exception):
    pass


def block_sharing(fn: ir.Function) -> BlockSharing | None:
    """The sharing plan of kernel `fn` (typed for blocks of several lanes), or None: no tile to
    share, or lanes that might not pass the same barriers."""
    if fn.block_dim <= 1:
        return None
    try:
        a = _Analysis(fn)
        a.run()
    except _Bail:
        return None
    return a.plan if a.plan.shared else None


def _value_vars(v):
    """The Vars an expression reads."""
    out = []
    for name in ("args", "indices", "items", "shape"):
        for x in getattr(v, name, ()) or ():
            if isinstance(x, ir.Var):
                out.append(x)
    for name in ("src", "base", "array", "value", "ptr", "source"):
        x = getattr(v, name, None)
        if isinstance(x, ir.Var):
            out.append(x)
    for x in getattr(v, "path", ()) or ():
        if isinstance(x, ir.Var):
            out.append(x)
    for ax in getattr(v, "axes", ()) or ():
        if isinstance(ax, ir.Var):
            out.append(ax)
        elif isinstance(ax, ir.AxisSlice):
            out += [b for b in (ax.start, ax.stop, ax.step) if b is not None]
    return out


def _template(call) -> str:
    return getattr(getattr(call.resolved, "overload", None), "template", None) or ""


def _exchange(call) -> bool:
    """A lane exchange: a call with barriers that every lane must reach."""
    t = _template(call)
    return "_lanes" in t or "from_lane" in t


def _has_barrier(value) -> bool:
    """Whether evaluating `value` may pass a barrier (native/tiles/block.h)."""
    if isinstance(value, ir.Call):
        return _exchange(value) or value.builtin.lanes in ("lead", "once_per_block")
    if isinstance(value, ir.CallFunc):
        return _func_barriers(value.func)
    if isinstance(value, ir.GradCall):
        return any(isinstance(a.type, TileType) for a in value.args)
    return False


def _func_barriers(inst, seen=None) -> bool:
    """Whether a user function may pass a barrier; one that may under its own control flow cannot
    be called where lanes must stay in step (raises _Bail)."""
    if getattr(inst, "native", None) is not None:
        return False
    seen = set() if seen is None else seen
    if id(inst) in seen:
        return False
    seen.add(id(inst))
    found = False
    for s in inst.ir.body:
        if isinstance(s, (ir.Let, ir.Effect)):
            if isinstance(s.value, ir.CallFunc):
                found |= _func_barriers(s.value.func, seen)
            else:
                found |= _has_barrier(s.value)
        elif isinstance(s, (ir.If, ir.For, ir.While, ir.Iterate)):
            if _nested_barriers(s, seen):
                raise _Bail
    return found


def _pure_func(inst, seen=None) -> bool:
    """Whether a user function computes the same in every lane from the same arguments, without
    barriers or effects (so lane 0 may call it alone for the block): no wp.tid(), no lane exchange
    or lane's own element, no store, atomic or print, no argument written in place."""
    if getattr(inst, "native", None) is not None:
        return False
    seen = set() if seen is None else seen
    if id(inst) in seen:
        return True
    seen.add(id(inst))
    if any(p.mutable for p in inst.ir.params):
        return False
    return _pure_body(inst.ir.body, seen)


def _pure_body(stmts, seen) -> bool:
    for s in stmts:
        if isinstance(s, (ir.Store, ir.Print, ir.Effect)):
            return False
        if isinstance(s, ir.Let):
            v = s.value
            if isinstance(v, (ir.Tid, ir.AddressOf, ir.GradCall)):
                return False
            if isinstance(v, ir.CallFunc) and not _pure_func(v.func, seen):
                return False
            if isinstance(v, ir.Call):
                b = v.builtin
                if b.side_effects or b.atomic or _has_barrier(v) or b.name == "untile" \
                        or b.lanes in ("own_element", "lane_query") or b.inout_for(v.resolved.overload):
                    return False
        if not all(_pure_body(block, seen) for block in ir.child_blocks(s)):
            return False
    return True


def _nested_barriers(s, seen) -> bool:
    for block in ir.child_blocks(s):
        for t in block:
            if isinstance(t, (ir.Let, ir.Effect)):
                v = t.value
                if (_func_barriers(v.func, seen) if isinstance(v, ir.CallFunc) else _has_barrier(v)):
                    return True
            elif isinstance(t, ir.Print):
                continue
            elif _nested_barriers(t, seen):
                return True
    return False


class _Analysis:
    def __init__(self, fn: ir.Function):
        self.fn = fn
        self.varying: set = set()  # ids of Vars whose value may differ between the lanes
        self.plan = BlockSharing()
        self.pure_funcs: dict = {}  # id(FuncInstance) -> _pure_func
        self.exits: list = []  # the states at the break and continue statements of the loop being fenced

    def run(self) -> None:
        while True:  # a fixed point: loops carry lane-dependence back to their heads
            before = len(self.varying)
            self.mark(self.fn.body, False)
            if len(self.varying) == before:
                break
        self.share(self.fn.body, False)
        if self.plan.shared:
            self.fence(self.fn.body, _State())

    # --- which values vary between lanes ----------------------------------------------------
    def vary(self, var) -> None:
        self.varying.add(id(var))

    def varies(self, var) -> bool:
        return var is not None and id(var) in self.varying

    def value_varies(self, v) -> bool:
        if isinstance(v, ir.Const):
            return False
        if isinstance(v, ir.Tid):
            n = self.fn.tid_count
            return not (v.count == n and n >= 2 and v.index < n - 1)
        if isinstance(v, ir.Call):
            b = v.builtin
            if b.name == "untile" or b.lanes in ("own_element", "lane_query"):
                return True
            if _exchange(v):
                t = _template(v)
                if not any(g in t for g in _GATHERS):
                    return True
                return any(self.varies(a) for a in v.args if isinstance(a.type, TileType))
            if b.side_effects and b.lanes not in ("lead", "lead_adjoint"):
                return True  # an atomic: each lane's own previous value
            return any(self.varies(a) for a in v.args)
        if isinstance(v, ir.CallFunc):
            return not self.pure(v.func) or any(self.varies(a) for a in v.args)
        if isinstance(v, (ir.AddressOf, ir.GradCall)):
            return True
        return any(self.varies(a) for a in _value_vars(v))

    def pure(self, inst) -> bool:
        key = id(inst)
        if key not in self.pure_funcs:
            self.pure_funcs[key] = _pure_func(inst)
        return self.pure_funcs[key]

    def mark(self, stmts, divergent: bool) -> None:
        for s in stmts:
            if isinstance(s, ir.Let):
                if divergent or self.value_varies(s.value):
                    self.vary(s.dst)
            elif isinstance(s, ir.Assign):
                if divergent or self.varies(s.src):
                    self.vary(s.dst)
            elif isinstance(s, ir.If):
                d = divergent or self.varies(s.cond)
                self.mark(s.body, d)
                self.mark(s.orelse, d)
                for p in s.phis:
                    if d or self.varies(p.then_src) or self.varies(p.else_src):
                        self.vary(p.dst)
            elif isinstance(s, (ir.For, ir.While, ir.Iterate)):
                if isinstance(s, ir.For):
                    d = divergent or any(self.varies(x) for x in (s.start, s.stop, s.step))
                elif isinstance(s, ir.While):
                    d = divergent or self.varies(s.cond)
                else:
                    d = True  # a query's results are each lane's own
                if d and not isinstance(s, ir.While):
                    self.vary(s.var)
                for c in s.carried:
                    if d or self.varies(c.init):
                        self.vary(c.state)
                if isinstance(s, ir.While):
                    self.mark(s.cond_body, d)
                self.mark(s.body, d)
            elif isinstance(s, (ir.Break, ir.Continue, ir.Return)):
                if divergent:
                    raise _Bail  # lanes would leave at different points
                for w in getattr(s, "writes", ()):
                    if self.varies(w.src):
                        self.vary(w.dst)
            if isinstance(s, (ir.Let, ir.Effect)):
                self.written_in_place(s.value)
                if isinstance(s.value, ir.CallFunc):
                    _func_barriers(s.value.func)  # (raises when its barriers hang on its own conditions)
                if divergent and _has_barrier(s.value):
                    raise _Bail  # lanes would pass different barriers

    def written_in_place(self, v) -> None:
        """What a call writes through its arguments (a builtin's inout state, a user function's
        reference parameter) is written by every lane that calls it: each keeps its own."""
        if isinstance(v, ir.AddressOf):
            self.vary(v.base)  # (what is written through the address)
        elif isinstance(v, ir.Call):
            for pos in v.builtin.inout_for(v.resolved.overload) or ():
                self.vary(v.args[pos])
        elif isinstance(v, ir.CallFunc):
            for p, a in zip(getattr(v.func.ir, "params", ()) if getattr(v.func, "native", None) is None else (), v.args):
                if p.mutable:
                    self.vary(a)
            if getattr(v.func, "native", None) is not None:
                for a in v.args:
                    self.vary(a)

    # --- which tiles are shared and which statements lane 0 runs alone ----------------------
    def sharable(self, var) -> bool:
        return isinstance(var.type, TileType) and not self.varies(var)

    def share(self, stmts, divergent: bool) -> None:
        plan = self.plan
        for s in stmts:
            if isinstance(s, ir.Let):
                v = s.value
                if divergent or not self.sharable(s.dst):
                    continue
                if isinstance(v, ir.Call) and (_exchange(v) or v.resolved.overload.outputs):
                    continue
                if not isinstance(v, (ir.Call, ir.CallFunc, ir.Copy, ir.Update)):  # (a CallFunc here is pure)
                    continue
                plan.shared[id(s.dst)] = s.dst
                plan.lead.add(id(s))
            elif isinstance(s, ir.Effect):
                v = s.value
                if not divergent and isinstance(v, ir.Call) and v.builtin.lanes == "lead" \
                        and not _exchange(v) and not any(self.varies(a) for a in v.args):
                    plan.lead.add(id(s))
            elif isinstance(s, ir.If):
                d = divergent or self.varies(s.cond)
                self.share(s.body, d)
                self.share(s.orelse, d)
            elif isinstance(s, (ir.For, ir.While, ir.Iterate)):
                d = divergent or isinstance(s, ir.Iterate) or (
                    self.varies(s.cond) if isinstance(s, ir.While)
                    else any(self.varies(x) for x in (s.start, s.stop, s.step)))
                if isinstance(s, ir.While):
                    self.share(s.cond_body, d)
                self.share(s.body, d)
        if not divergent and stmts is self.fn.body:
            self.share_mutables(self.fn.body)

    def share_mutables(self, stmts) -> None:
        """Phi and loop-state variables that are uniform tiles: in the frame, all their moves lane 0's."""
        plan = self.plan
        moves = []  # (key, dst)
        self.collect_moves(stmts, moves)
        candidates = {id(dst): dst for _, dst in moves if self.sharable(dst)}
        for key, dst in moves:
            if id(dst) in candidates:
                plan.shared[id(dst)] = dst
                plan.lead.add(key)

    def collect_moves(self, stmts, moves) -> None:
        for s in stmts:
            if isinstance(s, ir.Assign):
                moves.append((id(s), s.dst))
            elif isinstance(s, ir.If):
                for p in s.phis:
                    moves.append((id(p), p.dst))
                self.collect_moves(s.body, moves)
                self.collect_moves(s.orelse, moves)
            elif isinstance(s, (ir.For, ir.While, ir.Iterate)):
                for c in s.carried:
                    moves.append((id(c), c.state))
                self.collect_moves(getattr(s, "cond_body", ()), moves)
                self.collect_moves(s.body, moves)
            elif isinstance(s, (ir.Break, ir.Continue)):
                for w in s.writes:
                    moves.append((id(w), w.dst))

    # --- fences ----------------------------------------------------------------------------
    def fence(self, stmts, st: "_State") -> "_State":
        for s in stmts:
            st = self.fence_stmt(s, st)
        return st

    def write(self, key, dst, st: "_State", reads_memory=False, writes_memory=False) -> "_State":
        """A write lane 0 does alone: fenced when another lane may still read what it replaces."""
        if (dst is not None and id(dst) in st.read) or (writes_memory and st.touched) \
                or (reads_memory and st.wrote):
            self.plan.fences.add(key)
            return _State()
        return st

    def read(self, st: "_State", vars_, memory: str = "") -> "_State":
        """What a statement every lane runs reads of the frame, and whether it touches memory."""
        shared = {id(v) for v in vars_ if v is not None and id(v) in self.plan.shared}
        return _State(st.read | shared, st.touched or bool(memory), st.wrote or memory == "w")

    def fence_stmt(self, s, st: "_State") -> "_State":
        lead = self.plan.lead
        if isinstance(s, ir.Let):
            if id(s) in lead:
                mem = _memory(s.value)
                return self.write(id(s), s.dst, st, reads_memory=bool(mem), writes_memory=mem == "w")
            return self.read(st, _value_vars(s.value), _memory(s.value))
        if isinstance(s, ir.Effect):
            if id(s) in lead:
                return self.write(id(s), None, st, reads_memory=True, writes_memory=True)
            return self.read(st, _value_vars(s.value), _memory(s.value) or "w")
        if isinstance(s, ir.Assign):
            return self.move(id(s), s.dst, s.src, st)
        if isinstance(s, ir.Store):
            return self.read(st, [s.array, *s.indices, s.value], "w")
        if isinstance(s, (ir.Print, ir.Check)):
            return self.read(st, list(getattr(s, "args", ())) + [getattr(s, "cond", None)], "")
        if isinstance(s, ir.Return):
            return self.read(st, [s.value], "")
        if isinstance(s, (ir.Break, ir.Continue)):
            for w in s.writes:
                st = self.move(id(w), w.dst, w.src, st)
            self.exits.append(st)
            return st
        if isinstance(s, ir.If):
            a = self.phi_moves(s, "then_src", self.fence(s.body, st))
            b = self.phi_moves(s, "else_src", self.fence(s.orelse, st))
            return a | b
        if isinstance(s, (ir.For, ir.While, ir.Iterate)):
            for c in s.carried:
                st = self.move(id(c), c.state, c.init, st)
            head = st
            while True:  # the state at the loop's head: what enters, and what comes round (it only grows)
                saved, self.exits = self.exits, []
                end = self.fence(getattr(s, "cond_body", ()), head)
                after_cond = end
                end = self.fence(s.body, end)
                exits, self.exits = self.exits, saved
                new_head = head | end
                for e in exits:
                    new_head = new_head | e
                if new_head == head:
                    break
                head = new_head
            out = head | after_cond
            for e in exits:
                out = out | e
            return out
        return st

    def move(self, key, dst, src, st):
        if key in self.plan.lead:
            return self.write(key, dst, st)
        return self.read(st, [src])

    def phi_moves(self, s, side, st):
        for p in s.phis:
            src = getattr(p, side)
            if src is not None:
                st = self.move(id(p), p.dst, src, st)
        return st


def _memory(value) -> str:
    """How evaluating `value` touches arrays: "w" (writes, or may), "r" (reads), "" (neither)."""
    if isinstance(value, ir.Load):
        return "r"
    if isinstance(value, ir.CallFunc):
        return "r" if _pure_func(value.func) else "w"
    if isinstance(value, ir.Call):
        if value.builtin.side_effects or value.builtin.atomic:
            return "w"
        if any(isinstance(a.type, ArrayType) for a in value.args):
            return "r"
    return ""


@dataclass(frozen=True)
class _State:
    """Since the last fence: the shared tiles other lanes may have read, whether per-lane code
    touched memory, and whether it wrote it."""

    read: frozenset = frozenset()
    touched: bool = False
    wrote: bool = False

    def __or__(self, other: "_State") -> "_State":
        return _State(self.read | other.read, self.touched or other.touched, self.wrote or other.wrote)
