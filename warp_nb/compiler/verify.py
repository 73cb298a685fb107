"""IR invariants, checked between stages: after typing (the typed IR) and after the adjoint pass
(the reverse-mode IR). The pipeline runs these in debug mode and whenever `config.verify_ir` is
set (the test suite sets it), so a pass that breaks an invariant fails at the pass, not as a C++
error three stages later. Raises `IRVerifyError` naming the function and the variable. (The same
place prints the IR of each stage when `config.print_ir` is set.)"""

from __future__ import annotations

import dataclasses

from .. import config
from ..types.array_type import ArrayType
from ..types import type_name
from . import adjoint_ir as A
from . import ir


class IRVerifyError(AssertionError):
    """An IR invariant does not hold: a bug in a compiler pass, never in the user's code."""


def between_stages(typed: ir.Function, adjoint, mode: str) -> None:
    """The debug switches between stages: print the typed and reverse-mode IR (config.print_ir),
    and verify both (in debug mode, or with config.verify_ir)."""
    if config.print_ir:
        print(ir.format_function(typed))
        if adjoint is not None and adjoint.kernel is not None:
            print(A.format_adjoint(adjoint.kernel))
    if mode == "debug" or config.verify_ir:
        verify(typed)
        for inst in ir.called_instances(typed):
            verify(inst.ir)
        if adjoint is not None:
            if adjoint.kernel is not None:
                verify_adjoint(adjoint.kernel)
            for adj in adjoint.funcs.values():
                verify_adjoint(adj)


def _vars_in(node) -> list:
    """The Vars a value node (or a path, tuple ...) reads, found through its fields."""
    if isinstance(node, ir.Var):
        return [node]
    if isinstance(node, (tuple, list)):
        return [v for x in node for v in _vars_in(x)]
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        if isinstance(node, (A.TupleItem,)):
            return [node.var]
        return [v for f in dataclasses.fields(node) if f.name not in ("loc", "resolved", "type", "builtin", "func", "next_builtin")
                for v in _vars_in(getattr(node, f.name))]
    return []


class _TypedVerifier:
    def __init__(self, fn: ir.Function):
        self.fn = fn
        self.defined: set = {id(p) for p in fn.params}
        self.declared: set = {id(v) for v in fn.locals} | self.defined
        self.assigned: set = set()

    def fail(self, what: str):
        raise IRVerifyError(f"IR of `{self.fn.name}` ({self.fn.symbol}): {what}")

    def use(self, v, scope: set) -> None:
        if isinstance(v, ir.Var) and not v.mutable and id(v) not in scope:
            self.fail(f"{v.name} is used where it is not defined")

    def define(self, v: ir.Var, scope: set) -> None:
        if id(v) in self.defined:
            self.fail(f"{v.name} is defined twice")
        if id(v) not in self.declared:
            self.fail(f"{v.name} is defined but not listed in the function's locals")
        self.defined.add(id(v))
        scope.add(id(v))

    def block(self, stmts, outer: set) -> None:
        scope = set(outer)
        for s in stmts:
            self.statement(s, scope)

    def statement(self, s, scope: set) -> None:
        if isinstance(s, ir.Let):
            for v in _vars_in(s.value):
                self.use(v, scope)
            self.check_let_type(s)
            self.define(s.dst, scope)
        elif isinstance(s, ir.Assign):
            if not s.dst.mutable:
                self.fail(f"{s.dst.name} is assigned but not mutable")
            self.use(s.src, scope)
            self.assigned.add(id(s.dst))
        elif isinstance(s, ir.Store):
            if not isinstance(s.array.type, ArrayType):
                self.fail(f"store into {s.array.name}, which is not an array")
            for v in (s.array, *s.indices, s.value):
                self.use(v, scope)
        elif isinstance(s, (ir.Effect, ir.Print, ir.Check, ir.Return)):
            for v in _vars_in(getattr(s, "value", None)) + _vars_in(getattr(s, "args", ())) + \
                    _vars_in(getattr(s, "cond", None)):
                self.use(v, scope)
            if isinstance(s, ir.Return) and self.fn.is_kernel and s.value is not None:
                self.fail("a kernel returns a value")
        elif isinstance(s, ir.If):
            self.use(s.cond, scope)
            if s.cond.type is not bool and type_name(s.cond.type) != "bool":
                self.fail(f"if condition {s.cond.name} has type {type_name(s.cond.type)}, not bool")
            self.block(s.body, scope)
            self.block(s.orelse, scope)
            for phi in s.phis:
                if not phi.dst.mutable:
                    self.fail(f"phi {phi.dst.name} is not mutable")
                self.assigned.add(id(phi.dst))
        elif isinstance(s, (ir.For, ir.While, ir.Iterate)):
            for c in s.carried:
                self.use(c.init, scope)
                if not c.state.mutable:
                    self.fail(f"loop state {c.state.name} is not mutable")
            inner = set(scope)
            if isinstance(s, ir.For):
                for v in (s.start, s.stop, s.step):
                    self.use(v, scope)
                self.define(s.var, inner)
                scope.add(id(s.var))  # a function-level local: Python's loop variable outlives the loop
            elif isinstance(s, ir.Iterate):
                self.use(s.query, scope)
                self.define(s.var, inner)
            else:
                self.block(s.cond_body, inner)
                for c in s.cond_body:
                    if isinstance(c, ir.Let):
                        inner.add(id(c.dst))
                self.use(s.cond, inner)
            self.block(s.body, inner)
        elif isinstance(s, (ir.Break, ir.Continue)):
            for w in s.writes:
                self.statement(w, scope)
        else:
            self.fail(f"unknown statement {type(s).__name__}")

    def check_let_type(self, s: ir.Let) -> None:
        v, t = s.value, s.dst.type
        if isinstance(v, ir.Load):
            if not isinstance(v.array.type, ArrayType):
                self.fail(f"{s.dst.name} loads from {v.array.name}, which is not an array")
            if len(v.indices) != v.array.type.ndim or not (t is v.array.type.dtype or t == v.array.type.dtype):
                self.fail(f"{s.dst.name}: a load of {v.array.name} has type {type_name(t)}")
        elif isinstance(v, ir.Call) and v.resolved is not None and v.resolved.result is not None:
            result = v.resolved.result
            if v.resolved.overload.outputs:  # several results: a tuple of them
                result = ir.TupleType(tuple(result))
            if not (result is t or result == t):
                self.fail(f"{s.dst.name} has type {type_name(t)} but {v.builtin.name} gives {type_name(result)}")
        elif isinstance(v, ir.Tid) and not self.fn.is_kernel:
            self.fail("wp.tid() in a function")


def verify(fn: ir.Function) -> None:
    """The typed IR's invariants: every immutable Var is defined once, listed in the function's
    locals, and defined before it is used in the same or an enclosing block; only mutable Vars
    (phis, loop state) are assigned; loads and stores touch arrays with matching types; branch
    conditions are bool; builtin results have the type their overload gives; kernels return
    nothing and only kernels ask for the thread index."""
    _TypedVerifier(fn).block(fn.body, set(id(p) for p in fn.params))


def verify_adjoint(adj: A.AdjointFunction) -> None:
    """The reverse-mode IR's invariant: every variable its statements read or write is declared
    (a primal parameter or local, an adjoint, or one of the backward code's own locals), and
    every primal variable has at most one adjoint."""
    primal = adj.primal
    known = {id(v) for v in (*primal.params, *primal.locals, *adj.locals, *adj.adj.values())}
    known |= {id(v) for v in (adj.ret_var, adj.ret_adjoint) if v is not None}
    adjoints = list(adj.adj.values())
    if len({id(a) for a in adjoints}) != len(adjoints):
        raise IRVerifyError(f"adjoint IR of `{primal.name}`: two primal variables share one adjoint")

    def walk(stmts):
        for s in stmts:
            for v in _vars_in(s):
                if id(v) not in known:
                    raise IRVerifyError(f"adjoint IR of `{primal.name}` ({primal.symbol}): {v.name} is not declared")

    walk(adj.replay)
    walk(adj.reverse)
