"""What the registry-driven builtin tests compute with (see builtin_cases.py): the concrete
types their type patterns instantiate to, input domains (random values, unit quaternions,
rotations, special values), and the numpy reference implementation of every builtin (REFS,
float64; integers as Python ints), written here independently of warp_nb."""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

import warp_nb as wp
from warp_nb import types as T

f32, f64, i32, u32, i64, boolean = wp.float32, wp.float64, wp.int32, wp.uint32, wp.int64, wp.bool

#: threads per generic case (every element is one independent input)
N = 16


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


def between_vectors(a, b):
    """The rotation by the angle between a and b about the axis a x b (the shortest arc), by
    another route than warp_nb's: axis and angle, through quat_from_axis_angle's formula."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    axis = np.cross(a, b)
    angle = math.atan2(np.linalg.norm(axis), a @ b)
    n = np.linalg.norm(axis)
    return axis_angle(axis / n if n > 0 else np.array([1.0, 0, 0]), angle)


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
    if a == b:  # a step, 0 at x == a (Warp's: its 0/0 clamps to 0)
        return 1.0 if x > a else 0.0
    u = min(max((x - a) / (b - a), 0.0), 1.0)
    return u * u * (3 - 2 * u)


def _componentwise(fn, *args):
    """fn on scalars, or per component of integer vectors and matrices (same shapes)."""
    arrays = [np.asarray(a) for a in args]
    if all(a.ndim == 0 for a in arrays):
        return fn(*[a.item() for a in arrays])
    flat = [a.reshape(-1) for a in arrays]
    return np.array([fn(*[f[k].item() for f in flat]) for k in range(flat[0].size)], dtype=object).reshape(
        arrays[0].shape)


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
    # of a vector, matrix or quaternion: any component NaN / infinite, every component finite
    "isnan": plain(lambda x: bool(np.isnan(x).any())), "isinf": plain(lambda x: bool(np.isinf(x).any())),
    "isfinite": plain(lambda x: bool(np.isfinite(x).all())),
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
    "div": _num(c_div, lambda a, b: a / b), "div_approx": plain(lambda a, b: a / b),
    "floordiv": lambda types, a, b: (py_floordiv(int(a), int(b)) if is_int_value(a) else _floordiv_float(types, a, b)),
    "mod": _num(c_mod, math.fmod),
    "pow": plain(lambda a, b: float(a) ** float(b)),
    "neg": _num(lambda a: -a, lambda a: -a), "pos": _num(lambda a: a, lambda a: a),
    "lt": plain(lambda a, b: a < b), "le": plain(lambda a, b: a <= b), "gt": plain(lambda a, b: a > b),
    "ge": plain(lambda a, b: a >= b),
    "eq": plain(lambda a, b: bool(np.array_equal(a, b))), "ne": plain(lambda a, b: not np.array_equal(a, b)),
    "bit_and": plain(lambda a, b: a & b), "bit_or": plain(lambda a, b: a | b), "bit_xor": plain(lambda a, b: a ^ b),
    "lshift": lambda types, a, n: _componentwise(lambda x, k: _lshift(types, int(x), int(k)), a, n),
    "rshift": lambda types, a, n: _componentwise(lambda x, k: _rshift(types, int(x), int(k)), a, n),
    "invert": plain(lambda a: _componentwise(lambda x: ~int(x), a)),
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
    "inverse": plain(np.linalg.inv), "inverse_approx": plain(np.linalg.inv), "trace": plain(np.trace), "diag": plain(np.diag), "get_diag": plain(np.diag),
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
    "quat_between_vectors": plain(lambda a, b: between_vectors(a, b)),
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


def _closest_edge_edge(p1, q1, p2, q2, _eps):
    """Closest points of two segments by enumeration (not the solver's clamping order): the
    interior stationary point if it lies in the unit square, else the best of the four sides,
    each side a 1-D clamped projection."""
    p1, q1, p2, q2 = (np.asarray(v, np.float64) for v in (p1, q1, p2, q2))
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a, e, b, c, f = d1 @ d1, d2 @ d2, d1 @ d2, d1 @ r, d2 @ r

    def dist(s, t):
        return np.linalg.norm(p1 + s * d1 - p2 - t * d2)

    candidates = []
    det = a * e - b * b
    if det > 1e-12 * a * e:
        s, t = np.linalg.solve([[a, -b], [b, -e]], [-c, -f])
        if 0 <= s <= 1 and 0 <= t <= 1:
            candidates.append((s, t))
    for s in (0.0, 1.0):
        candidates.append((s, min(max((b * s + f) / e, 0.0), 1.0)))
    for t in (0.0, 1.0):
        candidates.append((min(max((b * t - c) / a, 0.0), 1.0), t))
    s, t = min(candidates, key=lambda st: dist(*st))
    return np.array([s, t, dist(s, t)])


def _segment_hits_triangle(p, q, a, b, c):
    """Whether segment p-q crosses triangle (a, b, c) (Moller-Trumbore on the segment's line)."""
    d, e1, e2 = q - p, b - a, c - a
    h = np.cross(d, e2)
    det = e1 @ h
    if abs(det) < 1e-12:
        return False
    s = p - a
    u = (s @ h) / det
    qv = np.cross(s, e1)
    v = (d @ qv) / det
    t = (e2 @ qv) / det
    return 0 <= u <= 1 and 0 <= v and u + v <= 1 and 0 <= t <= 1


def _intersect_tri_tri(v0, v1, v2, u0, u1, u2):
    """Two triangles in general position intersect iff an edge of one crosses the other."""
    v = [np.asarray(x, np.float64) for x in (v0, v1, v2)]
    u = [np.asarray(x, np.float64) for x in (u0, u1, u2)]
    for tri, other in ((v, u), (u, v)):
        for i in range(3):
            if _segment_hits_triangle(tri[i], tri[(i + 1) % 3], *other):
                return 1
    return 0


REFS["closest_point_edge_edge"] = plain(_closest_edge_edge)
REFS["intersect_tri_tri"] = plain(_intersect_tri_tri)
def _erfinv(y):
    x = 0.0
    for _ in range(100):
        x -= (math.erf(x) - y) / (2 / math.sqrt(math.pi) * math.exp(-x * x))
    return x


def _huber(v, delta=1.0):
    n = float(np.linalg.norm(v))
    return 0.5 * n * n if n <= delta else delta * (n - 0.5 * delta)


def _pseudo_huber(v, delta=1.0):
    return float(delta * np.sqrt(1 + np.dot(v, v) / (delta * delta)))


REFS.update({
    "erfc": _f(math.erfc), "erfinv": _f(_erfinv), "erfcinv": _f(lambda y: _erfinv(1 - y)),
    "copysign": plain(lambda x, y: math.copysign(float(x), float(y))),
    "bit_count": lambda types, x: (int(x) & ((1 << (np_dtype(types[0]).itemsize * 8)) - 1)).bit_count(),
    "norm_l1": plain(lambda v: float(np.abs(v).sum())), "norm_l2": plain(lambda v: float(np.linalg.norm(v))),
    "norm_huber": plain(lambda v, d=1.0: _huber(np.asarray(v, float), float(d))),
    "norm_pseudo_huber": plain(lambda v, d=1.0: _pseudo_huber(np.asarray(v, float), float(d))),
    "smooth_normalize": plain(lambda v, d=1.0: np.asarray(v, float) / _pseudo_huber(np.asarray(v, float), float(d))),
})


def _euler_q(e, i, j, k):
    unit = np.eye(3)
    return qmul(qmul(axis_angle(unit[k], e[k]), axis_angle(unit[j], e[j])), axis_angle(unit[i], e[i]))


def _euler_of(q, i, j, k):
    """Tait-Bryan angles (indexed by axis) from the rotation matrix (away from gimbal lock)."""
    r = rotation_matrix(np.asarray(q, float) / np.linalg.norm(q))
    s = 1.0 if (i + 1) % 3 == j and (j + 1) % 3 == k else -1.0
    e = np.zeros(3)
    e[j] = math.asin(max(-1.0, min(1.0, -s * r[k, i])))
    e[i] = math.atan2(s * r[k, j], r[k, k])
    e[k] = math.atan2(s * r[j, i], r[i, i])
    return e


def _rpy_of(q):
    """Warp's quat_to_rpy: the textbook formulas on q as given (for a unit q, _euler_of(q, 0, 1, 2))."""
    x, y, z, w = (float(c) for c in q)
    return np.array([math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y)),
                     math.asin(max(-1.0, min(1.0, 2 * (w * y - z * x)))),
                     math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))])


def _compose(p, q, s):
    m = np.eye(4)
    m[:3, :3] = rotation_matrix(q) * np.asarray(s)[None, :]
    m[:3, 3] = p
    return m


def _twist(axis, q):
    t = np.array([*(np.dot(q[:3], axis) * np.asarray(axis)), q[3]])
    return t / np.linalg.norm(t)


REFS.update({
    "quat_from_euler": plain(lambda e, i, j, k: _euler_q(np.asarray(e, float), int(i), int(j), int(k))),
    "quat_to_euler": plain(lambda q, i, j, k: _euler_of(q, int(i), int(j), int(k))),
    "quat_to_rpy": plain(_rpy_of),
    "quat_twist": plain(_twist),
    "quat_twist_angle_signed": plain(lambda axis, q: 2 * math.atan2(float(np.dot(q[:3], axis)), float(q[3]))),
    "quat_twist_angle": plain(lambda axis, q: abs(2 * math.atan2(float(np.dot(q[:3], axis)), float(q[3])))),
    "spatial_top": plain(lambda a: np.asarray(a)[:3]), "spatial_bottom": plain(lambda a: np.asarray(a)[3:]),
    "spatial_dot": plain(lambda a, b: float(np.dot(a, b))),
    "spatial_cross": plain(lambda a, b: np.concatenate([np.cross(a[:3], b[:3]),
                                                        np.cross(a[3:], b[:3]) + np.cross(a[:3], b[3:])])),
    "spatial_cross_dual": plain(lambda a, b: np.concatenate([np.cross(a[:3], b[:3]) + np.cross(a[3:], b[3:]),
                                                             np.cross(a[:3], b[3:])])),
    "spatial_adjoint": plain(lambda r, s: np.block([[r, np.zeros((3, 3))], [s, r]])),
    "transform_compose": plain(_compose),
    "transform_twist": plain(lambda t, x: np.concatenate([qrot(t[3:], x[:3]), qrot(t[3:], x[3:]) +
                                                           np.cross(t[:3], qrot(t[3:], x[:3]))])),
    "transform_wrench": plain(lambda t, x: np.concatenate([qrot(t[3:], x[:3]) + np.cross(t[:3], qrot(t[3:], x[3:])),
                                                            qrot(t[3:], x[3:])])),
    "velocity_at_point": plain(lambda qd, r: np.asarray(qd)[3:] + np.cross(qd[:3], r)),
    "transform_to_matrix": plain(lambda t: _compose(t[:3], t[3:], np.ones(3))),
    "transform_from_matrix": lambda types, m: np.array([*np.asarray(m)[:3, 3], *_quat_from_matrix(types, m)]),
})


def ref_for(name: str, types) -> Callable:
    sig = tuple(kind(t) for t in types)
    ref = REFS.get((name, sig)) or REFS.get(name)
    if ref is None:
        raise KeyError(f"no reference for wp.{name}: add one to REFS in tests/builtin_values.py")
    return ref


def wrap_int(v: int, bits: int, signed: bool) -> int:
    """v wrapped to a `bits`-bit integer, as C++ integer arithmetic does."""
    v &= (1 << bits) - 1
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


# random numbers: the documented algorithm of native/core/random.h (Warp's: each draw replaces the state
# by the PCG hash of Jarzynski and Olano)

M32 = 0xFFFFFFFF


def pcg_hash(x: int) -> int:
    state = (x * 747796405 + 2891336453) & M32
    word = (((state >> ((state >> 28) + 4)) ^ state) * 277803737) & M32
    return ((word >> 22) ^ word) & M32


def ref_rand_init(seed: int, offset: int | None = None) -> int:
    """rand_init(seed) = hash(seed); rand_init(seed, offset) = hash(seed + hash(offset))."""
    if offset is None:
        return pcg_hash(seed & M32)
    return pcg_hash(((seed & M32) + pcg_hash(offset & M32)) & M32)


def ref_randu(state: int):
    state = pcg_hash(state)
    return state, state


def ref_draw(name: str, state: int, *bounds):
    """(new state, value) of one documented draw."""
    if name == "randu":
        state, r = ref_randu(state)
        if bounds:
            lo, hi = bounds
            return state, lo if hi <= lo else lo + r % (hi - lo)
        return state, r
    if name == "randi":
        state, r = ref_randu(state)
        if bounds:
            lo, hi = bounds
            if hi <= lo:
                return state, lo
            span = ((hi & M32) - (lo & M32)) & M32
            return state, wrap_int((lo & M32) + r % span, 32, True)
        return state, wrap_int(r, 32, True)
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
        return state, math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)
    raise ValueError(name)
