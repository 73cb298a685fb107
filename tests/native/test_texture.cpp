// Tests for native/textures/texture.h on hand-built storage (no Python): address modes on integer
// indices, nearest and bilinear values against a direct formula, the two-level lod blend, and the
// adjoints of the coordinates and of lod against central differences. Exit status 0 when all pass.
#include <cmath>
#include <cstdio>

#include "textures/texture.h"

using namespace wpnb;
static int g_fail = 0;
#define CHECK(cond, ...) do { if (!(cond)) { ++g_fail; \
    std::printf("FAIL %s:%d: ", __FILE__, __LINE__); std::printf(__VA_ARGS__); std::printf("\n"); } } while (0)

// A 4x3 one-channel texture (value = 10 * y + x) and its 2x1 second level (means of 2x2 blocks, the odd
// last row dropped).
static float32 base[12], level1[2];
static texture_storage_t storage;

static void build() {
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 4; ++x) base[y * 4 + x] = float32(10 * y + x);
    level1[0] = (0 + 1 + 10 + 11) / 4.0f;
    level1[1] = (2 + 3 + 12 + 13) / 4.0f;
    storage = texture_storage_t{};
    storage.levels[0] = uint64(base);
    storage.levels[1] = uint64(level1);
    storage.sizes[0][0] = 4; storage.sizes[0][1] = 3; storage.sizes[0][2] = 1;
    storage.sizes[1][0] = 2; storage.sizes[1][1] = 1; storage.sizes[1][2] = 1;
    storage.channels = 1;
    storage.num_levels = 2;
}

static uint32 meta(int filter, int mode_u, int mode_v, bool normalized, int levels = 1, int mip_filter = 1) {
    return uint32(1) | uint32(filter) << 6 | uint32(mip_filter) << 7 | uint32(levels) << 8 | uint32(normalized) << 13 |
           uint32(mode_u) << 14 | uint32(mode_v) << 16;
}

// The texel (x, y) as an address mode reads it (0 outside for BORDER), written out per mode.
static double texel(int x, int y, int mode) {
    auto map = [mode](int i, int n) -> int {
        if (mode == TEXTURE_WRAP) return ((i % n) + n) % n;
        if (mode == TEXTURE_CLAMP) return i < 0 ? 0 : (i >= n ? n - 1 : i);
        if (mode == TEXTURE_MIRROR) { int m = ((i % (2 * n)) + 2 * n) % (2 * n); return m < n ? m : 2 * n - 1 - m; }
        return (i < 0 || i >= n) ? -1 : i;
    };
    const int i = map(x, 4), j = map(y, 3);
    return (i < 0 || j < 0) ? 0.0 : double(base[j * 4 + i]);
}

static double sample(uint32 m, float32 u, float32 v, bool has_lod = false, float32 lod = 0.0f, double* du = nullptr,
                     double* dv = nullptr, double* dl = nullptr) {
    float64 value[4], dcoord[3][4], dlod[4];
    const float32 c[2] = {u, v};
    texture_sample_core(uint64(&storage), m, 2, c, has_lod, lod, 1, value, dcoord, dlod);
    if (du) *du = dcoord[0][0];
    if (dv) *dv = dcoord[1][0];
    if (dl) *dl = dlod[0];
    return value[0];
}

static void test_address_modes() {
    CHECK(texture_address(-1, 4, TEXTURE_WRAP) == 3 && texture_address(9, 4, TEXTURE_WRAP) == 1, "wrap");
    CHECK(texture_address(-1, 4, TEXTURE_CLAMP) == 0 && texture_address(9, 4, TEXTURE_CLAMP) == 3, "clamp");
    CHECK(texture_address(4, 4, TEXTURE_MIRROR) == 3 && texture_address(-1, 4, TEXTURE_MIRROR) == 0 &&
          texture_address(9, 4, TEXTURE_MIRROR) == 1, "mirror");
    CHECK(texture_address(4, 4, TEXTURE_BORDER) == -1 && texture_address(2, 4, TEXTURE_BORDER) == 2, "border");
}

static void test_values() {
    for (int mode = 0; mode < 4; ++mode)
        for (int k = 0; k < 60; ++k) {
            const float32 x = -5.0f + 0.3125f * float32(k) + 0.01f, y = -3.0f + 0.2f * float32(k % 40) + 0.02f;
            // nearest: the texel under the point
            const double near = sample(meta(0, mode, mode, false), x, y);
            CHECK(std::fabs(near - texel(int(std::floor(x)), int(std::floor(y)), mode)) < 1e-9, "nearest mode %d", mode);
            // bilinear between the four nearest texel centres
            const double fx = x - 0.5, fy = y - 0.5;
            const int x0 = int(std::floor(fx)), y0 = int(std::floor(fy));
            const double a = fx - x0, b = fy - y0;
            const double want = (1 - a) * (1 - b) * texel(x0, y0, mode) + a * (1 - b) * texel(x0 + 1, y0, mode) +
                                (1 - a) * b * texel(x0, y0 + 1, mode) + a * b * texel(x0 + 1, y0 + 1, mode);
            const double got = sample(meta(1, mode, mode, false), x, y);
            CHECK(std::fabs(got - want) < 1e-5, "bilinear mode %d at (%g, %g): %g vs %g", mode, x, y, got, want);
            // normalised coordinates are texel coordinates over the size
            const double norm = sample(meta(1, mode, mode, true), x / 4.0f, y / 3.0f);
            CHECK(std::fabs(norm - want) < 1e-4, "normalised mode %d", mode);
        }
}

static void test_lod_blend() {
    const uint32 m = meta(0, TEXTURE_CLAMP, TEXTURE_CLAMP, true, 2);
    const double l0 = sample(m, 0.3f, 0.2f, true, 0.0f), l1 = sample(m, 0.3f, 0.2f, true, 1.0f);
    CHECK(l0 == 1.0 && std::fabs(l1 - level1[0]) < 1e-6, "levels %g %g", l0, l1);
    CHECK(std::fabs(sample(m, 0.3f, 0.2f, true, 0.25f) - (0.75 * l0 + 0.25 * l1)) < 1e-6, "blend");
    CHECK(sample(m, 0.3f, 0.2f, true, -3.0f) == l0 && sample(m, 0.3f, 0.2f, true, 7.0f) == l1, "clamped lod");
    const uint32 closest = meta(0, TEXTURE_CLAMP, TEXTURE_CLAMP, true, 2, 0);
    CHECK(sample(closest, 0.3f, 0.2f, true, 0.4f) == l0 && sample(closest, 0.3f, 0.2f, true, 0.6f) == l1, "nearest lod");
}

static void test_adjoints() {
    const float32 h = 1.0f / 256.0f;
    for (int mode = 0; mode < 4; ++mode)
        for (int k = 0; k < 40; ++k) {
            // away from texel centres by more than h on both levels, so the stencil stays in one cell
            const float32 u = (-0.7f + 0.0625f * float32(k)) + 0.0175f, v = 0.15f + 0.05f * float32(k % 12) + 0.0125f;
            const float32 lod = 0.3f + 0.01f * float32(k % 7);
            const uint32 m = meta(1, mode, mode, true, 2);
            double du, dv, dl;
            sample(m, u, v, true, lod, &du, &dv, &dl);
            const double fu = (sample(m, u + h, v, true, lod) - sample(m, u - h, v, true, lod)) / (2.0 * h);
            const double fv = (sample(m, u, v + h, true, lod) - sample(m, u, v - h, true, lod)) / (2.0 * h);
            const double fl = (sample(m, u, v, true, lod + 0.05f) - sample(m, u, v, true, lod - 0.05f)) / 0.1;
            CHECK(std::fabs(du - fu) < 1e-3 * (1 + std::fabs(fu)), "d/du mode %d: %g vs %g", mode, du, fu);
            CHECK(std::fabs(dv - fv) < 1e-3 * (1 + std::fabs(fv)), "d/dv mode %d: %g vs %g", mode, dv, fv);
            CHECK(std::fabs(dl - fl) < 1e-4 * (1 + std::fabs(fl)), "d/dlod mode %d: %g vs %g", mode, dl, fl);
            // the builtin's adjoint: adj_ret times the slopes, added into the coordinates' adjoints
            texture2d_t t{uint64(&storage), 4, 3, m};
            vec_t<2, float32> uv(u, v), adj_uv(1.0f, 1.0f);
            float32 adj_lod = 0.0f;
            texture2d_t adj_t{};
            adj_texture_sample<float32>(t, uv, lod, adj_t, adj_uv, adj_lod, 2.0f);
            CHECK(std::fabs(adj_uv.c[0] - (1.0 + 2.0 * du)) < 1e-3 * (1 + std::fabs(du)), "adj_u");
            CHECK(std::fabs(adj_lod - 2.0 * dl) < 1e-3 * (1 + std::fabs(dl)), "adj_lod");
        }
}

int main() {
    build();
    test_address_modes();
    test_values();
    test_lod_blend();
    test_adjoints();
    if (g_fail) std::printf("%d failures\n", g_fail);
    return g_fail;
}
