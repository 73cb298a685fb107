"""The documented values of every non-smooth builtin's adjoint at its kinks and singular points
(docs/subgradients.md), as GradCases at exactly those points: SUBGRADIENT_ROWS, run by
tests/test_subgradients.py."""

from __future__ import annotations

import math

import numpy as np

import warp_nb as wp

from tests.support import builtin_cases as bc
from tests.support.gradient_cases import GradCase, P, _float_type, _scalar_of

f32, f64, i32 = bc.f32, bc.f64, bc.i32
vec, quat, tname = bc.vec, bc.quat, bc.tname


def _row(rid: str, call: str, arg_types, points, expected, out_type=None, scalar=None) -> GradCase:
    """A case `out[i] = <call with {0}, {1}, ...>` at the given points (padded to P by repeating
    the last), whose adjoint must equal `expected`: per point, a list of d out / d arg for scalar
    outputs (one number per argument) or an array (outputs x input scalars)."""
    points = list(points) + [points[-1]] * (P - len(points))
    expected = list(expected) + [expected[-1]] * (P - len(expected))
    params = []
    for k, t in enumerate(arg_types):
        data = np.array([pt[k] for pt in points], dtype=bc.np_dtype(t)).reshape((P,) + bc.inner_shape(t))
        params.append(bc.Param(f"a{k}", t, data, (P,)))
    params.append(bc.Param("out", out_type or arg_types[0], None, (P,)))
    exp = np.array([np.asarray(e, dtype=np.float64).reshape(1, -1) if np.ndim(e) <= 1 else np.asarray(e, np.float64)
                    for e in expected])

    def body(names):
        return f"{names['out']}[i] = {call.format(*[names[f'a{k}'] + '[i]' for k in range(len(arg_types))])}"
    diff = tuple(f"a{k}" for k, t in enumerate(arg_types) if _float_type(t))
    return GradCase(rid, "subgradient", params, body, diff, ("out",), scalar or _scalar_of(arg_types), expected=exp)


INF, NAN = math.inf, math.nan


def subgradient_rows() -> list:
    rows = []
    for t in (f64, f32):
        s = tname(t)
        t1, t2, t3 = (t,), (t, t), (t, t, t)
        # table row `abs(x)`, x = 0 (also -0): d/dx = +1
        rows.append(_row(f"abs at 0 ({s})", "wp.abs({0})", t1, [(0.0,), (-0.0,)], [[1.0], [1.0]]))
        # rows `sign`, `step`, `nonzero`: gradient 0 everywhere (0 and -0 included)
        for fn in ("sign", "step", "nonzero"):
            rows.append(_row(f"{fn} ({s})", f"wp.{fn}({{0}})", t1, [(0.0,), (-0.0,), (1.5,), (-2.0,)], [[0.0]]))
        # row `floor, ceil, trunc, round, rint`: 0 everywhere, integers and halves included
        for fn in ("floor", "ceil", "trunc", "round", "rint"):
            rows.append(_row(f"{fn} at integers and halves ({s})", f"wp.{fn}({{0}})", t1,
                             [(0.0,), (2.0,), (-3.0,), (0.5,), (-1.5,), (2.5,)], [[0.0]]))
        # row `frac(x) = x - trunc(x)`: 1 at integers (jumps ignored)
        rows.append(_row(f"frac at integers ({s})", "wp.frac({0})", t1, [(0.0,), (3.0,), (-2.0,)], [[1.0]]))
        # row `floordiv(a, b)` (float): 0, 0 everywhere (an exact quotient included)
        rows.append(_row(f"floordiv ({s})", "wp.floordiv({0}, {1})", t2, [(6.0, 2.0), (-7.5, 2.0), (1.3, 0.7)],
                         [[0.0, 0.0]]))
        # row `mod(a, b)` (float): d/da = 1, d/db = 0 everywhere (Warp's choice)
        rows.append(_row(f"mod at integer quotients ({s})", "wp.mod({0}, {1})", t2,
                         [(6.0, 2.0), (-6.0, 2.0), (7.5, -2.5), (0.0, 3.0)],
                         [[1.0, 0.0]]))
        # rows `min(a, b)`, `max(a, b)` at a tie: to b (d/da = 0, d/db = 1)
        for fn in ("min", "max"):
            rows.append(_row(f"{fn} tie ({s})", f"wp.{fn}({{0}}, {{1}})", t2, [(1.25, 1.25), (0.0, -0.0), (-2.0, -2.0)],
                             [[0.0, 1.0]]))
            # the vector overload follows the scalar one componentwise (vec.h)
            vt = vec(3, t)
            rows.append(_row(f"{fn} tie componentwise ({tname(vt)})", f"wp.{fn}({{0}}, {{1}})", (vt, vt),
                             [([1.0, 2.0, -1.0], [1.0, 0.5, -1.0])],
                             # component 1 is no tie: min returns b there, max returns a
                             [np.hstack([np.diag([0.0, 0.0 if fn == "min" else 1.0, 0.0]),
                                         np.diag([1.0, 1.0 if fn == "min" else 0.0, 1.0])])]))
        # Notes, NaN inputs: min/max follow C's fmin/fmax (as Warp): the NaN operand is ignored,
        # the other one is returned and gets the gradient
        for fn in ("min", "max"):
            rows.append(_row(f"{fn} with nan ({s})", f"wp.{fn}({{0}}, {{1}})", t2, [(NAN, 1.0), (1.0, NAN)],
                             [[0.0, 1.0], [1.0, 0.0]]))
        # row `clamp(x, lo, hi)`: x == lo to x, x == hi (and lo == hi) to hi, as warp-lang 1.19;
        # x < lo to lo, x > hi to hi
        rows.append(_row(f"clamp at its bounds ({s})", "wp.clamp({0}, {1}, {2})", t3,
                         [(-1.0, -1.0, 2.0), (2.0, -1.0, 2.0), (-3.0, -1.0, 2.0), (3.0, -1.0, 2.0), (0.5, 0.5, 0.5),
                          (-3.0, 0.5, 0.5)],
                         [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 1.0],
                          [0.0, 0.0, 1.0]]))
        # Notes: clamp(x, lo, hi) = fmin(fmax(lo, x), hi): a NaN x gives min(lo, hi), here lo, which
        # gets the gradient; lo > hi gives hi
        rows.append(_row(f"clamp with nan ({s})", "wp.clamp({0}, {1}, {2})", t3, [(NAN, -1.0, 2.0), (0.0, 2.0, -1.0)],
                         [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
        # row `sqrt(x)`, x = 0: 0 (not +inf); row `cbrt(x)`, x = 0: 0
        rows.append(_row(f"sqrt at 0 ({s})", "wp.sqrt({0})", t1, [(0.0,)], [[0.0]]))
        rows.append(_row(f"cbrt at 0 ({s})", "wp.cbrt({0})", t1, [(0.0,)], [[0.0]]))
        # row `pow(a, b)`, a = 0 and b < 1: d/da = 0 (d/db = 0 too: a <= 0, next row)
        rows.append(_row(f"pow at a = 0, b < 1 ({s})", "wp.pow({0}, {1})", t2, [(0.0, 0.5), (0.0, 0.0), (0.0, -1.0)],
                         [[0.0, 0.0]]))
        # row `pow(a, b)`, a <= 0: d/db = 0 (d/da keeps the formula b a^(b-1): -4 and 12 here)
        rows.append(_row(f"pow at a <= 0 ({s})", "wp.pow({0}, {1})", t2, [(-2.0, 2.0), (-2.0, 3.0), (0.0, 2.0)],
                         [[-4.0, 0.0], [12.0, 0.0], [0.0, 0.0]]))
        # rows `asin(x)`, `acos(x)`, |x| >= 1: 0
        for fn in ("asin", "acos"):
            rows.append(_row(f"{fn} at |x| >= 1 ({s})", f"wp.{fn}({{0}})", t1, [(1.0,), (-1.0,), (1.5,), (-3.0,)],
                             [[0.0]]))
        # row `atan2(y, x)` at (0, 0), zeros of either sign: 0, 0
        rows.append(_row(f"atan2 at the origin ({s})", "wp.atan2({0}, {1})", t2,
                         [(0.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (-0.0, -0.0)], [[0.0, 0.0]]))
        # row `smoothstep(a, b, x)`, a == b: 0 for a, b and x (x below, at and above)
        rows.append(_row(f"smoothstep with a == b ({s})", "wp.smoothstep({0}, {1}, {2})", t3,
                         [(0.5, 0.5, 0.0), (0.5, 0.5, 0.5), (0.5, 0.5, 1.0)], [[0.0, 0.0, 0.0]]))
        # row `smoothstep(a, b, x)`, x at a or b: the formula, which is 0 there
        rows.append(_row(f"smoothstep at its ends ({s})", "wp.smoothstep({0}, {1}, {2})", t3,
                         [(-1.0, 2.0, -1.0), (-1.0, 2.0, 2.0)], [[0.0, 0.0, 0.0]]))
        # rows `log`, `log2`, `log10` at 0: the formula, +inf (IEEE, not a chosen value)
        for fn in ("log", "log2", "log10"):
            rows.append(_row(f"{fn} at 0 ({s})", f"wp.{fn}({{0}})", t1, [(0.0,)], [[INF]]))
        # row `div(a, b)` (float), b = 0: the formula: d/da = 1/b = +inf, d/db = -(a/b)/b = -inf (a = 1)
        rows.append(_row(f"div by zero ({s})", "wp.div({0}, {1})", t2, [(1.0, 0.0)], [[INF, -INF]]))

        # header note: integer-typed overloads never propagate gradients (no-op adjoints); in a
        # differentiated kernel they only scale the float gradient: d/dx = abs(k) + min(k, j) +
        # max(k, j) + clamp(k, j, 4)
        rows.append(_row(f"integer overloads in a differentiated kernel ({s})",
                         f"wp.{t.__name__}(wp.abs({{0}}) + wp.min({{0}}, {{1}}) + wp.max({{0}}, {{1}}) "
                         "+ wp.clamp({0}, {1}, 4)) * {2}", (i32, i32, t),
                         [(-3, 2, 1.5), (5, 1, -0.5), (0, 0, 2.0), (2, 2, 1.0)],
                         [[3 - 3 + 2 + 2], [5 + 1 + 5 + 4], [0.0], [2 + 2 + 2 + 2]], out_type=t))

        # registry docs (length, normalize), not the table: the gradient at the zero vector is 0
        for n in (2, 3, 4):
            vt = vec(n, t)
            rows.append(_row(f"length of the zero vector ({tname(vt)})", "wp.length({0})", (vt,), [([0.0] * n,)],
                             [np.zeros((1, n))], out_type=t))
            rows.append(_row(f"normalize of the zero vector ({tname(vt)})", "wp.normalize({0})", (vt,),
                             [([0.0] * n,)], [np.zeros((n, n))]))
        qt = quat(t)
        rows.append(_row(f"length of the zero quaternion ({tname(qt)})", "wp.length({0})", (qt,), [([0.0] * 4,)],
                         [np.zeros((1, 4))], out_type=t))
        rows.append(_row(f"normalize of the zero quaternion ({tname(qt)})", "wp.normalize({0})", (qt,),
                         [([0.0] * 4,)], [np.zeros((4, 4))]))
        # abs of a vector: componentwise, +1 at 0 components (table row `abs(x)`, via vec.h)
        vt = vec(3, t)
        rows.append(_row(f"abs at 0 componentwise ({tname(vt)})", "wp.abs({0})", (vt,), [([0.0, -0.0, -2.0],)],
                         [np.diag([1.0, 1.0, -1.0])]))
    # Notes: `half` overloads compute the adjoint in float32 and follow the same table
    h1, h2, h3 = (wp.float16,), (wp.float16,) * 2, (wp.float16,) * 3
    rows += [
        _row("abs at 0 (float16)", "wp.abs({0})", h1, [(0.0,), (-0.0,)], [[1.0]]),  # row `abs(x)`
        _row("min tie (float16)", "wp.min({0}, {1})", h2, [(1.25, 1.25)], [[0.0, 1.0]]),  # row `min(a, b)`
        _row("max tie (float16)", "wp.max({0}, {1})", h2, [(1.25, 1.25)], [[0.0, 1.0]]),  # row `max(a, b)`
        _row("clamp at its bounds (float16)", "wp.clamp({0}, {1}, {2})", h3,  # row `clamp`
             [(-1.0, -1.0, 2.0), (2.0, -1.0, 2.0)], [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]),
        _row("sqrt at 0 (float16)", "wp.sqrt({0})", h1, [(0.0,)], [[0.0]]),  # row `sqrt(x)`
        _row("asin at |x| >= 1 (float16)", "wp.asin({0})", h1, [(1.0,), (-1.0,), (1.5,)], [[0.0]]),  # row `asin`
        _row("atan2 at the origin (float16)", "wp.atan2({0}, {1})", h2, [(0.0, 0.0)], [[0.0, 0.0]]),  # `atan2`
        _row("frac at integers (float16)", "wp.frac({0})", h1, [(3.0,), (-2.0,)], [[1.0]]),  # row `frac`
    ]
    return rows


SUBGRADIENT_ROWS = subgradient_rows()
