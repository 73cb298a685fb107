// vec.h: vec_t<N, T>, a fixed-length vector of N scalars, and its builtins with adjoints.
// Layout is exactly T[N] (no padding, standard layout) because Python writes these bytes.
// Adjoints take the primal arguments, then one `adj_<arg>` per argument, then `adj_ret`,
// and add into the adj_<arg> (never overwrite). Integer vectors use the primals only.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"

namespace wpnb {

// Small helpers shared by vec.h, mat.h, quat.h and transform.h (no standard library here).
namespace la_detail {
template<bool B, typename R = void> struct enable_if {};
template<typename R> struct enable_if<true, R> { typedef R type; };
// A non-deduced context: a scalar argument converts to the vector's T instead of clashing.
template<typename T> struct ident { typedef T type; };
// a += b for every scalar type, half included (half has no compound assignment).
template<typename T> WPNB_FN void acc(T& a, const T& b) { a = T(a + b); }
// The last argument of a pack (the adj_ret of a variadic constructor adjoint).
template<typename L> WPNB_FN const L& last_arg(const L& l) { return l; }
template<typename F, typename S, typename... R>
WPNB_FN decltype(auto) last_arg(const F&, const S& s, const R&... r) { return last_arg(s, r...); }
// Walk "K primals, K adjoints, adj_ret": skip the primals, then adjoint k gets Get::get(g, k).
template<int Skip, typename Get> struct ctor_scatter {
    template<typename G, typename F, typename... R>
    static WPNB_FN void run(const G& g, F&&, R&&... r) { ctor_scatter<Skip - 1, Get>::run(g, static_cast<R&&>(r)...); }
};
template<typename Get> struct ctor_scatter<0, Get> {
    template<typename G, typename L> static WPNB_FN void walk(const G&, int, L&&) {}
    template<typename G, typename A, typename S, typename... R>
    static WPNB_FN void walk(const G& g, int k, A&& a, S&& s, R&&... r) {
        acc(a, Get::get(g, k));
        walk(g, k + 1, static_cast<S&&>(s), static_cast<R&&>(r)...);
    }
    template<typename G, typename... R> static WPNB_FN void run(const G& g, R&&... r) { walk(g, 0, static_cast<R&&>(r)...); }
};
// Getter for constructors from scalars: component k in storage order (la_flat_get, found by ADL).
struct flat_getter {
    template<typename G> static WPNB_FN decltype(auto) get(const G& g, int k) { return la_flat_get(g, k); }
};
}  // namespace la_detail

template<int N, typename T>
struct vec_t {
    // N = 0 (Warp's vec0, the value of an empty slice) keeps one unused slot: C++ (and NVRTC) has no
    // zero-length arrays, and every loop over the components stops at N.
    T c[N > 0 ? N : 1];

    // Zero vector.
    WPNB_FN vec_t() { for (int i = 0; i < N; ++i) c[i] = T(0); }
    // Broadcast: every component is s.
    WPNB_FN explicit vec_t(T s) { for (int i = 0; i < N; ++i) c[i] = s; }
    // From N components (N >= 2); the extra ones convert to T.
    template<typename... R, typename = typename la_detail::enable_if<(sizeof...(R) + 2 == N)>::type>
    WPNB_FN vec_t(T a0, T a1, R... rest) {
        const T tmp[N] = {a0, a1, T(rest)...};
        for (int i = 0; i < N; ++i) c[i] = tmp[i];
    }
    // Element-type conversion, componentwise T(u) (float -> int truncates like a C cast).
    template<typename U>
    WPNB_FN explicit vec_t(const vec_t<N, U>& u) { for (int i = 0; i < N; ++i) c[i] = T(u.c[i]); }

    WPNB_FN T& operator[](int i) { return c[i]; }
    WPNB_FN const T& operator[](int i) const { return c[i]; }
};

typedef vec_t<2, float32> vec2f; typedef vec_t<3, float32> vec3f; typedef vec_t<4, float32> vec4f;
typedef vec_t<2, float64> vec2d; typedef vec_t<3, float64> vec3d; typedef vec_t<4, float64> vec4d;
typedef vec_t<2, half> vec2h;    typedef vec_t<3, half> vec3h;    typedef vec_t<4, half> vec4h;
typedef vec_t<2, int8> vec2b;    typedef vec_t<3, int8> vec3b;    typedef vec_t<4, int8> vec4b;
typedef vec_t<2, uint8> vec2ub;  typedef vec_t<3, uint8> vec3ub;  typedef vec_t<4, uint8> vec4ub;
typedef vec_t<2, int16> vec2s;   typedef vec_t<3, int16> vec3s;   typedef vec_t<4, int16> vec4s;
typedef vec_t<2, uint16> vec2us; typedef vec_t<3, uint16> vec3us; typedef vec_t<4, uint16> vec4us;
typedef vec_t<2, int32> vec2i;   typedef vec_t<3, int32> vec3i;   typedef vec_t<4, int32> vec4i;
typedef vec_t<2, uint32> vec2ui; typedef vec_t<3, uint32> vec3ui; typedef vec_t<4, uint32> vec4ui;
typedef vec_t<2, int64> vec2l;   typedef vec_t<3, int64> vec3l;   typedef vec_t<4, int64> vec4l;
typedef vec_t<2, uint64> vec2ul; typedef vec_t<3, uint64> vec3ul; typedef vec_t<4, uint64> vec4ul;
typedef vec_t<6, float32> spatial_vectorf; typedef vec_t<6, float64> spatial_vectord;
typedef vec_t<6, half> spatial_vectorh;

// Component k of a flattened constructor gradient (used by la_detail::ctor_scatter).
template<int N, typename T> WPNB_FN T la_flat_get(const vec_t<N, T>& g, int k) { return g.c[k]; }

namespace la_detail {
template<int N, typename T> WPNB_FN void acc(vec_t<N, T>& a, const vec_t<N, T>& b) {
    for (int i = 0; i < N; ++i) acc(a.c[i], b.c[i]);
}
}  // namespace la_detail

// ---- constructor adjoints (the primal is the vec_t constructor) ----

// Adjoint of vec_t(s) (broadcast): adj_s += sum of adj_ret.
template<int N, typename T>
WPNB_FN void adj_vec_t(T s, T& adj_s, const vec_t<N, T>& adj_ret) {
    (void)s;
    for (int i = 0; i < N; ++i) la_detail::acc(adj_s, adj_ret.c[i]);
}
// Adjoint of vec_t<N,T>(vec_t<N,U>) (conversion): adj_u += U(adj_ret).
template<int N, typename T, typename U>
WPNB_FN void adj_vec_t(const vec_t<N, U>& u, vec_t<N, U>& adj_u, const vec_t<N, T>& adj_ret) {
    (void)u;
    for (int i = 0; i < N; ++i) la_detail::acc(adj_u.c[i], U(adj_ret.c[i]));
}
// Adjoint of vec_t(a0, ..., aN-1): called as adj_vec_t(a0.., adj_a0.., adj_ret); adj_ai += adj_ret[i].
template<typename... A>
WPNB_FN typename la_detail::enable_if<(sizeof...(A) >= 5)>::type adj_vec_t(A&&... args) {
    la_detail::ctor_scatter<int(sizeof...(A) - 1) / 2, la_detail::flat_getter>::run(la_detail::last_arg(args...), static_cast<A&&>(args)...);
}

// ---- elementwise arithmetic ----

// a + b.
template<int N, typename T> WPNB_FN vec_t<N, T> add(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    vec_t<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = T(a.c[i] + b.c[i]); return r;
}
template<int N, typename T>
WPNB_FN void adj_add(const vec_t<N, T>&, const vec_t<N, T>&, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b, const vec_t<N, T>& adj_ret) {
    la_detail::acc(adj_a, adj_ret); la_detail::acc(adj_b, adj_ret);
}
// a - b.
template<int N, typename T> WPNB_FN vec_t<N, T> sub(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    vec_t<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = T(a.c[i] - b.c[i]); return r;
}
template<int N, typename T>
WPNB_FN void adj_sub(const vec_t<N, T>&, const vec_t<N, T>&, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b, const vec_t<N, T>& adj_ret) {
    la_detail::acc(adj_a, adj_ret); la_detail::acc(adj_b, neg(adj_ret));
}
// -a.
template<int N, typename T> WPNB_FN vec_t<N, T> neg(const vec_t<N, T>& a) {
    vec_t<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = T(-a.c[i]); return r;
}
template<int N, typename T> WPNB_FN void adj_neg(const vec_t<N, T>&, vec_t<N, T>& adj_a, const vec_t<N, T>& adj_ret) {
    la_detail::acc(adj_a, neg(adj_ret));
}
// +a (identity).
template<int N, typename T> WPNB_FN vec_t<N, T> pos(const vec_t<N, T>& a) { return a; }
template<int N, typename T> WPNB_FN void adj_pos(const vec_t<N, T>&, vec_t<N, T>& adj_a, const vec_t<N, T>& adj_ret) {
    la_detail::acc(adj_a, adj_ret);
}
// v * s.
template<int N, typename T> WPNB_FN vec_t<N, T> mul(const vec_t<N, T>& v, typename la_detail::ident<T>::type s) {
    vec_t<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = T(v.c[i] * s); return r;
}
template<int N, typename T>
WPNB_FN void adj_mul(const vec_t<N, T>& v, typename la_detail::ident<T>::type s, vec_t<N, T>& adj_v, T& adj_s, const vec_t<N, T>& adj_ret) {
    la_detail::acc(adj_v, mul(adj_ret, s)); la_detail::acc(adj_s, dot(v, adj_ret));
}
// s * v.
template<int N, typename T> WPNB_FN vec_t<N, T> mul(typename la_detail::ident<T>::type s, const vec_t<N, T>& v) { return mul(v, s); }
template<int N, typename T>
WPNB_FN void adj_mul(typename la_detail::ident<T>::type s, const vec_t<N, T>& v, T& adj_s, vec_t<N, T>& adj_v, const vec_t<N, T>& adj_ret) {
    adj_mul(v, s, adj_v, adj_s, adj_ret);
}
// v / s (componentwise; integer vectors use integer division).
template<int N, typename T> WPNB_FN vec_t<N, T> div(const vec_t<N, T>& v, typename la_detail::ident<T>::type s) {
    vec_t<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = wpnb::div(T(v.c[i]), T(s)); return r;
}
template<int N, typename T>
WPNB_FN void adj_div(const vec_t<N, T>& v, typename la_detail::ident<T>::type s, vec_t<N, T>& adj_v, T& adj_s, const vec_t<N, T>& adj_ret) {
    // d(v/s)/dv = 1/s, d(v/s)/ds = -v/s^2
    la_detail::acc(adj_v, div(adj_ret, s));
    la_detail::acc(adj_s, T(-dot(v, adj_ret) / T(s * s)));
}
// s / v (componentwise s / v[i]).
template<int N, typename T> WPNB_FN vec_t<N, T> div(typename la_detail::ident<T>::type s, const vec_t<N, T>& v) {
    vec_t<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = wpnb::div(T(s), v.c[i]); return r;
}
template<int N, typename T>
WPNB_FN void adj_div(typename la_detail::ident<T>::type s, const vec_t<N, T>& v, T& adj_s, vec_t<N, T>& adj_v, const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) {
        const T inv = T(T(1) / v.c[i]);
        la_detail::acc(adj_s, T(adj_ret.c[i] * inv));
        la_detail::acc(adj_v.c[i], T(-adj_ret.c[i] * T(s * T(inv * inv))));
    }
}
// Componentwise product a[i] * b[i].
template<int N, typename T> WPNB_FN vec_t<N, T> cw_mul(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    vec_t<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = T(a.c[i] * b.c[i]); return r;
}
template<int N, typename T>
WPNB_FN void adj_cw_mul(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b, const vec_t<N, T>& adj_ret) {
    la_detail::acc(adj_a, cw_mul(b, adj_ret)); la_detail::acc(adj_b, cw_mul(a, adj_ret));
}
// len(v): the number of components (a constant).
template<int N, typename T> WPNB_FN int32 len(const vec_t<N, T>&) { return N; }
template<int N, typename T> WPNB_FN void adj_len(const vec_t<N, T>&, vec_t<N, T>&, const int32&) {}

// sign(v) componentwise: -1 where v[i] < 0, else 1 (scalar.h's sign). Gradient 0.
template<int N, typename T> WPNB_FN vec_t<N, T> sign(const vec_t<N, T>& v) {
    vec_t<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = wpnb::sign(v.c[i]); return r;
}
template<int N, typename T> WPNB_FN void adj_sign(const vec_t<N, T>&, vec_t<N, T>&, const vec_t<N, T>&) {}

// Componentwise quotient a[i] / b[i].
template<int N, typename T> WPNB_FN vec_t<N, T> cw_div(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    vec_t<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = wpnb::div(a.c[i], b.c[i]); return r;
}
template<int N, typename T>
WPNB_FN void adj_cw_div(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b, const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) {
        const T g = T(adj_ret.c[i] / b.c[i]);
        la_detail::acc(adj_a.c[i], g);
        la_detail::acc(adj_b.c[i], T(-g * T(a.c[i] / b.c[i])));
    }
}

// Componentwise remainder mod(a[i], b[i]) (scalar.h's mod: sign of a; float d/da = 1, d/db = 0).
template<int N, typename T> WPNB_FN vec_t<N, T> mod(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    vec_t<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = wpnb::mod(a.c[i], b.c[i]); return r;
}
template<int N, typename T>
WPNB_FN void adj_mod(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b, const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) wpnb::adj_mod(a.c[i], b.c[i], adj_a.c[i], adj_b.c[i], adj_ret.c[i]);
}

// ---- products and norms ----

// Inner product sum a[i] * b[i], summed from the first product (not from +0), so the sign of a
// zero result is kept: dot((-0, 0), (1, 1)) ... -0 * 1 + -0 = -0, as Warp.
template<int N, typename T> WPNB_FN T dot(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    T s = T(a.c[0] * b.c[0]); for (int i = 1; i < N; ++i) s = T(s + a.c[i] * b.c[i]); return s;
}
template<int N, typename T>
WPNB_FN void adj_dot(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b, const T& adj_ret) {
    la_detail::acc(adj_a, mul(b, adj_ret)); la_detail::acc(adj_b, mul(a, adj_ret));
}
// 3D cross product a x b.
template<typename T> WPNB_FN vec_t<3, T> cross(const vec_t<3, T>& a, const vec_t<3, T>& b) {
    return vec_t<3, T>(T(a.c[1] * b.c[2] - a.c[2] * b.c[1]), T(a.c[2] * b.c[0] - a.c[0] * b.c[2]),
                       T(a.c[0] * b.c[1] - a.c[1] * b.c[0]));
}
template<typename T>
WPNB_FN void adj_cross(const vec_t<3, T>& a, const vec_t<3, T>& b, vec_t<3, T>& adj_a, vec_t<3, T>& adj_b, const vec_t<3, T>& adj_ret) {
    // c = a x b: adj_a += b x adj_c, adj_b += adj_c x a
    la_detail::acc(adj_a, cross(b, adj_ret)); la_detail::acc(adj_b, cross(adj_ret, a));
}
// Squared Euclidean length dot(a, a).
template<int N, typename T> WPNB_FN T length_sq(const vec_t<N, T>& a) { return dot(a, a); }
template<int N, typename T> WPNB_FN void adj_length_sq(const vec_t<N, T>& a, vec_t<N, T>& adj_a, const T& adj_ret) {
    la_detail::acc(adj_a, mul(a, T(T(2) * adj_ret)));
}
// Euclidean length sqrt(dot(a, a)); gradient a / |a|, taken as 0 at a = 0.
template<int N, typename T> WPNB_FN T length(const vec_t<N, T>& a) { return wpnb::sqrt(dot(a, a)); }
template<int N, typename T> WPNB_FN void adj_length(const vec_t<N, T>& a, vec_t<N, T>& adj_a, const T& adj_ret) {
    const T l = length(a);
    if (l > T(0)) la_detail::acc(adj_a, mul(a, T(adj_ret / l)));
}
// a / |a|; the zero vector maps to the zero vector, with gradient 0 there.
template<int N, typename T> WPNB_FN vec_t<N, T> normalize(const vec_t<N, T>& a) {
    const T l = length(a);
    if (l > T(0)) return div(a, l);
    return vec_t<N, T>();
}
template<int N, typename T> WPNB_FN void adj_normalize(const vec_t<N, T>& a, vec_t<N, T>& adj_a, const vec_t<N, T>& adj_ret) {
    const T l = length(a);
    if (!(l > T(0))) return;
    // y = a / l: adj_a += (adj_y - y * dot(y, adj_y)) / l
    const vec_t<N, T> y = div(a, l);
    la_detail::acc(adj_a, div(sub(adj_ret, mul(y, dot(y, adj_ret))), l));
}

// ---- min / max / abs ----

// Componentwise min(a[i], b[i]); ties follow the scalar wpnb::min/adj_min.
template<int N, typename T> WPNB_FN vec_t<N, T> min(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    vec_t<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = wpnb::min(a.c[i], b.c[i]); return r;
}
template<int N, typename T>
WPNB_FN void adj_min(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b, const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) wpnb::adj_min(a.c[i], b.c[i], adj_a.c[i], adj_b.c[i], adj_ret.c[i]);
}
// Componentwise max(a[i], b[i]); ties follow the scalar wpnb::max/adj_max.
template<int N, typename T> WPNB_FN vec_t<N, T> max(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    vec_t<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = wpnb::max(a.c[i], b.c[i]); return r;
}
template<int N, typename T>
WPNB_FN void adj_max(const vec_t<N, T>& a, const vec_t<N, T>& b, vec_t<N, T>& adj_a, vec_t<N, T>& adj_b, const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) wpnb::adj_max(a.c[i], b.c[i], adj_a.c[i], adj_b.c[i], adj_ret.c[i]);
}
// Index of the smallest component; ties pick the lowest index. A nan component is skipped
// (as C fmin folds), so the result is nan only when every component is.
template<int N, typename T> WPNB_FN uint32 argmin(const vec_t<N, T>& a) {
    uint32 k = 0;
    for (int i = 1; i < N; ++i) if (!isnan(a.c[i]) && (isnan(a.c[k]) || a.c[i] < a.c[k])) k = uint32(i);
    return k;
}
template<int N, typename T> WPNB_FN void adj_argmin(const vec_t<N, T>&, vec_t<N, T>&, const uint32&) {}
// Index of the largest component; ties pick the lowest index; nan components are skipped.
template<int N, typename T> WPNB_FN uint32 argmax(const vec_t<N, T>& a) {
    uint32 k = 0;
    for (int i = 1; i < N; ++i) if (!isnan(a.c[i]) && (isnan(a.c[k]) || a.c[k] < a.c[i])) k = uint32(i);
    return k;
}
template<int N, typename T> WPNB_FN void adj_argmax(const vec_t<N, T>&, vec_t<N, T>&, const uint32&) {}
// Smallest component; the gradient goes to the argmin component (lowest index on ties).
template<int N, typename T> WPNB_FN T min(const vec_t<N, T>& a) { return a.c[argmin(a)]; }
template<int N, typename T> WPNB_FN void adj_min(const vec_t<N, T>& a, vec_t<N, T>& adj_a, const T& adj_ret) {
    la_detail::acc(adj_a.c[argmin(a)], adj_ret);
}
// Largest component; the gradient goes to the argmax component (lowest index on ties).
template<int N, typename T> WPNB_FN T max(const vec_t<N, T>& a) { return a.c[argmax(a)]; }
template<int N, typename T> WPNB_FN void adj_max(const vec_t<N, T>& a, vec_t<N, T>& adj_a, const T& adj_ret) {
    la_detail::acc(adj_a.c[argmax(a)], adj_ret);
}
// Componentwise |a[i]|; the gradient at 0 follows the scalar wpnb::adj_abs.
template<int N, typename T> WPNB_FN vec_t<N, T> abs(const vec_t<N, T>& a) {
    vec_t<N, T> r; for (int i = 0; i < N; ++i) r.c[i] = wpnb::abs(a.c[i]); return r;
}
template<int N, typename T> WPNB_FN void adj_abs(const vec_t<N, T>& a, vec_t<N, T>& adj_a, const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) wpnb::adj_abs(a.c[i], adj_a.c[i], adj_ret.c[i]);
}

// ---- indexing ----

// Component i of a (v[i], v.x); no bounds check.
template<int N, typename T> WPNB_FN T extract(const vec_t<N, T>& a, int32 i) { return a.c[i]; }
template<int N, typename T>
WPNB_FN void adj_extract(const vec_t<N, T>&, int32 i, vec_t<N, T>& adj_a, int32&, const T& adj_ret) {
    la_detail::acc(adj_a.c[i], adj_ret);
}
// v[i] read with a run-time index in unchecked code, as Warp reads it: a negative i counts from the
// end, and an index still outside [0, N) reads 0, never the memory beside the vector.
template<int N, typename T, typename I> WPNB_FN T component_read(const vec_t<N, T>& a, I i) {
    const int64 w = wrap_index(int64(i), N);
    return (w >= 0 && w < N) ? a.c[w] : T(0);
}
// Copy of a with component i replaced by value (v[i] = value in SSA form).
template<int N, typename T>
WPNB_FN vec_t<N, T> with_index(const vec_t<N, T>& a, int32 i, typename la_detail::ident<T>::type value) {
    vec_t<N, T> r = a; r.c[i] = value; return r;
}
template<int N, typename T>
WPNB_FN void adj_with_index(const vec_t<N, T>&, int32 i, typename la_detail::ident<T>::type, vec_t<N, T>& adj_a, int32&, T& adj_value,
                            const vec_t<N, T>& adj_ret) {
    for (int k = 0; k < N; ++k)
        if (k != i) la_detail::acc(adj_a.c[k], adj_ret.c[k]);
    la_detail::acc(adj_value, adj_ret.c[i]);
}

// ---- comparison and interpolation ----

// True when every component is equal (exact comparison).
template<int N, typename T> WPNB_FN bool eq(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    for (int i = 0; i < N; ++i) if (!(a.c[i] == b.c[i])) return false;
    return true;
}
template<int N, typename T> WPNB_FN void adj_eq(const vec_t<N, T>&, const vec_t<N, T>&, vec_t<N, T>&, vec_t<N, T>&, const bool&) {}
// True when some component differs.
template<int N, typename T> WPNB_FN bool ne(const vec_t<N, T>& a, const vec_t<N, T>& b) { return !eq(a, b); }
template<int N, typename T> WPNB_FN void adj_ne(const vec_t<N, T>&, const vec_t<N, T>&, vec_t<N, T>&, vec_t<N, T>&, const bool&) {}
template<int N, typename T> WPNB_FN bool operator==(const vec_t<N, T>& a, const vec_t<N, T>& b) { return eq(a, b); }
template<int N, typename T> WPNB_FN bool operator!=(const vec_t<N, T>& a, const vec_t<N, T>& b) { return !eq(a, b); }

// Linear interpolation a + t * (b - a) = (1 - t) * a + t * b.
template<int N, typename T>
WPNB_FN vec_t<N, T> lerp(const vec_t<N, T>& a, const vec_t<N, T>& b, typename la_detail::ident<T>::type t) {
    return add(a, mul(sub(b, a), t));
}
template<int N, typename T>
WPNB_FN void adj_lerp(const vec_t<N, T>& a, const vec_t<N, T>& b, typename la_detail::ident<T>::type t, vec_t<N, T>& adj_a,
                      vec_t<N, T>& adj_b, T& adj_t, const vec_t<N, T>& adj_ret) {
    la_detail::acc(adj_a, mul(adj_ret, T(T(1) - t)));
    la_detail::acc(adj_b, mul(adj_ret, t));
    la_detail::acc(adj_t, dot(sub(b, a), adj_ret));
}

// Operators for C++ code in these headers (the generated code calls the named builtins).
template<int N, typename T> WPNB_FN vec_t<N, T> operator+(const vec_t<N, T>& a, const vec_t<N, T>& b) { return add(a, b); }
template<int N, typename T> WPNB_FN vec_t<N, T> operator-(const vec_t<N, T>& a, const vec_t<N, T>& b) { return sub(a, b); }
template<int N, typename T> WPNB_FN vec_t<N, T> operator-(const vec_t<N, T>& a) { return neg(a); }
template<int N, typename T> WPNB_FN vec_t<N, T> operator*(const vec_t<N, T>& a, typename la_detail::ident<T>::type s) { return mul(a, s); }
template<int N, typename T> WPNB_FN vec_t<N, T> operator*(typename la_detail::ident<T>::type s, const vec_t<N, T>& a) { return mul(a, s); }
template<int N, typename T> WPNB_FN vec_t<N, T> operator/(const vec_t<N, T>& a, typename la_detail::ident<T>::type s) { return div(a, s); }

// bit_and bit_or bit_xor lshift rshift (a op b) and invert (~a) on integer vectors: componentwise,
// each component as its scalar op does (shift counts out of range give 0, or -1 for rshift of a
// negative signed value). Not differentiable: the adjoints do nothing.
#define WPNB_V_BITWISE(NAME) \
    template <int N, typename T> WPNB_FN vec_t<N, T> NAME(const vec_t<N, T>& a, const vec_t<N, T>& b) { \
        vec_t<N, T> r; for (int k = 0; k < N; ++k) r.c[k] = NAME(a.c[k], b.c[k]); return r; } \
    template <int N, typename T> WPNB_FN void adj_##NAME(const vec_t<N, T>&, const vec_t<N, T>&, vec_t<N, T>&, \
                                                        vec_t<N, T>&, const vec_t<N, T>&) {}
WPNB_V_BITWISE(bit_and)
WPNB_V_BITWISE(bit_or)
WPNB_V_BITWISE(bit_xor)
WPNB_V_BITWISE(lshift)
WPNB_V_BITWISE(rshift)
#undef WPNB_V_BITWISE
template <int N, typename T> WPNB_FN vec_t<N, T> invert(const vec_t<N, T>& a) {
    vec_t<N, T> r; for (int k = 0; k < N; ++k) r.c[k] = invert(a.c[k]); return r; }
template <int N, typename T> WPNB_FN void adj_invert(const vec_t<N, T>&, vec_t<N, T>&, const vec_t<N, T>&) {}
// isnan / isinf: whether any component is; isfinite: whether every component is. No gradient.
template<int N, typename T> WPNB_FN bool isnan(const vec_t<N, T>& a) {
    for (int i = 0; i < N; ++i) if (isnan(a.c[i])) return true;
    return false; }
template<int N, typename T> WPNB_FN bool isinf(const vec_t<N, T>& a) {
    for (int i = 0; i < N; ++i) if (isinf(a.c[i])) return true;
    return false; }
template<int N, typename T> WPNB_FN bool isfinite(const vec_t<N, T>& a) {
    for (int i = 0; i < N; ++i) if (!isfinite(a.c[i])) return false;
    return true; }
template<int N, typename T> WPNB_FN void adj_isnan(const vec_t<N, T>&, vec_t<N, T>&, const bool&) {}
template<int N, typename T> WPNB_FN void adj_isinf(const vec_t<N, T>&, vec_t<N, T>&, const bool&) {}
template<int N, typename T> WPNB_FN void adj_isfinite(const vec_t<N, T>&, vec_t<N, T>&, const bool&) {}

}  // namespace wpnb
