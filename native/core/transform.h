// transform.h: transform_t<T> {p, q}, a rigid transformation x -> quat_rotate(q, x) + p stored as
// 7 scalars (p.x, p.y, p.z, q.x, q.y, q.z, q.w) as in Warp, and its builtins with adjoints.
// q is assumed unit length (not enforced; gradients treat its four components as independent).
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"
#include "core/mat.h"
#include "core/quat.h"

namespace wpnb {

template<typename T>
struct transform_t {
    vec_t<3, T> p;
    quat_t<T> q;

    // All seven components zero, as Warp's zero-argument transformation() (see transform_identity).
    WPNB_FN transform_t() : p(), q() {}
    // Every component s (Warp's transformation(s)).
    WPNB_FN explicit transform_t(T s) : p(s), q(s, s, s, s) {}
    // Translation p and rotation q.
    WPNB_FN transform_t(const vec_t<3, T>& p_, const quat_t<T>& q_) : p(p_), q(q_) {}
    // Translation p with the identity rotation (Warp's transformation(p)).
    WPNB_FN explicit transform_t(const vec_t<3, T>& p_) : p(p_), q(T(0), T(0), T(0), T(1)) {}
    // From the seven stored components (Warp's transformation(px, py, pz, qx, qy, qz, qw)).
    WPNB_FN transform_t(T px, T py, T pz, T qx, T qy, T qz, T qw) : p(px, py, pz), q(qx, qy, qz, qw) {}
    // Element-type conversion, componentwise.
    template<typename U>
    WPNB_FN explicit transform_t(const transform_t<U>& t) : p(t.p), q(t.q) {}

    // Component i in storage order: 0..2 translation, 3..6 rotation (x, y, z, w).
    WPNB_FN T& operator[](int i) { return i < 3 ? p.c[i] : q[i - 3]; }
    WPNB_FN const T& operator[](int i) const { return i < 3 ? p.c[i] : q[i - 3]; }
};

typedef transform_t<float32> transformf;
typedef transform_t<float64> transformd;
typedef transform_t<half> transformh;

namespace la_detail {
template<typename T> WPNB_FN void acc(transform_t<T>& a, const transform_t<T>& b) { acc(a.p, b.p); acc(a.q, b.q); }
}  // namespace la_detail

// ---- constructor adjoints (the primal is the transform_t constructor) ----

// Adjoint of transform_t(p, q).
template<typename T>
WPNB_FN void adj_transform_t(const vec_t<3, T>&, const quat_t<T>&, vec_t<3, T>& adj_p, quat_t<T>& adj_q, const transform_t<T>& adj_ret) {
    la_detail::acc(adj_p, adj_ret.p); la_detail::acc(adj_q, adj_ret.q);
}
// Adjoint of transform_t(p) (identity rotation).
template<typename T> WPNB_FN void adj_transform_t(const vec_t<3, T>&, vec_t<3, T>& adj_p, const transform_t<T>& adj_ret) {
    la_detail::acc(adj_p, adj_ret.p);
}
// Adjoint of transform_t(px, py, pz, qx, qy, qz, qw).
template<typename T>
WPNB_FN void adj_transform_t(T, T, T, T, T, T, T, T& adj_px, T& adj_py, T& adj_pz, T& adj_qx, T& adj_qy, T& adj_qz, T& adj_qw,
                             const transform_t<T>& adj_ret) {
    la_detail::acc(adj_px, adj_ret.p.c[0]); la_detail::acc(adj_py, adj_ret.p.c[1]); la_detail::acc(adj_pz, adj_ret.p.c[2]);
    la_detail::acc(adj_qx, adj_ret.q.x); la_detail::acc(adj_qy, adj_ret.q.y); la_detail::acc(adj_qz, adj_ret.q.z);
    la_detail::acc(adj_qw, adj_ret.q.w);
}
// Adjoint of transform_t(s) (every component s): the sum of adj_ret's components.
template<typename T> WPNB_FN void adj_transform_t(T, T& adj_s, const transform_t<T>& adj_ret) {
    for (int k = 0; k < 7; ++k) la_detail::acc(adj_s, adj_ret[k]);
}
// Adjoint of transform_t<T>(transform_t<U>) (conversion).
template<typename T, typename U>
WPNB_FN void adj_transform_t(const transform_t<U>&, transform_t<U>& adj_t, const transform_t<T>& adj_ret) {
    la_detail::acc(adj_t, transform_t<U>(adj_ret));
}

// Zero translation and identity rotation (called as transform_identity<float32>()).
template<typename T> WPNB_FN transform_t<T> transform_identity() { return transform_t<T>(vec_t<3, T>(), quat_identity<T>()); }
template<typename T> WPNB_FN void adj_transform_identity(const transform_t<T>&) {}

// Translation part p.
template<typename T> WPNB_FN vec_t<3, T> transform_get_translation(const transform_t<T>& t) { return t.p; }
template<typename T> WPNB_FN void adj_transform_get_translation(const transform_t<T>&, transform_t<T>& adj_t, const vec_t<3, T>& adj_ret) {
    la_detail::acc(adj_t.p, adj_ret);
}
// Rotation part q.
template<typename T> WPNB_FN quat_t<T> transform_get_rotation(const transform_t<T>& t) { return t.q; }
template<typename T> WPNB_FN void adj_transform_get_rotation(const transform_t<T>&, transform_t<T>& adj_t, const quat_t<T>& adj_ret) {
    la_detail::acc(adj_t.q, adj_ret);
}

// ---- composition and application ----

// Composition a * b (apply b, then a): (a.p + quat_rotate(a.q, b.p), a.q * b.q).
template<typename T> WPNB_FN transform_t<T> transform_multiply(const transform_t<T>& a, const transform_t<T>& b) {
    return transform_t<T>(add(a.p, quat_rotate(a.q, b.p)), mul(a.q, b.q));
}
template<typename T>
WPNB_FN void adj_transform_multiply(const transform_t<T>& a, const transform_t<T>& b, transform_t<T>& adj_a, transform_t<T>& adj_b,
                                    const transform_t<T>& adj_ret) {
    la_detail::acc(adj_a.p, adj_ret.p);
    adj_quat_rotate(a.q, b.p, adj_a.q, adj_b.p, adj_ret.p);
    adj_mul(a.q, b.q, adj_a.q, adj_b.q, adj_ret.q);
}
// Same as transform_multiply(a, b).
template<typename T> WPNB_FN transform_t<T> mul(const transform_t<T>& a, const transform_t<T>& b) { return transform_multiply(a, b); }
template<typename T>
WPNB_FN void adj_mul(const transform_t<T>& a, const transform_t<T>& b, transform_t<T>& adj_a, transform_t<T>& adj_b, const transform_t<T>& adj_ret) {
    adj_transform_multiply(a, b, adj_a, adj_b, adj_ret);
}
// Point x -> quat_rotate(t.q, x) + t.p (homogeneous w = 1).
template<typename T> WPNB_FN vec_t<3, T> transform_point(const transform_t<T>& t, const vec_t<3, T>& x) {
    return add(quat_rotate(t.q, x), t.p);
}
template<typename T>
WPNB_FN void adj_transform_point(const transform_t<T>& t, const vec_t<3, T>& x, transform_t<T>& adj_t, vec_t<3, T>& adj_x, const vec_t<3, T>& adj_ret) {
    adj_quat_rotate(t.q, x, adj_t.q, adj_x, adj_ret);
    la_detail::acc(adj_t.p, adj_ret);
}
// Direction v -> quat_rotate(t.q, v) (homogeneous w = 0, no translation).
template<typename T> WPNB_FN vec_t<3, T> transform_vector(const transform_t<T>& t, const vec_t<3, T>& v) { return quat_rotate(t.q, v); }
template<typename T>
WPNB_FN void adj_transform_vector(const transform_t<T>& t, const vec_t<3, T>& v, transform_t<T>& adj_t, vec_t<3, T>& adj_v, const vec_t<3, T>& adj_ret) {
    adj_quat_rotate(t.q, v, adj_t.q, adj_v, adj_ret);
}
// Inverse of a rigid transform (unit q): (-quat_rotate(q^-1, p), q^-1), q^-1 = quat_inverse(q).
template<typename T> WPNB_FN transform_t<T> transform_inverse(const transform_t<T>& t) {
    const quat_t<T> qi = quat_inverse(t.q);
    return transform_t<T>(neg(quat_rotate(qi, t.p)), qi);
}
template<typename T> WPNB_FN void adj_transform_inverse(const transform_t<T>& t, transform_t<T>& adj_t, const transform_t<T>& adj_ret) {
    const quat_t<T> qi = quat_inverse(t.q);
    quat_t<T> gqi = adj_ret.q;
    adj_quat_rotate(qi, t.p, gqi, adj_t.p, neg(adj_ret.p));
    la_detail::acc(adj_t.q, quat_inverse(gqi));
}
// Point through a 4x4 matrix acting on column vectors: rows 0..2 of m * (x, 1); no perspective divide.
template<typename T> WPNB_FN vec_t<3, T> transform_point(const mat_t<4, 4, T>& m, const vec_t<3, T>& x) {
    vec_t<3, T> r;
    for (int i = 0; i < 3; ++i) r.c[i] = T(T(T(m.c[i][0] * x.c[0]) + T(m.c[i][1] * x.c[1])) + T(T(m.c[i][2] * x.c[2]) + m.c[i][3]));
    return r;
}
template<typename T>
WPNB_FN void adj_transform_point(const mat_t<4, 4, T>& m, const vec_t<3, T>& x, mat_t<4, 4, T>& adj_m, vec_t<3, T>& adj_x, const vec_t<3, T>& g) {
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) { la_detail::acc(adj_m.c[i][j], T(g.c[i] * x.c[j])); la_detail::acc(adj_x.c[j], T(m.c[i][j] * g.c[i])); }
        la_detail::acc(adj_m.c[i][3], g.c[i]);
    }
}
// Direction through a 4x4 matrix: rows 0..2 of m * (v, 0) (the translation column is ignored).
template<typename T> WPNB_FN vec_t<3, T> transform_vector(const mat_t<4, 4, T>& m, const vec_t<3, T>& v) {
    vec_t<3, T> r;
    for (int i = 0; i < 3; ++i) r.c[i] = T(T(m.c[i][0] * v.c[0]) + T(m.c[i][1] * v.c[1]) + T(m.c[i][2] * v.c[2]));
    return r;
}
template<typename T>
WPNB_FN void adj_transform_vector(const mat_t<4, 4, T>& m, const vec_t<3, T>& v, mat_t<4, 4, T>& adj_m, vec_t<3, T>& adj_v, const vec_t<3, T>& g) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) { la_detail::acc(adj_m.c[i][j], T(g.c[i] * v.c[j])); la_detail::acc(adj_v.c[j], T(m.c[i][j] * g.c[i])); }
}

// ---- componentwise operations on the 7 stored scalars ----

// Component i in storage order (0..2 = p, 3..6 = q x, y, z, w).
template<typename T> WPNB_FN T extract(const transform_t<T>& t, int32 i) { return t[i]; }
template<typename T> WPNB_FN void adj_extract(const transform_t<T>&, int32 i, transform_t<T>& adj_t, int32&, const T& adj_ret) {
    la_detail::acc(adj_t[i], adj_ret);
}
// Copy of t with component i replaced by value.
template<typename T> WPNB_FN transform_t<T> with_index(const transform_t<T>& t, int32 i, typename la_detail::ident<T>::type value) {
    transform_t<T> r = t; r[i] = value; return r;
}
template<typename T>
WPNB_FN void adj_with_index(const transform_t<T>&, int32 i, typename la_detail::ident<T>::type, transform_t<T>& adj_t, int32&, T& adj_value,
                            const transform_t<T>& adj_ret) {
    for (int k = 0; k < 7; ++k) la_detail::acc(k == i ? adj_value : adj_t[k], adj_ret[k]);
}
// Componentwise a + b.
template<typename T> WPNB_FN transform_t<T> add(const transform_t<T>& a, const transform_t<T>& b) {
    return transform_t<T>(add(a.p, b.p), add(a.q, b.q));
}
template<typename T>
WPNB_FN void adj_add(const transform_t<T>&, const transform_t<T>&, transform_t<T>& adj_a, transform_t<T>& adj_b, const transform_t<T>& adj_ret) {
    la_detail::acc(adj_a, adj_ret); la_detail::acc(adj_b, adj_ret);
}
// Componentwise a + t * (b - a) of the 7 components (Warp's lerp of transforms; q is not normalized).
template<typename T> WPNB_FN transform_t<T> lerp(const transform_t<T>& a, const transform_t<T>& b, typename la_detail::ident<T>::type t) {
    return transform_t<T>(lerp(a.p, b.p, t), lerp(a.q, b.q, t));
}
template<typename T>
WPNB_FN void adj_lerp(const transform_t<T>& a, const transform_t<T>& b, typename la_detail::ident<T>::type t,
                      transform_t<T>& adj_a, transform_t<T>& adj_b, T& adj_t, const transform_t<T>& adj_ret) {
    adj_lerp(a.p, b.p, t, adj_a.p, adj_b.p, adj_t, adj_ret.p);
    adj_lerp(a.q, b.q, t, adj_a.q, adj_b.q, adj_t, adj_ret.q);
}
// Componentwise a - b.
template<typename T> WPNB_FN transform_t<T> sub(const transform_t<T>& a, const transform_t<T>& b) {
    return transform_t<T>(sub(a.p, b.p), sub(a.q, b.q));
}
template<typename T>
WPNB_FN void adj_sub(const transform_t<T>&, const transform_t<T>&, transform_t<T>& adj_a, transform_t<T>& adj_b, const transform_t<T>& adj_ret) {
    la_detail::acc(adj_a, adj_ret); la_detail::acc(adj_b, transform_t<T>(neg(adj_ret.p), neg(adj_ret.q)));
}
// Every component times s.
template<typename T> WPNB_FN transform_t<T> mul(const transform_t<T>& t, typename la_detail::ident<T>::type s) {
    return transform_t<T>(mul(t.p, s), mul(t.q, s));
}
template<typename T>
WPNB_FN void adj_mul(const transform_t<T>& t, typename la_detail::ident<T>::type s, transform_t<T>& adj_t, T& adj_s, const transform_t<T>& adj_ret) {
    adj_mul(t.p, s, adj_t.p, adj_s, adj_ret.p); adj_mul(t.q, s, adj_t.q, adj_s, adj_ret.q);
}
// -t, every component negated (the gradient of atomic_sub on transform arrays needs it).
template<typename T> WPNB_FN transform_t<T> neg(const transform_t<T>& t) { return transform_t<T>(neg(t.p), neg(t.q)); }
template<typename T> WPNB_FN void adj_neg(const transform_t<T>&, transform_t<T>& adj_t, const transform_t<T>& adj_ret) {
    la_detail::acc(adj_t.p, neg(adj_ret.p)); la_detail::acc(adj_t.q, neg(adj_ret.q));
}
// s times every component.
template<typename T> WPNB_FN transform_t<T> mul(typename la_detail::ident<T>::type s, const transform_t<T>& t) { return mul(t, s); }
template<typename T>
WPNB_FN void adj_mul(typename la_detail::ident<T>::type s, const transform_t<T>& t, T& adj_s, transform_t<T>& adj_t, const transform_t<T>& adj_ret) {
    adj_mul(t, s, adj_t, adj_s, adj_ret);
}
// True when all seven components are equal.
template<typename T> WPNB_FN bool eq(const transform_t<T>& a, const transform_t<T>& b) { return eq(a.p, b.p) && eq(a.q, b.q); }
template<typename T> WPNB_FN void adj_eq(const transform_t<T>&, const transform_t<T>&, transform_t<T>&, transform_t<T>&, const bool&) {}
// True when some component differs.
template<typename T> WPNB_FN bool ne(const transform_t<T>& a, const transform_t<T>& b) { return !eq(a, b); }
template<typename T> WPNB_FN void adj_ne(const transform_t<T>&, const transform_t<T>&, transform_t<T>&, transform_t<T>&, const bool&) {}
template<typename T> WPNB_FN bool operator==(const transform_t<T>& a, const transform_t<T>& b) { return eq(a, b); }
template<typename T> WPNB_FN bool operator!=(const transform_t<T>& a, const transform_t<T>& b) { return !eq(a, b); }

}  // namespace wpnb
