// mat_decomp.h: 3x3 decompositions svd3, qr3, eig3 with adjoints. They return through output
// arguments, as Warp's output-argument forms do; an adjoint takes the primal arguments, then
// adj_A followed by the incoming gradients of the outputs (read, not written), and adds into adj_A.
// It recomputes the decomposition from A. half matrices are decomposed in float32.
//
// Sign and order conventions (Warp leaves some unspecified; these make the results smooth
// functions of A away from ties): eigen/singular vectors are columns; in the first two columns the
// component of largest magnitude is positive; the third column is cross(col0, col1), so every
// orthogonal factor has determinant +1.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"
#include "core/mat.h"

namespace wpnb {
namespace la_detail {
template<typename T> struct work_type { typedef T type; };
template<> struct work_type<half> { typedef float32 type; };
template<typename W> struct eps_of;
template<> struct eps_of<float32> { static WPNB_FN float32 get() { return 1.1920929e-7f; } };
template<> struct eps_of<float64> { static WPNB_FN float64 get() { return 2.220446049250313e-16; } };

template<typename W> WPNB_FN vec_t<3, W> col(const mat_t<3, 3, W>& m, int j) { return col_getter::get(m, j); }
template<typename W> WPNB_FN void set_col(mat_t<3, 3, W>& m, int j, const vec_t<3, W>& v) {
    for (int i = 0; i < 3; ++i) m.c[i][j] = v.c[i];
}
// A unit vector orthogonal to the unit vector u.
template<typename W> WPNB_FN vec_t<3, W> any_perp(const vec_t<3, W>& u) {
    const uint32 k = argmin(abs(u));
    vec_t<3, W> e; e.c[k] = W(1);
    return normalize(cross(u, e));
}
// +1 or -1 so that sign * v has a positive component of largest magnitude.
template<typename W> WPNB_FN W canon_sign(const vec_t<3, W>& v) { return v.c[argmax(abs(v))] < W(0) ? W(-1) : W(1); }
template<typename W> WPNB_FN void swap_cols(mat_t<3, 3, W>& m, int a, int b) {
    const vec_t<3, W> t = col(m, a); set_col(m, a, col(m, b)); set_col(m, b, t);
}
template<typename W> WPNB_FN void swap_w(W& a, W& b) { const W t = a; a = b; b = t; }

// Symmetric eigendecomposition of (S + S^T) / 2 by cyclic Jacobi rotations:
// eigenvalues ascending in d, eigenvectors in the columns of Q (canonical signs, det +1).
template<typename W> WPNB_FN void jacobi_eig(const mat_t<3, 3, W>& S0, mat_t<3, 3, W>& Q, vec_t<3, W>& d) {
    mat_t<3, 3, W> S = mul(add(S0, transpose(S0)), W(0.5));
    Q = identity<3, W>();
    const W eps = eps_of<W>::get();
    for (int sweep = 0; sweep < 32; ++sweep) {
        const W off = S.c[0][1] * S.c[0][1] + S.c[0][2] * S.c[0][2] + S.c[1][2] * S.c[1][2];
        const W dia = S.c[0][0] * S.c[0][0] + S.c[1][1] * S.c[1][1] + S.c[2][2] * S.c[2][2];
        if (!(off > eps * eps * dia * W(1e-2))) break;
        for (int p = 0; p < 2; ++p) for (int q = p + 1; q < 3; ++q) {
            const W apq = S.c[p][q];
            if (apq == W(0)) continue;
            // rotation J in the (p, q) plane with (J^T S J)[p][q] = 0
            const W th = (S.c[q][q] - S.c[p][p]) / (W(2) * apq);
            const W t = (th < W(0) ? W(-1) : W(1)) / (wpnb::abs(th) + wpnb::sqrt(th * th + W(1)));
            const W c = W(1) / wpnb::sqrt(t * t + W(1)), s = t * c;
            for (int r = 0; r < 3; ++r) {  // S <- S J (columns p, q)
                const W srp = S.c[r][p], srq = S.c[r][q];
                S.c[r][p] = c * srp - s * srq; S.c[r][q] = s * srp + c * srq;
            }
            for (int r = 0; r < 3; ++r) {  // S <- J^T S (rows p, q)
                const W spr = S.c[p][r], sqr = S.c[q][r];
                S.c[p][r] = c * spr - s * sqr; S.c[q][r] = s * spr + c * sqr;
            }
            for (int r = 0; r < 3; ++r) {  // Q <- Q J
                const W qrp = Q.c[r][p], qrq = Q.c[r][q];
                Q.c[r][p] = c * qrp - s * qrq; Q.c[r][q] = s * qrp + c * qrq;
            }
        }
    }
    d = get_diag(S);
    for (int i = 0; i < 2; ++i) for (int j = 0; j < 2 - i; ++j)  // sort ascending
        if (d.c[j + 1] < d.c[j]) { swap_w(d.c[j], d.c[j + 1]); swap_cols(Q, j, j + 1); }
    const vec_t<3, W> q0 = mul(col(Q, 0), canon_sign(col(Q, 0))), q1 = mul(col(Q, 1), canon_sign(col(Q, 1)));
    set_col(Q, 0, q0); set_col(Q, 1, q1); set_col(Q, 2, cross(q0, q1));
}

// SVD A = U diag(s) V^T by one-sided (Hestenes) Jacobi on the columns of A V; |s| descending,
// s0, s1 >= 0, s2 carries the sign of det(A); U and V canonical with det +1.
template<typename W> WPNB_FN void hestenes_svd(const mat_t<3, 3, W>& A, mat_t<3, 3, W>& U, vec_t<3, W>& s, mat_t<3, 3, W>& V) {
    mat_t<3, 3, W> B = A;
    V = identity<3, W>();
    const W eps = eps_of<W>::get();
    for (int sweep = 0; sweep < 32; ++sweep) {
        bool rotated = false;
        for (int p = 0; p < 2; ++p) for (int q = p + 1; q < 3; ++q) {
            const vec_t<3, W> bp = col(B, p), bq = col(B, q);
            const W al = dot(bp, bp), be = dot(bq, bq), ga = dot(bp, bq);
            if (!(wpnb::abs(ga) > eps * W(0.1) * wpnb::sqrt(al * be)) || ga == W(0)) continue;
            rotated = true;
            const W ze = (be - al) / (W(2) * ga);
            const W t = (ze < W(0) ? W(-1) : W(1)) / (wpnb::abs(ze) + wpnb::sqrt(W(1) + ze * ze));
            const W c = W(1) / wpnb::sqrt(W(1) + t * t), sn = c * t;
            set_col(B, p, sub(mul(bp, c), mul(bq, sn))); set_col(B, q, add(mul(bp, sn), mul(bq, c)));
            const vec_t<3, W> vp = col(V, p), vq = col(V, q);
            set_col(V, p, sub(mul(vp, c), mul(vq, sn))); set_col(V, q, add(mul(vp, sn), mul(vq, c)));
        }
        if (!rotated) break;
    }
    for (int i = 0; i < 3; ++i) s.c[i] = length(col(B, i));
    for (int i = 0; i < 2; ++i) for (int j = 0; j < 2 - i; ++j)  // sort descending
        if (s.c[j] < s.c[j + 1]) { swap_w(s.c[j], s.c[j + 1]); swap_cols(B, j, j + 1); swap_cols(V, j, j + 1); }
    for (int j = 0; j < 2; ++j) {  // canonical v0, v1 (u flips with v); v2 = v0 x v1
        const W sg = canon_sign(col(V, j));
        set_col(V, j, mul(col(V, j), sg)); set_col(B, j, mul(col(B, j), sg));
    }
    set_col(V, 2, cross(col(V, 0), col(V, 1)));
    vec_t<3, W> u0 = s.c[0] > W(0) ? div(col(B, 0), s.c[0]) : vec_t<3, W>(W(1), W(0), W(0));
    // u1: column 1 of B made orthogonal to u0 (two passes, so that a column that is only
    // rounding noise, when s1 ~ 0, still yields an orthonormal u1); any_perp when nothing is left
    vec_t<3, W> r1 = sub(col(B, 1), mul(u0, dot(u0, col(B, 1))));
    r1 = sub(r1, mul(u0, dot(u0, r1)));
    const W n1 = length(r1);
    const vec_t<3, W> u1 = n1 > W(0) ? div(r1, n1) : any_perp(u0);
    const vec_t<3, W> u2 = cross(u0, u1);
    set_col(U, 0, u0); set_col(U, 1, u1); set_col(U, 2, u2);
    s.c[2] = dot(u2, mul(A, col(V, 2)));  // signed third singular value
}

// QR by Gram-Schmidt: q0, q1 from the first two columns (R00, R11 >= 0), q2 = q0 x q1, R22 signed.
template<typename W> WPNB_FN void gram_schmidt_qr(const mat_t<3, 3, W>& A, mat_t<3, 3, W>& Q, mat_t<3, 3, W>& R) {
    const vec_t<3, W> a0 = col(A, 0), a1 = col(A, 1), a2 = col(A, 2);
    R = mat_t<3, 3, W>();
    R.c[0][0] = length(a0);
    const vec_t<3, W> q0 = R.c[0][0] > W(0) ? div(a0, R.c[0][0]) : vec_t<3, W>(W(1), W(0), W(0));
    R.c[0][1] = dot(q0, a1);
    vec_t<3, W> r1 = sub(a1, mul(q0, R.c[0][1]));
    r1 = sub(r1, mul(q0, dot(q0, r1)));  // second pass for orthogonality
    R.c[1][1] = length(r1);
    const vec_t<3, W> q1 = R.c[1][1] > W(0) ? div(r1, R.c[1][1]) : any_perp(q0);
    const vec_t<3, W> q2 = cross(q0, q1);
    R.c[0][2] = dot(q0, a2); R.c[1][2] = dot(q1, a2); R.c[2][2] = dot(q2, a2);
    set_col(Q, 0, q0); set_col(Q, 1, q1); set_col(Q, 2, q2);
}
// 1 / (b - a), or 0 when b == a (degenerate pair: that coupling term is dropped).
template<typename W> WPNB_FN W inv_gap(W a, W b) { return b == a ? W(0) : W(1) / (b - a); }
}  // namespace la_detail

// Symmetric eigendecomposition: A = Q diag(d) Q^T for symmetric A (uses (A + A^T) / 2);
// eigenvalues ascending, eigenvectors in the columns of Q, det(Q) = +1.
template<typename T> WPNB_FN void eig3(const mat_t<3, 3, T>& A, mat_t<3, 3, T>& Q, vec_t<3, T>& d) {
    typedef typename la_detail::work_type<T>::type W;
    mat_t<3, 3, W> q; vec_t<3, W> dw;
    la_detail::jacobi_eig(mat_t<3, 3, W>(A), q, dw);
    Q = mat_t<3, 3, T>(q); d = vec_t<3, T>(dw);
}
// adj_A += sym(Q (diag(adj_d) + F o (Q^T adj_Q)) Q^T), F_ij = 1 / (d_j - d_i) (0 for equal eigenvalues).
template<typename T>
WPNB_FN void adj_eig3(const mat_t<3, 3, T>& A, mat_t<3, 3, T>&, vec_t<3, T>&, mat_t<3, 3, T>& adj_A, mat_t<3, 3, T>& adj_Q, vec_t<3, T>& adj_d) {
    typedef typename la_detail::work_type<T>::type W;
    mat_t<3, 3, W> Q; vec_t<3, W> d;
    la_detail::jacobi_eig(mat_t<3, 3, W>(A), Q, d);
    mat_t<3, 3, W> M = mul(transpose(Q), mat_t<3, 3, W>(adj_Q));
    for (int i = 0; i < 3; ++i) for (int j = 0; j < 3; ++j)
        M.c[i][j] = (i == j) ? W(adj_d.c[i]) : M.c[i][j] * la_detail::inv_gap(d.c[i], d.c[j]);
    const mat_t<3, 3, W> G = mul(mul(Q, M), transpose(Q));
    la_detail::acc(adj_A, mat_t<3, 3, T>(mul(add(G, transpose(G)), W(0.5))));
}

// Singular value decomposition A = U diag(sigma) V^T (Warp's conventions: |sigma| descending,
// sigma0, sigma1 >= 0, sigma2 has the sign of det(A), det(U) = det(V) = +1).
template<typename T> WPNB_FN void svd3(const mat_t<3, 3, T>& A, mat_t<3, 3, T>& U, vec_t<3, T>& sigma, mat_t<3, 3, T>& V) {
    typedef typename la_detail::work_type<T>::type W;
    mat_t<3, 3, W> u, v; vec_t<3, W> s;
    la_detail::hestenes_svd(mat_t<3, 3, W>(A), u, s, v);
    U = mat_t<3, 3, T>(u); sigma = vec_t<3, T>(s); V = mat_t<3, 3, T>(v);
}
// adj_A += U ((F o (U^T gU - gU^T U)) S + diag(g_sigma) + S (F o (V^T gV - gV^T V))) V^T with
// F_ij = 1 / (s_j^2 - s_i^2) (0 for equal |s|, where singular vectors are not unique).
template<typename T>
WPNB_FN void adj_svd3(const mat_t<3, 3, T>& A, mat_t<3, 3, T>&, vec_t<3, T>&, mat_t<3, 3, T>&, mat_t<3, 3, T>& adj_A, mat_t<3, 3, T>& adj_U,
                      vec_t<3, T>& adj_sigma, mat_t<3, 3, T>& adj_V) {
    typedef typename la_detail::work_type<T>::type W;
    mat_t<3, 3, W> U, V; vec_t<3, W> s;
    la_detail::hestenes_svd(mat_t<3, 3, W>(A), U, s, V);
    const mat_t<3, 3, W> gU(adj_U), gV(adj_V);
    const mat_t<3, 3, W> JU = sub(mul(transpose(U), gU), mul(transpose(gU), U));
    const mat_t<3, 3, W> JV = sub(mul(transpose(V), gV), mul(transpose(gV), V));
    mat_t<3, 3, W> M;
    for (int i = 0; i < 3; ++i) for (int j = 0; j < 3; ++j) {
        if (i == j) { M.c[i][j] = W(adj_sigma.c[i]); continue; }
        const W f = la_detail::inv_gap(s.c[i] * s.c[i], s.c[j] * s.c[j]);
        M.c[i][j] = f * (JU.c[i][j] * s.c[j] + s.c[i] * JV.c[i][j]);
    }
    la_detail::acc(adj_A, mat_t<3, 3, T>(mul(mul(U, M), transpose(V))));
}

// 2x2 singular value decomposition A = U diag(sigma) V^T in closed form: U and V are rotations
// (det +1), sigma0 >= |sigma1|, sigma1 has the sign of det(A). With E, F, G, H the halves of
// (a + d, a - d, c + b, c - b): sigma = sqrt(E^2 + H^2) +- sqrt(F^2 + G^2), and the rotation angles
// are (atan2(H, E) + atan2(G, F)) / 2 for U and (atan2(G, F) - atan2(H, E)) / 2 for V.
namespace la_detail {
template<typename W> WPNB_FN void closed_svd2(const mat_t<2, 2, W>& A, mat_t<2, 2, W>& U, vec_t<2, W>& s, mat_t<2, 2, W>& V) {
    const W E = (A.c[0][0] + A.c[1][1]) * W(0.5), F = (A.c[0][0] - A.c[1][1]) * W(0.5);
    const W G = (A.c[1][0] + A.c[0][1]) * W(0.5), H = (A.c[1][0] - A.c[0][1]) * W(0.5);
    const W q = sqrt(E * E + H * H), r = sqrt(F * F + G * G);
    const W a1 = atan2(G, F), a2 = atan2(H, E);
    const W phi = (a2 + a1) * W(0.5), theta = (a1 - a2) * W(0.5);  // A = rot(phi) diag(s) rot(-theta)
    s.c[0] = q + r; s.c[1] = q - r;
    const W cu = cos(phi), su = sin(phi), cv = cos(theta), sv = sin(theta);
    U.c[0][0] = cu; U.c[0][1] = -su; U.c[1][0] = su; U.c[1][1] = cu;
    V.c[0][0] = cv; V.c[0][1] = -sv; V.c[1][0] = sv; V.c[1][1] = cv;
}
}  // namespace la_detail
template<typename T> WPNB_FN void svd2(const mat_t<2, 2, T>& A, mat_t<2, 2, T>& U, vec_t<2, T>& sigma, mat_t<2, 2, T>& V) {
    typedef typename la_detail::work_type<T>::type W;
    mat_t<2, 2, W> u, v; vec_t<2, W> s;
    la_detail::closed_svd2(mat_t<2, 2, W>(A), u, s, v);
    U = mat_t<2, 2, T>(u); sigma = vec_t<2, T>(s); V = mat_t<2, 2, T>(v);
}
// The 3x3 rule of adj_svd3 on 2x2 (F_ij = 1 / (s_j^2 - s_i^2), 0 for equal |s|).
template<typename T>
WPNB_FN void adj_svd2(const mat_t<2, 2, T>& A, mat_t<2, 2, T>&, vec_t<2, T>&, mat_t<2, 2, T>&, mat_t<2, 2, T>& adj_A, mat_t<2, 2, T>& adj_U,
                      vec_t<2, T>& adj_sigma, mat_t<2, 2, T>& adj_V) {
    typedef typename la_detail::work_type<T>::type W;
    mat_t<2, 2, W> U, V; vec_t<2, W> s;
    la_detail::closed_svd2(mat_t<2, 2, W>(A), U, s, V);
    const mat_t<2, 2, W> gU(adj_U), gV(adj_V);
    const mat_t<2, 2, W> JU = sub(mul(transpose(U), gU), mul(transpose(gU), U));
    const mat_t<2, 2, W> JV = sub(mul(transpose(V), gV), mul(transpose(gV), V));
    mat_t<2, 2, W> M;
    for (int i = 0; i < 2; ++i) for (int j = 0; j < 2; ++j) {
        if (i == j) { M.c[i][j] = W(adj_sigma.c[i]); continue; }
        const W f = la_detail::inv_gap(s.c[i] * s.c[i], s.c[j] * s.c[j]);
        M.c[i][j] = f * (JU.c[i][j] * s.c[j] + s.c[i] * JV.c[i][j]);
    }
    adj_A = add(adj_A, mat_t<2, 2, T>(mul(mul(U, M), transpose(V))));
}

// QR decomposition A = Q R: Q orthogonal with det +1, R upper triangular with R00, R11 >= 0 and
// R22 of the sign of det(A) (Gram-Schmidt; rank-deficient columns get an arbitrary orthogonal completion).
template<typename T> WPNB_FN void qr3(const mat_t<3, 3, T>& A, mat_t<3, 3, T>& Q, mat_t<3, 3, T>& R) {
    typedef typename la_detail::work_type<T>::type W;
    mat_t<3, 3, W> q, r;
    la_detail::gram_schmidt_qr(mat_t<3, 3, W>(A), q, r);
    Q = mat_t<3, 3, T>(q); R = mat_t<3, 3, T>(r);
}
// adj_A += (gQ + Q copyltu(M)) R^-T, M = R gR^T - gQ^T Q, copyltu mirrors the lower triangle;
// needs full rank (a zero diagonal entry of R gives no gradient).
template<typename T>
WPNB_FN void adj_qr3(const mat_t<3, 3, T>& A, mat_t<3, 3, T>&, mat_t<3, 3, T>&, mat_t<3, 3, T>& adj_A, mat_t<3, 3, T>& adj_Q, mat_t<3, 3, T>& adj_R) {
    typedef typename la_detail::work_type<T>::type W;
    mat_t<3, 3, W> Q, R;
    la_detail::gram_schmidt_qr(mat_t<3, 3, W>(A), Q, R);
    if (R.c[0][0] == W(0) || R.c[1][1] == W(0) || R.c[2][2] == W(0)) return;
    const mat_t<3, 3, W> gQ(adj_Q), gR(adj_R);
    mat_t<3, 3, W> M = sub(mul(R, transpose(gR)), mul(transpose(gQ), Q));
    for (int i = 0; i < 3; ++i) for (int j = i + 1; j < 3; ++j) M.c[i][j] = M.c[j][i];
    la_detail::acc(adj_A, mat_t<3, 3, T>(mul(add(gQ, mul(Q, M)), transpose(inverse(R)))));
}

}  // namespace wpnb
