"""Typed IR -> reverse-mode IR (`ir_adj`). Knows the registry's differentiability and the
shape of the IR; knows nothing about C++ text or devices.

The heart is `_Reverse.statement`: walk statements backwards; for each value computed from
inputs, add to each input's adjoint its local partial times the output's adjoint (the registry
names the C++ adjoint of every builtin). Around that heart:
  - `single_exit` rewrites `return` into a flag and guards, so the reverse sweep knows which
    statements ran;
  - `replay` is the forward code without side effects (stores, atomics, prints), run first to
    recompute every value the reverse sweep reads;
  - dynamic loops are reversed by recomputation (`RevLoop`): constant memory, exact gradients,
    also for variables that the loop reassigns;
  - array reads scatter into the array's gradient: atomically, unless every thread reads only
    its own element (then a plain add, which also vectorises)."""

from __future__ import annotations


from .records import record
from . import ir
from ..builtins import registry
from .. import types as T
from ..types.array_type import ArrayType
from ..types.tiles import TileType
from ..errors import KernelError
from .adjoint_ir import (
    Accumulate, AdjCall, AdjConstruct, AdjFuncCall, AdjLoad, AdjointFunction, AdjPrint, AdjStore, AdjUpdate, ReplayBlock,
    RevIf, RevLoop, TupleItem, Zero,
)
from ..builtins.registry import BUILTINS


class NotDifferentiableError(KernelError):
    """A construct whose gradient warp_nb cannot compute; raised at its line when a backward
    pass is requested."""


@record(frozen=True)
class AdjointUnit:
    """The backward code of one translation unit: the kernel's, and that of each function it
    calls, by C++ symbol (absent for functions with a custom gradient, and for the custom
    gradient and replay functions themselves, which are not differentiated)."""

    kernel: AdjointFunction | None  # None: only functions, for wp.grad(f) in forward code
    funcs: dict


def adjoint_unit(kernel: ir.Function, backward: bool = True) -> AdjointUnit | None:
    """Differentiate a typed kernel and every function it calls. Without `backward`, only the
    functions that wp.grad(f) calls in forward code need adjoints (with everything they call):
    a unit without a kernel adjoint, or None when there are none."""
    instances = ir.called_instances(kernel)
    if not backward:
        wanted = _grad_targets(kernel, instances)
        if not wanted:
            return None
        instances = [inst for inst in instances if inst.symbol in wanted]
    helpers = {id(x) for inst in instances for x in (inst.custom_grad, inst.custom_replay) if x is not None}
    funcs = {inst.symbol: adjoint_function(inst.ir) for inst in instances
             if inst.custom_grad is None and id(inst) not in helpers and inst.native is None and _passes_gradients(inst)}
    return AdjointUnit(adjoint_function(kernel) if backward else None, funcs)


def _grad_targets(kernel: ir.Function, instances) -> set:
    """Symbols of the functions whose adjoints forward code calls through wp.grad(f), with every
    function those call (their adjoints call the callees' adjoints)."""
    wanted: set = set()

    def visit(stmts):
        for s in stmts:
            value = getattr(s, "value", None)
            if isinstance(value, ir.GradCall) and not isinstance(value.func, registry.Builtin):
                for inst in ir.called_instances(value.func.ir) + [value.func]:
                    wanted.add(inst.symbol)
            for block in ir.child_blocks(s):
                visit(block)

    for fn in [kernel] + [inst.ir for inst in instances]:
        visit(fn.body)
    return wanted


def adjoint_function(fn: ir.Function) -> AdjointFunction:
    """The backward code of a kernel or function."""
    builder = _Builder(fn)
    body = builder.single_exit_body()
    replay = builder.replay(body)
    ret_adjoint = None
    if fn.return_type is not None:
        final = [s for s in fn.body if isinstance(s, ir.Return)]
        returned = builder.ret_var if builder.ret_var is not None else (final[-1].value if final else None)
        ret_adjoint = builder.adjoint_of(returned) if returned is not None else None
    reverse = builder.reverse(body)
    return AdjointFunction(fn, tuple(builder.prologue) + replay, reverse, builder.adj, builder.extra,
                           builder.ret_var, ret_adjoint, prints=builder.prints)


class _Builder:
    def __init__(self, fn: ir.Function):
        self.fn = fn
        self.adj: dict = {}
        self.extra: list = []
        self.prologue: list = []
        self.counter = 0
        self.ret_var = None
        self.prints = False  # an AdjPrint was made (adj_print)
        self.owned = _owned_arrays(fn) if fn.is_kernel else set()
        self.query_inits = _query_inits(fn.body)  # id(query loop state) -> the query's value before the loop
        self.copied_from = _copy_sources(fn.body)  # id(copy) -> the value copied
        # dynamic loops around the statement at hand: a print() in one is not repeated by the
        # backward pass, whose reverse of a loop recomputes its iterations (RevLoop)
        self.loop_depth = 0

    # --- variables ----------------------------------------------------------------------
    def adjoint_of(self, v: ir.Var) -> ir.Var:
        a = self.adj.get(id(v))
        if a is None:
            a = ir.Var(f"adj_{v.name}", v.type, mutable=True)
            self.adj[id(v)] = a
        return a

    def new_var(self, t, hint: str, mutable: bool = True) -> ir.Var:
        self.counter += 1
        v = ir.Var(f"wpnb_{hint}{self.counter}", t, mutable)
        self.extra.append(v)
        return v

    def const(self, value, t, block: list) -> ir.Var:
        v = self.new_var(t, "c", mutable=False)
        block.append(ir.Let(v, ir.Const(value, t), self.fn.loc))
        return v

    def call(self, name: str, args: list, block: list, loc) -> ir.Var:
        b = BUILTINS[name]
        resolved = registry.resolve(b, [a.type for a in args])
        v = self.new_var(resolved.result, name, mutable=False)
        block.append(ir.Let(v, ir.Call(b, tuple(args), resolved), loc))
        return v

    # --- single exit --------------------------------------------------------------------
    def single_exit_body(self) -> tuple:
        """The body with every `return` turned into setting a `done` flag (and the return value),
        and the statements after a possible return guarded by `if not done`."""
        if not _contains(self.fn.body, ir.Return):
            return self.fn.body
        done = self.new_var(T.bool, "done")
        self.prologue += [ir.Assign(done, self.const(False, T.bool, self.prologue), self.fn.loc)]
        if self.fn.return_type is not None:
            self.ret_var = self.new_var(self.fn.return_type, "ret")
        return tuple(self._single_exit(self.fn.body, done))

    def _single_exit(self, stmts, done) -> list:
        out = []
        for index, s in enumerate(stmts):
            if isinstance(s, ir.Return):
                if s.value is not None:
                    out.append(ir.Assign(self.ret_var, s.value, s.loc))
                out.append(ir.Assign(done, self.const(True, T.bool, out), s.loc))
                return out
            if isinstance(s, (ir.For, ir.While, ir.Iterate)) and _contains(s.body, ir.Return):
                raise NotDifferentiableError("cannot differentiate a `return` inside a loop; set a flag and "
                                             "`break` instead, or return after the loop", s.loc, self.fn.name)
            if isinstance(s, ir.If) and _contains(s.body + s.orelse, ir.Return):
                out.append(ir.If(s.cond, tuple(self._single_exit(s.body, done)),
                                 tuple(self._single_exit(s.orelse, done)), s.loc, s.phis))
                rest = list(stmts[index + 1:])
                if rest:
                    guard = []
                    not_done = self.call("logical_not", [done], guard, s.loc)
                    out += guard
                    out.append(ir.If(not_done, tuple(self._single_exit(rest, done)), (), s.loc))
                return out
            out.append(s)
        return out

    # --- replay -------------------------------------------------------------------------
    def replay(self, stmts, exits: bool = True) -> tuple:
        """The forward statements that compute values, without side effects (and without the
        loop's `break` when exits is False)."""
        out = []
        for s in stmts:
            if isinstance(s, ir.Let):
                v = s.value
                if isinstance(v, ir.CallFunc) and v.func.custom_replay is not None:
                    out.append(ir.Let(s.dst, ir.CallFunc(v.func.custom_replay, v.args), s.loc))
                    continue
                if isinstance(v, ir.Call) and v.builtin.side_effects and not v.builtin.replayable:
                    raise NotDifferentiableError(f"the result of wp.{v.builtin.name} is used in this kernel, so its "
                                                 "backward pass would repeat the side effect; compute the value "
                                                 "without it, or do not differentiate this kernel", s.loc,
                                                 self.fn.name)
                out.append(s)
            elif isinstance(s, ir.Assign):
                out.append(s)
            elif isinstance(s, ir.If):
                out.append(ir.If(s.cond, self.replay(s.body, exits), self.replay(s.orelse, exits), s.loc, s.phis))
            elif isinstance(s, (ir.For, ir.While)):
                out.append(self.replay_loop(s))
            elif isinstance(s, ir.Break):
                # typing left at most one break per loop, as the body's last statement (loop_exits):
                # replayed to end the loop, dropped where one iteration is replayed on its own
                if exits:
                    out.append(s)
            elif isinstance(s, ir.Continue):
                raise NotDifferentiableError("cannot differentiate a `continue` left in a loop body",
                                             s.loc, self.fn.name)
            elif isinstance(s, ir.Iterate):
                out.append(self.replay_loop(s))
            elif isinstance(s, ir.Effect) and isinstance(s.value, ir.CallFunc) and _writes_arguments(s.value.func):
                out.append(s)  # a call that writes the caller's copies (wp.ref[T], tiles): later values read them
            elif isinstance(s, ir.Print) and not s.fmt and self.loop_depth == 0:
                out.append(s)  # print() shows its value again, then its adjoint (AdjPrint), as in Warp
            # Store, other Effects, printf, Check, print() in a dynamic loop: side effects, not replayed
        return tuple(out)

    def replay_loop(self, s):
        trips = self._trips(s)
        count = [ir.Assign(trips, self.const(0, T.int32, self.prologue), s.loc)]
        one = self.const(1, T.int32, self.prologue)
        incr: list = []
        nxt = self.call("add", [trips, one], incr, s.loc)
        incr.append(ir.Assign(trips, nxt, s.loc))
        self.loop_depth += 1
        try:
            body = tuple(incr) + self.replay(s.body)  # counted on entry: an iteration that breaks counts too
            if isinstance(s, ir.For):
                loop = ir.For(s.var, s.start, s.stop, s.step, body, s.loc, s.carried)
            elif isinstance(s, ir.Iterate):
                loop = ir.Iterate(s.var, s.query, s.next_builtin, body, s.loc, s.carried)
            else:
                loop = ir.While(self.replay(s.cond_body), s.cond, body, s.loc, s.carried)
        finally:
            self.loop_depth -= 1
        return ReplayBlock(tuple(count) + (loop,))

    def _trips(self, s) -> ir.Var:
        key = ("trips", id(s))
        v = self.adj.get(key)
        if v is None:
            v = self.adj[key] = self.new_var(T.int32, "trips")
        return v

    # --- reverse ------------------------------------------------------------------------
    def reverse(self, stmts) -> tuple:
        out: list = []
        for s in reversed(stmts):
            self.statement(s, out)
        return tuple(out)

    def statement(self, s, out: list) -> None:
        if isinstance(s, ir.Let):
            self.let(s, out)
        elif isinstance(s, ir.Assign):
            if _differentiable(s.dst.type):
                out.append(Accumulate(self.adjoint_of(s.src), self.adjoint_of(s.dst)))
                out.append(Zero(self.adjoint_of(s.dst)))
        elif isinstance(s, ir.Store):
            if s.rereads and _differentiable(s.value.type):
                raise NotDifferentiableError(
                    "cannot differentiate an in-place update such as `a[i] *= v` of an array element: the "
                    "gradient needs the element's old value, which the update overwrites; write the result to "
                    "another array (out[i] = a[i] * v), or launch without a backward pass", s.loc, self.fn.name)
            if _differentiable(s.value.type):
                out.append(AdjStore(s.array, s.indices, s.path, self.adjoint_of(s.value)))
        elif isinstance(s, ir.Effect):
            self.effect(s, out)
        elif isinstance(s, ir.If):
            body, orelse = self.reverse(s.body), self.reverse(s.orelse)
            phis_then = [x for p in s.phis for x in self.phi_reverse(p.dst, p.then_src)]
            phis_else = [x for p in s.phis for x in self.phi_reverse(p.dst, p.else_src)]
            out.append(RevIf(s.cond, tuple(phis_then) + body, tuple(phis_else) + orelse))
        elif isinstance(s, ReplayBlock):
            for x in reversed(s.stmts):
                self.statement(x, out)
        elif isinstance(s, (ir.For, ir.While, ir.Iterate)):
            self.loop_depth += 1
            try:
                self.loop(s, out)
            finally:
                self.loop_depth -= 1
        elif isinstance(s, ir.Print) and not s.fmt and self.loop_depth == 0:
            out.append(self.adj_print(s))
        # printf, Check, Break, Continue (refused in replay), Return (removed): nothing

    def adj_print(self, s: ir.Print) -> AdjPrint:
        """print()'s adjoint: each printed value's adjoint (tiles: none; arrays and structs: a
        placeholder, as print() shows them)."""
        self.prints = True
        items = []
        for a in s.args:
            if isinstance(a, str) or isinstance(a.type, TileType):
                continue
            shown = T.is_scalar_type(a.type) or T.kind_of(a.type) is not None
            items.append((a, self.adjoint_of(a) if shown else None))
        return AdjPrint(tuple(items))

    def phi_reverse(self, dst, src) -> list:
        if src is None or not _differentiable(dst.type):
            return []
        return [Accumulate(self.adjoint_of(src), self.adjoint_of(dst)), Zero(self.adjoint_of(dst))]

    def let(self, s: ir.Let, out: list) -> None:
        v, dst = s.value, s.dst
        if not _differentiable(dst.type) and not isinstance(v, ir.CallFunc):
            return
        adj_dst = self.adjoint_of(dst)
        if isinstance(v, ir.Copy):
            out.append(Accumulate(self.adjoint_of(v.src), adj_dst))
        elif isinstance(v, ir.Call):
            if v.builtin.differentiable and v.args and (v.builtin.adjoint_inout
                                                        or not v.builtin.inout_for(v.resolved.overload)):
                out.append(AdjCall(v.builtin, v.resolved, v.args, tuple(self.adjoint_of(a) for a in v.args), adj_dst))
        elif isinstance(v, ir.CallFunc) and _passes_gradients(v.func):
            out.append(self.adj_func_call(v, adj_dst if v.func.return_type is not None else None))
        elif isinstance(v, ir.Construct):
            if v.args and any(_differentiable(a.type) for a in v.args):
                out.append(AdjConstruct(v.type, v.args, tuple(self.adjoint_of(a) for a in v.args), adj_dst))
        elif isinstance(v, ir.Load):
            out.append(AdjLoad(v.array, v.indices, adj_dst, id(v.array) in self.owned))
        elif isinstance(v, ir.Extract):
            if not isinstance(v.base.type, ArrayType):
                out.append(Accumulate(self.adjoint_of(v.base), adj_dst, v.path))
        elif isinstance(v, ir.Update):
            out.append(AdjUpdate(adj_dst, v.path, self.adjoint_of(v.base), self.adjoint_of(v.value)))
        elif isinstance(v, ir.GradCall):
            pass  # a gradient used as a value: its own derivative (a second derivative) is not taken
        elif isinstance(v, ir.TupleOf):
            for k, item in enumerate(v.items):
                if _differentiable(item.type):
                    out.append(Accumulate(self.adjoint_of(item), TupleItem(adj_dst, k)))
        # Const, Tid, View: no inputs to differentiate

    def effect(self, s: ir.Effect, out: list) -> None:
        v = s.value
        if isinstance(v, ir.CallFunc) and _passes_gradients(v.func):
            out.append(self.adj_func_call(v, None))
        elif isinstance(v, ir.Call) and v.builtin.differentiable and v.builtin.side_effects:
            # atomics: the value's adjoint reads the array's gradient (adj_atomic_* in atomic.h)
            out.append(AdjCall(v.builtin, v.resolved, v.args, tuple(self.adjoint_of(a) for a in v.args), None))

    def adj_func_call(self, v: ir.CallFunc, adj_ret) -> AdjFuncCall:
        """The adjoint of a call of a user function. A parameter the function writes (a wp.ref[T] or a
        tile it writes into) is an input and an output: the caller passed a copy (`r = x`) that holds
        the value after the call once the replay has run it, so the adjoint is given the value before
        it, `x`; r's adjoint goes in as that of the value after the call and comes out as that of the
        value before it, which the copy's own adjoint then passes on to x."""
        params = v.func.ir.params
        args = tuple(self.copied_from.get(id(a), a) if k < len(params) and params[k].mutable else a
                     for k, a in enumerate(v.args))
        return AdjFuncCall(v.func, args, tuple(self.adjoint_of(a) for a in v.args), adj_ret)

    def loop(self, s, out: list) -> None:
        carried = s.carried
        no_writeback = _drop_state_writes(s.body, carried)
        cond_body = self.replay(getattr(s, "cond_body", ()))
        kind = "for" if isinstance(s, ir.For) else "while"
        if isinstance(s, ir.Iterate):
            # a query loop (for j in wp.hash_grid_query(...)) reverses like a while loop whose
            # condition advances the query: each recomputation restarts the query from its value
            # before the loop (carried like loop state; not differentiable, so no adjoint flows)
            kind = "iterate"
            init = self.query_inits.get(id(s.query))
            if init is None:
                raise NotDifferentiableError("cannot differentiate this query loop (its query has no initial value)",
                                             s.loc, self.fn.name)
            carried = tuple(carried) + (ir.Carried("query", s.query, init),)
            advance = ir.Call(s.next_builtin, (s.query, s.var),
                              registry.resolve(s.next_builtin, [s.query.type, s.var.type]))
            cond_body = (ir.Effect(advance, s.loc),)
        rev = RevLoop(
            kind=kind,
            counter=getattr(s, "var", None), start=getattr(s, "start", None), step=getattr(s, "step", None),
            trips=self._trips(s), k=self.new_var(T.int32, "k"), j=self.new_var(T.int32, "j"), carried=carried,
            cond_body=cond_body, body_replay=self.replay(s.body),
            body_replay_no_writeback=self.replay(no_writeback, exits=False), body_reverse=self.reverse(s.body), loc=s.loc,
            iteration_adjoints=tuple(self.adjoint_of(v) for v in _defined(s.body) if _differentiable(v.type)))
        out.append(rev)
        for c in carried:
            if _differentiable(c.state.type):
                out.append(Accumulate(self.adjoint_of(c.init), self.adjoint_of(c.state)))
                out.append(Zero(self.adjoint_of(c.state)))


def _differentiable(t) -> bool:
    """Whether values of type t carry gradients (float scalars, composites, structs, tuples)."""
    if T.is_scalar_type(t):
        return t._kind == "float"
    if T.is_composite_type(t):
        return t._wp_scalar_type_._kind == "float"
    if getattr(t, "_wp_struct_", False):
        return True
    items = getattr(t, "items", None)
    if items is not None:
        return any(_differentiable(x) for x in items)
    if isinstance(t, TileType):
        return _differentiable(t.dtype)
    if isinstance(t, registry.OpaqueType):  # a native query result (wp.MeshQueryPoint): through its float fields
        return any(_differentiable(x) for x in t.fields.values())
    return False


def _passes_gradients(inst) -> bool:
    """Whether a called function can pass gradients at all: it has a custom gradient, or a float
    value (or an array of them) among its parameters or its result. One that has none (integer
    bookkeeping such as a counter bumped with wp.atomic_add) gets no adjoint: its backward code would
    do nothing but repeat its side effects."""
    if inst.custom_grad is not None or inst.native is not None:
        return True
    if getattr(inst.ir.return_type, "kind", "") == "fixedarray":  # fixed-size arrays carry no gradients (yet)
        return False
    types_ = [p.type for p in inst.ir.params] + [inst.ir.return_type]
    return any(_differentiable(t) or (isinstance(t, ArrayType) and _differentiable(t.dtype)) for t in types_
               if t is not None)


def _writes_arguments(inst) -> bool:
    """Whether a called function writes its caller's values through reference parameters."""
    return any(p.mutable for p in inst.ir.params)


def _copy_sources(stmts, out=None) -> dict:
    """id(v) -> the variable v copies, for every `v = x` copy (nested blocks too)."""
    out = {} if out is None else out
    for s in stmts:
        if isinstance(s, ir.Let) and isinstance(s.value, ir.Copy):
            out[id(s.dst)] = s.value.src
        for block in ir.child_blocks(s):
            _copy_sources(block, out)
    return out


def _defined(stmts) -> list:
    """Variables given values inside these statements (Lets, phis, loop states), nested blocks too."""
    out = []
    for s in stmts:
        if isinstance(s, ir.Let):
            out.append(s.dst)
        elif isinstance(s, ir.If):
            out += [p.dst for p in s.phis]
        for c in getattr(s, "carried", ()):
            out.append(c.state)
        for block in ir.child_blocks(s):
            out += _defined(block)
    return out


def _query_inits(stmts, out=None) -> dict:
    """For every query loop: its state variable -> the value assigned to it just before the loop."""
    out = {} if out is None else out
    prev = None
    for s in stmts:
        if isinstance(s, ir.Iterate) and isinstance(prev, ir.Assign) and prev.dst is s.query:
            out[id(s.query)] = prev.src
        for block in ir.child_blocks(s):
            _query_inits(block, out)
        prev = s
    return out


def _contains(stmts, kind) -> bool:
    for s in stmts:
        if isinstance(s, kind):
            return True
        for block in ir.child_blocks(s):
            if _contains(block, kind):
                return True
    return False


def _drop_state_writes(body, carried) -> tuple:
    """The loop body without its final write-back of the carried state."""
    states = {id(c.state) for c in carried}
    out = list(body)
    while out and isinstance(out[-1], ir.Assign) and id(out[-1].dst) in states:
        out.pop()
    return tuple(out)


def _owned_arrays(fn: ir.Function) -> set:
    """Array parameters that every thread accesses only at its own index (the full wp.tid()
    tuple, in order): their gradients can be added without atomics."""
    tid_index: dict = {}  # id(var) -> position in wp.tid()
    params = {id(p) for p in fn.params if isinstance(p.type, ArrayType)}
    good: dict = {}
    bad: set = set()

    def indices_are_tid(indices, ndim) -> bool:
        return (len(indices) == ndim == max(fn.tid_count, 1) and
                all(tid_index.get(id(x)) == k for k, x in enumerate(indices)))

    def visit(stmts):
        for s in stmts:
            value = getattr(s, "value", None)
            if isinstance(s, ir.Let) and isinstance(value, ir.Tid):
                tid_index[id(s.dst)] = value.index if value.count > 1 else 0
            elif isinstance(s, ir.Let) and isinstance(value, ir.Copy) and id(value.src) in tid_index:
                tid_index[id(s.dst)] = tid_index[id(value.src)]
            accessed = None
            if isinstance(value, (ir.Load, ir.View)):
                accessed, indices = value.array, value.indices
                if isinstance(value, ir.View):
                    indices = ()
            elif isinstance(s, ir.Store):
                accessed, indices = s.array, s.indices
            elif isinstance(value, ir.Call) and value.args and isinstance(value.args[0].type, ArrayType):
                accessed = value.args[0]
                indices = value.args[1:1 + accessed.type.ndim] if value.builtin.atomic else ()
            if accessed is not None and id(accessed) in params:
                if indices_are_tid(indices, accessed.type.ndim):
                    good[id(accessed)] = True
                else:
                    bad.add(id(accessed))
            for x in _other_uses(s):
                if id(x) in params and x is not accessed:
                    bad.add(id(x))
            for block in ir.child_blocks(s):
                visit(block)

    visit(fn.body)
    return {k for k in good if k not in bad}


def _other_uses(s) -> list:
    value = getattr(s, "value", None)
    out = []
    if isinstance(value, ir.Copy):
        out.append(value.src)
    if isinstance(value, (ir.CallFunc, ir.TupleOf)):
        out += list(getattr(value, "args", ()) or getattr(value, "items", ()))
    if isinstance(s, ir.Assign):
        out.append(s.src)
    for c in getattr(s, "carried", ()):
        out.append(c.init)
    return out
