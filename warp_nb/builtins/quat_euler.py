"""Euler angles and twists of quaternions (quat_euler.h). Euler angles are indexed by axis (e[a]
about axis a); the sequence (i, j, k) gives q = Q_k(e[k]) Q_j(e[j]) Q_i(e[i])."""

import math

import numpy as np

from .. import types as T
from .linalg import _axis_angle, _py, _qmul
from .registry import FLOAT, Exact, Quat, Scalar, Vec, builtin, ov, same

F = Scalar("T", FLOAT)
V3, Q, I = Vec(3, F), Quat(F), Exact(T.int32)
_e = dict(header="core/quat_euler.h", category="quaternion")


def _from_euler(e, i, j, k):
    unit = np.eye(3)
    return _qmul(_qmul(_axis_angle(unit[k], e[k]), _axis_angle(unit[j], e[j])), _axis_angle(unit[i], e[i]))


def _to_euler(q, i, j, k):
    """The kernels' method (core/quat_euler.h quat_to_euler: Bernardes and Viollet, as Warp's)."""
    x, y, z, w = (float(c) for c in q)
    comp = [x, y, z]
    proper = i == k
    kk = 3 - i - j if proper else k
    eps = (i - j) * (j - kk) * (kk - i) / 2
    qi, qj, qk = comp[i], comp[j], comp[kk]
    if not proper:
        a, b, c, d = w - qj, qi + qk * eps, qj + w, qk * eps - qi
    else:
        a, b, c, d = w, qi, qj, qk * eps
    t2 = 2 * math.atan2(math.hypot(c, d), math.hypot(a, b))
    tp, tm = math.atan2(b, a), math.atan2(d, c)
    if abs(t2) < 1e-7:
        t1, t3 = 0.0, 2 * tp
    elif abs(t2 - math.pi) < 1e-7:
        t1, t3 = 0.0, 2 * tm
    else:
        t1, t3 = tp - tm, tp + tm
    if not proper:
        t3, t2 = eps * t3, t2 - math.pi / 2
    e = np.zeros(3)
    e[i], e[j], e[kk] = t1, t2, t3
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
        doc="Euler angles of q for the sequence (i, j, k) of rotations about fixed axes, as Warp's (Bernardes and "
            "Viollet): Tait-Bryan (i != k) indexed by axis, e[j] in [-pi/2, pi/2]; proper Euler (i == k) e[i], e[j] "
            "(in [0, pi]), e[3 - i - j]; first and third in [-2pi, 2pi], the first 0 at gimbal lock.", **_e)
builtin("quat_to_rpy", ov(Q, ret=V3, names=("q",)), python=_py(_to_rpy),
        doc="(roll, pitch, yaw) of q: the inverse of quat_rpy.", **_e)
builtin("quat_twist", ov(V3, Q, ret=Q, names=("axis", "q")), python=_py(_twist, "quat"),
        doc="The twist of q about the unit vector axis (identity when undefined).", **_e)
builtin("quat_twist_angle", ov(V3, Q, ret=same("T"), names=("axis", "q")),
        python=_py(lambda axis, q: abs(_twist_signed(axis, q))),
        doc="The twist angle of q about the unit axis, in [0, 2 pi]: 2 atan2(|dot(q.xyz, axis)|, q.w).", **_e)
builtin("quat_twist_angle_signed", ov(V3, Q, ret=same("T"), names=("axis", "q")), python=_py(_twist_signed),
        doc="The signed twist angle 2 atan2(dot(q.xyz, axis), q.w), in (-2 pi, 2 pi].", **_e)
