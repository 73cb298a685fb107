// tile_coop.h: the statements that write a block-uniform tile (compiler/block_uniform.py) in the
// form the lanes of a block can split (emit/block_frame.py): each writes the destination tile in
// place, only the elements of its part (block.h coop_t: first, first + step, ...), so that lane k
// of B computes elements k, k + B, ... and a barrier on each side makes the whole tile every lane's.
// With the part (0, 1) one lane computes everything, which is the lead and apart forms.
//
// The values are those of the whole-tile functions of tile.h and tile_ops.h (the same scalar
// operations on each element, a product's terms added in the same order), so a split tile is the
// unsplit one, bit for bit; but for a split float sum (below), which adds the lanes' partial sums.
// Forward only: a kernel's adjoint keeps whole tiles (the frame is the forward body's).
#pragma once
#include "tiles/tile.h"
#include "tiles/tile_ops.h"
#include "tiles/tile_reduce.h"

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

// --- whole-tile reductions of scalar tiles (wp.tile_sum, tile_min, tile_max, tile_argmin,
// tile_argmax; tile_dot's sum) into dst's one element: each lane reduces its elements, hands its
// partial to lane 0 through the block's scratch (a barrier between; the split statement's barriers
// around), and lane 0 combines the partials in lane order. Elements of lanes outside a partial
// block are left out as tile_reduce.h's are (tile_counted). Integer sums, minima and maxima are
// the unsplit ones exactly; a float sum adds in another order (each lane's elements, then the
// lanes'), as a GPU's block reduction does.

// Lane 0's f-combination of every lane's `mine` (lane order), into `out`.
template <typename T, typename F>
WPNB_FN void coop_combine(const coop_t& p, T& out, const T& mine, F f) {
    static_assert(sizeof(T) * 1024 <= WPNB_BLOCK_SCRATCH, "a lane's partial of each of 1024 lanes fits the scratch");
    T* slots = (T*)block_scratch();
    slots[p.first] = mine;
    block_sync();
    if (p.first == 0) {
        T r = slots[0];
        for (int l = 1; l < p.step; ++l) r = f(r, slots[l]);
        out = r;
    }
}

template <typename T, int R, int C>
WPNB_FN void coop_tile_sum(const coop_t& p, tile_t<T, 1, 1>& dst, const tile_t<T, R, C>& a) {
    const tile_counted counted;
    T s = T();
    for (int e = p.first; e < R * C; e += p.step)
        if (counted(e)) s = add(s, a.data[e]);
    coop_combine(p, dst.data[0], s, [](const T& x, const T& y) { return add(x, y); });
}

// The row-major index of the first smallest (Less: <) or largest (>) element, as tile_first_min /
// tile_first_max find it: a NaN is never chosen, but for element 0 (where they start).
struct coop_less {
    template <typename T> WPNB_FN bool operator()(const T& x, const T& y) const { return x < y; }
};
struct coop_greater {
    template <typename T> WPNB_FN bool operator()(const T& x, const T& y) const { return x > y; }
};
template <typename Less, typename T, int R, int C>
WPNB_FN int32 coop_first_best(const coop_t& p, const tile_t<T, R, C>& a) {
    const tile_counted counted;
    const Less better;
    int32 best = -1;  // this lane's first best element that is not a NaN (-1: none)
    for (int e = p.first; e < R * C; e += p.step)
        if (counted(e) && a.data[e] == a.data[e] && (best < 0 || better(a.data[e], a.data[best]))) best = e;
    int32 chosen = -1;
    coop_combine(p, chosen, best, [&](int32 x, int32 y) {
        if (x < 0) return y;
        if (y < 0) return x;
        return better(a.data[y], a.data[x]) || (!better(a.data[x], a.data[y]) && y < x) ? y : x;
    });
    return a.data[0] == a.data[0] && chosen >= 0 ? chosen : 0;  // (lane 0's result: the others' is unused)
}
template <typename T, int R, int C>
WPNB_FN void coop_tile_min(const coop_t& p, tile_t<T, 1, 1>& dst, const tile_t<T, R, C>& a) {
    const int32 k = coop_first_best<coop_less>(p, a);
    if (p.first == 0) dst.data[0] = a.data[k];
}
template <typename T, int R, int C>
WPNB_FN void coop_tile_max(const coop_t& p, tile_t<T, 1, 1>& dst, const tile_t<T, R, C>& a) {
    const int32 k = coop_first_best<coop_greater>(p, a);
    if (p.first == 0) dst.data[0] = a.data[k];
}
template <typename T, int R, int C>
WPNB_FN void coop_tile_argmin(const coop_t& p, tile_t<int32, 1, 1>& dst, const tile_t<T, R, C>& a) {
    const int32 k = coop_first_best<coop_less>(p, a);
    if (p.first == 0) dst.data[0] = k;
}
template <typename T, int R, int C>
WPNB_FN void coop_tile_argmax(const coop_t& p, tile_t<int32, 1, 1>& dst, const tile_t<T, R, C>& a) {
    const int32 k = coop_first_best<coop_greater>(p, a);
    if (p.first == 0) dst.data[0] = k;
}

// --- scans of scalar tiles (wp.tile_scan_inclusive, tile_scan_exclusive, tile_scan_max_inclusive,
// tile_scan_min_inclusive) into dst (not a): lane l takes the l-th contiguous run of elements, folds
// it, hands its fold to the others through the scratch (a barrier between), and writes its run
// again starting from the fold of the runs before it. The running maximum and minimum are the
// unsplit ones exactly (their fold keeps the first of equal values and skips NaNs in any grouping);
// so are integer sums; a float sum's partial sums are rounded in another grouping.

template <typename T>
struct coop_run {  // a fold so far: its value, and whether any element was folded in
    T value;
    bool has;
};
struct coop_fold_sum {
    template <typename T> WPNB_FN coop_run<T> operator()(const coop_run<T>& r, const T& x) const {
        return coop_run<T>{add(r.value, x), true};
    }
};
struct coop_fold_max {  // tile_scan_max_inclusive's step: the next value when larger, or when the run is a NaN
    template <typename T> WPNB_FN coop_run<T> operator()(const coop_run<T>& r, const T& x) const {
        return coop_run<T>{!r.has || x > r.value || r.value != r.value ? x : r.value, true};
    }
};
struct coop_fold_min {
    template <typename T> WPNB_FN coop_run<T> operator()(const coop_run<T>& r, const T& x) const {
        return coop_run<T>{!r.has || x < r.value || r.value != r.value ? x : r.value, true};
    }
};

// emit/block_frame.py calls it as coop_scan<Exclusive, Fold> (_SCANS: tile_scan_exclusive is the
// exclusive sum; the others are inclusive, of coop_fold_sum, coop_fold_max or coop_fold_min).
template <bool Exclusive, typename Fold, typename T, int R, int C>
WPNB_FN void coop_scan(const coop_t& p, tile_t<T, R, C>& dst, const tile_t<T, R, C>& a) {
    static_assert(sizeof(coop_run<T>) * 1024 <= WPNB_BLOCK_SCRATCH, "a lane's fold of each of 1024 lanes fits the scratch");
    constexpr int n = R * C;
    const Fold fold;
    const tile_counted counted;
    const int per = (n + p.step - 1) / p.step;
    const int lo = p.first * per < n ? p.first * per : n, hi = lo + per < n ? lo + per : n;
    coop_run<T> mine{T(), false};
    for (int k = lo; k < hi; ++k)
        if (counted(k)) mine = fold(mine, a.data[k]);
    coop_run<T>* slots = (coop_run<T>*)block_scratch();
    slots[p.first] = mine;
    block_sync();
    coop_run<T> run{T(), false};
    for (int l = 0; l < p.first; ++l)
        if (slots[l].has) run = fold(run, slots[l].value);
    for (int k = lo; k < hi; ++k) {
        if (Exclusive) dst.data[k] = run.value;
        if (counted(k)) run = fold(run, a.data[k]);
        if (!Exclusive) dst.data[k] = run.value;
    }
}

}  // namespace wpnb
