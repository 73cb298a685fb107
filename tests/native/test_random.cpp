// Tests for native/core/random.h, native/core/random_sample.h and native/core/noise.h: determinism, distinct streams per
// seed and offset, ranges, means and variances within 5-6 standard errors, chi-square
// goodness of fit for integers and Poisson counts, the geometry of the shape samplers, and
// noise gradients / Hessians / curl Jacobians against central differences in float64.
// Exit status 0 when everything passes; prints each failure.
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <algorithm>
#include <vector>

#include "core/random.h"
#if __has_include("core/vec.h")
#include "core/random_sample.h"
#include "core/noise.h"
#define HAVE_SAMPLERS 1
#endif

using namespace wpnb;
static int g_fail = 0, g_checks = 0;
#define CHECK(cond, ...) do { ++g_checks; if (!(cond)) { ++g_fail; \
    std::printf("FAIL %s:%d: ", __FILE__, __LINE__); std::printf(__VA_ARGS__); std::printf("\n"); } } while (0)

static const int N = 200000;

// Mean and (population) variance of a sample.
struct Stats { double mean = 0, var = 0, lo = 1e300, hi = -1e300; };
template <typename F> static Stats stats(F draw, int n = N) {
    double s = 0, s2 = 0; Stats r;
    for (int i = 0; i < n; ++i) {
        const double x = draw();
        s += x; s2 += x * x; r.lo = std::min(r.lo, x); r.hi = std::max(r.hi, x);
    }
    r.mean = s / n; r.var = s2 / n - r.mean * r.mean;
    return r;
}
// |mean - mu| within k standard errors for a distribution of variance sigma2.
static bool mean_ok(const Stats& s, double mu, double sigma2, int n = N, double k = 5.0) {
    return std::fabs(s.mean - mu) <= k * std::sqrt(sigma2 / n);
}

static void test_streams() {
    uint32 a = rand_init(42), b = rand_init(42), c = rand_init(43), d = rand_init(42, 1);
    CHECK(a == b && rand_init(42, 0) == rand_init(42, 0), "rand_init is deterministic");
    CHECK(a != c && a != d && c != d, "different seeds / offsets give different states");
    bool same = true, differ_seed = false, differ_offset = false;
    for (int i = 0; i < 100; ++i) {
        const uint32 x = randu(a), y = randu(b), z = randu(c), w = randu(d);
        same = same && x == y; differ_seed = differ_seed || x != z; differ_offset = differ_offset || x != w;
    }
    CHECK(same && differ_seed && differ_offset, "same state -> same stream; other seed/offset -> other stream");

    // 4096 neighbouring offsets x 64 draws: shifted copies of one stream would repeat values
    // massively; independent streams give ~ n^2 / 2^33 = 8 chance collisions.
    std::vector<uint32> all;
    for (int t = 0; t < 4096; ++t) {
        uint32 s = rand_init(7, t);
        for (int k = 0; k < 64; ++k) all.push_back(randu(s));
    }
    std::sort(all.begin(), all.end());
    int dup = 0;
    for (size_t i = 1; i < all.size(); ++i) dup += all[i] == all[i - 1];
    CHECK(dup < 40, "streams of neighbouring offsets overlap: %d repeated values", dup);

    // correlation between draw n of offset t and draw n of offset t + 1, and between
    // consecutive draws of one stream
    double sxy = 0, sx = 0, sy = 0, sxx = 0, syy = 0, cxy = 0;
    uint32 one = rand_init(99);
    float32 prev = randf(one);
    for (int t = 0; t < N; ++t) {
        uint32 s0 = rand_init(3, t), s1 = rand_init(3, t + 1);
        const double x = randf(s0), y = randf(s1);
        sxy += x * y; sx += x; sy += y; sxx += x * x; syy += y * y;
        const float32 cur = randf(one);
        cxy += (prev - 0.5) * (cur - 0.5); prev = cur;
    }
    const double cov = sxy / N - (sx / N) * (sy / N);
    const double r = cov / std::sqrt((sxx / N - sx * sx / N / N) * (syy / N - sy * sy / N / N));
    CHECK(std::fabs(r) < 5.0 / std::sqrt(double(N)), "offsets t and t+1 correlate: r = %g", r);
    const double r1 = (cxy / N) * 12.0;
    CHECK(std::fabs(r1) < 5.0 / std::sqrt(double(N)), "consecutive draws correlate: r = %g", r1);

    // every input bit of the hash reaches every output bit. The PCG hash (Warp's) is not a full-avalanche
    // mixer (some bit pairs flip 42% or 58% of the time), so this guards against a broken hash, where
    // a pair would flip never or always (bias 0.5), not against that known bias.
    static int flips[32][32];
    uint32 src = rand_init(12345);
    const int M = 20000;
    for (int i = 0; i < M; ++i) {
        const uint32 x = randu(src), hx = rng_hash(x);
        for (int bi = 0; bi < 32; ++bi) {
            const uint32 diff = hx ^ rng_hash(x ^ (1u << bi));
            for (int bo = 0; bo < 32; ++bo) flips[bi][bo] += (diff >> bo) & 1u;
        }
    }
    double worst = 0;
    for (int bi = 0; bi < 32; ++bi)
        for (int bo = 0; bo < 32; ++bo) worst = std::max(worst, std::fabs(flips[bi][bo] / double(M) - 0.5));
    CHECK(worst < 0.25, "rng_hash avalanche: worst bit-flip bias %g", worst);

    // every output bit is set half of the time
    uint32 s = rand_init(1);
    int ones[32] = {0};
    for (int i = 0; i < N; ++i) { const uint32 x = randu(s); for (int bit = 0; bit < 32; ++bit) ones[bit] += (x >> bit) & 1u; }
    for (int bit = 0; bit < 32; ++bit)
        CHECK(std::fabs(ones[bit] / double(N) - 0.5) < 5.0 * 0.5 / std::sqrt(double(N)), "bit %d set with frequency %g",
              bit, ones[bit] / double(N));
}

static void test_uniform() {
    uint32 s = rand_init(2024, 5);
    Stats f = stats([&] { return double(randf(s)); });
    CHECK(f.lo >= 0.0 && f.hi < 1.0, "randf outside [0, 1): [%g, %g]", f.lo, f.hi);
    CHECK(mean_ok(f, 0.5, 1.0 / 12.0) && std::fabs(f.var - 1.0 / 12.0) < 0.002, "randf mean %g var %g", f.mean, f.var);
    Stats g = stats([&] { return double(randf(s, -3.0f, 5.0f)); });
    CHECK(g.lo >= -3.0 && g.hi < 5.0 && mean_ok(g, 1.0, 64.0 / 12.0), "randf(-3, 5): [%g, %g] mean %g", g.lo, g.hi, g.mean);
    Stats u = stats([&] { return double(randu(s)); });
    CHECK(mean_ok(u, 2147483647.5, 4294967296.0 * 4294967296.0 / 12.0), "randu mean %g", u.mean);
    Stats i = stats([&] { return double(randi(s)); });
    CHECK(i.lo < -2.0e9 && i.hi > 2.0e9 && mean_ok(i, -0.5, 4294967296.0 * 4294967296.0 / 12.0), "randi full range mean %g", i.mean);

    // randi(lo, hi): every value of [-3, 4) equally often (chi-square, 6 dof, p ~ 1e-6 at 35)
    int counts[7] = {0}, bad = 0;
    for (int k = 0; k < N; ++k) { const int32 x = randi(s, -3, 4); if (x < -3 || x >= 4) ++bad; else ++counts[x + 3]; }
    double chi2 = 0; for (int c : counts) chi2 += (c - N / 7.0) * (c - N / 7.0) / (N / 7.0);
    CHECK(bad == 0 && chi2 < 35.0, "randi(-3, 4): %d out of range, chi2 = %g", bad, chi2);
    int ucounts[5] = {0}; bad = 0;
    for (int k = 0; k < N; ++k) { const uint32 x = randu(s, 10u, 15u); if (x < 10u || x >= 15u) ++bad; else ++ucounts[x - 10u]; }
    chi2 = 0; for (int c : ucounts) chi2 += (c - N / 5.0) * (c - N / 5.0) / (N / 5.0);
    CHECK(bad == 0 && chi2 < 30.0, "randu(10, 15): %d out of range, chi2 = %g", bad, chi2);
    bool wide_ok = true;
    for (int k = 0; k < 1000; ++k) {
        const int32 x = randi(s, -2147483647 - 1, 2147483647);
        wide_ok = wide_ok && x != 2147483647;
    }
    CHECK(wide_ok, "randi over the widest range returned hi");
    CHECK(randi(s, 5, 5) == 5 && randi(s, 7, 3) == 7 && randu(s, 9u, 9u) == 9u, "empty ranges return lo");
    uint32 t0 = rand_init(5), t1 = t0; randi(t1, 5, 5);
    CHECK(t1 != t0, "a draw on an empty range still advances the state");
}

static void test_normal() {
    uint32 s = rand_init(77, 3);
    double s1 = 0, s2 = 0, s4 = 0; int within1 = 0, bad = 0;
    for (int i = 0; i < N; ++i) {
        const double x = randn(s);
        if (!std::isfinite(x)) ++bad;
        s1 += x; s2 += x * x; s4 += x * x * x * x; within1 += std::fabs(x) < 1.0;
    }
    const double mean = s1 / N, var = s2 / N - mean * mean, kurt = (s4 / N) / (var * var);
    CHECK(bad == 0, "randn produced %d non-finite values", bad);
    CHECK(std::fabs(mean) < 5.0 / std::sqrt(double(N)), "randn mean %g", mean);
    CHECK(std::fabs(var - 1.0) < 5.0 * std::sqrt(2.0 / N), "randn variance %g", var);
    CHECK(std::fabs(kurt - 3.0) < 0.1, "randn kurtosis %g", kurt);
    CHECK(std::fabs(within1 / double(N) - 0.682689492) < 0.005, "randn P(|x| < 1) = %g", within1 / double(N));
}

static void test_poisson() {
    uint32 s = rand_init(555);
    const uint32 before = s;
    CHECK(poisson(s, 0.0f) == 0u && poisson(s, -1.0f) == 0u && s == before, "poisson(0) = 0 without consuming a draw");
    const float lams[] = {0.05f, 0.5f, 3.5f, 11.9f, 12.0f, 30.0f, 250.0f, 1e5f};
    for (float lam : lams) {
        const int n = 100000;
        Stats p = stats([&] { return double(poisson(s, lam)); }, n);
        CHECK(mean_ok(p, lam, lam, n, 5.0), "poisson(%g) mean %g", lam, p.mean);
        CHECK(std::fabs(p.var / lam - 1.0) < 6.0 * std::sqrt(2.0 / n) + 3.0 / (lam * n) + 0.01 * (lam < 1),
              "poisson(%g) variance %g", lam, p.var);
    }
    // chi-square against the pmf for one lam on each branch (bins with expected count >= 20)
    const float fit_lams[] = {3.5f, 30.0f};
    for (float lam : fit_lams) {
        const int n = 200000, K = 120;
        std::vector<int> hist(K + 1, 0);
        for (int i = 0; i < n; ++i) { const uint32 k = poisson(s, lam); ++hist[k < uint32(K) ? k : K]; }
        double chi2 = 0; int dof = -1;
        double acc_obs = 0, acc_exp = 0;
        for (int k = 0; k < K; ++k) {
            const double pk = std::exp(-lam + k * std::log(double(lam)) - std::lgamma(k + 1.0));
            acc_obs += hist[k]; acc_exp += n * pk;
            if (acc_exp >= 20.0) { chi2 += (acc_obs - acc_exp) * (acc_obs - acc_exp) / acc_exp; ++dof; acc_obs = acc_exp = 0; }
        }
        const double limit = dof + 6.0 * std::sqrt(2.0 * dof);
        CHECK(chi2 < limit, "poisson(%g) chi2 %g over %d dof (limit %g)", lam, chi2, dof, limit);
    }
}

#ifdef HAVE_SAMPLERS
template <int D, typename F> static void sampler_moments(const char* name, F sample, double mean_sq_norm, int axis,
                                                         double axis_mean, double max_norm, double min_norm) {
    uint32 s = rand_init(31337, D);
    double sum[3] = {0, 0, 0}, sq = 0; int bad = 0;
    for (int i = 0; i < N; ++i) {
        auto p = sample(s);
        double n2 = 0;
        for (int k = 0; k < D; ++k) { sum[k] += p.c[k]; n2 += double(p.c[k]) * p.c[k]; }
        sq += n2;
        const double nn = std::sqrt(n2);
        if (nn > max_norm + 1e-6 || nn < min_norm - 1e-6) ++bad;
    }
    CHECK(bad == 0, "%s: %d samples outside the shape", name, bad);
    CHECK(std::fabs(sq / N - mean_sq_norm) < 0.01, "%s: mean squared norm %g want %g", name, sq / N, mean_sq_norm);
    for (int k = 0; k < D; ++k) {
        const double want = k == axis ? axis_mean : 0.0;
        CHECK(std::fabs(sum[k] / N - want) < 5.0 / std::sqrt(double(N)), "%s: mean of component %d = %g want %g", name, k,
              sum[k] / N, want);
    }
}

static void test_samplers() {
    sampler_moments<2>("sample_unit_ring", [](uint32& s) { return sample_unit_ring(s); }, 1.0, -1, 0.0, 1.0, 1.0);
    sampler_moments<2>("sample_unit_disk", [](uint32& s) { return sample_unit_disk(s); }, 0.5, -1, 0.0, 1.0, 0.0);
    sampler_moments<2>("sample_unit_square", [](uint32& s) { return sample_unit_square(s); }, 2.0 / 12.0, -1, 0.0, 0.7072, 0.0);
    sampler_moments<3>("sample_unit_cube", [](uint32& s) { return sample_unit_cube(s); }, 3.0 / 12.0, -1, 0.0, 0.8661, 0.0);
    sampler_moments<3>("sample_unit_sphere_surface", [](uint32& s) { return sample_unit_sphere_surface(s); }, 1.0, -1, 0.0, 1.0, 1.0);
    sampler_moments<3>("sample_unit_sphere", [](uint32& s) { return sample_unit_sphere(s); }, 0.6, -1, 0.0, 1.0, 0.0);
    sampler_moments<3>("sample_unit_hemisphere_surface", [](uint32& s) { return sample_unit_hemisphere_surface(s); }, 1.0, 2, 0.5, 1.0, 1.0);
    sampler_moments<3>("sample_unit_hemisphere", [](uint32& s) { return sample_unit_hemisphere(s); }, 0.6, 2, 0.375, 1.0, 0.0);

    uint32 s = rand_init(8);
    int bad = 0, neg_z = 0; double su = 0, sv = 0, suv = 0, sz2 = 0;
    for (int i = 0; i < N; ++i) {
        const auto b = sample_triangle(s);
        if (b.c[0] < 0 || b.c[1] < 0 || b.c[0] + b.c[1] > 1.0f) ++bad;
        su += b.c[0]; sv += b.c[1]; suv += b.c[0] * b.c[1];
        const auto h = sample_unit_hemisphere(s);
        neg_z += h.c[2] < 0.0f;
        const auto p = sample_unit_sphere_surface(s);
        sz2 += double(p.c[2]) * p.c[2];
        const auto q = sample_unit_square(s);
        if (q.c[0] < -0.5f || q.c[0] >= 0.5f || q.c[1] < -0.5f || q.c[1] >= 0.5f) ++bad;
    }
    CHECK(bad == 0, "sample_triangle / sample_unit_square out of range: %d", bad);
    CHECK(std::fabs(su / N - 1.0 / 3.0) < 0.003 && std::fabs(sv / N - 1.0 / 3.0) < 0.003 &&
          std::fabs(suv / N - 1.0 / 12.0) < 0.002, "sample_triangle moments E[u]=%g E[v]=%g E[uv]=%g", su / N, sv / N, suv / N);
    CHECK(neg_z == 0, "sample_unit_hemisphere gave %d points with z < 0", neg_z);
    CHECK(std::fabs(sz2 / N - 1.0 / 3.0) < 0.004, "sample_unit_sphere_surface E[z^2] = %g", sz2 / N);
}

// Central-difference gradient of noise_eval<N, double> (value or one gradient component).
template <int N> static double noise_at(uint32 seed, const double* x, const int32* per, int comp) {
    double g[N];
    const double v = noise_eval<N, double>(seed, x, per, g, nullptr);
    return comp < 0 ? v : g[comp];
}

template <int N> static void test_noise_dim() {
    uint32 r = rand_init(600 + N);
    const int32 per[4] = {3, 4, 5, 2};
    int bad_grad = 0, bad_hess = 0, bad_zero = 0, bad_period = 0, bad_f32 = 0;
    double worst_g = 0, worst_h = 0;
    for (int trial = 0; trial < 200; ++trial) {
        const uint32 seed = randu(r);
        const int32* pp = (trial & 1) ? per : nullptr;
        double x[N];
        for (int i = 0; i < N; ++i) x[i] = double(randf(r, -20.0f, 20.0f));
        double g[N], h[N * N];
        noise_eval<N, double>(seed, x, pp, g, h);
        for (int j = 0; j < N; ++j) {
            double xp[N], xm[N];
            for (int i = 0; i < N; ++i) xp[i] = xm[i] = x[i];
            const double e = 1e-6;
            xp[j] += e; xm[j] -= e;
            const double fd = (noise_at<N>(seed, xp, pp, -1) - noise_at<N>(seed, xm, pp, -1)) / (2 * e);
            worst_g = std::max(worst_g, std::fabs(fd - g[j]));
            bad_grad += std::fabs(fd - g[j]) > 1e-7;
            for (int k = 0; k < N; ++k) {
                const double fdh = (noise_at<N>(seed, xp, pp, k) - noise_at<N>(seed, xm, pp, k)) / (2 * e);
                worst_h = std::max(worst_h, std::fabs(fdh - h[k * N + j]));
                bad_hess += std::fabs(fdh - h[k * N + j]) > 1e-5 || std::fabs(h[j * N + k] - h[k * N + j]) > 1e-12;
            }
        }
        // lattice points are zeros; periodic fields repeat after one period along each axis
        double lat[N], shifted[N];
        // (shifted away from 0: Warp wraps lattice coordinates with C's remainder, periodic on each side of 0)
        for (int i = 0; i < N; ++i) { lat[i] = std::floor(x[i]); shifted[i] = x[i] + per[i] * (1 + trial % 3) * (x[i] < 0 ? -1 : 1); }
        bad_zero += std::fabs(noise_eval<N, double>(seed, lat, pp, nullptr, nullptr)) > 1e-12;
        bad_period += std::fabs(noise_eval<N, double>(seed, shifted, per, nullptr, nullptr) -
                                noise_eval<N, double>(seed, x, per, nullptr, nullptr)) > 1e-9;
        // float32 builtins and adjoints agree with the float64 core
        float32 xf[N]; double xd[N], gd[N];
        for (int i = 0; i < N; ++i) { xf[i] = float32(x[i]); xd[i] = xf[i]; }
        const double vd = noise_eval<N, double>(seed, xd, nullptr, gd, nullptr);
        const double vpd = noise_eval<N, double>(seed, xd, per, nullptr, nullptr);
        float32 v, vp, adj[N];
        for (int i = 0; i < N; ++i) adj[i] = 0.5f;
        if constexpr (N == 1) {
            v = noise(seed, xf[0]); vp = pnoise(seed, xf[0], per[0]);
            uint32 as = 0; adj_noise(seed, xf[0], as, adj[0], 2.0f);
        } else {
            vec_t<N, float32> xv, av;
            for (int i = 0; i < N; ++i) { xv.c[i] = xf[i]; av.c[i] = 0.5f; }
            v = noise(seed, xv);
            if constexpr (N == 2) vp = pnoise(seed, xv, per[0], per[1]);
            if constexpr (N == 3) vp = pnoise(seed, xv, per[0], per[1], per[2]);
            if constexpr (N == 4) vp = pnoise(seed, xv, per[0], per[1], per[2], per[3]);
            uint32 as = 0; adj_noise(seed, xv, as, av, 2.0f);
            for (int i = 0; i < N; ++i) adj[i] = av.c[i];
        }
        bad_f32 += std::fabs(v - vd) > 1e-5 || std::fabs(vp - vpd) > 1e-5;
        for (int i = 0; i < N; ++i) bad_f32 += std::fabs(adj[i] - (0.5 + 2.0 * gd[i])) > 1e-4;
    }
    CHECK(bad_grad == 0, "noise %dD gradient vs central difference: %d bad (worst %g)", N, bad_grad, worst_g);
    CHECK(bad_hess == 0, "noise %dD Hessian vs central difference: %d bad (worst %g)", N, bad_hess, worst_h);
    CHECK(bad_zero == 0 && bad_period == 0, "noise %dD: %d nonzero lattice values, %d broken periods", N, bad_zero, bad_period);
    CHECK(bad_f32 == 0, "noise %dD float32 builtins / adjoints disagree with float64 in %d cases", N, bad_f32);

    // centred on zero, bounded, and different states give different fields
    uint32 s2 = rand_init(4);
    double sum = 0, mx = 0; int same = 0;
    for (int i = 0; i < 20000; ++i) {
        double y[N];
        for (int k = 0; k < N; ++k) y[k] = double(randf(s2, -100.0f, 100.0f));
        const double a = noise_eval<N, double>(11u, y, nullptr, nullptr, nullptr);
        same += a == noise_eval<N, double>(12u, y, nullptr, nullptr, nullptr);
        sum += a; mx = std::max(mx, std::fabs(a));
    }
    CHECK(std::fabs(sum / 20000) < 0.02 && mx < 1.0 && mx > 0.2 && same < 20,
          "noise %dD: mean %g, max |value| %g, %d equal values for two states", N, sum / 20000, mx, same);
}

template <int N, int R> static void test_curl_dim() {
    uint32 r = rand_init(700 + N);
    int bad = 0, bad_div = 0, bad_f32 = 0;
    double worst = 0, worst_div = 0;
    for (int trial = 0; trial < 100; ++trial) {
        const uint32 seed = randu(r);
        const uint32 oct = 1 + trial % 3;
        double x[N];
        for (int i = 0; i < N; ++i) x[i] = double(randf(r, -5.0f, 5.0f));
        double out[R], jac[R * N];
        noise_curl<N, double>(seed, x, oct, 2.0, 0.5, out, jac);
        double div = 0;
        for (int k = 0; k < N; ++k) {
            double xp[N], xm[N], op[R], om[R];
            for (int i = 0; i < N; ++i) xp[i] = xm[i] = x[i];
            xp[k] += 1e-6; xm[k] -= 1e-6;
            noise_curl<N, double>(seed, xp, oct, 2.0, 0.5, op, nullptr);
            noise_curl<N, double>(seed, xm, oct, 2.0, 0.5, om, nullptr);
            for (int q = 0; q < R; ++q) {
                const double fd = (op[q] - om[q]) / 2e-6;
                worst = std::max(worst, std::fabs(fd - jac[q * N + k]));
                bad += std::fabs(fd - jac[q * N + k]) > 1e-5 * (1 + std::fabs(fd));
            }
            if (k < R) div += jac[k * N + k];
        }
        worst_div = std::max(worst_div, std::fabs(div));
        bad_div += std::fabs(div) > 1e-9;
        vec_t<N, float32> xv, ax; vec_t<R, float32> w;
        for (int i = 0; i < N; ++i) xv.c[i] = float32(x[i]);
        for (int q = 0; q < R; ++q) w.c[q] = float32(q + 1);
        const vec_t<R, float32> cv = curlnoise(seed, xv, oct, 2.0f, 0.5f);
        double xd[N], od[R], jd[R * N];
        for (int i = 0; i < N; ++i) xd[i] = xv.c[i];
        noise_curl<N, double>(seed, xd, oct, 2.0, 0.5, od, jd);
        uint32 as = 0, ao = 0; float32 al = 0, ag = 0;
        adj_curlnoise(seed, xv, oct, 2.0f, 0.5f, as, ax, ao, al, ag, w);
        for (int q = 0; q < R; ++q) bad_f32 += std::fabs(cv.c[q] - od[q]) > 1e-4 * (1 + std::fabs(od[q]));
        for (int k = 0; k < N; ++k) {
            double want = 0;
            for (int q = 0; q < R; ++q) want += jd[q * N + k] * (q + 1);
            bad_f32 += std::fabs(ax.c[k] - want) > 1e-3 * (1 + std::fabs(want));
        }
    }
    CHECK(bad == 0, "curlnoise %dD Jacobian vs central difference: %d bad (worst %g)", N, bad, worst);
    CHECK(bad_div == 0, "curlnoise %dD divergence not zero: worst %g", N, worst_div);
    CHECK(bad_f32 == 0, "curlnoise %dD float32 value / adjoint disagree with float64 in %d cases", N, bad_f32);
    vec_t<N, float32> x0; x0.c[0] = 0.3f;
    const vec_t<R, float32> z = curlnoise(5u, x0, 0u, 2.0f, 0.5f);
    bool zero = true; for (int q = 0; q < R; ++q) zero = zero && z.c[q] == 0.0f;
    CHECK(zero, "curlnoise with 0 octaves is not zero");
}

static void test_noise() {
    test_noise_dim<1>(); test_noise_dim<2>(); test_noise_dim<3>(); test_noise_dim<4>();
    test_curl_dim<2, 2>(); test_curl_dim<3, 3>(); test_curl_dim<4, 3>();
    uint32 s = rand_init(1), before = s;
    (void)noise(s, 0.5f); (void)noise(s, vec_t<3, float32>(0.1f, 0.2f, 0.3f));
    CHECK(s == before, "noise must not advance the state");
}
#endif

int main() {
    test_streams();
    test_uniform();
    test_normal();
    test_poisson();
#ifdef HAVE_SAMPLERS
    test_samplers();
    test_noise();
#else
    std::printf("note: vec.h not found, shape samplers and noise not tested\n");
#endif
    std::printf("test_random: %d checks, %d failures\n", g_checks, g_fail);
    return g_fail == 0 ? 0 : 1;
}
