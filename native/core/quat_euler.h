// quat_euler.h: Euler angles (quat_from_euler, quat_to_euler, quat_to_rpy) and the twist about an
// axis (quat_twist, quat_twist_angle, quat_twist_angle_signed), with adjoints.
//
// Euler angles are indexed by axis: e[a] is the angle about axis a (0 = x, 1 = y, 2 = z), and the
// sequence (i, j, k), with i != j != k, gives q = Q_k(e[k]) Q_j(e[j]) Q_i(e[i]) (rotate about i
// first; a proper Euler sequence, i == k, uses e[i] twice). quat_rpy(roll, pitch, yaw) is the
// sequence (0, 1, 2). The decomposition runs in float64; at gimbal lock it sets the first angle to 0.
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

namespace euler_detail {
// The angles of any sequence, Tait-Bryan (i != k) or proper Euler (i == k), from four linear
// combinations a, b, c, d of q (Bernardes and Viollet, 2022, for rotations about fixed axes): the
// second angle 2 atan2(|(c, d)|, |(a, b)|), the others from t+ = atan2(b, a) and t- = atan2(d, c).
// kk is the axis that is neither i nor j; eps the sign of the permutation (i, j, kk).
struct bv_t {
    bool proper;
    int kk;
    float64 eps, a, b, c, d;
};
WPNB_FN bv_t bv_terms(const quat_t<float64>& q, int32 i, int32 j, int32 k) {
    bv_t t;
    t.proper = i == k;
    t.kk = t.proper ? 3 - i - j : k;
    t.eps = float64((i - j) * (j - t.kk) * (t.kk - i)) / 2.0;
    const float64 qi = q[i], qj = q[j], qk = q[t.kk];
    if (!t.proper) { t.a = q.w - qj; t.b = qi + qk * t.eps; t.c = qj + q.w; t.d = qk * t.eps - qi; }
    else { t.a = q.w; t.b = qi; t.c = qj; t.d = qk * t.eps; }
    return t;
}
// 0: the second angle is 0 (gimbal lock), 1: it is pi, 2: neither
WPNB_FN int bv_case(float64 t2) {
    const float64 pi = 3.14159265358979323846;
    return ::fabs(t2) < 1e-7 ? 0 : (::fabs(t2 - pi) < 1e-7 ? 1 : 2);
}
}  // namespace euler_detail

// Euler angles of q (any scale) for the sequence (i, j, k) of rotations about fixed axes, as
// Warp's: for Tait-Bryan sequences e is indexed by axis (e[j] in [-pi/2, pi/2]); for proper Euler
// sequences (i == k) e[i] holds the first angle, e[j] the second (in [0, pi]) and e[3 - i - j] the
// third. The first and third lie in [-2pi, 2pi]; at gimbal lock the first is 0.
template<typename T> WPNB_FN vec_t<3, T> quat_to_euler(const quat_t<T>& q_in, int32 i, int32 j, int32 k) {
    using namespace euler_detail;
    const bv_t t = bv_terms(quat_t<float64>(d(q_in.x), d(q_in.y), d(q_in.z), d(q_in.w)), i, j, k);
    float64 t2 = 2.0 * ::atan2(::sqrt(t.c * t.c + t.d * t.d), ::sqrt(t.a * t.a + t.b * t.b));
    const float64 tp = ::atan2(t.b, t.a), tm = ::atan2(t.d, t.c);
    const int lock = bv_case(t2);
    float64 t1 = lock == 2 ? tp - tm : 0.0, t3 = lock == 0 ? 2.0 * tp : (lock == 1 ? 2.0 * tm : tp + tm);
    if (!t.proper) { t3 *= t.eps; t2 -= 1.57079632679489661923; }
    vec_t<3, T> e;
    e.c[i] = T(t1); e.c[j] = T(t2); e.c[t.kk] = T(t3);
    return e;
}
template<typename T>
WPNB_FN void adj_quat_to_euler(const quat_t<T>& q, int32 i, int32 j, int32 k, quat_t<T>& adj_q, int32&, int32&, int32&,
                               const vec_t<3, T>& adj_ret) {
    using namespace euler_detail;
    const bv_t t = bv_terms(quat_t<float64>(d(q.x), d(q.y), d(q.z), d(q.w)), i, j, k);
    const float64 ab = t.a * t.a + t.b * t.b, cd = t.c * t.c + t.d * t.d, rab = ::sqrt(ab), rcd = ::sqrt(cd);
    const int lock = bv_case(2.0 * ::atan2(rcd, rab));
    const float64 g1 = d(adj_ret.c[i]), g2 = d(adj_ret.c[j]), g3 = d(adj_ret.c[t.kk]) * (t.proper ? 1.0 : t.eps);
    float64 ga = 0.0, gb = 0.0, gc = 0.0, gd = 0.0;
    if (rab > 0.0 && rcd > 0.0) {  // the second angle, 2 atan2(rcd, rab)
        const float64 s = 2.0 * g2 / (ab + cd);
        ga -= s * rcd * t.a / rab; gb -= s * rcd * t.b / rab; gc += s * rab * t.c / rcd; gd += s * rab * t.d / rcd;
    }
    const float64 gtp = lock == 2 ? g1 + g3 : (lock == 0 ? 2.0 * g3 : 0.0);
    const float64 gtm = lock == 2 ? g3 - g1 : (lock == 1 ? 2.0 * g3 : 0.0);
    if (ab > 0.0) { ga -= gtp * t.b / ab; gb += gtp * t.a / ab; }
    if (cd > 0.0) { gc -= gtm * t.d / cd; gd += gtm * t.c / cd; }
    quat_t<float64> g(0.0, 0.0, 0.0, 0.0);
    if (!t.proper) { g.w += ga + gc; g[j] += gc - ga; g[i] += gb - gd; g[t.kk] += t.eps * (gb + gd); }
    else { g.w += ga; g[i] += gb; g[j] += gc; g[t.kk] += t.eps * gd; }
    adj_q.x = T(d(adj_q.x) + g.x); adj_q.y = T(d(adj_q.y) + g.y);
    adj_q.z = T(d(adj_q.z) + g.z); adj_q.w = T(d(adj_q.w) + g.w);
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
