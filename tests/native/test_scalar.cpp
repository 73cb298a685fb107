// Tests for native/core/scalar.h: values against the C library and independent formulas, every
// adjoint against central differences in float64, Warp's integer semantics, subgradient
// choices, half round trips. Exit status 0 when everything passes; prints each failure.
// System headers come first: prelude.h declares some C functions without noexcept.
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/scalar.h"

using wpnb::half;
static int g_fail = 0, g_checks = 0;
#define CHECK(cond, ...) do { ++g_checks; if (!(cond)) { ++g_fail; \
    std::printf("FAIL %s:%d: ", __FILE__, __LINE__); std::printf(__VA_ARGS__); std::printf("\n"); } } while (0)

static bool near(double a, double b, double rtol, double atol) {
    if (std::isnan(a) && std::isnan(b)) return true;
    if (std::isinf(a) || std::isinf(b)) return a == b;
    return std::fabs(a - b) <= atol + rtol * std::fabs(b);
}

// ------------------------------------------------------------------ unary float builtins
typedef float (*F32)(float);
typedef double (*F64)(double);
typedef double (*Ref)(double);
typedef void (*A64)(double, double&, const double&);
typedef void (*A32)(float, float&, const float&);
typedef half (*F16)(half);
typedef void (*A16)(half, half&, const half&);
struct Unary { const char* name; F32 f32; F64 f64; Ref ref; A64 a64; A32 a32; F16 f16; A16 a16; double pts[6]; };

static double ref_frac(double x) { return x - std::trunc(x); }
static double ref_degrees(double x) { return x * 180.0 / M_PI; }
static double ref_radians(double x) { return x * M_PI / 180.0; }

#define UN(NAME, REF, ...) { #NAME, [](float x) { return wpnb::NAME(x); }, [](double x) { return wpnb::NAME(x); }, \
    [](double x) { return double(REF(x)); }, \
    [](double x, double& a, const double& r) { wpnb::adj_##NAME(x, a, r); }, \
    [](float x, float& a, const float& r) { wpnb::adj_##NAME(x, a, r); }, \
    [](half x) { return wpnb::NAME(x); }, \
    [](half x, half& a, const half& r) { wpnb::adj_##NAME(x, a, r); }, {__VA_ARGS__} }

// Points avoid kinks and integer/half-integer boundaries of the rounding functions.
static const Unary kUnary[] = {
    UN(sqrt, std::sqrt, 0.3, 1.7, 4.2, 9.9, 0.05, 2.5),
    UN(cbrt, std::cbrt, -2.7, -0.4, 0.3, 1.9, 8.3, 27.1),
    UN(exp, std::exp, -3.1, -0.7, 0.2, 1.3, 2.9, 4.4),
    UN(log, std::log, 0.1, 0.6, 1.3, 2.9, 7.7, 40.0),
    UN(log2, std::log2, 0.1, 0.6, 1.3, 2.9, 7.7, 40.0),
    UN(log10, std::log10, 0.1, 0.6, 1.3, 2.9, 7.7, 40.0),
    UN(sin, std::sin, -2.9, -1.1, 0.3, 1.2, 2.2, 5.5),
    UN(cos, std::cos, -2.9, -1.1, 0.3, 1.2, 2.2, 5.5),
    UN(tan, std::tan, -1.3, -0.6, 0.1, 0.7, 1.2, 2.0),
    UN(asin, std::asin, -0.95, -0.5, -0.1, 0.2, 0.6, 0.9),
    UN(acos, std::acos, -0.95, -0.5, -0.1, 0.2, 0.6, 0.9),
    UN(atan, std::atan, -5.0, -1.1, -0.2, 0.3, 1.4, 9.0),
    UN(sinh, std::sinh, -3.0, -1.1, -0.2, 0.3, 1.4, 2.5),
    UN(cosh, std::cosh, -3.0, -1.1, -0.2, 0.3, 1.4, 2.5),
    UN(tanh, std::tanh, -3.0, -1.1, -0.2, 0.3, 1.4, 2.5),
    UN(erf, std::erf, -2.2, -0.9, -0.2, 0.3, 1.1, 1.9),
    UN(floor, std::floor, -2.7, -1.2, -0.3, 0.4, 1.7, 3.2),
    UN(ceil, std::ceil, -2.7, -1.2, -0.3, 0.4, 1.7, 3.2),
    UN(trunc, std::trunc, -2.7, -1.2, -0.3, 0.4, 1.7, 3.2),
    UN(round, std::round, -2.7, -1.2, -0.3, 0.4, 1.7, 3.2),
    UN(rint, std::rint, -2.7, -1.2, -0.3, 0.4, 1.7, 3.2),
    UN(frac, ref_frac, -2.7, -1.2, -0.3, 0.4, 1.7, 3.2),
    UN(abs, std::fabs, -2.7, -1.2, -0.3, 0.4, 1.7, 3.2),
    UN(neg, -, -2.7, -1.2, -0.3, 0.4, 1.7, 3.2),
    UN(pos, +, -2.7, -1.2, -0.3, 0.4, 1.7, 3.2),
    UN(degrees, ref_degrees, -2.7, -1.2, -0.3, 0.4, 1.7, 3.2),
    UN(radians, ref_radians, -200.0, -45.0, -1.0, 10.0, 90.0, 300.0),
};

static void test_unary() {
    for (const Unary& u : kUnary) {
        for (double x : u.pts) {
            const double ref = u.ref(x);
            CHECK(near(u.f64(x), ref, 1e-15, 1e-300), "%s(%g) float64: got %.17g want %.17g", u.name, x, u.f64(x), ref);
            const float xf = float(x);
            const double ref32 = u.ref(double(xf));
            CHECK(near(u.f32(xf), ref32, 2e-6, 1e-6), "%s(%g) float32: got %.9g want %.9g", u.name, x, u.f32(xf), ref32);
            const half xh(xf);
            const double ref16 = u.ref(double(float(xh)));
            const double got16 = float(u.f16(xh));
            CHECK(near(got16, ref16, 1.5e-3, 1e-4), "%s(%g) half: got %.6g want %.6g", u.name, x, got16, ref16);

            // adjoint vs central difference (float64), and accumulation with +=
            const double h = 1e-6 * (std::fabs(x) > 1.0 ? std::fabs(x) : 1.0);
            const double fd = (u.f64(x + h) - u.f64(x - h)) / (2 * h);
            double adj = 0.25;
            u.a64(x, adj, 2.0);
            const double an = (adj - 0.25) / 2.0;
            CHECK(near(an, fd, 1e-6, 1e-7), "adj_%s(%g) float64: got %.12g, central difference %.12g", u.name, x, an, fd);
            float adjf = 0.0f;
            u.a32(xf, adjf, 1.0f);
            double d32 = (u.f64(double(xf) + h) - u.f64(double(xf) - h)) / (2 * h);
            CHECK(near(adjf, d32, 1e-4, 1e-5), "adj_%s(%g) float32: got %.9g want %.9g", u.name, x, adjf, d32);
            half adjh(0.5f);
            u.a16(xh, adjh, half(1.0f));
            double d16 = (u.f64(double(float(xh)) + h) - u.f64(double(float(xh)) - h)) / (2 * h) + 0.5;
            CHECK(near(float(adjh), d16, 2e-3, 2e-3), "adj_%s(%g) half: got %.6g want %.6g", u.name, x, double(float(adjh)), d16);
        }
    }
}

// ------------------------------------------------------------ binary / ternary builtins
typedef double (*B64)(double, double);
typedef void (*BA64)(double, double, double&, double&, const double&);
struct Binary { const char* name; B64 f; BA64 adj; double pts[4][2]; };
#define BI(NAME, ...) { #NAME, [](double a, double b) { return wpnb::NAME(a, b); }, \
    [](double a, double b, double& aa, double& ab, const double& r) { wpnb::adj_##NAME(a, b, aa, ab, r); }, {__VA_ARGS__} }
static const Binary kBinary[] = {
    BI(add, {1.5, -2.25}, {0.1, 0.7}, {-3.0, 4.0}, {10.0, 0.001}),
    BI(sub, {1.5, -2.25}, {0.1, 0.7}, {-3.0, 4.0}, {10.0, 0.001}),
    BI(mul, {1.5, -2.25}, {0.1, 0.7}, {-3.0, 4.0}, {10.0, 0.001}),
    BI(div, {1.5, -2.25}, {0.1, 0.7}, {-3.0, 4.0}, {10.0, 0.3}),
    BI(mod, {1.3, 2.0}, {-1.3, 2.0}, {1.1, -1.5}, {0.4, 0.9}),  // |a| < |b|: d/db = 0 is also the true value
    BI(floordiv, {5.3, 2.0}, {-5.3, 2.0}, {7.1, -1.5}, {0.4, 0.9}),
    BI(pow, {1.5, 2.3}, {0.7, -1.2}, {3.0, 0.5}, {0.2, 3.0}),
    BI(atan2, {1.5, 2.3}, {-0.7, -1.2}, {3.0, -0.5}, {-2.0, 3.0}),
    BI(min, {1.5, 2.3}, {-0.7, -1.2}, {3.0, -0.5}, {-2.0, 3.0}),
    BI(max, {1.5, 2.3}, {-0.7, -1.2}, {3.0, -0.5}, {-2.0, 3.0}),
};

static void test_binary() {
    for (const Binary& b : kBinary) {
        for (const auto& p : b.pts) {
            const double x = p[0], y = p[1];
            const double h = 1e-6;
            const double fdx = (b.f(x + h, y) - b.f(x - h, y)) / (2 * h);
            const double fdy = (b.f(x, y + h) - b.f(x, y - h)) / (2 * h);
            double ax = 1.0, ay = -1.0;
            b.adj(x, y, ax, ay, 0.5);
            CHECK(near((ax - 1.0) / 0.5, fdx, 1e-6, 1e-7) && near((ay + 1.0) / 0.5, fdy, 1e-6, 1e-7),
                  "adj_%s(%g, %g): got (%.10g, %.10g), central difference (%.10g, %.10g)", b.name, x, y,
                  (ax - 1.0) / 0.5, (ay + 1.0) / 0.5, fdx, fdy);
        }
    }
    // values of the float binary builtins against the C library
    CHECK(wpnb::pow(1.5, 2.3) == std::pow(1.5, 2.3) && wpnb::pow(2.0f, 0.5f) == std::pow(2.0f, 0.5f), "pow value");
    CHECK(wpnb::atan2(-0.7, -1.2) == std::atan2(-0.7, -1.2), "atan2 value");
    CHECK(wpnb::mod(-5.5, 2.0) == -1.5 && wpnb::mod(5.5f, -2.0f) == 1.5f, "float mod takes the sign of a");
    {
        double ga = 0.0, gb = 0.0;
        wpnb::adj_mod(5.3, 2.0, ga, gb, 1.0);
        CHECK(ga == 1.0 && gb == 0.0, "adj_mod: d/da = 1, d/db = 0 (Warp's choice) at |a| > |b|");
    }
    CHECK(wpnb::floordiv(-5.5, 2.0) == -3.0 && wpnb::floordiv(5.5f, 2.0f) == 2.0f, "float floordiv");
    CHECK(std::isinf(wpnb::div(1.0f, 0.0f)) && std::isnan(wpnb::mod(1.0, 0.0)), "float division by zero is IEEE");
    CHECK(float(wpnb::add(half(1.5f), half(2.25f))) == 3.75f && float(wpnb::mul(half(3.0f), half(-0.5f))) == -1.5f,
          "half arithmetic");
    CHECK(float(wpnb::div(half(1.0f), half(3.0f))) == float(half(1.0f / 3.0f)), "half division rounds once");
    CHECK(float(wpnb::mod(half(-5.5f), half(2.0f))) == -1.5f && float(wpnb::floordiv(half(-5.5f), half(2.0f))) == -3.0f,
          "half mod / floordiv");
    CHECK(float(wpnb::min(half(1.0f), half(-2.0f))) == -2.0f && float(wpnb::max(half(1.0f), half(-2.0f))) == 1.0f &&
          float(wpnb::clamp(half(7.0f), half(0.0f), half(3.0f))) == 3.0f && float(wpnb::step(half(-1.0f))) == 1.0f,
          "half min / max / clamp / step");
    CHECK(wpnb::lt(half(1.0f), half(2.0f)) && wpnb::eq(true, true) && wpnb::bit_xor(true, false) && !wpnb::bit_and(true, false),
          "half comparisons, bool ops");

    // ternary: clamp, lerp, smoothstep with central differences on each argument
    typedef double (*T64)(double, double, double);
    typedef void (*TA64)(double, double, double, double&, double&, double&, const double&);
    struct Ternary { const char* name; T64 f; TA64 adj; double pts[4][3]; };
    const Ternary tern[] = {
        {"clamp", [](double x, double lo, double hi) { return wpnb::clamp(x, lo, hi); },
         [](double x, double lo, double hi, double& a, double& b, double& c, const double& r) { wpnb::adj_clamp(x, lo, hi, a, b, c, r); },
         {{0.5, 0.0, 1.0}, {-0.5, 0.0, 1.0}, {1.5, 0.0, 1.0}, {2.0, -3.0, 5.0}}},
        {"lerp", [](double a, double b, double t) { return wpnb::lerp(a, b, t); },
         [](double a, double b, double t, double& x, double& y, double& z, const double& r) { wpnb::adj_lerp(a, b, t, x, y, z, r); },
         {{0.5, 2.0, 0.3}, {-1.5, 4.0, 1.2}, {3.0, -1.0, -0.4}, {0.0, 1.0, 0.5}}},
        {"smoothstep", [](double a, double b, double x) { return wpnb::smoothstep(a, b, x); },
         [](double a, double b, double x, double& p, double& q, double& s, const double& r) { wpnb::adj_smoothstep(a, b, x, p, q, s, r); },
         {{0.0, 1.0, 0.3}, {-1.0, 2.0, 1.4}, {0.0, 1.0, -0.5}, {2.0, -1.0, 0.2}}},
    };
    for (const Ternary& t : tern) {
        for (const auto& p : t.pts) {
            double g[3] = {0, 0, 0};
            t.adj(p[0], p[1], p[2], g[0], g[1], g[2], 1.0);
            for (int i = 0; i < 3; ++i) {
                double lo[3] = {p[0], p[1], p[2]}, hi[3] = {p[0], p[1], p[2]};
                lo[i] -= 1e-6; hi[i] += 1e-6;
                const double fd = (t.f(hi[0], hi[1], hi[2]) - t.f(lo[0], lo[1], lo[2])) / 2e-6;
                CHECK(near(g[i], fd, 1e-6, 1e-7), "adj_%s(%g, %g, %g) argument %d: got %.10g, central difference %.10g",
                      t.name, p[0], p[1], p[2], i, g[i], fd);
            }
        }
    }
    CHECK(wpnb::smoothstep(0.0, 1.0, 0.5) == 0.5 && wpnb::smoothstep(0.0f, 2.0f, 3.0f) == 1.0f &&
          wpnb::smoothstep(0.0, 2.0, -1.0) == 0.0, "smoothstep values");
    CHECK(std::fabs(wpnb::smoothstep(1.0, 3.0, 1.5) - 0.15625) < 1e-15, "smoothstep(1,3,1.5) = 0.25^2 (3 - 0.5)");
    CHECK(wpnb::smoothstep(1.0, 1.0, 0.5) == 0.0 && wpnb::smoothstep(1.0, 1.0, 1.0) == 0.0 && wpnb::smoothstep(1.0, 1.0, 1.5) == 1.0,
          "smoothstep with a == b is a step, 0 at x == a (Warp's)");
    CHECK(wpnb::lerp(2.0f, 4.0f, 0.25f) == 2.5f && float(wpnb::lerp(half(2.0f), half(4.0f), half(0.5f))) == 3.0f, "lerp");
    CHECK(wpnb::clamp(5, 0, 3) == 3 && wpnb::clamp(-5, 0, 3) == 0 && wpnb::clamp(2.5f, 0.0f, 3.0f) == 2.5f, "clamp");
}

// ---------------------------------------------------------------- Warp semantics, kinks
static void test_semantics_and_subgradients() {
    // sign: -1 for x < 0, else 1 (including 0, -0 and nan); step: 1 for x < 0, else 0.
    CHECK(wpnb::sign(0.0f) == 1.0f && wpnb::sign(-0.0) == 1.0 && wpnb::sign(-2.5f) == -1.0f && wpnb::sign(3.0) == 1.0,
          "sign float");
    CHECK(wpnb::sign(0) == 1 && wpnb::sign(-7) == -1 && wpnb::sign(wpnb::uint8(0)) == 1 &&
          float(wpnb::sign(half(-0.5f))) == -1.0f, "sign int/half");
    CHECK(wpnb::step(0.0f) == 0.0f && wpnb::step(-1e-30) == 1.0 && wpnb::step(2.0) == 0.0 && wpnb::step(-3) == 1,
          "step(x) = 1 if x < 0");
    CHECK(wpnb::nonzero(0.0) == 0.0 && wpnb::nonzero(-0.0f) == 0.0f && wpnb::nonzero(-3) == 1 && wpnb::nonzero(2.5f) == 1.0f,
          "nonzero");
    CHECK(wpnb::round(2.5f) == 3.0f && wpnb::round(-2.5) == -3.0 && wpnb::round(0.5) == 1.0, "round: halves away from zero");
    CHECK(wpnb::rint(2.5f) == 2.0f && wpnb::rint(3.5) == 4.0 && wpnb::rint(-2.5) == -2.0, "rint: halves to even");
    CHECK(wpnb::frac(-1.25) == -0.25 && wpnb::frac(3.75f) == 0.75f, "frac = x - trunc(x)");
    CHECK(wpnb::abs(-0.0) == 0.0 && !std::signbit(wpnb::abs(-0.0f)) && float(wpnb::abs(half(-2.0f))) == 2.0f, "abs");
    CHECK(float(wpnb::neg(half(1.5f))) == -1.5f, "half neg");

    // subgradient choices (docs/subgradients.md)
    double g = 0.0, g2 = 0.0, g3 = 0.0;
    wpnb::adj_abs(0.0, g, 1.0); CHECK(g == 1.0, "abs'(0) = 1, got %g", g);
    g = 0.0; wpnb::adj_abs(-0.0, g, 1.0); CHECK(g == 1.0, "abs'(-0) = 1, got %g", g);
    g = 0.0; wpnb::adj_sqrt(0.0, g, 1.0); CHECK(g == 0.0, "sqrt'(0) = 0, got %g", g);
    g = 0.0; wpnb::adj_cbrt(0.0, g, 1.0); CHECK(g == 0.0, "cbrt'(0) = 0, got %g", g);
    g = 0.0; wpnb::adj_asin(1.0, g, 1.0); CHECK(g == 0.0, "asin'(1) = 0, got %g", g);
    g = 0.0; wpnb::adj_acos(-1.0, g, 1.0); CHECK(g == 0.0, "acos'(-1) = 0, got %g", g);
    g = 0.0; wpnb::adj_sign(0.0, g, 1.0); CHECK(g == 0.0, "sign' = 0");
    g = 0.0; wpnb::adj_step(0.0, g, 1.0); CHECK(g == 0.0, "step' = 0");
    g = 0.0; wpnb::adj_floor(2.0, g, 1.0); wpnb::adj_round(2.5, g, 1.0); wpnb::adj_nonzero(0.0, g, 1.0);
    CHECK(g == 0.0, "rounding functions have zero gradient");
    g = 0.0; g2 = 0.0; wpnb::adj_min(1.0, 1.0, g, g2, 1.0); CHECK(g == 0.0 && g2 == 1.0, "min tie -> b");
    g = 0.0; g2 = 0.0; wpnb::adj_max(1.0, 1.0, g, g2, 1.0); CHECK(g == 0.0 && g2 == 1.0, "max tie -> b");
    g = g2 = g3 = 0.0; wpnb::adj_clamp(0.0, 0.0, 1.0, g, g2, g3, 1.0); CHECK(g == 1.0 && g2 == 0.0 && g3 == 0.0, "clamp at lo -> x");
    g = g2 = g3 = 0.0; wpnb::adj_clamp(1.0, 0.0, 1.0, g, g2, g3, 1.0); CHECK(g == 0.0 && g2 == 0.0 && g3 == 1.0, "clamp at hi -> hi (Warp's)");
    g = g2 = 0.0; wpnb::adj_pow(0.0, 0.5, g, g2, 1.0); CHECK(g == 0.0 && g2 == 0.0, "pow(0, 0.5) grads 0, got %g %g", g, g2);
    g = g2 = 0.0; wpnb::adj_pow(0.0, 1.0, g, g2, 1.0); CHECK(g == 1.0 && g2 == 0.0, "pow(0, 1): d/da = 1");
    g = g2 = 0.0; wpnb::adj_pow(0.0, 3.0, g, g2, 1.0); CHECK(g == 0.0 && g2 == 0.0, "pow(0, 3): 0, 0");
    g = g2 = 0.0; wpnb::adj_pow(-2.0, 3.0, g, g2, 1.0); CHECK(g == 12.0 && g2 == 0.0, "pow(-2, 3): d/da = 12, d/db = 0");
    g = g2 = 0.0; wpnb::adj_atan2(0.0, 0.0, g, g2, 1.0); CHECK(g == 0.0 && g2 == 0.0, "atan2 at origin: 0");
    g = g2 = 0.0; wpnb::adj_smoothstep(1.0, 1.0, 1.0, g, g2, g3, 1.0); CHECK(g == 0.0 && g2 == 0.0, "smoothstep a == b");
    float gf = 0.0f; wpnb::adj_sqrt(0.0f, gf, 1.0f); CHECK(gf == 0.0f, "sqrt'(0) float32 = 0");
    half gh(0.0f); wpnb::adj_abs(half(0.0f), gh, half(1.0f)); CHECK(float(gh) == 1.0f, "abs'(0) half = 1");
    g = 0.0; wpnb::adj_frac(1.5, g, 1.0); CHECK(g == 1.0, "frac' = 1");
}

// ------------------------------------------------------------------ integer semantics
// Hides a value from the optimizer so that traps (x / 0, MIN / -1) would happen at run time.
template <typename T> static T opaque(T x) { volatile T v = x; return v; }

template <typename T> static void test_int_type(const char* name, bool is_signed) {
    const T tmin = std::numeric_limits<T>::min(), tmax = std::numeric_limits<T>::max();
    const int lo = is_signed ? -9 : 0, hi = is_signed ? 9 : 18;
    for (int a = lo; a <= hi; ++a) {
        for (int b = lo; b <= hi; ++b) {
            const T ta = T(a), tb = T(b);
            const long long want_div = b == 0 ? 0 : a / b;          // C: truncate toward zero
            const long long want_mod = b == 0 ? 0 : a % b;          // C: sign of the dividend
            const long long want_fdiv = b == 0 ? 0 : (long long)std::floor(double(a) / double(b));
            CHECK((long long)wpnb::div(ta, tb) == want_div, "%s div(%d, %d) = %lld want %lld", name, a, b,
                  (long long)wpnb::div(ta, tb), want_div);
            CHECK((long long)wpnb::mod(ta, tb) == want_mod, "%s mod(%d, %d) = %lld want %lld", name, a, b,
                  (long long)wpnb::mod(ta, tb), want_mod);
            CHECK((long long)wpnb::floordiv(ta, tb) == want_fdiv, "%s floordiv(%d, %d) = %lld want %lld", name, a, b,
                  (long long)wpnb::floordiv(ta, tb), want_fdiv);
            CHECK(wpnb::add(ta, tb) == T(a + b) && wpnb::sub(ta, tb) == T(a - b) && wpnb::mul(ta, tb) == T(a * b),
                  "%s add/sub/mul(%d, %d)", name, a, b);
            CHECK(wpnb::lt(ta, tb) == (a < b) && wpnb::le(ta, tb) == (a <= b) && wpnb::gt(ta, tb) == (a > b) &&
                  wpnb::ge(ta, tb) == (a >= b) && wpnb::eq(ta, tb) == (a == b) && wpnb::ne(ta, tb) == (a != b),
                  "%s comparisons(%d, %d)", name, a, b);
            CHECK((long long)wpnb::min(ta, tb) == (a < b ? a : b) && (long long)wpnb::max(ta, tb) == (a > b ? a : b),
                  "%s min/max(%d, %d)", name, a, b);
            CHECK(T(wpnb::bit_and(ta, tb)) == T(ta & tb) && T(wpnb::bit_or(ta, tb)) == T(ta | tb) &&
                  T(wpnb::bit_xor(ta, tb)) == T(ta ^ tb), "%s bit ops(%d, %d)", name, a, b);
        }
        CHECK((long long)wpnb::abs(T(a)) == (a < 0 ? -a : a) && wpnb::sign(T(a)) == T(a < 0 ? -1 : 1),
              "%s abs/sign(%d)", name, a);
        CHECK(wpnb::invert(T(a)) == T(~T(a)) && wpnb::logical_not(T(a)) == (a == 0), "%s invert/logical_not(%d)", name, a);
    }
    // wrap-around instead of undefined behaviour
    CHECK(wpnb::add(tmax, T(1)) == tmin && wpnb::sub(tmin, T(1)) == tmax, "%s add/sub wrap", name);
    CHECK(wpnb::mul(tmax, T(2)) == (is_signed ? T(-2) : T(tmax - 1)), "%s mul wraps", name);
    CHECK(wpnb::div(opaque(T(7)), opaque(T(0))) == T(0) && wpnb::mod(opaque(T(7)), opaque(T(0))) == T(0) &&
          wpnb::floordiv(opaque(T(7)), opaque(T(0))) == T(0),
          "%s division by zero gives 0", name);
    if (is_signed) {
        CHECK(wpnb::div(opaque(tmin), opaque(T(-1))) == tmin && wpnb::mod(opaque(tmin), opaque(T(-1))) == T(0) &&
              wpnb::floordiv(opaque(tmin), opaque(T(-1))) == tmin,
              "%s MIN / -1 wraps", name);
        CHECK(wpnb::neg(tmin) == tmin && wpnb::abs(tmin) == tmin, "%s neg/abs(MIN) wrap", name);
        CHECK(wpnb::floordiv(T(-7), T(2)) == T(-4) && wpnb::mod(T(-7), T(2)) == T(-1) && wpnb::div(T(-7), T(2)) == T(-3),
              "%s -7 // 2 = -4, -7 %% 2 = -1, -7 / 2 = -3", name);
        CHECK(wpnb::rshift(T(-8), T(1)) == T(-4) && wpnb::rshift(T(-8), T(8 * sizeof(T))) == T(-1) &&
              wpnb::lshift(T(1), T(-1)) == T(0), "%s signed shifts", name);
        CHECK(wpnb::step(T(-1)) == T(1) && wpnb::step(T(0)) == T(0), "%s step", name);
    } else {
        CHECK(wpnb::div(tmax, tmax) == T(1) && wpnb::floordiv(tmax, T(2)) == T(tmax / 2), "%s unsigned division", name);
        CHECK(wpnb::neg(T(1)) == tmax, "%s unsigned neg wraps", name);
    }
    CHECK(wpnb::lshift(T(1), T(3)) == T(8) && wpnb::rshift(T(64), T(2)) == T(16), "%s shifts", name);
    CHECK(wpnb::lshift(T(1), T(8 * sizeof(T) - 1)) == T(T(1) << (8 * sizeof(T) - 1)), "%s shift to the top bit", name);
    CHECK(wpnb::lshift(T(1), T(8 * sizeof(T))) == T(0) && wpnb::rshift(T(5), T(8 * sizeof(T))) == T(0),
          "%s shift by the bit width shifts everything out", name);
    CHECK(!wpnb::isnan(T(3)) && !wpnb::isinf(T(3)) && wpnb::isfinite(T(3)), "%s is finite", name);
    T adj_a = T(5), adj_b = T(6);
    wpnb::adj_add(T(1), T(2), adj_a, adj_b, T(1));
    wpnb::adj_div(T(1), T(2), adj_a, adj_b, T(1));
    CHECK(adj_a == T(5) && adj_b == T(6), "%s integer adjoints leave their arguments alone", name);
}

// ------------------------------------------------------------- half, classification, casts
static void test_half_and_classification() {
    int bad = 0;
    for (unsigned b = 0; b < 65536; ++b) {
        half h; h.bits = wpnb::uint16(b);
        const float f = float(h);
        const half back(f);
        const bool is_nan = ((b & 0x7c00u) == 0x7c00u) && (b & 0x3ffu);
        if (is_nan ? !(std::isnan(f) && wpnb::isnan(back)) : back.bits != h.bits) ++bad;
        if (wpnb::isnan(h) != is_nan || wpnb::isinf(h) != (((b & 0x7fffu) == 0x7c00u))) ++bad;
    }
    CHECK(bad == 0, "half bits -> float -> half round trip: %d mismatches", bad);
    // float -> half rounds to nearest (ties to even), checked against neighbours.
    int bad_round = 0;
    for (int i = 0; i < 20000; ++i) {
        const float f = std::ldexp(float((i * 7919) % 10007) / 10007.0f + 1.0f, (i % 40) - 24) * ((i & 1) ? -1.0f : 1.0f);
        const half h(f);
        half up = h, down = h; up.bits = wpnb::uint16(h.bits + 1); down.bits = wpnb::uint16(h.bits - 1);
        const double e = std::fabs(double(f) - double(float(h)));
        if ((h.bits & 0x7fffu) < 0x7c00u && (h.bits & 0x7fffu) > 0 &&
            (e > std::fabs(double(f) - double(float(up))) || e > std::fabs(double(f) - double(float(down))))) ++bad_round;
    }
    CHECK(bad_round == 0, "float -> half is not round-to-nearest in %d cases", bad_round);
    CHECK(float(half(65504.0f)) == 65504.0f && wpnb::isinf(half(65520.0f)) && float(half(5.9604645e-8f)) == 5.9604645e-8f,
          "half range edges");
    CHECK(float(wpnb::sqrt(half(4.0f))) == 2.0f && float(wpnb::exp(half(0.0f))) == 1.0f, "half math");

    const float fnan = std::numeric_limits<float>::quiet_NaN(), finf = std::numeric_limits<float>::infinity();
    const double dnan = std::numeric_limits<double>::quiet_NaN(), dinf = std::numeric_limits<double>::infinity();
    CHECK(wpnb::isnan(fnan) && !wpnb::isnan(finf) && !wpnb::isnan(1.0f) && wpnb::isinf(-finf) && !wpnb::isinf(fnan) &&
          wpnb::isfinite(0.0f) && !wpnb::isfinite(finf) && !wpnb::isfinite(fnan), "float32 classification");
    CHECK(wpnb::isnan(dnan) && !wpnb::isnan(dinf) && wpnb::isinf(-dinf) && !wpnb::isinf(1e308) && wpnb::isfinite(1e308) &&
          !wpnb::isfinite(dnan), "float64 classification");
    CHECK(wpnb::isnan(half(fnan)) && wpnb::isinf(half(-finf)) && wpnb::isfinite(half(1.0f)), "half classification");
    CHECK(!wpnb::lt(fnan, 1.0f) && !wpnb::eq(dnan, dnan) && wpnb::ne(fnan, fnan), "nan comparisons");
    CHECK(wpnb::logical_not(0.0f) && !wpnb::logical_not(fnan) && wpnb::logical_not(half(0.0f)) && wpnb::logical_not(false),
          "logical_not");

    CHECK(wpnb::cast<wpnb::int32>(3.7f) == 3 && wpnb::cast<wpnb::int32>(-3.7) == -3, "cast float -> int truncates");
    CHECK(float(wpnb::cast<half>(wpnb::int64(5))) == 5.0f && float(wpnb::cast<half>(2.5)) == 2.5f, "cast to half");
    CHECK(wpnb::cast<wpnb::float32>(half(2.5f)) == 2.5f && wpnb::cast<wpnb::int64>(half(-3.0f)) == -3, "cast from half");
    CHECK(wpnb::cast<bool>(2) && !wpnb::cast<bool>(0.0) && wpnb::cast<wpnb::uint8>(300) == 44, "cast bool / wrap");
    double ad = 1.0; wpnb::adj_cast<wpnb::float32>(2.0, ad, 0.5f); CHECK(ad == 1.5, "adj_cast float -> float");
    wpnb::int32 ai = 3; wpnb::adj_cast<wpnb::float32>(wpnb::int32(2), ai, 0.5f); CHECK(ai == 3, "adj_cast from int is 0");
}

int main() {
    test_unary();
    test_binary();
    test_semantics_and_subgradients();
    test_int_type<wpnb::int8>("int8", true);
    test_int_type<wpnb::int16>("int16", true);
    test_int_type<wpnb::int32>("int32", true);
    test_int_type<wpnb::int64>("int64", true);
    test_int_type<wpnb::uint8>("uint8", false);
    test_int_type<wpnb::uint16>("uint16", false);
    test_int_type<wpnb::uint32>("uint32", false);
    test_int_type<wpnb::uint64>("uint64", false);
    test_half_and_classification();
    std::printf("test_scalar: %d checks, %d failures\n", g_checks, g_fail);
    return g_fail == 0 ? 0 : 1;
}
