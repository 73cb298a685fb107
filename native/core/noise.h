// noise.h: Perlin gradient noise in 1-4 dimensions (noise, pnoise) and curl noise, with
// adjoints with respect to the coordinates; the fields are Warp's, number for number.
//
// One lattice cell per unit. Each lattice point p gets a gradient drawn from random.h's stream
// started at a spatial hash of p and the state: (p0 A) ^ (p1 B) ^ ... ^ (p_last K + state) with
// Teschner's primes A, B and two more, the ones Warp uses; in 1-D the gradient is 2 randf - 1, in
// 2-4-D the normalized vector of N draws randf - 0.5. The value blends the corner planes
// g . (x - corner) with the quintic fade 6t^5 - 15t^4 + 10t^3, so the field is C2 and zero at
// lattice points. `state` (from rand_init) selects the field and is never advanced. Periods <= 0
// mean "not periodic" along that axis; a period wraps lattice coordinates with C's remainder, as
// Warp does, so pnoise repeats on each side of 0 but not across it.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/random.h"
#include "core/vec.h"

namespace wpnb {

// noise_fade(t) = t^3 (t (6t - 15) + 10) and its first two derivatives.
template <typename T> WPNB_FN T noise_fade(T t) { return t * t * t * (t * (t * T(6) - T(15)) + T(10)); }
template <typename T> WPNB_FN T noise_fade_d1(T t) { return T(30) * t * t * (t - T(1)) * (t - T(1)); }
template <typename T> WPNB_FN T noise_fade_d2(T t) { return T(60) * t * (t - T(1)) * (T(2) * t - T(1)); }

// noise_lattice_gradient<N, T>(seed, p, g): the gradient at lattice point p of field `seed`.
template <int N, typename T> WPNB_FN void noise_lattice_gradient(uint32 seed, const int32* p, T* g) {
    const uint32 primes[4] = {73856093u, 19349663u, 53471161u, 10000019u};
    uint32 idx = uint32(p[N - 1]) * primes[N - 1] + seed;
    for (int i = 0; i < N - 1; ++i) idx ^= uint32(p[i]) * primes[i];
    if (N == 1) { g[0] = T(2.0f * randf(idx) - 1.0f); return; }
    float32 v[N], len2 = 0.0f;
    for (int i = 0; i < N; ++i) { v[i] = randf(idx) - 0.5f; len2 += v[i] * v[i]; }
    const float32 inv = len2 > 0.0f ? 1.0f / ::sqrtf(len2) : 0.0f;
    for (int i = 0; i < N; ++i) g[i] = T(v[i] * inv);
}

// noise_eval<N, T>(seed, x, period, grad, hess): noise value at x; when grad / hess are not
// null, also writes the gradient (N values) and the Hessian (N*N, row-major). period may be
// null (no wrapping); otherwise lattice coordinates wrap modulo period[i] when it is > 0.
template <int N, typename T>
WPNB_FN T noise_eval(uint32 seed, const T* x, const int32* period, T* grad, T* hess) {
    int32 cell[N];
    T t[N], f[N], f1[N], f2[N];
    for (int i = 0; i < N; ++i) {
        const T fl = libm::floor(x[i]);
        cell[i] = int32(fl);
        t[i] = x[i] - fl;
        f[i] = noise_fade(t[i]); f1[i] = noise_fade_d1(t[i]); f2[i] = noise_fade_d2(t[i]);
    }
    if (grad) for (int i = 0; i < N; ++i) grad[i] = T(0);
    if (hess) for (int i = 0; i < N * N; ++i) hess[i] = T(0);
    T value = T(0);
    for (int c = 0; c < (1 << N); ++c) {
        int32 p[N];
        T w[N], w1[N], d[N], g[N];
        for (int i = 0; i < N; ++i) {
            const int bit = (c >> i) & 1;
            int32 q = cell[i];
            if (period && period[i] > 0) { q %= period[i]; if (bit) q = (q + 1) % period[i]; }  // C remainder
            else q += bit;
            p[i] = q;
            w[i] = bit ? f[i] : T(1) - f[i];
            w1[i] = bit ? f1[i] : -f1[i];
            d[i] = t[i] - T(bit);
        }
        noise_lattice_gradient<N, T>(seed, p, g);
        T dot = T(0), weight = T(1);
        for (int i = 0; i < N; ++i) {
            dot += g[i] * d[i];
            weight *= w[i];
        }
        value += weight * dot;
        if (!grad && !hess) continue;
        for (int j = 0; j < N; ++j) {
            T wj = w1[j];  // d weight / d x_j
            for (int i = 0; i < N; ++i) if (i != j) wj *= w[i];
            if (grad) grad[j] += wj * dot + weight * g[j];
            if (!hess) continue;
            for (int k = 0; k < N; ++k) {
                T wjk;  // d^2 weight / d x_j d x_k
                if (k == j) {
                    wjk = ((c >> j) & 1) ? f2[j] : -f2[j];
                    for (int i = 0; i < N; ++i) if (i != j) wjk *= w[i];
                } else {
                    wjk = w1[j] * w1[k];
                    for (int i = 0; i < N; ++i) if (i != j && i != k) wjk *= w[i];
                }
                T wk = w1[k];
                for (int i = 0; i < N; ++i) if (i != k) wk *= w[i];
                hess[j * N + k] += wjk * dot + wj * g[k] + wk * g[j];
            }
        }
    }
    return value;
}

// noise(state, x) for float32 x / vec2f / vec3f / vec4f: non-periodic noise at x.
// adj_noise adds adj_ret * gradient into adj_x (state gets no gradient).
WPNB_FN float32 noise(uint32 state, float32 x) { return noise_eval<1, float32>(state, &x, nullptr, nullptr, nullptr); }
WPNB_FN void adj_noise(uint32 state, float32 x, uint32&, float32& adj_x, const float32& adj_ret) {
    float32 g; noise_eval<1, float32>(state, &x, nullptr, &g, nullptr); adj_x += adj_ret * g;
}
template <int N> WPNB_FN float32 noise(uint32 state, const vec_t<N, float32>& x) {
    static_assert(N >= 2 && N <= 4, "noise takes vec2, vec3 or vec4");
    return noise_eval<N, float32>(state, x.c, nullptr, nullptr, nullptr);
}
template <int N>
WPNB_FN void adj_noise(uint32 state, const vec_t<N, float32>& x, uint32&, vec_t<N, float32>& adj_x, const float32& adj_ret) {
    float32 g[N]; noise_eval<N, float32>(state, x.c, nullptr, g, nullptr);
    for (int i = 0; i < N; ++i) adj_x.c[i] += adj_ret * g[i];
}

// pnoise(state, x, px[, py[, pz[, pt]]]): noise that repeats with integer period p along each
// axis (pnoise(x + p) == pnoise(x)). Periods get no gradient.
WPNB_FN float32 pnoise(uint32 state, float32 x, int32 px) { return noise_eval<1, float32>(state, &x, &px, nullptr, nullptr); }
WPNB_FN void adj_pnoise(uint32 state, float32 x, int32 px, uint32&, float32& adj_x, int32&, const float32& adj_ret) {
    float32 g; noise_eval<1, float32>(state, &x, &px, &g, nullptr); adj_x += adj_ret * g;
}
#define WPNB_NOISE_PNOISE(N, PARAMS, ADJ_PARAMS, ...) \
    WPNB_FN float32 pnoise(uint32 state, const vec_t<N, float32>& x, PARAMS) { \
        const int32 per[N] = {__VA_ARGS__}; return noise_eval<N, float32>(state, x.c, per, nullptr, nullptr); } \
    WPNB_FN void adj_pnoise(uint32 state, const vec_t<N, float32>& x, PARAMS, uint32&, vec_t<N, float32>& adj_x, \
                            ADJ_PARAMS, const float32& adj_ret) { \
        const int32 per[N] = {__VA_ARGS__}; float32 g[N]; noise_eval<N, float32>(state, x.c, per, g, nullptr); \
        for (int i = 0; i < N; ++i) adj_x.c[i] += adj_ret * g[i]; }
#define WPNB_NOISE_COMMA ,
WPNB_NOISE_PNOISE(2, int32 px WPNB_NOISE_COMMA int32 py, int32& WPNB_NOISE_COMMA int32&, px, py)
WPNB_NOISE_PNOISE(3, int32 px WPNB_NOISE_COMMA int32 py WPNB_NOISE_COMMA int32 pz,
                  int32& WPNB_NOISE_COMMA int32& WPNB_NOISE_COMMA int32&, px, py, pz)
WPNB_NOISE_PNOISE(4, int32 px WPNB_NOISE_COMMA int32 py WPNB_NOISE_COMMA int32 pz WPNB_NOISE_COMMA int32 pt,
                  int32& WPNB_NOISE_COMMA int32& WPNB_NOISE_COMMA int32& WPNB_NOISE_COMMA int32&, px, py, pz, pt)
#undef WPNB_NOISE_PNOISE
#undef WPNB_NOISE_COMMA

// noise_curl<N, T>(seed, x, octaves, lacunarity, gain, out, jac): Warp's curl noise and (when jac
// is not null) its Jacobian d out_r / d x_k (row-major, R x N). Octave o adds gain^o times the
// curl of its potentials' gradients taken at lacunarity^o x (the gradient with respect to that
// argument, as Warp; still divergence-free). N = 2: one potential, the field `seed` in every
// octave, out = (-dpsi/dy, dpsi/dx). N = 3 or 4: three potentials psi_1..3 with fields s,
// rand_init(s, 10019689), rand_init(that, 13112221), the last one becoming the next octave's s;
// out = (d3/dy - d2/dz, d1/dz - d3/dx, d2/dx - d1/dy) over x, y, z.
template <int N, typename T>
WPNB_FN void noise_curl(uint32 seed, const T* x, uint32 octaves, T lacunarity, T gain, T* out, T* jac) {
    constexpr int R = N == 2 ? 2 : 3, F = N == 2 ? 1 : 3;
    for (int r = 0; r < R; ++r) out[r] = T(0);
    if (jac) for (int i = 0; i < R * N; ++i) jac[i] = T(0);
    // component r = d psi_pa[r] / d x_da[r] - d psi_pb[r] / d x_db[r]
    const int pa[3] = {2, 0, 1}, da[3] = {1, 2, 0}, pb[3] = {1, 2, 0}, db[3] = {2, 0, 1};
    T freq = T(1), amp = T(1);
    uint32 s = seed;
    for (uint32 o = 0; o < octaves; ++o) {
        uint32 fields[3] = {s, s, s};
        if (F == 3) {
            fields[1] = rand_init(int32(fields[0]), 10019689);
            fields[2] = rand_init(int32(fields[1]), 13112221);
            s = fields[2];
        }
        T xs[N], g[3][N], h[3][N * N];
        for (int i = 0; i < N; ++i) xs[i] = x[i] * freq;
        for (int a = 0; a < F; ++a) noise_eval<N, T>(fields[a], xs, nullptr, g[a], jac ? h[a] : nullptr);
        const T jf = amp * freq;  // d/dx of a gradient taken at freq x
        if (N == 2) {
            out[0] -= amp * g[0][1]; out[1] += amp * g[0][0];
            if (jac) for (int k = 0; k < N; ++k) { jac[k] -= jf * h[0][N + k]; jac[N + k] += jf * h[0][k]; }
        } else {
            for (int r = 0; r < 3; ++r) {
                out[r] += amp * (g[pa[r]][da[r]] - g[pb[r]][db[r]]);
                if (jac) for (int k = 0; k < N; ++k) jac[r * N + k] += jf * (h[pa[r]][da[r] * N + k] - h[pb[r]][db[r] * N + k]);
            }
        }
        freq *= lacunarity; amp *= gain;
    }
}

// curlnoise(state, xy | xyz | xyzt, octaves, lacunarity, gain): divergence-free field from the
// derivatives of fractal noise potentials (vec2 for 2D input, vec3 otherwise); octaves = 0
// gives zero. adj_curlnoise adds J^T adj_ret into the coordinates (octaves, lacunarity and
// gain get no gradient).
#define WPNB_NOISE_CURL(N, R) \
    WPNB_FN vec_t<R, float32> curlnoise(uint32 state, const vec_t<N, float32>& x, uint32 octaves, float32 lacunarity, \
                                        float32 gain) { \
        vec_t<R, float32> out; noise_curl<N, float32>(state, x.c, octaves, lacunarity, gain, out.c, nullptr); return out; } \
    WPNB_FN void adj_curlnoise(uint32 state, const vec_t<N, float32>& x, uint32 octaves, float32 lacunarity, float32 gain, \
                               uint32&, vec_t<N, float32>& adj_x, uint32&, float32&, float32&, \
                               const vec_t<R, float32>& adj_ret) { \
        float32 out[R], jac[R * N]; noise_curl<N, float32>(state, x.c, octaves, lacunarity, gain, out, jac); \
        for (int k = 0; k < N; ++k) for (int r = 0; r < R; ++r) adj_x.c[k] += jac[r * N + k] * adj_ret.c[r]; } \
    /* Warp's defaults: one octave, lacunarity 2, gain 0.5 */ \
    WPNB_FN vec_t<R, float32> curlnoise(uint32 state, const vec_t<N, float32>& x) { \
        return curlnoise(state, x, 1u, 2.0f, 0.5f); } \
    WPNB_FN void adj_curlnoise(uint32 state, const vec_t<N, float32>& x, uint32& adj_state, vec_t<N, float32>& adj_x, \
                               const vec_t<R, float32>& adj_ret) { \
        uint32 ao = 0; float32 al = 0.0f, ag = 0.0f; \
        adj_curlnoise(state, x, 1u, 2.0f, 0.5f, adj_state, adj_x, ao, al, ag, adj_ret); }
WPNB_NOISE_CURL(2, 2)
WPNB_NOISE_CURL(3, 3)
WPNB_NOISE_CURL(4, 3)
#undef WPNB_NOISE_CURL

}  // namespace wpnb
