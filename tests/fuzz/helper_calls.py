"""The fuzzer's @wp.func helpers with control flow, and their float64 reference.

The kernels call them with generated arguments: `fork(a, b, g)` returns early under a branch and
runs a constant loop otherwise; `spin(w, s, n)` reassigns a vector in a dynamic loop that can break.
What their conditions compare is exact in float32 (a slot of x, a multiple of 0.25), so that they
are rarely too close to call and the generated values (g, w) keep tight error bounds. So
calls of user functions with several returns, loops inside functions and break get differentiated
too (tests/fuzz/test_gradient_fuzz.py). Each evaluator returns a Val with a float32 error bound and
marks the threads whose branch or trip count is too close to call (`env.unsure`), as reference.py
does for the kernels' own statements."""

from __future__ import annotations

import numpy as np

from tests.fuzz.reference import EPS, FN_ULPS, Val

SOURCE = """@wp.func
def fork(a: float, b: float, g: float):
    if a > b:
        return wp.sin(g) * b
    c = g * 0.5
    for k in range(3):
        c = wp.tanh(c + a * 0.25)
    return c - a


@wp.func
def spin(w: wp.vec3, s: float, n: int):
    r = w
    for k in range(n):
        if s * float(k) > 1.0:
            break
        r = wp.vec3(wp.sin(r[1]), r[2] * 0.5, r[0] * 0.5 + s * 0.1)
    return r


"""

_TENTH_ERROR = abs(0.1 - float(np.float32(0.1)))  # 0.1 is not a float32


def fork_bound(a_bound: float, b: float) -> float:
    # |sin(g) b| <= |b|, |tanh(...) - a| <= 1 + |a|
    return max(abs(b), 1.0 + a_bound)


def spin_bound(w_bound: float, s_bound: float) -> float:
    # each component stays under max(|w|, 1, 0.2 |s|): sin <= 1, 0.5 M and 0.5 M + 0.1 |s| <= M
    return max(w_bound, 1.0, 0.2 * s_bound)


def fork(a, b: float, g):
    """a: an exact value (a read of x); b: a float32 constant."""
    def ev(env):
        x, y = a.ev(env), g.ev(env)
        env.unsure |= env.active & (x.v == b)  # (exact: only a tie is too close to call)
        early = np.sin(y.v) * b
        early_e = abs(b) * (np.minimum(y.e, 2.0) + (FN_ULPS + 2) * EPS)
        c, c_e = 0.5 * y.v, 0.5 * y.e
        for _ in range(3):
            t = c + 0.25 * x.v
            t_e = c_e + x.e + EPS * np.abs(t)
            c = np.tanh(t)
            c_e = t_e + FN_ULPS * EPS * np.abs(c)
        late = c - x.v
        late_e = c_e + x.e + EPS * np.abs(late)
        take = x.v > b
        return Val(np.where(take, early, late), np.where(take, early_e, late_e))
    return ev


def spin(w, s):
    def ev(env):
        r, sv = w.ev(env), s.ev(env)
        v, e = r.v.copy(), r.e.copy()
        running = np.ones(env.T, dtype=bool)
        for k in range(env.n):
            t = sv.v * k
            env.unsure |= env.active & running & (np.abs(t - 1.0) <= sv.e * k + 2 * EPS * (np.abs(t) + 1.0))
            running &= ~(t > 1.0)
            third = 0.5 * v[:, 0] + 0.1 * sv.v
            new = np.stack([np.sin(v[:, 1]), 0.5 * v[:, 2], third], axis=1)
            new_e = np.stack([np.minimum(e[:, 1], 2.0) + FN_ULPS * EPS * np.abs(new[:, 0]), 0.5 * e[:, 2],
                              0.5 * e[:, 0] + 0.1 * sv.e + _TENTH_ERROR * np.abs(sv.v)
                              + 3 * EPS * (np.abs(third) + 0.1 * np.abs(sv.v))], axis=1)
            v = np.where(running[:, None], new, v)
            e = np.where(running[:, None], new_e, e)
        return Val(v, e)
    return ev
