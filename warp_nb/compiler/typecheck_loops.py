"""Loops, for `typecheck`: `for` over range(...) and reversed(range(...)) (short constant ranges
unrolled), over queries (wp.hash_grid_query(...) or a variable holding one), over vectors, matrix
rows and tuples (unrolled); `while`; and the state a loop carries from one iteration to the next.
A mixin of FunctionTyper."""

from __future__ import annotations

import re

from . import ir
from . import syntax as S
from .. import config
from .. import types as T
from ..builtins.registry import BUILTINS
from ..errors import KernelError, KernelNameError, KernelSyntaxError, KernelTypeError
from .scope import Lit, PyObj, classify
from .typecheck_subscript import _Bound
from .loop_exits import has_loop_exit, structure_loop_body


class _Loop:
    def __init__(self, carried: list):
        self.carried = carried  # ir.Carried



class Loops:
    def carried_names(self, body, extra=()) -> list[str]:
        names = S.assigned_names(body) | self.inout_names(tuple(body) + tuple(extra))
        names |= self.view_bases(body)  # a tile whose part (a view) is written in the loop changes too
        # a Lit is an unrolled loop's variable left after its loop: carried as an ordinary local
        return sorted(n for n in names if isinstance(self.env.get(n), (ir.Var, Lit)))

    def inout_names(self, stmts) -> set:
        """Variables passed where a builtin updates its argument in place (wp.randf(state)):
        the loop must carry them, though no assignment names them."""
        found: set = set()
        for node in S.walk(tuple(stmts)):
            if not isinstance(node, S.Call):
                continue
            try:
                fn = self.expr(node.func) if isinstance(node.func, (S.Name, S.Attribute)) else None
            except KernelError:
                fn = None
            builtin = getattr(fn, "obj", None)
            positions = builtin.inout_positions(len(node.args)) if hasattr(builtin, "inout_positions") else ()
            for pos in positions:
                if pos < len(node.args) and isinstance(node.args[pos], S.Name):
                    found.add(node.args[pos].id)
        return found

    def hoist_loop_locals(self, body, loc, bind=None) -> None:
        """Names first bound inside a dynamic loop and read after it (`while ...: p = ...` then
        `use(p)`): as in Warp, they exist before the loop, zero-initialised, and the loop carries
        them. Their types come from a trial typing of the body, which is then discarded."""
        last = max((n.loc.line for n in S.walk(body) if getattr(n, "loc", None) is not None), default=loc.line)
        later = {n.id for n in S.walk(self.fdef.body) if isinstance(n, S.Name) and n.loc.line > last}
        wanted = [n for n in sorted(S.assigned_names(body)) if n in later and n not in self.env]
        if not wanted:
            return
        saved = (dict(self.env), len(self.locals), len(self.checks), dict(self.maybe_undefined))
        self.loops.append(_Loop([]))
        try:
            if bind is not None:
                bind()  # the loop variable, for the trial only
            self.in_block(lambda: self.statements(body))
            found = {n: self.env[n].type for n in wanted if isinstance(self.env.get(n), ir.Var)}
        finally:
            self.loops.pop()
            self.env, self.maybe_undefined = saved[0], saved[3]
            del self.locals[saved[1]:], self.checks[saved[2]:]
        for name, t in found.items():
            self.env[name] = self.let(ir.Construct(t, ()), t, loc, name)

    def enter_loop(self, body, loc, extra=(), bind=None) -> _Loop:
        self.hoist_loop_locals(body, loc, bind)
        carried = []
        for name in self.carried_names(body, extra):
            init = self.env[name]
            if isinstance(init, Lit):
                init = self.materialize(init, None, S.Name(name, loc))
            state = self.new_var(init.type, name, mutable=True)
            carried.append(ir.Carried(name, state, init))
            self.env[name] = state
        return _Loop(carried)

    def loop_state_writes(self, loop: _Loop, loc) -> tuple:
        writes = []
        for c in loop.carried:
            value = self.env.get(c.name)
            if value is None:
                self.error(KernelNameError, f"`{c.name}` may be undefined at the end of this loop iteration", loc)
            if value is c.state:
                continue
            if isinstance(value, Lit):  # e.g. an unrolled inner loop's variable, left as its last constant
                value = self.materialize(value, c.state.type, S.Name(c.name, loc))
            if not _same_type(value.type, c.state.type):
                self.error(KernelTypeError, f"`{c.name}` changes type inside the loop, from "
                                            f"{T.type_name(c.state.type)} to {T.type_name(value.type)}", loc)
            writes.append(ir.Assign(c.state, value, loc))
        return tuple(writes)

    def loop_body(self, loop: _Loop, body_stmts, before_body=None) -> tuple:
        """Type a loop body with the loop's carried state; returns the body block."""
        outer_env = dict(self.env)
        self.loops.append(loop)

        def run():
            if before_body:
                before_body()
            if not self.statements(body_stmts):
                self.block.extend(self.loop_state_writes(loop, body_stmts[-1].loc if body_stmts else self.fdef.loc))
        try:
            block, _ = self.in_block(run)
        finally:
            self.loops.pop()
        # after the loop each carried name holds its state; names first bound inside are gone
        self.env = outer_env
        return block

    def for_statement(self, s: S.For) -> None:
        """for i in range(...) / reversed(range(...)); for x in a query (wp.hash_grid_query(...) or a
        variable holding one); for x in a vector, matrix rows, tuple or constant Python sequence
        (unrolled). Early exits are first rewritten into branches (loop_exits)."""
        structured = structure_loop_body(s.body)
        for init in structured.init:
            self.statement(init)
        s = S.For(s.target, s.iter, structured.body, s.loc)
        it = s.iter
        if isinstance(it, S.Call):
            fn = self.expr(it.func)
            if isinstance(fn, PyObj) and fn.obj is range:
                return self.range_loop(s, it)
            inner = it.args[0] if isinstance(fn, PyObj) and fn.obj is reversed and len(it.args) == 1 else None
            if isinstance(inner, S.Call) and getattr(self.expr(inner.func), "obj", None) is range:
                return self.range_loop(s, inner, reverse=True)
        value = self.expr(it)
        if isinstance(value, ir.Var) and self.query_next(value.type) is not None:
            return self.iterator_loop(s, value)
        self.sequence_loop(s, value, structured.unrolled_copy())

    def sequence_loop(self, s: S.For, value, body) -> None:
        """An unrolled loop over a value of known length: a vector's components, a matrix's rows,
        a tuple's items, or a constant Python sequence."""
        if isinstance(value, tuple):  # a tuple written in the kernel: (a, b, c)
            items = list(value)
        elif isinstance(value, PyObj) and isinstance(value.obj, (tuple, list)):
            items = [classify(v) for v in value.obj]
        elif isinstance(value, ir.Var) and (T.kind_of(value.type) or isinstance(value.type, ir.TupleType)):
            items = self.starred_parts(_Bound(value, s.loc), s)
        else:
            self.error(KernelSyntaxError, "kernels loop over range(...), a query (wp.hash_grid_query(...) ...), or a "
                                          f"vector, matrix or tuple; not over {self.describe(value)}", s.iter)
        for item in items:
            self.env[s.target] = item
            if self.statements(body):
                break

    def query_next(self, t):
        """The builtin that advances a query of type t (hash grid, mesh and BVH queries), or None."""
        for b in BUILTINS.values():
            if b.iterator_next and any(o.result is t for o in b.overloads):
                return BUILTINS[b.iterator_next]
        return None

    def range_loop(self, s: S.For, call: S.Call, reverse: bool = False) -> None:
        if call.kwargs or not 1 <= len(call.args) <= 3:
            self.error(KernelSyntaxError, "range() takes 1 to 3 positional arguments", call)
        args = [self.expr(a) for a in call.args]
        for a, node in zip(args, call.args):
            kind = a.kind if isinstance(a, Lit) else getattr(getattr(a, "type", None), "_kind", None)
            if kind == "float":
                # Python refuses range(0.5); converting would silently run a different loop
                self.error(KernelTypeError, "range() takes integers, not a float: convert explicitly, e.g. "
                                            "range(int(n))", node)
        start, stop, step = ([Lit(0, "int")] + args + [Lit(1, "int")])[:3] if len(args) == 1 else \
            (args + [Lit(1, "int")])[:3]
        if reverse:
            start, stop, step = self.reversed_range(start, stop, step, call)
        if all(isinstance(a, Lit) for a in (start, stop, step)):
            values = range(int(start.value), int(stop.value), int(step.value))
            if (len(values) <= config.max_unroll or _static_uses(s.body, s.target)) and not has_loop_exit(s.body):
                self.unrolled_loop(s, values)
                return
        if isinstance(step, Lit) and step.value == 0:
            self.error(KernelTypeError, "range() step must not be zero", call)
        bounds = [self.convert(a, T.int32, call, what="range() arguments") for a in (start, stop, step)]
        loop = self.enter_loop(s.body, s.loc, bind=lambda: self.env.__setitem__(s.target, self.new_var(T.int32, s.target)))
        counter = self.new_var(T.int32, s.target)

        def bind_counter():
            self.env[s.target] = counter
        body = self.loop_body(loop, s.body, bind_counter)
        self.block.append(ir.For(counter, *bounds, body, s.loc, tuple(loop.carried)))
        for c in loop.carried:
            self.env[c.name] = c.state
        # Python keeps the loop variable: its last value (the counter has moved one step past it)
        self.env[s.target] = self.call_builtin(BUILTINS["sub"], [counter, bounds[2]], s)

    def reversed_range(self, start, stop, step, node) -> tuple:
        """reversed(range(a, b, s)) as a range: from a + (n - 1) s down to a - s by -s, where
        n = max(0, (b - a + s - sign(s)) / s) is the length of the range (integer division)."""
        if all(isinstance(a, Lit) for a in (start, stop, step)):
            r = range(int(start.value), int(stop.value), int(step.value))[::-1]
            return Lit(r.start, "int"), Lit(r.stop, "int"), Lit(r.step, "int")
        a, b, st = (self.convert(v, T.int32, node, what="range() arguments") for v in (start, stop, step))
        call = lambda name, *xs: self.call_builtin(BUILTINS[name], list(xs), node)  # noqa: E731
        n = call("max", call("div", call("sub", call("add", call("sub", b, a), st), call("sign", st)), st),
                 Lit(0, "int"))
        first = call("add", a, call("mul", call("sub", n, Lit(1, "int")), st))
        return first, call("sub", a, st), call("neg", st)

    def unrolled_loop(self, s: S.For, values) -> None:
        """A constant range of at most config.max_unroll iterations: the body is repeated with the
        loop variable as a constant, so each copy specialises (and differentiates) like straight code."""
        before = self.env.get(s.target)
        for value in values:
            self.env[s.target] = Lit(value, "int")
            if self.statements(s.body):
                break
        self.env.pop(s.target, None)
        if len(values):  # Python keeps the loop variable, here a constant (wp.static can read it)
            self.env[s.target] = Lit(values[-1], "int")
        elif before is not None:  # an empty range binds nothing: the name keeps what it held (Python)
            self.env[s.target] = before

    def while_statement(self, s: S.While) -> None:
        structured = structure_loop_body(s.body)
        for init in structured.init:
            self.statement(init)
        s = S.While(s.test, structured.body, s.loc)
        # the condition may advance state in place too: `while wp.hash_grid_query_next(query, i)`
        loop = self.enter_loop(s.body, s.loc, extra=(s.test,))
        self.loops.append(loop)
        try:
            cond_body, cond = self.in_block(lambda: self.condition(s.test))
        finally:
            self.loops.pop()
        body = self.loop_body(loop, s.body)
        self.block.append(ir.While(cond_body, cond, body, s.loc, tuple(loop.carried)))
        for c in loop.carried:
            self.env[c.name] = c.state

    def iterator_loop(self, s: S.For, query: ir.Var) -> None:
        """for x in wp.hash_grid_query(...) (or a variable holding a query): the query's `next`
        builtin advances a copy of it and yields x."""
        next_builtin = self.query_next(query.type)
        item_type = next_builtin.overloads[0].params[1].build({})
        loop = self.enter_loop(s.body, s.loc, bind=lambda: self.env.__setitem__(s.target, self.new_var(item_type, s.target)))
        item = self.new_var(item_type, s.target, mutable=True)
        state = self.new_var(query.type, "query", mutable=True)

        def bind_item():
            self.env[s.target] = item
        body = self.loop_body(loop, s.body, bind_item)
        self.block.append(ir.Assign(state, query, s.loc))
        self.block.append(ir.Iterate(item, state, next_builtin, body, s.loc, tuple(loop.carried)))
        for c in loop.carried:
            self.env[c.name] = c.state



def _static_uses(stmts, name: str) -> bool:
    """Whether a wp.static(...) in these statements names `name` (then Warp unrolls the loop whatever
    its length, so that the static expression sees each value of the loop variable)."""
    pattern = re.compile(rf"\b{re.escape(name)}\b")
    return any(isinstance(node, S.Call) and node.source
               and getattr(node.func, "attr", getattr(node.func, "id", None)) == "static"
               and pattern.search(node.source[node.source.find("(") + 1:])
               for node in S.walk(tuple(stmts)))


def _same_type(a, b) -> bool:
    return a is b or a == b
