// tile_query.h: Warp's thread-block ("tiled") geometry queries: wp.tile_bvh_query_aabb / _ray and
// wp.tile_mesh_query_aabb, advanced by wp.tile_bvh_query_next / wp.tile_mesh_query_aabb_next and
// guarded by wp.tile_query_valid. In Warp the threads of a block share one traversal and each
// thread receives one result per step, as a tile of shape (block_dim,). In a block of one lane
// (the CPU's default) a step hands out one result, a tile of one element; in a block of several
// (tile_block.h) every lane walks the same traversal and a step hands out the next block_dim
// results, lane k's the k-th. Either way each item comes out exactly once, in the query's order.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"
#include "tiles/tile.h"
#include "geometry/bvh.h"
#include "geometry/mesh_query.h"

namespace wpnb {

// A per-thread query and whether the block should keep looping: true until a step finds
// nothing (Warp: true initially and after a batch holding a result, false after an empty one).
template <typename Q>
struct tiled_query_t {
    Q q;
    bool valid;
};
typedef tiled_query_t<bvh_query_t> bvh_query_tiled_t;
typedef tiled_query_t<mesh_query_aabb_t> mesh_query_aabb_tiled_t;

namespace geo {
template <typename Q>
WPNB_FN tiled_query_t<Q> tiled_start(const Q& q) {
    tiled_query_t<Q> t;
    t.q = q;
    t.valid = true;
    return t;
}

// One step: the next result as this thread's element (-1 when none), and the loop flag updated.
template <typename Q>
WPNB_FN tile_t<int32, 1, 1> tiled_step(tiled_query_t<Q>& t, bool found, int32 index) {
    t.valid = found;
    tile_t<int32, 1, 1> out;
    out.data[0] = found ? index : -1;
    return out;
}
}  // namespace geo

WPNB_FN bvh_query_tiled_t tile_bvh_query_aabb(uint64 id, const vec3f& low, const vec3f& high) {
    return geo::tiled_start(bvh_query_aabb(id, low, high));
}
WPNB_FN bvh_query_tiled_t tile_bvh_query_ray(uint64 id, const vec3f& start, const vec3f& dir) {
    return geo::tiled_start(bvh_query_ray(id, start, dir));
}
WPNB_FN mesh_query_aabb_tiled_t tile_mesh_query_aabb(uint64 id, const vec3f& low, const vec3f& high) {
    return geo::tiled_start(mesh_query_aabb(id, low, high));
}

WPNB_FN tile_t<int32, 1, 1> tile_bvh_query_next(bvh_query_tiled_t& t) {
    int32 index = -1;
    // an exhausted query stays exhausted: a loop that keeps calling gets -1 again
    const bool found = t.valid && bvh_query_next(t.q, index);
    return geo::tiled_step(t, found, index);
}
WPNB_FN tile_t<int32, 1, 1> tile_mesh_query_aabb_next(mesh_query_aabb_tiled_t& t) {
    int32 index = -1;
    const bool found = t.valid && mesh_query_next(t.q, index);
    return geo::tiled_step(t, found, index);
}

// In a block of B lanes (tile_block.h) a step hands out the next B results, lane k's k-th (-1
// past the end); every lane walks the same traversal, so all hold the same tile. The loop flag is
// true after a step that found anything.
namespace geo {
template <int B, typename Q, typename Next>
WPNB_FN tile_t<int32, B, 1> tiled_lanes_step(tiled_query_t<Q>& t, Next next) {
    tile_t<int32, B, 1> out;
    bool any = false, more = t.valid;
    for (int k = 0; k < B; ++k) {
        int32 index = -1;
        more = more && next(t.q, index);
        out.data[k] = more ? index : -1;
        any = any || more;
    }
    t.valid = any;
    return out;
}
}  // namespace geo

template <int B>
WPNB_FN tile_t<int32, B, 1> tile_bvh_query_next_lanes(bvh_query_tiled_t& t) {
    return geo::tiled_lanes_step<B>(t, [](bvh_query_t& q, int32& i) { return bvh_query_next(q, i); });
}
template <int B>
WPNB_FN tile_t<int32, B, 1> tile_mesh_query_aabb_next_lanes(mesh_query_aabb_tiled_t& t) {
    return geo::tiled_lanes_step<B>(t, [](mesh_query_aabb_t& q, int32& i) { return mesh_query_next(q, i); });
}

template <typename Q>
WPNB_FN bool tile_query_valid(const tiled_query_t<Q>& t) { return t.valid; }

}  // namespace wpnb
