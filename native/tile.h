// tile.h: tiles, small dense blocks of values whose shape is fixed at compile time (Warp's
// wp.tile_* builtins). A tile is a value like a matrix: tile_t<T, R, C> holds R*C elements in
// row-major order; a 1-D tile of length n is tile_t<T, n, 1>. The compiler knows each tile's
// shape, so every function here is a template over it.
//
// One thread computes a whole tile (on the CPU a block has one thread, as in Warp; CUDA
// launches of tile kernels use blocks of one thread too until cooperative versions exist; see
// docs/architecture.md, "Tiles"). Loads outside the array read 0 and stores outside it are
// dropped, as in Warp.
#pragma once
#include "prelude.h"
#include "scalar.h"
#include "array.h"
#include "atomic.h"

namespace wpnb {

template <typename T, int R, int C>
struct tile_t {
    T data[R * C];

    // Zero tile (what a hoisted loop variable starts as).
    WPNB_FN tile_t() { for (int k = 0; k < R * C; ++k) data[k] = T(0); }
    WPNB_FN T& at(int i, int j) { return data[i * C + j]; }
    WPNB_FN const T& at(int i, int j) const { return data[i * C + j]; }
};

// --- construction ---------------------------------------------------------------------------

// Every element `value` (tile_zeros, tile_ones, tile_full).
template <typename T, int R, int C>
WPNB_FN tile_t<T, R, C> tile_full(T value) {
    tile_t<T, R, C> out;
    for (int k = 0; k < R * C; ++k) out.data[k] = value;
    return out;
}

// start, start + step, ... (n = R values; the compiler computed n from constant bounds).
template <typename T, int R>
WPNB_FN tile_t<T, R, 1> tile_arange(T start, T step) {
    tile_t<T, R, 1> out;
    for (int k = 0; k < R; ++k) out.data[k] = T(start + T(k) * step);
    return out;
}

// wp.tile(x): the block's values of x as a 1-D tile; a block is one thread, so one value.
template <typename T>
WPNB_FN tile_t<T, 1, 1> tile_from_value(T x) {
    tile_t<T, 1, 1> out;
    out.data[0] = x;
    return out;
}

// wp.untile(t): this thread's value of a 1-D tile of the block's length (one thread: element 0).
template <typename T, int R>
WPNB_FN T untile(const tile_t<T, R, 1>& t) { return t.data[0]; }

// --- loads and stores (out-of-bounds elements read 0 and are not written) ----------------------

template <typename T, int R>
WPNB_FN tile_t<T, R, 1> tile_load(const array_t<T, 1>& a, int64 o0) {
    tile_t<T, R, 1> out;
    for (int i = 0; i < R; ++i) {
        const int64 ai = o0 + i;
        out.data[i] = (ai >= 0 && ai < a.shape[0]) ? *(T*)((char*)a.data + ai * a.strides[0]) : T(0);
    }
    return out;
}

template <typename T, int R, int C>
WPNB_FN tile_t<T, R, C> tile_load(const array_t<T, 2>& a, int64 o0, int64 o1) {
    tile_t<T, R, C> out;
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) {
            const int64 ai = o0 + i, aj = o1 + j;
            const bool inside = ai >= 0 && ai < a.shape[0] && aj >= 0 && aj < a.shape[1];
            out.at(i, j) = inside ? *(T*)((char*)a.data + ai * a.strides[0] + aj * a.strides[1]) : T(0);
        }
    return out;
}

template <typename T, int R>
WPNB_FN void tile_store(const array_t<T, 1>& a, const tile_t<T, R, 1>& t, int64 o0) {
    for (int i = 0; i < R; ++i) {
        const int64 ai = o0 + i;
        if (ai >= 0 && ai < a.shape[0]) *(T*)((char*)a.data + ai * a.strides[0]) = t.data[i];
    }
}

template <typename T, int R, int C>
WPNB_FN void tile_store(const array_t<T, 2>& a, const tile_t<T, R, C>& t, int64 o0, int64 o1) {
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) {
            const int64 ai = o0 + i, aj = o1 + j;
            if (ai >= 0 && ai < a.shape[0] && aj >= 0 && aj < a.shape[1])
                *(T*)((char*)a.data + ai * a.strides[0] + aj * a.strides[1]) = t.at(i, j);
        }
}

// a[o + k] += t[k] atomically; returns the previous values (0 outside the array).
template <typename T, int R>
WPNB_FN tile_t<T, R, 1> tile_atomic_add(const array_t<T, 1>& a, const tile_t<T, R, 1>& t, int64 o0) {
    tile_t<T, R, 1> old;
    for (int i = 0; i < R; ++i) {
        const int64 ai = o0 + i;
        if (ai >= 0 && ai < a.shape[0]) old.data[i] = atomic_add(a, ai, t.data[i]);
    }
    return old;
}

template <typename T, int R, int C>
WPNB_FN tile_t<T, R, C> tile_atomic_add(const array_t<T, 2>& a, const tile_t<T, R, C>& t, int64 o0, int64 o1) {
    tile_t<T, R, C> old;
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) {
            const int64 ai = o0 + i, aj = o1 + j;
            if (ai >= 0 && ai < a.shape[0] && aj >= 0 && aj < a.shape[1]) old.at(i, j) = atomic_add(a, ai, aj, t.at(i, j));
        }
    return old;
}

// --- elementwise arithmetic (the operators + - * / on tiles; scalars scale every element) -------

#define WPNB_TILE_BINARY(name)                                                                      \
    template <typename T, int R, int C>                                                             \
    WPNB_FN tile_t<T, R, C> name(const tile_t<T, R, C>& a, const tile_t<T, R, C>& b) {              \
        tile_t<T, R, C> out;                                                                        \
        for (int k = 0; k < R * C; ++k) out.data[k] = name(a.data[k], b.data[k]);                   \
        return out;                                                                                 \
    }                                                                                               \
    template <typename T, int R, int C>                                                             \
    WPNB_FN tile_t<T, R, C> name(const tile_t<T, R, C>& a, T s) {                                   \
        tile_t<T, R, C> out;                                                                        \
        for (int k = 0; k < R * C; ++k) out.data[k] = name(a.data[k], s);                           \
        return out;                                                                                 \
    }                                                                                               \
    template <typename T, int R, int C>                                                             \
    WPNB_FN tile_t<T, R, C> name(T s, const tile_t<T, R, C>& b) {                                   \
        tile_t<T, R, C> out;                                                                        \
        for (int k = 0; k < R * C; ++k) out.data[k] = name(s, b.data[k]);                           \
        return out;                                                                                 \
    }
WPNB_TILE_BINARY(add)
WPNB_TILE_BINARY(sub)
WPNB_TILE_BINARY(mul)
WPNB_TILE_BINARY(div)
#undef WPNB_TILE_BINARY

template <typename T, int R, int C>
WPNB_FN tile_t<T, R, C> neg(const tile_t<T, R, C>& a) {
    tile_t<T, R, C> out;
    for (int k = 0; k < R * C; ++k) out.data[k] = neg(a.data[k]);
    return out;
}

template <typename T, int R, int C>
WPNB_FN tile_t<T, R, C> pos(const tile_t<T, R, C>& a) { return a; }

// tile_map(f, a) / tile_map(f, a, b): f applied to every element (or pair of elements). The
// compiler passes f as a function object wrapping a builtin or a @wp.func, then the tiles.
template <typename F>
struct tile_mapper {
    F f;
    template <typename T, int R, int C>
    WPNB_FN auto operator()(const tile_t<T, R, C>& a) const -> tile_t<decltype(f(a.data[0])), R, C> {
        tile_t<decltype(f(a.data[0])), R, C> out;
        for (int k = 0; k < R * C; ++k) out.data[k] = f(a.data[k]);
        return out;
    }
    template <typename T, typename U, int R, int C>
    WPNB_FN auto operator()(const tile_t<T, R, C>& a, const tile_t<U, R, C>& b) const
        -> tile_t<decltype(f(a.data[0], b.data[0])), R, C> {
        tile_t<decltype(f(a.data[0], b.data[0])), R, C> out;
        for (int k = 0; k < R * C; ++k) out.data[k] = f(a.data[k], b.data[k]);
        return out;
    }
};
template <typename F>
WPNB_FN tile_mapper<F> map_with(F f) { return tile_mapper<F>{f}; }

// --- reshaping without arithmetic -------------------------------------------------------------

// The transpose of a 2-D tile.
template <typename T, int R, int C>
WPNB_FN tile_t<T, C, R> tile_transpose(const tile_t<T, R, C>& a) {
    tile_t<T, C, R> out;
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) out.at(j, i) = a.at(i, j);
    return out;
}

// a repeated to shape (R2, C2). (SR, SC) is a's shape in the result's axes (a 1-D tile of n is a row,
// (1, n), as numpy aligns shapes on the right); an axis of extent 1 repeats (the compiler checked
// the others match). a's elements are read in row-major order through that shape.
template <int R2, int C2, int SR, int SC, typename T, int R, int C>
WPNB_FN tile_t<T, R2, C2> tile_broadcast(const tile_t<T, R, C>& a) {
    static_assert(SR * SC == R * C, "tile_broadcast: the source shape keeps the number of elements");
    tile_t<T, R2, C2> out;
    for (int i = 0; i < R2; ++i)
        for (int j = 0; j < C2; ++j) out.at(i, j) = a.data[(SR == 1 ? 0 : i) * SC + (SC == 1 ? 0 : j)];
    return out;
}

// The part of a of shape (VR, VC) (in a's axes) starting at (o0, o1), stored with shape (R2, C2)
// of the same size (Warp's tile_view: a view of a row of a 2-D tile is a 1-D tile; a copy here).
// Elements beyond the source tile read 0.
template <int VR, int VC, int R2, int C2, typename T, int R, int C>
WPNB_FN tile_t<T, R2, C2> tile_view(const tile_t<T, R, C>& a, int32 o0, int32 o1) {
    static_assert(VR * VC == R2 * C2, "tile_view: the view and the result have the same size");
    tile_t<T, R2, C2> out;
    for (int i = 0; i < VR; ++i)
        for (int j = 0; j < VC; ++j) {
            const int32 si = o0 + i, sj = o1 + j;
            out.data[i * VC + j] = (si >= 0 && si < R && sj >= 0 && sj < C) ? a.at(si, sj) : T(0);
        }
    return out;
}

// The same elements in row-major order, seen with another shape of the same size.
template <int R2, int C2, typename T, int R, int C>
WPNB_FN tile_t<T, R2, C2> tile_reshape(const tile_t<T, R, C>& a) {
    static_assert(R * C == R2 * C2, "tile_reshape keeps the number of elements");
    tile_t<T, R2, C2> out;
    for (int k = 0; k < R * C; ++k) out.data[k] = a.data[k];
    return out;
}

// t[i] / t[i, j]; negative indices count from the end.
template <typename T, int R>
WPNB_FN T tile_extract(const tile_t<T, R, 1>& a, int32 i) { return a.data[wrap_index(i, R)]; }
template <typename T, int R, int C>
WPNB_FN T tile_extract(const tile_t<T, R, C>& a, int32 i, int32 j) { return a.at(wrap_index(i, R), wrap_index(j, C)); }

// A copy with another element type (wp.tile_astype).
template <typename U, typename T, int R, int C>
WPNB_FN tile_t<U, R, C> tile_astype(const tile_t<T, R, C>& a) {
    tile_t<U, R, C> out;
    for (int k = 0; k < R * C; ++k) out.data[k] = U(a.data[k]);
    return out;
}

// --- reductions (results are 1-element tiles, as in Warp) --------------------------------------

template <typename T, int R, int C>
WPNB_FN tile_t<T, 1, 1> tile_sum(const tile_t<T, R, C>& a) {
    T s = T(0);
    for (int k = 0; k < R * C; ++k) s = add(s, a.data[k]);
    return tile_from_value(s);
}

template <typename T, int R, int C>
WPNB_FN tile_t<T, 1, 1> tile_min(const tile_t<T, R, C>& a) {
    T m = a.data[0];
    for (int k = 1; k < R * C; ++k) if (a.data[k] < m) m = a.data[k];
    return tile_from_value(m);
}

template <typename T, int R, int C>
WPNB_FN tile_t<T, 1, 1> tile_max(const tile_t<T, R, C>& a) {
    T m = a.data[0];
    for (int k = 1; k < R * C; ++k) if (a.data[k] > m) m = a.data[k];
    return tile_from_value(m);
}

// The flat (row-major) index of the first smallest / largest element.
template <typename T, int R, int C>
WPNB_FN tile_t<int32, 1, 1> tile_argmin(const tile_t<T, R, C>& a) {
    int32 best = 0;
    for (int k = 1; k < R * C; ++k) if (a.data[k] < a.data[best]) best = k;
    return tile_from_value(best);
}

template <typename T, int R, int C>
WPNB_FN tile_t<int32, 1, 1> tile_argmax(const tile_t<T, R, C>& a) {
    int32 best = 0;
    for (int k = 1; k < R * C; ++k) if (a.data[k] > a.data[best]) best = k;
    return tile_from_value(best);
}

// tile_reduce(f, a): f folded over the elements in row-major order, starting from the first.
template <typename F>
struct tile_reducer {
    F f;
    template <typename T, int R, int C>
    WPNB_FN tile_t<T, 1, 1> operator()(const tile_t<T, R, C>& a) const {
        T acc = a.data[0];
        for (int k = 1; k < R * C; ++k) acc = f(acc, a.data[k]);
        return tile_from_value(acc);
    }
};
template <typename F>
WPNB_FN tile_reducer<F> reduce_with(F f) { return tile_reducer<F>{f}; }

// --- matrix products ---------------------------------------------------------------------------

// a (M x K) times b (K x N), accumulated in T.
template <typename T, int M, int K, int N>
WPNB_FN tile_t<T, M, N> tile_matmul(const tile_t<T, M, K>& a, const tile_t<T, K, N>& b) {
    tile_t<T, M, N> out;
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k) {
            const T aik = a.at(i, k);
            for (int j = 0; j < N; ++j) out.at(i, j) = add(out.at(i, j), mul(aik, b.at(k, j)));
        }
    return out;
}

// tile_matmul(a, b, out, alpha, beta): out = alpha * a @ b + beta * out, in place (Warp's
// accumulating form: out += a @ b with the defaults alpha = beta = 1).
template <typename T, int M, int K, int N>
WPNB_FN void tile_matmul(const tile_t<T, M, K>& a, const tile_t<T, K, N>& b, tile_t<T, M, N>& out, T alpha, T beta) {
    const tile_t<T, M, N> p = tile_matmul(a, b);
    for (int k = 0; k < M * N; ++k) out.data[k] = add(mul(alpha, p.data[k]), mul(beta, out.data[k]));
}
template <typename T, int M, int K, int N>
WPNB_FN void tile_matmul(const tile_t<T, M, K>& a, const tile_t<T, K, N>& b, tile_t<T, M, N>& out) {
    tile_matmul(a, b, out, T(1), T(1));
}

// The threads of a block in a tiled launch: one (see the note at the top of this header).
WPNB_FN int32 block_dim() { return 1; }

}  // namespace wpnb
