// mat_decomp.h: 3x3 decompositions svd3, qr3, eig3 with adjoints. They return through output
// arguments, as Warp's output-argument forms do; an adjoint takes the primal arguments, then
// adj_A followed by the incoming gradients of the outputs (read, not written), and adds into adj_A.
// It recomputes the decomposition from A. half and float32 matrices are decomposed in float64
// on the CPU, half in float32 on CUDA (WPNB_WIDE_DECOMPOSITIONS).
//
// Sign and order conventions: eigen/singular vectors are columns. svd3, svd2 and eig3 follow
// Warp's (see jacobi_rotations and closed_svd2). qr3's are its own: R00, R11 >= 0 (see qr3).
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"
#include "core/mat.h"

namespace wpnb {
namespace la_detail {
// the type a decomposition of T works in (WPNB_WIDE_DECOMPOSITIONS: see core/prelude.h)
template<typename T> struct work_type { typedef T type; };
#if WPNB_WIDE_DECOMPOSITIONS
template<> struct work_type<float32> { typedef float64 type; };
template<> struct work_type<half> { typedef float64 type; };
#else
template<> struct work_type<half> { typedef float32 type; };
#endif
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
template<typename W> WPNB_FN void swap_w(W& a, W& b) { const W t = a; a = b; b = t; }

// Rotation G of the (p, q) plane (G[p][p] = G[q][q] = c, G[p][q] = -s, G[q][p] = s):
// M <- M G (columns p, q) and M <- G^T M (rows p, q).
template<typename W> WPNB_FN void rotate_cols(mat_t<3, 3, W>& M, int p, int q, W c, W s) {
    for (int r = 0; r < 3; ++r) {
        const W mp = M.c[r][p], mq = M.c[r][q];
        M.c[r][p] = c * mp + s * mq; M.c[r][q] = c * mq - s * mp;
    }
}
template<typename W> WPNB_FN void rotate_rows(mat_t<3, 3, W>& M, int p, int q, W c, W s) {
    for (int r = 0; r < 3; ++r) {
        const W mp = M.c[p][r], mq = M.c[q][r];
        M.c[p][r] = c * mp + s * mq; M.c[q][r] = c * mq - s * mp;
    }
}
// Columns i, j of B and V exchanged when column j of B is longer, the new column j negated (a
// quarter turn, so det V stays +1).
template<typename W> WPNB_FN void sort_pair(mat_t<3, 3, W>& B, mat_t<3, 3, W>& V, vec_t<3, W>& rho, int i, int j) {
    if (!(rho.c[i] < rho.c[j])) return;
    const vec_t<3, W> b = col(B, i), v = col(V, i);
    set_col(B, i, col(B, j)); set_col(V, i, col(V, j));
    set_col(B, j, -b); set_col(V, j, -v);
    swap_w(rho.c[i], rho.c[j]);
}

// Diagonalises the symmetric S by Jacobi rotations, accumulated into V (S <- G^T S G, V <- V G),
// in the steps of McAdams et al. (2011), which Warp's svd3 and eig3 take: first the paper's
// approximate rotations, in pairs (0, 1), (1, 2), (2, 0), a fixed number of sweeps (4, or 8 in
// float64). They fix the order of the diagonal and which way each vector points, so that results
// agree with Warp's (its eig3 leaves the diagonal unsorted in that order). Then exact rotations
// until S is diagonal to rounding: Warp stops after the fixed sweeps, with reconstruction errors up
// to 5.6e-3 measured on float32 matrices with close singular values.
template<typename W> WPNB_FN void jacobi_rotations(mat_t<3, 3, W>& S, mat_t<3, 3, W>& V) {
    const int P[3] = {0, 1, 2}, Q[3] = {1, 2, 0};  // the pairs of a sweep: (0, 1), (1, 2), (2, 0)
    V = identity<3, W>();
    const W gamma = W(5.828427124746190), cstar = W(0.9238795325112867), sstar = W(0.3826834323650898);
    for (int sweep = 0; sweep < (sizeof(W) > 4 ? 8 : 4); ++sweep) for (int k = 0; k < 3; ++k) {
        const int p = P[k], q = Q[k];
        W sh = S.c[p][q];
        if (sh == W(0)) continue;  // nothing to rotate (the paper turns by pi/4 when the diagonal ties)
        W ch = W(2) * (S.c[p][p] - S.c[q][q]);
        if (gamma * sh * sh < ch * ch) {
            const W w = W(1) / wpnb::sqrt(ch * ch + sh * sh);
            ch *= w; sh *= w;
        } else {
            ch = cstar; sh = sstar;
        }
        const W c = ch * ch - sh * sh, sn = W(2) * ch * sh;
        rotate_cols(S, p, q, c, sn); rotate_rows(S, p, q, c, sn); rotate_cols(V, p, q, c, sn);
    }
    const W eps = eps_of<W>::get();
    for (int sweep = 0; sweep < 16; ++sweep) {
        const W off = S.c[0][1] * S.c[0][1] + S.c[0][2] * S.c[0][2] + S.c[1][2] * S.c[1][2];
        const W dia = S.c[0][0] * S.c[0][0] + S.c[1][1] * S.c[1][1] + S.c[2][2] * S.c[2][2];
        if (!(off > eps * eps * dia * W(1e-2))) break;
        for (int k = 0; k < 3; ++k) {
            const int p = P[k], q = Q[k];
            const W b = S.c[p][q];
            if (b == W(0)) continue;
            // the smaller root t = tan(angle) of t^2 - 2 th t - 1 = 0: (G^T S G)[p][q] = 0
            const W th = (S.c[q][q] - S.c[p][p]) / (W(2) * b);
            const W t = (th < W(0) ? W(1) : W(-1)) / (wpnb::abs(th) + wpnb::sqrt(th * th + W(1)));
            const W c = W(1) / wpnb::sqrt(t * t + W(1)), sn = t * c;
            rotate_cols(S, p, q, c, sn); rotate_rows(S, p, q, c, sn); rotate_cols(V, p, q, c, sn);
        }
    }
}

// Symmetric eigendecomposition of (S + S^T) / 2: eigenvalues in d in the order the rotations leave
// them (Warp's), eigenvectors in the columns of Q (det +1).
template<typename W> WPNB_FN void jacobi_eig(const mat_t<3, 3, W>& S0, mat_t<3, 3, W>& Q, vec_t<3, W>& d) {
    mat_t<3, 3, W> S = mul(add(S0, transpose(S0)), W(0.5));
    jacobi_rotations(S, Q);
    d = get_diag(S);
}

// SVD A = U diag(s) V^T in the steps of McAdams et al. (2011), the method whose conventions Warp's
// svd3 follows: V from a Jacobi eigenanalysis of A^T A, B = A V with its columns sorted by length,
// then B = U R by Givens rotations; s = diag(R).
// |s| descending, s0, s1 >= 0, s2 with the sign of det(A), det(U) = det(V) = +1.
template<typename W> WPNB_FN void rotation_svd(const mat_t<3, 3, W>& A, mat_t<3, 3, W>& U, vec_t<3, W>& s, mat_t<3, 3, W>& V) {
    mat_t<3, 3, W> S = mul(transpose(A), A);
    jacobi_rotations(S, V);
    mat_t<3, 3, W> B = mul(A, V);
    vec_t<3, W> rho(dot(col(B, 0), col(B, 0)), dot(col(B, 1), col(B, 1)), dot(col(B, 2), col(B, 2)));
    sort_pair(B, V, rho, 0, 1); sort_pair(B, V, rho, 0, 2); sort_pair(B, V, rho, 1, 2);
    U = identity<3, W>();
    for (int k = 0; k < 3; ++k) {  // Givens QR of B: zero B[1][0], B[2][0], B[2][1], pivots made >= 0
        const int p = k == 2 ? 1 : 0, q = k == 0 ? 1 : 2;
        const W a1 = B.c[p][p], a2 = B.c[q][p];
        const W r = wpnb::sqrt(a1 * a1 + a2 * a2);
        if (r == W(0)) continue;
        W ch = wpnb::abs(a1) + r, sh = a2;  // (ch, sh): the half angle of the rotation
        if (a1 < W(0)) swap_w(ch, sh);
        const W w = W(1) / wpnb::sqrt(ch * ch + sh * sh);
        ch *= w; sh *= w;
        const W c = ch * ch - sh * sh, sn = W(2) * ch * sh;
        rotate_rows(B, p, q, c, sn); rotate_cols(U, p, q, c, sn);
    }
    s = get_diag(B);
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
// eigenvectors in the columns of Q, det(Q) = +1, the eigenvalues unsorted, in Warp's order.
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
    la_detail::rotation_svd(mat_t<3, 3, W>(A), u, s, v);
    U = mat_t<3, 3, T>(u); sigma = vec_t<3, T>(s); V = mat_t<3, 3, T>(v);
}
// adj_A += U ((F o (U^T gU - gU^T U)) S + diag(g_sigma) + S (F o (V^T gV - gV^T V))) V^T with
// F_ij = 1 / (s_j^2 - s_i^2) (0 for equal |s|, where singular vectors are not unique).
template<typename T>
WPNB_FN void adj_svd3(const mat_t<3, 3, T>& A, mat_t<3, 3, T>&, vec_t<3, T>&, mat_t<3, 3, T>&, mat_t<3, 3, T>& adj_A, mat_t<3, 3, T>& adj_U,
                      vec_t<3, T>& adj_sigma, mat_t<3, 3, T>& adj_V) {
    typedef typename la_detail::work_type<T>::type W;
    mat_t<3, 3, W> U, V; vec_t<3, W> s;
    la_detail::rotation_svd(mat_t<3, 3, W>(A), U, s, V);
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

// 2x2 singular value decomposition A = U diag(sigma) V^T in closed form, with Warp's conventions:
// sigma0 >= sigma1 >= 0, V a rotation by an angle in (-3pi/4, pi/4], det U = sign of det(A).
// With E, F, G, H the halves of (a + d, a - d, c + b, c - b): sigma = sqrt(E^2 + H^2) +- sqrt(F^2 + G^2),
// and A = rot(phi) diag(q + r, q - r) rot(-theta) with phi = (atan2(H, E) + atan2(G, F)) / 2 and
// theta = (atan2(G, F) - atan2(H, E)) / 2; then U's second column takes the sign of q - r.
namespace la_detail {
template<typename W> WPNB_FN void closed_svd2(const mat_t<2, 2, W>& A, mat_t<2, 2, W>& U, vec_t<2, W>& s, mat_t<2, 2, W>& V) {
    const W E = (A.c[0][0] + A.c[1][1]) * W(0.5), F = (A.c[0][0] - A.c[1][1]) * W(0.5);
    const W G = (A.c[1][0] + A.c[0][1]) * W(0.5), H = (A.c[1][0] - A.c[0][1]) * W(0.5);
    const W q = sqrt(E * E + H * H), r = sqrt(F * F + G * G);
    const W a1 = atan2(G, F), a2 = atan2(H, E);
    const W phi = (a2 + a1) * W(0.5), theta = (a1 - a2) * W(0.5);
    W cu = cos(phi), su = sin(phi), cv = cos(theta), sv = sin(theta);
    if (!(cv - sv > W(0) || (cv == sv && cv > W(0)))) {  // V's angle outside (-3pi/4, pi/4]: turn both by pi
        cu = -cu; su = -su; cv = -cv; sv = -sv;
    }
    const W flip = q < r ? W(-1) : W(1);  // a reflection (det A < 0): U's second column turns
    s.c[0] = q + r; s.c[1] = (q - r) * flip;
    U.c[0][0] = cu; U.c[0][1] = -su * flip; U.c[1][0] = su; U.c[1][1] = cu * flip;
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
// needs full rank: a rank-deficient A (a diagonal entry of R at rounding level, 64 eps of the work
// type relative to R's largest one) gives no gradient, as in Warp. An exact test let the rounding
// left of an exactly singular matrix's R22 (1e-16) through R^-T as gradients of order one.
template<typename T>
WPNB_FN void adj_qr3(const mat_t<3, 3, T>& A, mat_t<3, 3, T>&, mat_t<3, 3, T>&, mat_t<3, 3, T>& adj_A, mat_t<3, 3, T>& adj_Q, mat_t<3, 3, T>& adj_R) {
    typedef typename la_detail::work_type<T>::type W;
    mat_t<3, 3, W> Q, R;
    la_detail::gram_schmidt_qr(mat_t<3, 3, W>(A), Q, R);
    const W r00 = abs(R.c[0][0]), r11 = abs(R.c[1][1]), r22 = abs(R.c[2][2]);
    const W tiny = W(64) * la_detail::eps_of<W>::get() * max(r00, max(r11, r22));
    if (!(r00 > tiny && r11 > tiny && r22 > tiny)) return;
    const mat_t<3, 3, W> gQ(adj_Q), gR(adj_R);
    mat_t<3, 3, W> M = sub(mul(R, transpose(gR)), mul(transpose(gQ), Q));
    for (int i = 0; i < 3; ++i) for (int j = i + 1; j < 3; ++j) M.c[i][j] = M.c[j][i];
    la_detail::acc(adj_A, mat_t<3, 3, T>(mul(add(gQ, mul(Q, M)), transpose(inverse(R)))));
}

}  // namespace wpnb
