// dense.h: Warp's small dense linear algebra builtins on flat row-major float arrays, one thread
// doing a whole product or factorization (dense_gemm, dense_chol, dense_subs, dense_solve).
// Not differentiated in warp_nb (Warp differentiates dense_solve with respect to A and b): the
// adjoints are no-ops, declared so backward code compiles.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "arrays/array.h"

namespace wpnb {

// C (m x n) = op(A) op(B): op(A) is m x p (A stored p x m and transposed when t1 != 0), op(B) is
// p x n (B stored n x p and transposed when t2 != 0).
template <typename T>
WPNB_FN void dense_gemm(int32 m, int32 n, int32 p, int32 t1, int32 t2, const array_t<T, 1>& A, const array_t<T, 1>& B,
                        const array_t<T, 1>& C) {
    for (int32 i = 0; i < m; ++i)
        for (int32 j = 0; j < n; ++j) {
            T s = T(0);
            for (int32 k = 0; k < p; ++k) {
                const T a = t1 ? index(A, k * m + i) : index(A, i * p + k);
                const T b = t2 ? index(B, j * p + k) : index(B, k * n + j);
                s += a * b;
            }
            index(C, i * n + j) = s;
        }
}
template <typename T>
WPNB_FN void adj_dense_gemm(int32, int32, int32, int32, int32, const array_t<T, 1>&, const array_t<T, 1>&,
                            const array_t<T, 1>&, int32&, int32&, int32&, int32&, int32&, const array_t<T, 1>&,
                            const array_t<T, 1>&, const array_t<T, 1>&) {}

// L (n x n, lower triangular) with L L^T = A + regularization I (Cholesky); the upper part of L is
// left as it was. A non-positive pivot gives NaN or inf in L, as the formula does.
template <typename T>
WPNB_FN void dense_chol(int32 n, const array_t<T, 1>& A, T regularization, const array_t<T, 1>& L) {
    for (int32 j = 0; j < n; ++j) {
        T s = index(A, j * n + j) + regularization;
        for (int32 k = 0; k < j; ++k) s -= index(L, j * n + k) * index(L, j * n + k);
        s = sqrt(s);
        index(L, j * n + j) = s;
        const T inv = T(1) / s;
        for (int32 i = j + 1; i < n; ++i) {
            T t = index(A, i * n + j);
            for (int32 k = 0; k < j; ++k) t -= index(L, i * n + k) * index(L, j * n + k);
            index(L, i * n + j) = t * inv;
        }
    }
}
template <typename T>
WPNB_FN void adj_dense_chol(int32, const array_t<T, 1>&, T, const array_t<T, 1>&, int32&, const array_t<T, 1>&, T&,
                            const array_t<T, 1>&) {}

// x = (L L^T)^-1 b: forward substitution with L, then back substitution with L^T (x may be b).
template <typename T>
WPNB_FN void dense_subs(int32 n, const array_t<T, 1>& L, const array_t<T, 1>& b, const array_t<T, 1>& x) {
    for (int32 i = 0; i < n; ++i) {
        T s = index(b, i);
        for (int32 k = 0; k < i; ++k) s -= index(L, i * n + k) * index(x, k);
        index(x, i) = s / index(L, i * n + i);
    }
    for (int32 i = n - 1; i >= 0; --i) {
        T s = index(x, i);
        for (int32 k = i + 1; k < n; ++k) s -= index(L, k * n + i) * index(x, k);
        index(x, i) = s / index(L, i * n + i);
    }
}
template <typename T>
WPNB_FN void adj_dense_subs(int32, const array_t<T, 1>&, const array_t<T, 1>&, const array_t<T, 1>&, int32&,
                            const array_t<T, 1>&, const array_t<T, 1>&, const array_t<T, 1>&) {}

// x = A^-1 b given L, the Cholesky factor of A (from dense_chol): dense_subs(n, L, b, x).
template <typename T>
WPNB_FN void dense_solve(int32 n, const array_t<T, 1>& A, const array_t<T, 1>& L, const array_t<T, 1>& b,
                         const array_t<T, 1>& x) {
    dense_subs(n, L, b, x);
}
template <typename T>
WPNB_FN void adj_dense_solve(int32, const array_t<T, 1>&, const array_t<T, 1>&, const array_t<T, 1>&,
                             const array_t<T, 1>&, int32&, const array_t<T, 1>&, const array_t<T, 1>&,
                             const array_t<T, 1>&, const array_t<T, 1>&) {}

}  // namespace wpnb
