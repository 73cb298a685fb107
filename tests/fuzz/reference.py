"""The float64 reference of the fuzzer's kernels, with a running float32 error bound.

In: expressions and statements built by kernel_fuzzer.py. Out: their values over all threads at
once (numpy float64) and, for each value, a bound on the error that float32 arithmetic may add:
each operation adds its own rounding and propagates its inputs' bounds (through the operation's
Lipschitz constant), so the comparison tolerance follows the computation. A comparison whose sides
lie within their bounds of each other may go the other way in float32: its threads are marked
unsure and left unchecked. Knows nothing about source text or warp_nb."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tests.fuzz.kernel_fuzzer import Expr

EPS = 2.0 ** -24          # float32 unit roundoff
FN_ULPS = 4.0             # allowance for a libm function (sin, exp, ...) beyond correct rounding
SLOTS = 4                 # each thread owns x[i*SLOTS : i*SLOTS+SLOTS] and scratch[...] alike

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


def _near_kink(env, value: np.ndarray, at, err: np.ndarray) -> None:
    """Mark the threads whose `value` lies within its error bound of a kink at `at` (abs at 0, a
    min/max tie, a clamp bound), but not on it: float32 may take the other side, whose gradient
    differs. A bound grown loose (a squash keeps up to 2) is capped at 1e-3 relative, float32's
    error in practice. A value exactly on a kink (often a constant: `abs(float(j))`, or one value
    under two names) is left to the gradient check's one-sided quotients, which see whether the
    gradient jumps there."""
    size = np.abs(value) + np.abs(at)
    gap = np.abs(value - at)
    near = (gap > 0) & (gap <= np.minimum(err, 1e-3 * (1.0 + size)) + 2 * EPS * size)
    env.kinks |= env.active & near


def _sqrt_shifted(a: Expr):
    def ev(env):
        x = a.ev(env)
        _near_kink(env, x.v, 0.0, x.e)
        arg = np.abs(x.v) + 0.5
        arg_e = x.e + EPS * arg
        r = np.sqrt(arg)
        return Val(r, arg_e / (2 * np.sqrt(np.maximum(arg - arg_e, 0.25))) + FN_ULPS * EPS * r)
    return ev


def _log_shifted(a: Expr):
    def ev(env):
        x = a.ev(env)
        _near_kink(env, x.v, 0.0, x.e)
        arg = np.abs(x.v) + 1.0
        arg_e = x.e + EPS * arg
        r = np.log(arg)
        return Val(r, arg_e / np.maximum(arg - arg_e, 0.5) + FN_ULPS * EPS * np.abs(r))
    return ev


def _exp_clamped(a: Expr):
    def ev(env):
        x = a.ev(env)
        _near_kink(env, x.v, -3.0, x.e)
        _near_kink(env, x.v, 3.0, x.e)
        c = np.clip(x.v, -3.0, 3.0)
        r = np.exp(c)
        return Val(r, r * (np.exp(np.minimum(x.e, 6.0)) - 1.0) + FN_ULPS * EPS * r)
    return ev


def _minmax(a: Expr, b: Expr, f):
    def ev(env):
        x, y = a.ev(env), b.ev(env)
        _near_kink(env, x.v, y.v, x.e + y.e)
        return Val(f(x.v, y.v), np.maximum(x.e, y.e))
    return ev


def _clamp(a: Expr, lo: float, hi: float):
    def ev(env):
        x = a.ev(env)
        _near_kink(env, x.v, lo, x.e)
        _near_kink(env, x.v, hi, x.e)
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
        e = np.minimum(_norm(x.e), 1.0) + 8 * EPS * _norm(x.v) / d  # two results are at most 1 apart
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
        _near_kink(env, r, 0.0, np.sum(x.e, axis=1))
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
    # threads at or near a kink (gradients only: the forward value is continuous there), among
    # the threads that run the statement being evaluated (`active`)
    kinks: np.ndarray = None
    active: np.ndarray = None
    # which scratch elements a thread has read, and the threads that then stored into one: Warp's
    # "overwrite", whose gradient is not defined (the backward pass sees the array's final values)
    read: np.ndarray = None
    overwrites: np.ndarray = None

    def __post_init__(self):
        self.scratch = Val(np.zeros((self.T, SLOTS)), np.zeros((self.T, SLOTS)))
        self.unsure = np.zeros(self.T, dtype=bool)
        self.kinks = np.zeros(self.T, dtype=bool)
        self.active = np.ones(self.T, dtype=bool)
        self.read = np.zeros((self.T, SLOTS), dtype=bool)
        self.overwrites = np.zeros(self.T, dtype=bool)


def _merge(mask: np.ndarray, a: Val, b: Val) -> Val:
    m = mask[:, None] if a.v.ndim == 2 else mask
    return Val(np.where(m, a.v, b.v), np.where(m, a.e, b.e))


def run_statements(env: Env, stmts: list, active: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Runs `stmts` for the threads where `active` holds (the others keep their values). Returns
    the threads that left the block by `break` and by `continue` (they skip the rest of it)."""
    active = active.copy()
    broke, continued = np.zeros(env.T, dtype=bool), np.zeros(env.T, dtype=bool)
    for st in stmts:
        kind = st[0]
        env.active = active
        if kind == "assign":
            _, name, e = st
            new = e.ev(env)
            env.vars[name] = _merge(active, new, env.vars[name]) if name in env.vars else new
        elif kind == "scale":
            _, name, c = st
            old = env.vars[name]
            scaled = _round(old.v * c, old.e * abs(c) + abs(c - float(np.float32(c))) * np.abs(old.v))
            env.vars[name] = _merge(active, scaled, old)
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
            env.overwrites |= active & env.read[:, j]
            env.scratch.v[:, j] = np.where(active, rhs.v, env.scratch.v[:, j])
            env.scratch.e[:, j] = np.where(active, rhs.e, env.scratch.e[:, j])
        elif kind == "accumulate":
            _, name, loop = st
            j = env.ints[loop]
            env.read[:, j] |= active
            old = env.vars[name]
            s = old.v + env.x[:, j] * 0.5
            s_e = old.e + EPS * np.abs(s)
            s2 = s + env.scratch.v[:, j]
            s2_e = s_e + env.scratch.e[:, j] + EPS * np.abs(s2)
            env.vars[name] = _merge(active, Val(np.tanh(s2), s2_e + FN_ULPS * EPS * np.abs(np.tanh(s2))), old)
        elif kind == "if":
            _, branches, other = st
            remaining = active.copy()
            left = np.zeros(env.T, dtype=bool)
            for cond, body in branches:
                mask, unsure = cond.ev(env)
                env.unsure |= unsure & remaining
                b, c = run_statements(env, body, remaining & mask)
                broke, continued, left = broke | b, continued | c, left | b | c
                remaining = remaining & ~mask
            if other is not None:
                b, c = run_statements(env, other, remaining)
                broke, continued, left = broke | b, continued | c, left | b | c
            active &= ~left
        elif kind == "break":
            broke |= active
            active[:] = False
        elif kind == "continue":
            continued |= active
            active[:] = False
        elif kind == "for":  # a for loop, or a while loop over a counter (the same iterations)
            _, var, (how, rng_), body = st
            iterations = rng_ if how == "const" else range(env.n)
            running = active.copy()
            for j in iterations:
                env.ints[var] = j
                b, _ = run_statements(env, body, running)
                running &= ~b
        else:  # pragma: no cover
            raise AssertionError(kind)
    env.active = active | broke | continued  # (the caller sets its own before its next statement)
    return broke, continued


