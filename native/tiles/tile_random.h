// tile_random.h: tiles of random numbers (wp.tile_randi, wp.tile_randf), drawn as Warp's blocks draw
// them: with L lanes, lane t owns the elements t, t + L, t + 2L ... (row-major order) and draws
// them in that order from its own copy of the stream, rng + t, after skipping one draw; the
// caller's state is not advanced. With one lane (the CPU's default) that is the whole tile drawn
// in row-major order from rng. Every lane computes the whole tile, so all lanes hold the same
// values (checked against warp-lang 1.19 with enable_cpu_blocks, by its test_tile_random_generators).
#pragma once
#include "core/prelude.h"
#include "core/random.h"
#include "tiles/tile.h"

namespace wpnb {
namespace tile_random_detail {
struct draw_int { WPNB_FN int32 operator()(uint32& s) const { return randi(s); } };
struct draw_int_range { int32 lo, hi; WPNB_FN int32 operator()(uint32& s) const { return randi(s, lo, hi); } };
struct draw_float { WPNB_FN float32 operator()(uint32& s) const { return randf(s); } };
struct draw_float_range { float32 lo, hi; WPNB_FN float32 operator()(uint32& s) const { return randf(s, lo, hi); } };

// The tile whose element k is the (k / L)-th draw of the stream rng + (k % L), L the block's lanes.
template <typename T, int R, int C, typename Draw>
WPNB_FN tile_t<T, R, C> lanes_draw(uint32 rng, const Draw& draw) {
    tile_t<T, R, C> out;
    const int lanes = block_dim();
    for (int t = 0; t < lanes && t < R * C; ++t) {
        uint32 state = rng + uint32(t);
        randu(state);
        for (int k = t; k < R * C; k += lanes) out.data[k] = draw(state);
    }
    return out;
}
}  // namespace tile_random_detail

template <int R, int C>
WPNB_FN tile_t<int32, R, C> tile_randi(uint32 rng) {
    return tile_random_detail::lanes_draw<int32, R, C>(rng, tile_random_detail::draw_int());
}
template <int R, int C>
WPNB_FN tile_t<int32, R, C> tile_randi(uint32 rng, int32 lo, int32 hi) {
    return tile_random_detail::lanes_draw<int32, R, C>(rng, tile_random_detail::draw_int_range{lo, hi});
}
template <int R, int C>
WPNB_FN tile_t<float32, R, C> tile_randf(uint32 rng) {
    return tile_random_detail::lanes_draw<float32, R, C>(rng, tile_random_detail::draw_float());
}
template <int R, int C>
WPNB_FN tile_t<float32, R, C> tile_randf(uint32 rng, float32 lo, float32 hi) {
    return tile_random_detail::lanes_draw<float32, R, C>(rng, tile_random_detail::draw_float_range{lo, hi});
}

}  // namespace wpnb
