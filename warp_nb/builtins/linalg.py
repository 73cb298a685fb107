"""Vector, matrix, quaternion and transform builtins (vec.h, mat.h, quat.h, transform.h),
with Python-scope implementations through numpy for the common ones."""

import numpy as np

from .. import types as T
from ..types.composite import Composite
from ..types.scalars import Scalar as Scalar_
from .registry import FLOAT, NUMERIC, Mat, Quat, Scalar, Transform, Vec, builtin, ov, same

F = Scalar("T", FLOAT)
N = Scalar("T", NUMERIC)
V, VF = Vec("n", N), Vec("n", F)
V3 = Vec(3, F)
M, MF = Mat("r", "c", N), Mat("r", "c", F)
SQ = Mat("n", "n", F)
Q, X = Quat(), Transform()


def _np(x):
    """A composite's components in numpy: integers stay integers (64-bit, so products wrap as C's do once
    the result takes its type), floats are computed in float64 and rounded to the result's type."""
    if not isinstance(x, Composite):
        return x.value if isinstance(x, Scalar_) else x  # wp.float32(0.5): its Python value
    kind = getattr(type(x)._wp_scalar_type_, "_kind", "float")
    # __array__() is the values (np.asarray of a float16 composite shows its bits, as Warp's does)
    return np.asarray(x.__array__(), dtype={"int": np.int64, "uint": np.uint64}.get(kind, np.float64))


def _wrap(like_type, values):
    values = np.asarray(values)
    if values.ndim == 0:
        return values.item()
    if values.ndim == 2:
        return T.matrix(values.shape, like_type)._from_numpy(values)
    return T.vector(values.shape[0], like_type)._from_numpy(values)


def _py(fn, result_kind=None):
    """Python-scope implementation over numpy; the result takes the first composite's scalar type."""
    def impl(*args):
        like = next((a for a in args if isinstance(a, Composite)), None)
        scalar = like._wp_scalar_type_ if like is not None else T.float32
        out = fn(*[_np(a) for a in args])
        if result_kind == "quat":
            return T.quaternion(scalar)._from_numpy(out)
        if result_kind == "transform":
            return T.transformation(scalar)._from_numpy(out)
        return _wrap(scalar, out)
    return impl


def _qmul(a, b):
    av, aw, bv, bw = a[:3], a[3], b[:3], b[3]
    return np.array([*(aw * bv + bw * av + np.cross(av, bv)), aw * bw - av.dot(bv)])


def _cw_div(a, b):
    """a / b componentwise as kernels divide (core/scalar.h div): floats by IEEE rules (x / 0 is inf or
    nan), integers truncated toward zero with 0 where b is 0."""
    if a.dtype.kind in "iu":
        safe = np.where(b == 0, 1, b)
        return np.where(b == 0, 0, np.abs(a) // np.abs(safe) * np.sign(a) * np.sign(safe))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.divide(a, b)


def _det(m):
    """The kernels' determinant (core/mat.h): the cofactor expansion along row 0 in float64 (numpy's LU
    leaves 6.7e-16 where a singular integer matrix has 0)."""
    if len(m) == 1:
        return m[0, 0]
    if len(m) == 2:
        return m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
    return sum((-1) ** j * m[0, j] * _det(np.delete(m[1:], j, axis=1)) for j in range(len(m)))


# The rotation formulas of the kernels (core/quat.h), which Warp's are: for a quaternion that is not
# of unit length they differ from q v q^-1 and from 1 - 2 (y^2 + z^2) ..., and both scopes must agree.
def _qrot(q, v):
    u, w = q[:3], q[3]
    return v * (2 * w * w - 1) + np.cross(u, v) * (2 * w) + u * (2 * u.dot(v))


def _qmat(q):
    u, w = q[:3], q[3]
    skew = np.array([[0, -u[2], u[1]], [u[2], 0, -u[0]], [-u[1], u[0], 0]])
    return np.eye(3) * (2 * w * w - 1) + skew * (2 * w) + np.outer(u, u) * 2


def _axis_angle(axis, angle):
    return np.array([*(axis * np.sin(angle / 2)), np.cos(angle / 2)])


def _unit(v):
    n = np.linalg.norm(v)
    return v / n if n > 0 else np.zeros_like(v)


def _between(a, b):
    an, bn = _unit(a), _unit(b)
    return _unit(np.array([*np.cross(an, bn), 1 + an @ bn]))


def _tpoint(t, p):
    if np.ndim(t) == 2:  # a 4x4 matrix: rows 0-2 of M [p, 1]
        return t[:3, :3] @ p + t[:3, 3]
    return _qrot(t[3:], p) + t[:3]


def _tvector(t, v):
    if np.ndim(t) == 2:
        return t[:3, :3] @ v
    return _qrot(t[3:], v)


def _tmul(a, b):
    return np.array([*(_qrot(a[3:], b[:3]) + a[:3]), *_qmul(a[3:], b[3:])])


def _tinv(t):
    qi = np.array([-t[3], -t[4], -t[5], t[6]])
    return np.array([*(-_qrot(qi, t[:3])), *qi])


_la = dict(header="core/vec.h", category="vector")
builtin("dot", ov(V, V, ret=same("T")), ov(Q, Q, ret=same("T")), python=_py(np.dot), doc="Inner product.", **_la)
builtin("cross", ov(Vec(3, N), Vec(3, N), ret=Vec(3, N)), python=_py(np.cross), doc="Cross product of two 3D vectors.",
        **_la)
builtin("length", ov(VF, ret=same("T")), ov(Q, ret=same("T")), python=_py(np.linalg.norm),
        doc="Euclidean length. The gradient at the zero vector is chosen 0.", **_la)
builtin("length_sq", ov(V, ret=same("T")), ov(Q, ret=same("T")), python=_py(lambda v: v.dot(v)),
        doc="Squared Euclidean length.", **_la)
# (normalize runs its kernel code from Python scope too: its length is taken in the vector's own type,
# so a float32 vector of length 1e-30 underflows to the zero vector, as in Warp; numpy's float64 gave (1, 0, 0))
builtin("normalize", ov(VF, ret=VF), ov(Q, ret=Q),
        doc="v / length(v); the zero vector (and one whose length underflows) gives zero, with gradient 0.", **_la)
builtin("cw_mul", ov(V, V, ret=V), ov(M, M, ret=M), python=_py(np.multiply), doc="Componentwise product.", **_la)
builtin("cw_div", ov(V, V, ret=V), ov(M, M, ret=M), python=_py(_cw_div), doc="Componentwise quotient.", **_la)
builtin("argmin", ov(V, ret=T.uint32), differentiable=False, python=lambda v: int(np.argmin(v.__array__())),
        doc="Index of the smallest component.", **_la)
builtin("argmax", ov(V, ret=T.uint32), differentiable=False, python=lambda v: int(np.argmax(v.__array__())),
        doc="Index of the largest component.", **_la)

_m = dict(header="core/mat.h", category="matrix")
builtin("outer", ov(Vec("r", N), Vec("c", N), ret=Mat("r", "c", N)), python=_py(np.outer),
        doc="Outer product a b^T.", **_m)
builtin("transpose", ov(Mat("r", "c", N), ret=Mat("c", "r", N)), python=_py(np.transpose), doc="Transpose.", **_m)
builtin("determinant", ov(SQ, ret=same("T")), python=_py(_det), doc="Determinant (2x2, 3x3, 4x4).", **_m)
# (inverse runs its kernel code from Python scope too: a singular matrix gives the zero matrix, as in Warp)
builtin("inverse", ov(SQ, ret=SQ), doc="Matrix inverse (2x2, 3x3, 4x4); the zero matrix for a singular one.", **_m)
builtin("inverse_approx", ov(SQ, ret=SQ), cpp="wpnb::inverse",
        doc="Matrix inverse where Warp allows a faster, less exact one on the GPU; warp_nb inverts exactly on "
            "both targets (wp.inverse, and its gradient).", **_m)
builtin("trace", ov(Mat("n", "n", N), ret=same("T")), python=_py(np.trace), doc="Sum of the diagonal.", **_m)
builtin("diag", ov(Vec("n", N), ret=Mat("n", "n", N)), python=_py(np.diag), doc="Square matrix with v on the diagonal.",
        **_m)
builtin("get_diag", ov(Mat("n", "n", N), ret=Vec("n", N)), python=_py(np.diag), doc="The diagonal as a vector.", **_m)
builtin("skew", ov(V3, ret=Mat(3, 3, F)),
        python=_py(lambda v: np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])),
        doc="The cross-product matrix of v: skew(v) @ u == cross(v, u).", **_m)
builtin("ddot", ov(M, M, ret=same("T")), python=_py(lambda a, b: float((a * b).sum())),
        doc="Frobenius inner product of two matrices.", **_m)
builtin("identity", header="core/mat.h", category="matrix", form="identity", python=lambda n, dtype=T.float32: T.matrix((n, n), dtype)(
        *np.eye(n).reshape(-1)), doc="identity(n, dtype): the n x n identity matrix (n and dtype are constants).")
builtin("matrix_from_rows", header="core/mat.h", category="matrix", form="matrix_from_rows",
        doc="The matrix whose rows are the given vectors.",
        python=lambda *vs: _wrap(vs[0]._wp_scalar_type_, np.array([v.__array__() for v in vs])))
builtin("matrix_from_cols", header="core/mat.h", category="matrix", form="matrix_from_cols",
        doc="The matrix whose columns are the given vectors.",
        python=lambda *vs: _wrap(vs[0]._wp_scalar_type_, np.array([v.__array__() for v in vs]).T))

_q = dict(header="core/quat.h", category="quaternion")


def _identity_dtype(name: str, dtype):
    """The scalar type of quat_identity / transform_identity's `dtype=` at Python scope, as Warp takes it:
    a Warp float type, or None / float for float32. numpy's types and dtypes are refused (the caller
    converts them with wp.dtype_from_numpy), as is anything else, with Warp's RuntimeError."""
    if dtype is None or dtype is float:
        return T.float32
    if isinstance(dtype, type) and T.is_scalar_type(dtype) and dtype._kind == "float":
        return dtype
    raise RuntimeError(f"Couldn't find a function '{name}' compatible with the arguments '{type(dtype).__name__}'")


builtin("quat_identity", header="core/quat.h", category="quaternion", form="quat_identity",
        python=lambda dtype=None: T.quaternion(_identity_dtype("quat_identity", dtype))(0, 0, 0, 1),
        doc="quat_identity(dtype=float32): the quaternion (0, 0, 0, 1).")
builtin("quat_from_axis_angle", ov(V3, F, ret=Q, names=("axis", "angle")), python=_py(_axis_angle, "quat"),
        doc="Rotation of `angle` radians about the unit vector `axis` (as in Warp, the axis is not "
            "normalised: pass a unit vector).", **_q)
builtin("quat_rotate", ov(Q, V3, ret=V3, names=("q", "v")), python=_py(_qrot), doc="Rotate v by unit quaternion q.",
        **_q)
builtin("quat_rotate_inv", ov(Q, V3, ret=V3, names=("q", "v")),
        python=_py(lambda q, v: _qrot(np.array([-q[0], -q[1], -q[2], q[3]]), v)),
        doc="Rotate v by the inverse of unit quaternion q.", **_q)
builtin("quat_inverse", ov(Q, ret=Q), python=_py(lambda q: np.array([-q[0], -q[1], -q[2], q[3]]), "quat"),
        doc="Conjugate of q (the inverse of a unit quaternion).", **_q)
builtin("quat_to_matrix", ov(Q, ret=Mat(3, 3, F)), python=_py(_qmat), doc="3x3 rotation matrix of a unit quaternion.",
        **_q)
builtin("quat_from_matrix", ov(Mat(3, 3, F), ret=Q), ov(Mat(4, 4, F), ret=Q),
        doc="Unit quaternion of a rotation matrix (the upper 3x3 block of a 4x4).", **_q)
builtin("quat_rpy", ov(F, F, F, ret=Q, names=("roll", "pitch", "yaw")),
        python=lambda r, p, y: T.quat(*_qmul(_qmul(_axis_angle(np.array([0.0, 0, 1]), float(y)),
                                                    _axis_angle(np.array([0.0, 1, 0]), float(p))),
                                              _axis_angle(np.array([1.0, 0, 0]), float(r)))), doc="Quaternion from roll, pitch, yaw.", **_q)
builtin("quat_to_axis_angle", ov(Q, names=("quat",), outputs=(V3, F)),
        doc="Axis and angle of a rotation: wp.quat_to_axis_angle(q, axis, angle) or axis, angle = "
            "wp.quat_to_axis_angle(q). After flipping q to w >= 0: angle = 2 atan2(|v|, w) in [0, pi], axis = "
            "v / |v| (the zero vector when v = 0, gradient 0 there).", **_q)
builtin("quat_slerp", ov(Q, Q, F, ret=Q, names=("a", "b", "t")),
        doc="Spherical linear interpolation along the shorter arc, as Warp: a * quat_from_axis_angle(axis, "
            "t * angle) with (axis, angle) = quat_to_axis_angle(quat_inverse(a) * b).", **_q)

builtin("quat_between_vectors", ov(V3, V3, ret=Q, names=("a", "b")), python=_py(_between, "quat"),
        doc="The shortest-arc unit rotation q with quat_rotate(q, normalize(a)) == normalize(b) (a, b of any "
            "nonzero length). As in Warp, opposite directions are not handled (no shortest arc: the result is not "
            "a rotation); use quat_from_axis_angle with a perpendicular axis and pi there.", **_q)

_t = dict(header="core/transform.h", category="transform")
builtin("transform_identity", header="core/transform.h", category="transform", form="transform_identity",
        python=lambda dtype=None: T.transformation(_identity_dtype("transform_identity", dtype))(0, 0, 0, 0, 0, 0, 1),
        doc="transform_identity(dtype=float32): no translation, no rotation.")
builtin("transform_get_translation", ov(X, ret=V3), python=_py(lambda t: t[:3]), doc="The translation p.", **_t)
builtin("transform_get_rotation", ov(X, ret=Q), python=_py(lambda t: t[3:], "quat"), doc="The rotation q.", **_t)
builtin("transform_multiply", ov(X, X, ret=X), python=_py(_tmul, "transform"), doc="Composition a * b.", **_t)
builtin("transform_point", ov(X, V3, ret=V3, names=("xform", "point")),
        ov(Mat(4, 4, F), V3, ret=V3, names=("mat", "point")), python=_py(_tpoint),
        doc="Apply the transform to a point (rotation then translation).", **_t)
builtin("transform_vector", ov(X, V3, ret=V3, names=("xform", "vec")),
        ov(Mat(4, 4, F), V3, ret=V3, names=("mat", "vec")), python=_py(_tvector),
        doc="Apply the rotation of the transform to a vector.", **_t)
builtin("transform_inverse", ov(X, ret=X), python=_py(_tinv, "transform"), doc="The inverse transform.", **_t)

# vec_norms.h: norms and the smooth normalisation (delta defaults to 1)
_n = dict(header="core/vec_norms.h", category="vector")


def _huber(v, delta=1.0):
    n = np.linalg.norm(v)
    return 0.5 * n * n if n * n <= delta * delta else delta * (n - 0.5 * delta)  # (squares, as the kernels)


def _pseudo_huber(v, delta=1.0):
    return delta * np.sqrt(1 + v.dot(v) / (delta * delta))


builtin("norm_l1", ov(VF, ret=same("T"), names=("v",)), python=_py(lambda v: np.abs(v).sum()),
        doc="Sum of absolute values. Gradient sign(v_i), +1 at 0.", **_n)
builtin("norm_l2", ov(VF, ret=same("T"), names=("v",)), python=_py(np.linalg.norm),
        doc="Euclidean length (gradient 0 at the zero vector).", **_n)
builtin("norm_huber", ov(VF, ret=same("T"), names=("v",)), ov(VF, F, ret=same("T"), names=("v", "delta")),
        python=_py(_huber), doc="Huber norm: |v|^2 / 2 up to delta, then delta (|v| - delta / 2).", **_n)
builtin("norm_pseudo_huber", ov(VF, ret=same("T"), names=("v",)), ov(VF, F, ret=same("T"), names=("v", "delta")),
        python=_py(_pseudo_huber), doc="Pseudo-Huber norm delta sqrt(1 + |v|^2 / delta^2).", **_n)
builtin("smooth_normalize", ov(VF, ret=VF, names=("v",)), ov(VF, F, ret=VF, names=("v", "delta")),
        python=_py(lambda v, delta=1.0: v / _pseudo_huber(v, delta)),
        doc="v / norm_pseudo_huber(v, delta): smooth everywhere, 0 at 0.", **_n)
