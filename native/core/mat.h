// mat.h: mat_t<R, C, T>, a row-major R x C matrix (storage T[R][C], no padding), and its
// builtins with adjoints. Vectors multiply as columns (m * v) unless the name says otherwise.
//
// Matrices from vectors: Warp's kernel-scope `wp.matrix(v0, v1, ...)` / `wp.mat33(v0, v1, v2)`
// took the vectors as COLUMNS (Warp issues #278/#497; Python scope used rows). Warp deprecated
// that form in 1.7 for `matrix_from_cols` / `matrix_from_rows`, which are provided here; code
// generated for the old form should call matrix_from_cols. mat_t has no vector constructor.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"

namespace wpnb {

template<int R, int C, typename T>
struct mat_t {
    T c[R > 0 ? R : 1][C > 0 ? C : 1];  // R or C = 0 (Warp's mat00, an empty slice): as vec_t<0, T>

    // Zero matrix.
    WPNB_FN mat_t() { for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) c[i][j] = T(0); }
    // Every entry is s (Warp's mat33(s)).
    WPNB_FN explicit mat_t(T s) { for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) c[i][j] = s; }
    // From R*C scalars in row-major order: mat22(a, b, c, d) = [[a, b], [c, d]].
    template<typename... A, typename = typename la_detail::enable_if<(sizeof...(A) + 2 == R * C)>::type>
    WPNB_FN mat_t(T a0, T a1, A... rest) {
        const T tmp[R * C] = {a0, a1, T(rest)...};
        for (int k = 0; k < R * C; ++k) c[k / C][k % C] = tmp[k];
    }
    // Element-type conversion, entrywise T(u).
    template<typename U>
    WPNB_FN explicit mat_t(const mat_t<R, C, U>& u) {
        for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) c[i][j] = T(u.c[i][j]);
    }
    WPNB_FN T& operator()(int i, int j) { return c[i][j]; }
    WPNB_FN const T& operator()(int i, int j) const { return c[i][j]; }
};

typedef mat_t<2, 2, float32> mat22f; typedef mat_t<3, 3, float32> mat33f; typedef mat_t<4, 4, float32> mat44f;
typedef mat_t<2, 2, float64> mat22d; typedef mat_t<3, 3, float64> mat33d; typedef mat_t<4, 4, float64> mat44d;
typedef mat_t<2, 2, half> mat22h;    typedef mat_t<3, 3, half> mat33h;    typedef mat_t<4, 4, half> mat44h;
typedef mat_t<6, 6, float32> spatial_matrixf; typedef mat_t<6, 6, float64> spatial_matrixd;
typedef mat_t<6, 6, half> spatial_matrixh;

// Entry k of m in row-major order (constructor adjoints).
template<int R, int C, typename T> WPNB_FN T la_flat_get(const mat_t<R, C, T>& m, int k) { return m.c[k / C][k % C]; }

namespace la_detail {
template<int R, int C, typename T> WPNB_FN void acc(mat_t<R, C, T>& a, const mat_t<R, C, T>& b) {
    for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) acc(a.c[i][j], b.c[i][j]);
}
struct row_getter {
    template<int R, int C, typename T> static WPNB_FN vec_t<C, T> get(const mat_t<R, C, T>& g, int k) {
        vec_t<C, T> r; for (int j = 0; j < C; ++j) r.c[j] = g.c[k][j]; return r;
    }
};
struct col_getter {
    template<int R, int C, typename T> static WPNB_FN vec_t<R, T> get(const mat_t<R, C, T>& g, int k) {
        vec_t<R, T> r; for (int i = 0; i < R; ++i) r.c[i] = g.c[i][k]; return r;
    }
};
}  // namespace la_detail

// ---- constructor adjoints (the primal is the mat_t constructor) ----

// Adjoint of mat_t(s) (broadcast): adj_s += sum of adj_ret.
template<int R, int C, typename T>
WPNB_FN void adj_mat_t(T, T& adj_s, const mat_t<R, C, T>& adj_ret) {
    for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) la_detail::acc(adj_s, adj_ret.c[i][j]);
}
// Adjoint of mat_t<R,C,T>(mat_t<R,C,U>) (conversion): adj_u += U(adj_ret).
template<int R, int C, typename T, typename U>
WPNB_FN void adj_mat_t(const mat_t<R, C, U>&, mat_t<R, C, U>& adj_u, const mat_t<R, C, T>& adj_ret) {
    for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) la_detail::acc(adj_u.c[i][j], U(adj_ret.c[i][j]));
}
// Adjoint of mat_t(a0, ..., a_{RC-1}): adj_mat_t(a.., adj_a.., adj_ret); adj_ak += adj_ret entry k (row-major).
template<typename... A>
WPNB_FN typename la_detail::enable_if<(sizeof...(A) >= 5)>::type adj_mat_t(A&&... args) {
    la_detail::ctor_scatter<int(sizeof...(A) - 1) / 2, la_detail::flat_getter>::run(la_detail::last_arg(args...), static_cast<A&&>(args)...);
}

// Matrix whose rows are the given vectors: K vectors of length C give a K x C matrix.
template<int C, typename T, typename... V>
WPNB_FN mat_t<1 + sizeof...(V), C, T> matrix_from_rows(const vec_t<C, T>& v0, const V&... rest) {
    const vec_t<C, T>* rows[] = {&v0, &rest...};
    mat_t<1 + sizeof...(V), C, T> m;
    for (int i = 0; i < int(1 + sizeof...(V)); ++i) for (int j = 0; j < C; ++j) m.c[i][j] = rows[i]->c[j];
    return m;
}
// Adjoint of matrix_from_rows: adj_matrix_from_rows(v.., adj_v.., adj_ret); adj_vi += row i of adj_ret.
template<typename... A>
WPNB_FN typename la_detail::enable_if<(sizeof...(A) >= 3)>::type adj_matrix_from_rows(A&&... args) {
    la_detail::ctor_scatter<int(sizeof...(A) - 1) / 2, la_detail::row_getter>::run(la_detail::last_arg(args...), static_cast<A&&>(args)...);
}
// Matrix whose columns are the given vectors: K vectors of length R give an R x K matrix
// (what Warp's deprecated kernel-scope matrix(v0, v1, ...) does).
template<int R, typename T, typename... V>
WPNB_FN mat_t<R, 1 + sizeof...(V), T> matrix_from_cols(const vec_t<R, T>& v0, const V&... rest) {
    const vec_t<R, T>* cols[] = {&v0, &rest...};
    mat_t<R, 1 + sizeof...(V), T> m;
    for (int j = 0; j < int(1 + sizeof...(V)); ++j) for (int i = 0; i < R; ++i) m.c[i][j] = cols[j]->c[i];
    return m;
}
// Adjoint of matrix_from_cols: adj_matrix_from_cols(v.., adj_v.., adj_ret); adj_vj += column j of adj_ret.
template<typename... A>
WPNB_FN typename la_detail::enable_if<(sizeof...(A) >= 3)>::type adj_matrix_from_cols(A&&... args) {
    la_detail::ctor_scatter<int(sizeof...(A) - 1) / 2, la_detail::col_getter>::run(la_detail::last_arg(args...), static_cast<A&&>(args)...);
}

// N x N identity matrix (called as identity<3, float32>()).
template<int N, typename T> WPNB_FN mat_t<N, N, T> identity() {
    mat_t<N, N, T> m; for (int i = 0; i < N; ++i) m.c[i][i] = T(1); return m;
}
template<int N, typename T> WPNB_FN void adj_identity(const mat_t<N, N, T>&) {}

// ---- entrywise arithmetic ----

// a + b.
template<int R, int C, typename T> WPNB_FN mat_t<R, C, T> add(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) {
    mat_t<R, C, T> r; for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) r.c[i][j] = T(a.c[i][j] + b.c[i][j]); return r;
}
template<int R, int C, typename T>
WPNB_FN void adj_add(const mat_t<R, C, T>&, const mat_t<R, C, T>&, mat_t<R, C, T>& adj_a, mat_t<R, C, T>& adj_b, const mat_t<R, C, T>& adj_ret) {
    la_detail::acc(adj_a, adj_ret); la_detail::acc(adj_b, adj_ret);
}
// -a.
template<int R, int C, typename T> WPNB_FN mat_t<R, C, T> neg(const mat_t<R, C, T>& a) {
    mat_t<R, C, T> r; for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) r.c[i][j] = T(-a.c[i][j]); return r;
}
template<int R, int C, typename T> WPNB_FN void adj_neg(const mat_t<R, C, T>&, mat_t<R, C, T>& adj_a, const mat_t<R, C, T>& adj_ret) {
    la_detail::acc(adj_a, neg(adj_ret));
}
// a - b.
template<int R, int C, typename T> WPNB_FN mat_t<R, C, T> sub(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) {
    mat_t<R, C, T> r; for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) r.c[i][j] = T(a.c[i][j] - b.c[i][j]); return r;
}
template<int R, int C, typename T>
WPNB_FN void adj_sub(const mat_t<R, C, T>&, const mat_t<R, C, T>&, mat_t<R, C, T>& adj_a, mat_t<R, C, T>& adj_b, const mat_t<R, C, T>& adj_ret) {
    la_detail::acc(adj_a, adj_ret); la_detail::acc(adj_b, neg(adj_ret));
}
// +a (identity).
template<int R, int C, typename T> WPNB_FN mat_t<R, C, T> pos(const mat_t<R, C, T>& a) { return a; }
template<int R, int C, typename T> WPNB_FN void adj_pos(const mat_t<R, C, T>&, mat_t<R, C, T>& adj_a, const mat_t<R, C, T>& adj_ret) {
    la_detail::acc(adj_a, adj_ret);
}
// m * s (every entry scaled).
template<int R, int C, typename T> WPNB_FN mat_t<R, C, T> mul(const mat_t<R, C, T>& m, typename la_detail::ident<T>::type s) {
    mat_t<R, C, T> r; for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) r.c[i][j] = T(m.c[i][j] * s); return r;
}
template<int R, int C, typename T>
WPNB_FN void adj_mul(const mat_t<R, C, T>& m, typename la_detail::ident<T>::type s, mat_t<R, C, T>& adj_m, T& adj_s, const mat_t<R, C, T>& adj_ret) {
    la_detail::acc(adj_m, mul(adj_ret, s)); la_detail::acc(adj_s, ddot(m, adj_ret));
}
// s * m.
template<int R, int C, typename T> WPNB_FN mat_t<R, C, T> mul(typename la_detail::ident<T>::type s, const mat_t<R, C, T>& m) { return mul(m, s); }
template<int R, int C, typename T>
WPNB_FN void adj_mul(typename la_detail::ident<T>::type s, const mat_t<R, C, T>& m, T& adj_s, mat_t<R, C, T>& adj_m, const mat_t<R, C, T>& adj_ret) {
    adj_mul(m, s, adj_m, adj_s, adj_ret);
}
// m / s (every entry divided).
template<int R, int C, typename T> WPNB_FN mat_t<R, C, T> div(const mat_t<R, C, T>& m, typename la_detail::ident<T>::type s) {
    mat_t<R, C, T> r; for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) r.c[i][j] = wpnb::div(T(m.c[i][j]), T(s)); return r;
}
template<int R, int C, typename T>
WPNB_FN void adj_div(const mat_t<R, C, T>& m, typename la_detail::ident<T>::type s, mat_t<R, C, T>& adj_m, T& adj_s, const mat_t<R, C, T>& adj_ret) {
    la_detail::acc(adj_m, div(adj_ret, s)); la_detail::acc(adj_s, T(-ddot(m, adj_ret) / T(s * s)));
}
// s / m (entrywise s / m[i][j]).
template<int R, int C, typename T> WPNB_FN mat_t<R, C, T> div(typename la_detail::ident<T>::type s, const mat_t<R, C, T>& m) {
    mat_t<R, C, T> r; for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) r.c[i][j] = wpnb::div(T(s), m.c[i][j]); return r;
}
template<int R, int C, typename T>
WPNB_FN void adj_div(typename la_detail::ident<T>::type s, const mat_t<R, C, T>& m, T& adj_s, mat_t<R, C, T>& adj_m, const mat_t<R, C, T>& adj_ret) {
    for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) {
        const T inv = T(T(1) / m.c[i][j]);
        la_detail::acc(adj_s, T(adj_ret.c[i][j] * inv));
        la_detail::acc(adj_m.c[i][j], T(-adj_ret.c[i][j] * T(s * T(inv * inv))));
    }
}
// Entrywise product a[i][j] * b[i][j].
template<int R, int C, typename T> WPNB_FN mat_t<R, C, T> cw_mul(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) {
    mat_t<R, C, T> r; for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) r.c[i][j] = T(a.c[i][j] * b.c[i][j]); return r;
}
template<int R, int C, typename T>
WPNB_FN void adj_cw_mul(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b, mat_t<R, C, T>& adj_a, mat_t<R, C, T>& adj_b, const mat_t<R, C, T>& adj_ret) {
    la_detail::acc(adj_a, cw_mul(b, adj_ret)); la_detail::acc(adj_b, cw_mul(a, adj_ret));
}
// Entrywise quotient a[i][j] / b[i][j].
template<int R, int C, typename T> WPNB_FN mat_t<R, C, T> cw_div(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) {
    mat_t<R, C, T> r; for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) r.c[i][j] = wpnb::div(a.c[i][j], b.c[i][j]); return r;
}
template<int R, int C, typename T>
WPNB_FN void adj_cw_div(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b, mat_t<R, C, T>& adj_a, mat_t<R, C, T>& adj_b, const mat_t<R, C, T>& adj_ret) {
    for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) {
        const T g = T(adj_ret.c[i][j] / b.c[i][j]);
        la_detail::acc(adj_a.c[i][j], g);
        la_detail::acc(adj_b.c[i][j], T(-g * T(a.c[i][j] / b.c[i][j])));
    }
}
// Frobenius inner product sum a[i][j] * b[i][j].
template<int R, int C, typename T> WPNB_FN T ddot(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) {
    T s = T(0); for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) s = T(s + a.c[i][j] * b.c[i][j]); return s;
}
template<int R, int C, typename T>
WPNB_FN void adj_ddot(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b, mat_t<R, C, T>& adj_a, mat_t<R, C, T>& adj_b, const T& adj_ret) {
    la_detail::acc(adj_a, mul(b, adj_ret)); la_detail::acc(adj_b, mul(a, adj_ret));
}

// ---- products ----

// Matrix product (R x K) * (K x C).
template<int R, int K, int C, typename T> WPNB_FN mat_t<R, C, T> mul(const mat_t<R, K, T>& a, const mat_t<K, C, T>& b) {
    mat_t<R, C, T> r;
    for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) {
        T s = T(0); for (int k = 0; k < K; ++k) s = T(s + a.c[i][k] * b.c[k][j]); r.c[i][j] = s;
    }
    return r;
}
template<int R, int K, int C, typename T>
WPNB_FN void adj_mul(const mat_t<R, K, T>& a, const mat_t<K, C, T>& b, mat_t<R, K, T>& adj_a, mat_t<K, C, T>& adj_b, const mat_t<R, C, T>& adj_ret) {
    // adj_a += adj_ret * b^T, adj_b += a^T * adj_ret
    la_detail::acc(adj_a, mul(adj_ret, transpose(b))); la_detail::acc(adj_b, mul(transpose(a), adj_ret));
}
// Matrix times column vector m * v.
template<int R, int C, typename T> WPNB_FN vec_t<R, T> mul(const mat_t<R, C, T>& m, const vec_t<C, T>& v) {
    vec_t<R, T> r;
    for (int i = 0; i < R; ++i) { T s = T(0); for (int j = 0; j < C; ++j) s = T(s + m.c[i][j] * v.c[j]); r.c[i] = s; }
    return r;
}
template<int R, int C, typename T>
WPNB_FN void adj_mul(const mat_t<R, C, T>& m, const vec_t<C, T>& v, mat_t<R, C, T>& adj_m, vec_t<C, T>& adj_v, const vec_t<R, T>& adj_ret) {
    // adj_m += adj_ret v^T, adj_v += m^T adj_ret
    la_detail::acc(adj_m, outer(adj_ret, v)); la_detail::acc(adj_v, mul(adj_ret, m));
}
// Row vector times matrix v^T * m.
template<int R, int C, typename T> WPNB_FN vec_t<C, T> mul(const vec_t<R, T>& v, const mat_t<R, C, T>& m) {
    vec_t<C, T> r;
    for (int j = 0; j < C; ++j) { T s = T(0); for (int i = 0; i < R; ++i) s = T(s + v.c[i] * m.c[i][j]); r.c[j] = s; }
    return r;
}
template<int R, int C, typename T>
WPNB_FN void adj_mul(const vec_t<R, T>& v, const mat_t<R, C, T>& m, vec_t<R, T>& adj_v, mat_t<R, C, T>& adj_m, const vec_t<C, T>& adj_ret) {
    // adj_v += m adj_ret, adj_m += v adj_ret^T
    la_detail::acc(adj_v, mul(m, adj_ret)); la_detail::acc(adj_m, outer(v, adj_ret));
}
// Outer product a b^T (R x C).
template<int R, int C, typename T> WPNB_FN mat_t<R, C, T> outer(const vec_t<R, T>& a, const vec_t<C, T>& b) {
    mat_t<R, C, T> r; for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) r.c[i][j] = T(a.c[i] * b.c[j]); return r;
}
template<int R, int C, typename T>
WPNB_FN void adj_outer(const vec_t<R, T>& a, const vec_t<C, T>& b, vec_t<R, T>& adj_a, vec_t<C, T>& adj_b, const mat_t<R, C, T>& adj_ret) {
    la_detail::acc(adj_a, mul(adj_ret, b)); la_detail::acc(adj_b, mul(a, adj_ret));
}
// Transpose m^T.
template<int R, int C, typename T> WPNB_FN mat_t<C, R, T> transpose(const mat_t<R, C, T>& m) {
    mat_t<C, R, T> r; for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) r.c[j][i] = m.c[i][j]; return r;
}
template<int R, int C, typename T> WPNB_FN void adj_transpose(const mat_t<R, C, T>&, mat_t<R, C, T>& adj_m, const mat_t<C, R, T>& adj_ret) {
    la_detail::acc(adj_m, transpose(adj_ret));
}

// ---- square-matrix functions ----

// Sum of the diagonal.
template<int N, typename T> WPNB_FN T trace(const mat_t<N, N, T>& m) {
    T s = T(0); for (int i = 0; i < N; ++i) s = T(s + m.c[i][i]); return s;
}
template<int N, typename T> WPNB_FN void adj_trace(const mat_t<N, N, T>&, mat_t<N, N, T>& adj_m, const T& adj_ret) {
    for (int i = 0; i < N; ++i) la_detail::acc(adj_m.c[i][i], adj_ret);
}
// Square matrix with v on the diagonal and zeros elsewhere.
template<int N, typename T> WPNB_FN mat_t<N, N, T> diag(const vec_t<N, T>& v) {
    mat_t<N, N, T> m; for (int i = 0; i < N; ++i) m.c[i][i] = v.c[i]; return m;
}
template<int N, typename T> WPNB_FN void adj_diag(const vec_t<N, T>&, vec_t<N, T>& adj_v, const mat_t<N, N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) la_detail::acc(adj_v.c[i], adj_ret.c[i][i]);
}
// The diagonal of a square matrix as a vector.
template<int N, typename T> WPNB_FN vec_t<N, T> get_diag(const mat_t<N, N, T>& m) {
    vec_t<N, T> v; for (int i = 0; i < N; ++i) v.c[i] = m.c[i][i]; return v;
}
template<int N, typename T> WPNB_FN void adj_get_diag(const mat_t<N, N, T>&, mat_t<N, N, T>& adj_m, const vec_t<N, T>& adj_ret) {
    for (int i = 0; i < N; ++i) la_detail::acc(adj_m.c[i][i], adj_ret.c[i]);
}
// Cross-product matrix: skew(a) * b == cross(a, b); [[0,-z,y],[z,0,-x],[-y,x,0]].
template<typename T> WPNB_FN mat_t<3, 3, T> skew(const vec_t<3, T>& a) {
    return mat_t<3, 3, T>(T(0), T(-a.c[2]), a.c[1], a.c[2], T(0), T(-a.c[0]), T(-a.c[1]), a.c[0], T(0));
}
template<typename T> WPNB_FN void adj_skew(const vec_t<3, T>&, vec_t<3, T>& adj_a, const mat_t<3, 3, T>& g) {
    la_detail::acc(adj_a.c[0], T(g.c[2][1] - g.c[1][2]));
    la_detail::acc(adj_a.c[1], T(g.c[0][2] - g.c[2][0]));
    la_detail::acc(adj_a.c[2], T(g.c[1][0] - g.c[0][1]));
}

namespace la_detail {
// m without row r and column k.
template<int N, typename T> WPNB_FN mat_t<N - 1, N - 1, T> minor_of(const mat_t<N, N, T>& m, int r, int k) {
    mat_t<N - 1, N - 1, T> s;
    for (int i = 0, si = 0; i < N; ++i) {
        if (i == r) continue;
        for (int j = 0, sj = 0; j < N; ++j) { if (j == k) continue; s.c[si][sj] = m.c[i][j]; ++sj; }
        ++si;
    }
    return s;
}
template<int N> struct det_impl {  // Laplace expansion along row 0 (used for N >= 4)
    template<typename T> static WPNB_FN T run(const mat_t<N, N, T>& m) {
        T s = T(0);
        for (int j = 0; j < N; ++j) {
            const T d = T(m.c[0][j] * det_impl<N - 1>::run(minor_of(m, 0, j)));
            s = (j % 2 == 0) ? T(s + d) : T(s - d);
        }
        return s;
    }
};
template<> struct det_impl<1> {
    template<typename T> static WPNB_FN T run(const mat_t<1, 1, T>& m) { return m.c[0][0]; }
};
template<> struct det_impl<2> {
    template<typename T> static WPNB_FN T run(const mat_t<2, 2, T>& m) { return T(m.c[0][0] * m.c[1][1] - m.c[0][1] * m.c[1][0]); }
};
template<> struct det_impl<3> {
    template<typename T> static WPNB_FN T run(const mat_t<3, 3, T>& m) {
        return T(T(m.c[0][0] * T(m.c[1][1] * m.c[2][2] - m.c[1][2] * m.c[2][1])) -
                 T(m.c[0][1] * T(m.c[1][0] * m.c[2][2] - m.c[1][2] * m.c[2][0])) +
                 T(m.c[0][2] * T(m.c[1][0] * m.c[2][1] - m.c[1][1] * m.c[2][0])));
    }
};
// Cofactor matrix: entry (i, j) = (-1)^(i+j) det(minor_of(m, i, j)) = d det(m) / d m[i][j].
template<int N, typename T> WPNB_FN mat_t<N, N, T> cofactor(const mat_t<N, N, T>& m) {
    mat_t<N, N, T> r;
    for (int i = 0; i < N; ++i) for (int j = 0; j < N; ++j) {
        const T d = det_impl<N - 1>::run(minor_of(m, i, j));
        r.c[i][j] = ((i + j) % 2 == 0) ? d : T(-d);
    }
    return r;
}
template<typename T> WPNB_FN mat_t<1, 1, T> cofactor(const mat_t<1, 1, T>&) { return mat_t<1, 1, T>(T(1)); }
}  // namespace la_detail

namespace la_detail {
// The type determinants and inverses are computed in: one step wider than T, so the cancellation of
// the cofactor expansion stays below T's rounding (finite differences of det(m) in float32 then
// agree with its gradient, as Warp's tests ask).
template<typename T> struct wide { typedef T type; };
template<> struct wide<float32> { typedef float64 type; };
template<> struct wide<half> { typedef float32 type; };
template<> struct wide<bfloat16> { typedef float32 type; };
template<typename To, int R, int C, typename T> WPNB_FN mat_t<R, C, To> convert(const mat_t<R, C, T>& m) {
    mat_t<R, C, To> r;
    for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) r.c[i][j] = To(m.c[i][j]);
    return r;
}
}  // namespace la_detail

// Determinant (explicit for 2x2 and 3x3, Laplace expansion over 3x3 minors for 4x4), computed one
// precision wider than T (la_detail::wide) and rounded once.
template<int N, typename T> WPNB_FN T determinant(const mat_t<N, N, T>& m) {
    typedef typename la_detail::wide<T>::type W;
    return T(la_detail::det_impl<N>::run(la_detail::convert<W>(m)));
}
template<int N, typename T> WPNB_FN void adj_determinant(const mat_t<N, N, T>& m, mat_t<N, N, T>& adj_m, const T& adj_ret) {
    // d det / d m = cofactor matrix (valid for singular m too)
    typedef typename la_detail::wide<T>::type W;
    la_detail::acc(adj_m, mul(la_detail::convert<T>(la_detail::cofactor(la_detail::convert<W>(m))), adj_ret));
}
// Inverse adjugate(m) / det(m) (N = 2, 3, 4), computed one precision wider than T. A singular
// matrix (det == 0 exactly) gives the zero matrix and a zero gradient; nearly singular ones give
// large values, as in Warp.
template<int N, typename T> WPNB_FN mat_t<N, N, T> inverse(const mat_t<N, N, T>& m) {
    typedef typename la_detail::wide<T>::type W;
    const mat_t<N, N, W> w = la_detail::convert<W>(m);
    const W d = la_detail::det_impl<N>::run(w);
    if (d == W(0)) return mat_t<N, N, T>();
    return la_detail::convert<T>(div(transpose(la_detail::cofactor(w)), d));
}
template<int N, typename T> WPNB_FN void adj_inverse(const mat_t<N, N, T>& m, mat_t<N, N, T>& adj_m, const mat_t<N, N, T>& adj_ret) {
    if (determinant(m) == T(0)) return;
    // Y = m^-1: adj_m += -Y^T adj_ret Y^T
    const mat_t<N, N, T> yt = transpose(inverse(m));
    la_detail::acc(adj_m, neg(mul(mul(yt, adj_ret), yt)));
}

// ---- indexing ----

// Entry (i, j) (m[i, j]); no bounds check.
template<int R, int C, typename T> WPNB_FN T extract(const mat_t<R, C, T>& m, int32 i, int32 j) { return m.c[i][j]; }
template<int R, int C, typename T>
WPNB_FN void adj_extract(const mat_t<R, C, T>&, int32 i, int32 j, mat_t<R, C, T>& adj_m, int32&, int32&, const T& adj_ret) {
    la_detail::acc(adj_m.c[i][j], adj_ret);
}
// Row i as a vector (m[i]).
template<int R, int C, typename T> WPNB_FN vec_t<C, T> extract(const mat_t<R, C, T>& m, int32 i) {
    return la_detail::row_getter::get(m, i);
}
template<int R, int C, typename T>
WPNB_FN void adj_extract(const mat_t<R, C, T>&, int32 i, mat_t<R, C, T>& adj_m, int32&, const vec_t<C, T>& adj_ret) {
    for (int j = 0; j < C; ++j) la_detail::acc(adj_m.c[i][j], adj_ret.c[j]);
}
// Copy of m with entry (i, j) replaced by value (m[i, j] = value in SSA form).
template<int R, int C, typename T>
WPNB_FN mat_t<R, C, T> with_index(const mat_t<R, C, T>& m, int32 i, int32 j, typename la_detail::ident<T>::type value) {
    mat_t<R, C, T> r = m; r.c[i][j] = value; return r;
}
template<int R, int C, typename T>
WPNB_FN void adj_with_index(const mat_t<R, C, T>&, int32 i, int32 j, typename la_detail::ident<T>::type, mat_t<R, C, T>& adj_m, int32&,
                            int32&, T& adj_value, const mat_t<R, C, T>& adj_ret) {
    for (int a = 0; a < R; ++a) for (int b = 0; b < C; ++b)
        if (a != i || b != j) la_detail::acc(adj_m.c[a][b], adj_ret.c[a][b]);
    la_detail::acc(adj_value, adj_ret.c[i][j]);
}
// Copy of m with row i replaced by row (m[i] = row in SSA form).
template<int R, int C, typename T>
WPNB_FN mat_t<R, C, T> with_index(const mat_t<R, C, T>& m, int32 i, const vec_t<C, T>& row) {
    mat_t<R, C, T> r = m; for (int j = 0; j < C; ++j) r.c[i][j] = row.c[j]; return r;
}
template<int R, int C, typename T>
WPNB_FN void adj_with_index(const mat_t<R, C, T>&, int32 i, const vec_t<C, T>&, mat_t<R, C, T>& adj_m, int32&, vec_t<C, T>& adj_row,
                            const mat_t<R, C, T>& adj_ret) {
    for (int a = 0; a < R; ++a) for (int b = 0; b < C; ++b)
        la_detail::acc(a == i ? adj_row.c[b] : adj_m.c[a][b], adj_ret.c[a][b]);
}

// ---- comparison ----

// True when every entry is equal (exact comparison).
template<int R, int C, typename T> WPNB_FN bool eq(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) {
    for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) if (!(a.c[i][j] == b.c[i][j])) return false;
    return true;
}
template<int R, int C, typename T>
WPNB_FN void adj_eq(const mat_t<R, C, T>&, const mat_t<R, C, T>&, mat_t<R, C, T>&, mat_t<R, C, T>&, const bool&) {}
// True when some entry differs.
template<int R, int C, typename T> WPNB_FN bool ne(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) { return !eq(a, b); }
template<int R, int C, typename T>
WPNB_FN void adj_ne(const mat_t<R, C, T>&, const mat_t<R, C, T>&, mat_t<R, C, T>&, mat_t<R, C, T>&, const bool&) {}
template<int R, int C, typename T> WPNB_FN bool operator==(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) { return eq(a, b); }
template<int R, int C, typename T> WPNB_FN bool operator!=(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) { return !eq(a, b); }

// Entrywise linear interpolation a + t * (b - a).
template<int R, int C, typename T>
WPNB_FN mat_t<R, C, T> lerp(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b, typename la_detail::ident<T>::type t) {
    return add(a, mul(sub(b, a), t));
}
template<int R, int C, typename T>
WPNB_FN void adj_lerp(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b, typename la_detail::ident<T>::type t, mat_t<R, C, T>& adj_a,
                      mat_t<R, C, T>& adj_b, T& adj_t, const mat_t<R, C, T>& adj_ret) {
    la_detail::acc(adj_a, mul(adj_ret, T(T(1) - t)));
    la_detail::acc(adj_b, mul(adj_ret, t));
    la_detail::acc(adj_t, ddot(sub(b, a), adj_ret));
}

// bit_and bit_or bit_xor lshift rshift and invert on integer matrices: componentwise, as on vectors.
#define WPNB_M_BITWISE(NAME) \
    template <int R, int C, typename T> \
    WPNB_FN mat_t<R, C, T> NAME(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) { \
        mat_t<R, C, T> r; \
        for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) r.c[i][j] = NAME(a.c[i][j], b.c[i][j]); \
        return r; } \
    template <int R, int C, typename T> \
    WPNB_FN void adj_##NAME(const mat_t<R, C, T>&, const mat_t<R, C, T>&, mat_t<R, C, T>&, mat_t<R, C, T>&, \
                            const mat_t<R, C, T>&) {}
WPNB_M_BITWISE(bit_and)
WPNB_M_BITWISE(bit_or)
WPNB_M_BITWISE(bit_xor)
WPNB_M_BITWISE(lshift)
WPNB_M_BITWISE(rshift)
#undef WPNB_M_BITWISE
template <int R, int C, typename T> WPNB_FN mat_t<R, C, T> invert(const mat_t<R, C, T>& a) {
    mat_t<R, C, T> r;
    for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) r.c[i][j] = invert(a.c[i][j]);
    return r; }
template <int R, int C, typename T> WPNB_FN void adj_invert(const mat_t<R, C, T>&, mat_t<R, C, T>&, const mat_t<R, C, T>&) {}
// isnan / isinf: whether any entry is; isfinite: whether every entry is. No gradient.
template<int R, int C, typename T> WPNB_FN bool isnan(const mat_t<R, C, T>& m) {
    for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) if (isnan(m.c[i][j])) return true;
    return false; }
template<int R, int C, typename T> WPNB_FN bool isinf(const mat_t<R, C, T>& m) {
    for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) if (isinf(m.c[i][j])) return true;
    return false; }
template<int R, int C, typename T> WPNB_FN bool isfinite(const mat_t<R, C, T>& m) {
    for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) if (!isfinite(m.c[i][j])) return false;
    return true; }
template<int R, int C, typename T> WPNB_FN void adj_isnan(const mat_t<R, C, T>&, mat_t<R, C, T>&, const bool&) {}
template<int R, int C, typename T> WPNB_FN void adj_isinf(const mat_t<R, C, T>&, mat_t<R, C, T>&, const bool&) {}
template<int R, int C, typename T> WPNB_FN void adj_isfinite(const mat_t<R, C, T>&, mat_t<R, C, T>&, const bool&) {}

}  // namespace wpnb
