"""Loop versions: the accesses of an innermost `range()` loop that one check at the loop's entry
proves in range for every iteration (issue 21, "version a loop on one up-front range check").

compiler/index_ranges.py proves accesses in range per chunk of a launch, from what a launch knows
(thread coordinates, int32 arguments). A loop whose bounds are read from memory is beyond it:

    for b in range(offsets[r], offsets[r + 1]):
        s += values[b] * x[columns[b]]

Here `values[b]` and `columns[b]` stay in range if the loop's first and last counter are; that is
known when the loop starts, from values fixed for its whole run. So the checked kernel runs the
loop in two versions (emit/loop_versions.py): when the guards hold at entry, a copy whose guarded
accesses have neither check nor wrap; else the checked loop, unchanged, so every result and every
error is as before. `x[columns[b]]` depends on memory the loop reads and keeps its check.

Only innermost loops (no loop inside) with a constant step and a small body (MAX_STATEMENTS) are
versioned, so the code grows by one small loop body per loop at most. An index is a guarded form when it is affine in the loop counter and in
int32 values the loop does not change (defined before it, not assigned inside it): each such value
is an atom, named by its C++ variable, read at the loop's entry. Knows the IR, not C++ (the writer
renders the forms)."""

from __future__ import annotations

from . import ir
from .. import types as T
from ..types.array_type import ArrayType
from .index_ranges import Affine, access_key, affine_of
from .records import record

_COUNTER = ("counter",)  # the loop's counter in Affine forms (beside ("value", C++ name) symbols)
# A loop body of more statements is not copied: its checks cost little beside its work, and each
# copy costs compile time (a notebook's cell, and CI's thousands of kernels)
MAX_STATEMENTS = 48


def _extreme(f, low, high, least: bool):
    """The least (or greatest) value of Affine form f over counter values from `low` to `high`."""
    out = Affine(f.const, tuple((a, c) for a, c in f.terms if a != _COUNTER))
    c = dict(f.terms).get(_COUNTER, 0)
    if c:
        out = out.plus(low if (c > 0) == least else high, c)
    return out


@record(frozen=True)
class LoopGuard:
    """Index `axis` of an access to `array` (a C++ name) is in range: least >= 0, greatest < size."""

    array: str
    axis: int
    least: Affine  # over ("value", C++ name) symbols
    greatest: Affine


@record
class LoopVersion:
    """What one versioned loop needs: its guards, and the accesses (keys as IndexFacts keys) its
    fast copy writes without check or wrap."""

    guards: tuple
    accesses: frozenset


def loop_versions(fn: ir.Function, launch_guarded) -> dict:
    """id(For) -> LoopVersion for the innermost loops of `fn` worth a second version; accesses in
    `launch_guarded` (compiler/index_ranges.py: proved per chunk already) are left to that."""
    consts: dict = {}
    _constants(fn.body, consts)
    out: dict = {}
    _walk(fn.body, launch_guarded, consts, out)
    return out


def _constants(stmts, out: dict) -> None:
    """id(Var) -> value of every int Var bound to a constant (a loop's step is one)."""
    for s in stmts:
        if isinstance(s, ir.Let) and isinstance(s.value, ir.Const) and isinstance(s.value.value, int):
            out[id(s.dst)] = int(s.value.value)
        for body in ir.child_blocks(s):
            _constants(body, out)


def _walk(stmts, launch_guarded, consts, out) -> None:
    for s in stmts:
        if isinstance(s, ir.For) and _innermost(s.body) and _size(s.body) <= MAX_STATEMENTS:
            version = _Loop(s, launch_guarded, consts).version(consts.get(id(s.step)))
            if version is not None:
                out[id(s)] = version
        for body in ir.child_blocks(s):
            _walk(body, launch_guarded, consts, out)


def _size(stmts) -> int:
    return sum(1 + sum(_size(b) for b in ir.child_blocks(s)) for s in stmts)


def _innermost(stmts) -> bool:
    for s in stmts:
        if isinstance(s, (ir.For, ir.While, ir.Iterate)):
            return False
        if not all(_innermost(b) for b in ir.child_blocks(s)):
            return False
    return True


class _Loop:
    def __init__(self, s: ir.For, launch_guarded, consts: dict):
        self.s = s
        self.consts = consts
        self.launch_guarded = launch_guarded
        self.defined: set = set()  # ids of Vars defined or assigned inside the loop
        self._scan(s.body)
        self.defined.add(id(s.var))
        self.defined.update(id(c.state) for c in s.carried)
        self.forms: dict = {id(s.var): Affine(0, ((_COUNTER, 1),))}
        self.guards: dict = {}  # LoopGuard -> None (ordered, each once)
        self.accesses: set = set()

    def _scan(self, stmts) -> None:
        for s in stmts:
            if isinstance(s, (ir.Let, ir.Assign)):
                self.defined.add(id(s.dst))
            elif isinstance(s, ir.If):
                self.defined.update(id(p.dst) for p in s.phis)
            elif isinstance(s, (ir.Break, ir.Continue)):
                self.defined.update(id(w.dst) for w in s.writes)
            for body in ir.child_blocks(s):
                self._scan(body)

    def version(self, step):
        s = self.s
        if not step or id(s.start) in self.defined or id(s.stop) in self.defined:
            return None
        start, stop = self.atom(s.start), self.atom(s.stop)
        if start is None or stop is None:
            return None
        # every iteration that runs has start <= counter <= stop - 1 (or stop + 1 <= counter <= start)
        self.low, self.high = (start, stop.plus(Affine(-1))) if step > 0 else (stop.plus(Affine(1)), start)
        self.block(s.body)
        if not self.accesses:
            return None
        return LoopVersion(tuple(self.guards), frozenset(self.accesses))

    def atom(self, v: ir.Var):
        """The form of an int32 value the loop does not change: itself."""
        if v.type is not T.int32 or id(v) in self.defined:
            return None
        if id(v) in self.consts:
            return Affine(self.consts[id(v)])
        return Affine(0, ((("value", v.name), 1),))

    def form(self, v: ir.Var):
        f = self.forms.get(id(v))
        return f if f is not None else self.atom(v)

    # --- the body -------------------------------------------------------------------------------
    def block(self, stmts) -> None:
        for s in stmts:
            if isinstance(s, ir.Let):
                self.let(s.dst, s.value)
            elif isinstance(s, ir.Store):
                self.access(s.array, s.indices)
            elif isinstance(s, ir.Effect) and isinstance(s.value, ir.Call):
                self.atomic(s.value)
            for body in ir.child_blocks(s):
                self.block(body)

    def let(self, dst: ir.Var, v) -> None:
        if isinstance(v, ir.Load):
            self.access(v.array, v.indices)
            return
        if isinstance(v, ir.Call):
            self.atomic(v)
        if dst.type is not T.int32 or dst.mutable:
            return
        f = self.form_of(v)
        if f is not None:
            self.forms[id(dst)] = f

    def form_of(self, v):
        return affine_of(v, self.form)

    def atomic(self, v: ir.Call) -> None:
        if v.builtin.atomic and v.args and isinstance(v.args[0].type, ArrayType):
            n = v.args[0].type.ndim
            self.access(v.args[0], v.args[1:1 + n])

    def access(self, array: ir.Var, indices) -> None:
        key = access_key(array, indices)
        if key in self.launch_guarded or id(array) in self.defined or getattr(array.type, "kind", None) != "array":
            return
        forms = [self.form(i) for i in indices]
        if None in forms or not any(_COUNTER in dict(f.terms) for f in forms):
            return  # (an access that does not move with the counter gains nothing)
        for d, f in enumerate(forms):
            g = LoopGuard(array.name, d, _extreme(f, self.low, self.high, True),
                          _extreme(f, self.low, self.high, False))
            self.guards.setdefault(g, None)
        self.accesses.add(key)
