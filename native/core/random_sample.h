// random_sample.h: uniform samples of points in simple shapes, returned as vec2f / vec3f
// (not differentiable). Each advances `state` like the draws of random.h, and draws what Warp's
// samplers draw, in the same order, so seeded alike they give Warp's points.
#pragma once
#include "core/prelude.h"
#include "core/random.h"
#include "core/vec.h"

namespace wpnb {

#define WPNB_RNG_TWO_PI 6.28318530717958647692f

// sample_unit_ring(state): point on the unit circle in the xy-plane, (cos t, sin t), t uniform.
WPNB_FN vec_t<2, float32> sample_unit_ring(uint32& state) {
    const float32 t = WPNB_RNG_TWO_PI * randf(state);
    return vec_t<2, float32>(::cosf(t), ::sinf(t));
}
WPNB_FN void adj_sample_unit_ring(uint32&, uint32&, const vec_t<2, float32>&) {}

// sample_unit_disk(state): uniform point with radius <= 1 in the xy-plane (radius sqrt(u)).
WPNB_FN vec_t<2, float32> sample_unit_disk(uint32& state) {
    const float32 r = ::sqrtf(randf(state));
    const float32 t = WPNB_RNG_TWO_PI * randf(state);
    return vec_t<2, float32>(r * ::cosf(t), r * ::sinf(t));
}
WPNB_FN void adj_sample_unit_disk(uint32&, uint32&, const vec_t<2, float32>&) {}

// sample_unit_square(state): uniform point in [-0.5, 0.5)^2.
WPNB_FN vec_t<2, float32> sample_unit_square(uint32& state) {
    const float32 x = randf(state) - 0.5f;
    const float32 y = randf(state) - 0.5f;
    return vec_t<2, float32>(x, y);
}
WPNB_FN void adj_sample_unit_square(uint32&, uint32&, const vec_t<2, float32>&) {}

// sample_unit_cube(state): uniform point in [-0.5, 0.5)^3.
WPNB_FN vec_t<3, float32> sample_unit_cube(uint32& state) {
    const float32 x = randf(state) - 0.5f;
    const float32 y = randf(state) - 0.5f;
    const float32 z = randf(state) - 0.5f;
    return vec_t<3, float32>(x, y, z);
}
WPNB_FN void adj_sample_unit_cube(uint32&, uint32&, const vec_t<3, float32>&) {}

// sample_triangle(state): uniform barycentric (u, v) with u, v >= 0, u + v <= 1 (the third weight
// is 1 - u - v), as Warp: r = sqrt(u1), (1 - r, u2 r).
WPNB_FN vec_t<2, float32> sample_triangle(uint32& state) {
    const float32 r = ::sqrtf(randf(state));
    const float32 u2 = randf(state);
    return vec_t<2, float32>(1.0f - r, u2 * r);
}
WPNB_FN void adj_sample_triangle(uint32&, uint32&, const vec_t<2, float32>&) {}

// rng_direction(state, zmin): unit vector with z uniform in [zmin, 1] (Archimedes: uniform on
// the sphere cap), azimuth uniform. zmin = -1 covers the sphere, 0 the upper hemisphere.
WPNB_FN vec_t<3, float32> rng_direction(uint32& state, float32 zmin) {
    const float32 z = 1.0f - (1.0f - zmin) * randf(state);
    const float32 t = WPNB_RNG_TWO_PI * randf(state);
    const float32 r2 = 1.0f - z * z;
    const float32 r = r2 > 0.0f ? ::sqrtf(r2) : 0.0f;
    return vec_t<3, float32>(r * ::cosf(t), r * ::sinf(t), z);
}

// sample_unit_sphere_surface(state): uniform point on the unit sphere (length 1).
WPNB_FN vec_t<3, float32> sample_unit_sphere_surface(uint32& state) { return rng_direction(state, -1.0f); }
WPNB_FN void adj_sample_unit_sphere_surface(uint32&, uint32&, const vec_t<3, float32>&) {}

// sample_unit_hemisphere_surface(state): uniform point on the unit sphere with z >= 0.
WPNB_FN vec_t<3, float32> sample_unit_hemisphere_surface(uint32& state) { return rng_direction(state, 0.0f); }
WPNB_FN void adj_sample_unit_hemisphere_surface(uint32&, uint32&, const vec_t<3, float32>&) {}

// sample_unit_sphere(state): uniform point in the unit ball (direction times cbrt(u)).
WPNB_FN vec_t<3, float32> sample_unit_sphere(uint32& state) {
    vec_t<3, float32> d = rng_direction(state, -1.0f);
    const float32 r = ::cbrtf(randf(state));
    return vec_t<3, float32>(r * d.c[0], r * d.c[1], r * d.c[2]);
}
WPNB_FN void adj_sample_unit_sphere(uint32&, uint32&, const vec_t<3, float32>&) {}

// sample_unit_hemisphere(state): uniform point in the unit ball with z >= 0.
WPNB_FN vec_t<3, float32> sample_unit_hemisphere(uint32& state) {
    vec_t<3, float32> d = rng_direction(state, 0.0f);
    const float32 r = ::cbrtf(randf(state));
    return vec_t<3, float32>(r * d.c[0], r * d.c[1], r * d.c[2]);
}
WPNB_FN void adj_sample_unit_hemisphere(uint32&, uint32&, const vec_t<3, float32>&) {}

#undef WPNB_RNG_TWO_PI

}  // namespace wpnb
