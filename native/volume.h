// volume.h: the kernel side of wp.Volume, a sparse grid of float voxels. Voxel data lives in
// 8x8x8 bricks (tiles) allocated only where the volume has data; a brick is found through an
// open-addressing hash table keyed by its coordinates. Regions of constant value (the tiles of a
// NanoVDB tree: 8^3, 128^3 and 4096^3 voxels) live in three more tables; everything else reads
// the background value. Index space has voxel centres at integer coordinates; world space is
// world = M * index + translation. The volume's `id` is the address of a volume_t owned by the
// Python object.
#pragma once
#include "prelude.h"
#include "scalar.h"
#include "vec.h"

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
    float32* data;                 // num_tiles * 512 voxels, x-major inside a brick
    const float32* const_values;   // values of the constant regions
    volume_table_t levels[4];      // 0: bricks; 1, 2, 3: constant 8^3, 128^3, 4096^3 regions
    float32 background;
    int32 num_tiles;
    float32 xform[9];              // index -> world (row-major)
    float32 inv_xform[9];          // world -> index
    float32 translation[3];
    int32 pad;
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

// Value of voxel (i, j, k): its brick, else its constant region, else the background.
WPNB_FN float32 volume_value(const volume_t& v, int32 i, int32 j, int32 k) {
    const int32 t = volume_find(v.levels[0], i, j, k);
    if (t >= 0) return v.data[int64(t) * 512 + volume_brick_offset(i, j, k)];
    for (int l = 1; l < 4; ++l) {
        const int32 c = volume_find(v.levels[l], i, j, k);
        if (c >= 0) return v.const_values[c];
    }
    return v.background;
}

// Value of voxel (i, j, k) (the background outside allocated bricks).
WPNB_FN float32 volume_lookup_f(uint64 id, int32 i, int32 j, int32 k) { return volume_value(volume_of(id), i, j, k); }

// Store into voxel (i, j, k) when its brick is allocated (elsewhere the store is dropped).
WPNB_FN void volume_store_f(uint64 id, int32 i, int32 j, int32 k, float32 value) {
    const volume_t& v = volume_of(id);
    const int32 t = volume_find(v.levels[0], i, j, k);
    if (t >= 0) v.data[int64(t) * 512 + volume_brick_offset(i, j, k)] = value;
}

namespace geo {
// Trilinear interpolation at index-space point uvw and its index-space gradient.
WPNB_FN float32 volume_trilinear(const volume_t& v, const vec3f& uvw, vec3f* grad) {
    const float32 fx = ::floorf(uvw.c[0]), fy = ::floorf(uvw.c[1]), fz = ::floorf(uvw.c[2]);
    const int32 i = int32(fx), j = int32(fy), k = int32(fz);
    const float32 tx = uvw.c[0] - fx, ty = uvw.c[1] - fy, tz = uvw.c[2] - fz;
    float32 c[2][2][2];
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b)
            for (int d = 0; d < 2; ++d) c[a][b][d] = volume_value(v, i + a, j + b, k + d);
    // along z, then y, then x
    float32 cz[2][2], dcz[2][2];
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b) {
            cz[a][b] = c[a][b][0] + (c[a][b][1] - c[a][b][0]) * tz;
            dcz[a][b] = c[a][b][1] - c[a][b][0];
        }
    float32 cy[2], dcy_y[2], dcy_z[2];
    for (int a = 0; a < 2; ++a) {
        cy[a] = cz[a][0] + (cz[a][1] - cz[a][0]) * ty;
        dcy_y[a] = cz[a][1] - cz[a][0];
        dcy_z[a] = dcz[a][0] + (dcz[a][1] - dcz[a][0]) * ty;
    }
    if (grad) {
        grad->c[0] = cy[1] - cy[0];
        grad->c[1] = dcy_y[0] + (dcy_y[1] - dcy_y[0]) * tx;
        grad->c[2] = dcy_z[0] + (dcy_z[1] - dcy_z[0]) * tx;
    }
    return cy[0] + (cy[1] - cy[0]) * tx;
}
}  // namespace geo

// Sample at index-space uvw: sampling_mode 0 (CLOSEST, the nearest voxel) or 1 (LINEAR, trilinear).
WPNB_FN float32 volume_sample_f(uint64 id, const vec3f& uvw, int32 sampling_mode) {
    const volume_t& v = volume_of(id);
    if (sampling_mode == 0)
        return volume_value(v, int32(::floorf(uvw.c[0] + 0.5f)), int32(::floorf(uvw.c[1] + 0.5f)),
                            int32(::floorf(uvw.c[2] + 0.5f)));
    return geo::volume_trilinear(v, uvw, (vec3f*)0);
}
// Adjoint: the trilinear gradient (zero for CLOSEST, which is piecewise constant).
WPNB_FN void adj_volume_sample_f(uint64 id, const vec3f& uvw, int32 sampling_mode, uint64&, vec3f& adj_uvw, int32&,
                                 const float32& adj_ret) {
    if (sampling_mode == 0) return;
    vec3f g;
    geo::volume_trilinear(volume_of(id), uvw, &g);
    for (int a = 0; a < 3; ++a) adj_uvw.c[a] += g.c[a] * adj_ret;
}

// Sample and its index-space gradient (written to grad); CLOSEST gives a zero gradient.
WPNB_FN float32 volume_sample_grad_f(uint64 id, const vec3f& uvw, int32 sampling_mode, vec3f& grad) {
    if (sampling_mode == 0) {
        grad = vec3f();
        return volume_sample_f(id, uvw, 0);
    }
    return geo::volume_trilinear(volume_of(id), uvw, &grad);
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
