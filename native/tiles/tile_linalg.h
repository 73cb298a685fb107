// tile_linalg.h: dense linear algebra on square tiles (Cholesky factorisation, triangular and
// Cholesky solves, adding to the diagonal) and Fourier transforms, each followed by its adjoint. Right-hand sides are a
// 1-D tile of N values or an N x M tile (M columns). A Cholesky factor stored "lower" is L with
// A = L L^T; stored "upper" it is U = L^T. Inputs are assumed well conditioned (no pivoting, as
// in Warp); the factorisation of a matrix that is not positive definite gives NaNs.
#pragma once
#include "tiles/tile.h"
#include "tiles/tile_ops.h"
#include "core/vec.h"

namespace wpnb {

// --- Cholesky ------------------------------------------------------------------------------------

// L with A = L L^T from A's lower triangle (the strict upper triangle of the result is 0).
template <typename T, int N>
WPNB_FN tile_t<T, N, N> tile_cholesky_lower(const tile_t<T, N, N>& a) {
    tile_t<T, N, N> l;
    for (int j = 0; j < N; ++j) {
        T d = a.at(j, j);
        for (int k = 0; k < j; ++k) d -= l.at(j, k) * l.at(j, k);
        const T ljj = libm::sqrt(d);
        l.at(j, j) = ljj;
        for (int i = j + 1; i < N; ++i) {
            T s = a.at(i, j);
            for (int k = 0; k < j; ++k) s -= l.at(i, k) * l.at(j, k);
            l.at(i, j) = s / ljj;
        }
    }
    return l;
}

// Solves with a lower-triangular L: L x = b (forward substitution) and L^T x = b (backward), for
// each of b's M columns.
template <typename T, int N, int M>
WPNB_FN tile_t<T, N, M> lower_forward(const tile_t<T, N, N>& l, const tile_t<T, N, M>& b) {
    tile_t<T, N, M> x;
    for (int c = 0; c < M; ++c)
        for (int i = 0; i < N; ++i) {
            T s = b.at(i, c);
            for (int k = 0; k < i; ++k) s -= l.at(i, k) * x.at(k, c);
            x.at(i, c) = s / l.at(i, i);
        }
    return x;
}
template <typename T, int N, int M>
WPNB_FN tile_t<T, N, M> lower_transposed_backward(const tile_t<T, N, N>& l, const tile_t<T, N, M>& b) {
    tile_t<T, N, M> x;
    for (int c = 0; c < M; ++c)
        for (int i = N - 1; i >= 0; --i) {
            T s = b.at(i, c);
            for (int k = i + 1; k < N; ++k) s -= l.at(k, i) * x.at(k, c);
            x.at(i, c) = s / l.at(i, i);
        }
    return x;
}

// The adjoint of L = chol(A) (lower): P = tril(L^T adj_L) with its diagonal halved, S = P + P^T,
// adj_A += tril(L^-T S L^-1) with its diagonal halved (A's lower triangle is what was read).
template <typename T, int N>
WPNB_FN void adj_tile_cholesky_lower(const tile_t<T, N, N>& l, tile_t<T, N, N>& adj_a, const tile_t<T, N, N>& adj_l) {
    tile_t<T, N, N> p = tile_mma(tile_transpose(l), adj_l);
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) p.at(i, j) = j > i ? T(0) : (i == j ? T(0.5) * p.at(i, j) : p.at(i, j));
    const tile_t<T, N, N> s = add(p, tile_transpose(p));
    const tile_t<T, N, N> x = lower_transposed_backward(l, s);                 // L^-T S
    const tile_t<T, N, N> b = lower_transposed_backward(l, tile_transpose(x));  // L^-T (L^-T S)^T = L^-T S L^-1
    for (int i = 0; i < N; ++i)
        for (int j = 0; j <= i; ++j) adj_a.at(i, j) += i == j ? T(0.5) * b.at(i, j) : b.at(i, j);
}

// wp.tile_cholesky(A, fill_mode): UPPER = 0 gives L (from A's lower triangle), 1 gives U = L^T
// (from A's upper triangle).
template <int UPPER, typename T, int N>
WPNB_FN tile_t<T, N, N> tile_cholesky(const tile_t<T, N, N>& a) {
    return UPPER ? tile_transpose(tile_cholesky_lower(tile_transpose(a))) : tile_cholesky_lower(a);
}
template <int UPPER, typename T, int N>
WPNB_FN void adj_tile_cholesky(const tile_t<T, N, N>& a, tile_t<T, N, N>& adj_a, const tile_t<T, N, N>& adj_ret) {
    if (!UPPER) {
        adj_tile_cholesky_lower(tile_cholesky_lower(a), adj_a, adj_ret);
        return;
    }
    tile_t<T, N, N> adj_at;  // through the transposes: the lower factor of A^T, then back
    adj_tile_cholesky_lower(tile_cholesky_lower(tile_transpose(a)), adj_at, tile_transpose(adj_ret));
    accumulate(adj_a, tile_transpose(adj_at));
}

// --- triangular solves ------------------------------------------------------------------------------
// A right-hand side b is seen as N x M (a 1-D tile of N values: M = 1; its storage is the same).
// Adjoint of x = L^-1 b: y = L^-T adj_x; adj_b += y; adj_L -= tril(y x^T). For an upper U the
// mirror image: y = U^-T adj_x, adj_U -= triu(y x^T).

template <typename T, int N, int M>
WPNB_FN void adj_triangular_matrix(tile_t<T, N, N>& adj_m, const tile_t<T, N, M>& y, const tile_t<T, N, M>& x, bool lower) {
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
            if (lower ? j > i : j < i) continue;
            T s = T(0);
            for (int c = 0; c < M; ++c) s += y.at(i, c) * x.at(j, c);
            adj_m.at(i, j) -= s;
        }
}

template <typename T, int N, int M>
WPNB_FN tile_t<T, N, M> tile_lower_solve(const tile_t<T, N, N>& l, const tile_t<T, N, M>& b) { return lower_forward(l, b); }
template <typename T, int N, int M>
WPNB_FN void adj_tile_lower_solve(const tile_t<T, N, N>& l, const tile_t<T, N, M>& b, tile_t<T, N, N>& adj_l,
                                  tile_t<T, N, M>& adj_b, const tile_t<T, N, M>& adj_x) {
    const tile_t<T, N, M> x = lower_forward(l, b), y = lower_transposed_backward(l, adj_x);
    accumulate(adj_b, y);
    adj_triangular_matrix(adj_l, y, x, true);
}

template <typename T, int N, int M>
WPNB_FN tile_t<T, N, M> tile_upper_solve(const tile_t<T, N, N>& u, const tile_t<T, N, M>& b) {
    return lower_transposed_backward(tile_transpose(u), b);  // U x = b is (U^T)^T x = b
}
template <typename T, int N, int M>
WPNB_FN void adj_tile_upper_solve(const tile_t<T, N, N>& u, const tile_t<T, N, M>& b, tile_t<T, N, N>& adj_u,
                                  tile_t<T, N, M>& adj_b, const tile_t<T, N, M>& adj_x) {
    const tile_t<T, N, N> ut = tile_transpose(u);
    const tile_t<T, N, M> x = lower_transposed_backward(ut, b), y = lower_forward(ut, adj_x);  // y = U^-T adj_x
    accumulate(adj_b, y);
    adj_triangular_matrix(adj_u, y, x, false);
}

// wp.tile_cholesky_solve(F, b, fill_mode): x = A^-1 b from A's factor F (L, or U when UPPER), as
// two triangular solves; the adjoint runs them back.
template <int UPPER, typename T, int N, int M>
WPNB_FN tile_t<T, N, M> tile_cholesky_solve(const tile_t<T, N, N>& f, const tile_t<T, N, M>& b) {
    const tile_t<T, N, N> l = UPPER ? tile_transpose(f) : f;
    return lower_transposed_backward(l, lower_forward(l, b));
}
template <int UPPER, typename T, int N, int M>
WPNB_FN void adj_tile_cholesky_solve(const tile_t<T, N, N>& f, const tile_t<T, N, M>& b, tile_t<T, N, N>& adj_f,
                                     tile_t<T, N, M>& adj_b, const tile_t<T, N, M>& adj_x) {
    const tile_t<T, N, N> l = UPPER ? tile_transpose(f) : f;
    const tile_t<T, N, M> z = lower_forward(l, b), x = lower_transposed_backward(l, z);
    // x = L^-T z: adj_z = L^-1 adj_x, adj_L -= tril(x adj_z^T)
    const tile_t<T, N, M> adj_z = lower_forward(l, adj_x);
    tile_t<T, N, N> adj_l;
    adj_triangular_matrix(adj_l, x, adj_z, true);
    // z = L^-1 b: y = L^-T adj_z, adj_b += y, adj_L -= tril(y z^T)
    const tile_t<T, N, M> y = lower_transposed_backward(l, adj_z);
    accumulate(adj_b, y);
    adj_triangular_matrix(adj_l, y, z, true);
    accumulate(adj_f, UPPER ? tile_transpose(adj_l) : adj_l);
}

// wp.tile_diag_add(a, d): a with the 1-D tile d added to its diagonal.
template <typename T, int N>
WPNB_FN tile_t<T, N, N> tile_diag_add(const tile_t<T, N, N>& a, const tile_t<T, N, 1>& d) {
    tile_t<T, N, N> out = a;
    for (int i = 0; i < N; ++i) out.at(i, i) = add(out.at(i, i), d.data[i]);
    return out;
}
template <typename T, int N>
WPNB_FN void adj_tile_diag_add(const tile_t<T, N, N>&, const tile_t<T, N, 1>&, tile_t<T, N, N>& adj_a, tile_t<T, N, 1>& adj_d,
                               const tile_t<T, N, N>& adj_ret) {
    accumulate(adj_a, adj_ret);
    for (int i = 0; i < N; ++i) accumulate(adj_d.data[i], adj_ret.at(i, i));
}

// --- discrete Fourier transforms ----------------------------------------------------------------------
// A tile of complex numbers (vec2: real, imaginary) transformed along its last axis: LINES lines
// of L values each. Forward: y_k = sum_j x_j e^(-2 pi i jk / L); inverse: the + sign, without the
// 1/L factor (as Warp and numpy's ifft * L). Computed in float64 from a table of the L twiddle
// factors: an iterative radix-2 FFT (O(L log L) per line) when L is a power of two, the direct sum
// (O(L^2), exact to rounding) for any other length. The adjoint of either is the other.
template <int L>
WPNB_FN void fft_twiddles(float64 (&wr)[L], float64 (&wi)[L], bool inverse) {
    const float64 two_pi = 6.283185307179586476925286766559;
    for (int k = 0; k < L; ++k) {
        const float64 angle = (inverse ? two_pi : -two_pi) * float64(k) / float64(L);
        wr[k] = libm::cos(angle);
        wi[k] = libm::sin(angle);
    }
}

// One line in place (re, im of length L, L a power of two): bit-reversal, then log2(L) butterfly passes.
template <int L>
WPNB_FN void fft_radix2_line(float64 (&re)[L], float64 (&im)[L], const float64 (&wr)[L], const float64 (&wi)[L]) {
    for (int i = 1, j = 0; i < L; ++i) {
        int bit = L >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j |= bit;
        if (i < j) {
            const float64 tr = re[i], ti = im[i];
            re[i] = re[j]; im[i] = im[j]; re[j] = tr; im[j] = ti;
        }
    }
    for (int len = 2; len <= L; len <<= 1) {
        const int half = len >> 1, step = L / len;
        for (int start = 0; start < L; start += len)
            for (int k = 0; k < half; ++k) {
                const float64 c = wr[k * step], s = wi[k * step];
                const int p = start + k, q = p + half;
                const float64 tr = re[q] * c - im[q] * s, ti = re[q] * s + im[q] * c;
                re[q] = re[p] - tr; im[q] = im[p] - ti;
                re[p] += tr; im[p] += ti;
            }
    }
}

// The twiddle table of one length and direction. On the CPU it is built once per process (a
// function-local static: thread-safe initialisation since C++11), since its 2L cos/sin calls cost
// as much as the butterflies of a few lines; a GPU thread builds its own (no static device tables).
template <int L, int INVERSE>
struct fft_table {
    float64 wr[L], wi[L];
    WPNB_FN fft_table() { fft_twiddles<L>(wr, wi, INVERSE != 0); }
};

template <int INVERSE, int LINES, int L, typename S, int R, int C>
WPNB_FN tile_t<vec_t<2, S>, R, C> tile_fft_lines(const tile_t<vec_t<2, S>, R, C>& a) {
    static_assert(LINES * L == R * C, "tile_fft: lines x length is the tile's size");
    WPNB_TABLE_STORAGE const fft_table<L, INVERSE> table;  // (static on the CPU, per thread on CUDA)
    const float64 (&wr)[L] = table.wr;
    const float64 (&wi)[L] = table.wi;
    tile_t<vec_t<2, S>, R, C> out;
    for (int line = 0; line < LINES; ++line) {
        const vec_t<2, S>* x = &a.data[line * L];
        vec_t<2, S>* y = &out.data[line * L];
        if ((L & (L - 1)) == 0) {
            float64 re[L], im[L];
            for (int j = 0; j < L; ++j) { re[j] = float64(x[j].c[0]); im[j] = float64(x[j].c[1]); }
            fft_radix2_line<L>(re, im, wr, wi);
            for (int k = 0; k < L; ++k) { y[k].c[0] = S(re[k]); y[k].c[1] = S(im[k]); }
        } else {
            for (int k = 0; k < L; ++k) {
                float64 re = 0.0, im = 0.0;
                for (int j = 0; j < L; ++j) {
                    const int w = int((int64(j) * k) % L);
                    re += float64(x[j].c[0]) * wr[w] - float64(x[j].c[1]) * wi[w];
                    im += float64(x[j].c[0]) * wi[w] + float64(x[j].c[1]) * wr[w];
                }
                y[k].c[0] = S(re);
                y[k].c[1] = S(im);
            }
        }
    }
    return out;
}
template <int INVERSE, int LINES, int L, typename S, int R, int C>
WPNB_FN void adj_tile_fft_lines(const tile_t<vec_t<2, S>, R, C>&, tile_t<vec_t<2, S>, R, C>& adj_a,
                                const tile_t<vec_t<2, S>, R, C>& adj_ret) {
    accumulate(adj_a, tile_fft_lines<!INVERSE, LINES, L>(adj_ret));
}

}  // namespace wpnb
