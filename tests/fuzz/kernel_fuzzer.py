"""A seeded generator of random, well-typed kernels and their float64 reference.

In: a seed and a count. Out: the Python source of one module holding that many `@wp.kernel`s, and
for each kernel a reference evaluator that runs the same program in numpy float64, vectorised over
the launch's threads. Every value of the reference carries a running bound on the error that
float32 arithmetic may add (each operation adds its rounding and propagates its inputs' bounds), so
the comparison tolerance follows the computation instead of being one guessed number; a branch
whose comparison lies within those bounds may legitimately go the other way in float32, and its
thread is left unchecked (counted, and kept rare).

What the kernels hold: float32 scalars and vec3, arithmetic, sin/cos/tanh/sqrt/log/exp/abs/min/max
/clamp, dot/cross/length and component access, if/elif/else with comparisons joined by and/or/not,
constant `for` loops (with steps, also negative), dynamic `for j in range(n)`, array reads and
writes at in-bounds indices, augmented assignments and vector component assignment. The generator
keeps away from ill-conditioned operations: a divisor is `1 + b*b`, sqrt and log see `|a| + c`, exp
sees a clamped argument, and a value whose static bound grows past a limit is squashed by tanh or
sin, so nothing overflows. No NaN is ever produced (min/max NaN semantics are not under test here).

It does not launch anything and knows nothing about warp_nb beyond the source text it writes.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

EPS = 2.0 ** -24          # float32 unit roundoff
FN_ULPS = 4.0             # allowance for a libm function (sin, exp, ...) beyond correct rounding
SLOTS = 4                 # each thread owns x[i*SLOTS : i*SLOTS+SLOTS] and scratch[...] alike
BOUND_LIMIT = 40.0        # static magnitude bound above which a value is squashed

# ---------------------------------------------------------------------------------------------
# values of the reference: float64 arrays over threads plus a running float32 error bound


@dataclass
class Val:
    v: np.ndarray            # (T,) for scalars, (T, 3) for vec3
    e: np.ndarray            # absolute error bound, same shape

    @property
    def is_vec(self) -> bool:
        return self.v.ndim == 2


def _round(r: np.ndarray, e: np.ndarray, ulps: float = 1.0) -> Val:
    return Val(r, e + ulps * EPS * np.abs(r))


# ---------------------------------------------------------------------------------------------
# expressions: each knows its source text, its static magnitude bound, and how to evaluate itself


@dataclass
class Expr:
    src: str
    bound: float
    is_vec: bool
    ev: object               # callable(env) -> Val


def _const(rng: random.Random) -> Expr:
    c = round(rng.uniform(-2.0, 2.0), rng.choice([1, 2, 3]))
    if c == 0.0:
        c = 0.5
    text = repr(float(c))
    c32 = float(np.float32(c))
    return Expr(text, abs(c), False, lambda env, c=c, c32=c32: Val(np.full(env.T, c), np.full(env.T, abs(c - c32) + 0.0)))


class Gen:
    """Builds one kernel: its statements as source lines and as a reference program."""

    def __init__(self, rng: random.Random, name: str):
        self.rng = rng
        self.name = name
        self.lines: list[str] = []
        self.program: list = []          # reference statements: callables(env)
        self.scalars: dict[str, float] = {}   # variable -> static bound
        self.vectors: dict[str, float] = {}
        self.loop_vars: list[str] = []
        self.counter = 0

    # -- expressions ---------------------------------------------------------------------------

    def scalar(self, depth: int) -> Expr:
        rng = self.rng
        if depth <= 0 or rng.random() < 0.25:
            return self._scalar_leaf()
        kind = rng.choice(["add", "sub", "mul", "mul", "div", "neg", "fn", "fn", "minmax", "clamp",
                           "dot", "length", "comp", "sqrt", "log", "exp", "abs", "ternary"])
        if kind in ("dot", "length", "comp") and depth >= 1:
            return self._vec_to_scalar(kind, depth)
        if kind in ("add", "sub", "mul"):
            a, b = self.scalar(depth - 1), self.scalar(depth - 1)
            op = {"add": "+", "sub": "-", "mul": "*"}[kind]
            if kind == "mul":
                bound = a.bound * b.bound
                if bound > BOUND_LIMIT:
                    return self._squash(Expr(f"({a.src} * {b.src})", bound, False, _mul(a, b)))
                return Expr(f"({a.src} * {b.src})", bound, False, _mul(a, b))
            sign = 1.0 if kind == "add" else -1.0
            return Expr(f"({a.src} {op} {b.src})", a.bound + b.bound, False, _addsub(a, b, sign))
        if kind == "div":  # a / (1 + b*b): the divisor is at least 1
            a, b = self.scalar(depth - 1), self.scalar(depth - 1)
            if b.bound > 1e3:
                b = self._squash(b)
            return Expr(f"soft_div({a.src}, {b.src})", a.bound, False, _div(a, b))
        if kind == "neg":
            a = self.scalar(depth - 1)
            return Expr(f"(-{a.src})", a.bound, False, lambda env: (lambda x: Val(-x.v, x.e))(a.ev(env)))
        if kind == "fn":
            name = rng.choice(["sin", "cos", "tanh"])
            a = self.scalar(depth - 1)
            f = getattr(np, name)
            return Expr(f"wp.{name}({a.src})", 1.0, False, _fn_lipschitz1(a, f))
        if kind == "abs":
            a = self.scalar(depth - 1)
            return Expr(f"wp.abs({a.src})", a.bound, False, lambda env: (lambda x: Val(np.abs(x.v), x.e))(a.ev(env)))
        if kind == "sqrt":
            a = self.scalar(depth - 1)
            return Expr(f"wp.sqrt(wp.abs({a.src}) + 0.5)", float(np.sqrt(a.bound + 0.5)), False, _sqrt_shifted(a))
        if kind == "log":
            a = self.scalar(depth - 1)
            return Expr(f"wp.log(wp.abs({a.src}) + 1.0)", float(np.log(a.bound + 1.0)), False, _log_shifted(a))
        if kind == "exp":
            a = self.scalar(depth - 1)
            return Expr(f"wp.exp(wp.clamp({a.src}, -3.0, 3.0))", float(np.exp(min(a.bound, 3.0))), False, _exp_clamped(a))
        if kind == "minmax":
            name = rng.choice(["min", "max"])
            a, b = self.scalar(depth - 1), self.scalar(depth - 1)
            f = np.minimum if name == "min" else np.maximum
            return Expr(f"wp.{name}({a.src}, {b.src})", max(a.bound, b.bound), False, _minmax(a, b, f))
        if kind == "clamp":
            a = self.scalar(depth - 1)
            lo = round(rng.uniform(-1.5, 0.0), 2)
            hi = round(rng.uniform(0.1, 1.5), 2)
            return Expr(f"wp.clamp({a.src}, {lo!r}, {hi!r})", max(abs(lo), abs(hi)), False, _clamp(a, lo, hi))
        # ternary: cond ? a : b
        cond = self.condition(1)
        a, b = self.scalar(depth - 1), self.scalar(depth - 1)
        return Expr(f"({a.src} if {cond.src} else {b.src})", max(a.bound, b.bound), False, _select(cond, a, b))

    def _scalar_leaf(self) -> Expr:
        rng = self.rng
        choices = ["const", "xread"]
        if self.scalars:
            choices += ["var", "var", "var"]
        if self.loop_vars:
            choices.append("loopvar")
        kind = rng.choice(choices)
        if kind == "const":
            return _const(rng)
        if kind == "xread":
            slot = rng.randrange(SLOTS)
            return Expr(f"x[i * {SLOTS} + {slot}]", 2.0, False, lambda env, s=slot: Val(env.x[:, s].copy(), np.zeros(env.T)))
        if kind == "loopvar":
            name = rng.choice(self.loop_vars)
            return Expr(f"float({name})", 4.0, False, lambda env, n=name: Val(np.full(env.T, float(env.ints[n])), np.zeros(env.T)))
        name = rng.choice(sorted(self.scalars))
        return Expr(name, self.scalars[name], False, lambda env, n=name: env.vars[n])

    def _squash(self, a: Expr) -> Expr:
        name = self.rng.choice(["tanh", "sin"])
        return Expr(f"wp.{name}({a.src})", 1.0, False, _fn_lipschitz1(a, getattr(np, name)))

    def vector(self, depth: int) -> Expr:
        rng = self.rng
        if depth <= 0 or rng.random() < 0.2:
            if self.vectors and rng.random() < 0.6:
                name = rng.choice(sorted(self.vectors))
                return Expr(name, self.vectors[name], True, lambda env, n=name: env.vars[n])
            if rng.random() < 0.5:
                return Expr("v[i]", 2.0, True, lambda env: Val(env.v.copy(), np.zeros_like(env.v)))
            parts = [self.scalar(0) for _ in range(3)]
            return Expr(f"wp.vec3({', '.join(p.src for p in parts)})", max(p.bound for p in parts), True, _make_vec(parts))
        kind = rng.choice(["add", "sub", "scale", "rscale", "cross", "neg", "make"])
        if kind in ("add", "sub"):
            a, b = self.vector(depth - 1), self.vector(depth - 1)
            return Expr(f"({a.src} {'+' if kind == 'add' else '-'} {b.src})", a.bound + b.bound, True,
                        _addsub(a, b, 1.0 if kind == "add" else -1.0))
        if kind in ("scale", "rscale"):
            a, s = self.vector(depth - 1), self.scalar(depth - 1)
            if a.bound * s.bound > BOUND_LIMIT:
                s = self._squash(s)
            src = f"({a.src} * {s.src})" if kind == "scale" else f"({s.src} * {a.src})"
            return Expr(src, a.bound * s.bound, True, _scale(a, s))
        if kind == "cross":
            a, b = self.vector(depth - 1), self.vector(depth - 1)
            if 2 * a.bound * b.bound > BOUND_LIMIT:
                a = self._vsquash(a)
                b = self._vsquash(b)
            return Expr(f"wp.cross({a.src}, {b.src})", 2 * a.bound * b.bound, True, _cross(a, b))
        if kind == "neg":
            a = self.vector(depth - 1)
            return Expr(f"(-{a.src})", a.bound, True, lambda env: (lambda x: Val(-x.v, x.e))(a.ev(env)))
        parts = [self.scalar(depth - 1) for _ in range(3)]
        return Expr(f"wp.vec3({', '.join(p.src for p in parts)})", max(p.bound for p in parts), True, _make_vec(parts))

    def _vsquash(self, a: Expr) -> Expr:
        # a * (1 / (1 + |a|^2))-like squash written with wp.normalize-free arithmetic: a / (1 + dot(a, a))
        return Expr(f"soft_vec({a.src})", 0.5, True, _vdiv_squash(a))

    def _vec_to_scalar(self, kind: str, depth: int) -> Expr:
        if kind == "dot":
            a, b = self.vector(depth - 1), self.vector(depth - 1)
            bound = 3 * a.bound * b.bound
            e = Expr(f"wp.dot({a.src}, {b.src})", bound, False, _dot(a, b))
            return self._squash(e) if bound > BOUND_LIMIT else e
        if kind == "length":
            a = self.vector(depth - 1)
            return Expr(f"wp.length({a.src})", 1.75 * a.bound, False, _length(a))
        a = self.vector(depth - 1)
        c = self.rng.randrange(3)
        if not a.src.isidentifier() and a.src != "v[i]":
            # component of a temporary: Warp accepts it on a name; keep to names and array reads
            return Expr(f"{a.src}[{c}]", a.bound, False, _comp(a, c)) if self.rng.random() < 0.5 else self._scalar_leaf()
        return Expr(f"{a.src}[{c}]", a.bound, False, _comp(a, c))

    def condition(self, depth: int) -> Expr:
        rng = self.rng
        if depth > 0 and rng.random() < 0.3:
            kind = rng.choice(["and", "or", "not"])
            if kind == "not":
                a = self.condition(depth - 1)
                return Expr(f"(not {a.src})", 0, False, _not(a))
            a, b = self.condition(depth - 1), self.condition(depth - 1)
            return Expr(f"({a.src} {kind} {b.src})", 0, False, _andor(a, b, kind))
        a, b = self.scalar(2), self.scalar(1)
        op = rng.choice(["<", "<=", ">", ">="])
        return Expr(f"{a.src} {op} {b.src}", 0, False, _compare(a, b, op))

    # -- statements ----------------------------------------------------------------------------

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def block(self, indent: int, depth: int, count: int, in_loop: bool) -> list:
        return [self.statement(indent, depth, in_loop) for _ in range(count)]

    def statement(self, indent: int, depth: int, in_loop: bool):
        rng = self.rng
        kinds = ["assign", "assign", "augment", "vassign"]
        if self.vectors:
            kinds.append("vcomp")
        if depth > 0:
            kinds += ["if", "for_const", "for_dyn"]
        if in_loop:
            kinds.append("scratch")
        kind = rng.choice(kinds)
        if kind == "assign":
            # only existing names may be reassigned inside blocks (Warp needs a definition that dominates)
            if indent > 1 and self.scalars:
                name = rng.choice(sorted(self.scalars))
            else:
                name = self.fresh("f")
            e = self.scalar(3)
            if e.bound > BOUND_LIMIT:
                e = self._squash(e)
            if in_loop:  # keep loop-carried values bounded: blend with the old one
                if name in self.scalars:
                    old = Expr(name, self.scalars[name], False, lambda env, n=name: env.vars[n])
                    e = _blend(old, e, self._squash)
            self.emit(indent, f"{name} = {e.src}")
            bound = max(e.bound, self.scalars.get(name, 0.0))
            if indent <= 1:
                self.scalars[name] = e.bound
            else:
                self.scalars[name] = bound
            return ("assign", name, e)
        if kind == "augment":
            if not self.scalars:
                return self.statement(indent, 0, in_loop)
            name = rng.choice(sorted(self.scalars))
            e = self._squash(self.scalar(2))
            op = rng.choice(["+=", "-=", "*="])
            if op == "*=":
                # x *= c with |c| <= 1 keeps the bound
                c = round(rng.uniform(-1.0, 1.0), 2)
                self.emit(indent, f"{name} *= {c!r}")
                return ("scale", name, c)
            self.emit(indent, f"{name} {op} {e.src}")
            self.scalars[name] = self.scalars[name] + 1.0
            if in_loop or self.scalars[name] > BOUND_LIMIT:
                # squash on the next line so loops cannot grow it without bound
                self.emit(indent, f"{name} = wp.tanh({name})")
                self.scalars[name] = 1.0
                return ("augment_squash", name, op, e)
            return ("augment", name, op, e)
        if kind == "vassign":
            if indent > 1 and self.vectors:
                name = rng.choice(sorted(self.vectors))
            else:
                name = self.fresh("w")
            e = self.vector(2)
            if e.bound > BOUND_LIMIT or in_loop:
                e = self._vsquash(e)
            self.emit(indent, f"{name} = {e.src}")
            self.vectors[name] = max(e.bound, self.vectors.get(name, 0.0)) if indent > 1 else e.bound
            return ("assign", name, e)
        if kind == "vcomp":
            name = rng.choice(sorted(self.vectors))
            c = rng.randrange(3)
            e = self._squash(self.scalar(2))
            self.emit(indent, f"{name}[{c}] = {e.src}")
            self.vectors[name] = max(self.vectors[name], 1.0)
            return ("vcomp", name, c, e)
        if kind == "scratch":
            loop = self.loop_vars[-1]
            e = self._squash(self.scalar(2))
            self.emit(indent, f"scratch[i * {SLOTS} + {loop}] = {e.src}")
            return ("scratch", loop, e)
        if kind == "if":
            branches = []
            cond = self.condition(1)
            self.emit(indent, f"if {cond.src}:")
            body = self.block(indent + 1, depth - 1, rng.randint(1, 2), in_loop)
            branches.append((cond, body))
            if rng.random() < 0.3:
                cond2 = self.condition(0)
                self.emit(indent, f"elif {cond2.src}:")
                branches.append((cond2, self.block(indent + 1, depth - 1, 1, in_loop)))
            other = None
            if rng.random() < 0.6:
                self.emit(indent, "else:")
                other = self.block(indent + 1, depth - 1, rng.randint(1, 2), in_loop)
            return ("if", branches, other)
        # loops
        var = self.fresh("j")
        if kind == "for_const":
            start, stop, step = rng.choice([(0, 3, 1), (0, SLOTS, 1), (1, SLOTS, 2), (SLOTS - 1, -1, -1), (0, 2, 1)])
            args = f"{start}, {stop}" + (f", {step}" if step != 1 else "")
            if (start, step) == (0, 1) and rng.random() < 0.5:
                args = f"{stop}"
            self.emit(indent, f"for {var} in range({args}):")
            bounds = ("const", range(start, stop, step))
        else:
            self.emit(indent, f"for {var} in range(n):")
            bounds = ("dyn", None)
        self.loop_vars.append(var)
        body = self.block(indent + 1, depth - 1, rng.randint(1, 2), True)
        if rng.random() < 0.5:  # read the loop's slot of x and of scratch
            if self.scalars:
                name = rng.choice(sorted(self.scalars))
                self.emit(indent + 1, f"{name} = wp.tanh({name} + x[i * {SLOTS} + {var}] * 0.5 + scratch[i * {SLOTS} + {var}])")
                body.append(("accumulate", name, var))
        self.loop_vars.pop()
        return ("for", var, bounds, body)


# ---------------------------------------------------------------------------------------------
# reference evaluators of expressions


def _addsub(a: Expr, b: Expr, sign: float):
    def ev(env):
        x, y = a.ev(env), b.ev(env)
        xv, yv, xe, ye = _broadcast(x, y)
        return _round(xv + sign * yv, xe + ye)
    return ev


def _broadcast(x: Val, y: Val):
    return x.v, y.v, x.e, y.e


def _mul(a: Expr, b: Expr):
    def ev(env):
        x, y = a.ev(env), b.ev(env)
        return _round(x.v * y.v, np.abs(x.v) * y.e + np.abs(y.v) * x.e + x.e * y.e)
    return ev


def _div(a: Expr, b: Expr):
    def ev(env):
        x, y = a.ev(env), b.ev(env)
        sq = y.v * y.v
        sq_e = 2 * np.abs(y.v) * y.e + y.e * y.e + EPS * sq
        d = 1.0 + sq
        d_e = sq_e + EPS * d
        r = x.v / d
        # |d(x/d)| <= dx/d + |x| dd / d^2 (d >= 1)
        return _round(r, x.e / d + np.abs(x.v) * d_e / (d * d) + x.e * d_e)
    return ev


def _fn_lipschitz1(a: Expr, f):
    def ev(env):
        x = a.ev(env)
        r = f(x.v)
        # 1-Lipschitz, results in [-1, 1]; libm's error is relative to the result (sin(0) is 0)
        return Val(r, np.minimum(x.e, 2.0) + FN_ULPS * EPS * np.abs(r))
    return ev


def _sqrt_shifted(a: Expr):
    def ev(env):
        x = a.ev(env)
        arg = np.abs(x.v) + 0.5
        arg_e = x.e + EPS * arg
        r = np.sqrt(arg)
        return Val(r, arg_e / (2 * np.sqrt(np.maximum(arg - arg_e, 0.25))) + FN_ULPS * EPS * r)
    return ev


def _log_shifted(a: Expr):
    def ev(env):
        x = a.ev(env)
        arg = np.abs(x.v) + 1.0
        arg_e = x.e + EPS * arg
        r = np.log(arg)
        return Val(r, arg_e / np.maximum(arg - arg_e, 0.5) + FN_ULPS * EPS * np.abs(r))
    return ev


def _exp_clamped(a: Expr):
    def ev(env):
        x = a.ev(env)
        c = np.clip(x.v, -3.0, 3.0)
        r = np.exp(c)
        return Val(r, r * (np.exp(np.minimum(x.e, 6.0)) - 1.0) + FN_ULPS * EPS * r)
    return ev


def _minmax(a: Expr, b: Expr, f):
    def ev(env):
        x, y = a.ev(env), b.ev(env)
        return Val(f(x.v, y.v), np.maximum(x.e, y.e))
    return ev


def _clamp(a: Expr, lo: float, hi: float):
    def ev(env):
        x = a.ev(env)
        return Val(np.clip(x.v, lo, hi), x.e)
    return ev


def _select(cond: Expr, a: Expr, b: Expr):
    def ev(env):
        c = cond.ev(env)           # (mask, unsure)
        x, y = a.ev(env), b.ev(env)
        env.unsure |= c[1]
        return Val(np.where(c[0], x.v, y.v), np.where(c[0], x.e, y.e))
    return ev


def _make_vec(parts: list):
    def ev(env):
        vals = [p.ev(env) for p in parts]
        return Val(np.stack([x.v for x in vals], axis=1), np.stack([x.e for x in vals], axis=1))
    return ev


def _scale(a: Expr, s: Expr):
    def ev(env):
        x, y = a.ev(env), s.ev(env)
        yv, ye = y.v[:, None], y.e[:, None]
        return _round(x.v * yv, np.abs(x.v) * ye + np.abs(yv) * x.e + x.e * ye)
    return ev


def _norm(a: np.ndarray) -> np.ndarray:
    return np.sqrt(np.sum(a * a, axis=1, keepdims=True))


def _cross(a: Expr, b: Expr):
    def ev(env):
        x, y = a.ev(env), b.ev(env)
        r = np.cross(x.v, y.v)
        # |(a+da) x (b+db) - a x b| <= |da||b| + |a||db| + |da||db|, plus each component's p*q - r*s
        ex, ey, nx, ny = _norm(x.e), _norm(y.e), _norm(x.v), _norm(y.v)
        e = ex * ny + nx * ey + ex * ey + 3 * EPS * nx * ny
        return Val(r, np.broadcast_to(e, r.shape).copy())
    return ev


def _vdiv_squash(a: Expr):
    def ev(env):
        x = a.ev(env)
        d = 1.0 + np.sum(x.v * x.v, axis=1, keepdims=True)
        r = x.v / d
        # x / (1 + |x|^2) is 1-Lipschitz; its own rounding is a few eps of |x| / d <= 0.5
        e = _norm(x.e) + 8 * EPS * _norm(x.v) / d
        return Val(r, np.broadcast_to(e, r.shape).copy())
    return ev


def _dot(a: Expr, b: Expr):
    def ev(env):
        x, y = a.ev(env), b.ev(env)
        r = np.sum(x.v * y.v, axis=1)
        e = np.sum(np.abs(x.v) * y.e + np.abs(y.v) * x.e + x.e * y.e, axis=1)
        return Val(r, e + 4 * EPS * np.sum(np.abs(x.v * y.v), axis=1))
    return ev


def _length(a: Expr):
    def ev(env):
        x = a.ev(env)
        r = np.sqrt(np.sum(x.v * x.v, axis=1))
        # |length(x + d) - length(x)| <= |d|; plus the rounding of the sum and the sqrt
        return Val(r, np.sum(x.e, axis=1) + 6 * EPS * r)
    return ev


def _comp(a: Expr, c: int):
    def ev(env):
        x = a.ev(env)
        return Val(x.v[:, c].copy(), x.e[:, c].copy())
    return ev


def _compare(a: Expr, b: Expr, op: str):
    def ev(env):
        x, y = a.ev(env), b.ev(env)
        mask = {"<": x.v < y.v, "<=": x.v <= y.v, ">": x.v > y.v, ">=": x.v >= y.v}[op]
        if a.src == b.src:  # the same expression on both sides: float32 computes equal values too
            return mask, np.zeros(env.T, dtype=bool)
        # an error bound of 0 means the float32 value is exact: such a comparison is certain; so is
        # one of two values equal in float64 with equal bounds (in practice one value under two
        # names, `b = a` then `if a >= b`, which float32 computes equal as well). An exact 0 against
        # a rounded 0 (the cross product of parallel vectors) is not certain.
        err = x.e + y.e
        alias = (x.v == y.v) & (x.e == y.e)
        unsure = (err > 0) & ~alias & (np.abs(x.v - y.v) <= err + 2 * EPS * (np.abs(x.v) + np.abs(y.v)))
        return mask, unsure
    return ev


def _not(a: Expr):
    def ev(env):
        m, u = a.ev(env)
        return ~m, u
    return ev


def _andor(a: Expr, b: Expr, kind: str):
    def ev(env):
        (m1, u1), (m2, u2) = a.ev(env), b.ev(env)
        return (m1 & m2 if kind == "and" else m1 | m2), u1 | u2
    return ev


def _blend(old: Expr, new: Expr, squash) -> Expr:
    """old * 0.5 + new * 0.5: a loop-carried update that stays bounded."""
    half = Expr("0.5", 0.5, False, lambda env: Val(np.full(env.T, 0.5), np.zeros(env.T)))
    a = Expr(f"({old.src} * 0.5)", old.bound * 0.5, False, _mul(old, half))
    b = Expr(f"({new.src} * 0.5)", new.bound * 0.5, False, _mul(new, half))
    e = Expr(f"({a.src} + {b.src})", a.bound + b.bound, False, _addsub(a, b, 1.0))
    return squash(e) if e.bound > BOUND_LIMIT else e


# ---------------------------------------------------------------------------------------------
# the reference interpreter of statements


@dataclass
class Env:
    T: int
    x: np.ndarray                     # (T, SLOTS) float64 of float32 values
    v: np.ndarray                     # (T, 3)
    n: int
    scratch: Val = None
    vars: dict = field(default_factory=dict)
    ints: dict = field(default_factory=dict)
    unsure: np.ndarray = None

    def __post_init__(self):
        self.scratch = Val(np.zeros((self.T, SLOTS)), np.zeros((self.T, SLOTS)))
        self.unsure = np.zeros(self.T, dtype=bool)


def _merge(mask: np.ndarray, a: Val, b: Val) -> Val:
    m = mask[:, None] if a.v.ndim == 2 else mask
    return Val(np.where(m, a.v, b.v), np.where(m, a.e, b.e))


def run_statements(env: Env, stmts: list, active: np.ndarray) -> None:
    """Runs `stmts` for the threads where `active` holds (the others keep their values)."""
    for st in stmts:
        kind = st[0]
        if kind == "assign":
            _, name, e = st
            new = e.ev(env)
            env.vars[name] = _merge(active, new, env.vars[name]) if name in env.vars else new
        elif kind == "scale":
            _, name, c = st
            old = env.vars[name]
            env.vars[name] = _merge(active, _round(old.v * c, old.e * abs(c) + abs(c - float(np.float32(c))) * np.abs(old.v)), old)
        elif kind in ("augment", "augment_squash"):
            _, name, op, e = st
            old = env.vars[name]
            rhs = e.ev(env)
            new = _round(old.v + (rhs.v if op == "+=" else -rhs.v), old.e + rhs.e)
            if kind == "augment_squash":
                new = Val(np.tanh(new.v), new.e + FN_ULPS * EPS * np.abs(np.tanh(new.v)))
            env.vars[name] = _merge(active, new, old)
        elif kind == "vcomp":
            _, name, c, e = st
            old = env.vars[name]
            rhs = e.ev(env)
            nv, ne = old.v.copy(), old.e.copy()
            nv[:, c] = np.where(active, rhs.v, nv[:, c])
            ne[:, c] = np.where(active, rhs.e, ne[:, c])
            env.vars[name] = Val(nv, ne)
        elif kind == "scratch":
            _, loop, e = st
            rhs = e.ev(env)
            j = env.ints[loop]
            env.scratch.v[:, j] = np.where(active, rhs.v, env.scratch.v[:, j])
            env.scratch.e[:, j] = np.where(active, rhs.e, env.scratch.e[:, j])
        elif kind == "accumulate":
            _, name, loop = st
            j = env.ints[loop]
            old = env.vars[name]
            s = old.v + env.x[:, j] * 0.5
            s_e = old.e + EPS * np.abs(s)
            s2 = s + env.scratch.v[:, j]
            s2_e = s_e + env.scratch.e[:, j] + EPS * np.abs(s2)
            env.vars[name] = _merge(active, Val(np.tanh(s2), s2_e + FN_ULPS * EPS * np.abs(np.tanh(s2))), old)
        elif kind == "if":
            _, branches, other = st
            remaining = active.copy()
            for cond, body in branches:
                mask, unsure = cond.ev(env)
                env.unsure |= unsure & remaining
                taken = remaining & mask
                run_statements(env, body, taken)
                remaining = remaining & ~mask
            if other is not None:
                run_statements(env, other, remaining)
        elif kind == "for":
            _, var, (how, rng_), body = st
            iterations = rng_ if how == "const" else range(env.n)
            for j in iterations:
                env.ints[var] = j
                run_statements(env, body, active)
        else:  # pragma: no cover
            raise AssertionError(kind)


# ---------------------------------------------------------------------------------------------
# whole kernels and modules


@dataclass
class FuzzKernel:
    name: str
    source: str
    body: list
    out_scalar: Expr
    out_vector: Expr

    def reference(self, x: np.ndarray, v: np.ndarray, n: int):
        """float64 results (out, outv), their error bounds, and the threads whose branches are
        too close to call."""
        T = v.shape[0]
        env = Env(T, x.reshape(T, SLOTS).astype(np.float64), v.astype(np.float64), n)
        run_statements(env, self.body, np.ones(T, dtype=bool))
        s = self.out_scalar.ev(env)
        w = self.out_vector.ev(env)
        return s, w, env.unsure


def generate_kernel(rng: random.Random, name: str) -> FuzzKernel:
    g = Gen(rng, name)
    g.emit(1, "i = wp.tid()")
    g.emit(1, f"f0 = x[i * {SLOTS}]")
    g.scalars["f0"] = 2.0
    body = [("assign", "f0", Expr("x", 2.0, False, lambda env: Val(env.x[:, 0].copy(), np.zeros(env.T))))]
    g.emit(1, "w0 = v[i]")
    g.vectors["w0"] = 2.0
    body.append(("assign", "w0", Expr("v", 2.0, True, lambda env: Val(env.v.copy(), np.zeros_like(env.v)))))
    body += g.block(1, 2, rng.randint(3, 6), False)
    out = g.scalar(2)
    if out.bound > BOUND_LIMIT:
        out = g._squash(out)
    outv = g.vector(1)
    if outv.bound > BOUND_LIMIT:
        outv = g._vsquash(outv)
    g.emit(1, f"out[i] = {out.src}")
    g.emit(1, f"outv[i] = {outv.src}")
    header = (f"@wp.kernel\ndef {name}(x: wp.array(dtype=wp.float32), v: wp.array(dtype=wp.vec3), n: int,\n"
              f"        scratch: wp.array(dtype=wp.float32), out: wp.array(dtype=wp.float32),\n"
              f"        outv: wp.array(dtype=wp.vec3)):\n")
    return FuzzKernel(name, header + "\n".join(g.lines) + "\n", body, out, outv)


#: @wp.func helpers the kernels call: the divisor 1 + b*b is at least 1, and a / (1 + |a|^2) is a
#: bounded, 1-Lipschitz squash of a vector
HELPERS = """@wp.func
def soft_div(a: float, b: float):
    return a / (1.0 + b * b)


@wp.func
def soft_vec(a: wp.vec3):
    return a / (1.0 + wp.dot(a, a))


"""


def generate_module(seed: int, count: int) -> tuple[str, list]:
    """The source of one module with `count` kernels (seeded), and the kernels' descriptions."""
    kernels = []
    for k in range(count):
        rng = random.Random(seed * 1_000_003 + k)  # each kernel from its own stream: a kernel can be regenerated alone
        kernels.append(generate_kernel(rng, f"fuzz_{seed}_{k:04d}"))
    source = "import warp_nb as wp\n\n\n" + HELPERS + "\n\n".join(k.source for k in kernels)
    return source, kernels


def inputs(seed: int, threads: int):
    """float32 inputs in [-2, 2] (a few exact small values to hit ties and zeros)."""
    rs = np.random.default_rng(seed)
    x = rs.uniform(-2.0, 2.0, threads * SLOTS).astype(np.float32)
    v = rs.uniform(-2.0, 2.0, (threads, 3)).astype(np.float32)
    x[::7] = np.float32(0.0)
    v[::5, 1] = np.float32(1.0)
    return x, v
