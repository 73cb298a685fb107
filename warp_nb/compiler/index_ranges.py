"""Value ranges of array indices: the facts that let checked code cost what release code costs
(issue 21, DESIGN.md "No performance cliffs").

An int32 index of a kernel is often an affine function of values whose range a launch knows:
the thread coordinates (`wp.tid()`), int32 scalar parameters, and the counters of `range()` loops
whose bounds are such functions themselves. For each array access of a kernel this pass writes
its indices as affine forms over those values and gives two facts:

- **non-negative at compile time**: every value such a form can take is >= 0 (a thread coordinate
  is, a loop counter from 0 is, `i - 1` with `i = tid + 1` is). Such an index needs no negative-index
  wrap (`wrap_index`), in release code and checked code alike: one compare fewer per axis, and a
  loop over it stays an affine walk the C++ compiler vectorises.
- **in range for a chunk of threads, checked once**: the least and greatest value of each index
  over a chunk of a launch, as expressions of the chunk's thread coordinates and the kernel's
  arguments (`Guard`). The CPU entry point evaluates every guard of a kernel once per chunk and,
  when all hold, runs a version of the body whose guarded accesses have neither check nor wrap;
  otherwise the checked version runs, so the checked result, and its error, are exactly as before.

A form with a value whose range is unknown (a value read from memory, a product of two thread
coordinates, a carried loop variable) is no fact: that access keeps its check and its wrap.
Knows the IR; knows nothing about C++ (the target writes the guards, emit/entry.py describes them)."""

from __future__ import annotations


from .records import record
from .. import types as T
from ..types.array_type import ArrayType
from . import ir

INT32_MAX = 2**31 - 1


@record(frozen=True)
class Bound:
    """const + sum(coeff * atom): a value a launch knows before it runs. An atom is
    ("tid_min", d) / ("tid_max", d): the least / greatest thread coordinate d of a chunk (the
    linear index for a kernel with one coordinate), or ("arg", name): an int32 scalar argument."""

    const: int
    terms: tuple = ()  # ((atom, coeff), ...), sorted, no zero coefficients

    def plus(self, other: Bound, scale: int = 1) -> Bound:
        coeffs = dict(self.terms)
        for atom, c in other.terms:
            coeffs[atom] = coeffs.get(atom, 0) + scale * c
        return Bound(self.const + scale * other.const, tuple(sorted((a, c) for a, c in coeffs.items() if c)))

    def least(self) -> float:
        """Its least value over every launch (thread coordinates are >= 0; arguments unknown)."""
        low = self.const
        for (kind, _), c in self.terms:
            if kind == "arg" or c < 0:  # an argument, or a coordinate's upper end, can be anything
                return float("-inf")
        return low  # (coordinate terms with c > 0 add something >= 0)


@record(frozen=True)
class Cond:
    """left <op> right over Bounds of arguments only: a branch condition every thread of a launch
    takes alike (`if use_dest != 0:`, `if flag:` for a bool argument)."""

    op: str  # eq, ne, lt, le, gt, ge
    left: Bound
    right: Bound

    def negated(self) -> Cond:
        return Cond(_NEGATED[self.op], self.left, self.right)


_NEGATED = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "le": "gt", "gt": "le"}


@record(frozen=True)
class Guard:
    """One index of one access, in range when least >= 0 and greatest < the axis's size (and
    fits the int32 the kernel computed it in). An access under branches on arguments (`when`, a
    conjunction of Conds) only needs it when they hold: an array that a launch passes as a
    placeholder (`dest_of` with `use_dest == 0`) does not send every chunk to the checked body."""

    array: str  # the kernel parameter's C++ name
    axis: int
    least: Bound
    greatest: Bound
    when: tuple = ()


@record(frozen=True)
class Affine:
    """const + sum(coeff * symbol) over symbols ("tid", d), ("arg", name), ("loop", k)."""

    const: int
    terms: tuple = ()

    def plus(self, other: Affine, scale: int = 1) -> Affine:
        coeffs = dict(self.terms)
        for sym, c in other.terms:
            coeffs[sym] = coeffs.get(sym, 0) + scale * c
        return Affine(self.const + scale * other.const, tuple(sorted((s, c) for s, c in coeffs.items() if c)))

    def times(self, k: int) -> Affine:
        return Affine(self.const * k, tuple((s, c * k) for s, c in self.terms if c * k))


@record
class IndexFacts:
    """What the pass found for one kernel."""

    # (id(array Var), tuple of id(index Var)) -> wrap mask: bit d set when index d may be negative
    wrap: dict
    # the same keys -> the Guards of the access (all axes), for accesses a chunk can check up front
    guarded: dict

    def wrap_mask(self, array, indices) -> int:
        return self.wrap.get(access_key(array, indices), (1 << len(indices)) - 1)

    def guards_of(self, array, indices):
        return self.guarded.get(access_key(array, indices))

    def guards(self) -> tuple:
        """Every guard of the kernel, each once, in a stable order."""
        seen = {}
        for gs in self.guarded.values():
            for g in gs:
                seen.setdefault(g, None)
        return tuple(seen)


def access_key(array, indices) -> tuple:
    """How the facts name one access: its array and index Vars, by identity."""
    return id(array), tuple(id(i) for i in indices)


def index_facts(fn: ir.Function) -> IndexFacts:
    """The index facts of a kernel's array accesses (a function's accesses get none: a function
    does not know its caller's launch)."""
    return _Ranges(fn).run()


_LINEAR = {"add": 1, "sub": -1}


def affine_of(v, form):
    """The Affine form of an IR value computed from operands whose forms `form(var)` gives (None:
    none), or None: a constant, a copy, int(i), +, -, negation and products by a constant of int32
    values. Shared with compiler/loop_guards.py, whose symbols differ."""
    if isinstance(v, ir.Const):
        return Affine(int(v.value)) if isinstance(v.value, (int, bool)) or hasattr(v.value, "__index__") else None
    if isinstance(v, ir.Copy):
        return form(v.src)
    if isinstance(v, ir.Construct) and len(v.args) == 1 and v.args[0].type is T.int32:
        return form(v.args[0])  # int(i)
    if not isinstance(v, ir.Call) or v.resolved.result is not T.int32:
        return None
    name, args = v.builtin.name, [form(a) for a in v.args]
    if None in args:
        return None
    if name in _LINEAR and len(args) == 2:
        return args[0].plus(args[1], _LINEAR[name])
    if name == "neg" and len(args) == 1:
        return args[0].times(-1)
    if name == "pos" and len(args) == 1:
        return args[0]
    if name == "mul" and len(args) == 2:
        a, b = args
        if not a.terms:
            return b.times(a.const)
        if not b.terms:
            return a.times(b.const)
    return None

_NARROW_UNSIGNED = (T.uint8, T.uint16, T.uint32, T.bool)


class _Ranges:
    def __init__(self, fn: ir.Function):
        self.fn = fn
        self.forms: dict = {}  # id(Var) -> Affine
        self.loops: dict = {}  # loop symbol k -> (least Bound, greatest Bound), while inside its body
        self.params = {id(p): p for p in fn.params}
        for p in fn.params:
            if p.type is T.int32:
                self.forms[id(p)] = Affine(0, ((("arg", p.name), 1),))
        self.wrap: dict = {}
        self.guarded: dict = {}
        # id(bool Var) -> Cond, for conditions on arguments alone; the Conds of the branches the walk is in
        self.conds: dict = {id(p): Cond("ne", Bound(0, ((("arg", p.name), 1),)), Bound(0))
                            for p in fn.params if p.type is T.bool}
        self.when: tuple = ()

    def run(self) -> IndexFacts:
        if self.fn.is_kernel:
            self.block(self.fn.body)
        return IndexFacts(self.wrap, self.guarded)

    # --- the walk -----------------------------------------------------------------------------
    def block(self, stmts) -> None:
        for s in stmts:
            if isinstance(s, ir.Let):
                self.let(s.dst, s.value)
            elif isinstance(s, ir.Store):
                self.access(s.array, s.indices)
            elif isinstance(s, ir.Effect) and isinstance(s.value, ir.Call):
                self.call_access(s.value)
            elif isinstance(s, ir.For):
                self.loop(s)
            elif isinstance(s, ir.If) and id(s.cond) in self.conds:
                outer, cond = self.when, self.conds[id(s.cond)]
                for body, c in ((s.body, cond), (s.orelse, cond.negated())):
                    self.when = outer + (c,)
                    self.block(body)
                self.when = outer
            else:
                for body in ir.child_blocks(s):
                    self.block(body)

    def loop(self, s: ir.For) -> None:
        k = len(self.loops)
        bounds = self.counter_bounds(s)
        if bounds is not None:
            self.loops[("loop", k)] = bounds
            self.forms[id(s.var)] = Affine(0, ((("loop", k), 1),))
        before = set(self.forms)
        self.block(s.body)
        # the counter and what was computed from it only hold inside the body: after the loop the
        # counter keeps its last value (or none, when the loop did not run)
        for key in set(self.forms) - before:
            del self.forms[key]
        self.forms.pop(id(s.var), None)
        self.loops.pop(("loop", k), None)

    def counter_bounds(self, s: ir.For):
        start, stop = self.forms.get(id(s.start)), self.forms.get(id(s.stop))
        step = self.constant(s.step)
        if start is None or stop is None or not step:
            return None
        if step > 0:  # start <= counter <= stop - 1 in every iteration that runs
            least, greatest = self.least(start), self.greatest(stop)
            return (least, None if greatest is None else greatest.plus(Bound(-1)))
        least, greatest = self.least(stop), self.greatest(start)  # stop + 1 <= counter <= start
        return (None if least is None else least.plus(Bound(1)), greatest)

    def let(self, dst: ir.Var, v) -> None:
        if isinstance(v, ir.Load):
            self.access(v.array, v.indices)
            return
        if isinstance(v, ir.Call):
            self.call_access(v)
            if v.builtin.name in _NEGATED and len(v.args) == 2 and not dst.mutable:
                sides = [self.uniform(a) for a in v.args]
                if None not in sides:
                    self.conds[id(dst)] = Cond(v.builtin.name, *sides)
        if dst.type is not T.int32 or dst.mutable:
            return
        form = self.form_of(v)
        if form is not None:
            self.forms[id(dst)] = form

    def form_of(self, v):
        if isinstance(v, ir.Tid):
            return Affine(0, ((("tid", v.index), 1),))
        return affine_of(v, lambda x: self.forms.get(id(x)))

    def uniform(self, v):
        """The Bound of an int32 argument or constant, else None. (No sums: the entry point compares
        in int64, and a sum the kernel computed in int32 may have wrapped; a lone value cannot.)"""
        f = self.forms.get(id(v))
        if f is None or any(sym[0] != "arg" for sym, _ in f.terms):
            return None
        if f.terms and (f.const or len(f.terms) > 1 or f.terms[0][1] != 1):
            return None
        return Bound(f.const, f.terms)

    def constant(self, v):
        f = self.forms.get(id(v))
        return f.const if f is not None and not f.terms else None

    # --- accesses -----------------------------------------------------------------------------
    def call_access(self, v: ir.Call) -> None:
        if v.builtin.atomic and v.args and isinstance(v.args[0].type, ArrayType):
            n = v.args[0].type.ndim
            self.access(v.args[0], v.args[1:1 + n])

    def access(self, array: ir.Var, indices) -> None:
        key = access_key(array, indices)
        forms = [self.forms.get(id(i)) for i in indices]
        mask = 0
        for d, (f, i) in enumerate(zip(forms, indices)):
            if i.type in _NARROW_UNSIGNED:
                continue  # an unsigned 8/16/32-bit index is never negative (uint64's can be, as an int64)
            least = None if f is None else self.least(f)
            if least is None or least.least() < 0:
                mask |= 1 << d
        self.wrap[key] = mask
        if id(array) not in self.params or getattr(array.type, "kind", None) != "array" or None in forms:
            return
        guards = []
        for d, f in enumerate(forms):
            least, greatest = self.least(f), self.greatest(f)
            if least is None or greatest is None:
                return
            guards.append(Guard(array.name, d, least, greatest, self.when))
        self.guarded[key] = tuple(guards)

    # --- least and greatest values, as Bounds -----------------------------------------------------
    def least(self, f: Affine):
        return self._extreme(f, low=True)

    def greatest(self, f: Affine):
        return self._extreme(f, low=False)

    def _extreme(self, f: Affine, low: bool):
        out = Bound(f.const)
        for sym, c in f.terms:
            kind = sym[0]
            take_low = low if c > 0 else not low
            if kind == "tid":
                part = Bound(0, (((("tid_min" if take_low else "tid_max"), sym[1]), 1),))
            elif kind == "arg":
                part = Bound(0, ((sym, 1),))
            else:
                part = self.loops.get(sym, (None, None))[0 if take_low else 1]
                if part is None:
                    return None
            out = out.plus(part, c)
        return out
