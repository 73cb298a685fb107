// tile.h: tiles, small dense blocks of values whose shape is fixed at compile time (Warp's
// wp.tile_* builtins): the type, construction, loads and stores, elementwise arithmetic and maps,
// each followed by its adjoint. Shapes, reductions and products are in tile_ops.h.
//
// A tile is a value like a matrix: tile_t<T, R, C> holds R*C elements in row-major order; a 1-D
// tile of length n is tile_t<T, n, 1>. The compiler knows each tile's shape, so every function
// here is a template over it. Every lane of a block holds the whole tile and computes it (on the
// CPU a block is one lane, as in Warp, unless wp.config.enable_cpu_blocks); the few operations
// where lanes differ are in block.h and tile_block.h (see docs/architecture.md, "Tiles"). Loads
// outside the array read 0 and stores outside it are dropped, as in Warp.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "arrays/array.h"
#include "arrays/atomic.h"
#include "arrays/adjoint.h"
#include "tiles/block.h"  // block_dim(), block_lane(): the lanes of a block

namespace wpnb {

template <typename T, int R, int C>
struct tile_t {
    T data[R * C];

    // Zero tile (what a hoisted loop variable and an adjoint start as).
    // T() rather than T(0): elements may be vectors, quaternions or structs.
    WPNB_FN tile_t() { for (int k = 0; k < R * C; ++k) data[k] = T(); }
    WPNB_FN T& at(int i, int j) { return data[i * C + j]; }
    WPNB_FN const T& at(int i, int j) const { return data[i * C + j]; }
};


// The sum of a tile's elements (the adjoint of a scalar that was spread over a tile). From the
// first element on: a struct's fields that are not summed (flags, small integers) keep its values.
template <typename T, int R, int C>
WPNB_FN T tile_total(const tile_t<T, R, C>& a) {
    T s = a.data[0];
    for (int k = 1; k < R * C; ++k) s = add(s, a.data[k]);
    return s;
}

// --- construction ---------------------------------------------------------------------------

// Every element `value` (tile_zeros, tile_ones, tile_full); d value = sum of the adjoint.
template <typename T, int R, int C>
WPNB_FN tile_t<T, R, C> tile_full(T value) {
    tile_t<T, R, C> out;
    for (int k = 0; k < R * C; ++k) out.data[k] = value;
    return out;
}
template <typename T, int R, int C>
WPNB_FN void adj_tile_full(T, T& adj_value, const tile_t<T, R, C>& adj_ret) { accumulate(adj_value, tile_total(adj_ret)); }

// start, start + step, ... (R values: the compiler computed R from constant bounds).
template <typename T, int R>
WPNB_FN tile_t<T, R, 1> tile_arange(T start, T step) {
    tile_t<T, R, 1> out;
    for (int k = 0; k < R; ++k) out.data[k] = T(start + T(k) * step);
    return out;
}
template <typename T, int R>
WPNB_FN void adj_tile_arange(T, T, T& adj_start, T& adj_step, const tile_t<T, R, 1>& adj_ret) {
    for (int k = 0; k < R; ++k) {
        accumulate(adj_start, adj_ret.data[k]);
        accumulate(adj_step, T(T(k) * adj_ret.data[k]));
    }
}

// wp.tile(x) in a block of one lane: a 1-D tile of one value (several lanes: tile_block.h).
template <typename T>
WPNB_FN tile_t<T, 1, 1> tile_from_value(T x) {
    tile_t<T, 1, 1> out;
    out.data[0] = x;
    return out;
}
template <typename T>
WPNB_FN void adj_tile_from_value(T, T& adj_x, const tile_t<T, 1, 1>& adj_ret) { accumulate(adj_x, adj_ret.data[0]); }

// wp.untile(t): this lane's value of a 1-D tile of the block's length (one lane: element 0).
template <typename T, int R>
WPNB_FN T untile(const tile_t<T, R, 1>& t) {
    const int32 lane = block_lane();
    return lane < R ? t.data[lane] : T();
}
template <typename T, int R>
WPNB_FN void adj_untile(const tile_t<T, R, 1>&, tile_t<T, R, 1>& adj_t, const T& adj_ret) {
    if (block_dim() == 1) {
        accumulate(adj_t.data[0], adj_ret);
        return;
    }
    T all[R];  // a block of R lanes: every lane's adjoint, so each lane keeps the whole tile's
    block_gather<R>(adj_ret, all);
    for (int k = 0; k < R; ++k) accumulate(adj_t.data[k], all[k]);
}

// print(t) of a 1-D or 2-D tile of scalars, as Warp shows it: `[1 2 3] = tile(shape=(3),
// storage=register)`, a 2-D tile's rows on their own lines. `show` prints one element.
template <typename T, int R, int C, typename F>
WPNB_FN void print_tile(const tile_t<T, R, C>& t, F show, int ndim, const char* shape, const char* storage) {
    printf("[");
    for (int i = 0; i < R; ++i) {
        if (ndim == 2) printf(i == 0 ? "[" : " [");
        for (int j = 0; j < C; ++j) {
            show(t.at(i, j));
            if (j + 1 < C) printf(" ");
        }
        if (ndim == 2) printf(i + 1 < R ? "]\n" : "]");
        else if (i + 1 < R) printf(" ");
    }
    printf("] = tile(shape=(%s), storage=%s)", shape, storage);
}

// --- loads and stores (out-of-bounds elements read 0 and are not written) ----------------------

template <typename T, int N>
WPNB_FN T* tile_element(const array_t<T, N>& a, T* base, int64 i, int64 j = 0) {
    return (T*)((char*)base + i * a.strides[0] + (N > 1 ? j * a.strides[N > 1 ? 1 : 0] : 0));
}
template <typename T, int N>
WPNB_FN bool tile_inside(const array_t<T, N>& a, int64 i, int64 j = 0) {
    return i >= 0 && i < a.shape[0] && (N < 2 || (j >= 0 && j < a.shape[N > 1 ? 1 : 0]));
}

// The block a[o0 : o0 + R] (1-D) or a[o0 : o0 + R, o1 : o1 + C] (2-D). Adjoint: the tile's
// adjoint added into a's gradient (atomically: blocks may overlap).
template <typename T, int R, typename I>
WPNB_FN tile_t<T, R, 1> tile_load(const array_t<T, 1>& a, I o0) {
    tile_t<T, R, 1> out;
    for (int i = 0; i < R; ++i)
        if (tile_inside(a, o0 + i)) out.data[i] = *tile_element(a, a.data, o0 + i);
    return out;
}
template <typename T, int R, int C, typename I, typename J>
WPNB_FN tile_t<T, R, C> tile_load(const array_t<T, 2>& a, I o0, J o1) {
    tile_t<T, R, C> out;
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j)
            if (tile_inside(a, o0 + i, o1 + j)) out.at(i, j) = *tile_element(a, a.data, o0 + i, o1 + j);
    return out;
}
template <typename T, int R, typename I>
WPNB_FN void adj_tile_load(const array_t<T, 1>& a, I o0, array_t<T, 1>&, I&, const tile_t<T, R, 1>& adj_ret) {
    if (!a.grad) return;
    for (int i = 0; i < R; ++i)
        if (tile_inside(a, o0 + i)) atomic_elem_add(tile_element(a, a.grad, o0 + i), adj_ret.data[i]);
}
template <typename T, int R, int C, typename I, typename J>
WPNB_FN void adj_tile_load(const array_t<T, 2>& a, I o0, J o1, array_t<T, 2>&, I&, J&, const tile_t<T, R, C>& adj_ret) {
    if (!a.grad) return;
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j)
            if (tile_inside(a, o0 + i, o1 + j)) atomic_elem_add(tile_element(a, a.grad, o0 + i, o1 + j), adj_ret.at(i, j));
}

// The adjoint of an overwritten element: its gradient moves into the stored value's adjoint.
template <typename T> WPNB_FN void tile_take_grad(T& adj, T* grad) { accumulate(adj, *grad); *grad = T(); }

// Write t into a at the offset. Adjoint: t's adjoint reads a's gradient there, which is then cleared:
// the values the store overwrote do not reach the output, so a load of them before the store (c =
// tile_load(C); ...; tile_store(C, c)) gets only its own path's gradient, as in Warp.
template <typename T, int R, typename I>
WPNB_FN void tile_store(const array_t<T, 1>& a, const tile_t<T, R, 1>& t, I o0) {
    for (int i = 0; i < R; ++i)
        if (tile_inside(a, o0 + i)) *tile_element(a, a.data, o0 + i) = t.data[i];
}
template <typename T, int R, int C, typename I, typename J>
WPNB_FN void tile_store(const array_t<T, 2>& a, const tile_t<T, R, C>& t, I o0, J o1) {
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j)
            if (tile_inside(a, o0 + i, o1 + j)) *tile_element(a, a.data, o0 + i, o1 + j) = t.at(i, j);
}
template <typename T, int R, typename I, typename Unused>
WPNB_FN void adj_tile_store(const array_t<T, 1>& a, const tile_t<T, R, 1>&, I o0, array_t<T, 1>&, tile_t<T, R, 1>& adj_t,
                            I&, const Unused&) {
    if (!a.grad) return;
    for (int i = 0; i < R; ++i)
        if (tile_inside(a, o0 + i)) tile_take_grad(adj_t.data[i], tile_element(a, a.grad, o0 + i));
}
template <typename T, int R, int C, typename I, typename J, typename Unused>
WPNB_FN void adj_tile_store(const array_t<T, 2>& a, const tile_t<T, R, C>&, I o0, J o1, array_t<T, 2>&,
                            tile_t<T, R, C>& adj_t, I&, J&, const Unused&) {
    if (!a.grad) return;
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j)
            if (tile_inside(a, o0 + i, o1 + j)) tile_take_grad(adj_t.at(i, j), tile_element(a, a.grad, o0 + i, o1 + j));
}

// a[o + k] += t[k] atomically, inside the array; returns the previous values (0 outside).
// Adjoint: t's adjoint reads a's gradient there (the previous values carry no gradient)
template <typename T, int R, typename I>
WPNB_FN tile_t<T, R, 1> tile_atomic_add(const array_t<T, 1>& a, const tile_t<T, R, 1>& t, I o0) {
    tile_t<T, R, 1> old;
    for (int i = 0; i < R; ++i)
        if (tile_inside(a, o0 + i)) old.data[i] = atomic_elem_add(tile_element(a, a.data, o0 + i), t.data[i]);
    return old;
}
template <typename T, int R, int C, typename I, typename J>
WPNB_FN tile_t<T, R, C> tile_atomic_add(const array_t<T, 2>& a, const tile_t<T, R, C>& t, I o0, J o1) {
    tile_t<T, R, C> old;
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j)
            if (tile_inside(a, o0 + i, o1 + j))
                old.at(i, j) = atomic_elem_add(tile_element(a, a.data, o0 + i, o1 + j), t.at(i, j));
    return old;
}
// (unlike a store's, the gradient stays: the values added to still reach the output)
template <typename T, int R, typename I, typename Unused>
WPNB_FN void adj_tile_atomic_add(const array_t<T, 1>& a, const tile_t<T, R, 1>&, I o0, array_t<T, 1>&,
                                 tile_t<T, R, 1>& adj_t, I&, const Unused&) {
    if (!a.grad) return;
    for (int i = 0; i < R; ++i)
        if (tile_inside(a, o0 + i)) accumulate(adj_t.data[i], *tile_element(a, a.grad, o0 + i));
}
template <typename T, int R, int C, typename I, typename J, typename Unused>
WPNB_FN void adj_tile_atomic_add(const array_t<T, 2>& a, const tile_t<T, R, C>&, I o0, J o1, array_t<T, 2>&,
                                 tile_t<T, R, C>& adj_t, I&, J&, const Unused&) {
    if (!a.grad) return;
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j)
            if (tile_inside(a, o0 + i, o1 + j)) accumulate(adj_t.at(i, j), *tile_element(a, a.grad, o0 + i, o1 + j));
}

// --- 3-D and 4-D blocks ------------------------------------------------------------------------
// The tile's shape padded in front to (E0, E1, E2, E3), stored as tile_t<T, E0 * E1 * E2, E3>; the
// array's N dimensions are the last N of them.

template <typename T, int N>
WPNB_FN T* tile_nd_element(const array_t<T, N>& a, T* base, const int64* o, const int* idx) {
    char* p = (char*)base;
    for (int d = 0; d < N; ++d) {
        const int64 i = o[d] + idx[4 - N + d];
        if (i < 0 || i >= a.shape[d]) return nullptr;
        p += i * a.strides[d];
    }
    return (T*)p;
}

// Visit each element of the block with its flat tile index and its array element (null outside).
template <int E0, int E1, int E2, int E3, typename T, int N, typename F>
WPNB_FN void tile_nd_each(const array_t<T, N>& a, T* base, const int64* o, F f) {
    int k = 0;
    for (int i0 = 0; i0 < E0; ++i0)
        for (int i1 = 0; i1 < E1; ++i1)
            for (int i2 = 0; i2 < E2; ++i2)
                for (int i3 = 0; i3 < E3; ++i3, ++k) {
                    const int idx[4] = {i0, i1, i2, i3};
                    f(k, tile_nd_element(a, base, o, idx));
                }
}

#define WPNB_TILE_ND(N, OFFSETS_DECL, OFFSETS, ADJ_OFFSETS_DECL)                                              \
    template <typename T, int E0, int E1, int E2, int E3, typename I>                                        \
    WPNB_FN tile_t<T, E0 * E1 * E2, E3> tile_load_nd(const array_t<T, N>& a, OFFSETS_DECL) {                 \
        const int64 o[N] = {OFFSETS};                                                                         \
        tile_t<T, E0 * E1 * E2, E3> out;                                                                      \
        tile_nd_each<E0, E1, E2, E3>(a, a.data, o, [&](int k, T* p) { if (p) out.data[k] = *p; });           \
        return out;                                                                                           \
    }                                                                                                         \
    template <typename T, int E0, int E1, int E2, int E3, typename I>                                        \
    WPNB_FN void adj_tile_load_nd(const array_t<T, N>& a, OFFSETS_DECL, array_t<T, N>&, ADJ_OFFSETS_DECL,    \
                                  const tile_t<T, E0 * E1 * E2, E3>& adj_ret) {                               \
        if (!a.grad) return;                                                                                  \
        const int64 o[N] = {OFFSETS};                                                                         \
        tile_nd_each<E0, E1, E2, E3>(a, a.grad, o, [&](int k, T* p) { if (p) atomic_elem_add(p, adj_ret.data[k]); }); \
    }                                                                                                         \
    template <int E0, int E1, int E2, int E3, typename T, int R, int C, typename I>                          \
    WPNB_FN void tile_store_nd(const array_t<T, N>& a, const tile_t<T, R, C>& t, OFFSETS_DECL) {              \
        const int64 o[N] = {OFFSETS};                                                                         \
        tile_nd_each<E0, E1, E2, E3>(a, a.data, o, [&](int k, T* p) { if (p) *p = t.data[k]; });             \
    }                                                                                                         \
    template <int E0, int E1, int E2, int E3, typename T, int R, int C, typename I, typename Unused>         \
    WPNB_FN void adj_tile_store_nd(const array_t<T, N>& a, const tile_t<T, R, C>&, OFFSETS_DECL, array_t<T, N>&, \
                                   tile_t<T, R, C>& adj_t, ADJ_OFFSETS_DECL, const Unused&) {                \
        if (!a.grad) return;                                                                                  \
        const int64 o[N] = {OFFSETS};                                                                         \
        tile_nd_each<E0, E1, E2, E3>(a, a.grad, o, [&](int k, T* p) { if (p) tile_take_grad(adj_t.data[k], p); }); \
    }                                                                                                         \
    template <int E0, int E1, int E2, int E3, typename T, int R, int C, typename I>                          \
    WPNB_FN tile_t<T, R, C> tile_atomic_add_nd(const array_t<T, N>& a, const tile_t<T, R, C>& t, OFFSETS_DECL) { \
        const int64 o[N] = {OFFSETS};                                                                         \
        tile_t<T, R, C> old;                                                                                  \
        tile_nd_each<E0, E1, E2, E3>(a, a.data, o, [&](int k, T* p) { if (p) old.data[k] = atomic_elem_add(p, t.data[k]); }); \
        return old;                                                                                           \
    }                                                                                                         \
    template <int E0, int E1, int E2, int E3, typename T, int R, int C, typename I, typename Unused>         \
    WPNB_FN void adj_tile_atomic_add_nd(const array_t<T, N>& a, const tile_t<T, R, C>& t, OFFSETS_DECL,      \
                                        array_t<T, N>& adj_a, tile_t<T, R, C>& adj_t, ADJ_OFFSETS_DECL,       \
                                        const Unused& unused) {                                               \
        if (!a.grad) return;                                                                                  \
        const int64 o[N] = {OFFSETS};                                                                         \
        tile_nd_each<E0, E1, E2, E3>(a, a.grad, o, [&](int k, T* p) { if (p) accumulate(adj_t.data[k], *p); }); \
    }
#define WPNB_COMMA ,
WPNB_TILE_ND(3, I o0 WPNB_COMMA I o1 WPNB_COMMA I o2, int64(o0) WPNB_COMMA int64(o1) WPNB_COMMA int64(o2),
             I& WPNB_COMMA I& WPNB_COMMA I&)
WPNB_TILE_ND(4, I o0 WPNB_COMMA I o1 WPNB_COMMA I o2 WPNB_COMMA I o3,
             int64(o0) WPNB_COMMA int64(o1) WPNB_COMMA int64(o2) WPNB_COMMA int64(o3),
             I& WPNB_COMMA I& WPNB_COMMA I& WPNB_COMMA I&)
#undef WPNB_COMMA
#undef WPNB_TILE_ND

// t[i, j, k(, l)] of a 3-D or 4-D tile (negative indices count from the end).
template <int E1, int E2, int E3, typename T, int R, int C, typename I>
WPNB_FN T tile_extract_nd(const tile_t<T, R, C>& a, I i, I j, I k) {
    return a.data[(wrap_index(i, E1) * E2 + wrap_index(j, E2)) * E3 + wrap_index(k, E3)];
}
template <int E1, int E2, int E3, typename T, int R, int C, typename I>
WPNB_FN void adj_tile_extract_nd(const tile_t<T, R, C>&, I i, I j, I k, tile_t<T, R, C>& adj_a, I&, I&, I&, const T& adj_ret) {
    accumulate(adj_a.data[(wrap_index(i, E1) * E2 + wrap_index(j, E2)) * E3 + wrap_index(k, E3)], adj_ret);
}
template <int E0, int E1, int E2, int E3, typename T, int R, int C, typename I>
WPNB_FN T tile_extract_nd(const tile_t<T, R, C>& a, I i, I j, I k, I l) {
    return a.data[((wrap_index(i, E0) * E1 + wrap_index(j, E1)) * E2 + wrap_index(k, E2)) * E3 + wrap_index(l, E3)];
}
template <int E0, int E1, int E2, int E3, typename T, int R, int C, typename I>
WPNB_FN void adj_tile_extract_nd(const tile_t<T, R, C>&, I i, I j, I k, I l, tile_t<T, R, C>& adj_a, I&, I&, I&, I&,
                                 const T& adj_ret) {
    accumulate(adj_a.data[((wrap_index(i, E0) * E1 + wrap_index(j, E1)) * E2 + wrap_index(k, E2)) * E3 + wrap_index(l, E3)],
               adj_ret);
}

// --- elementwise arithmetic (the operators + - * / on tiles; scalars apply to every element) ----
// The adjoints apply the scalar adjoints elementwise; a scalar operand's adjoint gathers them all.

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
    }                                                                                               \
    template <typename T, int R, int C>                                                             \
    WPNB_FN void adj_##name(const tile_t<T, R, C>& a, const tile_t<T, R, C>& b, tile_t<T, R, C>& adj_a, \
                            tile_t<T, R, C>& adj_b, const tile_t<T, R, C>& adj_ret) {               \
        for (int k = 0; k < R * C; ++k)                                                             \
            adj_##name(a.data[k], b.data[k], adj_a.data[k], adj_b.data[k], adj_ret.data[k]);        \
    }                                                                                               \
    template <typename T, int R, int C>                                                             \
    WPNB_FN void adj_##name(const tile_t<T, R, C>& a, T s, tile_t<T, R, C>& adj_a, T& adj_s,        \
                            const tile_t<T, R, C>& adj_ret) {                                       \
        for (int k = 0; k < R * C; ++k) adj_##name(a.data[k], s, adj_a.data[k], adj_s, adj_ret.data[k]); \
    }                                                                                               \
    template <typename T, int R, int C>                                                             \
    WPNB_FN void adj_##name(T s, const tile_t<T, R, C>& b, T& adj_s, tile_t<T, R, C>& adj_b,        \
                            const tile_t<T, R, C>& adj_ret) {                                       \
        for (int k = 0; k < R * C; ++k) adj_##name(s, b.data[k], adj_s, adj_b.data[k], adj_ret.data[k]); \
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
WPNB_FN void adj_neg(const tile_t<T, R, C>& a, tile_t<T, R, C>& adj_a, const tile_t<T, R, C>& adj_ret) {
    for (int k = 0; k < R * C; ++k) adj_neg(a.data[k], adj_a.data[k], adj_ret.data[k]);
}

template <typename T, int R, int C>
WPNB_FN tile_t<T, R, C> pos(const tile_t<T, R, C>& a) { return a; }
template <typename T, int R, int C>
WPNB_FN void adj_pos(const tile_t<T, R, C>&, tile_t<T, R, C>& adj_a, const tile_t<T, R, C>& adj_ret) {
    accumulate(adj_a, adj_ret);
}

// tile_map(f, a) / tile_map(f, a, b): f applied to every element (or pair of elements). The
// compiler passes f as a function object wrapping a builtin or a @wp.func, then the tiles; the
// adjoint gets a function object wrapping f's adjoint (x..., adj_x..., adj_ret).
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
    template <typename T, typename U, typename V, int R, int C>
    WPNB_FN auto operator()(const tile_t<T, R, C>& a, const tile_t<U, R, C>& b, const tile_t<V, R, C>& c) const
        -> tile_t<decltype(f(a.data[0], b.data[0], c.data[0])), R, C> {
        tile_t<decltype(f(a.data[0], b.data[0], c.data[0])), R, C> out;
        for (int k = 0; k < R * C; ++k) out.data[k] = f(a.data[k], b.data[k], c.data[k]);
        return out;
    }
    template <typename T, typename U, typename V, typename W, int R, int C>
    WPNB_FN auto operator()(const tile_t<T, R, C>& a, const tile_t<U, R, C>& b, const tile_t<V, R, C>& c,
                            const tile_t<W, R, C>& d) const
        -> tile_t<decltype(f(a.data[0], b.data[0], c.data[0], d.data[0])), R, C> {
        tile_t<decltype(f(a.data[0], b.data[0], c.data[0], d.data[0])), R, C> out;
        for (int k = 0; k < R * C; ++k) out.data[k] = f(a.data[k], b.data[k], c.data[k], d.data[k]);
        return out;
    }
    // five to eight tiles (Warp maps a @wp.func of up to eight arguments)
    template <typename T, typename U, typename V, typename W, typename X, int R, int C, typename... Ys>
    WPNB_FN auto operator()(const tile_t<T, R, C>& a, const tile_t<U, R, C>& b, const tile_t<V, R, C>& c,
                            const tile_t<W, R, C>& d, const tile_t<X, R, C>& e, const tile_t<Ys, R, C>&... more) const
        -> tile_t<decltype(f(a.data[0], b.data[0], c.data[0], d.data[0], e.data[0], more.data[0]...)), R, C> {
        tile_t<decltype(f(a.data[0], b.data[0], c.data[0], d.data[0], e.data[0], more.data[0]...)), R, C> out;
        for (int k = 0; k < R * C; ++k)
            out.data[k] = f(a.data[k], b.data[k], c.data[k], d.data[k], e.data[k], more.data[k]...);
        return out;
    }
};
template <typename F>
WPNB_FN tile_mapper<F> map_with(F f) { return tile_mapper<F>{f}; }

template <typename F>
struct tile_adj_mapper {
    F adj_f;
    template <typename T, typename V, int R, int C>
    WPNB_FN void operator()(const tile_t<T, R, C>& a, tile_t<T, R, C>& adj_a, const tile_t<V, R, C>& adj_ret) const {
        for (int k = 0; k < R * C; ++k) adj_f(a.data[k], adj_a.data[k], adj_ret.data[k]);
    }
    template <typename T, typename U, typename V, int R, int C>
    WPNB_FN void operator()(const tile_t<T, R, C>& a, const tile_t<U, R, C>& b, tile_t<T, R, C>& adj_a,
                            tile_t<U, R, C>& adj_b, const tile_t<V, R, C>& adj_ret) const {
        for (int k = 0; k < R * C; ++k) adj_f(a.data[k], b.data[k], adj_a.data[k], adj_b.data[k], adj_ret.data[k]);
    }
    template <typename T, typename U, typename V, typename X, int R, int C>
    WPNB_FN void operator()(const tile_t<T, R, C>& a, const tile_t<U, R, C>& b, const tile_t<V, R, C>& c,
                            tile_t<T, R, C>& adj_a, tile_t<U, R, C>& adj_b, tile_t<V, R, C>& adj_c,
                            const tile_t<X, R, C>& adj_ret) const {
        for (int k = 0; k < R * C; ++k)
            adj_f(a.data[k], b.data[k], c.data[k], adj_a.data[k], adj_b.data[k], adj_c.data[k], adj_ret.data[k]);
    }
    template <typename T, typename U, typename V, typename W, typename X, int R, int C>
    WPNB_FN void operator()(const tile_t<T, R, C>& a, const tile_t<U, R, C>& b, const tile_t<V, R, C>& c,
                            const tile_t<W, R, C>& d, tile_t<T, R, C>& adj_a, tile_t<U, R, C>& adj_b,
                            tile_t<V, R, C>& adj_c, tile_t<W, R, C>& adj_d, const tile_t<X, R, C>& adj_ret) const {
        for (int k = 0; k < R * C; ++k)
            adj_f(a.data[k], b.data[k], c.data[k], d.data[k], adj_a.data[k], adj_b.data[k], adj_c.data[k], adj_d.data[k],
                  adj_ret.data[k]);
    }
    // five to eight tiles: (x..., adj_x..., adj_ret), at least eleven tiles of one size, passed on in order
    template <typename A, typename B, typename C, typename D, typename E, typename G, typename H, typename I,
              typename J, typename K, typename L, typename... Ts>
    WPNB_FN void operator()(A& a, B& b, C& c, D& d, E& e, G& g, H& h, I& i, J& j, K& k, L& l, Ts&... more) const {
        for (int n = 0; n < int(sizeof(a.data) / sizeof(a.data[0])); ++n)
            adj_f(a.data[n], b.data[n], c.data[n], d.data[n], e.data[n], g.data[n], h.data[n], i.data[n], j.data[n],
                  k.data[n], l.data[n], more.data[n]...);
    }
};
template <typename F>
WPNB_FN tile_adj_mapper<F> adj_map_with(F adj_f) { return tile_adj_mapper<F>{adj_f}; }

}  // namespace wpnb

// tiles of a vector's or matrix's components, and loads and stores through a tile of indices
#include "tiles/tile_components.h"
#include "tiles/tile_indexed.h"
