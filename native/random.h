// random.h: counter-based random numbers with Warp's API (not differentiable).
//
// The state is one uint32. Each draw advances it by a fixed odd step (a Weyl sequence,
// period 2^32) and returns a bijective integer hash of the new state, so the stream is
// counter-based: draw n of a stream is mix(start + n * STEP). rand_init(seed, offset)
// hashes seed and offset into the starting counter, so neighbouring offsets (thread ids)
// start at unrelated points of the cycle. The vector samplers live in random_sample.h.
#pragma once
#include "prelude.h"

namespace wpnb {

// Counter step per draw: 2^32 / golden ratio, odd, so the counter visits all 2^32 values.
#define WPNB_RNG_STEP 0x9e3779b9u

// rng_mix(x): bijective 32-bit avalanche hash (xor-shift / multiply rounds; constants from
// the public hash-prospector search for low-bias 32-bit mixers).
WPNB_FN uint32 rng_mix(uint32 x) {
    x ^= x >> 16; x *= 0x21f0aaadu;
    x ^= x >> 15; x *= 0xd35a2d97u;
    x ^= x >> 15;
    return x;
}

// rand_init(seed, offset): starting state for stream `offset` of `seed` (use the thread id
// as offset so threads draw uncorrelated values); both arguments are hashed.
WPNB_FN uint32 rand_init(int32 seed, int32 offset) {
    return rng_mix(rng_mix(uint32(seed) ^ 0x5851f42du) + uint32(offset) * 0x632be5abu);
}
WPNB_FN void adj_rand_init(int32, int32, int32&, int32&, const uint32&) {}

// rand_init(seed): starting state for `seed`; equal to rand_init(seed, 0).
WPNB_FN uint32 rand_init(int32 seed) { return rand_init(seed, 0); }
WPNB_FN void adj_rand_init(int32, int32&, const uint32&) {}

// randu(state): uniform uint32 in [0, 2^32); advances state by one draw.
WPNB_FN uint32 randu(uint32& state) { state += WPNB_RNG_STEP; return rng_mix(state); }
WPNB_FN void adj_randu(uint32&, uint32&, const uint32&) {}

// randu(state, lo, hi): uniform in [lo, hi) by multiply-high range reduction (bias below
// (hi-lo)/2^32); returns lo when hi <= lo (one draw is consumed either way).
WPNB_FN uint32 randu(uint32& state, uint32 lo, uint32 hi) {
    const uint32 r = randu(state);
    if (hi <= lo) return lo;
    return lo + uint32((uint64(r) * uint64(hi - lo)) >> 32);
}
WPNB_FN void adj_randu(uint32&, uint32, uint32, uint32&, uint32&, uint32&, const uint32&) {}

// randi(state): uniform int32 over the full range [-2^31, 2^31).
WPNB_FN int32 randi(uint32& state) { return int32(randu(state)); }
WPNB_FN void adj_randi(uint32&, uint32&, const int32&) {}

// randi(state, lo, hi): uniform int32 in [lo, hi) (any range up to 2^32 - 1 wide); lo when hi <= lo.
WPNB_FN int32 randi(uint32& state, int32 lo, int32 hi) {
    const uint32 r = randu(state);
    if (hi <= lo) return lo;
    const uint32 span = uint32(hi) - uint32(lo);
    return int32(uint32(lo) + uint32((uint64(r) * uint64(span)) >> 32));
}
WPNB_FN void adj_randi(uint32&, int32, int32, uint32&, int32&, int32&, const int32&) {}

// randf(state): uniform float32 in [0, 1) on the grid k * 2^-24 (top 24 bits of a draw).
WPNB_FN float32 randf(uint32& state) { return float32(randu(state) >> 8) * 5.9604644775390625e-8f; }
WPNB_FN void adj_randf(uint32&, uint32&, const float32&) {}

// randf(state, lo, hi) = lo + (hi - lo) * randf(state): uniform in [lo, hi) up to float rounding.
WPNB_FN float32 randf(uint32& state, float32 lo, float32 hi) { return lo + (hi - lo) * randf(state); }
WPNB_FN void adj_randf(uint32&, float32, float32, uint32&, float32&, float32&, const float32&) {}

// randn(state): standard normal (mean 0, variance 1) by Box-Muller from two draws;
// |result| <= sqrt(-2 ln 2^-24) ~ 5.77.
WPNB_FN float32 randn(uint32& state) {
    const float32 u1 = 1.0f - randf(state);  // (0, 1]: keeps log finite
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

// poisson(state, lam): Poisson(lam) count (mean and variance lam). lam <= 0 or nan returns 0
// and consumes no draw; lam < 12 multiplies uniforms until the product drops below e^-lam;
// larger lam uses transformed rejection with squeeze (Hoermann's PTRS, ~1.1 tries on average).
WPNB_FN uint32 poisson(uint32& state, float32 lam) {
    if (!(lam > 0.0f)) return 0u;
    if (lam < 12.0f) {
        const float32 limit = ::expf(-lam);
        float32 p = 1.0f - randf(state);
        uint32 k = 0;
        while (p > limit && k < 1000u) { p *= 1.0f - randf(state); ++k; }
        return k;
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

#undef WPNB_RNG_STEP

}  // namespace wpnb
