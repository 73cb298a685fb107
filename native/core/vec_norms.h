// vec_norms.h: vector norms and the smooth normalisation (norm_l1, norm_l2, norm_huber,
// norm_pseudo_huber, smooth_normalize), with adjoints (delta, a threshold > 0, gets its gradient too).
// Computed in the vector's own type (half through vec.h's half arithmetic).
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"

namespace wpnb {

// sum |v_i|; gradient sign(v_i), +1 at 0 (as abs).
template<int N, typename T> WPNB_FN T norm_l1(const vec_t<N, T>& v) {
    T s = T(0); for (int i = 0; i < N; ++i) s = s + wpnb::abs(v.c[i]); return s;
}
template<int N, typename T> WPNB_FN void adj_norm_l1(const vec_t<N, T>& v, vec_t<N, T>& adj_v, const T& adj_ret) {
    for (int i = 0; i < N; ++i) wpnb::adj_abs(v.c[i], adj_v.c[i], adj_ret);
}
// |v|, as length (gradient 0 at v = 0).
template<int N, typename T> WPNB_FN T norm_l2(const vec_t<N, T>& v) { return length(v); }
template<int N, typename T> WPNB_FN void adj_norm_l2(const vec_t<N, T>& v, vec_t<N, T>& adj_v, const T& adj_ret) {
    adj_length(v, adj_v, adj_ret);
}
// Huber: |v|^2 / 2 when |v|^2 <= delta^2, else delta (|v| - delta / 2); gradient v, or delta v / |v|.
// (Squares compared, as Warp does: a negative delta takes the quadratic branch where |v| <= |delta|.)
template<int N, typename T> WPNB_FN T norm_huber(const vec_t<N, T>& v, T delta) {
    const T l = length(v);
    return l * l <= delta * delta ? T(T(0.5) * l * l) : T(delta * (l - T(0.5) * delta));
}
template<int N, typename T> WPNB_FN void adj_norm_huber(const vec_t<N, T>& v, T delta, vec_t<N, T>& adj_v, T& adj_delta, const T& adj_ret) {
    const T l = length(v);
    const bool quadratic = l * l <= delta * delta;
    if (!quadratic) adj_delta = adj_delta + adj_ret * (l - delta);
    const T k = quadratic ? adj_ret : T(delta * adj_ret / l);
    for (int i = 0; i < N; ++i) adj_v.c[i] = adj_v.c[i] + k * v.c[i];
}
template<int N, typename T> WPNB_FN T norm_huber(const vec_t<N, T>& v) { return norm_huber(v, T(1)); }
template<int N, typename T> WPNB_FN void adj_norm_huber(const vec_t<N, T>& v, vec_t<N, T>& adj_v, const T& adj_ret) {
    T ad = T(0); adj_norm_huber(v, T(1), adj_v, ad, adj_ret);
}
// Pseudo-Huber: delta sqrt(1 + |v|^2 / delta^2) (= delta at v = 0); gradient v / that.
template<int N, typename T> WPNB_FN T norm_pseudo_huber(const vec_t<N, T>& v, T delta) {
    return T(delta * wpnb::sqrt(T(T(1) + dot(v, v) / (delta * delta))));
}
template<int N, typename T>
WPNB_FN void adj_norm_pseudo_huber(const vec_t<N, T>& v, T delta, vec_t<N, T>& adj_v, T& adj_delta, const T& adj_ret) {
    // h = sqrt(delta^2 + |v|^2): dh/dv = v / h, dh/ddelta = delta / h
    const T k = adj_ret / norm_pseudo_huber(v, delta);
    adj_delta = adj_delta + k * delta;
    for (int i = 0; i < N; ++i) adj_v.c[i] = adj_v.c[i] + k * v.c[i];
}
template<int N, typename T> WPNB_FN T norm_pseudo_huber(const vec_t<N, T>& v) { return norm_pseudo_huber(v, T(1)); }
template<int N, typename T> WPNB_FN void adj_norm_pseudo_huber(const vec_t<N, T>& v, vec_t<N, T>& adj_v, const T& adj_ret) {
    T ad = T(0); adj_norm_pseudo_huber(v, T(1), adj_v, ad, adj_ret);
}
// v / norm_pseudo_huber(v, delta): smooth everywhere, 0 at 0. With h the norm, y = v / h:
// adj_v += (adj_y - v dot(v, adj_y) / h^2) / h.
template<int N, typename T> WPNB_FN vec_t<N, T> smooth_normalize(const vec_t<N, T>& v, T delta) {
    return div(v, norm_pseudo_huber(v, delta));
}
template<int N, typename T>
WPNB_FN void adj_smooth_normalize(const vec_t<N, T>& v, T delta, vec_t<N, T>& adj_v, T& adj_delta, const vec_t<N, T>& adj_ret) {
    const T h = norm_pseudo_huber(v, delta);
    const T d = dot(v, adj_ret) / (h * h);
    adj_delta = adj_delta - d * delta / h;  // dy/ddelta = -v delta / h^3
    for (int i = 0; i < N; ++i) adj_v.c[i] = adj_v.c[i] + (adj_ret.c[i] - v.c[i] * d) / h;
}
template<int N, typename T> WPNB_FN vec_t<N, T> smooth_normalize(const vec_t<N, T>& v) { return smooth_normalize(v, T(1)); }
template<int N, typename T> WPNB_FN void adj_smooth_normalize(const vec_t<N, T>& v, vec_t<N, T>& adj_v, const vec_t<N, T>& adj_ret) {
    T ad = T(0); adj_smooth_normalize(v, T(1), adj_v, ad, adj_ret);
}

}  // namespace wpnb
