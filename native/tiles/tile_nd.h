// tile_nd.h: parts of 3-D and 4-D tiles (t[i], t[a:b, :, ::2], writes into them). A tile's shape
// is padded in front to four extents (E0, E1, E2, E3), its elements row-major over them (see
// tile.h); a selection is, per padded axis, a start (a variable; negative counts from the end), a
// count and a constant step (an integer index: count 1, step 0; a padding axis: start 0, count 1).
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "arrays/adjoint.h"
#include "tiles/tile.h"

namespace wpnb {

// f(k, flat) for the k-th selected element (row-major over the selection) at flat index `flat`
// of the tile; elements outside the tile are skipped (only a write past the end can reach them).
template <int E0, int E1, int E2, int E3, int N0, int ST0, int N1, int ST1, int N2, int ST2, int N3, int ST3,
          typename F>
WPNB_FN void tile_select_each(int32 s0, int32 s1, int32 s2, int32 s3, F f) {
    int k = 0;
    for (int p0 = 0; p0 < N0; ++p0)
        for (int p1 = 0; p1 < N1; ++p1)
            for (int p2 = 0; p2 < N2; ++p2)
                for (int p3 = 0; p3 < N3; ++p3, ++k) {
                    const int32 i0 = s0 + p0 * ST0, i1 = s1 + p1 * ST1, i2 = s2 + p2 * ST2, i3 = s3 + p3 * ST3;
                    if (i0 < 0 || i0 >= E0 || i1 < 0 || i1 >= E1 || i2 < 0 || i2 >= E2 || i3 < 0 || i3 >= E3) continue;
                    f(k, ((i0 * E1 + i1) * E2 + i2) * E3 + i3);
                }
}

#define WPNB_SELECT_PARAMS int E0, int E1, int E2, int E3, int N0, int ST0, int N1, int ST1, int N2, int ST2, int N3, int ST3
#define WPNB_SELECT_ARGS E0, E1, E2, E3, N0, ST0, N1, ST1, N2, ST2, N3, ST3
#define WPNB_SELECT_STARTS int32(wrap_index(i0, E0)), int32(wrap_index(i1, E1)), int32(wrap_index(i2, E2)), \
                           int32(wrap_index(i3, E3))

// The selected elements as a tile of R2 x C2 (a copy). Adjoint: each one's adjoint added back.
template <WPNB_SELECT_PARAMS, int R2, int C2, typename T, int R, int C, typename I>
WPNB_FN tile_t<T, R2, C2> tile_gather_nd(const tile_t<T, R, C>& a, I i0, I i1, I i2, I i3) {
    static_assert(N0 * N1 * N2 * N3 == R2 * C2, "tile_gather_nd: the selection and the result have the same size");
    tile_t<T, R2, C2> out;
    tile_select_each<WPNB_SELECT_ARGS>(WPNB_SELECT_STARTS, [&](int k, int flat) { out.data[k] = a.data[flat]; });
    return out;
}
template <WPNB_SELECT_PARAMS, int R2, int C2, typename T, int R, int C, typename I>
WPNB_FN void adj_tile_gather_nd(const tile_t<T, R, C>&, I i0, I i1, I i2, I i3, tile_t<T, R, C>& adj_a, I&, I&, I&, I&,
                                const tile_t<T, R2, C2>& adj_ret) {
    tile_select_each<WPNB_SELECT_ARGS>(WPNB_SELECT_STARTS,
                                       [&](int k, int flat) { accumulate(adj_a.data[flat], adj_ret.data[k]); });
}

// A copy of a with the selected elements replaced by v's. Adjoint: v gets the selected elements'
// adjoints; a gets the others' (the overwritten values no longer matter).
template <WPNB_SELECT_PARAMS, typename T, int R, int C, int R2, int C2, typename I>
WPNB_FN tile_t<T, R, C> tile_scatter_nd(const tile_t<T, R, C>& a, const tile_t<T, R2, C2>& v, I i0, I i1, I i2, I i3) {
    tile_t<T, R, C> out = a;
    tile_select_each<WPNB_SELECT_ARGS>(WPNB_SELECT_STARTS, [&](int k, int flat) { out.data[flat] = v.data[k]; });
    return out;
}
template <WPNB_SELECT_PARAMS, typename T, int R, int C, int R2, int C2, typename I>
WPNB_FN void adj_tile_scatter_nd(const tile_t<T, R, C>&, const tile_t<T, R2, C2>&, I i0, I i1, I i2, I i3,
                                 tile_t<T, R, C>& adj_a, tile_t<T, R2, C2>& adj_v, I&, I&, I&, I&,
                                 const tile_t<T, R, C>& adj_ret) {
    tile_t<T, R, C> rest = adj_ret;
    tile_select_each<WPNB_SELECT_ARGS>(WPNB_SELECT_STARTS, [&](int k, int flat) {
        accumulate(adj_v.data[k], rest.data[flat]);
        rest.data[flat] = T();
    });
    accumulate(adj_a, rest);
}

#undef WPNB_SELECT_STARTS
#undef WPNB_SELECT_ARGS
#undef WPNB_SELECT_PARAMS

}  // namespace wpnb

namespace wpnb {

// wp.tile_scatter_add(t, i..., value, has_value): a copy of t with value added to the element at
// the indices (padded in front to four, negative counting from the end) when has_value. One
// thread per block, so the atomic and non-atomic forms are the same. Adjoint: t gets the adjoint
// through; value gets the element's when it was added.
template <int E0, int E1, int E2, int E3>
WPNB_FN int tile_flat_index(int64 i0, int64 i1, int64 i2, int64 i3) {
    return int(((wrap_index(i0, E0) * E1 + wrap_index(i1, E1)) * E2 + wrap_index(i2, E2)) * E3 + wrap_index(i3, E3));
}
template <int E0, int E1, int E2, int E3, typename T, int R, int C, typename I>
WPNB_FN tile_t<T, R, C> tile_scatter_add(const tile_t<T, R, C>& a, const T& value, bool has, I i0, I i1, I i2, I i3) {
    tile_t<T, R, C> out = a;
    if (has) {
        const int k = tile_flat_index<E0, E1, E2, E3>(i0, i1, i2, i3);
        out.data[k] = add(out.data[k], value);
    }
    return out;
}
// wp.tile_scatter_masked(t, i..., value, has_value): a copy of t with the element set to value
// when has_value. Adjoint: the overwritten element's adjoint goes to value, not to t.
template <int E0, int E1, int E2, int E3, typename T, int R, int C, typename I>
WPNB_FN tile_t<T, R, C> tile_scatter_set(const tile_t<T, R, C>& a, const T& value, bool has, I i0, I i1, I i2, I i3) {
    tile_t<T, R, C> out = a;
    if (has) out.data[tile_flat_index<E0, E1, E2, E3>(i0, i1, i2, i3)] = value;
    return out;
}
template <int E0, int E1, int E2, int E3, typename T, int R, int C, typename I>
WPNB_FN void adj_tile_scatter_set(const tile_t<T, R, C>&, const T&, bool has, I i0, I i1, I i2, I i3, tile_t<T, R, C>& adj_a,
                                  T& adj_value, bool&, I&, I&, I&, I&, const tile_t<T, R, C>& adj_ret) {
    tile_t<T, R, C> through = adj_ret;
    if (has) {
        const int k = tile_flat_index<E0, E1, E2, E3>(i0, i1, i2, i3);
        accumulate(adj_value, adj_ret.data[k]);
        through.data[k] = T();
    }
    accumulate(adj_a, through);
}

template <int E0, int E1, int E2, int E3, typename T, int R, int C, typename I>
WPNB_FN void adj_tile_scatter_add(const tile_t<T, R, C>&, const T&, bool has, I i0, I i1, I i2, I i3, tile_t<T, R, C>& adj_a,
                                  T& adj_value, bool&, I&, I&, I&, I&, const tile_t<T, R, C>& adj_ret) {
    accumulate(adj_a, adj_ret);
    if (has) accumulate(adj_value, adj_ret.data[tile_flat_index<E0, E1, E2, E3>(i0, i1, i2, i3)]);
}

}  // namespace wpnb
