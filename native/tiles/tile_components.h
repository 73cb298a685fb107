// tile_components.h: wp.tile(v) of a vector or matrix without preserve_type and wp.untile back
// (part of tile.h, which includes it).
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "arrays/array.h"
#include "arrays/atomic.h"
#include "arrays/adjoint.h"
#include "tiles/tile.h"

namespace wpnb {

// wp.tile(v) of a vector or matrix (without preserve_type): a tile of its components, shape (n, 1)
// or (m, n, 1) (one thread's column), and wp.untile of such a tile. vec.h / mat.h define the types
// wherever these are instantiated.
template <int N, typename T> struct vec_t;
template <int R, int C, typename T> struct mat_t;
template <int N, typename T>
WPNB_FN tile_t<T, N, 1> tile_from_vector(const vec_t<N, T>& v) {
    tile_t<T, N, 1> out;
    for (int k = 0; k < N; ++k) out.data[k] = v.c[k];
    return out;
}
template <int N, typename T>
WPNB_FN void adj_tile_from_vector(const vec_t<N, T>&, vec_t<N, T>& adj_v, const tile_t<T, N, 1>& adj_ret) {
    for (int k = 0; k < N; ++k) accumulate(adj_v.c[k], adj_ret.data[k]);
}
template <int M, int N, typename T>
WPNB_FN tile_t<T, M * N, 1> tile_from_matrix(const mat_t<M, N, T>& m) {
    tile_t<T, M * N, 1> out;
    for (int k = 0; k < M * N; ++k) out.data[k] = m.c[k / N][k % N];
    return out;
}
template <int M, int N, typename T>
WPNB_FN void adj_tile_from_matrix(const mat_t<M, N, T>&, mat_t<M, N, T>& adj_m, const tile_t<T, M * N, 1>& adj_ret) {
    for (int k = 0; k < M * N; ++k) accumulate(adj_m.c[k / N][k % N], adj_ret.data[k]);
}
// This lane's column of a tile of shape (N, B) as a vector, or of (M, N, B) as a matrix.
template <int N, typename T, int R, int C>
WPNB_FN vec_t<N, T> untile_vector(const tile_t<T, R, C>& t) {
    vec_t<N, T> v;
    const int32 lane = block_lane() < C ? block_lane() : 0;
    for (int k = 0; k < N; ++k) v.c[k] = t.data[k * C + lane];
    return v;
}
template <int N, typename T, int R, int C>
WPNB_FN void adj_untile_vector(const tile_t<T, R, C>&, tile_t<T, R, C>& adj_t, const vec_t<N, T>& adj_ret) {
    if (block_dim() == 1) {
        for (int k = 0; k < N; ++k) accumulate(adj_t.data[k * C], adj_ret.c[k]);
        return;
    }
    vec_t<N, T> all[C];  // a block of C lanes: every lane's adjoint, so each keeps the whole tile's
    block_gather<C>(adj_ret, all);
    for (int l = 0; l < C; ++l)
        for (int k = 0; k < N; ++k) accumulate(adj_t.data[k * C + l], all[l].c[k]);
}
template <int M, int N, typename T, int R, int C>
WPNB_FN mat_t<M, N, T> untile_matrix(const tile_t<T, R, C>& t) {
    mat_t<M, N, T> m;
    const int32 lane = block_lane() < C ? block_lane() : 0;
    for (int k = 0; k < M * N; ++k) m.c[k / N][k % N] = t.data[k * C + lane];
    return m;
}
template <int M, int N, typename T, int R, int C>
WPNB_FN void adj_untile_matrix(const tile_t<T, R, C>&, tile_t<T, R, C>& adj_t, const mat_t<M, N, T>& adj_ret) {
    if (block_dim() == 1) {
        for (int k = 0; k < M * N; ++k) accumulate(adj_t.data[k * C], adj_ret.c[k / N][k % N]);
        return;
    }
    mat_t<M, N, T> all[C];
    block_gather<C>(adj_ret, all);
    for (int l = 0; l < C; ++l)
        for (int k = 0; k < M * N; ++k) accumulate(adj_t.data[k * C + l], all[l].c[k / N][k % N]);
}

}  // namespace wpnb
