// tile_indexed.h: wp.tile_atomic_add_indexed, the atomic twin of tile_store_indexed (tile.h):
// element (p, q) of t is added to a[o0 + p, o1 + q] except along AXIS, where the array index is
// o[AXIS] + idx[p or q]; elements outside the array are skipped. Returns the previous values.
#pragma once
#include "tile.h"

namespace wpnb {

template <int AXIS, typename T, int N, int R, int C, typename I, int NI, typename O>
WPNB_FN tile_t<T, R, C> tile_atomic_add_indexed(const array_t<T, N>& a, const tile_t<I, NI, 1>& idx,
                                                const tile_t<T, R, C>& t, O o0, O o1) {
    tile_t<T, R, C> old;
    tile_indexed_each<AXIS, T, N, R, C>(a, a.data, idx, int64(o0), int64(o1), [&](int k, T* p) {
        if (p) old.data[k] = atomic_elem_add(p, t.data[k]);
    });
    return old;
}
// Adjoint: t's adjoint reads a's gradient at the places added to; unlike a store's, the gradient
// stays there (the values added to still reach the output).
template <int AXIS, typename T, int N, int R, int C, typename I, int NI, typename O, typename Unused>
WPNB_FN void adj_tile_atomic_add_indexed(const array_t<T, N>& a, const tile_t<I, NI, 1>& idx, const tile_t<T, R, C>&,
                                         O o0, O o1, array_t<T, N>&, tile_t<I, NI, 1>&, tile_t<T, R, C>& adj_t, O&, O&,
                                         const Unused&) {
    if (!a.grad) return;
    tile_indexed_each<AXIS, T, N, R, C>(a, a.grad, idx, int64(o0), int64(o1), [&](int k, T* p) {
        if (p) accumulate(adj_t.data[k], *p);
    });
}

}  // namespace wpnb
