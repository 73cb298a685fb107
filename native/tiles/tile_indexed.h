// tile_indexed.h: loads, stores and atomic adds through a tile of indices (part of tile.h, which
// includes it).
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "arrays/array.h"
#include "arrays/atomic.h"
#include "arrays/adjoint.h"
#include "tiles/tile.h"

namespace wpnb {

// --- loads and stores through a tile of indices (wp.tile_load_indexed / tile_store_indexed) -------
// Element (p, q) of the tile is a[o0 + p, o1 + q] except along AXIS, where the array index is
// o[AXIS] + idx[p or q]; elements outside the array read 0 / are not written. 1-D arrays: q = 0.

template <int AXIS, typename T, int N, int R, int C, typename I, int NI, typename F>
WPNB_FN void tile_indexed_each(const array_t<T, N>& a, T* base, const tile_t<I, NI, 1>& idx, int64 o0, int64 o1, F f) {
    for (int p = 0; p < R; ++p)
        for (int q = 0; q < C; ++q) {
            const int64 i = o0 + (AXIS == 0 ? int64(idx.data[p]) : int64(p));
            const int64 j = o1 + (AXIS == 1 ? int64(idx.data[q]) : int64(q));
            f(p * C + q, tile_inside(a, i, j) ? tile_element(a, base, i, j) : (T*)nullptr);
        }
}

template <int AXIS, typename T, int R, int C, int N, typename I, int NI, typename O>
WPNB_FN tile_t<T, R, C> tile_load_indexed(const array_t<T, N>& a, const tile_t<I, NI, 1>& idx, O o0, O o1) {
    tile_t<T, R, C> out;
    tile_indexed_each<AXIS, T, N, R, C>(a, a.data, idx, int64(o0), int64(o1), [&](int k, T* p) { if (p) out.data[k] = *p; });
    return out;
}
template <int AXIS, typename T, int R, int C, int N, typename I, int NI, typename O>
WPNB_FN void adj_tile_load_indexed(const array_t<T, N>& a, const tile_t<I, NI, 1>& idx, O o0, O o1, array_t<T, N>&,
                                   tile_t<I, NI, 1>&, O&, O&, const tile_t<T, R, C>& adj_ret) {
    if (!a.grad) return;
    tile_indexed_each<AXIS, T, N, R, C>(a, a.grad, idx, int64(o0), int64(o1),
                                        [&](int k, T* p) { if (p) atomic_elem_add(p, adj_ret.data[k]); });
}

// Adjoint of the store: t's adjoint reads a's gradient at the written places, which are then cleared
// (the values there before the store no longer matter).
template <int AXIS, typename T, int N, int R, int C, typename I, int NI, typename O>
WPNB_FN void tile_store_indexed(const array_t<T, N>& a, const tile_t<I, NI, 1>& idx, const tile_t<T, R, C>& t, O o0, O o1) {
    tile_indexed_each<AXIS, T, N, R, C>(a, a.data, idx, int64(o0), int64(o1), [&](int k, T* p) { if (p) *p = t.data[k]; });
}
template <int AXIS, typename T, int N, int R, int C, typename I, int NI, typename O, typename Unused>
WPNB_FN void adj_tile_store_indexed(const array_t<T, N>& a, const tile_t<I, NI, 1>& idx, const tile_t<T, R, C>&, O o0, O o1,
                                    array_t<T, N>&, tile_t<I, NI, 1>&, tile_t<T, R, C>& adj_t, O&, O&, const Unused&) {
    if (!a.grad) return;
    tile_indexed_each<AXIS, T, N, R, C>(a, a.grad, idx, int64(o0), int64(o1), [&](int k, T* p) {
        if (p) { accumulate(adj_t.data[k], *p); *p = T(); }
    });
}

// a[...] += t elementwise and atomically through the indices (wp.tile_atomic_add_indexed); returns
// the previous values (0 outside the array). Adjoint: t's adjoint reads a's gradient there.
template <int AXIS, typename T, int N, int R, int C, typename I, int NI, typename O>
WPNB_FN tile_t<T, R, C> tile_atomic_add_indexed(const array_t<T, N>& a, const tile_t<I, NI, 1>& idx, const tile_t<T, R, C>& t,
                                                O o0, O o1) {
    tile_t<T, R, C> old;
    tile_indexed_each<AXIS, T, N, R, C>(a, a.data, idx, int64(o0), int64(o1),
                                        [&](int k, T* p) { if (p) old.data[k] = atomic_elem_add(p, t.data[k]); });
    return old;
}
template <int AXIS, typename T, int N, int R, int C, typename I, int NI, typename O, typename Unused>
WPNB_FN void adj_tile_atomic_add_indexed(const array_t<T, N>& a, const tile_t<I, NI, 1>& idx, const tile_t<T, R, C>&, O o0,
                                         O o1, array_t<T, N>&, tile_t<I, NI, 1>&, tile_t<T, R, C>& adj_t, O&, O&,
                                         const Unused&) {
    if (!a.grad) return;
    tile_indexed_each<AXIS, T, N, R, C>(a, a.grad, idx, int64(o0), int64(o1),
                                        [&](int k, T* p) { if (p) accumulate(adj_t.data[k], *p); });
}

}  // namespace wpnb
