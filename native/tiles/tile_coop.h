// tile_coop.h: the statements that write a block-uniform tile (compiler/block_uniform.py) in the
// form the lanes of a block can split (emit/block_frame.py): each writes the destination tile in
// place, only the elements of its part (block.h coop_t: first, first + step, ...), so that lane k
// of B computes elements k, k + B, ... and a barrier on each side makes the whole tile every lane's.
// With the part (0, 1) one lane computes everything, which is the lead and apart forms.
//
// The values are those of the whole-tile functions of tile.h and tile_ops.h (the same scalar
// operations on each element, a product's terms added in the same order), so a split tile is the
// unsplit one, bit for bit. Forward only: a kernel's adjoint keeps whole tiles (the frame is the
// forward body's).
#pragma once
#include "tiles/tile.h"
#include "tiles/tile_ops.h"

namespace wpnb {

// dst.data[e] = f(e) for the elements e of this lane's part.
template <typename T, int R, int C, typename F>
WPNB_FN void coop_each(const coop_t& p, tile_t<T, R, C>& dst, F f) {
    for (int e = p.first; e < R * C; e += p.step) dst.data[e] = f(e);
}

// wp.tile_map: the mapper's function (tile.h map_with) per element of tiles of dst's shape.
template <typename T, int R, int C, typename M, typename... Ts>
WPNB_FN void coop_map(const coop_t& p, tile_t<T, R, C>& dst, const M& m, const Ts&... ts) {
    for (int e = p.first; e < R * C; e += p.step) dst.data[e] = m.f(ts.data[e]...);
}

// dst = src (a move of a tile variable: a phi, a loop's state, a copy).
template <typename T, int R, int C>
WPNB_FN void coop_copy(const coop_t& p, tile_t<T, R, C>& dst, const tile_t<T, R, C>& src) {
    for (int e = p.first; e < R * C; e += p.step) dst.data[e] = src.data[e];
}

// tile_full: every element `value`.
template <typename T, int R, int C>
WPNB_FN void coop_full(const coop_t& p, tile_t<T, R, C>& dst, T value) {
    for (int e = p.first; e < R * C; e += p.step) dst.data[e] = value;
}

// tile_load of a 1-D or 2-D array (elements outside the array read 0, as tile.h's).
template <typename T, int R, int C, typename I>
WPNB_FN void coop_tile_load(const coop_t& p, tile_t<T, R, C>& dst, const array_t<T, 1>& a, I o0) {
    for (int e = p.first; e < R; e += p.step)
        dst.data[e] = tile_inside(a, o0 + e) ? *tile_element(a, a.data, o0 + e) : T();
}
template <typename T, int R, int C, typename I, typename J>
WPNB_FN void coop_tile_load(const coop_t& p, tile_t<T, R, C>& dst, const array_t<T, 2>& a, I o0, J o1) {
    for (int e = p.first; e < R * C; e += p.step) {
        const int i = e / C, j = e % C;
        dst.data[e] = tile_inside(a, o0 + i, o1 + j) ? *tile_element(a, a.data, o0 + i, o1 + j) : T();
    }
}

// tile_store into a 1-D or 2-D array (elements outside it are not written).
template <typename T, int R, typename I>
WPNB_FN void coop_tile_store(const coop_t& p, const array_t<T, 1>& a, const tile_t<T, R, 1>& t, I o0) {
    for (int e = p.first; e < R; e += p.step)
        if (tile_inside(a, o0 + e)) *tile_element(a, a.data, o0 + e) = t.data[e];
}
template <typename T, int R, int C, typename I, typename J>
WPNB_FN void coop_tile_store(const coop_t& p, const array_t<T, 2>& a, const tile_t<T, R, C>& t, I o0, J o1) {
    for (int e = p.first; e < R * C; e += p.step) {
        const int i = e / C, j = e % C;
        if (tile_inside(a, o0 + i, o1 + j)) *tile_element(a, a.data, o0 + i, o1 + j) = t.data[e];
    }
}

// The products of a @ b for a block of W consecutive elements of row i from column j on, added
// into acc[0 .. W) in tile_mma_into's order (k ascending). The register block: each a[i, k] is
// read once for W outputs.
template <int W, typename O, typename A, typename B, int M, int K, int N>
WPNB_FN void coop_mma_row(const tile_t<A, M, K>& a, const tile_t<B, K, N>& b, int i, int j, O* acc) {
    for (int k = 0; k < K; ++k) {
        const O aik = O(a.at(i, k));
        for (int w = 0; w < W; ++w) acc[w] = add(acc[w], mul(aik, O(b.at(k, j + w))));
    }
}

// wp.tile_matmul(a, b) (into a fresh tile) and (a, b, out, alpha, beta) (alpha * a @ b + beta *
// out, out read only where beta != 0; the accumulating form alpha = beta = 1 adds into out's
// values), as tile_ops.h tile_mma. A lane's part is counted in blocks of W = 4 outputs of a row
// where the rows allow it (the register block), else in single outputs.
template <typename T, typename A, typename B, int M, int K, int N, typename G>
WPNB_FN void coop_mma_blocks(const coop_t& p, tile_t<T, M, N>& dst, const tile_t<A, M, K>& a,
                             const tile_t<B, K, N>& b, G finish) {
    constexpr int W = N % 4 == 0 ? 4 : 1;
    constexpr int per_row = N / W;
    for (int g = p.first; g < M * per_row; g += p.step) {
        const int i = g / per_row, j = (g % per_row) * W;
        T acc[W];
        for (int w = 0; w < W; ++w) acc[w] = finish.start(i * N + j + w);
        coop_mma_row<W>(a, b, i, j, acc);
        for (int w = 0; w < W; ++w) dst.data[i * N + j + w] = finish.end(i * N + j + w, acc[w]);
    }
}
template <typename T>
struct coop_mma_plain {  // a @ b
    WPNB_FN T start(int) const { return T(); }
    WPNB_FN T end(int, const T& v) const { return v; }
};
template <typename T, int M, int N>
struct coop_mma_scaled {  // alpha * a @ b + beta * out
    const tile_t<T, M, N>& out;
    T alpha, beta;
    WPNB_FN T start(int e) const { return alpha == T(1) && beta == T(1) ? out.data[e] : T(); }
    WPNB_FN T end(int e, const T& v) const {
        if (alpha == T(1) && beta == T(1)) return v;
        return beta == T(0) ? mul(alpha, v) : add(mul(alpha, v), mul(beta, out.data[e]));
    }
};
template <typename A, typename B, int M, int K, int N>
WPNB_FN void coop_mma(const coop_t& p, tile_t<A, M, N>& dst, const tile_t<A, M, K>& a, const tile_t<B, K, N>& b) {
    coop_mma_blocks(p, dst, a, b, coop_mma_plain<A>{});
}
template <typename A, typename B, typename T, int M, int K, int N>
WPNB_FN void coop_mma(const coop_t& p, tile_t<T, M, N>& dst, const tile_t<A, M, K>& a, const tile_t<B, K, N>& b,
                      const tile_t<T, M, N>& out, T alpha, T beta) {
    coop_mma_blocks(p, dst, a, b, coop_mma_scaled<T, M, N>{out, alpha, beta});
}

}  // namespace wpnb
