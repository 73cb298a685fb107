// volume_index.h: index-space access to wp.Volume (Warp's "index volumes"): every active voxel
// has a linear index (its rank among the active voxels, in get_voxels() order), and the values
// live in a user array `voxel_data` indexed by it; voxels without an index read `background`.
// Sampling is trilinear (or nearest) like volume.h's, and differentiable in uvw, in the array's
// values (scattered into voxel_data's gradient atomically) and in the background.
#pragma once
#include "geometry/volume.h"
#include "arrays/atomic.h"

namespace wpnb {

namespace geo {
// Number of set bits (no compiler builtin, so NVRTC and g++ read the same code).
WPNB_FN int32 popcount64(uint64 x) {
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return int32((x * 0x0101010101010101ull) >> 56);
}
}  // namespace geo

// The linear index of active voxel (i, j, k), or -1 when the voxel is inactive or unallocated.
WPNB_FN int32 volume_lookup_index(uint64 id, int32 i, int32 j, int32 k) {
    const volume_t& v = volume_of(id);
    const int32 t = volume_find(v.levels[0], i, j, k);
    if (t < 0 || !v.active_masks) return -1;
    const int32 bit = volume_brick_offset(i, j, k);
    const uint64* m = v.active_masks + int64(t) * 8;
    if (!((m[bit >> 6] >> (bit & 63)) & 1ull)) return -1;
    int32 rank = v.voxel_offsets[t];
    for (int w = 0; w < (bit >> 6); ++w) rank += geo::popcount64(m[w]);
    return rank + geo::popcount64(m[bit >> 6] & ((uint64(1) << (bit & 63)) - 1));
}

// The number of active (indexable) voxels: the size voxel_data arrays need.
WPNB_FN int32 volume_voxel_count(uint64 id) { return volume_of(id).voxel_count; }

namespace geo {
// The 8 corners of the trilinear cell of uvw: their linear indices (-1: background), weights
// w_c = wx wy wz, weight slopes dw_c/du_a and mixed second derivatives d2w_c/du_a du_b
// (h[c][0] = d/dy dz, h[c][1] = d/dx dz, h[c][2] = d/dx dy; the pure ones are zero).
struct index_cell_t {
    int32 index[8];
    float32 w[8];
    float32 dw[8][3];
    float32 h[8][3];
};
WPNB_FN index_cell_t index_cell(uint64 id, const vec3f& uvw) {
    index_cell_t cell;
    const float32 fx = ::floorf(uvw.c[0]), fy = ::floorf(uvw.c[1]), fz = ::floorf(uvw.c[2]);
    const int32 i = int32(fx), j = int32(fy), k = int32(fz);
    const float32 t[3] = {uvw.c[0] - fx, uvw.c[1] - fy, uvw.c[2] - fz};
    for (int c = 0; c < 8; ++c) {
        const int a = c >> 2, b = (c >> 1) & 1, d = c & 1;
        cell.index[c] = volume_lookup_index(id, i + a, j + b, k + d);
        const float32 w[3] = {a ? t[0] : 1.0f - t[0], b ? t[1] : 1.0f - t[1], d ? t[2] : 1.0f - t[2]};
        const float32 s[3] = {a ? 1.0f : -1.0f, b ? 1.0f : -1.0f, d ? 1.0f : -1.0f};
        cell.w[c] = w[0] * w[1] * w[2];
        cell.dw[c][0] = s[0] * w[1] * w[2];
        cell.dw[c][1] = w[0] * s[1] * w[2];
        cell.dw[c][2] = w[0] * w[1] * s[2];
        cell.h[c][0] = w[0] * s[1] * s[2];
        cell.h[c][1] = s[0] * w[1] * s[2];
        cell.h[c][2] = s[0] * s[1] * w[2];
    }
    return cell;
}
template <typename T>
WPNB_FN T index_value(const array_t<T, 1>& data, int32 index, const T& background) {
    return index >= 0 ? data[index] : background;
}
// Add s * adj into the gradient a corner's value came from: voxel_data's (atomically) or the background's.
template <typename T>
WPNB_FN void index_scatter(const array_t<T, 1>& data, int32 index, T& adj_background, const T& adj, float32 s) {
    typedef voxel_traits<T> tr;
    T part = adj;
    for (int n = 0; n < tr::N; ++n) tr::at(part, n) = tr::at(part, n) * typename tr::S(s);
    if (index < 0) accumulate(adj_background, part);
    else if (data.grad) atomic_elem_add(&index_grad(data, index), part);
}
// sum over components of value * adj (the adjoint's inner product)
template <typename T>
WPNB_FN float32 index_dot(T value, T adj) {
    typedef voxel_traits<T> tr;
    float32 r = 0.0f;
    for (int n = 0; n < tr::N; ++n) r += float32(tr::at(value, n) * tr::at(adj, n));
    return r;
}
// The trilinear blend of the cell's corner values (volume.h's, so the results are bit-identical).
template <typename T>
WPNB_FN T index_trilinear(const index_cell_t& cell, const array_t<T, 1>& data, const T& background, const vec3f& uvw,
                          T* g) {
    T c[2][2][2];
    for (int n = 0; n < 8; ++n) c[n >> 2][(n >> 1) & 1][n & 1] = index_value(data, cell.index[n], background);
    return trilinear_from_corners<T>(c, uvw, g);
}
WPNB_FN int32 nearest_corner(const vec3f& uvw) {
    const int a = (uvw.c[0] - ::floorf(uvw.c[0])) >= 0.5f, b = (uvw.c[1] - ::floorf(uvw.c[1])) >= 0.5f,
              d = (uvw.c[2] - ::floorf(uvw.c[2])) >= 0.5f;
    return (a << 2) | (b << 1) | d;
}
}  // namespace geo

// Sample voxel_data at index-space uvw: CLOSEST (mode 0) the nearest voxel's value, LINEAR the
// trilinear blend of the 8 corners; an inactive corner reads background.
template <typename T>
WPNB_FN T volume_sample_index(uint64 id, const vec3f& uvw, int32 sampling_mode, const array_t<T, 1>& voxel_data,
                              const T& background) {
    const geo::index_cell_t cell = geo::index_cell(id, uvw);
    if (sampling_mode == 0) {
        const int c = geo::nearest_corner(uvw);
        return geo::index_value(voxel_data, cell.index[c], background);
    }
    return geo::index_trilinear(cell, voxel_data, background, uvw, (T*)0);
}
// Adjoint: adj_uvw += sum_c dw_c (value_c . adj_ret); each corner's value receives w_c adj_ret.
template <typename T>
WPNB_FN void adj_volume_sample_index(uint64 id, const vec3f& uvw, int32 sampling_mode, const array_t<T, 1>& voxel_data,
                                     const T& background, uint64&, vec3f& adj_uvw, int32&, array_t<T, 1>&,
                                     T& adj_background, const T& adj_ret) {
    const geo::index_cell_t cell = geo::index_cell(id, uvw);
    if (sampling_mode == 0) {
        const int c = geo::nearest_corner(uvw);
        geo::index_scatter(voxel_data, cell.index[c], adj_background, adj_ret, 1.0f);
        return;
    }
    for (int c = 0; c < 8; ++c) {
        const float32 d = geo::index_dot(geo::index_value(voxel_data, cell.index[c], background), adj_ret);
        for (int a = 0; a < 3; ++a) adj_uvw.c[a] += cell.dw[c][a] * d;
        geo::index_scatter(voxel_data, cell.index[c], adj_background, adj_ret, cell.w[c]);
    }
}

namespace geo {
// grad's entry for component n along axis a: a vec3 for scalar values, row n of a matrix for vectors.
template <typename S> WPNB_FN S& grad_entry(vec_t<3, S>& g, int, int a) { return g.c[a]; }
template <int N, typename S> WPNB_FN S& grad_entry(mat_t<N, 3, S>& g, int n, int a) { return g.c[n][a]; }
}  // namespace geo

// volume_sample_index, also writing the index-space gradient into grad (zero for CLOSEST).
template <typename T, typename G>
WPNB_FN T volume_sample_grad_index(uint64 id, const vec3f& uvw, int32 sampling_mode, const array_t<T, 1>& voxel_data,
                                   const T& background, G& grad) {
    typedef geo::voxel_traits<T> tr;
    grad = G();
    if (sampling_mode == 0) return volume_sample_index(id, uvw, 0, voxel_data, background);
    const geo::index_cell_t cell = geo::index_cell(id, uvw);
    T g[3];
    const T out = geo::index_trilinear(cell, voxel_data, background, uvw, g);
    for (int n = 0; n < tr::N; ++n)
        for (int a = 0; a < 3; ++a) geo::grad_entry(grad, n, a) = tr::at(g[a], n);
    return out;
}
// Adjoint: the value as volume_sample_index's; grad's adjoint flows to the corner values through
// the weight slopes and to uvw through the weights' mixed second derivatives. grad is overwritten
// by the call, so its adjoint stops here (zeroed).
template <typename T, typename G>
WPNB_FN void adj_volume_sample_grad_index(uint64 id, const vec3f& uvw, int32 sampling_mode,
                                          const array_t<T, 1>& voxel_data, const T& background, const G&, uint64&,
                                          vec3f& adj_uvw, int32&, array_t<T, 1>&, T& adj_background, G& adj_grad,
                                          const T& adj_ret) {
    typedef geo::voxel_traits<T> tr;
    uint64 adj_id = 0;
    int32 adj_mode = 0;
    array_t<T, 1> adj_data = voxel_data;
    adj_volume_sample_index(id, uvw, sampling_mode, voxel_data, background, adj_id, adj_uvw, adj_mode, adj_data,
                            adj_background, adj_ret);
    if (sampling_mode != 0) {
        const geo::index_cell_t cell = geo::index_cell(id, uvw);
        // hmix[a][b]: d2 w_c / du_a du_b for a != b, stored by the axis left out
        const int other[3][3] = {{-1, 2, 1}, {2, -1, 0}, {1, 0, -1}};
        for (int c = 0; c < 8; ++c) {
            T value = geo::index_value(voxel_data, cell.index[c], background);
            T adj_value = T();
            for (int n = 0; n < tr::N; ++n) {
                typename tr::S sum = typename tr::S(0);
                for (int a = 0; a < 3; ++a) {
                    const typename tr::S g = geo::grad_entry(adj_grad, n, a);
                    sum = sum + g * typename tr::S(cell.dw[c][a]);
                    for (int b = 0; b < 3; ++b)
                        if (b != a) adj_uvw.c[b] += float32(g * tr::at(value, n)) * cell.h[c][other[a][b]];
                }
                tr::at(adj_value, n) = sum;
            }
            geo::index_scatter(voxel_data, cell.index[c], adj_background, adj_value, 1.0f);
        }
    }
    adj_grad = G();
}

}  // namespace wpnb
