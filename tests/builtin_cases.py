"""Case generation and a small kernel harness for the registry-driven builtin tests
(tests/test_registry.py, tests/test_builtins_e2e.py).

Everything is driven by `warp_nb.registry.BUILTINS`: each overload's type patterns are
instantiated with concrete types (float32/float64 for float variables, int32 (and uint32,
int64 for bare scalars) for integer ones, lengths 2/3/4 for vector lengths, a few shapes for
matrices), inputs are drawn from a safe domain per builtin, and the expected values come from
numpy reference formulas written here (REFS), independent of warp_nb. The builtins'
Python-scope implementations (`b.python`) are checked against the same references.

The harness writes kernel source text to `<dir>/mod_<name>.py`, imports it with importlib (so
`inspect` finds the source), launches every kernel and checks every case; a kernel that does
not compile is split into one kernel per case so that the report names the failing overload.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

import warp_nb as wp
from warp_nb import registry as R
from warp_nb import types as T
from warp_nb.registry import BUILTINS

f32, f64, i32, u32, i64, boolean = wp.float32, wp.float64, wp.int32, wp.uint32, wp.int64, wp.bool

#: threads per generic case (every element is one independent input)
N = 16

#: builtins whose typing is done by the typechecker by name (no overloads in the registry)
SPECIAL_FORMS = {"tid", "printf", "static", "identity", "quat_identity", "transform_identity",
                 "matrix_from_rows", "matrix_from_cols"}

#: builtins that the generic generator does not handle; they have hand-written cases
#: (test_builtins_e2e.py) that declare which overloads they cover
HAND_WRITTEN = {"atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_cas", "atomic_exch",
                "rand_init", "randi", "randu", "randf", "randn", "poisson", "sample_triangle",
                "sample_unit_sphere_surface", "sample_unit_sphere", "sample_unit_hemisphere_surface",
                "sample_unit_hemisphere", "sample_unit_square", "sample_unit_cube", "sample_unit_disk",
                "sample_unit_ring"} | SPECIAL_FORMS

#: the syntax that reaches each operator builtin (tested in addition to the wp.<name>(...) call)
OPERATOR_FORMS = {
    "add": "{0} + {1}", "sub": "{0} - {1}", "mul": "{0} * {1}", "div": "{0} / {1}", "floordiv": "{0} // {1}",
    "mod": "{0} % {1}", "pow": "{0} ** {1}", "matmul": "{0} @ {1}", "neg": "-{0}", "pos": "+{0}",
    "lt": "{0} < {1}", "le": "{0} <= {1}", "gt": "{0} > {1}", "ge": "{0} >= {1}", "eq": "{0} == {1}",
    "ne": "{0} != {1}", "bit_and": "{0} & {1}", "bit_or": "{0} | {1}", "bit_xor": "{0} ^ {1}",
    "lshift": "{0} << {1}", "rshift": "{0} >> {1}", "invert": "~{0}", "logical_not": "not {0}",
    # Python builtins that kernels map to registry builtins
    "min": "min({0}, {1})", "max": "max({0}, {1})", "abs": "abs({0})", "round": "round({0})",
    "len": "len({0})",
}


# --- types --------------------------------------------------------------------------------------


def kind(t) -> str:
    return "scalar" if T.is_scalar_type(t) else T.kind_of(t)


def elem(t):
    return t if T.is_scalar_type(t) else t._wp_scalar_type_


def tname(t) -> str:
    return T.type_name(t)


def type_src(t) -> str:
    """Python source that evaluates to `t` in a module that imported warp_nb as wp."""
    if T.is_scalar_type(t):
        return f"wp.{t.__name__}"
    k, e = T.kind_of(t), type_src(t._wp_scalar_type_)
    if k == "vector":
        return f"wp.types.vector({t._shape_[0]}, {e})"
    if k == "matrix":
        return f"wp.types.matrix(({t._shape_[0]}, {t._shape_[1]}), {e})"
    if k == "quaternion":
        return f"wp.types.quaternion({e})"
    if k == "transformation":
        return f"wp.types.transformation({e})"
    raise TypeError(f"no source for {t!r}")


def np_dtype(t):
    return np.dtype(T.numpy_dtype(t))


def inner_shape(t) -> tuple:
    return tuple(T.numpy_inner_shape(t))


vec = T.vector
mat = T.matrix
quat = T.quaternion
xform = T.transformation


# --- input domains ----------------------------------------------------------------------------


def unit_quats(rng, n):
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def gen_scalar(t, rng, shape, lo=-2.0, hi=2.0):
    k = t._kind
    if k == "float":
        return rng.uniform(lo, hi, shape).astype(t._np)
    if k == "int":
        return rng.integers(-20, 21, shape).astype(t._np)
    if k == "uint":
        return rng.integers(0, 41, shape).astype(t._np)
    return rng.integers(0, 2, shape).astype(bool)


def gen_value(t, rng, n=N, lo=-2.0, hi=2.0):
    """n random values of type t: scalars and vector/matrix entries uniform in [lo, hi)
    (integers in [-20, 20], unsigned in [0, 40]); quaternions of unit length; transforms with
    a unit rotation."""
    k = kind(t)
    if k in ("scalar", "vector", "matrix"):
        return gen_scalar(elem(t), rng, (n,) + inner_shape(t), lo, hi)
    if k == "quaternion":
        return unit_quats(rng, n).astype(np_dtype(t))
    if k == "transformation":
        return np.concatenate([rng.uniform(lo, hi, (n, 3)), unit_quats(rng, n)], axis=1).astype(np_dtype(t))
    raise TypeError(t)


def with_specials(values: np.ndarray, specials) -> np.ndarray:
    """values with its first entries replaced by `specials` (edge cases that must be covered)."""
    out = values.copy()
    flat = out.reshape(len(out), -1)
    sp = np.asarray(specials, dtype=out.dtype)
    flat[:len(sp)] = sp.reshape(len(sp), -1) if sp.ndim > 1 else sp[:, None]
    return out


def nonzero_divisor(t, rng, n=N):
    """Divisors: floats with magnitude in [0.25, 2], integers without 0."""
    v = gen_value(t, rng, n)
    if elem(t)._kind == "float":
        mag = rng.uniform(0.25, 2.0, v.shape)
        return (np.where(rng.integers(0, 2, v.shape) == 1, mag, -mag)).astype(v.dtype)
    v = np.where(v == 0, 3, v).astype(v.dtype)
    return v


def rotation_matrix(q):
    x, y, z, w = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


# --- reference implementations (numpy, float64; integers in Python ints) --------------------


def qmul(a, b):
    """Hamilton product of (x, y, z, w) quaternions."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz])


def qconj(q):
    return np.array([-q[0], -q[1], -q[2], q[3]])


def qrot(q, v):
    return rotation_matrix(q) @ np.asarray(v)


def axis_angle(axis, angle):
    return np.array([*(np.asarray(axis) * math.sin(angle / 2)), math.cos(angle / 2)])


def tmul(a, b):
    return np.array([*(a[:3] + qrot(a[3:], b[:3])), *qmul(a[3:], b[3:])])


def tinv(t):
    qi = qconj(t[3:])
    return np.array([*(-qrot(qi, t[:3])), *qi])


def slerp(a, b, t):
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a @ b < 0:
        b = -b
    b = b / np.linalg.norm(b)
    c = min(1.0, a @ b)
    th = math.acos(c)
    if th < 1e-9:
        return a * (1 - t) + b * t
    return (math.sin((1 - t) * th) * a + math.sin(t * th) * b) / math.sin(th)


def c_div(a: int, b: int) -> int:
    """C integer division (truncation toward zero); 0 for a zero divisor (warp_nb's rule)."""
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def c_mod(a: int, b: int) -> int:
    return 0 if b == 0 else a - b * c_div(a, b)


def py_floordiv(a: int, b: int) -> int:
    return 0 if b == 0 else a // b


def is_int_value(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def elementwise(fn_int, fn_float):
    """A reference that applies fn to scalars, or componentwise (broadcasting scalars) to arrays;
    integer inputs go through fn_int on Python ints."""
    def ref(types, *vals):
        if all(np.ndim(v) == 0 for v in vals):
            if all(is_int_value(v) for v in vals):
                return fn_int(*[int(v) for v in vals])
            return fn_float(*[float(v) for v in vals])
        shape = np.broadcast_shapes(*[np.shape(v) for v in vals])
        arrays = [np.broadcast_to(np.asarray(v), shape) for v in vals]
        out = [ref(types, *[a.flat[i].item() for a in arrays]) for i in range(int(np.prod(shape)))]
        return np.array(out, dtype=object).reshape(shape)
    return ref


def plain(fn):
    return lambda types, *vals: fn(*vals)


def _f(fn):
    """float64 math on one scalar."""
    return plain(lambda x: fn(float(x)))


def _round_away(x):
    return math.copysign(math.floor(abs(x) + 0.5), x)


def _floordiv_float(types, a, b):
    ft = np.float32 if elem(types[0]) is f32 else np.float64
    return float(np.floor(ft(a) / ft(b)))


def _smoothstep(a, b, x):
    if a == b:
        return 0.0 if x < a else 1.0
    u = min(max((x - a) / (b - a), 0.0), 1.0)
    return u * u * (3 - 2 * u)


def _lshift(types, a, n):
    bits = np_dtype(types[0]).itemsize * 8
    return 0 if (n < 0 or n >= bits) else a << n


def _rshift(types, a, n):
    bits = np_dtype(types[0]).itemsize * 8
    return (-1 if a < 0 else 0) if (n < 0 or n >= bits) else a >> n


def _normalize(v):
    v = np.asarray(v, float)
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


def _cw_div(a, b):
    if np.asarray(a).dtype.kind in "iu":
        return np.vectorize(c_div, otypes=[object])(a, b)
    return np.asarray(a, float) / np.asarray(b, float)


def _argminmax(fn):
    return plain(lambda v: int(fn(np.asarray(v))))


def _mat_point(m, x):
    return (np.asarray(m) @ np.array([*x, 1.0]))[:3]


def _mat_vector(m, v):
    return np.asarray(m)[:3, :3] @ np.asarray(v)


_num = elementwise  # shorthand

#: name -> ref, or (name, kinds of the arguments) -> ref; ref(types, *values) with values as Python
#: scalars (ints for integer types) or numpy arrays (float64 / int64 / bool) for composites
REFS: dict = {
    # scalar math
    "sqrt": _f(math.sqrt), "cbrt": _f(lambda x: math.copysign(abs(x) ** (1 / 3), x)), "exp": _f(math.exp),
    "log": _f(math.log), "log2": _f(math.log2), "log10": _f(math.log10), "sin": _f(math.sin), "cos": _f(math.cos),
    "tan": _f(math.tan), "asin": _f(math.asin), "acos": _f(math.acos), "atan": _f(math.atan),
    "sinh": _f(math.sinh), "cosh": _f(math.cosh), "tanh": _f(math.tanh), "erf": _f(math.erf),
    "degrees": _f(lambda x: x * 180 / math.pi), "radians": _f(lambda x: x * math.pi / 180),
    "floor": _f(lambda x: float(math.floor(x))), "ceil": _f(lambda x: float(math.ceil(x))),
    "trunc": _f(lambda x: float(math.trunc(x))), "round": _f(_round_away), "rint": _f(lambda x: float(np.rint(x))),
    "frac": _f(lambda x: x - math.trunc(x)), "step": _f(lambda x: 1.0 if x < 0 else 0.0),
    "nonzero": _num(lambda x: int(x != 0), lambda x: float(x != 0)),
    "atan2": plain(lambda y, x: math.atan2(float(y), float(x))),
    "smoothstep": plain(lambda a, b, x: _smoothstep(float(a), float(b), float(x))),
    "abs": _num(abs, abs),
    "sign": _num(lambda x: -1 if x < 0 else 1, lambda x: -1.0 if x < 0 else 1.0),
    "min": _num(min, min), "max": _num(max, max),
    ("min", ("vector",)): plain(lambda v: np.asarray(v).min()),
    ("max", ("vector",)): plain(lambda v: np.asarray(v).max()),
    "clamp": _num(lambda x, lo, hi: min(max(x, lo), hi), lambda x, lo, hi: min(max(x, lo), hi)),
    "lerp": plain(lambda a, b, t: np.asarray(a, float) * (1 - float(t)) + np.asarray(b, float) * float(t)),
    "isnan": plain(lambda x: bool(np.isnan(x))), "isinf": plain(lambda x: bool(np.isinf(x))),
    "isfinite": plain(lambda x: bool(np.isfinite(x))),
    # operators
    "add": _num(lambda a, b: a + b, lambda a, b: a + b),
    "sub": _num(lambda a, b: a - b, lambda a, b: a - b),
    "mul": _num(lambda a, b: a * b, lambda a, b: a * b),
    ("mul", ("matrix", "vector")): plain(lambda a, b: np.asarray(a) @ np.asarray(b)),
    ("mul", ("vector", "matrix")): plain(lambda a, b: np.asarray(a) @ np.asarray(b)),
    ("mul", ("matrix", "matrix")): plain(lambda a, b: np.asarray(a) @ np.asarray(b)),
    ("mul", ("quaternion", "quaternion")): plain(qmul),
    ("mul", ("transformation", "transformation")): plain(tmul),
    "matmul": plain(lambda a, b: np.asarray(a) @ np.asarray(b)),
    "div": _num(c_div, lambda a, b: a / b),
    "floordiv": lambda types, a, b: (py_floordiv(int(a), int(b)) if is_int_value(a) else _floordiv_float(types, a, b)),
    "mod": _num(c_mod, math.fmod),
    "pow": plain(lambda a, b: float(a) ** float(b)),
    "neg": _num(lambda a: -a, lambda a: -a), "pos": _num(lambda a: a, lambda a: a),
    "lt": plain(lambda a, b: a < b), "le": plain(lambda a, b: a <= b), "gt": plain(lambda a, b: a > b),
    "ge": plain(lambda a, b: a >= b),
    "eq": plain(lambda a, b: bool(np.array_equal(a, b))), "ne": plain(lambda a, b: not np.array_equal(a, b)),
    "bit_and": plain(lambda a, b: a & b), "bit_or": plain(lambda a, b: a | b), "bit_xor": plain(lambda a, b: a ^ b),
    "lshift": lambda types, a, n: _lshift(types, int(a), int(n)),
    "rshift": lambda types, a, n: _rshift(types, int(a), int(n)),
    "invert": plain(lambda a: ~int(a)),
    "logical_not": plain(lambda x: x == 0),
    # vectors
    "dot": plain(lambda a, b: np.dot(a, b)), "cross": plain(lambda a, b: np.cross(a, b)),
    "length": plain(lambda v: np.linalg.norm(np.asarray(v, float))),
    "length_sq": plain(lambda v: np.dot(v, v)),
    "normalize": plain(_normalize),
    "cw_mul": plain(lambda a, b: np.asarray(a) * np.asarray(b)), "cw_div": plain(_cw_div),
    "argmin": _argminmax(np.argmin), "argmax": _argminmax(np.argmax),
    "len": plain(lambda v: len(v)),
    # matrices
    "outer": plain(np.outer), "transpose": plain(np.transpose), "determinant": plain(np.linalg.det),
    "inverse": plain(np.linalg.inv), "trace": plain(np.trace), "diag": plain(np.diag), "get_diag": plain(np.diag),
    "skew": plain(lambda v: np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])),
    "ddot": plain(lambda a, b: np.sum(np.asarray(a) * np.asarray(b))),
    # quaternions
    "quat_from_axis_angle": plain(axis_angle), "quat_rotate": plain(qrot),
    "quat_rotate_inv": plain(lambda q, v: rotation_matrix(q).T @ np.asarray(v)),
    "quat_inverse": plain(qconj), "quat_to_matrix": plain(rotation_matrix),
    "quat_from_matrix": None,  # set below: needs the rotation the matrix was made from
    "quat_rpy": plain(lambda r, p, y: qmul(qmul(axis_angle([0, 0, 1], y), axis_angle([0, 1, 0], p)),
                                           axis_angle([1, 0, 0], r))),
    "quat_slerp": plain(lambda a, b, t: slerp(a, b, float(t))),
    ("dot", ("quaternion", "quaternion")): plain(lambda a, b: float(np.dot(a, b))),
    # transforms
    "transform_get_translation": plain(lambda t: np.asarray(t)[:3]),
    "transform_get_rotation": plain(lambda t: np.asarray(t)[3:]),
    "transform_multiply": plain(tmul),
    "transform_point": plain(lambda t, x: qrot(t[3:], x) + t[:3]),
    ("transform_point", ("matrix", "vector")): plain(_mat_point),
    "transform_vector": plain(lambda t, v: qrot(t[3:], v)),
    ("transform_vector", ("matrix", "vector")): plain(_mat_vector),
    "transform_inverse": plain(tinv),
    # control
    "where": plain(lambda c, a, b: a if c else b),
    "select": plain(lambda c, f, t: t if c else f),
}


def _quat_from_matrix(types, m):
    m = np.asarray(m, float)[:3, :3]
    # the unit quaternion whose rotation matrix is m (any sign): the eigenvector of Bar-Itzhack's K
    k = np.array([[m[0, 0] - m[1, 1] - m[2, 2], m[1, 0] + m[0, 1], m[2, 0] + m[0, 2], m[2, 1] - m[1, 2]],
                  [m[1, 0] + m[0, 1], m[1, 1] - m[0, 0] - m[2, 2], m[2, 1] + m[1, 2], m[0, 2] - m[2, 0]],
                  [m[2, 0] + m[0, 2], m[2, 1] + m[1, 2], m[2, 2] - m[0, 0] - m[1, 1], m[1, 0] - m[0, 1]],
                  [m[2, 1] - m[1, 2], m[0, 2] - m[2, 0], m[1, 0] - m[0, 1], m[0, 0] + m[1, 1] + m[2, 2]]]) / 3
    w, v = np.linalg.eigh(k)
    return v[:, np.argmax(w)]


REFS["quat_from_matrix"] = _quat_from_matrix


def ref_for(name: str, types) -> Callable:
    sig = tuple(kind(t) for t in types)
    ref = REFS.get((name, sig)) or REFS.get(name)
    if ref is None:
        raise KeyError(f"no reference for wp.{name}: add one to REFS in tests/builtin_cases.py")
    return ref


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
    n = rng.integers(lo, bits + 3, N).astype(np_dtype(types[1]))
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
            out.append(rng.integers(max(info.min, -(2 ** 31)), min(info.max, 2 ** 31 - 1), N, endpoint=True)
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
    "div": Spec(_gen_div), "floordiv": Spec(_gen_div), "mod": Spec(_gen_div), "pow": Spec(_gen_pow),
    "cw_div": Spec(lambda types, rng: [gen_value(types[0], rng), nonzero_divisor(types[1], rng)]),
    "eq": Spec(_gen_equal_pairs), "ne": Spec(_gen_equal_pairs),
    "lt": Spec(_gen_equal_pairs), "le": Spec(_gen_equal_pairs), "gt": Spec(_gen_equal_pairs),
    "ge": Spec(_gen_equal_pairs),
    "lshift": Spec(_gen_shift), "rshift": Spec(_gen_shift),
    "bit_and": Spec(_gen_bits), "bit_or": Spec(_gen_bits), "bit_xor": Spec(_gen_bits), "invert": Spec(_gen_bits),
    "logical_not": Spec(_gen_logical_not),
    "where": Spec(_gen_cond_values), "select": Spec(_gen_cond_values),
    "normalize": Spec(_gen_normalize), "argmin": Spec(_gen_argminmax), "argmax": Spec(_gen_argminmax),
    "inverse": Spec(_gen_well_conditioned, tol=30.0), "determinant": Spec(_gen_well_conditioned, tol=10.0),
    "quat_from_axis_angle": Spec(_gen_axis),
    "quat_from_matrix": Spec(_gen_quat_from_matrix, tol=10.0, compare=_same_up_to_sign),
    "quat_slerp": Spec(_gen_slerp, tol=30.0), "quat_rpy": Spec(_gen_rpy),
}


def spec_for(name: str) -> Spec:
    return SPECS.get(name) or Spec()


# --- instantiating overloads --------------------------------------------------------------------

SCALAR_CHOICES = [f32, f64, i32, u32, i64, boolean]  # for a type variable used by bare scalars only
ELEMENT_CHOICES = [f32, f64, i32]                      # for one that is also a composite's element
DIM_PROFILES = {0: [()], 1: [(2,), (3,), (4,)], 2: [(2, 2), (3, 3), (4, 4), (2, 3), (4, 2)],
                3: [(2, 2, 2), (3, 3, 3), (4, 4, 4), (2, 3, 4), (4, 3, 2)]}
#: candidates for AnyType parameters (where/select values, eq/ne of composites)
ANY_CHOICES = [f32, f64, i32, boolean, vec(3, f32), vec(2, f64), vec(4, i32), mat((2, 2), f32), mat((3, 3), f64),
               quat(f32), quat(f64), xform(f32), xform(f64)]


def _collect(p, tvars: dict, dims: list, in_composite=False):
    if isinstance(p, R.Scalar):
        entry = tvars.setdefault(p.var, {"kinds": p.kinds, "elem": False})
        entry["elem"] = entry["elem"] or in_composite
    elif isinstance(p, R.Vec):
        _dim(p.n, dims)
        _collect(p.elem, tvars, dims, True)
    elif isinstance(p, R.Mat):
        _dim(p.r, dims)
        _dim(p.c, dims)
        _collect(p.elem, tvars, dims, True)
    elif isinstance(p, (R.Quat, R.Transform)):
        _collect(p.elem, tvars, dims, True)
    elif isinstance(p, R.AnyType):
        tvars.setdefault(p.var, {"any": p.accept})
    elif isinstance(p, R.Exact):
        pass
    elif isinstance(p, R.Array):
        if isinstance(p.ndim, str):
            tvars.setdefault(p.ndim, {"choices": [1, 2, 3, 4]})
        _collect(p.elem, tvars, dims, True)
    else:
        raise NotImplementedError(f"pattern {type(p).__name__}")


def _dim(d, dims):
    if isinstance(d, str) and d not in dims:
        dims.append(d)


def _choices(var, info):
    if "choices" in info:
        return info["choices"]
    if "any" in info:
        accept = info["any"]
        return [t for t in ANY_CHOICES if accept is None or accept(t)]
    pool = ELEMENT_CHOICES if info["elem"] else SCALAR_CHOICES
    out = [t for t in pool if t._kind in info["kinds"]]
    return out or [t for t in SCALAR_CHOICES if t._kind in info["kinds"]][:1]


def _build(p, b):
    if isinstance(p, R.Scalar):
        return b[p.var]
    if isinstance(p, R.Exact):
        return p.t
    if isinstance(p, R.Vec):
        return vec(p.n if isinstance(p.n, int) else b[p.n], _build(p.elem, b))
    if isinstance(p, R.Mat):
        shape = tuple(d if isinstance(d, int) else b[d] for d in (p.r, p.c))
        return mat(shape, _build(p.elem, b))
    if isinstance(p, R.Quat):
        return quat(_build(p.elem, b))
    if isinstance(p, R.Transform):
        return xform(_build(p.elem, b))
    if isinstance(p, R.AnyType):
        return b[p.var]
    if isinstance(p, R.Array):
        return wp.array(dtype=_build(p.elem, b), ndim=p.ndim if isinstance(p.ndim, int) else b[p.ndim])
    raise NotImplementedError(type(p).__name__)


def _combinations(lists):
    """Every combination of the type choices, or when that is more than 16, a cyclic cover in
    which every choice of every variable appears at least once."""
    if math.prod(len(x) for x in lists) <= 16:
        return list(itertools.product(*lists))
    m = max(len(x) for x in lists)
    return [tuple(x[k % len(x)] for x in lists) for k in range(m)]


@dataclass(frozen=True)
class Instance:
    name: str
    overload: int
    arg_types: tuple
    result: object

    @property
    def id(self) -> str:
        return f"{self.name}({', '.join(tname(t) for t in self.arg_types)})"

    @property
    def has_array(self) -> bool:
        """Array arguments: cases for these are hand-written (atomics, len)."""
        return any(isinstance(t, R.ArrayType) for t in self.arg_types)


def instances(name: str) -> tuple[list, list]:
    """(instances, unreachable): concrete instantiations of every overload of builtin `name`.
    An instantiation that `registry.resolve` sends to another (earlier) overload is not
    reachable as this overload and goes to `unreachable` as (overload index, types)."""
    b = BUILTINS[name]
    out, unreachable, seen = [], [], set()
    for oi, o in enumerate(b.overloads):
        tvars, dims = {}, []
        for p in o.params:
            _collect(p, tvars, dims)
        names = list(tvars)
        for combo in _combinations([_choices(v, tvars[v]) for v in names]):
            for profile in DIM_PROFILES[len(dims)]:
                bind = dict(zip(names, combo))
                bind.update(zip(dims, profile))
                types = tuple(_build(p, bind) for p in o.params)
                if types in seen:
                    continue
                seen.add(types)
                res = R.resolve(b, list(types))
                if res is None or res.overload is not o:
                    unreachable.append((oi, types))
                    continue
                out.append(Instance(name, oi, types, res.result))
    return out, unreachable


# --- cases and the harness ------------------------------------------------------------------------


@dataclass
class Param:
    key: str
    type: object
    data: np.ndarray | None = None   # None: an output of `shape`, zero-filled
    shape: tuple = (N,)

    @property
    def ndim(self):
        return len(self.shape) if self.data is None else self.data.ndim - len(inner_shape(self.type))


@dataclass
class Case:
    id: str
    builtin: str
    params: list
    body: Callable[[dict], str]   # names (param key -> kernel argument name, "_" -> local prefix) -> statements
    check: Callable[[dict], list]  # results (param key -> numpy array after the launch) -> error strings
    dim: object = N
    covers: tuple = ()             # (builtin, overload index) pairs this case exercises
    source: str = field(default="", repr=False)  # the kernel text, filled by the harness


TOL = {f32: 4e-6, f64: 1e-12}


def values_close(got, exp, rtype, tol_mult=1.0, compare=None) -> bool:
    e = elem(rtype)
    got = np.asarray(got)
    if e._kind == "bool":
        return bool(np.array_equal(got.astype(bool), np.asarray(exp, dtype=bool)))
    if e._kind in ("int", "uint"):
        exp_i = np.asarray(exp, dtype=object).reshape(got.shape)
        bits = np_dtype(e).itemsize * 8
        wrap = np.vectorize(lambda v: _wrap_int(int(v), bits, e._kind == "int"), otypes=[object])
        return bool(np.array_equal(wrap(got.astype(object)), wrap(exp_i)))
    exp_f = np.asarray(np.asarray(exp, dtype=object).astype(np.float64)).reshape(got.shape)
    got_f = got.astype(np.float64)
    tol = TOL.get(e, 1e-3) * tol_mult * (1 + np.max(np.abs(np.where(np.isfinite(exp_f), exp_f, 0))))
    if compare is not None:
        return bool(compare(got_f, exp_f, tol))
    same_special = (np.isnan(exp_f) & np.isnan(got_f)) | (np.isinf(exp_f) & (got_f == exp_f))
    ok = same_special | (np.abs(got_f - exp_f) <= tol)
    return bool(np.all(ok))


def _wrap_int(v: int, bits: int, signed: bool) -> int:
    v &= (1 << bits) - 1
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


def to_ref_value(x, t):
    """An input element as the references take it: Python scalars, numpy arrays for composites."""
    if T.is_scalar_type(t):
        return x.item() if hasattr(x, "item") else x
    a = np.asarray(x)
    return a.astype(np.int64) if a.dtype.kind in "iu" else (a if a.dtype == bool else a.astype(np.float64))


def call_text(name: str, args: list, form: str) -> str:
    if form == "op":
        return OPERATOR_FORMS[name].format(*args)
    return f"wp.{name}({', '.join(args)})"


def generic_case(inst: Instance, form: str, rng) -> Case:
    spec = spec_for(inst.name)
    inputs = spec.gen(list(inst.arg_types), rng)
    params = [Param(f"a{k}", t, np.ascontiguousarray(v)) for k, (t, v) in enumerate(zip(inst.arg_types, inputs))]
    params.append(Param("out", inst.result, None, (N,)))
    ref = ref_for(inst.name, inst.arg_types)
    case_id = inst.id + ("@op" if form == "op" else "")

    def body(names):
        args = [f"{names[f'a{k}']}[i]" for k in range(len(inst.arg_types))]
        return f"{names['out']}[i] = {call_text(inst.name, args, form)}"

    def check(results):
        errors = []
        got = results["out"]
        for i in range(N):
            vals = [to_ref_value(inputs[k][i], t) for k, t in enumerate(inst.arg_types)]
            try:
                exp = ref(inst.arg_types, *vals)
            except (ValueError, ZeroDivisionError, OverflowError) as e:  # outside the reference's domain
                errors.append(f"element {i}: reference failed on {vals}: {e}")
                continue
            if not values_close(got[i], exp, inst.result, spec.tol, spec.compare):
                errors.append(f"element {i}: inputs {_show(vals)} -> got {_show(got[i])}, expected {_show(exp)}")
        return errors

    # Python's len(v) of a vector is folded to a constant by the typechecker: not the builtin
    folded = inst.name == "len" and form == "op" and kind(inst.arg_types[0]) != "scalar"
    return Case(case_id, inst.name, params, body, check, covers=() if folded else ((inst.name, inst.overload),))


def _show(v):
    if isinstance(v, list):
        return "(" + ", ".join(_show(x) for x in v) + ")"
    a = np.asarray(v, dtype=object) if not isinstance(v, np.ndarray) else v
    if a.ndim == 0:
        return repr(a.item() if hasattr(a, "item") else a)
    return np.array2string(np.asarray(a, dtype=float) if a.dtype == object else a, precision=9, separator=", ")


def generic_cases(name: str, seed: int = 0) -> list:
    """Every instantiation of builtin `name`, called as wp.<name>(...) (when exported) and with
    its operator syntax (for operators)."""
    b = BUILTINS[name]
    insts = [inst for inst in instances(name)[0] if not inst.has_array]
    forms = (["call"] if b.export else []) + (["op"] if name in OPERATOR_FORMS else [])
    rng = np.random.default_rng(seed + _stable(name))
    return [generic_case(inst, form, rng) for inst in insts for form in forms
            if not (form == "op" and not _op_applies(name, inst))]


def _op_applies(name, inst) -> bool:
    # min/max/abs/round: Python's builtins map to the registry builtin with the same arguments
    return not (name in ("min", "max") and len(inst.arg_types) == 1)


def _stable(s: str) -> int:
    return sum((k + 1) * ord(c) for k, c in enumerate(s))


# --- module source, compile, launch -------------------------------------------------------------


class KernelModule:
    """Kernel source text for groups of cases; each group is one kernel."""

    def __init__(self, groups: list):
        self.groups = groups
        self.aliases: dict = {}
        self.kernel_sources: list = []

    def alias(self, t) -> str:
        src = type_src(t)
        if src.startswith("wp.") and "(" not in src:
            return src
        if src not in self.aliases:
            self.aliases[src] = f"_T{len(self.aliases)}"
        return self.aliases[src]

    def source(self) -> str:
        kernels = []
        for g, cases in enumerate(self.groups):
            params, lines = [], []
            for c, case in enumerate(cases):
                names = {"_": f"c{c}_"}
                for p in case.params:
                    pname = f"c{c}_{p.key}"
                    names[p.key] = pname
                    nd = p.ndim
                    ndim = f", ndim={nd}" if nd > 1 else ""
                    params.append(f"{pname}: wp.array(dtype={self.alias(p.type)}{ndim})")
                body = case.body(names)
                lines.append(f"    # {case.id}")
                lines += ["    " + ln for ln in body.splitlines()]
            dims = {case.dim for case in cases}
            assert len(dims) == 1, "the cases of one kernel share the launch dimension"
            dim = dims.pop()
            tid = "i = wp.tid()" if not isinstance(dim, tuple) else f"{', '.join('ijkl'[:len(dim)])} = wp.tid()"
            text = ["@wp.kernel", f"def k{g}(", *[f"    {p}," for p in params], "):", f"    {tid}", *lines, ""]
            self.kernel_sources.append("\n".join(text))
        head = ["import warp_nb as wp", ""] + [f"{a} = {s}" for s, a in self.aliases.items()] + ["", ""]
        return "\n".join(head) + "\n\n".join(self.kernel_sources)


def import_source(path: Path, source: str):
    path.write_text(source)
    name = f"{path.stem}_{uuid.uuid4().hex[:8]}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def make_arrays(case: Case) -> list:
    arrays = []
    for p in case.params:
        if p.data is None:
            arrays.append(wp.zeros(p.shape, dtype=p.type))
        else:
            arrays.append(wp.array(p.data, dtype=p.type))
    return arrays


def run_cases(cases: list, directory: Path, name: str, per_kernel: int = 12) -> dict:
    """Compile and run `cases` (grouped `per_kernel` to a kernel, by launch dimension) from a
    module written to directory/mod_<name>.py. Returns {case id: list of error strings}
    (empty when the case passed). A kernel that fails to build is retried one case per kernel."""
    by_dim: dict = {}
    for c in cases:
        by_dim.setdefault(c.dim, []).append(c)
    groups = [g[k:k + per_kernel] for g in by_dim.values() for k in range(0, len(g), per_kernel)]
    results = _run_groups(groups, directory, name)
    retry = [g for g in groups if len(g) > 1 and any(_is_build_error(results[c.id]) for c in g)]
    if retry:
        singles = [[c] for g in retry for c in g]
        results.update(_run_groups(singles, directory, name + "_isolated"))
    return results


def _is_build_error(errors) -> bool:
    return bool(errors) and errors[0].startswith("BUILD ")


def _run_groups(groups, directory: Path, name: str) -> dict:
    module_text = KernelModule(groups)
    source = module_text.source()
    module = import_source(directory / f"mod_{name}.py", source)
    results = {}
    for g, cases in enumerate(groups):
        kernel = getattr(module, f"k{g}")
        for c in cases:
            c.source = module_text.kernel_sources[g]
        arrays = [a for c in cases for a in make_arrays(c)]
        try:
            wp.launch(kernel, dim=cases[0].dim, inputs=arrays)
        except wp.KernelError as e:
            for c in cases:
                results[c.id] = [f"BUILD {type(e).__name__}: {e}"]
            continue
        k = 0
        for c in cases:
            res = {}
            for p in c.params:
                res[p.key] = arrays[k].numpy().copy()
                k += 1
            try:
                results[c.id] = c.check(res)
            except Exception as e:  # a broken check is a failure of that case, not of the batch
                results[c.id] = [f"CHECK {type(e).__name__}: {e}"]
    return results


def compile_call(name: str, arg_types, directory: Path, form: str = "call"):
    """A compiled kernel, built from source text written to directory/mod_<name>.py, that computes
    out[i] = wp.<name>(a0[i], a1[i], ...) (or the operator syntax, form="op") for arrays of
    `arg_types`. Returns (kernel, result type, kernel source). The batch harness (run_cases) builds
    its kernels the same way, many cases to a kernel."""
    b = BUILTINS[name]
    res = R.resolve(b, list(arg_types))
    if res is None:
        raise TypeError(f"wp.{name} has no overload for ({', '.join(tname(t) for t in arg_types)})")
    inst = Instance(name, b.overloads.index(res.overload), tuple(arg_types), res.result)
    case = generic_case(inst, form, np.random.default_rng(0))
    module_text = KernelModule([[case]])
    module = import_source(directory / f"mod_{name}.py", module_text.source())
    wp.load_module(module.__name__)
    return module.k0, res.result, module_text.kernel_sources[0]


# --- Python-scope implementations ------------------------------------------------------------------


def to_python_value(x, t):
    """An input element as Python scope passes it to wp.<name>(): numbers, or wp vector/matrix/
    quaternion/transform instances."""
    if T.is_scalar_type(t):
        return x.item() if hasattr(x, "item") else x
    return t._from_numpy(np.asarray(x))


def from_python_value(v):
    if isinstance(v, wp.types.Composite):
        return np.asarray(v)
    if isinstance(v, wp.types.Scalar):
        return v.value
    return v


def python_scope_errors(inst: Instance, seed: int = 0) -> list:
    """Errors of the builtin's Python-scope implementation (b.python) against the reference, on
    the inputs the kernel case uses."""
    b = BUILTINS[inst.name]
    spec = spec_for(inst.name)
    inputs = spec.gen(list(inst.arg_types), np.random.default_rng(seed + _stable(inst.name)))
    ref = ref_for(inst.name, inst.arg_types)
    errors = []
    for i in range(N):
        vals = [to_ref_value(inputs[k][i], t) for k, t in enumerate(inst.arg_types)]
        args = [to_python_value(inputs[k][i], t) for k, t in enumerate(inst.arg_types)]
        exp = ref(inst.arg_types, *vals)
        try:
            got = from_python_value(b.python(*args))
        except Exception as e:
            errors.append(f"element {i}: wp.{inst.name}{_show(vals)} raised {type(e).__name__}: {e}")
            continue
        if np.shape(got) != np.shape(exp) or not values_close(np.asarray(got), exp, inst.result, spec.tol,
                                                              spec.compare):
            errors.append(f"element {i}: wp.{inst.name}{_show(vals)} -> {_show(got)}, expected {_show(exp)}")
    return errors


# --- hand-written cases: arrays, atomics, random numbers, special forms ------------------------------


def covers_of(name: str, arg_types) -> tuple:
    b = BUILTINS[name]
    res = R.resolve(b, list(arg_types))
    return ((name, b.overloads.index(res.overload)),) if res is not None else ()


def _as_ref_array(a, t):
    """A whole numpy array as reference values (object ints for integer types)."""
    return a.astype(object) if elem(t)._kind in ("int", "uint") else a.astype(np.float64)


ARRAY_SHAPES = {1: (16,), 2: (4, 4), 3: (2, 2, 4), 4: (2, 2, 2, 2)}


def _unravel(shape) -> str:
    """Index expressions for thread i of a 1-D launch over an array of `shape` (row-major)."""
    out, stride = [], 1
    for n in reversed(shape):
        out.append(f"(i // {stride}) % {n}" if stride > 1 else f"i % {n}")
        stride *= n
    out = list(reversed(out))
    out[0] = f"i // {stride // shape[0]}" if len(shape) > 1 else "i"
    return ", ".join(out)


def len_cases() -> list:
    cases = []
    rng = np.random.default_rng(7)
    for ndim, (t, shape) in {1: (f32, (5,)), 2: (vec(3, f32), (3, 4)), 3: (i32, (2, 3, 4)),
                             4: (f64, (6, 1, 1, 2))}.items():
        data = gen_value(t, rng, int(np.prod(shape))).reshape(shape + inner_shape(t))
        for form in ("call", "op"):
            def body(names, form=form):
                return f"{names['out']}[i] = {'wp.len' if form == 'call' else 'len'}({names['arr']})"

            def check(res, n=shape[0]):
                return [] if np.all(res["out"] == n) else [f"got {res['out']}, expected {n} everywhere"]
            cid = f"len(array(dtype={tname(t)}, ndim={ndim}))" + ("@op" if form == "op" else "")
            cases.append(Case(cid, "len", [Param("arr", t, data), Param("out", i32)], body, check,
                              covers=covers_of("len", [wp.array(dtype=t, ndim=ndim)])))
    return cases


ATOMIC_TYPES = {
    "atomic_add": [f32, f64, i32, u32, i64, vec(3, f32), vec(2, i32), mat((2, 2), f64)],
    "atomic_min": [f32, f64, i32, u32, i64, vec(3, f32), vec(2, i32)],
    "atomic_cas": [f32, f64, i32, u32, i64],
}
ATOMIC_TYPES["atomic_sub"] = ATOMIC_TYPES["atomic_add"]
ATOMIC_TYPES["atomic_max"] = ATOMIC_TYPES["atomic_min"]
ATOMIC_TYPES["atomic_exch"] = ATOMIC_TYPES["atomic_cas"]


def _atomic_apply(op, old, v, cmp=None):
    if op == "atomic_add":
        return old + v
    if op == "atomic_sub":
        return old - v
    if op == "atomic_min":
        return np.minimum(old, v) if old.dtype != object else np.where(old < v, old, v)
    if op == "atomic_max":
        return np.maximum(old, v) if old.dtype != object else np.where(old > v, old, v)
    if op == "atomic_exch":
        return v
    if op == "atomic_cas":
        return np.where(old == cmp, v, old)
    raise ValueError(op)


def atomic_cases(op: str) -> list:
    """Each thread updates its own element (old value and result exact), for 1- to 4-D arrays,
    plus 16 threads contending for 4 elements (final values; the old values must chain)."""
    cases = []
    rng = np.random.default_rng(_stable(op))
    for t in ATOMIC_TYPES[op]:
        for ndim in ((1, 2, 3, 4) if t in (f32, i32) else (1, 3)):  # every ndim for two types
            shape = ARRAY_SHAPES[ndim]
            init = gen_value(t, rng).reshape(shape + inner_shape(t))
            val = gen_value(t, rng)
            params = [Param("arr", t, init), Param("val", t, val), Param("old", t)]
            cmp = None
            if op == "atomic_cas":
                cmp = init.reshape((N,) + inner_shape(t)).copy()
                cmp[1::2] = cmp[1::2] + 1  # odd threads compare with a different value: no store
                params.insert(2, Param("cmp", t, cmp))
            idx = _unravel(shape)
            arg_types = [wp.array(dtype=t, ndim=ndim)] + [i32] * ndim + [t] * (2 if op == "atomic_cas" else 1)
            forms = ["call"] + (["op"] if op in ("atomic_add", "atomic_sub") else [])
            for form in forms:
                def body(names, idx=idx, form=form):
                    if form == "op":
                        return f"{names['arr']}[{idx}] {'+' if op == 'atomic_add' else '-'}= {names['val']}[i]"
                    args = f"{names['cmp']}[i], {names['val']}[i]" if op == "atomic_cas" else f"{names['val']}[i]"
                    return f"{names['old']}[i] = wp.{op}({names['arr']}, {idx}, {args})"

                def check(res, t=t, init=init, val=val, cmp=cmp, form=form):
                    errors = []
                    flat_init = init.reshape((N,) + inner_shape(t))
                    if form == "call" and not np.array_equal(res["old"], flat_init, equal_nan=True):
                        errors.append(f"old values {res['old'].tolist()} != initial {flat_init.tolist()}")
                    exp = _atomic_apply(op, _as_ref_array(flat_init, t), _as_ref_array(val, t),
                                        None if cmp is None else _as_ref_array(cmp, t))
                    got = res["arr"].reshape((N,) + inner_shape(t))
                    bad = [i for i in range(N) if not values_close(got[i], exp[i], t)]
                    if bad:
                        errors.append("final values wrong at " + ", ".join(
                            f"{i}: got {_show(got[i])}, expected {_show(exp[i])}" for i in bad[:4]))
                    return errors
                cid = f"{op}(array(dtype={tname(t)}, ndim={ndim}))" + ("@op" if form == "op" else "")
                cases.append(Case(cid, op, [Param(p.key, p.type, None if p.data is None else p.data.copy(), p.shape)
                                             for p in params], body, check, covers=covers_of(op, arg_types)))
    cases += _contended_atomic_cases(op, rng)
    return cases


def _contended_atomic_cases(op, rng) -> list:
    cases = []
    for t in ATOMIC_TYPES[op]:
        scalar = kind(t) == "scalar"
        init = gen_value(t, rng, 4)
        if scalar and t._kind != "float":
            # distinct powers of two: every partial sum is distinct, so the old values must chain
            val = np.array([1 << (i // 4) for i in range(N)], dtype=np_dtype(t))
            if op in ("atomic_exch", "atomic_cas"):
                val = np.arange(100, 100 + N).astype(np_dtype(t))
        else:
            val = gen_value(t, rng) if op not in ("atomic_exch", "atomic_cas") else \
                (0.5 + np.arange(N)).astype(np_dtype(t))
        params = [Param("arr", t, init.copy()), Param("val", t, val), Param("old", t)]
        if op == "atomic_cas":
            cmp = init[np.arange(N) % 4]
            params.insert(2, Param("cmp", t, cmp))

        def body(names):
            args = f"{names['cmp']}[i], {names['val']}[i]" if op == "atomic_cas" else f"{names['val']}[i]"
            return f"{names['old']}[i] = wp.{op}({names['arr']}, i % 4, {args})"

        def check(res, t=t, init=init, val=val):
            errors = []
            for s in range(4):
                threads = [i for i in range(N) if i % 4 == s]
                vs = [_as_ref_array(val[i], t) for i in threads]
                olds = [res["old"][i] for i in threads]
                final = res["arr"][s]
                start = _as_ref_array(init[s], t)
                if op in ("atomic_add", "atomic_sub", "atomic_min", "atomic_max"):
                    exp = start
                    for v in vs:
                        exp = _atomic_apply(op, np.asarray(exp), np.asarray(v))
                    if not values_close(final, exp, t, 4.0):
                        errors.append(f"slot {s}: final {_show(final)}, expected {_show(exp)}")
                if op in ("atomic_add", "atomic_sub") and scalar and t._kind in ("int", "uint"):
                    news = [_atomic_apply(op, np.asarray(o, dtype=object), np.asarray(v)) for o, v in zip(olds, vs)]
                    errors += _chain(s, start, threads, olds, news, final, t)
                if op == "atomic_exch":
                    errors += _chain(s, start, threads, olds, vs, final, t)
                if op == "atomic_cas":
                    winners = [k for k, o in enumerate(olds) if o == init[s]]
                    if len(winners) != 1:
                        errors.append(f"slot {s}: {len(winners)} threads saw the initial value (expected 1)")
                    elif final != val[threads[winners[0]]] or any(o != final for k, o in enumerate(olds)
                                                                  if k != winners[0]):
                        errors.append(f"slot {s}: final {final}, olds {olds}, values {vs}")
            return errors
        cid = f"{op}(array(dtype={tname(t)}, ndim=1)) contended"
        cases.append(Case(cid, op, params, body, check,
                          covers=covers_of(op, [wp.array(dtype=t)] + [i32] + [t] * (2 if op == "atomic_cas" else 1))))
    return cases


REDUCTION_TYPES = [f32, f64, i32, u32, i64, vec(3, f32), mat((2, 2), f64)]


def reduction_cases(op: str) -> list:
    """atomic_add/atomic_sub into constant elements with the result unused (`a[0] += x`): the
    CPU code privatises these (partial sums per chunk); 1-D launches of a size that is no
    multiple of the 16 lanes, a 2-D launch, and two reductions into one array."""
    rng = np.random.default_rng(_stable(op) + 1)
    sign = 1 if op == "atomic_add" else -1
    sym = "+" if op == "atomic_add" else "-"
    cases = []
    for t in REDUCTION_TYPES:
        for dim in (1001, (37, 5)):
            count = int(np.prod(dim))
            val = gen_value(t, rng, count)
            init = gen_value(t, rng, 6).reshape((2, 3) + inner_shape(t))
            two_d = isinstance(dim, tuple)
            forms = ("call", "op") if not two_d else ("op",)
            for form in forms:
                def body(names, form=form, two_d=two_d):
                    v = f"{names['val']}[i * 5 + j]" if two_d else f"{names['val']}[i]"
                    if form == "op":
                        return f"{names['arr']}[1, 2] {sym}= {v}\n{names['arr']}[0, 0] {sym}= {v}"
                    return f"wp.{op}({names['arr']}, 1, 2, {v})\nwp.{op}({names['arr']}, 0, 0, {v})"

                def check(res, t=t, init=init, val=val):
                    v = _as_ref_array(val, t)
                    total = v.sum(axis=0)
                    got = res["arr"]
                    errors = []
                    scale = np.abs(val.astype(np.float64)).sum(axis=0) if elem(t)._kind == "float" else 0
                    for (r, c) in ((1, 2), (0, 0)):
                        exp = _as_ref_array(init[r, c], t) + sign * total
                        tol = {f32: 2e-6, f64: 1e-14}.get(elem(t), 0) * (np.max(scale) + 1)
                        ok = values_close(got[r, c], exp, t) if not tol else \
                            bool(np.all(np.abs(got[r, c].astype(np.float64) - exp.astype(np.float64)) <= tol))
                        if not ok:
                            errors.append(f"element [{r}, {c}]: got {_show(got[r, c])}, expected {_show(exp)}")
                    untouched = [(r, c) for r in range(2) for c in range(3) if (r, c) not in ((1, 2), (0, 0))
                                 and not np.array_equal(got[r, c], init[r, c])]
                    if untouched:
                        errors.append(f"elements {untouched} changed")
                    return errors
                arr = Param("arr", t, init.copy())
                cid = (f"{op}(array(dtype={tname(t)}, ndim=2)) reduction into constants, dim={dim}"
                       + ("@op" if form == "op" else ""))
                cases.append(Case(cid, op, [arr, Param("val", t, val)], body, check, dim=dim,
                                  covers=covers_of(op, [wp.array(dtype=t, ndim=2), i32, i32, t])))
    return cases


def _chain(slot, start, threads, olds, news, final, t) -> list:
    """The old values seen by the threads of one slot must form one chain init -> ... -> final."""
    bits = np_dtype(t).itemsize * 8
    norm = (lambda v: _wrap_int(int(v), bits, t._kind == "int")) if t._kind != "float" else float
    pending = list(range(len(threads)))
    cur = norm(start)
    for _ in range(len(threads)):
        nxt = [k for k in pending if norm(olds[k]) == cur]
        if not nxt:
            return [f"slot {slot}: the old values {[norm(o) for o in olds]} do not chain from {norm(start)}"]
        pending.remove(nxt[0])
        cur = norm(news[nxt[0]])
    return [] if cur == norm(final) else [f"slot {slot}: chain ends at {cur}, array holds {final}"]


# random numbers: the documented algorithm of native/random.h (a Weyl counter hashed by rng_mix)

M32 = 0xFFFFFFFF
RNG_STEP = 0x9E3779B9


def rng_mix(x: int) -> int:
    x ^= x >> 16
    x = (x * 0x21F0AAAD) & M32
    x ^= x >> 15
    x = (x * 0xD35A2D97) & M32
    x ^= x >> 15
    return x


def ref_rand_init(seed: int, offset: int = 0) -> int:
    return rng_mix((rng_mix((seed & M32) ^ 0x5851F42D) + (offset & M32) * 0x632BE5AB) & M32)


def ref_randu(state: int):
    state = (state + RNG_STEP) & M32
    return state, rng_mix(state)


def ref_draw(name: str, state: int, *bounds):
    """(new state, value) of one documented draw."""
    if name == "randu":
        state, r = ref_randu(state)
        if bounds:
            lo, hi = bounds
            return state, lo if hi <= lo else lo + ((r * (hi - lo)) >> 32)
        return state, r
    if name == "randi":
        state, r = ref_randu(state)
        if bounds:
            lo, hi = bounds
            if hi <= lo:
                return state, lo
            span = ((hi & M32) - (lo & M32)) & M32
            return state, _wrap_int((lo & M32) + ((r * span) >> 32), 32, True)
        return state, _wrap_int(r, 32, True)
    if name == "randf":
        state, r = ref_randu(state)
        u = np.float32((r >> 8) * 2.0 ** -24)
        if bounds:
            lo, hi = np.float32(bounds[0]), np.float32(bounds[1])
            return state, float(lo + (hi - lo) * u)
        return state, float(u)
    if name == "randn":
        state, u1 = ref_draw("randf", state)
        state, u2 = ref_draw("randf", state)
        return state, math.sqrt(-2 * math.log(1 - u1)) * math.cos(2 * math.pi * u2)
    raise ValueError(name)


def rand_init_cases() -> list:
    rng = np.random.default_rng(11)
    seeds = rng.integers(-2 ** 31, 2 ** 31, N).astype(np.int32)
    offsets = rng.integers(-1000, 1000, N).astype(np.int32)
    cases = []
    for nargs in (1, 2):
        def body(names, nargs=nargs):
            args = names["seed"] + "[i]" + (f", {names['off']}[i]" if nargs == 2 else "")
            return f"{names['out']}[i] = wp.rand_init({args})"

        def check(res, nargs=nargs):
            exp = [ref_rand_init(int(s), int(o) if nargs == 2 else 0) for s, o in zip(seeds, offsets)]
            return [] if res["out"].tolist() == exp else [f"got {res['out'].tolist()}, expected {exp}"]
        params = [Param("seed", i32, seeds), Param("off", i32, offsets), Param("out", u32)]
        cases.append(Case(f"rand_init({', '.join(['int32'] * nargs)})", "rand_init", params, body, check,
                          covers=covers_of("rand_init", [i32] * nargs)))
    return cases


def draw_cases(name: str) -> list:
    """Two draws from a given state: values follow the documented algorithm and the state
    argument is advanced in place."""
    rng = np.random.default_rng(_stable(name))
    states = rng.integers(0, 2 ** 32, N, dtype=np.uint64).astype(np.uint32)
    rtype = {"randu": u32, "randi": i32, "randf": f32, "randn": f32}[name]
    variants = [()]
    if name in ("randu", "randi", "randf"):
        if name == "randf":
            lo = rng.uniform(-3, 0, N).astype(np.float32)
            hi = rng.uniform(0.5, 3, N).astype(np.float32)
        elif name == "randi":
            lo = rng.integers(-100, 0, N).astype(np.int32)
            hi = rng.integers(-50, 100, N).astype(np.int32)   # some hi <= lo: returns lo
            hi[0], lo[1], hi[1] = lo[0], -2 ** 31, 2 ** 31 - 1
        else:
            lo = rng.integers(0, 100, N).astype(np.uint32)
            hi = rng.integers(50, 2 ** 32, N, dtype=np.uint64).astype(np.uint32)
            hi[0] = lo[0]
        variants.append((lo, hi))
    bound_t = {"randu": u32, "randi": i32, "randf": f32}.get(name)
    cases = []
    for bounds in variants:
        params = [Param("state", u32, states), Param("out1", rtype), Param("out2", rtype), Param("after", u32)]
        if bounds:
            params += [Param("lo", bound_t, bounds[0]), Param("hi", bound_t, bounds[1])]

        def body(names, bounds=bounds):
            extra = f", {names['lo']}[i], {names['hi']}[i]" if bounds else ""
            s = names["_"] + "s"
            return (f"{s} = {names['state']}[i]\n{names['out1']}[i] = wp.{name}({s}{extra})\n"
                    f"{names['out2']}[i] = wp.{name}({s}{extra})\n{names['after']}[i] = {s}")

        def check(res, bounds=bounds):
            errors = []
            for i in range(N):
                b = tuple(x[i].item() for x in bounds)
                st, v1 = ref_draw(name, int(states[i]), *b)
                st, v2 = ref_draw(name, st, *b)
                got = (res["out1"][i].item(), res["out2"][i].item(), int(res["after"][i]))
                if got[2] != st:
                    errors.append(f"element {i}: state after two draws {got[2]}, expected {st}")
                if not (values_close(got[0], v1, rtype, 3.0) and values_close(got[1], v2, rtype, 3.0)):
                    errors.append(f"element {i}: draws {got[:2]}, expected {(v1, v2)} (state {states[i]}, bounds {b})")
            return errors
        arg_types = [u32] + ([bound_t, bound_t] if bounds else [])
        cid = f"{name}({', '.join(tname(t) for t in arg_types)})"
        cases.append(Case(cid, name, params, body, check, covers=covers_of(name, arg_types)))
    return cases


STAT_N = 4096


def _stat_case(cid, name, arg_types, call, rtype, check, extra_params=()):
    params = [Param("out", rtype, None, (STAT_N,)), *extra_params]

    def body(names):
        s = names["_"] + "s"
        return f"{s} = wp.rand_init(1234, i)\n{names['out']}[i] = {call.format(s=s, **names)}"
    return Case(cid, name, params, body, check, dim=STAT_N, covers=covers_of(name, arg_types))


def _stats(cond_msgs):
    return [msg for ok, msg in cond_msgs if not ok]


def statistical_cases(name: str) -> list:
    """Distribution properties over 4096 threads (fixed seeds: deterministic)."""
    if name == "randf":
        def check(res):
            x = res["out"]
            return _stats([(x.min() >= 0 and x.max() < 1, f"range [{x.min()}, {x.max()}]"),
                           (abs(x.mean() - 0.5) < 0.02, f"mean {x.mean()}"),
                           (len(np.unique(x)) > STAT_N * 0.99, f"{len(np.unique(x))} distinct values")])
        return [_stat_case("randf(uint32) distribution", name, [u32], "wp.randf({s})", f32, check)]
    if name == "randn":
        def check(res):
            x = res["out"].astype(np.float64)
            return _stats([(abs(x.mean()) < 0.07, f"mean {x.mean()}"), (abs(x.std() - 1) < 0.06, f"std {x.std()}"),
                           (np.all(np.abs(x) <= 5.8), f"max |x| {np.abs(x).max()}")])
        return [_stat_case("randn(uint32) distribution", name, [u32], "wp.randn({s})", f32, check)]
    if name == "randi":
        def check(res):
            x = res["out"]
            return _stats([(x.min() >= -7 and x.max() < 9, f"range [{x.min()}, {x.max()}]"),
                           (set(np.unique(x).tolist()) == set(range(-7, 9)), "not every value drawn"),
                           (abs(x.mean() - 0.5) < 0.3, f"mean {x.mean()}")])
        return [_stat_case("randi(uint32, int32, int32) distribution", name, [u32, i32, i32], "wp.randi({s}, -7, 9)",
                           i32, check)]
    if name == "randu":
        def check(res):
            x = res["out"].astype(np.float64)
            return _stats([(abs(x.mean() / 2 ** 32 - 0.5) < 0.02, f"mean {x.mean() / 2 ** 32} of 2^32")])
        return [_stat_case("randu(uint32) distribution", name, [u32], "wp.randu({s})", u32, check)]
    if name == "poisson":
        cases = []
        for lam in (0.0, 3.5, 40.0):
            def check(res, lam=lam):
                x = res["out"].astype(np.float64)
                if lam == 0:
                    return [] if np.all(x == 0) else [f"lam 0 gave {np.unique(x)}"]
                return _stats([(abs(x.mean() - lam) < 5 * math.sqrt(lam / STAT_N), f"mean {x.mean()} (lam {lam})"),
                               (abs(x.var() / lam - 1) < 0.2, f"variance {x.var()} (lam {lam})")])
            lam_param = Param("lam", f32, np.full(STAT_N, lam, np.float32))
            cases.append(_stat_case(f"poisson(uint32, float32) lam={lam}", name, [u32, f32],
                                    "wp.poisson({s}, {lam}[i])", u32, check, [lam_param]))
        return cases
    return []


def _sampler_check(name):
    def check(res):
        p = res["out"].astype(np.float64)
        r = np.linalg.norm(p, axis=1)
        conds = []
        if name in ("sample_unit_sphere_surface", "sample_unit_hemisphere_surface", "sample_unit_ring"):
            conds.append((np.allclose(r, 1, atol=1e-5), f"|p| in [{r.min()}, {r.max()}]"))
        if name in ("sample_unit_sphere", "sample_unit_hemisphere", "sample_unit_disk"):
            conds.append((r.max() <= 1 + 1e-6, f"max |p| {r.max()}"))
            inner = np.mean(r < 0.5)
            expected = 0.25 if name == "sample_unit_disk" else 0.125
            conds.append((abs(inner - expected) < 0.03, f"fraction with |p| < 0.5 is {inner} (uniform: {expected})"))
        if "hemisphere" in name:
            conds.append((p[:, 2].min() >= 0, f"min z {p[:, 2].min()}"))
            conds.append((abs(p[:, 2].mean() - 0.5 * (1 if "surface" in name else 0.75)) < 0.03,
                          f"mean z {p[:, 2].mean()}"))
        if name in ("sample_unit_sphere_surface", "sample_unit_sphere", "sample_unit_ring", "sample_unit_disk"):
            conds.append((np.all(np.abs(p.mean(axis=0)) < 0.05), f"mean {p.mean(axis=0)}"))
        if name in ("sample_unit_square", "sample_unit_cube"):
            conds.append((p.min() >= -0.5 and p.max() < 0.5, f"range [{p.min()}, {p.max()}]"))
            conds.append((np.all(np.abs(p.mean(axis=0)) < 0.02), f"mean {p.mean(axis=0)}"))
            conds.append((np.all(np.abs(p.var(axis=0) - 1 / 12) < 0.01), f"variance {p.var(axis=0)}"))
        if name == "sample_triangle":
            conds.append((p.min() >= 0 and (p.sum(axis=1)).max() <= 1 + 1e-6, "outside the triangle"))
            conds.append((np.all(np.abs(p.mean(axis=0) - 1 / 3) < 0.02), f"mean {p.mean(axis=0)} (1/3 expected)"))
        conds.append((len(np.unique(p[:, 0])) > STAT_N * 0.95, "too few distinct samples"))
        return _stats(conds)
    return check


def sampler_cases(name: str) -> list:
    rtype = BUILTINS[name].overloads[0].result
    cases = [_stat_case(f"{name}(uint32) distribution", name, [u32], f"wp.{name}({{s}})", rtype, _sampler_check(name))]

    # the state is advanced: two samples in a row differ
    def body(names):
        s = names["_"] + "s"
        return (f"{s} = wp.rand_init(99, i)\n{names['a']}[i] = wp.{name}({s})\n{names['b']}[i] = wp.{name}({s})")

    def check(res):
        same = [i for i in range(N) if np.array_equal(res["a"][i], res["b"][i])]
        return [f"two samples in a row are equal at {same}: the state is not advanced"] if same else []
    cases.append(Case(f"{name}(uint32) advances the state", name, [Param("a", rtype), Param("b", rtype)], body, check,
                      covers=covers_of(name, [u32])))
    return cases


def special_form_cases(name: str) -> list:
    cases = []
    rng = np.random.default_rng(_stable(name))

    def const_case(cid, call, rtype, expected):
        def body(names):
            return f"{names['out']}[i] = {call}"

        def check(res):
            bad = [i for i in range(N) if not values_close(res["out"][i], expected, rtype, 0.0)]
            return [f"got {_show(res['out'][bad[0]])}, expected {_show(expected)}"] if bad else []
        return Case(cid, name, [Param("out", rtype)], body, check, covers=((name, None),))

    if name == "identity":
        for call, n, t in (("wp.identity(n=3, dtype=wp.float64)", 3, f64), ("wp.identity(2, wp.float32)", 2, f32),
                           ("wp.identity(4)", 4, f32), ("wp.identity(3, dtype=float)", 3, f32)):
            cases.append(const_case(call, call, mat((n, n), t), np.eye(n)))
    elif name in ("quat_identity", "transform_identity"):
        exp = [0, 0, 0, 1] if name == "quat_identity" else [0, 0, 0, 0, 0, 0, 1]
        factory = quat if name == "quat_identity" else xform
        for call, t in ((f"wp.{name}()", f32), (f"wp.{name}(dtype=wp.float64)", f64), (f"wp.{name}(wp.float64)", f64)):
            cases.append(const_case(call, call, factory(t), np.array(exp, float)))
    elif name in ("matrix_from_rows", "matrix_from_cols"):
        for k, n, t in ((2, 3, f32), (3, 2, f64), (4, 4, f32), (3, 3, f64)):
            vt = vec(n, t)
            inputs = [gen_value(vt, rng) for _ in range(k)]
            rtype = mat((k, n) if name.endswith("rows") else (n, k), t)

            def body(names, k=k):
                return f"{names['out']}[i] = wp.{name}({', '.join(names[f'a{j}'] + '[i]' for j in range(k))})"

            def check(res, inputs=inputs, rtype=rtype):
                errors = []
                for i in range(N):
                    m = np.stack([x[i] for x in inputs]).astype(np.float64)
                    exp = m if name.endswith("rows") else m.T
                    if not values_close(res["out"][i], exp, rtype, 0.0):
                        errors.append(f"element {i}: got {_show(res['out'][i])}, expected {_show(exp)}")
                return errors
            params = [Param(f"a{j}", vt, inputs[j]) for j in range(k)] + [Param("out", rtype)]
            cid = f"{name}({', '.join([tname(vt)] * k)})"
            cases.append(Case(cid, name, params, body, check, covers=((name, None),)))
    elif name == "tid":
        for dims in ((4, 4), (2, 2, 4), (2, 2, 2, 2)):
            names_ = "ijkl"[:len(dims)]

            def body(names, names_=names_):
                return f"{names['out']}[{', '.join(names_)}] = " + " + ".join(
                    f"{v} * {10 ** (len(names_) - 1 - k)}" for k, v in enumerate(names_))

            def check(res, dims=dims):
                idx = np.indices(dims)
                exp = sum(idx[k] * 10 ** (len(dims) - 1 - k) for k in range(len(dims)))
                return [] if np.array_equal(res["out"], exp) else [f"got {res['out'].tolist()}"]
            cases.append(Case(f"tid() {len(dims)}-D", "tid", [Param("out", i32, None, dims)], body, check, dim=dims,
                              covers=(("tid", None),)))
    elif name == "static":
        cases.append(const_case("static(2 * 3 + 1)", "wp.static(2 * 3 + 1)", i32, 7))
    return cases


def extra_cases(name: str) -> list:
    """Documented edge cases that the generic instantiation does not reach."""
    cases = []
    if name == "div":
        # integer division by zero gives 0 and MIN / -1 wraps to MIN (documented for div): also for
        # the componentwise vector and matrix overloads
        for cid, at, bt, a, b in (
                ("div(vec3i, int32) by zero", vec(3, i32), i32, np.full((N, 3), 7, np.int32), np.zeros(N, np.int32)),
                ("div(int32, vec2i) by zero", i32, vec(2, i32), np.full(N, 7, np.int32), np.zeros((N, 2), np.int32)),
                ("div(vec2i, int32) MIN / -1", vec(2, i32), i32, np.full((N, 2), -2 ** 31, np.int32),
                 np.full(N, -1, np.int32))):
            rt = at if kind(at) != "scalar" else bt

            def body(names):
                return f"{names['out']}[i] = wp.div({names['a']}[i], {names['b']}[i])"

            def check(res, a=a, b=b, rt=rt):
                exp = np.vectorize(lambda x, y: c_div(int(x), int(y)), otypes=[object])(
                    *np.broadcast_arrays(a if a.ndim == 2 else a[:, None], b if b.ndim == 2 else b[:, None]))
                ok = values_close(res["out"], exp, rt)
                return [] if ok else [f"got {res['out'][:2].tolist()}, expected {exp[:2].tolist()}"]
            cases.append(Case(cid, name, [Param("a", at, a), Param("b", bt, b), Param("out", rt)], body, check,
                              covers=covers_of(name, [at, bt])))
    return cases


HAND_BUILDERS: dict = {
    "len": len_cases, "rand_init": rand_init_cases,
    **{op: (lambda op=op: atomic_cases(op) + (reduction_cases(op) if op in ("atomic_add", "atomic_sub") else []))
       for op in ATOMIC_TYPES},
    **{n: (lambda n=n: draw_cases(n) + statistical_cases(n)) for n in ("randu", "randi", "randf", "randn")},
    "poisson": lambda: statistical_cases("poisson"),
    **{n: (lambda n=n: sampler_cases(n)) for n in (
        "sample_unit_sphere_surface", "sample_unit_sphere", "sample_unit_hemisphere_surface", "sample_unit_hemisphere",
        "sample_unit_square", "sample_unit_cube", "sample_unit_disk", "sample_unit_ring", "sample_triangle")},
    **{n: (lambda n=n: special_form_cases(n)) for n in (
        "identity", "quat_identity", "transform_identity", "matrix_from_rows", "matrix_from_cols", "tid", "static")},
}


def all_cases(name: str) -> list:
    """Every case for builtin `name`: generic instantiations (when its overloads allow), its
    hand-written cases, and documented edge cases."""
    out = []
    if name not in HAND_WRITTEN:
        out += generic_cases(name)
    if name in HAND_BUILDERS:
        out += HAND_BUILDERS[name]()
    out += extra_cases(name)
    return out


def find_case(case_id: str):
    name = case_id.split("(")[0].split(" ")[0]
    for c in all_cases(name):
        if c.id == case_id:
            return c
    raise KeyError(case_id)


# --- known bugs -----------------------------------------------------------------------------------

_VECS = [f"vec{n}{s}" for s in "fdi" for n in (2, 3, 4)]
_CRASH = "CRASH (SIGFPE kills the process; run in a subprocess): "

#: Cases that fail because of a bug in warp_nb or a native header. They are left out of the
#: passing tests and run as expected failures (xfail, not strict: a fix shows as XPASS), so they
#: stay visible. Keys are case ids (see Case.id); "python:<id>" is the Python-scope
#: implementation on the inputs of case <id>; "cpp:<name>[k]" is overload k of wp.<name> in the
#: static C++ declaration check. Remove an entry once its bug is fixed.
KNOWN_BROKEN: dict = {
    # every case that failed when these tests were written has since been fixed (the XPASS
    # check keeps this list honest): integer vector/matrix division by zero, wp.len and
    # wp.sign on vectors, wp.static, and the Python-scope min/max/transform_point/smoothstep
}
