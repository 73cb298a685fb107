// tile_random.h: tiles of random numbers (wp.tile_randi, wp.tile_randf). One thread makes the
// whole tile: it draws the elements in row-major order from a copy of the stream (the caller's
// state is not advanced), after skipping one draw, which is what Warp's CPU blocks of one thread
// give (checked against warp-lang 1.19 by its test_tile_random_generators).
#pragma once
#include "core/prelude.h"
#include "core/random.h"
#include "tiles/tile.h"

namespace wpnb {

template <int R, int C>
WPNB_FN tile_t<int32, R, C> tile_randi(uint32 rng) {
    tile_t<int32, R, C> out;
    randu(rng);
    for (int k = 0; k < R * C; ++k) out.data[k] = randi(rng);
    return out;
}
template <int R, int C>
WPNB_FN tile_t<int32, R, C> tile_randi(uint32 rng, int32 lo, int32 hi) {
    tile_t<int32, R, C> out;
    randu(rng);
    for (int k = 0; k < R * C; ++k) out.data[k] = randi(rng, lo, hi);
    return out;
}
template <int R, int C>
WPNB_FN tile_t<float32, R, C> tile_randf(uint32 rng) {
    tile_t<float32, R, C> out;
    randu(rng);
    for (int k = 0; k < R * C; ++k) out.data[k] = randf(rng);
    return out;
}
template <int R, int C>
WPNB_FN tile_t<float32, R, C> tile_randf(uint32 rng, float32 lo, float32 hi) {
    tile_t<float32, R, C> out;
    randu(rng);
    for (int k = 0; k < R * C; ++k) out.data[k] = randf(rng, lo, hi);
    return out;
}

}  // namespace wpnb
