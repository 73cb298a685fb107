"""Euler angles and twists of quaternions (quat_euler.h). Euler angles are indexed by axis (e[a]
about axis a); the sequence (i, j, k) gives q = Q_k(e[k]) Q_j(e[j]) Q_i(e[i])."""

import numpy as np

from .. import types as T
from .linalg import _axis_angle, _py, _qmat, _qmul
from .registry import FLOAT, Exact, Quat, Scalar, Vec, builtin, ov, same

F = Scalar("T", FLOAT)
V3, Q, I = Vec(3, F), Quat(F), Exact(T.int32)
_e = dict(header="core/quat_euler.h", category="quaternion")


def _from_euler(e, i, j, k):
    unit = np.eye(3)
    return _qmul(_qmul(_axis_angle(unit[k], e[k]), _axis_angle(unit[j], e[j])), _axis_angle(unit[i], e[i]))


def _to_euler(q, i, j, k):
    q = np.asarray(q, float) / np.linalg.norm(q)  # scale-invariant, as the kernels (core/quat_euler.h)
    r = _qmat(q)
    s = 1.0 if (i + 1) % 3 == j and (j + 1) % 3 == k else -1.0
    cb = np.hypot(r[i, i], r[j, i])
    e = np.zeros(3)
    e[j] = np.arctan2(-s * r[k, i], cb)
    e[i] = np.arctan2(s * r[k, j], r[k, k]) if cb > 1e-12 else 0.0
    # e[k] from the rest (as quat_euler.h): Q_k(e[k]) = q Q_i(e[i])^-1 Q_j(e[j])^-1
    unit = np.eye(3)
    inv = np.array([-1.0, -1.0, -1.0, 1.0])
    rest = _qmul(_qmul(np.asarray(q, float), _axis_angle(unit[i], e[i]) * inv), _axis_angle(unit[j], e[j]) * inv)
    rest = -rest if rest[3] < 0 else rest
    e[k] = 2 * np.arctan2(rest[k], rest[3])
    return e


def _to_rpy(q):
    """Warp's formulas (core/quat_euler.h quat_to_rpy): not scale-invariant."""
    x, y, z, w = q
    return np.array([np.arctan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y)),
                     np.arcsin(np.clip(2 * (w * y - z * x), -1.0, 1.0)),
                     np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))])


def _twist_signed(axis, q):
    return 2 * np.arctan2(q[:3].dot(axis), q[3])


def _twist(axis, q):
    t = np.array([*(q[:3].dot(axis) * axis), q[3]])
    n = np.linalg.norm(t)
    return t / n if n > 0 else np.array([0.0, 0.0, 0.0, 1.0])


builtin("quat_from_euler", ov(V3, I, I, I, ret=Q, names=("e", "i", "j", "k")),
        python=lambda e, i, j, k: _py(lambda e: _from_euler(e, int(i), int(j), int(k)), "quat")(e),
        doc="Quaternion of the Euler angles e (e[a] about axis a) in the sequence (i, j, k): "
            "Q_k(e[k]) Q_j(e[j]) Q_i(e[i]).", **_e)
builtin("quat_to_euler", ov(Q, I, I, I, ret=V3, names=("q", "i", "j", "k")),
        python=lambda q, i, j, k: _py(lambda q: _to_euler(q, int(i), int(j), int(k)))(q),
        doc="Euler angles (indexed by axis) of the unit quaternion q in the sequence (i, j, k); e[j] in "
            "[-pi/2, pi/2], e[i] = 0 at gimbal lock.", **_e)
builtin("quat_to_rpy", ov(Q, ret=V3, names=("q",)), python=_py(_to_rpy),
        doc="(roll, pitch, yaw) of q: the inverse of quat_rpy.", **_e)
builtin("quat_twist", ov(V3, Q, ret=Q, names=("axis", "q")), python=_py(_twist, "quat"),
        doc="The twist of q about the unit vector axis (identity when undefined).", **_e)
builtin("quat_twist_angle", ov(V3, Q, ret=same("T"), names=("axis", "q")),
        python=_py(lambda axis, q: abs(_twist_signed(axis, q))),
        doc="The twist angle of q about the unit axis, in [0, 2 pi]: 2 atan2(|dot(q.xyz, axis)|, q.w).", **_e)
builtin("quat_twist_angle_signed", ov(V3, Q, ret=same("T"), names=("axis", "q")), python=_py(_twist_signed),
        doc="The signed twist angle 2 atan2(dot(q.xyz, axis), q.w), in (-2 pi, 2 pi].", **_e)
