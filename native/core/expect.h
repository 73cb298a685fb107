// expect.h: wp.expect_eq / expect_neq / expect_near, the in-kernel checks Warp's tests use. A
// failed check prints one line naming the check and the values and the kernel carries on (as in
// Warp); tests treat any output as a failure. Not differentiable: a check has no value.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"
#include "core/mat.h"
#include "core/quat.h"

namespace wpnb {

namespace expect_detail {
template <typename T> WPNB_FN void show(const T&) { printf("<value>"); }
WPNB_FN void show(float32 v) { printf("%g", (double)v); }
WPNB_FN void show(float64 v) { printf("%g", v); }
WPNB_FN void show(int32 v) { printf("%d", (int)v); }
WPNB_FN void show(uint32 v) { printf("%u", (unsigned)v); }
WPNB_FN void show(int64 v) { printf("%lld", (long long)v); }
WPNB_FN void show(uint64 v) { printf("%llu", (unsigned long long)v); }
WPNB_FN void show(bool v) { printf(v ? "True" : "False"); }
template <int N, typename T> WPNB_FN void show(const vec_t<N, T>& v) {
    printf("[");
    for (int i = 0; i < N; ++i) { show(v.c[i]); printf(i + 1 < N ? ", " : "]"); }
}
template <typename A> WPNB_FN void report(const char* what, const A& a, const A& b) {
    printf("Error, %s() failed:\n\t", what);
    show(a);
    printf(" vs ");
    show(b);
    printf("\n");
}
// |a - b| <= tolerance, componentwise for vectors
template <typename T> WPNB_FN bool near(T a, T b, T tolerance) { return abs(sub(a, b)) <= tolerance; }
template <int N, typename T> WPNB_FN bool near(const vec_t<N, T>& a, const vec_t<N, T>& b, T tolerance) {
    for (int i = 0; i < N; ++i) if (!(abs(sub(a.c[i], b.c[i])) <= tolerance)) return false;
    return true;
}
}  // namespace expect_detail

// Prints a failure when a != b.
template <typename A> WPNB_FN void expect_eq(const A& a, const A& b) {
    if (!eq(a, b)) expect_detail::report("expect_eq", a, b);
}
// Prints a failure when a == b.
template <typename A> WPNB_FN void expect_neq(const A& a, const A& b) {
    if (eq(a, b)) expect_detail::report("expect_neq", a, b);
}
// Prints a failure when a and b differ by more than tolerance (in any component).
template <typename T> WPNB_FN void expect_near(T a, T b, T tolerance) {
    if (!expect_detail::near(a, b, tolerance)) expect_detail::report("expect_near", a, b);
}
template <int N, typename T> WPNB_FN void expect_near(const vec_t<N, T>& a, const vec_t<N, T>& b, T tolerance) {
    if (!expect_detail::near(a, b, tolerance)) expect_detail::report("expect_near", a, b);
}
template <int R, int C, typename T>
WPNB_FN void expect_near(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b, T tolerance) {
    bool ok = true;
    for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) ok = ok && abs(sub(a.c[i][j], b.c[i][j])) <= tolerance;
    if (!ok) expect_detail::report("expect_near", a, b);
}
template <typename T> WPNB_FN void expect_near(const quat_t<T>& a, const quat_t<T>& b, T tolerance) {
    if (!expect_detail::near(la_detail::qv(a), la_detail::qv(b), tolerance)) expect_detail::report("expect_near", a, b);
}
// ... with Warp's default tolerance, 1e-6.
template <typename T> WPNB_FN void expect_near(T a, T b) { expect_near(a, b, T(1e-6)); }
template <int N, typename T> WPNB_FN void expect_near(const vec_t<N, T>& a, const vec_t<N, T>& b) {
    expect_near(a, b, T(1e-6));
}
template <int R, int C, typename T> WPNB_FN void expect_near(const mat_t<R, C, T>& a, const mat_t<R, C, T>& b) {
    expect_near(a, b, T(1e-6));
}
template <typename T> WPNB_FN void expect_near(const quat_t<T>& a, const quat_t<T>& b) { expect_near(a, b, T(1e-6)); }

}  // namespace wpnb
