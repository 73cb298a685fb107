"""Spatial vectors and transform/matrix conversions (spatial.h). A spatial vector is a vec6 with
the angular part on top (0..2) and the linear part below (3..5), as in Warp."""

import numpy as np

from .linalg import _py, _qmat
from .registry import FLOAT, Mat, Quat, Scalar, Transform, Vec, builtin, ov, same

F = Scalar("T", FLOAT)
V6, V3, M3, M4, M6 = Vec(6, F), Vec(3, F), Mat(3, 3, F), Mat(4, 4, F), Mat(6, 6, F)
_s = dict(header="core/spatial.h", category="spatial")


def _scross(a, b):
    return np.array([*np.cross(a[:3], b[:3]), *(np.cross(a[3:], b[:3]) + np.cross(a[:3], b[3:]))])


def _scross_dual(a, b):
    return np.array([*(np.cross(a[:3], b[:3]) + np.cross(a[3:], b[3:])), *np.cross(a[:3], b[3:])])


def _compose(p, q, s):
    m = np.eye(4)
    m[:3, :3] = _qmat(q) * s[None, :]
    m[:3, 3] = p
    return m


builtin("spatial_top", ov(V6, ret=V3, names=("svec",)), python=_py(lambda a: a[:3]),
        doc="The angular (top) part of a spatial vector.", **_s)
builtin("spatial_bottom", ov(V6, ret=V3, names=("svec",)), python=_py(lambda a: a[3:]),
        doc="The linear (bottom) part of a spatial vector.", **_s)
builtin("spatial_dot", ov(V6, V6, ret=same("T"), names=("a", "b")), python=_py(np.dot),
        doc="The inner product of two spatial vectors.", **_s)
builtin("spatial_cross", ov(V6, V6, ret=V6, names=("a", "b")), python=_py(_scross),
        doc="Motion cross product: (wa x wb, va x wb + wa x vb).", **_s)
builtin("spatial_cross_dual", ov(V6, V6, ret=V6, names=("a", "b")), python=_py(_scross_dual),
        doc="Force cross product: (wa x wb + va x vb, wa x vb).", **_s)
builtin("spatial_adjoint", ov(M3, M3, ret=M6, names=("r", "s")),
        python=_py(lambda r, s: np.block([[r, np.zeros((3, 3))], [s, r]])),
        doc="The 6x6 block matrix [[r, 0], [s, r]].", **_s)
builtin("transform_compose", ov(V3, Quat(F), V3, ret=M4, names=("position", "rotation", "scale")),
        python=_py(_compose), doc="The 4x4 matrix of translation, rotation and scale: [[R(q) diag(s), p], [0, 1]].",
        **_s)
builtin("transform_decompose", ov(M4, names=("m",), outputs=(V3, Quat(F), V3)), **_s,
        doc="Translation, rotation and scale of a 4x4 matrix without shear (the inverse of transform_compose): "
            "p, q, s = wp.transform_decompose(m). Scale from the column lengths (positive).")
builtin("transform_to_matrix", ov(Transform(F), ret=M4, names=("xform",)),
        python=_py(lambda t: _compose(t[:3], t[3:], np.ones(3))), doc="The transform's 4x4 matrix [[R(q), p], [0, 1]].",
        **_s)
builtin("transform_from_matrix", ov(M4, ret=Transform(F), names=("mat",)),
        doc="The transform of a rigid 4x4 matrix (translation from the last column, rotation from the 3x3 block).",
        **_s)


def _twist(t, x):
    r = _qmat(t[3:])
    w = r @ x[:3]
    return np.array([*w, *(r @ x[3:] + np.cross(t[:3], w))])


def _wrench(t, x):
    r = _qmat(t[3:])
    f = r @ x[3:]
    return np.array([*(r @ x[:3] + np.cross(t[:3], f)), *f])


def _set_part(offset, n):
    def set_part(t, value):
        for k in range(n):
            t[offset + k] = value[k]
    return set_part


builtin("transform_twist", ov(Transform(F), V6, ret=V6, names=("xform", "x")), python=_py(_twist),
        doc="A twist (angular w, linear v) moved by the transform: (R w, R v + p x R w).", **_s)
builtin("transform_wrench", ov(Transform(F), V6, ret=V6, names=("xform", "x")), python=_py(_wrench),
        doc="A wrench (torque, force) moved by the transform: (R tau + p x R f, R f).", **_s)
builtin("velocity_at_point", ov(V6, V3, ret=V3, names=("qd", "r")),
        python=_py(lambda qd, r: qd[3:] + np.cross(qd[:3], r)),
        doc="The velocity v + w x r of the point at offset r under the twist qd = (w, v).", **_s)
builtin("transform_set_translation", ov(Transform(F), V3, names=("xform", "p")), inout=(0,), differentiable=False,
        python=_set_part(0, 3), doc="Replace the translation of xform (a variable) in place.", **_s)
builtin("transform_set_rotation", ov(Transform(F), Quat(F), names=("xform", "q")), inout=(0,), differentiable=False,
        python=_set_part(3, 4), doc="Replace the rotation of xform (a variable) in place.", **_s)
