// spatial.h: spatial vectors (vec6 = (top w, bottom v), Featherstone's motion/force layout) and the
// conversions between transforms and 4x4 matrices (transform_to_matrix, transform_from_matrix,
// transform_compose, transform_decompose), with adjoints.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"
#include "core/mat.h"
#include "core/quat.h"
#include "core/transform.h"

namespace wpnb {
namespace spatial_detail {
template<typename T> WPNB_FN vec_t<3, T> part(const vec_t<6, T>& a, int o) { return vec_t<3, T>(a.c[o], a.c[o + 1], a.c[o + 2]); }
template<typename T> WPNB_FN void add_part(vec_t<6, T>& a, int o, const vec_t<3, T>& x) {
    for (int i = 0; i < 3; ++i) a.c[o + i] = a.c[o + i] + x.c[i];
}
template<typename T> WPNB_FN vec_t<6, T> join(const vec_t<3, T>& w, const vec_t<3, T>& v) {
    return vec_t<6, T>(w.c[0], w.c[1], w.c[2], v.c[0], v.c[1], v.c[2]);
}
// adj_a += adj_ret x b-style helpers: for r = cross(x, y): adj_x += cross(y, g), adj_y += cross(g, x).
template<typename T> WPNB_FN vec_t<3, T> dx(const vec_t<3, T>& y, const vec_t<3, T>& g) { return cross(y, g); }
template<typename T> WPNB_FN vec_t<3, T> dy(const vec_t<3, T>& x, const vec_t<3, T>& g) { return cross(g, x); }
}  // namespace spatial_detail

// The angular (top, 0..2) and linear (bottom, 3..5) parts.
template<typename T> WPNB_FN vec_t<3, T> spatial_top(const vec_t<6, T>& a) { return spatial_detail::part(a, 0); }
template<typename T> WPNB_FN void adj_spatial_top(const vec_t<6, T>&, vec_t<6, T>& adj_a, const vec_t<3, T>& adj_ret) {
    spatial_detail::add_part(adj_a, 0, adj_ret);
}
template<typename T> WPNB_FN vec_t<3, T> spatial_bottom(const vec_t<6, T>& a) { return spatial_detail::part(a, 3); }
template<typename T> WPNB_FN void adj_spatial_bottom(const vec_t<6, T>&, vec_t<6, T>& adj_a, const vec_t<3, T>& adj_ret) {
    spatial_detail::add_part(adj_a, 3, adj_ret);
}
// The 6-D inner product.
template<typename T> WPNB_FN T spatial_dot(const vec_t<6, T>& a, const vec_t<6, T>& b) { return dot(a, b); }
template<typename T> WPNB_FN void adj_spatial_dot(const vec_t<6, T>& a, const vec_t<6, T>& b, vec_t<6, T>& adj_a, vec_t<6, T>& adj_b,
                                                  const T& adj_ret) {
    for (int i = 0; i < 6; ++i) { adj_a.c[i] = adj_a.c[i] + b.c[i] * adj_ret; adj_b.c[i] = adj_b.c[i] + a.c[i] * adj_ret; }
}
// Motion cross product a x b = (wa x wb, va x wb + wa x vb).
template<typename T> WPNB_FN vec_t<6, T> spatial_cross(const vec_t<6, T>& a, const vec_t<6, T>& b) {
    using namespace spatial_detail;
    const vec_t<3, T> wa = part(a, 0), va = part(a, 3), wb = part(b, 0), vb = part(b, 3);
    return join(cross(wa, wb), add(cross(va, wb), cross(wa, vb)));
}
template<typename T>
WPNB_FN void adj_spatial_cross(const vec_t<6, T>& a, const vec_t<6, T>& b, vec_t<6, T>& adj_a, vec_t<6, T>& adj_b, const vec_t<6, T>& adj_ret) {
    using namespace spatial_detail;
    const vec_t<3, T> wa = part(a, 0), va = part(a, 3), wb = part(b, 0), vb = part(b, 3), gt = part(adj_ret, 0), gb = part(adj_ret, 3);
    add_part(adj_a, 0, add(dx(wb, gt), dx(vb, gb)));
    add_part(adj_a, 3, dx(wb, gb));
    add_part(adj_b, 0, add(dy(wa, gt), dy(va, gb)));
    add_part(adj_b, 3, dy(wa, gb));
}
// Force cross product a x* b = (wa x wb + va x vb, wa x vb).
template<typename T> WPNB_FN vec_t<6, T> spatial_cross_dual(const vec_t<6, T>& a, const vec_t<6, T>& b) {
    using namespace spatial_detail;
    const vec_t<3, T> wa = part(a, 0), va = part(a, 3), wb = part(b, 0), vb = part(b, 3);
    return join(add(cross(wa, wb), cross(va, vb)), cross(wa, vb));
}
template<typename T>
WPNB_FN void adj_spatial_cross_dual(const vec_t<6, T>& a, const vec_t<6, T>& b, vec_t<6, T>& adj_a, vec_t<6, T>& adj_b,
                                    const vec_t<6, T>& adj_ret) {
    using namespace spatial_detail;
    const vec_t<3, T> wa = part(a, 0), va = part(a, 3), wb = part(b, 0), vb = part(b, 3), gt = part(adj_ret, 0), gb = part(adj_ret, 3);
    add_part(adj_a, 0, add(dx(wb, gt), dx(vb, gb)));
    add_part(adj_a, 3, dx(vb, gt));
    add_part(adj_b, 0, dy(wa, gt));
    add_part(adj_b, 3, add(dy(va, gt), dy(wa, gb)));
}
// The 6x6 block matrix [[R, 0], [S, R]].
template<typename T> WPNB_FN mat_t<6, 6, T> spatial_adjoint(const mat_t<3, 3, T>& R, const mat_t<3, 3, T>& S) {
    mat_t<6, 6, T> m;
    for (int i = 0; i < 3; ++i) for (int j = 0; j < 3; ++j) {
        m.c[i][j] = R.c[i][j]; m.c[i + 3][j + 3] = R.c[i][j]; m.c[i + 3][j] = S.c[i][j];
    }
    return m;
}
template<typename T>
WPNB_FN void adj_spatial_adjoint(const mat_t<3, 3, T>&, const mat_t<3, 3, T>&, mat_t<3, 3, T>& adj_R, mat_t<3, 3, T>& adj_S,
                                 const mat_t<6, 6, T>& g) {
    for (int i = 0; i < 3; ++i) for (int j = 0; j < 3; ++j) {
        adj_R.c[i][j] = adj_R.c[i][j] + g.c[i][j] + g.c[i + 3][j + 3];
        adj_S.c[i][j] = adj_S.c[i][j] + g.c[i + 3][j];
    }
}

// [[R(q) diag(s), p], [0, 0, 0, 1]]: the matrix of translation p, rotation q and scale s.
template<typename T> WPNB_FN mat_t<4, 4, T> transform_compose(const vec_t<3, T>& p, const quat_t<T>& q, const vec_t<3, T>& s) {
    const mat_t<3, 3, T> R = quat_to_matrix(q);
    mat_t<4, 4, T> m;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) m.c[i][j] = R.c[i][j] * s.c[j];
        m.c[i][3] = p.c[i];
    }
    m.c[3][3] = T(1);
    return m;
}
template<typename T>
WPNB_FN void adj_transform_compose(const vec_t<3, T>& p, const quat_t<T>& q, const vec_t<3, T>& s, vec_t<3, T>& adj_p, quat_t<T>& adj_q,
                                   vec_t<3, T>& adj_s, const mat_t<4, 4, T>& g) {
    (void)p;
    const mat_t<3, 3, T> R = quat_to_matrix(q);
    mat_t<3, 3, T> gR;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) { gR.c[i][j] = g.c[i][j] * s.c[j]; adj_s.c[j] = adj_s.c[j] + g.c[i][j] * R.c[i][j]; }
        adj_p.c[i] = adj_p.c[i] + g.c[i][3];
    }
    adj_quat_to_matrix(q, adj_q, gR);
}
// The transform's 4x4 matrix [[R(q), p], [0, 0, 0, 1]].
template<typename T> WPNB_FN mat_t<4, 4, T> transform_to_matrix(const transform_t<T>& t) {
    return transform_compose(t.p, t.q, vec_t<3, T>(T(1), T(1), T(1)));
}
template<typename T> WPNB_FN void adj_transform_to_matrix(const transform_t<T>& t, transform_t<T>& adj_t, const mat_t<4, 4, T>& g) {
    vec_t<3, T> adj_s;
    adj_transform_compose(t.p, t.q, vec_t<3, T>(T(1), T(1), T(1)), adj_t.p, adj_t.q, adj_s, g);
}
// The transform of a rigid 4x4 matrix: translation from the last column, rotation from the top-left
// 3x3 block (quat_from_matrix; the last row is ignored).
template<typename T> WPNB_FN transform_t<T> transform_from_matrix(const mat_t<4, 4, T>& m) {
    return transform_t<T>(vec_t<3, T>(m.c[0][3], m.c[1][3], m.c[2][3]), quat_from_matrix(m));
}
template<typename T> WPNB_FN void adj_transform_from_matrix(const mat_t<4, 4, T>& m, mat_t<4, 4, T>& adj_m, const transform_t<T>& g) {
    for (int i = 0; i < 3; ++i) adj_m.c[i][3] = adj_m.c[i][3] + g.p.c[i];
    adj_quat_from_matrix(m, adj_m, g.q);
}
// transform_decompose(m, p, q, s): the inverse of transform_compose for a matrix without shear:
// s_j = |column j| of the 3x3 block, q = quat_from_matrix(block / s), p = the last column.
template<typename T> WPNB_FN void transform_decompose(const mat_t<4, 4, T>& m, vec_t<3, T>& p, quat_t<T>& q, vec_t<3, T>& s) {
    mat_t<3, 3, T> R;
    for (int j = 0; j < 3; ++j) {
        s.c[j] = length(vec_t<3, T>(m.c[0][j], m.c[1][j], m.c[2][j]));
        for (int i = 0; i < 3; ++i) R.c[i][j] = s.c[j] > T(0) ? T(m.c[i][j] / s.c[j]) : T(0);
        p.c[j] = m.c[j][3];
    }
    q = quat_from_matrix(R);
}
template<typename T>
WPNB_FN void adj_transform_decompose(const mat_t<4, 4, T>& m, vec_t<3, T>&, quat_t<T>&, vec_t<3, T>&, mat_t<4, 4, T>& adj_m,
                                     vec_t<3, T>& adj_p, quat_t<T>& adj_q, vec_t<3, T>& adj_s) {
    vec_t<3, T> s; mat_t<3, 3, T> R, gR;
    for (int j = 0; j < 3; ++j) {
        s.c[j] = length(vec_t<3, T>(m.c[0][j], m.c[1][j], m.c[2][j]));
        for (int i = 0; i < 3; ++i) R.c[i][j] = s.c[j] > T(0) ? T(m.c[i][j] / s.c[j]) : T(0);
        adj_m.c[j][3] = adj_m.c[j][3] + adj_p.c[j];
    }
    adj_quat_from_matrix(R, gR, adj_q);
    for (int j = 0; j < 3; ++j) {
        if (!(s.c[j] > T(0))) continue;
        // R_ij = m_ij / s_j, s_j = |m_:j|: d s_j / d m_ij = R_ij
        T back = T(0);
        for (int i = 0; i < 3; ++i) back = back + gR.c[i][j] * R.c[i][j];
        const T gs = adj_s.c[j] - back / s.c[j];
        for (int i = 0; i < 3; ++i) adj_m.c[i][j] = adj_m.c[i][j] + gR.c[i][j] / s.c[j] + gs * R.c[i][j];
    }
}

// transform_twist(t, x): a twist (w, v) moved by t: (R w, R v + p x R w).
template<typename T> WPNB_FN vec_t<6, T> transform_twist(const transform_t<T>& t, const vec_t<6, T>& x) {
    using namespace spatial_detail;
    const vec_t<3, T> w = quat_rotate(t.q, part(x, 0));
    return join(w, add(quat_rotate(t.q, part(x, 3)), cross(t.p, w)));
}
template<typename T>
WPNB_FN void adj_transform_twist(const transform_t<T>& t, const vec_t<6, T>& x, transform_t<T>& adj_t, vec_t<6, T>& adj_x,
                                 const vec_t<6, T>& adj_ret) {
    using namespace spatial_detail;
    const vec_t<3, T> w = quat_rotate(t.q, part(x, 0)), gb = part(adj_ret, 3);
    vec_t<3, T> gw = add(part(adj_ret, 0), dy(t.p, gb)), gx0, gx3;
    la_detail::acc(adj_t.p, dx(w, gb));
    adj_quat_rotate(t.q, part(x, 3), adj_t.q, gx3, gb);
    adj_quat_rotate(t.q, part(x, 0), adj_t.q, gx0, gw);
    add_part(adj_x, 0, gx0); add_part(adj_x, 3, gx3);
}
// transform_wrench(t, x): a wrench (torque, force) moved by t: (R tau + p x R f, R f).
template<typename T> WPNB_FN vec_t<6, T> transform_wrench(const transform_t<T>& t, const vec_t<6, T>& x) {
    using namespace spatial_detail;
    const vec_t<3, T> f = quat_rotate(t.q, part(x, 3));
    return join(add(quat_rotate(t.q, part(x, 0)), cross(t.p, f)), f);
}
template<typename T>
WPNB_FN void adj_transform_wrench(const transform_t<T>& t, const vec_t<6, T>& x, transform_t<T>& adj_t, vec_t<6, T>& adj_x,
                                  const vec_t<6, T>& adj_ret) {
    using namespace spatial_detail;
    const vec_t<3, T> f = quat_rotate(t.q, part(x, 3)), gt = part(adj_ret, 0);
    vec_t<3, T> gf = add(part(adj_ret, 3), dy(t.p, gt)), gx0, gx3;
    la_detail::acc(adj_t.p, dx(f, gt));
    adj_quat_rotate(t.q, part(x, 0), adj_t.q, gx0, gt);
    adj_quat_rotate(t.q, part(x, 3), adj_t.q, gx3, gf);
    add_part(adj_x, 0, gx0); add_part(adj_x, 3, gx3);
}
// velocity_at_point(qd, r): the velocity v + w x r of the point at offset r under the twist qd = (w, v).
template<typename T> WPNB_FN vec_t<3, T> velocity_at_point(const vec_t<6, T>& qd, const vec_t<3, T>& r) {
    using namespace spatial_detail;
    return add(part(qd, 3), cross(part(qd, 0), r));
}
template<typename T>
WPNB_FN void adj_velocity_at_point(const vec_t<6, T>& qd, const vec_t<3, T>& r, vec_t<6, T>& adj_qd, vec_t<3, T>& adj_r,
                                   const vec_t<3, T>& adj_ret) {
    using namespace spatial_detail;
    add_part(adj_qd, 3, adj_ret);
    add_part(adj_qd, 0, dx(r, adj_ret));
    la_detail::acc(adj_r, dy(part(qd, 0), adj_ret));
}
// transform_set_translation / transform_set_rotation(t, x): replace a part of t in place.
template<typename T> WPNB_FN void transform_set_translation(transform_t<T>& t, const vec_t<3, T>& p) { t.p = p; }
template<typename T> WPNB_FN void adj_transform_set_translation(transform_t<T>&, const vec_t<3, T>&, transform_t<T>&, vec_t<3, T>&) {}
template<typename T> WPNB_FN void transform_set_rotation(transform_t<T>& t, const quat_t<T>& q) { t.q = q; }
template<typename T> WPNB_FN void adj_transform_set_rotation(transform_t<T>&, const quat_t<T>&, transform_t<T>&, quat_t<T>&) {}

}  // namespace wpnb
