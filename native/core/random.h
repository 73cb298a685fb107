// random.h: random numbers with Warp's API and Warp's streams (not differentiable).
//
// The state is one uint32 and every draw replaces it by rng_hash(state), the PCG hash of
// Jarzynski and Olano ("Hash Functions for GPU Rendering", JCGT 2020): an LCG step, then a
// random xorshift, a multiply and a final xorshift, all bijective on uint32. Warp draws the same
// way, so a kernel seeded alike draws the same numbers as under Warp, bit for bit (checked against
// warp-lang 1.19 on the CPU by tests/e2e/test_random_streams.py). The vector samplers live in
// random_sample.h.
#pragma once
#include "core/prelude.h"

namespace wpnb {

// rng_hash(x): the PCG hash; a bijection of uint32 with full avalanche.
WPNB_FN uint32 rng_hash(uint32 x) {
    const uint32 state = x * 747796405u + 2891336453u;
    const uint32 word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// rand_init(seed, offset) = hash(seed + hash(offset)): stream `offset` of `seed` (use the thread id
// as offset so threads draw unrelated values).
WPNB_FN uint32 rand_init(int32 seed, int32 offset) { return rng_hash(uint32(seed) + rng_hash(uint32(offset))); }
WPNB_FN void adj_rand_init(int32, int32, int32&, int32&, const uint32&) {}

// rand_init(seed) = hash(seed) (not rand_init(seed, 0), as in Warp).
WPNB_FN uint32 rand_init(int32 seed) { return rng_hash(uint32(seed)); }
WPNB_FN void adj_rand_init(int32, int32&, const uint32&) {}

// randu(state): uniform uint32 in [0, 2^32); advances state by one draw.
WPNB_FN uint32 randu(uint32& state) { state = rng_hash(state); return state; }
WPNB_FN void adj_randu(uint32&, uint32&, const uint32&) {}

// randu(state, lo, hi) = lo + draw % (hi - lo), as Warp (a modulo bias below (hi-lo)/2^32);
// returns lo when hi <= lo (one draw is consumed either way, where Warp would divide by zero).
WPNB_FN uint32 randu(uint32& state, uint32 lo, uint32 hi) {
    const uint32 r = randu(state);
    if (hi <= lo) return lo;
    return lo + r % (hi - lo);
}
WPNB_FN void adj_randu(uint32&, uint32, uint32, uint32&, uint32&, uint32&, const uint32&) {}

// randi(state): uniform int32 over the full range [-2^31, 2^31) (the draw's bits).
WPNB_FN int32 randi(uint32& state) { return int32(randu(state)); }
WPNB_FN void adj_randi(uint32&, uint32&, const int32&) {}

// randi(state, lo, hi) = lo + draw % (hi - lo), the remainder of the unsigned draw, as Warp;
// lo when hi <= lo.
WPNB_FN int32 randi(uint32& state, int32 lo, int32 hi) {
    const uint32 r = randu(state);
    if (hi <= lo) return lo;
    const uint32 span = uint32(hi) - uint32(lo);
    return int32(uint32(lo) + r % span);
}
WPNB_FN void adj_randi(uint32&, int32, int32, uint32&, int32&, int32&, const int32&) {}

// randf(state): uniform float32 in [0, 1) on the grid k * 2^-24 (top 24 bits of a draw).
WPNB_FN float32 randf(uint32& state) { return float32(randu(state) >> 8) * 5.9604644775390625e-8f; }
WPNB_FN void adj_randf(uint32&, uint32&, const float32&) {}

// randf(state, lo, hi) = lo + (hi - lo) * randf(state): uniform in [lo, hi) up to float rounding.
WPNB_FN float32 randf(uint32& state, float32 lo, float32 hi) { return lo + (hi - lo) * randf(state); }
WPNB_FN void adj_randf(uint32&, float32, float32, uint32&, float32&, float32&, const float32&) {}

// randn(state): standard normal by Box-Muller from two draws u1, u2 (in this order, as Warp):
// sqrt(-2 ln u1) cos(2 pi u2). u1 = 0 (odds 2^-24 per call) gives +-inf or nan, as in Warp.
WPNB_FN float32 randn(uint32& state) {
    const float32 u1 = randf(state);
    const float32 u2 = randf(state);
    return ::sqrtf(-2.0f * ::logf(u1)) * ::cosf(6.28318530717958647692f * u2);
}
WPNB_FN void adj_randn(uint32&, uint32&, const float32&) {}

// rng_log_factorial(k) = ln(k!) for k >= 0: table below 10, Stirling series above (error < 1e-10).
WPNB_FN float64 rng_log_factorial(float64 k) {
    const float64 table[10] = {0.0, 0.0, 0.693147180559945, 1.7917594692280554, 3.178053830347945,
                               4.787491742782047, 6.579251212010102, 8.525161361065415,
                               10.604602902745249, 12.801827480081467};
    if (k < 10.0) return table[int32(k)];
    const float64 n = k + 1.0, inv = 1.0 / n, inv2 = inv * inv;
    return (n - 0.5) * ::log(n) - n + 0.91893853320467274178 +
           inv * (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 * (1.0 / 1260.0)));
}

// poisson(state, lam): Poisson(lam) count (mean and variance lam), drawn as Warp draws it. lam <= 0
// or nan returns 0 and consumes no draw; lam < 10 multiplies uniforms (Knuth) until the product
// drops to e^-lam or below; larger lam uses transformed rejection with squeeze (Hoermann's PTRS,
// ~1.1 tries of two draws, u then v), rejecting negative candidates.
WPNB_FN uint32 poisson(uint32& state, float32 lam) {
    if (!(lam > 0.0f)) return 0u;
    if (lam < 10.0f) {
        const float32 limit = ::expf(-lam);
        float32 p = 1.0f;
        uint32 k = 0;
        for (;;) {
            p *= randf(state);
            if (p <= limit || k >= 1000u) return k;
            ++k;
        }
    }
    const float64 L = float64(lam), sl = ::sqrt(L), log_l = ::log(L);
    const float64 b = 0.931 + 2.53 * sl, a = -0.059 + 0.02483 * b;
    const float64 inv_alpha = 1.1239 + 1.1328 / (b - 3.4), v_r = 0.9277 - 3.6224 / (b - 2.0);
    for (int32 tries = 0; tries < 256; ++tries) {
        const float64 u = float64(randf(state)) - 0.5, v = float64(randf(state));
        const float64 us = 0.5 - (u < 0.0 ? -u : u);
        if (us <= 0.0) continue;
        const float64 kf = ::floor((2.0 * a / us + b) * u + L + 0.43);
        if (kf < 0.0 || kf > 4294967295.0) continue;
        if (us >= 0.07 && v <= v_r) return uint32(kf);
        if (us < 0.013 && v > us) continue;
        if (::log(v * inv_alpha / (a / (us * us) + b)) <= -L + kf * log_l - rng_log_factorial(kf))
            return uint32(kf);
    }
    return uint32(::floor(L + 0.5));  // not reached in practice (acceptance rate > 0.9 per try)
}
WPNB_FN void adj_poisson(uint32&, float32, uint32&, float32&, const uint32&) {}

}  // namespace wpnb
