// quat_euler.h: Euler angles (quat_from_euler, quat_to_euler, quat_to_rpy) and the twist about an
// axis (quat_twist, quat_twist_angle, quat_twist_angle_signed), with adjoints.
//
// Euler angles are indexed by axis: e[a] is the angle about axis a (0 = x, 1 = y, 2 = z), and the
// sequence (i, j, k), a permutation of (0, 1, 2), gives q = Q_k(e[k]) Q_j(e[j]) Q_i(e[i]) (rotate
// about i first). quat_rpy(roll, pitch, yaw) is the sequence (0, 1, 2). The decomposition runs in
// float64; at gimbal lock (|e[j]| = pi/2) it sets e[i] = 0.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"
#include "core/mat.h"
#include "core/quat.h"

namespace wpnb {
namespace euler_detail {
template<typename T> WPNB_FN float64 d(T x) { return float64(x); }
WPNB_FN float64 d(half x) { return float64(float32(x)); }
// Q_axis(t) = (sin(t/2) e_axis, cos(t/2)) and its derivative in t.
WPNB_FN quat_t<float64> axis_quat(int axis, float64 t, bool derivative) {
    quat_t<float64> q;
    const float64 s = ::sin(0.5 * t), c = ::cos(0.5 * t);
    q[axis] = derivative ? 0.5 * c : s;
    q.w = derivative ? -0.5 * s : c;
    return q;
}
template<typename T> WPNB_FN quat_t<float64> unit64(const quat_t<T>& q) {
    return normalize(quat_t<float64>(d(q.x), d(q.y), d(q.z), d(q.w)));
}
WPNB_FN float64 parity(int i, int j, int k) { return ((i + 1) % 3 == j && (j + 1) % 3 == k) ? 1.0 : -1.0; }
WPNB_FN float64 qdot(const quat_t<float64>& a, const quat_t<float64>& b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
}  // namespace euler_detail

template<typename T> WPNB_FN quat_t<T> quat_from_euler(const vec_t<3, T>& e, int32 i, int32 j, int32 k) {
    using namespace euler_detail;
    const quat_t<float64> q = mul(mul(axis_quat(k, d(e.c[k]), false), axis_quat(j, d(e.c[j]), false)), axis_quat(i, d(e.c[i]), false));
    return quat_t<T>(T(q.x), T(q.y), T(q.z), T(q.w));
}
template<typename T>
WPNB_FN void adj_quat_from_euler(const vec_t<3, T>& e, int32 i, int32 j, int32 k, vec_t<3, T>& adj_e, int32&, int32&, int32&,
                                 const quat_t<T>& adj_ret) {
    using namespace euler_detail;
    const quat_t<float64> g(d(adj_ret.x), d(adj_ret.y), d(adj_ret.z), d(adj_ret.w));
    const int axes[3] = {k, j, i};
    for (int n = 0; n < 3; ++n) {  // the derivative of the product in the angle of factor n
        quat_t<float64> p(0.0, 0.0, 0.0, 1.0);
        for (int m = 0; m < 3; ++m) p = mul(p, axis_quat(axes[m], d(e.c[axes[m]]), m == n));
        adj_e.c[axes[n]] = T(d(adj_e.c[axes[n]]) + qdot(g, p));
    }
}

// The angles e with quat_from_euler(e, i, j, k) == +-q (q a unit quaternion).
template<typename T> WPNB_FN vec_t<3, T> quat_to_euler(const quat_t<T>& q_in, int32 i, int32 j, int32 k) {
    using namespace euler_detail;
    const quat_t<float64> q = unit64(q_in);  // scale-invariant (a quaternion a little off the unit sphere)
    const mat_t<3, 3, float64> R = quat_to_matrix(q);
    const float64 s = parity(i, j, k), cb = ::sqrt(R.c[i][i] * R.c[i][i] + R.c[j][i] * R.c[j][i]);
    const float64 b = ::atan2(-s * R.c[k][i], cb);
    const float64 a = cb > 1e-12 ? ::atan2(s * R.c[k][j], R.c[k][k]) : 0.0;  // gimbal lock: e[i] = 0
    // e[k] from the rest, Q_k(e[k]) = q Q_i(a)^-1 Q_j(b)^-1: near gimbal lock a is ill-conditioned
    // and this keeps quat_from_euler(e) == +-q (away from it, the same as atan2(s R_ji, R_ii))
    quat_t<float64> r = mul(mul(q, quat_inverse(axis_quat(i, a, false))),
                            quat_inverse(axis_quat(j, b, false)));
    if (r.w < 0.0) r = quat_t<float64>(-r.x, -r.y, -r.z, -r.w);
    vec_t<3, T> e;
    e.c[i] = T(a); e.c[j] = T(b); e.c[k] = T(2.0 * ::atan2(r[k], r.w));
    return e;
}
// Chains quat_to_matrix and the three atan2s (0 at gimbal lock for e[i], e[j]).
template<typename T>
WPNB_FN void adj_quat_to_euler(const quat_t<T>& q, int32 i, int32 j, int32 k, quat_t<T>& adj_q, int32&, int32&, int32&,
                               const vec_t<3, T>& adj_ret) {
    using namespace euler_detail;
    const quat_t<float64> q_raw(d(q.x), d(q.y), d(q.z), d(q.w)), q64 = unit64(q);
    const mat_t<3, 3, float64> R = quat_to_matrix(q64);
    const float64 s = parity(i, j, k), cb = ::sqrt(R.c[i][i] * R.c[i][i] + R.c[j][i] * R.c[j][i]);
    mat_t<3, 3, float64> gR;
    // atan2(y, x): dy = x / r2, dx = -y / r2
    const float64 gi = d(adj_ret.c[i]), gj = d(adj_ret.c[j]), gk = d(adj_ret.c[k]);
    if (cb > 1e-12) {
        const float64 sb = -s * R.c[k][i], r2b = sb * sb + cb * cb;
        gR.c[k][i] += -s * gj * cb / r2b;
        const float64 gcb = -gj * sb / r2b;
        gR.c[i][i] += gcb * R.c[i][i] / cb; gR.c[j][i] += gcb * R.c[j][i] / cb;
        const float64 ya = s * R.c[k][j], xa = R.c[k][k], r2a = ya * ya + xa * xa;
        if (r2a > 0.0) { gR.c[k][j] += s * gi * xa / r2a; gR.c[k][k] += -gi * ya / r2a; }
        const float64 yc = s * R.c[j][i], xc = R.c[i][i], r2c = yc * yc + xc * xc;
        if (r2c > 0.0) { gR.c[j][i] += s * gk * xc / r2c; gR.c[i][i] += -gk * yc / r2c; }
    } else {
        const float64 yc = -s * R.c[i][j], xc = R.c[j][j], r2c = yc * yc + xc * xc;
        if (r2c > 0.0) { gR.c[i][j] += -s * gk * xc / r2c; gR.c[j][j] += -gk * yc / r2c; }
    }
    quat_t<float64> g_unit, g64;
    adj_quat_to_matrix(q64, g_unit, gR);
    adj_normalize(q_raw, g64, g_unit);
    adj_q.x = T(d(adj_q.x) + g64.x); adj_q.y = T(d(adj_q.y) + g64.y);
    adj_q.z = T(d(adj_q.z) + g64.z); adj_q.w = T(d(adj_q.w) + g64.w);
}

// (roll, pitch, yaw) of q, the inverse of quat_rpy, by Warp's formulas (for a unit q, what
// quat_to_euler(q, 0, 1, 2) gives; unlike it, not scale-invariant, as Warp's):
// roll = atan2(2(wx + yz), 1 - 2(x^2 + y^2)), pitch = asin(2(wy - zx)) (clamped to [-1, 1]),
// yaw = atan2(2(wz + xy), 1 - 2(y^2 + z^2)).
template<typename T> WPNB_FN vec_t<3, T> quat_to_rpy(const quat_t<T>& q) {
    using euler_detail::d;
    const float64 x = d(q.x), y = d(q.y), z = d(q.z), w = d(q.w);
    const float64 p = 2.0 * (w * y - z * x);
    return vec_t<3, T>(T(::atan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))),
                       T(::asin(p < -1.0 ? -1.0 : (p > 1.0 ? 1.0 : p))),
                       T(::atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))));
}
template<typename T> WPNB_FN void adj_quat_to_rpy(const quat_t<T>& q, quat_t<T>& adj_q, const vec_t<3, T>& adj_ret) {
    using euler_detail::d;
    const float64 x = d(q.x), y = d(q.y), z = d(q.z), w = d(q.w);
    const float64 gr = d(adj_ret.c[0]), gp = d(adj_ret.c[1]), gy = d(adj_ret.c[2]);
    quat_t<float64> g(0.0, 0.0, 0.0, 0.0);
    // atan2(a, b): d = (b da - a db) / (a^2 + b^2)
    const float64 a = 2.0 * (w * x + y * z), b = 1.0 - 2.0 * (x * x + y * y), rab = a * a + b * b;
    if (rab > 0.0) {
        const float64 ka = gr * b / rab, kb = -gr * a / rab;
        g.w += 2.0 * x * ka; g.x += 2.0 * w * ka - 4.0 * x * kb; g.y += 2.0 * z * ka - 4.0 * y * kb; g.z += 2.0 * y * ka;
    }
    const float64 p = 2.0 * (w * y - z * x);
    if (p > -1.0 && p < 1.0) {  // (0 where the argument is clamped)
        const float64 kp = gp / ::sqrt(1.0 - p * p);
        g.w += 2.0 * y * kp; g.y += 2.0 * w * kp; g.z -= 2.0 * x * kp; g.x -= 2.0 * z * kp;
    }
    const float64 c = 2.0 * (w * z + x * y), e = 1.0 - 2.0 * (y * y + z * z), rce = c * c + e * e;
    if (rce > 0.0) {
        const float64 kc = gy * e / rce, ke = -gy * c / rce;
        g.w += 2.0 * z * kc; g.z += 2.0 * w * kc - 4.0 * z * ke; g.x += 2.0 * y * kc; g.y += 2.0 * x * kc - 4.0 * y * ke;
    }
    adj_q.x = T(d(adj_q.x) + g.x); adj_q.y = T(d(adj_q.y) + g.y);
    adj_q.z = T(d(adj_q.z) + g.z); adj_q.w = T(d(adj_q.w) + g.w);
}

// The twist of q about the unit vector axis: normalize((dot(q.xyz, axis) axis, q.w)) (the identity
// when that is zero).
template<typename T> WPNB_FN quat_t<T> quat_twist(const vec_t<3, T>& axis, const quat_t<T>& q) {
    const T p = T(q.x * axis.c[0] + q.y * axis.c[1] + q.z * axis.c[2]);
    const quat_t<T> t(T(p * axis.c[0]), T(p * axis.c[1]), T(p * axis.c[2]), q.w);
    if (!(dot(la_detail::qv(t), la_detail::qv(t)) > T(0))) return quat_t<T>(T(0), T(0), T(0), T(1));
    return normalize(t);
}
template<typename T>
WPNB_FN void adj_quat_twist(const vec_t<3, T>& axis, const quat_t<T>& q, vec_t<3, T>& adj_axis, quat_t<T>& adj_q, const quat_t<T>& adj_ret) {
    const T p = T(q.x * axis.c[0] + q.y * axis.c[1] + q.z * axis.c[2]);
    const quat_t<T> t(T(p * axis.c[0]), T(p * axis.c[1]), T(p * axis.c[2]), q.w);
    if (!(dot(la_detail::qv(t), la_detail::qv(t)) > T(0))) return;
    quat_t<T> gt;
    adj_normalize(t, gt, adj_ret);
    const vec_t<3, T> gv(gt.x, gt.y, gt.z);
    const T gp = dot(gv, axis);  // t.xyz = p axis
    for (int n = 0; n < 3; ++n) adj_axis.c[n] = T(adj_axis.c[n] + gv.c[n] * p + gp * q[n]);
    adj_q.x = T(adj_q.x + gp * axis.c[0]); adj_q.y = T(adj_q.y + gp * axis.c[1]); adj_q.z = T(adj_q.z + gp * axis.c[2]);
    adj_q.w = T(adj_q.w + gt.w);
}
// Signed twist angle 2 atan2(dot(q.xyz, axis), q.w), in (-2 pi, 2 pi]: q and -q give angles 2 pi apart.
template<typename T> WPNB_FN T quat_twist_angle_signed(const vec_t<3, T>& axis, const quat_t<T>& q) {
    return T(T(2) * atan2(T(q.x * axis.c[0] + q.y * axis.c[1] + q.z * axis.c[2]), q.w));
}
template<typename T>
WPNB_FN void adj_quat_twist_angle_signed(const vec_t<3, T>& axis, const quat_t<T>& q, vec_t<3, T>& adj_axis, quat_t<T>& adj_q,
                                         const T& adj_ret) {
    const T p = T(q.x * axis.c[0] + q.y * axis.c[1] + q.z * axis.c[2]);
    T gp = T(0), gw = T(0);
    adj_atan2(p, q.w, gp, gw, T(T(2) * adj_ret));
    for (int n = 0; n < 3; ++n) { adj_axis.c[n] = T(adj_axis.c[n] + gp * q[n]); adj_q[n] = T(adj_q[n] + gp * axis.c[n]); }
    adj_q.w = T(adj_q.w + gw);
}
// Unsigned twist angle 2 atan2(|dot(q.xyz, axis)|, q.w), in [0, 2 pi] (= |signed|; gradient as abs, +1 at 0).
template<typename T> WPNB_FN T quat_twist_angle(const vec_t<3, T>& axis, const quat_t<T>& q) {
    return wpnb::abs(quat_twist_angle_signed(axis, q));
}
template<typename T>
WPNB_FN void adj_quat_twist_angle(const vec_t<3, T>& axis, const quat_t<T>& q, vec_t<3, T>& adj_axis, quat_t<T>& adj_q, const T& adj_ret) {
    T g = T(0);
    wpnb::adj_abs(quat_twist_angle_signed(axis, q), g, adj_ret);
    adj_quat_twist_angle_signed(axis, q, adj_axis, adj_q, g);
}

}  // namespace wpnb
