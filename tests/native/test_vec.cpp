// Mirror test of native/core/vec.h: values against independent formulas, every adjoint against
// central differences in float64 at random points. Prints each failure; exit code = failures.
#include <cmath>
#include <cstdio>
#include <type_traits>

#include "core/vec.h"
#include "adjoint_check.h"  // expect_near, check1..3: adjoints against central differences

using namespace wpnb;

typedef vec_t<2, double> V2;
typedef vec_t<3, double> V3;
typedef vec_t<4, double> V4;
typedef vec_t<6, double> V6;

static void test_layout_and_constructors() {
    static_assert(sizeof(vec3f) == 12, "vec3f is 12 bytes");
    static_assert(sizeof(vec4d) == 32, "vec4d is 32 bytes");
    static_assert(sizeof(vec3h) == 6, "vec3h is 6 bytes");
    static_assert(sizeof(vec_t<6, float32>) == 24, "vec6f is 24 bytes");
    static_assert(std::is_standard_layout<vec3f>::value, "standard layout");
    static_assert(std::is_trivially_copyable<vec3d>::value, "trivially copyable");
    vec3f z;
    expect_true("vec_t()", "zero", z[0] == 0.f && z[1] == 0.f && z[2] == 0.f);
    vec4f b(2.5f);
    expect_true("vec_t(s)", "broadcast", b[0] == 2.5f && b[3] == 2.5f);
    vec3f c(1.f, 2.f, 3.f);
    expect_true("vec_t(a,b,c)", "components", c.c[0] == 1.f && c.c[1] == 2.f && c.c[2] == 3.f);
    V6 s(1.0, 2.0, 3.0, 4.0, 5.0, 6.0);
    expect_true("vec_t(6 comps)", "components", s[5] == 6.0 && s[0] == 1.0);
    vec3i ci(vec3f(1.7f, -2.7f, 3.0f));
    expect_true("vec_t<int>(vec3f)", "truncates", ci[0] == 1 && ci[1] == -2 && ci[2] == 3);
    vec3h h(c);
    vec3d d(h);
    expect_true("vec_t<half>(vec3f)", "round trip", d[0] == 1.0 && d[1] == 2.0 && d[2] == 3.0);
    vec2h h2(0.5f, 0.25);
    expect_near("vec2h(0.5, 0.25)", "y", double(float32(h2[1])), 0.25);
    c[1] = 7.f;
    expect_true("operator[]", "write", c.c[1] == 7.f);
    const vec3f cc = c;
    expect_true("operator[] const", "read", cc[1] == 7.f);

    // constructor adjoints
    for (int rep = 0; rep < 3; ++rep) {
        double a0 = rnd(), a1 = rnd(), a2 = rnd(), a3 = rnd();
        const V4 w = random_of<V4>();
        double g0 = 0.5, g1 = -1.0, g2 = 2.0, g3 = 0.0;
        adj_vec_t(a0, a1, a2, a3, g0, g1, g2, g3, w);
        expect_near("adj_vec_t(4 comps)", "g0", g0, 0.5 + w[0]);
        expect_near("adj_vec_t(4 comps)", "g1", g1, -1.0 + w[1]);
        expect_near("adj_vec_t(4 comps)", "g2", g2, 2.0 + w[2]);
        expect_near("adj_vec_t(4 comps)", "g3", g3, w[3]);
        const V2 w2 = random_of<V2>();
        double h0 = 1.0, h1 = 1.0;
        adj_vec_t(a0, a1, h0, h1, w2);
        expect_near("adj_vec_t(2 comps)", "h0", h0, 1.0 + w2[0]);
        expect_near("adj_vec_t(2 comps)", "h1", h1, 1.0 + w2[1]);
        double gs = 1.0;
        adj_vec_t(a0, gs, w);
        expect_near("adj_vec_t(s)", "broadcast", gs, 1.0 + w[0] + w[1] + w[2] + w[3]);
        const V3 w3 = random_of<V3>();
        vec3f u(1.f, 2.f, 3.f), gu(1.f, 1.f, 1.f);
        adj_vec_t(u, gu, w3);
        expect_near("adj_vec_t(conversion)", "x", gu[0], float(1.0 + float(w3[0])), 1e-6);
        expect_near("adj_vec_t(conversion)", "z", gu[2], float(1.0 + float(w3[2])), 1e-6);
    }
}

static void test_values() {
    for (int rep = 0; rep < 5; ++rep) {
        const V3 a = random_of<V3>(), b = random_of<V3>();
        const double s = rnd() + 2.0;
        const V3 r = add(a, b), d = sub(a, b), n = neg(a), m = mul(a, s), m2 = mul(s, a), q = div(a, s), q2 = div(s, a);
        for (int i = 0; i < 3; ++i) {
            expect_near("add", "component", r[i], a[i] + b[i]);
            expect_near("sub", "component", d[i], a[i] - b[i]);
            expect_near("neg", "component", n[i], -a[i]);
            expect_near("pos", "component", pos(a)[i], a[i]);
            expect_near("mul(v,s)", "component", m[i], a[i] * s);
            expect_near("mul(s,v)", "component", m2[i], a[i] * s);
            expect_near("div(v,s)", "component", q[i], a[i] / s);
            expect_near("div(s,v)", "component", q2[i], s / a[i]);
            expect_near("cw_mul", "component", cw_mul(a, b)[i], a[i] * b[i]);
            expect_near("cw_div", "component", cw_div(a, b)[i], a[i] / b[i]);
            expect_near("min(a,b)", "component", min(a, b)[i], std::fmin(a[i], b[i]));
            expect_near("max(a,b)", "component", max(a, b)[i], std::fmax(a[i], b[i]));
            expect_near("abs", "component", abs(a)[i], std::fabs(a[i]));
            expect_near("lerp", "component", lerp(a, b, s)[i], (1 - s) * a[i] + s * b[i]);
            expect_near("extract", "component", extract(a, i), a[i]);
        }
        const double dt = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        expect_near("dot", "value", dot(a, b), dt);
        const V3 c = cross(a, b);
        expect_near("cross", "orthogonal to a", dot(c, a), 0.0);
        expect_near("cross", "orthogonal to b", dot(c, b), 0.0);
        expect_near("cross", "Lagrange identity", length_sq(c), length_sq(a) * length_sq(b) - dt * dt);
        expect_near("cross", "x", c[0], a[1] * b[2] - a[2] * b[1]);
        expect_near("length", "value", length(a), std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]));
        expect_near("normalize", "unit", length(normalize(a)), 1.0);
        expect_near("normalize", "direction", dot(normalize(a), a), length(a));
        const V3 w = with_index(a, 1, 9.0);
        expect_true("with_index", "replaced", w[1] == 9.0 && w[0] == a[0] && w[2] == a[2] && a[1] != 9.0);
        expect_true("eq", "self", eq(a, a) && a == a && !ne(a, a));
        expect_true("ne", "other", ne(a, b) && a != b && !eq(a, b));
    }
    const V4 v(3.0, -1.0, 7.0, -1.0);
    expect_true("argmin", "first of ties", argmin(v) == 1u);
    expect_true("argmax", "index", argmax(v) == 2u);
    expect_near("min(v)", "value", min(v), -1.0);
    expect_near("max(v)", "value", max(v), 7.0);
    V4 gv(0.0);
    adj_min(v, gv, 2.0);
    expect_true("adj_min(v)", "gradient to first argmin", gv[1] == 2.0 && gv[3] == 0.0);
    // zero vector conventions
    const V3 zero;
    expect_true("normalize(0)", "zero", normalize(zero) == zero);
    V3 gz(1.0);
    adj_normalize(zero, gz, V3(1.0, 2.0, 3.0));
    expect_true("adj_normalize(0)", "gradient 0", gz == V3(1.0));
    adj_length(zero, gz, 1.0);
    expect_true("adj_length(0)", "gradient 0", gz == V3(1.0));
    // integer and reduced-precision instantiations
    const vec3i ia(1, -2, 3), ib(4, 5, -6);
    expect_true("add<int>", "value", add(ia, ib) == vec3i(5, 3, -3));
    expect_true("dot<int>", "value", dot(ia, ib) == 4 - 10 - 18);
    expect_true("div<int>", "value", div(ib, 2) == vec3i(2, 2, -3));
    expect_true("cross<int>", "value", cross(ia, ib) == vec3i(-2 * -6 - 3 * 5, 3 * 4 - 1 * -6, 1 * 5 - -2 * 4));
    expect_true("abs<int>", "value", abs(ia) == vec3i(1, 2, 3));
    expect_true("max<int>", "reduction", max(ib) == 5 && argmax(ib) == 1u);
    const vec3ui ua(1u, 2u, 3u);
    expect_true("mul<uint>", "value", mul(ua, 2u) == vec3ui(2u, 4u, 6u));
    const vec3h ha(1.0f, 2.0f, 2.0f);
    expect_near("length<half>", "value", double(float32(length(ha))), 3.0, 1e-3);
    expect_near("normalize<half>", "x", double(float32(normalize(ha)[0])), 1.0 / 3.0, 1e-3);
    const vec3f fa(1.f, 2.f, 2.f);
    expect_near("length<float>", "value", length(fa), 3.0, 1e-6);
    expect_near("dot<float>", "value", dot(fa, vec3f(1.f)), 5.0, 1e-6);
}

static void test_adjoints() {
    for (int rep = 0; rep < 4; ++rep) {
        const V3 a = random_of<V3>(), b = random_of<V3>();
        const double s = rnd() + 2.0;
        const V4 a4 = random_of<V4>(), b4 = random_of<V4>();
        check2<V3>("adj_add", [](const V3& x, const V3& y) { return add(x, y); },
                   [](const V3& x, const V3& y, V3& gx, V3& gy, const V3& w) { adj_add(x, y, gx, gy, w); }, a, b);
        check2<V3>("adj_sub", [](const V3& x, const V3& y) { return sub(x, y); },
                   [](const V3& x, const V3& y, V3& gx, V3& gy, const V3& w) { adj_sub(x, y, gx, gy, w); }, a, b);
        check1<V4>("adj_neg", [](const V4& x) { return neg(x); },
                   [](const V4& x, V4& gx, const V4& w) { adj_neg(x, gx, w); }, a4);
        check1<V4>("adj_pos", [](const V4& x) { return pos(x); },
                   [](const V4& x, V4& gx, const V4& w) { adj_pos(x, gx, w); }, a4);
        check2<V3>("adj_mul(v,s)", [](const V3& x, double t) { return mul(x, t); },
                   [](const V3& x, double t, V3& gx, double& gt, const V3& w) { adj_mul(x, t, gx, gt, w); }, a, s);
        check2<V3>("adj_mul(s,v)", [](double t, const V3& x) { return mul(t, x); },
                   [](double t, const V3& x, double& gt, V3& gx, const V3& w) { adj_mul(t, x, gt, gx, w); }, s, a);
        check2<V3>("adj_div(v,s)", [](const V3& x, double t) { return div(x, t); },
                   [](const V3& x, double t, V3& gx, double& gt, const V3& w) { adj_div(x, t, gx, gt, w); }, a, s);
        check2<V3>("adj_div(s,v)", [](double t, const V3& x) { return div(t, x); },
                   [](double t, const V3& x, double& gt, V3& gx, const V3& w) { adj_div(t, x, gt, gx, w); }, s,
                   add(a, V3(3.0)));
        check2<V4>("adj_cw_mul", [](const V4& x, const V4& y) { return cw_mul(x, y); },
                   [](const V4& x, const V4& y, V4& gx, V4& gy, const V4& w) { adj_cw_mul(x, y, gx, gy, w); }, a4, b4);
        check2<V4>("adj_cw_div", [](const V4& x, const V4& y) { return cw_div(x, y); },
                   [](const V4& x, const V4& y, V4& gx, V4& gy, const V4& w) { adj_cw_div(x, y, gx, gy, w); }, a4,
                   add(b4, V4(3.0)));
        check2<double>("adj_dot", [](const V4& x, const V4& y) { return dot(x, y); },
                       [](const V4& x, const V4& y, V4& gx, V4& gy, const double& w) { adj_dot(x, y, gx, gy, w); }, a4, b4);
        check2<V3>("adj_cross", [](const V3& x, const V3& y) { return cross(x, y); },
                   [](const V3& x, const V3& y, V3& gx, V3& gy, const V3& w) { adj_cross(x, y, gx, gy, w); }, a, b);
        check1<double>("adj_length", [](const V4& x) { return length(x); },
                       [](const V4& x, V4& gx, const double& w) { adj_length(x, gx, w); }, a4);
        check1<double>("adj_length_sq", [](const V4& x) { return length_sq(x); },
                       [](const V4& x, V4& gx, const double& w) { adj_length_sq(x, gx, w); }, a4);
        check1<V3>("adj_normalize", [](const V3& x) { return normalize(x); },
                   [](const V3& x, V3& gx, const V3& w) { adj_normalize(x, gx, w); }, a);
        check2<V4>("adj_min(a,b)", [](const V4& x, const V4& y) { return min(x, y); },
                   [](const V4& x, const V4& y, V4& gx, V4& gy, const V4& w) { adj_min(x, y, gx, gy, w); }, a4, b4);
        check2<V4>("adj_max(a,b)", [](const V4& x, const V4& y) { return max(x, y); },
                   [](const V4& x, const V4& y, V4& gx, V4& gy, const V4& w) { adj_max(x, y, gx, gy, w); }, a4, b4);
        check1<double>("adj_min(v)", [](const V4& x) { return min(x); },
                       [](const V4& x, V4& gx, const double& w) { adj_min(x, gx, w); }, a4);
        check1<double>("adj_max(v)", [](const V4& x) { return max(x); },
                       [](const V4& x, V4& gx, const double& w) { adj_max(x, gx, w); }, a4);
        check1<V4>("adj_abs", [](const V4& x) { return abs(x); },
                   [](const V4& x, V4& gx, const V4& w) { adj_abs(x, gx, w); }, a4);
        for (int i = 0; i < 3; ++i) {
            check1<double>("adj_extract", [i](const V3& x) { return extract(x, i); },
                           [i](const V3& x, V3& gx, const double& w) { int32 gi = 0; adj_extract(x, i, gx, gi, w); }, a);
            check2<V3>("adj_with_index", [i](const V3& x, double v) { return with_index(x, i, v); },
                       [i](const V3& x, double v, V3& gx, double& gv, const V3& w) {
                           int32 gi = 0; adj_with_index(x, i, v, gx, gi, gv, w); }, a, s);
        }
        check3<V3>("adj_lerp", [](const V3& x, const V3& y, double t) { return lerp(x, y, t); },
                   [](const V3& x, const V3& y, double t, V3& gx, V3& gy, double& gt, const V3& w) {
                       adj_lerp(x, y, t, gx, gy, gt, w); }, a, b, s);
        check1<V6>("adj_vec_t(6 comps)", [](const V6& x) { return V6(x[0], x[1], x[2], x[3], x[4], x[5]); },
                   [](const V6& x, V6& g, const V6& w) {
                       adj_vec_t(x[0], x[1], x[2], x[3], x[4], x[5], g[0], g[1], g[2], g[3], g[4], g[5], w); },
                   random_of<V6>());
        check1<V3>("adj_vec_t(3 comps)", [](const V3& x) { return V3(x[0], x[1], x[2]); },
                   [](const V3& x, V3& g, const V3& w) { adj_vec_t(x[0], x[1], x[2], g[0], g[1], g[2], w); }, a);
        check1<V3>("adj_vec_t(s)", [](double x) { return V3(x); },
                   [](double x, double& g, const V3& w) { adj_vec_t(x, g, w); }, s);
    }
}

int main() {
    test_layout_and_constructors();
    test_values();
    test_adjoints();
    if (g_fail) std::printf("test_vec: %d failure(s)\n", g_fail);
    else std::printf("test_vec: all passed\n");
    return g_fail ? 1 : 0;
}
