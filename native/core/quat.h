// quat.h: quat_t<T> {x, y, z, w} (w is the real part; memory order x, y, z, w as in Warp) and
// its builtins with adjoints. Rotations follow Hamilton's product: quat_rotate(mul(a, b), v) ==
// quat_rotate(a, quat_rotate(b, v)). Rotation builtins assume unit quaternions; gradients treat
// the four components as independent (unit length is not enforced).
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"
#include "core/mat.h"

namespace wpnb {

template<typename T>
struct quat_t {
    T x, y, z, w;

    // Zero quaternion (not the identity rotation; see quat_identity).
    WPNB_FN quat_t() : x(T(0)), y(T(0)), z(T(0)), w(T(0)) {}
    // From components (x, y, z imaginary, w real).
    WPNB_FN quat_t(T x_, T y_, T z_, T w_) : x(x_), y(y_), z(z_), w(w_) {}
    // From imaginary part v and real part w.
    WPNB_FN quat_t(const vec_t<3, T>& v, T w_) : x(v.c[0]), y(v.c[1]), z(v.c[2]), w(w_) {}
    // Element-type conversion, componentwise T(u).
    template<typename U>
    WPNB_FN explicit quat_t(const quat_t<U>& q) : x(T(q.x)), y(T(q.y)), z(T(q.z)), w(T(q.w)) {}

    // Component i in memory order (0..2 imaginary, 3 real).
    WPNB_FN T& operator[](int i) { return i == 0 ? x : (i == 1 ? y : (i == 2 ? z : w)); }
    WPNB_FN const T& operator[](int i) const { return i == 0 ? x : (i == 1 ? y : (i == 2 ? z : w)); }
};

typedef quat_t<float32> quatf;
typedef quat_t<float64> quatd;
typedef quat_t<half> quath;

namespace la_detail {
template<typename T> WPNB_FN vec_t<4, T> qv(const quat_t<T>& q) { return vec_t<4, T>(q.x, q.y, q.z, q.w); }
template<typename T> WPNB_FN quat_t<T> vq(const vec_t<4, T>& v) { return quat_t<T>(v.c[0], v.c[1], v.c[2], v.c[3]); }
template<typename T> WPNB_FN vec_t<3, T> im(const quat_t<T>& q) { return vec_t<3, T>(q.x, q.y, q.z); }
template<typename T> WPNB_FN void acc(quat_t<T>& a, const quat_t<T>& b) {
    acc(a.x, b.x); acc(a.y, b.y); acc(a.z, b.z); acc(a.w, b.w);
}
template<typename T> WPNB_FN void acc(quat_t<T>& a, const vec_t<4, T>& b) { acc(a, vq(b)); }
}  // namespace la_detail

// ---- constructor adjoints (the primal is the quat_t constructor) ----

// Adjoint of quat_t(x, y, z, w).
template<typename T>
WPNB_FN void adj_quat_t(T, T, T, T, T& adj_x, T& adj_y, T& adj_z, T& adj_w, const quat_t<T>& adj_ret) {
    la_detail::acc(adj_x, adj_ret.x); la_detail::acc(adj_y, adj_ret.y);
    la_detail::acc(adj_z, adj_ret.z); la_detail::acc(adj_w, adj_ret.w);
}
// Adjoint of quat_t(v, w).
template<typename T>
WPNB_FN void adj_quat_t(const vec_t<3, T>&, T, vec_t<3, T>& adj_v, T& adj_w, const quat_t<T>& adj_ret) {
    la_detail::acc(adj_v, la_detail::im(adj_ret)); la_detail::acc(adj_w, adj_ret.w);
}
// Adjoint of quat_t<T>(quat_t<U>) (conversion).
template<typename T, typename U>
WPNB_FN void adj_quat_t(const quat_t<U>&, quat_t<U>& adj_q, const quat_t<T>& adj_ret) {
    la_detail::acc(adj_q, quat_t<U>(U(adj_ret.x), U(adj_ret.y), U(adj_ret.z), U(adj_ret.w)));
}

// Identity rotation (0, 0, 0, 1) (called as quat_identity<float32>()).
template<typename T> WPNB_FN quat_t<T> quat_identity() { return quat_t<T>(T(0), T(0), T(0), T(1)); }
template<typename T> WPNB_FN void adj_quat_identity(const quat_t<T>&) {}

// ---- componentwise arithmetic (as 4-vectors) ----

// a + b.
template<typename T> WPNB_FN quat_t<T> add(const quat_t<T>& a, const quat_t<T>& b) {
    return la_detail::vq(add(la_detail::qv(a), la_detail::qv(b)));
}
template<typename T>
WPNB_FN void adj_add(const quat_t<T>&, const quat_t<T>&, quat_t<T>& adj_a, quat_t<T>& adj_b, const quat_t<T>& adj_ret) {
    la_detail::acc(adj_a, adj_ret); la_detail::acc(adj_b, adj_ret);
}
// a - b.
template<typename T> WPNB_FN quat_t<T> sub(const quat_t<T>& a, const quat_t<T>& b) {
    return la_detail::vq(sub(la_detail::qv(a), la_detail::qv(b)));
}
template<typename T>
WPNB_FN void adj_sub(const quat_t<T>&, const quat_t<T>&, quat_t<T>& adj_a, quat_t<T>& adj_b, const quat_t<T>& adj_ret) {
    la_detail::acc(adj_a, adj_ret); la_detail::acc(adj_b, neg(adj_ret));
}
// -q (the same rotation).
template<typename T> WPNB_FN quat_t<T> neg(const quat_t<T>& q) { return la_detail::vq(neg(la_detail::qv(q))); }
template<typename T> WPNB_FN void adj_neg(const quat_t<T>&, quat_t<T>& adj_q, const quat_t<T>& adj_ret) {
    la_detail::acc(adj_q, neg(adj_ret));
}
// +q (identity).
template<typename T> WPNB_FN quat_t<T> pos(const quat_t<T>& q) { return q; }
template<typename T> WPNB_FN void adj_pos(const quat_t<T>&, quat_t<T>& adj_q, const quat_t<T>& adj_ret) { la_detail::acc(adj_q, adj_ret); }
// q * s (every component scaled).
template<typename T> WPNB_FN quat_t<T> mul(const quat_t<T>& q, typename la_detail::ident<T>::type s) {
    return la_detail::vq(mul(la_detail::qv(q), s));
}
template<typename T>
WPNB_FN void adj_mul(const quat_t<T>& q, typename la_detail::ident<T>::type s, quat_t<T>& adj_q, T& adj_s, const quat_t<T>& adj_ret) {
    la_detail::acc(adj_q, mul(adj_ret, s)); la_detail::acc(adj_s, dot(q, adj_ret));
}
// s * q.
template<typename T> WPNB_FN quat_t<T> mul(typename la_detail::ident<T>::type s, const quat_t<T>& q) { return mul(q, s); }
template<typename T>
WPNB_FN void adj_mul(typename la_detail::ident<T>::type s, const quat_t<T>& q, T& adj_s, quat_t<T>& adj_q, const quat_t<T>& adj_ret) {
    adj_mul(q, s, adj_q, adj_s, adj_ret);
}
// q / s (every component divided).
template<typename T> WPNB_FN quat_t<T> div(const quat_t<T>& q, typename la_detail::ident<T>::type s) {
    return la_detail::vq(div(la_detail::qv(q), s));
}
template<typename T>
WPNB_FN void adj_div(const quat_t<T>& q, typename la_detail::ident<T>::type s, quat_t<T>& adj_q, T& adj_s, const quat_t<T>& adj_ret) {
    la_detail::acc(adj_q, div(adj_ret, s)); la_detail::acc(adj_s, T(-dot(q, adj_ret) / T(s * s)));
}
// s / q (s divided by every component, as Warp's scalar / quaternion).
template<typename T> WPNB_FN quat_t<T> div(typename la_detail::ident<T>::type s, const quat_t<T>& q) {
    return la_detail::vq(div(s, la_detail::qv(q)));
}
template<typename T>
WPNB_FN void adj_div(typename la_detail::ident<T>::type s, const quat_t<T>& q, T& adj_s, quat_t<T>& adj_q, const quat_t<T>& adj_ret) {
    vec_t<4, T> g = la_detail::qv(adj_q);
    adj_div(s, la_detail::qv(q), adj_s, g, la_detail::qv(adj_ret));
    adj_q = la_detail::vq(g);
}
// 4D inner product x1 x2 + y1 y2 + z1 z2 + w1 w2.
template<typename T> WPNB_FN T dot(const quat_t<T>& a, const quat_t<T>& b) { return dot(la_detail::qv(a), la_detail::qv(b)); }
template<typename T>
WPNB_FN void adj_dot(const quat_t<T>& a, const quat_t<T>& b, quat_t<T>& adj_a, quat_t<T>& adj_b, const T& adj_ret) {
    la_detail::acc(adj_a, mul(b, adj_ret)); la_detail::acc(adj_b, mul(a, adj_ret));
}
// Squared length dot(q, q).
template<typename T> WPNB_FN T length_sq(const quat_t<T>& q) { return dot(q, q); }
template<typename T> WPNB_FN void adj_length_sq(const quat_t<T>& q, quat_t<T>& adj_q, const T& adj_ret) {
    la_detail::acc(adj_q, mul(q, T(T(2) * adj_ret)));
}
// Length sqrt(dot(q, q)); gradient q / |q|, taken as 0 at q = 0.
template<typename T> WPNB_FN T length(const quat_t<T>& q) { return length(la_detail::qv(q)); }
template<typename T> WPNB_FN void adj_length(const quat_t<T>& q, quat_t<T>& adj_q, const T& adj_ret) {
    vec_t<4, T> g; adj_length(la_detail::qv(q), g, adj_ret); la_detail::acc(adj_q, g);
}
// q / |q|; the zero quaternion maps to the zero quaternion, with gradient 0 there.
template<typename T> WPNB_FN quat_t<T> normalize(const quat_t<T>& q) { return la_detail::vq(normalize(la_detail::qv(q))); }
template<typename T> WPNB_FN void adj_normalize(const quat_t<T>& q, quat_t<T>& adj_q, const quat_t<T>& adj_ret) {
    vec_t<4, T> g; adj_normalize(la_detail::qv(q), g, la_detail::qv(adj_ret)); la_detail::acc(adj_q, g);
}
// Componentwise a + t * (b - a) (not normalized; see quat_slerp).
template<typename T> WPNB_FN quat_t<T> lerp(const quat_t<T>& a, const quat_t<T>& b, typename la_detail::ident<T>::type t) {
    return add(a, mul(sub(b, a), t));
}
template<typename T>
WPNB_FN void adj_lerp(const quat_t<T>& a, const quat_t<T>& b, typename la_detail::ident<T>::type t, quat_t<T>& adj_a, quat_t<T>& adj_b,
                      T& adj_t, const quat_t<T>& adj_ret) {
    la_detail::acc(adj_a, mul(adj_ret, T(T(1) - t))); la_detail::acc(adj_b, mul(adj_ret, t));
    la_detail::acc(adj_t, dot(sub(b, a), adj_ret));
}

// ---- indexing and comparison ----

// Component i in memory order (0 = x, 1 = y, 2 = z, 3 = w).
template<typename T> WPNB_FN T extract(const quat_t<T>& q, int32 i) { return q[i]; }
template<typename T> WPNB_FN void adj_extract(const quat_t<T>&, int32 i, quat_t<T>& adj_q, int32&, const T& adj_ret) {
    la_detail::acc(adj_q[i], adj_ret);
}
// Copy of q with component i replaced by value.
template<typename T> WPNB_FN quat_t<T> with_index(const quat_t<T>& q, int32 i, typename la_detail::ident<T>::type value) {
    quat_t<T> r = q; r[i] = value; return r;
}
template<typename T>
WPNB_FN void adj_with_index(const quat_t<T>&, int32 i, typename la_detail::ident<T>::type, quat_t<T>& adj_q, int32&, T& adj_value,
                            const quat_t<T>& adj_ret) {
    for (int k = 0; k < 4; ++k) la_detail::acc(k == i ? adj_value : adj_q[k], adj_ret[k]);
}
// True when all four components are equal (q and -q compare unequal).
template<typename T> WPNB_FN bool eq(const quat_t<T>& a, const quat_t<T>& b) { return eq(la_detail::qv(a), la_detail::qv(b)); }
template<typename T> WPNB_FN void adj_eq(const quat_t<T>&, const quat_t<T>&, quat_t<T>&, quat_t<T>&, const bool&) {}
// True when some component differs.
template<typename T> WPNB_FN bool ne(const quat_t<T>& a, const quat_t<T>& b) { return !eq(a, b); }
template<typename T> WPNB_FN void adj_ne(const quat_t<T>&, const quat_t<T>&, quat_t<T>&, quat_t<T>&, const bool&) {}
template<typename T> WPNB_FN bool operator==(const quat_t<T>& a, const quat_t<T>& b) { return eq(a, b); }
template<typename T> WPNB_FN bool operator!=(const quat_t<T>& a, const quat_t<T>& b) { return !eq(a, b); }

// ---- rotations ----

// Hamilton product: (a*b).w = aw bw - av.bv, (a*b).v = aw bv + bw av + av x bv.
template<typename T> WPNB_FN quat_t<T> mul(const quat_t<T>& a, const quat_t<T>& b) {
    return quat_t<T>(T(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y), T(a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x),
                     T(a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w), T(a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z));
}
template<typename T>
WPNB_FN void adj_mul(const quat_t<T>& a, const quat_t<T>& b, quat_t<T>& adj_a, quat_t<T>& adj_b, const quat_t<T>& adj_ret) {
    // <g, a b> = <g conj(b), a> = <conj(a) g, b>
    la_detail::acc(adj_a, mul(adj_ret, quat_inverse(b))); la_detail::acc(adj_b, mul(quat_inverse(a), adj_ret));
}
// Conjugate (-x, -y, -z, w): the inverse rotation for a unit quaternion (Warp's quat_inverse).
template<typename T> WPNB_FN quat_t<T> quat_inverse(const quat_t<T>& q) { return quat_t<T>(T(-q.x), T(-q.y), T(-q.z), q.w); }
template<typename T> WPNB_FN void adj_quat_inverse(const quat_t<T>&, quat_t<T>& adj_q, const quat_t<T>& adj_ret) {
    la_detail::acc(adj_q, quat_inverse(adj_ret));
}
// Rotation of angle radians about axis: (axis sin(angle/2), cos(angle/2)); axis is not normalized.
template<typename T> WPNB_FN quat_t<T> quat_from_axis_angle(const vec_t<3, T>& axis, typename la_detail::ident<T>::type angle) {
    const T h = T(angle * T(0.5));
    return quat_t<T>(mul(axis, wpnb::sin(h)), wpnb::cos(h));
}
template<typename T>
WPNB_FN void adj_quat_from_axis_angle(const vec_t<3, T>& axis, typename la_detail::ident<T>::type angle, vec_t<3, T>& adj_axis, T& adj_angle,
                                      const quat_t<T>& adj_ret) {
    const T h = T(angle * T(0.5)), s = wpnb::sin(h), c = wpnb::cos(h);
    const vec_t<3, T> g = la_detail::im(adj_ret);
    la_detail::acc(adj_axis, mul(g, s));
    la_detail::acc(adj_angle, T(T(0.5) * T(T(dot(g, axis) * c) - T(adj_ret.w * s))));
}
// Axis and angle of q: angle = 2 atan2(|v|, w) in [0, pi] after flipping q to w >= 0; axis = v / |v|,
// the zero vector when v = 0 (angle 0 or pi), as Warp. Scale-invariant, so q need not be unit. Adjoint: gradient 0 at v = 0.
template<typename T> WPNB_FN void quat_to_axis_angle(const quat_t<T>& q, vec_t<3, T>& axis, T& angle) {
    const T sg = q.w < T(0) ? T(-1) : T(1);
    const vec_t<3, T> v = mul(la_detail::im(q), sg);
    const T n = length(v);
    axis = n > T(0) ? div(v, n) : vec_t<3, T>();  // as Warp: normalize(0) = 0
    angle = T(T(2) * wpnb::atan2(n, T(q.w * sg)));
}
// Adjoint of the output-argument form: reads adj_axis and adj_angle, adds into adj_q.
template<typename T>
WPNB_FN void adj_quat_to_axis_angle(const quat_t<T>& q, vec_t<3, T>&, T&, quat_t<T>& adj_q, vec_t<3, T>& adj_axis, T& adj_angle) {
    const T sg = q.w < T(0) ? T(-1) : T(1);
    const vec_t<3, T> v = mul(la_detail::im(q), sg);
    const T n = length(v), wp = T(q.w * sg), r2 = T(n * n + wp * wp);
    if (!(n > T(0)) || !(r2 > T(0))) return;
    // angle = 2 atan2(n, wp): d/dn = 2 wp / r2, d/dwp = -2 n / r2; axis = normalize(v)
    vec_t<3, T> gv;
    adj_normalize(v, gv, adj_axis);
    la_detail::acc(gv, mul(div(v, n), T(T(2) * wp * adj_angle / r2)));
    const T gw = T(T(-2) * n * adj_angle / r2);
    la_detail::acc(adj_q, quat_t<T>(mul(gv, sg), T(gw * sg)));
}
// Rotate v by q: v (2w^2 - 1) + 2w (u x v) + 2u (u . v), u = (x, y, z); equals q v q^-1 for unit q.
template<typename T> WPNB_FN vec_t<3, T> quat_rotate(const quat_t<T>& q, const vec_t<3, T>& v) {
    const vec_t<3, T> u = la_detail::im(q);
    return add(add(mul(v, T(T(2) * q.w * q.w - T(1))), mul(cross(u, v), T(T(2) * q.w))), mul(u, T(T(2) * dot(u, v))));
}
template<typename T>
WPNB_FN void adj_quat_rotate(const quat_t<T>& q, const vec_t<3, T>& v, quat_t<T>& adj_q, vec_t<3, T>& adj_v, const vec_t<3, T>& g) {
    const vec_t<3, T> u = la_detail::im(q);
    la_detail::acc(adj_v, add(add(mul(g, T(T(2) * q.w * q.w - T(1))), mul(cross(g, u), T(T(2) * q.w))), mul(u, T(T(2) * dot(u, g)))));
    const vec_t<3, T> gu = add(mul(cross(v, g), T(T(2) * q.w)), add(mul(g, T(T(2) * dot(u, v))), mul(v, T(T(2) * dot(u, g)))));
    const T gw = T(T(T(4) * q.w) * dot(v, g) + T(T(2) * dot(cross(u, v), g)));
    la_detail::acc(adj_q, quat_t<T>(gu, gw));
}
// Rotate v by the inverse of q: v (2w^2 - 1) - 2w (u x v) + 2u (u . v).
template<typename T> WPNB_FN vec_t<3, T> quat_rotate_inv(const quat_t<T>& q, const vec_t<3, T>& v) {
    return quat_rotate(quat_inverse(q), v);
}
template<typename T>
WPNB_FN void adj_quat_rotate_inv(const quat_t<T>& q, const vec_t<3, T>& v, quat_t<T>& adj_q, vec_t<3, T>& adj_v, const vec_t<3, T>& g) {
    quat_t<T> gq;
    adj_quat_rotate(quat_inverse(q), v, gq, adj_v, g);
    la_detail::acc(adj_q, quat_inverse(gq));
}
// 3x3 rotation matrix with m * v == quat_rotate(q, v): (2w^2 - 1) I + 2w skew(u) + 2 u u^T.
template<typename T> WPNB_FN mat_t<3, 3, T> quat_to_matrix(const quat_t<T>& q) {
    const vec_t<3, T> u = la_detail::im(q);
    return add(add(mul(identity<3, T>(), T(T(2) * q.w * q.w - T(1))), mul(skew(u), T(T(2) * q.w))), mul(outer(u, u), T(2)));
}
template<typename T> WPNB_FN void adj_quat_to_matrix(const quat_t<T>& q, quat_t<T>& adj_q, const mat_t<3, 3, T>& g) {
    const vec_t<3, T> u = la_detail::im(q);
    vec_t<3, T> gu;
    adj_skew(u, gu, mul(g, T(T(2) * q.w)));
    la_detail::acc(gu, mul(add(mul(g, u), mul(u, g)), T(2)));  // d<g, 2uu^T>/du = 2 (g + g^T) u
    const T gw = T(T(T(4) * q.w) * trace(g) + T(T(2) * ddot(g, skew(u))));
    la_detail::acc(adj_q, quat_t<T>(gu, gw));
}

namespace la_detail {
// Shepperd's method, shared by quat_from_matrix and its adjoint. Branch b (0..3 = x, y, z, w)
// is the largest component: s = 2 sqrt(1 + sum_d sign_d m[d][d]), q[b] = s / 4, and each other
// q[k] = (m[i1][j1] + sgn * m[i2][j2]) / s.
template<typename T> WPNB_FN int shep_branch(const mat_t<3, 3, T>& m) {
    if (T(m.c[0][0] + m.c[1][1] + m.c[2][2]) > T(0)) return 3;
    if (m.c[0][0] > m.c[1][1] && m.c[0][0] > m.c[2][2]) return 0;
    return m.c[1][1] > m.c[2][2] ? 1 : 2;
}
WPNB_FN void shep_pair(int b, int k, int& i1, int& j1, int& i2, int& j2, int& sgn) {
    if (b == 3 || k == 3) {  // real part paired with imaginary axis a: m[a2][a1] - m[a1][a2]
        const int a = b == 3 ? k : b, a1 = (a + 1) % 3, a2 = (a + 2) % 3;
        i1 = a2; j1 = a1; i2 = a1; j2 = a2; sgn = -1;
    } else {  // two imaginary axes: m[k][b] + m[b][k]
        i1 = k; j1 = b; i2 = b; j2 = k; sgn = 1;
    }
}
template<typename T> WPNB_FN T shep_diag_sign(int b, int d) { return (b == 3 || b == d) ? T(1) : T(-1); }
template<typename T> WPNB_FN quat_t<T> shepperd(const mat_t<3, 3, T>& m) {
    const int b = shep_branch(m);
    T r = T(1);
    for (int d = 0; d < 3; ++d) r = T(r + shep_diag_sign<T>(b, d) * m.c[d][d]);
    const T s = T(T(2) * wpnb::sqrt(r));
    quat_t<T> q;
    for (int k = 0; k < 4; ++k) {
        if (k == b) { q[k] = T(s * T(0.25)); continue; }
        int i1, j1, i2, j2, sgn;
        shep_pair(b, k, i1, j1, i2, j2, sgn);
        q[k] = T(T(m.c[i1][j1] + T(sgn) * m.c[i2][j2]) / s);
    }
    return q;
}
template<typename T> WPNB_FN void adj_shepperd(const mat_t<3, 3, T>& m, mat_t<3, 3, T>& adj_m, const quat_t<T>& g) {
    const int b = shep_branch(m);
    const quat_t<T> q = shepperd(m);
    T r = T(1);
    for (int d = 0; d < 3; ++d) r = T(r + shep_diag_sign<T>(b, d) * m.c[d][d]);
    const T s = T(T(2) * wpnb::sqrt(r));
    T gs = T(0);
    for (int k = 0; k < 4; ++k) {
        if (k == b) { gs = T(gs + g[k] * T(0.25)); continue; }
        int i1, j1, i2, j2, sgn;
        shep_pair(b, k, i1, j1, i2, j2, sgn);
        const T gn = T(g[k] / s);
        acc(adj_m.c[i1][j1], gn);
        acc(adj_m.c[i2][j2], T(T(sgn) * gn));
        gs = T(gs - gn * q[k]);
    }
    const T gr = T(gs * T(T(2) / s));  // s = 2 sqrt(r): ds/dr = 2 / s
    for (int d = 0; d < 3; ++d) acc(adj_m.c[d][d], T(shep_diag_sign<T>(b, d) * gr));
}
template<typename T> WPNB_FN mat_t<3, 3, T> top_left3(const mat_t<4, 4, T>& m) {
    mat_t<3, 3, T> r; for (int i = 0; i < 3; ++i) for (int j = 0; j < 3; ++j) r.c[i][j] = m.c[i][j]; return r;
}
}  // namespace la_detail

// Unit quaternion of a rotation matrix (acting on column vectors), by Shepperd's method then
// normalize; the sign of the result is unspecified (as in Warp); non-rotations give unspecified output.
template<typename T> WPNB_FN quat_t<T> quat_from_matrix(const mat_t<3, 3, T>& m) { return normalize(la_detail::shepperd(m)); }
template<typename T> WPNB_FN void adj_quat_from_matrix(const mat_t<3, 3, T>& m, mat_t<3, 3, T>& adj_m, const quat_t<T>& adj_ret) {
    quat_t<T> gq;
    adj_normalize(la_detail::shepperd(m), gq, adj_ret);
    la_detail::adj_shepperd(m, adj_m, gq);
}
// Same, from the top-left 3x3 block of a 4x4 transformation matrix (the rest is ignored).
template<typename T> WPNB_FN quat_t<T> quat_from_matrix(const mat_t<4, 4, T>& m) { return quat_from_matrix(la_detail::top_left3(m)); }
template<typename T> WPNB_FN void adj_quat_from_matrix(const mat_t<4, 4, T>& m, mat_t<4, 4, T>& adj_m, const quat_t<T>& adj_ret) {
    mat_t<3, 3, T> g;
    adj_quat_from_matrix(la_detail::top_left3(m), g, adj_ret);
    for (int i = 0; i < 3; ++i) for (int j = 0; j < 3; ++j) la_detail::acc(adj_m.c[i][j], g.c[i][j]);
}

namespace la_detail {
// qz(yaw) * qy(pitch) * qx(roll) from half-angle cosines/sines; multilinear in each (c, s) pair.
template<typename T> WPNB_FN quat_t<T> rpy_half(T cr, T sr, T cp, T sp, T cy, T sy) {
    return quat_t<T>(T(T(cy * cp) * sr - T(sy * sp) * cr), T(T(cy * sp) * cr + T(sy * cp) * sr),
                     T(T(sy * cp) * cr - T(cy * sp) * sr), T(T(cy * cp) * cr + T(sy * sp) * sr));
}
}  // namespace la_detail

// Rotation by roll about x, then pitch about y, then yaw about z (fixed axes): qz * qy * qx.
template<typename T> WPNB_FN quat_t<T> quat_rpy(T roll, typename la_detail::ident<T>::type pitch, typename la_detail::ident<T>::type yaw) {
    const T r = T(roll * T(0.5)), p = T(pitch * T(0.5)), y = T(yaw * T(0.5));
    return la_detail::rpy_half(wpnb::cos(r), wpnb::sin(r), wpnb::cos(p), wpnb::sin(p), wpnb::cos(y), wpnb::sin(y));
}
template<typename T>
WPNB_FN void adj_quat_rpy(T roll, typename la_detail::ident<T>::type pitch, typename la_detail::ident<T>::type yaw, T& adj_roll, T& adj_pitch,
                          T& adj_yaw, const quat_t<T>& g) {
    const T r = T(roll * T(0.5)), p = T(pitch * T(0.5)), y = T(yaw * T(0.5));
    const T cr = wpnb::cos(r), sr = wpnb::sin(r), cp = wpnb::cos(p), sp = wpnb::sin(p), cy = wpnb::cos(y), sy = wpnb::sin(y);
    const T h = T(0.5);
    la_detail::acc(adj_roll, dot(g, la_detail::rpy_half(T(-sr * h), T(cr * h), cp, sp, cy, sy)));
    la_detail::acc(adj_pitch, dot(g, la_detail::rpy_half(cr, sr, T(-sp * h), T(cp * h), cy, sy)));
    la_detail::acc(adj_yaw, dot(g, la_detail::rpy_half(cr, sr, cp, sp, T(-sy * h), T(cy * h))));
}

// Spherical interpolation, defined as Warp defines it: a * quat_from_axis_angle(axis, t * angle) with
// (axis, angle) = quat_to_axis_angle(quat_inverse(a) * b). quat_to_axis_angle flips to w >= 0 (the
// shorter arc) and is scale-invariant, so b need not be unit; a should be. Writing it as this
// composition (not as (sin((1-t)th) a + sin(t th) b) / sin(th), equal on unit quaternions) gives the
// gradients in every direction of the 4-D inputs that Warp's gradients have, off the unit sphere too.
// b = +-a: axis 0 and angle 0, so the result is a.
template<typename T> WPNB_FN quat_t<T> quat_slerp(const quat_t<T>& a, const quat_t<T>& b, typename la_detail::ident<T>::type t) {
    vec_t<3, T> axis;
    T angle;
    quat_to_axis_angle(mul(quat_inverse(a), b), axis, angle);
    return mul(a, quat_from_axis_angle(axis, T(t * angle)));
}
// The chain rule through the composition above, one adjoint per step, last step first.
template<typename T>
WPNB_FN void adj_quat_slerp(const quat_t<T>& a, const quat_t<T>& b, typename la_detail::ident<T>::type t, quat_t<T>& adj_a, quat_t<T>& adj_b,
                            T& adj_t, const quat_t<T>& g) {
    const quat_t<T> ai = quat_inverse(a), r = mul(ai, b);
    vec_t<3, T> axis;
    T angle;
    quat_to_axis_angle(r, axis, angle);
    const T scaled = T(t * angle);
    const quat_t<T> h = quat_from_axis_angle(axis, scaled);
    quat_t<T> gh;
    adj_mul(a, h, adj_a, gh, g);
    vec_t<3, T> gaxis;
    T gscaled = T(0);
    adj_quat_from_axis_angle(axis, scaled, gaxis, gscaled, gh);
    la_detail::acc(adj_t, T(gscaled * angle));
    T gangle = T(gscaled * t);
    quat_t<T> gr;
    adj_quat_to_axis_angle(r, axis, angle, gr, gaxis, gangle);
    quat_t<T> gai;
    adj_mul(ai, b, gai, adj_b, gr);
    adj_quat_inverse(a, adj_a, gai);
}

// The shortest-arc unit rotation taking the direction of a onto the direction of b (lengths do
// not matter): normalize((cross(a', b'), 1 + dot(a', b'))) of the unit vectors a', b'; w >= 0.
// Opposite directions have no shortest arc (the result is not a rotation there, as in Warp).
template<typename T> WPNB_FN quat_t<T> quat_between_vectors(const vec_t<3, T>& a, const vec_t<3, T>& b) {
    const vec_t<3, T> an = normalize(a), bn = normalize(b);
    return normalize(quat_t<T>(cross(an, bn), T(T(1) + dot(an, bn))));
}
template<typename T>
WPNB_FN void adj_quat_between_vectors(const vec_t<3, T>& a, const vec_t<3, T>& b, vec_t<3, T>& adj_a, vec_t<3, T>& adj_b,
                                      const quat_t<T>& g) {
    const vec_t<3, T> an = normalize(a), bn = normalize(b);
    const quat_t<T> u(cross(an, bn), T(T(1) + dot(an, bn)));
    quat_t<T> gu;
    adj_normalize(u, gu, g);
    vec_t<3, T> gan, gbn;
    adj_cross(an, bn, gan, gbn, la_detail::im(gu));
    adj_dot(an, bn, gan, gbn, gu.w);
    adj_normalize(a, adj_a, gan);
    adj_normalize(b, adj_b, gbn);
}

// Operators for C++ code in these headers (the generated code calls the named builtins).
template<typename T> WPNB_FN quat_t<T> operator*(const quat_t<T>& a, const quat_t<T>& b) { return mul(a, b); }

// isnan / isinf: whether any component is; isfinite: whether every component is. No gradient.
template<typename T> WPNB_FN bool isnan(const quat_t<T>& q) { return isnan(q.x) || isnan(q.y) || isnan(q.z) || isnan(q.w); }
template<typename T> WPNB_FN bool isinf(const quat_t<T>& q) { return isinf(q.x) || isinf(q.y) || isinf(q.z) || isinf(q.w); }
template<typename T> WPNB_FN bool isfinite(const quat_t<T>& q) {
    return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w); }
template<typename T> WPNB_FN void adj_isnan(const quat_t<T>&, quat_t<T>&, const bool&) {}
template<typename T> WPNB_FN void adj_isinf(const quat_t<T>&, quat_t<T>&, const bool&) {}
template<typename T> WPNB_FN void adj_isfinite(const quat_t<T>&, quat_t<T>&, const bool&) {}

}  // namespace wpnb
