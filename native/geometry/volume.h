// volume.h: the kernel side of wp.Volume, a sparse grid of voxels (float32, int32, vec3f, vec4f,
// vec4d ...: value_size bytes each; the typed builtins read them as their type). Voxel data lives in
// 8x8x8 bricks (tiles) allocated only where the volume has data; a brick is found through an
// open-addressing hash table keyed by its coordinates. Regions of constant value (the tiles of a
// NanoVDB tree: 8^3, 128^3 and 4096^3 voxels) live in three more tables; everything else reads
// the background value. Index space has voxel centres at integer coordinates; world space is
// world = M * index + translation. The volume's `id` is the address of a volume_t owned by the
// Python object.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"
#include "core/mat.h"

namespace wpnb {

// One hash table: keys of (coordinate >> shift) packed by volume_key, values (brick index for
// level 0, index into const_values for the constant levels). keys == 0: the table is empty.
struct volume_table_t {
    const uint64* keys;
    const int32* values;
    int32 shift;
    int32 log2_capacity;
};

struct volume_t {
    void* data;                    // num_tiles * 512 values of value_size bytes, x-major inside a brick
    const void* const_values;      // values of the constant regions
    volume_table_t levels[4];      // 0: bricks; 1, 2, 3: constant 8^3, 128^3, 4096^3 regions
    int32 num_tiles;
    int32 value_size;              // bytes per value: float32, int32, vec3f, vec4f, vec4d ... (the Python side knows which)
    float32 xform[9];              // index -> world (row-major)
    float32 inv_xform[9];          // world -> index
    float32 translation[3];
    int32 pad;
    uint64 background[4];          // the background value's bytes (up to a vec4d)
    const uint64* active_masks;    // 8 words per brick: bit (i&7)<<6 | (j&7)<<3 | (k&7) set for active voxels
    const int32* voxel_offsets;    // per brick: the active voxels of the bricks before it (volume_lookup_index)
    int32 voxel_count;             // active voxels in all
    int32 pad2;
};

WPNB_FN const volume_t& volume_of(uint64 id) { return *(const volume_t*)id; }

// 21 bits per coordinate (two's complement), so tile coordinates of +-2^20 fit.
WPNB_FN uint64 volume_key(int32 x, int32 y, int32 z) {
    return ((uint64(uint32(x)) & 0x1fffffull) << 42) | ((uint64(uint32(y)) & 0x1fffffull) << 21) |
           (uint64(uint32(z)) & 0x1fffffull);
}
WPNB_FN uint64 volume_hash(uint64 key, int32 shift) { return (key * 0x9e3779b97f4a7c15ull) >> shift; }

// The value stored for voxel (i, j, k)'s region in table t, or -1.
WPNB_FN int32 volume_find(const volume_table_t& t, int32 i, int32 j, int32 k) {
    if (!t.keys) return -1;
    const uint64 key = volume_key(i >> t.shift, j >> t.shift, k >> t.shift);
    const uint64 mask = (uint64(1) << t.log2_capacity) - 1;
    uint64 s = volume_hash(key, 64 - t.log2_capacity);
    for (uint64 probe = 0; probe <= mask; ++probe) {
        const uint64 kk = t.keys[s];
        if (kk == key) return t.values[s];
        if (kk == ~uint64(0)) return -1;
        s = (s + 1) & mask;
    }
    return -1;
}

WPNB_FN int32 volume_brick_offset(int32 i, int32 j, int32 k) { return ((i & 7) << 6) | ((j & 7) << 3) | (k & 7); }

// Value of voxel (i, j, k) as a T: its brick, else its constant region, else the background.
template <typename T>
WPNB_FN T volume_value_of(const volume_t& v, int32 i, int32 j, int32 k) {
    const int32 t = volume_find(v.levels[0], i, j, k);
    if (t >= 0) return ((const T*)v.data)[int64(t) * 512 + volume_brick_offset(i, j, k)];
    for (int l = 1; l < 4; ++l) {
        const int32 c = volume_find(v.levels[l], i, j, k);
        if (c >= 0) return ((const T*)v.const_values)[c];
    }
    return *(const T*)v.background;
}
WPNB_FN float32 volume_value(const volume_t& v, int32 i, int32 j, int32 k) { return volume_value_of<float32>(v, i, j, k); }

// Value of voxel (i, j, k) (the background outside allocated bricks); the volume must hold T values.
template <typename T>
WPNB_FN T volume_lookup_t(uint64 id, int32 i, int32 j, int32 k) { return volume_value_of<T>(volume_of(id), i, j, k); }
WPNB_FN float32 volume_lookup_f(uint64 id, int32 i, int32 j, int32 k) { return volume_lookup_t<float32>(id, i, j, k); }
WPNB_FN int32 volume_lookup_i(uint64 id, int32 i, int32 j, int32 k) { return volume_lookup_t<int32>(id, i, j, k); }
WPNB_FN vec3f volume_lookup_v(uint64 id, int32 i, int32 j, int32 k) { return volume_lookup_t<vec3f>(id, i, j, k); }

// Store into voxel (i, j, k) when its brick is allocated (elsewhere the store is dropped).
template <typename T>
WPNB_FN void volume_store(uint64 id, int32 i, int32 j, int32 k, const T& value) {
    const volume_t& v = volume_of(id);
    const int32 t = volume_find(v.levels[0], i, j, k);
    if (t >= 0) ((T*)v.data)[int64(t) * 512 + volume_brick_offset(i, j, k)] = value;
}
WPNB_FN void volume_store_f(uint64 id, int32 i, int32 j, int32 k, float32 value) { volume_store(id, i, j, k, value); }
WPNB_FN void volume_store_i(uint64 id, int32 i, int32 j, int32 k, int32 value) { volume_store(id, i, j, k, value); }
WPNB_FN void volume_store_v(uint64 id, int32 i, int32 j, int32 k, const vec3f& value) { volume_store(id, i, j, k, value); }

namespace geo {
// Component access for scalar and vector voxel values.
template <typename T> struct voxel_traits {
    typedef T S;
    enum { N = 1 };
    WPNB_FN static S& at(T& v, int) { return v; }
};
template <int N_, typename S_> struct voxel_traits<vec_t<N_, S_>> {
    typedef S_ S;
    enum { N = N_ };
    WPNB_FN static S& at(vec_t<N_, S_>& v, int i) { return v.c[i]; }
};

// Trilinear interpolation at index-space point uvw, per component, and the derivatives of each
// component along x, y and z (g[0], g[1], g[2], when g is given).
// The blend itself, from the 8 corner values c[a][b][d] of the cell (volume_index.h shares it,
// so index sampling gives bit-identical results).
template <typename T>
WPNB_FN T trilinear_from_corners(T (&c)[2][2][2], const vec3f& uvw, T* g) {
    typedef voxel_traits<T> tr;
    typedef typename tr::S S;
    const float32 fx = ::floorf(uvw.c[0]), fy = ::floorf(uvw.c[1]), fz = ::floorf(uvw.c[2]);
    const S tx = S(uvw.c[0] - fx), ty = S(uvw.c[1] - fy), tz = S(uvw.c[2] - fz);
    T out = c[0][0][0];
    for (int n = 0; n < tr::N; ++n) {
        // along z, then y, then x
        S cz[2][2], dcz[2][2];
        for (int a = 0; a < 2; ++a)
            for (int b = 0; b < 2; ++b) {
                const S c0 = tr::at(c[a][b][0], n), c1 = tr::at(c[a][b][1], n);
                cz[a][b] = c0 + (c1 - c0) * tz;
                dcz[a][b] = c1 - c0;
            }
        S cy[2], dcy_y[2], dcy_z[2];
        for (int a = 0; a < 2; ++a) {
            cy[a] = cz[a][0] + (cz[a][1] - cz[a][0]) * ty;
            dcy_y[a] = cz[a][1] - cz[a][0];
            dcy_z[a] = dcz[a][0] + (dcz[a][1] - dcz[a][0]) * ty;
        }
        if (g) {
            tr::at(g[0], n) = cy[1] - cy[0];
            tr::at(g[1], n) = dcy_y[0] + (dcy_y[1] - dcy_y[0]) * tx;
            tr::at(g[2], n) = dcy_z[0] + (dcy_z[1] - dcy_z[0]) * tx;
        }
        tr::at(out, n) = cy[0] + (cy[1] - cy[0]) * tx;
    }
    return out;
}

template <typename T>
WPNB_FN T volume_trilinear_of(const volume_t& v, const vec3f& uvw, T* g) {
    const int32 i = int32(::floorf(uvw.c[0])), j = int32(::floorf(uvw.c[1])), k = int32(::floorf(uvw.c[2]));
    T c[2][2][2];
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b)
            for (int d = 0; d < 2; ++d) c[a][b][d] = volume_value_of<T>(v, i + a, j + b, k + d);
    return trilinear_from_corners<T>(c, uvw, g);
}

WPNB_FN float32 volume_trilinear(const volume_t& v, const vec3f& uvw, vec3f* grad) {
    float32 g[3];
    const float32 r = volume_trilinear_of<float32>(v, uvw, grad ? g : (float32*)0);
    if (grad) { grad->c[0] = g[0]; grad->c[1] = g[1]; grad->c[2] = g[2]; }
    return r;
}

template <typename T>
WPNB_FN T volume_closest(const volume_t& v, const vec3f& uvw) {
    return volume_value_of<T>(v, int32(::floorf(uvw.c[0] + 0.5f)), int32(::floorf(uvw.c[1] + 0.5f)),
                              int32(::floorf(uvw.c[2] + 0.5f)));
}
}  // namespace geo

// Sample at index-space uvw: sampling_mode 0 (CLOSEST, the nearest voxel) or 1 (LINEAR, trilinear).
template <typename T>
WPNB_FN T volume_sample_t(uint64 id, const vec3f& uvw, int32 sampling_mode) {
    const volume_t& v = volume_of(id);
    if (sampling_mode == 0) return geo::volume_closest<T>(v, uvw);
    return geo::volume_trilinear_of<T>(v, uvw, (T*)0);
}
WPNB_FN float32 volume_sample_f(uint64 id, const vec3f& uvw, int32 sampling_mode) {
    return volume_sample_t<float32>(id, uvw, sampling_mode);
}
// Adjoint: the trilinear gradient (zero for CLOSEST, which is piecewise constant).
WPNB_FN void adj_volume_sample_f(uint64 id, const vec3f& uvw, int32 sampling_mode, uint64&, vec3f& adj_uvw, int32&,
                                 const float32& adj_ret) {
    if (sampling_mode == 0) return;
    vec3f g;
    geo::volume_trilinear(volume_of(id), uvw, &g);
    for (int a = 0; a < 3; ++a) adj_uvw.c[a] += g.c[a] * adj_ret;
}
WPNB_FN vec3f volume_sample_v(uint64 id, const vec3f& uvw, int32 sampling_mode) {
    return volume_sample_t<vec3f>(id, uvw, sampling_mode);
}
// Adjoint: adj_uvw += J^T adj_ret, J[r][c] = d component r / d uvw c (zero for CLOSEST).
WPNB_FN void adj_volume_sample_v(uint64 id, const vec3f& uvw, int32 sampling_mode, uint64&, vec3f& adj_uvw, int32&,
                                 const vec3f& adj_ret) {
    if (sampling_mode == 0) return;
    vec3f g[3];
    geo::volume_trilinear_of<vec3f>(volume_of(id), uvw, g);
    for (int a = 0; a < 3; ++a)
        for (int r = 0; r < 3; ++r) adj_uvw.c[a] += g[a].c[r] * adj_ret.c[r];
}
// The voxel nearest uvw of an int32 volume.
WPNB_FN int32 volume_sample_i(uint64 id, const vec3f& uvw) { return geo::volume_closest<int32>(volume_of(id), uvw); }

// Sample and its index-space gradient (written to grad); CLOSEST gives a zero gradient.
WPNB_FN float32 volume_sample_grad_f(uint64 id, const vec3f& uvw, int32 sampling_mode, vec3f& grad) {
    if (sampling_mode == 0) {
        grad = vec3f();
        return volume_sample_f(id, uvw, 0);
    }
    return geo::volume_trilinear(volume_of(id), uvw, &grad);
}
namespace geo {
// The mixed second derivatives of the trilinear interpolant of a float volume at uvw:
// h[0] = d2f/dy dz, h[1] = d2f/dx dz, h[2] = d2f/dx dy (the pure ones are zero; the Hessian is
// [[0, h2, h1], [h2, 0, h0], [h1, h0, 0]]). Corner c_abd weighs w(a, tx) w(b, ty) w(d, tz) with
// w(0, t) = 1 - t, w(1, t) = t, so each mixed derivative swaps two weights for their slopes -1, +1.
WPNB_FN vec3f volume_trilinear_hessian(const volume_t& v, const vec3f& uvw) {
    const float32 fx = ::floorf(uvw.c[0]), fy = ::floorf(uvw.c[1]), fz = ::floorf(uvw.c[2]);
    const int32 i = int32(fx), j = int32(fy), k = int32(fz);
    const float32 t[3] = {uvw.c[0] - fx, uvw.c[1] - fy, uvw.c[2] - fz};
    vec3f h;
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b)
            for (int d = 0; d < 2; ++d) {
                const float32 c = volume_value_of<float32>(v, i + a, j + b, k + d);
                const float32 w[3] = {a ? t[0] : 1.0f - t[0], b ? t[1] : 1.0f - t[1], d ? t[2] : 1.0f - t[2]};
                const float32 s[3] = {a ? 1.0f : -1.0f, b ? 1.0f : -1.0f, d ? 1.0f : -1.0f};
                h.c[0] += c * w[0] * s[1] * s[2];
                h.c[1] += c * s[0] * w[1] * s[2];
                h.c[2] += c * s[0] * s[1] * w[2];
            }
    return h;
}
}  // namespace geo

// Adjoint: the value's adjoint flows through the gradient g, the gradient output's through the
// Hessian H (symmetric, zero diagonal): adj_uvw += g adj_ret + H adj_grad. grad is overwritten by
// the call, so its adjoint stops here (zeroed). CLOSEST is piecewise constant: nothing flows.
WPNB_FN void adj_volume_sample_grad_f(uint64 id, const vec3f& uvw, int32 sampling_mode, const vec3f&, uint64&,
                                      vec3f& adj_uvw, int32&, vec3f& adj_grad, const float32& adj_ret) {
    if (sampling_mode != 0) {
        const volume_t& v = volume_of(id);
        vec3f g;
        geo::volume_trilinear(v, uvw, &g);
        const vec3f h = geo::volume_trilinear_hessian(v, uvw);
        adj_uvw.c[0] += g.c[0] * adj_ret + h.c[2] * adj_grad.c[1] + h.c[1] * adj_grad.c[2];
        adj_uvw.c[1] += g.c[1] * adj_ret + h.c[2] * adj_grad.c[0] + h.c[0] * adj_grad.c[2];
        adj_uvw.c[2] += g.c[2] * adj_ret + h.c[1] * adj_grad.c[0] + h.c[0] * adj_grad.c[1];
    }
    adj_grad = vec3f();
}
// The vec3 version: grad[r][c] is the derivative of component r along index axis c.
WPNB_FN vec3f volume_sample_grad_v(uint64 id, const vec3f& uvw, int32 sampling_mode, mat33f& grad) {
    grad = mat33f();
    if (sampling_mode == 0) return volume_sample_v(id, uvw, 0);
    vec3f g[3];
    const vec3f r = geo::volume_trilinear_of<vec3f>(volume_of(id), uvw, g);
    for (int c = 0; c < 3; ++c)
        for (int n = 0; n < 3; ++n) grad.c[n][c] = g[c].c[n];
    return r;
}

// Vector volumes of any length N: grad is the N x 3 Jacobian, grad[r][c] the derivative of
// component r along index axis c (one row per component, as Warp's mat43 for vec4 volumes).
template <int N, typename S>
WPNB_FN vec_t<N, S> volume_sample_grad_vec(uint64 id, const vec3f& uvw, int32 sampling_mode, mat_t<N, 3, S>& grad) {
    grad = mat_t<N, 3, S>();
    if (sampling_mode == 0) return volume_sample_t<vec_t<N, S>>(id, uvw, 0);
    vec_t<N, S> g[3];
    const vec_t<N, S> r = geo::volume_trilinear_of<vec_t<N, S>>(volume_of(id), uvw, g);
    for (int c = 0; c < 3; ++c)
        for (int n = 0; n < N; ++n) grad.c[n][c] = g[c].c[n];
    return r;
}

// The typed forms the registry names (volume_sample_grad(..., dtype=wp.vec3d / vec4f / vec4d)).
typedef mat_t<4, 3, float32> volume_jacobian43f;
typedef mat_t<4, 3, float64> volume_jacobian43d;
WPNB_FN vec3d volume_sample_grad_vd(uint64 id, const vec3f& uvw, int32 sampling_mode, mat33d& grad) {
    return volume_sample_grad_vec<3, float64>(id, uvw, sampling_mode, grad);
}
WPNB_FN vec4f volume_sample_grad_v4(uint64 id, const vec3f& uvw, int32 sampling_mode, volume_jacobian43f& grad) {
    return volume_sample_grad_vec<4, float32>(id, uvw, sampling_mode, grad);
}
WPNB_FN vec4d volume_sample_grad_v4d(uint64 id, const vec3f& uvw, int32 sampling_mode, volume_jacobian43d& grad) {
    return volume_sample_grad_vec<4, float64>(id, uvw, sampling_mode, grad);
}

namespace geo {
WPNB_FN vec3f mat3_apply(const float32* m, const vec3f& x) {
    vec3f r;
    for (int a = 0; a < 3; ++a) r.c[a] = m[3 * a] * x.c[0] + m[3 * a + 1] * x.c[1] + m[3 * a + 2] * x.c[2];
    return r;
}
WPNB_FN vec3f mat3_apply_t(const float32* m, const vec3f& x) {
    vec3f r;
    for (int a = 0; a < 3; ++a) r.c[a] = m[a] * x.c[0] + m[3 + a] * x.c[1] + m[6 + a] * x.c[2];
    return r;
}
}  // namespace geo

// World-space point -> index space.
WPNB_FN vec3f volume_world_to_index(uint64 id, const vec3f& xyz) {
    const volume_t& v = volume_of(id);
    vec3f d;
    for (int a = 0; a < 3; ++a) d.c[a] = xyz.c[a] - v.translation[a];
    return geo::mat3_apply(v.inv_xform, d);
}
WPNB_FN void adj_volume_world_to_index(uint64 id, const vec3f&, uint64&, vec3f& adj_xyz, const vec3f& adj_ret) {
    const vec3f g = geo::mat3_apply_t(volume_of(id).inv_xform, adj_ret);
    for (int a = 0; a < 3; ++a) adj_xyz.c[a] += g.c[a];
}

// Index-space point -> world space.
WPNB_FN vec3f volume_index_to_world(uint64 id, const vec3f& uvw) {
    const volume_t& v = volume_of(id);
    vec3f r = geo::mat3_apply(v.xform, uvw);
    for (int a = 0; a < 3; ++a) r.c[a] += v.translation[a];
    return r;
}
WPNB_FN void adj_volume_index_to_world(uint64 id, const vec3f&, uint64&, vec3f& adj_uvw, const vec3f& adj_ret) {
    const vec3f g = geo::mat3_apply_t(volume_of(id).xform, adj_ret);
    for (int a = 0; a < 3; ++a) adj_uvw.c[a] += g.c[a];
}

// Directions (no translation).
WPNB_FN vec3f volume_world_to_index_dir(uint64 id, const vec3f& xyz) { return geo::mat3_apply(volume_of(id).inv_xform, xyz); }
WPNB_FN void adj_volume_world_to_index_dir(uint64 id, const vec3f&, uint64&, vec3f& adj_xyz, const vec3f& adj_ret) {
    const vec3f g = geo::mat3_apply_t(volume_of(id).inv_xform, adj_ret);
    for (int a = 0; a < 3; ++a) adj_xyz.c[a] += g.c[a];
}
WPNB_FN vec3f volume_index_to_world_dir(uint64 id, const vec3f& uvw) { return geo::mat3_apply(volume_of(id).xform, uvw); }
WPNB_FN void adj_volume_index_to_world_dir(uint64 id, const vec3f&, uint64&, vec3f& adj_uvw, const vec3f& adj_ret) {
    const vec3f g = geo::mat3_apply_t(volume_of(id).xform, adj_ret);
    for (int a = 0; a < 3; ++a) adj_uvw.c[a] += g.c[a];
}

}  // namespace wpnb
