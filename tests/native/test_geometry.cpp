// Tests for native/geometry/bvh.h, native/geometry/mesh.h, native/geometry/hash_grid.h and native/geometry/volume.h on hand-built
// data (no builder): closest points on a triangle against dense sampling, their barycentric
// gradients against central differences, solid angles of a closed tetrahedron, a two-leaf tree
// answering box queries, hash-grid cell wrapping, volume keys and trilinear sampling with its
// gradient. Exit status 0 when everything passes; prints each failure.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "geometry/mesh.h"
#include "geometry/mesh_query.h"
#include "geometry/hash_grid.h"
#include "geometry/volume.h"

using namespace wpnb;
static int g_fail = 0, g_checks = 0;
#define CHECK(cond, ...) do { ++g_checks; if (!(cond)) { ++g_fail; \
    std::printf("FAIL %s:%d: ", __FILE__, __LINE__); std::printf(__VA_ARGS__); std::printf("\n"); } } while (0)

static vec3f v(float x, float y, float z) { return geo::v3(x, y, z); }

static void test_closest_point() {
    const vec3f a = v(0, 0, 0), b = v(2, 0, 0), c = v(0.5f, 1.5f, 0.3f);
    unsigned seed = 1;
    auto rnd = [&]() { seed = seed * 1664525u + 1013904223u; return float(seed >> 8) / float(1 << 24) * 4.0f - 1.5f; };
    for (int t = 0; t < 200; ++t) {
        const vec3f p = v(rnd(), rnd(), rnd());
        float wa, wb; int region;
        geo::closest_on_triangle(p, a, b, c, wa, wb, region);
        const vec3f q = geo::lerp_tri(a, b, c, wa, wb);
        const float d = geo::len3(geo::sub3(p, q));
        float best = 1e30f;  // dense barycentric sampling
        for (int i = 0; i <= 200; ++i)
            for (int j = 0; i + j <= 200; ++j) {
                const vec3f s = geo::lerp_tri(a, b, c, i / 200.0f, j / 200.0f);
                best = std::fmin(best, geo::len3(geo::sub3(p, s)));
            }
        CHECK(d <= best + 1e-5f && d >= best - 0.02f, "closest distance %g vs sampled %g", d, best);
        // gradients of the weights against central differences (away from region boundaries)
        vec3f ga, gb;
        geo::closest_on_triangle_grad(a, b, c, region, ga, gb);
        const float h = 1e-3f;
        for (int k = 0; k < 3; ++k) {
            vec3f pp = p, pm = p;
            pp.c[k] += h; pm.c[k] -= h;
            float a1, b1, a2, b2; int r1, r2;
            geo::closest_on_triangle(pp, a, b, c, a1, b1, r1);
            geo::closest_on_triangle(pm, a, b, c, a2, b2, r2);
            if (r1 != region || r2 != region) continue;
            CHECK(std::fabs((a1 - a2) / (2 * h) - ga.c[k]) < 2e-2f, "d wa / dp[%d]: %g vs %g", k, (a1 - a2) / (2 * h), ga.c[k]);
            CHECK(std::fabs((b1 - b2) / (2 * h) - gb.c[k]) < 2e-2f, "d wb / dp[%d]: %g vs %g", k, (b1 - b2) / (2 * h), gb.c[k]);
        }
    }
}

static void test_solid_angle() {
    // a tetrahedron with outward faces: solid angles add to 4 pi inside, 0 outside
    const vec3f P[4] = {v(0, 0, 0), v(1, 0, 0), v(0, 1, 0), v(0, 0, 1)};
    const int F[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    for (int inside = 0; inside < 2; ++inside) {
        const vec3f p = inside ? v(0.2f, 0.2f, 0.2f) : v(1.0f, 1.0f, 1.0f);
        float s = 0;
        for (auto& f : F) s += geo::solid_angle(geo::sub3(P[f[0]], p), geo::sub3(P[f[1]], p), geo::sub3(P[f[2]], p));
        CHECK(std::fabs(s - (inside ? 4 * 3.14159265f : 0.0f)) < 1e-4f, "solid angle sum %g (inside %d)", s, inside);
    }
}

static void test_tree_queries() {
    // two leaves under a root, boxes [0,1]^3 and [2,3]^3
    bvh_node_t nodes[3] = {{{0, 0, 0}, 1, {3, 3, 3}, 0}, {{0, 0, 0}, 0, {1, 1, 1}, 1}, {{2, 2, 2}, 1, {3, 3, 3}, 1}};
    int32 items[2] = {0, 1};
    vec3f lo[2] = {v(0, 0, 0), v(2, 2, 2)}, hi[2] = {v(1, 1, 1), v(3, 3, 3)};
    bvh_t tree = {nodes, items, lo, hi, 3, 2, nullptr, nullptr, 0, 0};
    const uint64 id = (uint64)&tree;
    int found[2] = {0, 0}, idx = -1;
    bvh_query_t q = bvh_query_aabb(id, v(0.5f, 0.5f, 0.5f), v(2.5f, 2.5f, 2.5f));
    while (bvh_query_next(q, idx)) found[idx]++;
    CHECK(found[0] == 1 && found[1] == 1, "box query found %d %d", found[0], found[1]);
    found[0] = found[1] = 0;
    q = bvh_query_ray(id, v(-1, 0.5f, 0.5f), v(1, 0, 0));
    while (bvh_query_next(q, idx)) found[idx]++;
    CHECK(found[0] == 1 && found[1] == 0, "ray query found %d %d", found[0], found[1]);
}

static void test_tree_shapes_and_groups() {
    // the same two leaves: a sphere, a capsule bounded by max_dist, a subtree root, a group lookup
    bvh_node_t nodes[3] = {{{0, 0, 0}, 1, {3, 3, 3}, 0}, {{0, 0, 0}, 0, {1, 1, 1}, 1}, {{2, 2, 2}, 1, {3, 3, 3}, 1}};
    int32 items[2] = {0, 1};
    vec3f lo[2] = {v(0, 0, 0), v(2, 2, 2)}, hi[2] = {v(1, 1, 1), v(3, 3, 3)};
    int32 group_ids[2] = {3, 7}, group_roots[2] = {1, 2};
    bvh_t tree = {nodes, items, lo, hi, 3, 2, group_ids, group_roots, 2, 0};
    const uint64 id = (uint64)&tree;
    auto count = [&](bvh_query_t q, float max_dist, int* found) {
        found[0] = found[1] = 0;
        int idx = -1;
        while (bvh_query_next(q, idx, max_dist)) found[idx]++;
    };
    int f[2];
    count(bvh_query_sphere(id, v(1.5f, 0.5f, 0.5f), 0.6f), 1e30f, f);  // 0.5 from box 0, > 0.6 from box 1
    CHECK(f[0] == 1 && f[1] == 0, "sphere found %d %d", f[0], f[1]);
    count(bvh_query_sphere(id, v(0.5f, 0.5f, 0.5f), 0.0f), 1e30f, f);
    CHECK(f[0] == 1 && f[1] == 0, "zero-radius sphere found %d %d", f[0], f[1]);
    // segment from (-1, 1.5, 1.5) along +x: 0.5 away from both boxes' faces; radius 0.6 touches both
    // grown boxes, but max_dist 1.5 ends the segment at x = 0.5
    count(bvh_query_capsule(id, v(-1, 1.5f, 1.5f), v(1, 0, 0), 0.6f), 1.5f, f);
    CHECK(f[0] == 1 && f[1] == 0, "capsule found %d %d", f[0], f[1]);
    count(bvh_query_capsule(id, v(-1, 1.5f, 1.5f), v(1, 0, 0), 0.6f), 1e30f, f);
    CHECK(f[0] == 1 && f[1] == 1, "unbounded capsule found %d %d", f[0], f[1]);
    count(bvh_query_aabb(id, v(-9, -9, -9), v(9, 9, 9), bvh_get_group_root(id, 7)), 1e30f, f);
    CHECK(f[0] == 0 && f[1] == 1, "group 7's subtree found %d %d", f[0], f[1]);
    CHECK(bvh_get_group_root(id, 3) == 1 && bvh_get_group_root(id, 5) == -1, "group roots");
    // a ray parallel to a slab, starting on the slab's face, still enters the box
    count(bvh_query_ray(id, v(1, 0.5f, 2), v(0, 0, -1)), 1e30f, f);
    CHECK(f[0] == 1 && f[1] == 0, "ray on a slab face found %d %d", f[0], f[1]);
}

static void test_mesh_counting_and_furthest() {
    // a closed tetrahedron: inside points cross it once along any ray, outside points 0 or 2 times
    vec3f P[4] = {v(0, 0, 0), v(1, 0, 0), v(0, 1, 0), v(0, 0, 1)};
    int32 I[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    bvh_node_t root = {{0, 0, 0}, 0, {1, 1, 1}, 4};
    int32 items[4] = {0, 1, 2, 3};
    vec3f tris[12];
    for (int k = 0; k < 12; ++k) tris[k] = P[I[k]];
    mesh_t m = {};
    m.bvh.nodes = &root; m.bvh.items = items; m.bvh.num_nodes = 1; m.bvh.num_items = 4;
    m.points = P; m.indices = I; m.tris = tris; m.num_points = 4; m.num_tris = 4;
    const uint64 id = (uint64)&m;
    CHECK(mesh_query_ray_count_intersections(id, v(0.1f, 0.2f, 0.15f), v(0.3f, 0.5f, 0.8f)) == 1, "inside: 1 crossing");
    CHECK(mesh_query_ray_count_intersections(id, v(-1, 0.2f, 0.15f), v(1, 0.01f, 0.02f)) == 2, "through: 2 crossings");
    CHECK(mesh_query_ray_count_intersections(id, v(2, 2, 2), v(1, 1, 1)) == 0, "away: none");
    CHECK(mesh_query_point_sign_parity(id, v(0.1f, 0.2f, 0.15f), 10.0f).sign < 0, "parity: inside");
    CHECK(mesh_query_point_sign_parity(id, v(0.9f, 0.9f, 0.9f), 10.0f, 5, 0.2f).sign > 0, "parity: outside");
    CHECK(mesh_query_ray_anyhit(id, v(-1, 0.2f, 0.15f), v(1, 0, 0), 2.0f), "any hit");
    CHECK(!mesh_query_ray_anyhit(id, v(-1, 0.2f, 0.15f), v(1, 0, 0), 0.5f), "no hit before max_t");
    const vec3f p = v(0.9f, -0.2f, 0.1f);
    const mesh_query_point_t far = mesh_query_furthest_point_no_sign(id, p, 0.0f);
    float best = 0;
    for (auto& q : P) best = std::fmax(best, geo::len3(geo::sub3(q, p)));
    const vec3f got = mesh_eval_position(id, far.face, far.u, far.v);
    CHECK(far.result && std::fabs(geo::len3(geo::sub3(got, p)) - best) < 1e-6f, "furthest %g vs %g",
          geo::len3(geo::sub3(got, p)), best);
    CHECK(!mesh_query_furthest_point_no_sign(id, p, best + 0.1f).result, "nothing beyond min_dist");
    int n = 0, face = -1;
    mesh_query_aabb_t q = mesh_query_sphere(id, v(0.25f, 0.25f, -0.1f), 0.11f);  // 0.1 below face 0 only
    while (mesh_query_next(q, face)) ++n;
    CHECK(n == 1 && face == 0, "sphere query found %d faces (last %d)", n, face);
}

static void test_hash_grid_and_volume() {
    CHECK(hash_grid_wrap(-1, 5) == 4 && hash_grid_wrap(7, 5) == 2 && hash_grid_wrap(0, 5) == 0, "wrap");
    CHECK(hash_grid_coord(-0.01f, 10.0f) == -1 && hash_grid_coord(0.99f, 10.0f) == 9, "cell coordinates");
    CHECK(volume_key(-1, 0, 0) != volume_key(1, 0, 0) && volume_key(0, -1, 0) != volume_key(0, 0, -1), "keys");
    // one brick at the origin holding f(i, j, k) = i + 2 j - 3 k, background 0
    std::vector<float> data(512);
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j)
            for (int k = 0; k < 8; ++k) data[volume_brick_offset(i, j, k)] = float(i + 2 * j - 3 * k);
    uint64 keys[16];
    int32 vals[16];
    for (auto& k : keys) k = ~uint64(0);
    const uint64 key = volume_key(0, 0, 0);
    keys[volume_hash(key, 64 - 4)] = key;
    vals[volume_hash(key, 64 - 4)] = 0;
    volume_t vol = {};
    vol.data = data.data();
    vol.levels[0] = {keys, vals, 3, 4};
    vol.value_size = 4;  // background: all zero bytes
    const uint64 id = (uint64)&vol;
    CHECK(volume_lookup_f(id, 3, 2, 1) == 4.0f && volume_lookup_f(id, 9, 0, 0) == 0.0f, "lookup");
    vec3f g;
    const float s = volume_sample_grad_f(id, v(2.25f, 3.5f, 1.75f), 1, g);
    CHECK(std::fabs(s - (2.25f + 7.0f - 5.25f)) < 1e-5f, "trilinear %g", s);
    CHECK(std::fabs(g.c[0] - 1) < 1e-5f && std::fabs(g.c[1] - 2) < 1e-5f && std::fabs(g.c[2] + 3) < 1e-5f,
          "gradient %g %g %g", g.c[0], g.c[1], g.c[2]);
    CHECK(volume_sample_f(id, v(2.6f, 3.4f, 1.2f), 0) == float(3 + 6 - 3), "closest");

    // the same brick holding vec3 values (f, 2 f, -f): trilinear per component, the gradient matrix by rows
    std::vector<vec3f> vdata(512);
    for (int n = 0; n < 512; ++n) vdata[n] = v(data[n], 2 * data[n], -data[n]);
    volume_t vv = vol;
    vv.data = vdata.data();
    vv.value_size = 12;
    const float bg[3] = {1.0f, 2.0f, 3.0f};
    std::memcpy(vv.background, bg, sizeof(bg));
    const uint64 vid = (uint64)&vv;
    mat33f G;
    const vec3f sv = volume_sample_grad_v(vid, v(2.25f, 3.5f, 1.75f), 1, G);
    CHECK(std::fabs(sv.c[1] - 2 * s) < 1e-4f && std::fabs(sv.c[2] + s) < 1e-4f, "vec3 trilinear %g %g", sv.c[1], sv.c[2]);
    CHECK(std::fabs(G.c[1][0] - 2) < 1e-5f && std::fabs(G.c[1][2] + 6) < 1e-5f && std::fabs(G.c[2][1] + 2) < 1e-5f,
          "vec3 gradient rows %g %g %g", G.c[1][0], G.c[1][2], G.c[2][1]);
    CHECK(volume_lookup_v(vid, 20, 0, 0).c[2] == 3.0f, "vec3 background");
    vec3f adj = v(0, 0, 0);
    uint64 adj_id = 0;
    int32 adj_mode = 0;
    adj_volume_sample_v(vid, v(2.25f, 3.5f, 1.75f), 1, adj_id, adj, adj_mode, v(1, 1, 1));
    // d/duvw of (f + 2 f - f) = 2 grad f = (2, 4, -6)
    CHECK(std::fabs(adj.c[0] - 2) < 1e-4f && std::fabs(adj.c[1] - 4) < 1e-4f && std::fabs(adj.c[2] + 6) < 1e-4f,
          "vec3 adjoint %g %g %g", adj.c[0], adj.c[1], adj.c[2]);
    volume_store(vid, 1, 1, 1, v(7, 8, 9));
    CHECK(volume_lookup_v(vid, 1, 1, 1).c[1] == 8.0f, "vec3 store");
}

int main() {
    test_closest_point();
    test_solid_angle();
    test_tree_queries();
    test_tree_shapes_and_groups();
    test_mesh_counting_and_furthest();
    test_hash_grid_and_volume();
    std::printf("%d checks, %d failures\n", g_checks, g_fail);
    return g_fail ? 1 : 0;
}
