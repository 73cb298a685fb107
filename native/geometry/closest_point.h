// closest_point.h: closest points between two segments (with adjoints) and a triangle-triangle
// overlap test: the primitive-pair geometry that collision code builds on (cloth self-contact,
// edge-edge contact).
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"

namespace wpnb {
namespace cp_detail {
template<typename T> WPNB_FN T clamp01(T x) { return x < T(0) ? T(0) : (x > T(1) ? T(1) : x); }
template<typename T> WPNB_FN bool interior(T x) { return x > T(0) && x < T(1); }
// Below this sin^2 of the angle between the edges, the backward pass treats them as parallel: s is
// held fixed, so gradients stay bounded (|d dist / d point| <= 1) instead of growing as 1 / sin^2.
template<typename T> WPNB_FN T adjoint_parallel_tol() { return T(1.0e-6); }
// The forward pass solves the 2x2 system unless the edges are parallel to rounding error.
template<typename T> WPNB_FN T forward_parallel_tol() { return T(1.0e-12); }

// Which branch of the forward solve produced (s, t); the adjoint differentiates that branch.
enum { BOTH_POINTS, FIRST_POINT, SECOND_POINT, GENERAL, T_CLAMPED };

template<typename T> struct edge_edge_t {
    T s, t;
    int branch;
};

// Minimise |(p1 + s d1) - (p2 + t d2)| over s, t in [0, 1] (Ericson, Real-Time Collision Detection
// 5.1.9): a = |d1|^2, e = |d2|^2, b = d1.d2, c = d1.r, f = d2.r with r = p1 - p2.
template<typename T>
WPNB_FN edge_edge_t<T> solve(const vec_t<3, T>& p1, const vec_t<3, T>& q1, const vec_t<3, T>& p2,
                             const vec_t<3, T>& q2, T epsilon) {
    const vec_t<3, T> d1 = sub(q1, p1), d2 = sub(q2, p2), r = sub(p1, p2);
    const T a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
    edge_edge_t<T> out;
    if (a <= epsilon && e <= epsilon) { out.s = T(0); out.t = T(0); out.branch = BOTH_POINTS; return out; }
    if (a <= epsilon) { out.s = T(0); out.t = clamp01(f / e); out.branch = FIRST_POINT; return out; }
    const T c = dot(d1, r);
    if (e <= epsilon) { out.t = T(0); out.s = clamp01(-c / a); out.branch = SECOND_POINT; return out; }
    const T b = dot(d1, d2);
    const vec_t<3, T> n = cross(d1, d2);
    const T denom = dot(n, n);  // = a e - b^2, without its cancellation for near-parallel edges
    T s = denom > forward_parallel_tol<T>() * a * e ? clamp01((b * f - c * e) / denom) : T(0);
    T t = (b * s + f) / e;
    out.branch = GENERAL;
    if (t < T(0)) { t = T(0); s = clamp01(-c / a); out.branch = T_CLAMPED; }
    else if (t > T(1)) { t = T(1); s = clamp01((b - c) / a); out.branch = T_CLAMPED; }
    out.s = s; out.t = t;
    return out;
}
}  // namespace cp_detail

// Closest points of segments p1-q1 and p2-q2: vec3(s, t, d) with the points p1 + s (q1 - p1) and
// p2 + t (q2 - p2) and their distance d. An edge whose squared length is <= epsilon is a point.
// Parallel edges: s = 0 (or the end that the clamp of t selects).
template<typename T>
WPNB_FN vec_t<3, T> closest_point_edge_edge(const vec_t<3, T>& p1, const vec_t<3, T>& q1, const vec_t<3, T>& p2,
                                            const vec_t<3, T>& q2, T epsilon) {
    const cp_detail::edge_edge_t<T> st = cp_detail::solve(p1, q1, p2, q2, epsilon);
    const vec_t<3, T> c1 = add(p1, mul(sub(q1, p1), st.s)), c2 = add(p2, mul(sub(q2, p2), st.t));
    return vec_t<3, T>(st.s, st.t, length(sub(c1, c2)));
}

// Gradient of d: by the envelope theorem it is that of |c1 - c2| with s and t held fixed (s and t
// minimise it), so it is bounded by 1 per point; 0 where the segments touch (d = 0). Gradients of
// s and t: implicit differentiation of the optimality conditions F1 = d1.w = 0 (s interior) and
// F2 = d2.w = 0 (t interior), w = c1 - c2, on the branch the forward pass took; a clamped parameter,
// a point edge, or (in the backward pass) near-parallel edges hold the parameter fixed.
template<typename T>
WPNB_FN void adj_closest_point_edge_edge(const vec_t<3, T>& p1, const vec_t<3, T>& q1, const vec_t<3, T>& p2,
                                         const vec_t<3, T>& q2, T epsilon, vec_t<3, T>& adj_p1, vec_t<3, T>& adj_q1,
                                         vec_t<3, T>& adj_p2, vec_t<3, T>& adj_q2, T& adj_epsilon,
                                         const vec_t<3, T>& adj_ret) {
    (void)adj_epsilon;
    const cp_detail::edge_edge_t<T> st = cp_detail::solve(p1, q1, p2, q2, epsilon);
    const T s = st.s, t = st.t;
    const vec_t<3, T> d1 = sub(q1, p1), d2 = sub(q2, p2);
    const vec_t<3, T> w = sub(add(p1, mul(d1, s)), add(p2, mul(d2, t)));
    const T dist = length(w);
    // weights on dw (w's explicit dependence) and on dd1, dd2
    vec_t<3, T> g_w = dist > T(0) ? mul(w, T(adj_ret.c[2] / dist)) : vec_t<3, T>();
    vec_t<3, T> g_d1, g_d2;
    // lambda1, lambda2: adjoints of F1 and F2 for the parameters that are free on this branch
    const T a = dot(d1, d1), e = dot(d2, d2), b = dot(d1, d2);
    const T adj_s = adj_ret.c[0], adj_t = adj_ret.c[1];
    const bool s_free_general = st.branch == cp_detail::GENERAL && cp_detail::interior(s);
    const bool parallel = dot(cross(d1, d2), cross(d1, d2)) <= cp_detail::adjoint_parallel_tol<T>() * a * e;
    T l1 = T(0), l2 = T(0);
    if (st.branch == cp_detail::FIRST_POINT) {
        if (cp_detail::interior(t)) l2 = adj_t / e;
    } else if (st.branch == cp_detail::SECOND_POINT || st.branch == cp_detail::T_CLAMPED) {
        if (cp_detail::interior(s)) l1 = -adj_s / a;
    } else if (st.branch == cp_detail::GENERAL) {
        if (s_free_general && cp_detail::interior(t) && !parallel) {
            const T denom = a * e - b * b;
            l1 = (-e * adj_s - b * adj_t) / denom;
            l2 = (b * adj_s + a * adj_t) / denom;
        } else if (cp_detail::interior(t)) {
            l2 = adj_t / e;  // s at a bound (or held for parallel edges): t = (b s + f) / e
        }
    }
    // F1 = d1.w and F2 = d2.w: dF = dd1.w l1 + dd2.w l2 + (l1 d1 + l2 d2).dw
    g_w = add(g_w, add(mul(d1, l1), mul(d2, l2)));
    g_d1 = add(mul(w, l1), mul(g_w, s));  // w = p1 - p2 + s d1 - t d2
    g_d2 = sub(mul(w, l2), mul(g_w, t));
    adj_p1 = add(adj_p1, sub(g_w, g_d1));
    adj_q1 = add(adj_q1, g_d1);
    adj_p2 = sub(adj_p2, add(g_w, g_d2));
    adj_q2 = add(adj_q2, g_d2);
}

namespace cp_detail {
// Projection interval of triangle (a, b, c) on an axis.
template<typename T>
WPNB_FN void project(const vec_t<3, T>& axis, const vec_t<3, T>& a, const vec_t<3, T>& b, const vec_t<3, T>& c,
                     T& lo, T& hi) {
    const T x = dot(axis, a), y = dot(axis, b), z = dot(axis, c);
    lo = x < y ? (x < z ? x : z) : (y < z ? y : z);
    hi = x > y ? (x > z ? x : z) : (y > z ? y : z);
}

template<typename T>
WPNB_FN bool separates(const vec_t<3, T>& axis, const vec_t<3, T>* v, const vec_t<3, T>* u) {
    if (dot(axis, axis) == T(0)) return false;  // parallel edges: no axis
    T vlo, vhi, ulo, uhi;
    project(axis, v[0], v[1], v[2], vlo, vhi);
    project(axis, u[0], u[1], u[2], ulo, uhi);
    return vhi < ulo || uhi < vlo;
}
}  // namespace cp_detail

// 1 if triangles (v0, v1, v2) and (u0, u1, u2) intersect (touching counts), else 0. Separating
// axis test: the two normals and the nine edge-edge cross products; for coplanar triangles the
// in-plane normals of the six edges instead of the cross products.
template<typename T>
WPNB_FN int32 intersect_tri_tri(const vec_t<3, T>& v0, const vec_t<3, T>& v1, const vec_t<3, T>& v2,
                                const vec_t<3, T>& u0, const vec_t<3, T>& u1, const vec_t<3, T>& u2) {
    const vec_t<3, T> v[3] = {v0, v1, v2}, u[3] = {u0, u1, u2};
    const vec_t<3, T> ev[3] = {sub(v1, v0), sub(v2, v1), sub(v0, v2)};
    const vec_t<3, T> eu[3] = {sub(u1, u0), sub(u2, u1), sub(u0, u2)};
    const vec_t<3, T> nv = cross(ev[0], ev[1]), nu = cross(eu[0], eu[1]);
    if (cp_detail::separates(nv, v, u) || cp_detail::separates(nu, v, u)) return 0;
    const vec_t<3, T> n_cross = cross(nv, nu);
    const T scale = dot(nv, nv) * dot(nu, nu);
    if (dot(n_cross, n_cross) > T(1.0e-12) * scale) {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                if (cp_detail::separates(cross(ev[i], eu[j]), v, u)) return 0;
        return 1;
    }
    for (int i = 0; i < 3; ++i) {  // coplanar
        if (cp_detail::separates(cross(nv, ev[i]), v, u)) return 0;
        if (cp_detail::separates(cross(nu, eu[i]), v, u)) return 0;
    }
    return 1;
}
template<typename T>
WPNB_FN void adj_intersect_tri_tri(const vec_t<3, T>&, const vec_t<3, T>&, const vec_t<3, T>&, const vec_t<3, T>&,
                                   const vec_t<3, T>&, const vec_t<3, T>&, vec_t<3, T>&, vec_t<3, T>&, vec_t<3, T>&,
                                   vec_t<3, T>&, vec_t<3, T>&, vec_t<3, T>&, const int32&) {}

}  // namespace wpnb
