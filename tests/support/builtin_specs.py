"""Per-builtin input domains and comparison rules for the registry-driven builtin tests (see
builtin_cases.py): a Spec per builtin says where its inputs are drawn from (away from
overflow, division by zero, branch cuts and ties), with what tolerance and how values compare."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from tests.support.builtin_values import (
    N, elem, f32, gen_value, inner_shape, kind, nonzero_divisor, np_dtype, rotation_matrix, unit_quats,
    with_specials,
)


# --- per-builtin input domains ------------------------------------------------------------------

ROUNDING_SPECIALS = [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.0, -0.0, 3.0, -3.0, 0.49999997]


def _uniform(lo, hi, specials=()):
    def gen(types, rng):
        out = []
        for t in types:
            v = gen_value(t, rng, N, lo, hi)
            if specials and elem(t)._kind == "float":
                v = with_specials(v, specials)
            out.append(v)
        return out
    return gen


def _default(types, rng):
    return [gen_value(t, rng) for t in types]


def _divide(types, rng, allow_zero_int=False):
    a = gen_value(types[0], rng)
    if len(types) == 1:
        return [a]
    # the divisor is always the second argument (scalar / vector divides by every component)
    out = [a, nonzero_divisor(types[1], rng)]
    if allow_zero_int and kind(types[1]) == "scalar" and kind(types[0]) == "scalar" and elem(types[1])._kind != "float":
        # integer division and modulo by zero give 0 (documented); negative operands check rounding
        b = gen_value(types[1], rng)
        out[1] = with_specials(b, [0, 3, 7] if elem(types[1])._kind == "uint" else [0, -3, 3, -7, 7])
        out[0] = with_specials(a, [5, 7, 9] if elem(types[0])._kind == "uint" else [5, -7, 7, -9, 9])
    return out


def _gen_pow(types, rng):
    return [gen_value(types[0], rng, N, 0.1, 3.0), gen_value(types[1], rng, N, -2.0, 2.0)]


def _gen_smoothstep(types, rng):
    a = gen_value(types[0], rng, N, -2.0, 0.0)
    b = gen_value(types[1], rng, N, 0.5, 2.0)
    x = gen_value(types[2], rng, N, -3.0, 3.0)
    # a == b is documented as a step at a
    b[0], x[0] = a[0], a[0] - 1
    b[1], x[1] = a[1], a[1] + 1
    b[2], x[2] = a[2], a[2]
    return [a, b, x]


def _gen_clamp(types, rng):
    x, lo, hi = (gen_value(t, rng) for t in types)
    lo, hi = np.minimum(lo, hi), np.maximum(lo, hi)
    return [x, lo, hi]


def _gen_lerp(types, rng):
    out = [gen_value(t, rng) for t in types]
    out[2] = gen_value(types[2], rng, N, -0.5, 1.5)
    return out


def _gen_isnan(types, rng):
    v = gen_value(types[0], rng)
    if elem(types[0])._kind == "float":
        v = with_specials(v, [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30 if elem(types[0]) is f32 else 1e300,
                              np.finfo(v.dtype).tiny / 4])
    return [v]


def _gen_sign(types, rng):
    v = gen_value(types[0], rng)
    if kind(types[0]) == "scalar":
        v = with_specials(v, [0, 1] if elem(types[0])._kind == "uint" else [0, -0.0, -1, 1])
    return [v]


def _gen_cond_values(types, rng):
    c = gen_value(types[0], rng)
    if elem(types[0])._kind == "float":
        c = with_specials(c, [0.0, -0.0, 1.0, 0.0, -0.5, 0.0])
    elif elem(types[0])._kind != "bool":
        c = with_specials(c, [0, 1, 0, 2, 0])
    return [c, gen_value(types[1], rng), gen_value(types[2], rng)]


def _gen_equal_pairs(types, rng):
    a = gen_value(types[0], rng)
    b = gen_value(types[1], rng)
    b[::2] = a[::2]  # every other pair is equal
    if kind(types[0]) != "scalar":
        flat_a, flat_b = a.reshape(N, -1), b.reshape(N, -1)
        flat_b[2] = flat_a[2]
        flat_b[2, -1] = flat_a[2, -1] + 1  # differs in the last component only
    return [a, b]


def _gen_shift(types, rng):
    a = gen_value(types[0], rng)
    bits = np_dtype(types[0]).itemsize * 8
    lo = -2 if elem(types[1])._kind == "int" else 0
    n = rng.integers(lo, bits + 3, (N,) + inner_shape(types[1])).astype(np_dtype(types[1]))  # per component
    n = with_specials(n, [0, bits - 1, bits] + ([-1] if lo < 0 else []))
    if elem(types[0])._kind == "int":
        a = with_specials(a, [-5, -5, -5, -5])
    return [a, n]


def _gen_bits(types, rng):
    out = []
    for t in types:
        if elem(t)._kind == "bool":
            out.append(gen_value(t, rng))
        else:
            info = np.iinfo(np_dtype(t))
            shape = (N,) + inner_shape(t)  # integer vectors and matrices are componentwise
            out.append(rng.integers(max(info.min, -(2 ** 31)), min(info.max, 2 ** 31 - 1), shape, endpoint=True)
                       .astype(np_dtype(t)))
    return out


def _gen_logical_not(types, rng):
    v = gen_value(types[0], rng)
    if elem(types[0])._kind == "float":
        v = with_specials(v, [0.0, -0.0, np.nan, 1.0, 0.0])
    elif elem(types[0])._kind != "bool":
        v = with_specials(v, [0, 1, 0, 2])
    return [v]


def _gen_normalize(types, rng):
    v = gen_value(types[0], rng)
    if kind(types[0]) == "quaternion":
        v = v * rng.uniform(0.5, 2.0, (N, 1)).astype(v.dtype)
    v[0] = 0  # the zero vector maps to itself
    return [v]


def _gen_argminmax(types, rng):
    v = gen_value(types[0], rng)
    if elem(types[0])._kind != "float":
        v[0] = 4  # all equal: index 0
        v[1, :] = 1
        v[1, -1] = 0
    return [v]


def _gen_well_conditioned(types, rng):
    t = types[0]
    n = t._shape_[0]
    m = np.eye(n) * 2 + rng.uniform(-0.5, 0.5, (N, n, n))
    return [m.astype(np_dtype(t))]


def _gen_axis(types, rng):
    """Unit axes, and (the first half) axes of other lengths: documented to be used as given."""
    axis = rng.normal(size=(N, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    axis[:N // 2] *= rng.uniform(0.3, 3.0, (N // 2, 1))
    return [axis.astype(np_dtype(types[0])), gen_value(types[1], rng, N, -4.0, 4.0)]


def _gen_quat_from_matrix(types, rng):
    t = types[0]
    qs = unit_quats(rng, N)
    qs[0] = [0, 0, 0, 1]          # identity: trace branch
    qs[1] = [1, 0, 0, 0]          # 180 degrees about x: x branch
    qs[2] = [0, 1, 0, 0]          # y branch
    qs[3] = [0, 0, 1, 0]          # z branch
    rs = np.array([rotation_matrix(q) for q in qs])
    if t._shape_ == (4, 4):
        m = rng.uniform(-2, 2, (N, 4, 4))  # only the top-left 3x3 block counts
        m[:, :3, :3] = rs
        rs = m
    return [rs.astype(np_dtype(t))]


def _gen_slerp(types, rng):
    a = unit_quats(rng, N)
    b = unit_quats(rng, N)
    b[0] = a[0]                                  # equal: the series branch
    b[1] = -a[1]                                 # opposite sign: the same rotation
    b[2] = a[2] + 1e-4 * rng.normal(size=4)      # nearly equal
    b[3] = a[3] * 2.5                            # not unit: b is normalised first
    t = gen_value(types[2], rng, N, 0.0, 1.0)
    t[4], t[5] = 0.0, 1.0
    return [a.astype(np_dtype(types[0])), b.astype(np_dtype(types[1])), t]


def _gen_rpy(types, rng):
    return [gen_value(t, rng, N, -3.0, 3.0) for t in types]


def _int_limits(t):
    info = np.iinfo(np_dtype(t))
    return int(info.min), int(info.max)


def _gen_div(types, rng):
    out = _divide(types, rng, allow_zero_int=True)
    t = types[0]
    if kind(t) == "scalar" and kind(types[1]) == "scalar" and t._kind == "int":
        lo, _ = _int_limits(t)
        out[0][5], out[1][5] = lo, -1  # MIN / -1 wraps to MIN, MIN % -1 is 0 (documented)
    return out


def _gen_wrapping(types, rng):
    """Integer add/sub/mul/neg/abs wrap modulo 2^bits (documented): extremes for bare integers."""
    out = [gen_value(t, rng) for t in types]
    if all(kind(t) == "scalar" and t._kind in ("int", "uint") for t in types):
        lo, hi = _int_limits(types[0])
        firsts = [hi, lo, hi, lo] if types[0]._kind == "int" else [hi, 0, hi, 0]
        out[0] = with_specials(out[0], firsts)
        if len(types) == 2:
            seconds = [1, -1, hi, 2] if types[0]._kind == "int" else [1, 1, hi, 2]
            out[1] = with_specials(out[1], seconds)
    return out


@dataclass
class Spec:
    gen: Callable = _default       # gen(arg_types, rng) -> list of input arrays (N entries each)
    tol: float = 1.0               # tolerance multiplier (ill-conditioned builtins)
    compare: Callable | None = None  # compare(got, expected, result_type) -> bool, per element


def _gen_edges(types, rng):
    """Four random points (two segments) and a small epsilon: generically non-parallel edges with a
    unique closest pair."""
    return [gen_value(t, rng) for t in types[:4]] + [np.full(N, 1e-6)]


def _same_up_to_sign(got, exp, tol):
    return min(np.max(np.abs(got - exp)), np.max(np.abs(got + exp))) <= tol


SPECS: dict[str, Spec] = {
    "sqrt": Spec(_uniform(0.0, 4.0, [0.0, 1.0, 4.0])), "cbrt": Spec(_uniform(-8.0, 8.0, [0.0, -8.0, 27.0])),
    "exp": Spec(_uniform(-3.0, 3.0)), "log": Spec(_uniform(0.05, 10.0, [1.0])),
    "log2": Spec(_uniform(0.05, 10.0, [1.0, 8.0])), "log10": Spec(_uniform(0.05, 10.0, [1.0, 100.0])),
    "sin": Spec(_uniform(-4.0, 4.0)), "cos": Spec(_uniform(-4.0, 4.0)), "tan": Spec(_uniform(-1.2, 1.2)),
    "asin": Spec(_uniform(-0.99, 0.99, [1.0, -1.0, 0.0])), "acos": Spec(_uniform(-0.99, 0.99, [1.0, -1.0, 0.0])),
    "atan": Spec(_uniform(-5.0, 5.0)), "sinh": Spec(_uniform(-3.0, 3.0)), "cosh": Spec(_uniform(-3.0, 3.0)),
    "tanh": Spec(_uniform(-3.0, 3.0)), "erf": Spec(_uniform(-3.0, 3.0)),
    "closest_point_edge_edge": Spec(_gen_edges, tol=10.0),
    "degrees": Spec(_uniform(-7.0, 7.0)), "radians": Spec(_uniform(-400.0, 400.0)),
    "floor": Spec(_uniform(-4.0, 4.0, ROUNDING_SPECIALS)), "ceil": Spec(_uniform(-4.0, 4.0, ROUNDING_SPECIALS)),
    "trunc": Spec(_uniform(-4.0, 4.0, ROUNDING_SPECIALS)), "round": Spec(_uniform(-4.0, 4.0, ROUNDING_SPECIALS)),
    "rint": Spec(_uniform(-4.0, 4.0, ROUNDING_SPECIALS)), "frac": Spec(_uniform(-4.0, 4.0, ROUNDING_SPECIALS)),
    "step": Spec(_uniform(-2.0, 2.0, [0.0, -0.0])), "nonzero": Spec(_gen_sign),
    "sign": Spec(_gen_sign), "abs": Spec(lambda types, rng: _gen_wrapping(types, rng) if kind(types[0]) == "scalar"
                                          and types[0]._kind == "int" else _gen_sign(types, rng)),
    "add": Spec(_gen_wrapping), "sub": Spec(_gen_wrapping), "mul": Spec(_gen_wrapping), "neg": Spec(_gen_wrapping),
    "atan2": Spec(lambda types, rng: [with_specials(gen_value(types[0], rng), [0, 1, 0, -1, 1]),
                                      with_specials(gen_value(types[1], rng), [1, 0, -1, 0, 1])]),
    "smoothstep": Spec(_gen_smoothstep), "clamp": Spec(_gen_clamp), "lerp": Spec(_gen_lerp),
    "isnan": Spec(_gen_isnan), "isinf": Spec(_gen_isnan), "isfinite": Spec(_gen_isnan),
    "div": Spec(_gen_div), "div_approx": Spec(_gen_div), "floordiv": Spec(_gen_div), "mod": Spec(_gen_div), "pow": Spec(_gen_pow),
    "cw_div": Spec(lambda types, rng: [gen_value(types[0], rng), nonzero_divisor(types[1], rng)]),
    "eq": Spec(_gen_equal_pairs), "ne": Spec(_gen_equal_pairs),
    "lt": Spec(_gen_equal_pairs), "le": Spec(_gen_equal_pairs), "gt": Spec(_gen_equal_pairs),
    "ge": Spec(_gen_equal_pairs),
    "lshift": Spec(_gen_shift), "rshift": Spec(_gen_shift),
    "bit_and": Spec(_gen_bits), "bit_or": Spec(_gen_bits), "bit_xor": Spec(_gen_bits), "invert": Spec(_gen_bits),
    "logical_not": Spec(_gen_logical_not),
    "where": Spec(_gen_cond_values), "select": Spec(_gen_cond_values),
    "normalize": Spec(_gen_normalize), "argmin": Spec(_gen_argminmax), "argmax": Spec(_gen_argminmax),
    "inverse": Spec(_gen_well_conditioned, tol=30.0), "inverse_approx": Spec(_gen_well_conditioned, tol=30.0), "determinant": Spec(_gen_well_conditioned, tol=10.0),
    "quat_from_axis_angle": Spec(_gen_axis),
    "quat_from_matrix": Spec(_gen_quat_from_matrix, tol=10.0, compare=_same_up_to_sign),
    "quat_slerp": Spec(_gen_slerp, tol=30.0), "quat_rpy": Spec(_gen_rpy),
    "erfc": Spec(_uniform(-3.0, 3.0, [0.0])), "erfinv": Spec(_uniform(-0.95, 0.95, [0.0, 0.5])),
    "erfcinv": Spec(_uniform(0.05, 1.95, [1.0, 0.5])), "bit_count": Spec(_gen_bits),
    "copysign": Spec(lambda types, rng: [gen_value(types[0], rng), with_specials(gen_value(types[1], rng),
                                                                                 [0.0, -0.0, 1.0, -1.0])]),
    **{n: Spec(lambda types, rng: [gen_value(types[0], rng)] + [gen_value(t, rng, N, 0.5, 3.0) for t in types[1:]])
       for n in ("norm_huber", "norm_pseudo_huber", "smooth_normalize")},
}


_SEQUENCES = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]


def _gen_euler_angles(types, rng):
    """Angles inside the canonical ranges (|e[j]| < pi/2 - 0.2, the others in (-pi, pi)) for every sequence."""
    seqs = np.array([_SEQUENCES[n % 6] for n in range(N)])
    e = rng.uniform(-3.0, 3.0, (N, 3))
    e[np.arange(N), seqs[:, 1]] = rng.uniform(-1.3, 1.3, N)
    return e, seqs


def _gen_from_euler(types, rng):
    e, seqs = _gen_euler_angles(types, rng)
    return [e.astype(np_dtype(types[0]))] + [seqs[:, n].astype(np.int32) for n in range(3)]


def _gen_to_euler(types, rng):
    from tests.support.builtin_values import _euler_q
    e, seqs = _gen_euler_angles(types, rng)
    q = np.array([_euler_q(e[n], *seqs[n]) for n in range(N)])
    return [q.astype(np_dtype(types[0]))] + [seqs[:, n].astype(np.int32) for n in range(3)]


def _gen_to_rpy(types, rng):
    from tests.support.builtin_values import _euler_q
    e = rng.uniform(-3.0, 3.0, (N, 3))
    e[:, 1] = rng.uniform(-1.3, 1.3, N)
    return [np.array([_euler_q(x, 0, 1, 2) for x in e]).astype(np_dtype(types[0]))]


def _gen_twist(types, rng):
    axis = rng.normal(size=(N, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    return [axis.astype(np_dtype(types[0])), unit_quats(rng, N).astype(np_dtype(types[1]))]


def _gen_rigid4(types, rng):
    t = types[0]
    m = np.zeros((N, 4, 4))
    m[:, :3, :3] = [rotation_matrix(q) for q in unit_quats(rng, N)]
    m[:, :3, 3] = rng.uniform(-2, 2, (N, 3))
    m[:, 3, 3] = 1
    return [m.astype(np_dtype(t))]


def _transform_up_to_sign(got, exp, tol):
    return np.max(np.abs(got[:3] - exp[:3])) <= tol and _same_up_to_sign(got[3:], exp[3:], tol)


SPECS.update({
    "quat_from_euler": Spec(_gen_from_euler, tol=4.0), "quat_to_euler": Spec(_gen_to_euler, tol=30.0),
    "quat_to_rpy": Spec(_gen_to_rpy, tol=30.0), "quat_twist": Spec(_gen_twist, tol=4.0),
    "quat_twist_angle": Spec(_gen_twist, tol=4.0), "quat_twist_angle_signed": Spec(_gen_twist, tol=4.0),
    "transform_from_matrix": Spec(_gen_rigid4, tol=10.0, compare=_transform_up_to_sign),
})


def spec_for(name: str) -> Spec:
    return SPECS.get(name) or Spec()
