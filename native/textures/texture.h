// texture.h: the kernel side of wp.Texture1D / 2D / 3D, a software sampler that runs the same on the
// CPU and under NVRTC (no hardware texture units). A texture reaches a kernel by value as a small
// descriptor (texture{1,2,3}d_t: the storage address, the base size, packed sampling options); the
// storage is a texture_storage_t owned by the Python object, whose mip levels hold float32 texels,
// channels interleaved, already converted from the user's dtype (normalised small integers), so one
// sampler serves every dtype.
//
// Texel i covers [i, i + 1) in texel space, its centre at i + 0.5; normalised coordinates are texel
// coordinates divided by the size. CLOSEST reads texel floor(x); LINEAR blends floor(x - 0.5) and
// the next texel with weight frac(x - 0.5). Address modes map integer texel indices: WRAP (i mod n),
// CLAMP, MIRROR (period 2n, the second half reversed) and BORDER (zero outside). Mip level l (size
// max(1, n >> l) per axis) is chosen by an explicit lod: LINEAR mip filtering blends levels floor(lod)
// and floor(lod) + 1, CLOSEST rounds lod to the nearest level.
//
// Arithmetic is in float64 so that coordinates near float32's extremes, values sharing a large offset
// and the gradient's differences of nearly equal texels stay exact; results are rounded to float32.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"

namespace wpnb {

// Descriptors: the layout of Warp's texture{1,2,3}d_t (its tests check the offsets).
struct texture1d_t { uint64 tex; int32 width; uint32 metadata; };
struct texture2d_t { uint64 tex; int32 width; int32 height; uint32 metadata; };
struct texture3d_t { uint64 tex; int32 width; int32 height; int32 depth; uint32 metadata; };

// A descriptor has no adjoint: accumulating into one (a struct's adjoint holding a texture) keeps it.
WPNB_FN texture1d_t add(const texture1d_t& a, const texture1d_t&) { return a; }
WPNB_FN texture2d_t add(const texture2d_t& a, const texture2d_t&) { return a; }
WPNB_FN texture3d_t add(const texture3d_t& a, const texture3d_t&) { return a; }

enum { TEXTURE_MAX_LEVELS = 16 };

// What a descriptor's `tex` points at: one float32 array per mip level and each level's size.
struct texture_storage_t {
    uint64 levels[TEXTURE_MAX_LEVELS];
    int32 sizes[TEXTURE_MAX_LEVELS][3];  // width, height, depth (1 for missing axes)
    int32 channels;                      // channels stored per texel
    int32 num_levels;
};

// The packed options of `metadata` (bit positions as Warp's descriptors).
WPNB_FN int32 texture_channels(uint32 m) { return int32(m & 7u); }
WPNB_FN int32 texture_filter(uint32 m) { return int32((m >> 6) & 1u); }
WPNB_FN int32 texture_mip_filter(uint32 m) { return int32((m >> 7) & 1u); }
WPNB_FN int32 texture_levels(uint32 m) { return int32((m >> 8) & 31u); }
WPNB_FN bool texture_normalized(uint32 m) { return ((m >> 13) & 1u) != 0; }
WPNB_FN int32 texture_address_mode(uint32 m, int axis) { return int32((m >> (14 + 2 * axis)) & 3u); }

enum { TEXTURE_WRAP = 0, TEXTURE_CLAMP = 1, TEXTURE_MIRROR = 2, TEXTURE_BORDER = 3 };

// Integer texel index i mapped into [0, n) by the address mode; -1 for BORDER outside.
WPNB_FN int64 texture_address(int64 i, int64 n, int32 mode) {
    if (mode == TEXTURE_WRAP) { i %= n; return i < 0 ? i + n : i; }
    if (mode == TEXTURE_MIRROR) {
        int64 m = i % (2 * n);
        if (m < 0) m += 2 * n;
        return m >= n ? 2 * n - 1 - m : m;
    }
    if (mode == TEXTURE_BORDER) return (i < 0 || i >= n) ? -1 : i;
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

// A texel-space coordinate brought into a range where floor() fits an int64 and picks the same
// texels: periodic modes reduce it modulo their period (fmod is exact), the others clamp it just
// outside the texture, where every texel read is the edge's (CLAMP) or zero (BORDER).
WPNB_FN float64 texture_reduce(float64 x, int64 n, int32 mode) {
    if (mode == TEXTURE_WRAP || mode == TEXTURE_MIRROR) {
        const float64 period = float64(mode == TEXTURE_WRAP ? n : 2 * n);
        float64 r = libm::fmod(x, period);
        if (r < 0.0) r += period;
        return r >= period ? 0.0 : r;  // a tiny negative r + period rounds to period
    }
    return x < -2.0 ? -2.0 : (x > float64(n) + 2.0 ? float64(n) + 2.0 : x);
}

// One axis of a sample at one level: the texels read, their weights and d(weight)/d(coordinate).
struct texture_axis_t {
    int64 index[2];
    float64 weight[2];
    float64 dweight[2];
    int count;
};

// Axis setup: x is the texel-space coordinate at this level, scale = dx/d(user coordinate).
WPNB_FN texture_axis_t texture_axis(float64 x, int64 n, int32 mode, bool linear, float64 scale) {
    texture_axis_t a;
    if (!linear) {
        const float64 r = texture_reduce(x, n, mode);
        a.index[0] = texture_address(int64(libm::floor(r)), n, mode);
        a.weight[0] = 1.0; a.dweight[0] = 0.0; a.count = 1;
        a.index[1] = -1; a.weight[1] = 0.0; a.dweight[1] = 0.0;
        return a;
    }
    // reduced before and after the half-texel shift: x - 0.5 rounds away the 0.5 when |x| is huge
    const float64 r = texture_reduce(texture_reduce(x, n, mode) - 0.5, n, mode);
    const float64 i0 = libm::floor(r);
    const float64 f = r - i0;
    a.index[0] = texture_address(int64(i0), n, mode);
    a.index[1] = texture_address(int64(i0) + 1, n, mode);
    a.weight[0] = 1.0 - f; a.weight[1] = f;
    a.dweight[0] = -scale; a.dweight[1] = scale;
    a.count = 2;
    return a;
}

// Value and coordinate derivatives of channels [0, nout) at one level. coord[k]: the user's
// coordinate on axis k; dim: the number of axes. value[c], dcoord[k][c] accumulate.
WPNB_FN void texture_sample_level(const texture_storage_t& s, uint32 meta, int dim, int level,
                                  const float32* coord, int nout, float64* value, float64 (*dcoord)[4]) {
    const int32* size = s.sizes[level];
    const int32* base = s.sizes[0];
    const bool normalized = texture_normalized(meta);
    const bool linear = texture_filter(meta) == 1;
    texture_axis_t axes[3];
    for (int k = 0; k < 3; ++k) {
        if (k < dim) {
            // unnormalised coordinates address the base level: level l sees them scaled by its size ratio
            const float64 scale = normalized ? float64(size[k]) : float64(size[k]) / float64(base[k]);
            axes[k] = texture_axis(float64(coord[k]) * scale, size[k], texture_address_mode(meta, k), linear, scale);
        } else {
            axes[k].index[0] = 0; axes[k].weight[0] = 1.0; axes[k].dweight[0] = 0.0; axes[k].count = 1;
        }
    }
    const float32* texels = (const float32*)s.levels[level];
    const int channels = s.channels;
    for (int a = 0; a < axes[0].count; ++a)
        for (int b = 0; b < axes[1].count; ++b)
            for (int c = 0; c < axes[2].count; ++c) {
                const int64 i = axes[0].index[a], j = axes[1].index[b], l = axes[2].index[c];
                if (i < 0 || j < 0 || l < 0) continue;  // BORDER: a zero texel
                const float32* t = texels + ((l * size[1] + j) * int64(size[0]) + i) * channels;
                const float64 w[3] = {axes[0].weight[a], axes[1].weight[b], axes[2].weight[c]};
                const float64 dw[3] = {axes[0].dweight[a], axes[1].dweight[b], axes[2].dweight[c]};
                const float64 weight = w[0] * w[1] * w[2];
                for (int ch = 0; ch < nout && ch < channels; ++ch) {
                    const float64 v = float64(t[ch]);
                    if (weight != 0.0) value[ch] += weight * v;
                    for (int k = 0; k < dim; ++k) {
                        const float64 dk = dw[k] * (k == 0 ? 1.0 : w[0]) * (k == 1 ? 1.0 : w[1]) * (k == 2 ? 1.0 : w[2]);
                        if (dk != 0.0) dcoord[k][ch] += dk * v;
                    }
                }
            }
}

// The full sample: level selection by lod (has_lod false: the base level), value per channel,
// d/dcoordinate and d/dlod. At an integer lod inside the chain, d/dlod is the right-hand slope.
WPNB_FN void texture_sample_core(uint64 tex, uint32 meta, int dim, const float32* coord, bool has_lod, float32 lod,
                                 int nout, float64* value, float64 (*dcoord)[4], float64* dlod) {
    for (int c = 0; c < 4; ++c) {
        value[c] = 0.0; dlod[c] = 0.0;
        for (int k = 0; k < 3; ++k) dcoord[k][c] = 0.0;
    }
    if (tex == 0) return;
    const texture_storage_t& s = *(const texture_storage_t*)tex;
    const int levels = s.num_levels;
    if (!has_lod || levels <= 1) {
        texture_sample_level(s, meta, dim, 0, coord, nout, value, dcoord);
        return;
    }
    const float64 top = float64(levels - 1);
    float64 l = float64(lod);
    l = l < 0.0 ? 0.0 : (l > top ? top : l);
    if (texture_mip_filter(meta) == 0) {
        texture_sample_level(s, meta, dim, int(libm::floor(l + 0.5)), coord, nout, value, dcoord);
        return;
    }
    const int l0 = int(libm::floor(l));
    if (l0 >= levels - 1) {
        texture_sample_level(s, meta, dim, levels - 1, coord, nout, value, dcoord);
        return;
    }
    const float64 f = l - float64(l0);
    float64 v1[4] = {0.0, 0.0, 0.0, 0.0};
    float64 d1[3][4] = {{0.0, 0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 0.0}, {0.0, 0.0, 0.0, 0.0}};
    texture_sample_level(s, meta, dim, l0, coord, nout, value, dcoord);
    texture_sample_level(s, meta, dim, l0 + 1, coord, nout, v1, d1);
    const bool moving = float64(lod) >= 0.0;  // below level 0 the clamped lod does not move
    for (int c = 0; c < 4; ++c) {
        const float64 diff = v1[c] - value[c];
        dlod[c] = moving ? diff : 0.0;
        value[c] = f == 0.0 ? value[c] : value[c] + f * diff;
        for (int k = 0; k < 3; ++k) dcoord[k][c] = dcoord[k][c] + f * (d1[k][c] - dcoord[k][c]);
    }
}

// d(loss)/d(coordinate k) and d(loss)/d(lod) from the result's adjoint (channels weighted by it;
// a channel whose adjoint is zero contributes nothing, even where its slope is infinite).
WPNB_FN float64 texture_contract(const float64* slope, const float32* adj, int nout) {
    float64 sum = 0.0;
    for (int c = 0; c < nout; ++c)
        if (adj[c] != 0.0f) sum += float64(adj[c]) * slope[c];
    return sum;
}

// texture_result<R>: float64 channels -> the requested result type (float32 or vec_t<N, float32>).
template <typename R> struct texture_result;
template <> struct texture_result<float32> {
    enum { N = 1 };
    WPNB_FN static float32 make(const float64* v) { return float32(v[0]); }
    WPNB_FN static void adj(const float32& a, float32* out) { out[0] = a; }
};
template <int N_> struct texture_result<vec_t<N_, float32>> {
    enum { N = N_ };
    WPNB_FN static vec_t<N_, float32> make(const float64* v) {
        vec_t<N_, float32> r;
        for (int c = 0; c < N_; ++c) r.c[c] = float32(v[c]);
        return r;
    }
    WPNB_FN static void adj(const vec_t<N_, float32>& a, float32* out) { for (int c = 0; c < N_; ++c) out[c] = a.c[c]; }
};

template <typename R>
WPNB_FN R texture_sample_n(uint64 tex, uint32 meta, int dim, const float32* coord, bool has_lod, float32 lod) {
    float64 value[4], dcoord[3][4], dlod[4];
    texture_sample_core(tex, meta, dim, coord, has_lod, lod, texture_result<R>::N, value, dcoord, dlod);
    return texture_result<R>::make(value);
}

// Adds the adjoints of the coordinates (adj_coord[k]) and of lod from adj_ret.
template <typename R>
WPNB_FN void adj_texture_sample_n(uint64 tex, uint32 meta, int dim, const float32* coord, bool has_lod, float32 lod,
                                  float32* adj_coord, float32& adj_lod, const R& adj_ret) {
    float64 value[4], dcoord[3][4], dlod[4];
    const int n = texture_result<R>::N;
    texture_sample_core(tex, meta, dim, coord, has_lod, lod, n, value, dcoord, dlod);
    float32 a[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    texture_result<R>::adj(adj_ret, a);
    for (int k = 0; k < dim; ++k) adj_coord[k] += float32(texture_contract(dcoord[k], a, n));
    adj_lod += float32(texture_contract(dlod, a, n));
}

// --- the builtins: one per texture rank and coordinate form; R is the result type ------------------

// texture_sample(tex, u [, lod]): 1-D.
template <typename R> WPNB_FN R texture_sample(const texture1d_t& t, float32 u) {
    return texture_sample_n<R>(t.tex, t.metadata, 1, &u, false, 0.0f);
}
template <typename R> WPNB_FN void adj_texture_sample(const texture1d_t& t, float32 u, texture1d_t&, float32& adj_u,
                                                      const R& adj_ret) {
    float32 lod_unused = 0.0f;
    adj_texture_sample_n<R>(t.tex, t.metadata, 1, &u, false, 0.0f, &adj_u, lod_unused, adj_ret);
}
template <typename R> WPNB_FN R texture_sample(const texture1d_t& t, float32 u, float32 lod) {
    return texture_sample_n<R>(t.tex, t.metadata, 1, &u, true, lod);
}
template <typename R> WPNB_FN void adj_texture_sample(const texture1d_t& t, float32 u, float32 lod, texture1d_t&,
                                                      float32& adj_u, float32& adj_lod, const R& adj_ret) {
    adj_texture_sample_n<R>(t.tex, t.metadata, 1, &u, true, lod, &adj_u, adj_lod, adj_ret);
}

// texture_sample(tex, uv | u, v [, lod]): 2-D.
template <typename R> WPNB_FN R texture_sample(const texture2d_t& t, const vec_t<2, float32>& uv) {
    return texture_sample_n<R>(t.tex, t.metadata, 2, uv.c, false, 0.0f);
}
template <typename R> WPNB_FN void adj_texture_sample(const texture2d_t& t, const vec_t<2, float32>& uv, texture2d_t&,
                                                      vec_t<2, float32>& adj_uv, const R& adj_ret) {
    float32 lod_unused = 0.0f;
    adj_texture_sample_n<R>(t.tex, t.metadata, 2, uv.c, false, 0.0f, adj_uv.c, lod_unused, adj_ret);
}
template <typename R> WPNB_FN R texture_sample(const texture2d_t& t, const vec_t<2, float32>& uv, float32 lod) {
    return texture_sample_n<R>(t.tex, t.metadata, 2, uv.c, true, lod);
}
template <typename R> WPNB_FN void adj_texture_sample(const texture2d_t& t, const vec_t<2, float32>& uv, float32 lod,
                                                      texture2d_t&, vec_t<2, float32>& adj_uv, float32& adj_lod,
                                                      const R& adj_ret) {
    adj_texture_sample_n<R>(t.tex, t.metadata, 2, uv.c, true, lod, adj_uv.c, adj_lod, adj_ret);
}
template <typename R> WPNB_FN R texture_sample(const texture2d_t& t, float32 u, float32 v) {
    const float32 c[2] = {u, v};
    return texture_sample_n<R>(t.tex, t.metadata, 2, c, false, 0.0f);
}
template <typename R> WPNB_FN void adj_texture_sample(const texture2d_t& t, float32 u, float32 v, texture2d_t&,
                                                      float32& adj_u, float32& adj_v, const R& adj_ret) {
    const float32 c[2] = {u, v};
    float32 a[2] = {0.0f, 0.0f}, lod_unused = 0.0f;
    adj_texture_sample_n<R>(t.tex, t.metadata, 2, c, false, 0.0f, a, lod_unused, adj_ret);
    adj_u += a[0]; adj_v += a[1];
}
template <typename R> WPNB_FN R texture_sample(const texture2d_t& t, float32 u, float32 v, float32 lod) {
    const float32 c[2] = {u, v};
    return texture_sample_n<R>(t.tex, t.metadata, 2, c, true, lod);
}
template <typename R> WPNB_FN void adj_texture_sample(const texture2d_t& t, float32 u, float32 v, float32 lod,
                                                      texture2d_t&, float32& adj_u, float32& adj_v, float32& adj_lod,
                                                      const R& adj_ret) {
    const float32 c[2] = {u, v};
    float32 a[2] = {0.0f, 0.0f};
    adj_texture_sample_n<R>(t.tex, t.metadata, 2, c, true, lod, a, adj_lod, adj_ret);
    adj_u += a[0]; adj_v += a[1];
}

// texture_sample(tex, uvw | u, v, w [, lod]): 3-D.
template <typename R> WPNB_FN R texture_sample(const texture3d_t& t, const vec_t<3, float32>& uvw) {
    return texture_sample_n<R>(t.tex, t.metadata, 3, uvw.c, false, 0.0f);
}
template <typename R> WPNB_FN void adj_texture_sample(const texture3d_t& t, const vec_t<3, float32>& uvw, texture3d_t&,
                                                      vec_t<3, float32>& adj_uvw, const R& adj_ret) {
    float32 lod_unused = 0.0f;
    adj_texture_sample_n<R>(t.tex, t.metadata, 3, uvw.c, false, 0.0f, adj_uvw.c, lod_unused, adj_ret);
}
template <typename R> WPNB_FN R texture_sample(const texture3d_t& t, const vec_t<3, float32>& uvw, float32 lod) {
    return texture_sample_n<R>(t.tex, t.metadata, 3, uvw.c, true, lod);
}
template <typename R> WPNB_FN void adj_texture_sample(const texture3d_t& t, const vec_t<3, float32>& uvw, float32 lod,
                                                      texture3d_t&, vec_t<3, float32>& adj_uvw, float32& adj_lod,
                                                      const R& adj_ret) {
    adj_texture_sample_n<R>(t.tex, t.metadata, 3, uvw.c, true, lod, adj_uvw.c, adj_lod, adj_ret);
}
template <typename R> WPNB_FN R texture_sample(const texture3d_t& t, float32 u, float32 v, float32 w) {
    const float32 c[3] = {u, v, w};
    return texture_sample_n<R>(t.tex, t.metadata, 3, c, false, 0.0f);
}
template <typename R> WPNB_FN void adj_texture_sample(const texture3d_t& t, float32 u, float32 v, float32 w,
                                                      texture3d_t&, float32& adj_u, float32& adj_v, float32& adj_w,
                                                      const R& adj_ret) {
    const float32 c[3] = {u, v, w};
    float32 a[3] = {0.0f, 0.0f, 0.0f}, lod_unused = 0.0f;
    adj_texture_sample_n<R>(t.tex, t.metadata, 3, c, false, 0.0f, a, lod_unused, adj_ret);
    adj_u += a[0]; adj_v += a[1]; adj_w += a[2];
}
template <typename R> WPNB_FN R texture_sample(const texture3d_t& t, float32 u, float32 v, float32 w, float32 lod) {
    const float32 c[3] = {u, v, w};
    return texture_sample_n<R>(t.tex, t.metadata, 3, c, true, lod);
}
template <typename R> WPNB_FN void adj_texture_sample(const texture3d_t& t, float32 u, float32 v, float32 w, float32 lod,
                                                      texture3d_t&, float32& adj_u, float32& adj_v, float32& adj_w,
                                                      float32& adj_lod, const R& adj_ret) {
    const float32 c[3] = {u, v, w};
    float32 a[3] = {0.0f, 0.0f, 0.0f};
    adj_texture_sample_n<R>(t.tex, t.metadata, 3, c, true, lod, a, adj_lod, adj_ret);
    adj_u += a[0]; adj_v += a[1]; adj_w += a[2];
}

}  // namespace wpnb
