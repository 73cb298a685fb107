// Shared helpers of the C++ mirror tests (test_vec/mat/mat_decomp/quat/transform.cpp): value checks,
// and every adjoint compared with central differences of L = <w, f(...)> in float64 at random points.
// Each failure is printed and counted in g_fail; a test's main() returns g_fail.
#pragma once
#include <cmath>
#include <cstdio>

inline int g_fail = 0;
inline unsigned long long g_rng = 0x2545F4914F6CDD1DULL;
inline double rnd() {  // uniform in [-1, 1), tiny LCG
    g_rng = g_rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return double((g_rng >> 11) & ((1ULL << 53) - 1)) / double(1ULL << 52) - 1.0;
}
inline void fail(const char* name, const char* what, double got, double want) {
    ++g_fail;
    std::printf("FAIL %s: %s got %.12g want %.12g\n", name, what, got, want);
}
inline void expect_near(const char* name, const char* what, double got, double want, double tol = 1e-9) {
    if (!(std::fabs(got - want) <= tol * (1.0 + std::fabs(want)))) fail(name, what, got, want);
}
inline void expect_true(const char* name, const char* what, bool ok) {
    if (!ok) { ++g_fail; std::printf("FAIL %s: %s\n", name, what); }
}
// Every float64 type here (double, vec_t, mat_t, quat_t, transform_t) is a plain array of doubles.
template <typename X> inline double* dp(X& x) { return reinterpret_cast<double*>(&x); }
template <typename X> inline const double* dp(const X& x) { return reinterpret_cast<const double*>(&x); }
template <typename X> inline constexpr int dn() { return int(sizeof(X) / sizeof(double)); }
template <typename X> inline X random_of() { X x{}; for (int i = 0; i < dn<X>(); ++i) dp(x)[i] = rnd(); return x; }
template <typename X> inline double wdot(const X& w, const X& y) {
    double s = 0; for (int i = 0; i < dn<X>(); ++i) s += dp(w)[i] * dp(y)[i]; return s;
}
// Compare the adjoint of one input with central differences of L = <w, f(...)>.
// `eval(x)` returns L with this input replaced by x; `got` is the adjoint (seed removed).
template <typename X, typename E>
inline void fd_compare(const char* name, int arg, const X& x0, const X& got, E eval, double tol) {
    const double h = 1e-6;
    for (int k = 0; k < dn<X>(); ++k) {
        X xp = x0, xm = x0;
        dp(xp)[k] += h; dp(xm)[k] -= h;
        const double want = (eval(xp) - eval(xm)) / (2 * h);
        if (!(std::fabs(dp(got)[k] - want) <= tol * (1.0 + std::fabs(want)))) {
            char what[64]; std::snprintf(what, sizeof what, "adjoint of arg %d component %d", arg, k);
            fail(name, what, dp(got)[k], want);
        }
    }
}
// Adjoint seeds start random so that an adjoint that overwrites instead of adding fails.
template <typename X> inline X unseed(const X& after, const X& seed) {
    X r = after; for (int i = 0; i < dn<X>(); ++i) dp(r)[i] -= dp(seed)[i]; return r;
}
template <typename R, typename A, typename F, typename G>
inline void check1(const char* name, F f, G adj, A a, double tol = 1e-6) {
    const R w = random_of<R>();
    const A sa = random_of<A>(); A ga = sa;
    adj(a, ga, w);
    fd_compare(name, 0, a, unseed(ga, sa), [&](const A& x) { return wdot(w, R(f(x))); }, tol);
}
template <typename R, typename A, typename B, typename F, typename G>
inline void check2(const char* name, F f, G adj, A a, B b, double tol = 1e-6) {
    const R w = random_of<R>();
    const A sa = random_of<A>(); const B sb = random_of<B>(); A ga = sa; B gb = sb;
    adj(a, b, ga, gb, w);
    fd_compare(name, 0, a, unseed(ga, sa), [&](const A& x) { return wdot(w, R(f(x, b))); }, tol);
    fd_compare(name, 1, b, unseed(gb, sb), [&](const B& x) { return wdot(w, R(f(a, x))); }, tol);
}
template <typename R, typename A, typename B, typename C, typename F, typename G>
inline void check3(const char* name, F f, G adj, A a, B b, C c, double tol = 1e-6) {
    const R w = random_of<R>();
    const A sa = random_of<A>(); const B sb = random_of<B>(); const C sc = random_of<C>();
    A ga = sa; B gb = sb; C gc = sc;
    adj(a, b, c, ga, gb, gc, w);
    fd_compare(name, 0, a, unseed(ga, sa), [&](const A& x) { return wdot(w, R(f(x, b, c))); }, tol);
    fd_compare(name, 1, b, unseed(gb, sb), [&](const B& x) { return wdot(w, R(f(a, x, c))); }, tol);
    fd_compare(name, 2, c, unseed(gc, sc), [&](const C& x) { return wdot(w, R(f(a, b, x))); }, tol);
}
