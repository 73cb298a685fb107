// Mirror test of native/core/transform.h: values against independent formulas (composition of point
// maps, inverse round trips, 4x4 matrices built from the rotation), adjoints against central
// differences in float64.
#include <cmath>
#include <cstdio>
#include <type_traits>

#include "core/transform.h"
#include "adjoint_check.h"  // expect_near, check1..3: adjoints against central differences

using namespace wpnb;

typedef vec_t<3, double> V3;
typedef mat_t<3, 3, double> M33;
typedef mat_t<4, 4, double> M44;
typedef quat_t<double> Q;
typedef transform_t<double> X;
typedef vec_t<7, double> V7;

static const double PI = 3.14159265358979323846;

static double vdiff(const V3& a, const V3& b) { return length(sub(a, b)); }
static X random_rigid() { return X(random_of<V3>(), normalize(random_of<Q>())); }
// The 4x4 matrix of t: rotation block quat_to_matrix(q), translation column p, last row (0,0,0,1).
static M44 matrix_of(const X& t) {
    const M33 r = quat_to_matrix(t.q);
    M44 m = identity<4, double>();
    for (int i = 0; i < 3; ++i) { for (int j = 0; j < 3; ++j) m.c[i][j] = r.c[i][j]; m.c[i][3] = t.p[i]; }
    return m;
}

static void test_layout_and_constructors() {
    static_assert(sizeof(transformf) == 28, "transformf is 28 bytes");
    static_assert(sizeof(transformd) == 56, "transformd is 56 bytes");
    static_assert(sizeof(transformh) == 14, "transformh is 14 bytes");
    static_assert(std::is_standard_layout<transformf>::value, "standard layout");
    static_assert(std::is_trivially_copyable<transformd>::value, "trivially copyable");
    const transformf t(1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f);
    const float32* raw = reinterpret_cast<const float32*>(&t);
    bool order = true;
    for (int i = 0; i < 7; ++i) order = order && raw[i] == float32(i + 1) && t[i] == float32(i + 1);
    expect_true("transform_t(7 scalars)", "memory order p then q", order);
    expect_true("transform_t(p,q)", "value", transformf(vec3f(1.f, 2.f, 3.f), quatf(4.f, 5.f, 6.f, 7.f)) == t);
    expect_true("transform_t()", "all zero", transformf() == transformf(0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f));
    expect_true("transform_t(p)", "identity rotation", transformf(vec3f(1.f, 2.f, 3.f)) == transformf(1.f, 2.f, 3.f, 0.f, 0.f, 0.f, 1.f));
    expect_true("transform_identity", "value", transform_identity<float32>() == transformf(0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 1.f));
    expect_true("transform_t<double>(transformh)", "round trip", transformd(transformh(t)) == X(1, 2, 3, 4, 5, 6, 7));
    for (int rep = 0; rep < 3; ++rep) {
        check2<X>("adj_transform_t(p,q)", [](const V3& p, const Q& q) { return X(p, q); },
                  [](const V3& p, const Q& q, V3& gp, Q& gq, const X& w) { adj_transform_t(p, q, gp, gq, w); },
                  random_of<V3>(), random_of<Q>());
        check1<X>("adj_transform_t(p)", [](const V3& p) { return X(p); },
                  [](const V3& p, V3& gp, const X& w) { adj_transform_t(p, gp, w); }, random_of<V3>());
        check1<X>("adj_transform_t(7 scalars)", [](const V7& x) { return X(x[0], x[1], x[2], x[3], x[4], x[5], x[6]); },
                  [](const V7& x, V7& g, const X& w) {
                      adj_transform_t(x[0], x[1], x[2], x[3], x[4], x[5], x[6], g[0], g[1], g[2], g[3], g[4], g[5], g[6], w); },
                  random_of<V7>());
        const X w = random_of<X>();
        transformf gu(1.f, 1.f, 1.f, 1.f, 1.f, 1.f, 1.f);
        adj_transform_t(t, gu, w);
        expect_near("adj_transform_t(conversion)", "component 5", gu[5], double(float(1.0 + float(w[5]))), 1e-6);
    }
}

static void test_values() {
    // Warp's documented example: translate (0,0,5), quarter turn about z
    const X xf(V3(0, 0, 5), quat_rpy(0.0, 0.0, PI / 2));
    expect_true("transform_point", "Warp example", vdiff(transform_point(xf, V3(1, 2, 0)), V3(-2, 1, 5)) < 1e-12);
    expect_true("transform_vector", "Warp example", vdiff(transform_vector(xf, V3(1, 2, 0)), V3(-2, 1, 0)) < 1e-12);
    for (int rep = 0; rep < 8; ++rep) {
        const X a = random_rigid(), b = random_rigid();
        const V3 x = random_of<V3>();
        expect_true("transform_point", "== rotate + translate", vdiff(transform_point(a, x), add(quat_rotate(a.q, x), a.p)) < 1e-12);
        expect_true("transform_vector", "== rotate", vdiff(transform_vector(a, x), quat_rotate(a.q, x)) < 1e-12);
        const X ab = transform_multiply(a, b);
        expect_true("transform_multiply", "applies b then a",
                    vdiff(transform_point(ab, x), transform_point(a, transform_point(b, x))) < 1e-12);
        expect_true("mul(t,t)", "== transform_multiply", mul(a, b) == ab);
        const X ai = transform_inverse(a);
        expect_true("transform_inverse", "undoes transform_point", vdiff(transform_point(ai, transform_point(a, x)), x) < 1e-12);
        const X e = transform_multiply(a, ai);
        expect_true("transform_inverse", "a * a^-1 = identity",
                    length(e.p) < 1e-12 && length(sub(e.q, quat_identity<double>())) < 1e-12);
        M44 m = matrix_of(a);
        m.c[3][0] = 9.0; m.c[3][3] = 4.0;  // the last row is ignored (no perspective divide)
        expect_true("transform_point(mat44)", "== transform_point(t)", vdiff(transform_point(m, x), transform_point(a, x)) < 1e-12);
        expect_true("transform_vector(mat44)", "== transform_vector(t)", vdiff(transform_vector(m, x), transform_vector(a, x)) < 1e-12);
        expect_true("transform_get_translation", "value", transform_get_translation(a) == a.p);
        expect_true("transform_get_rotation", "value", transform_get_rotation(a) == a.q);
        const double s = rnd() + 2.0;
        for (int i = 0; i < 7; ++i) {
            expect_near("extract", "component", extract(a, i), reinterpret_cast<const double*>(&a)[i]);
            expect_near("add", "component", add(a, b)[i], a[i] + b[i]);
            expect_near("sub", "component", sub(a, b)[i], a[i] - b[i]);
            expect_near("mul(t,s)", "component", mul(a, s)[i], a[i] * s);
            expect_near("mul(s,t)", "component", mul(s, a)[i], a[i] * s);
            const X w = with_index(a, i, 9.0);
            expect_true("with_index", "replaced", w[i] == 9.0 && w[(i + 1) % 7] == a[(i + 1) % 7]);
        }
        expect_true("eq/ne", "value", eq(a, a) && !ne(a, a) && ne(a, b) && a != b);
    }
    // float32 and half instantiations
    const transformf tf(vec3f(1.f, 2.f, 3.f), quat_from_axis_angle(vec3f(0.f, 0.f, 1.f), float32(PI / 2)));
    const vec3f pf = transform_point(transform_inverse(tf), transform_point(tf, vec3f(0.5f, -1.f, 2.f)));
    expect_true("transform_inverse<float>", "round trip", length(sub(pf, vec3f(0.5f, -1.f, 2.f))) < 1e-5f);
    const transformh th(tf);
    expect_near("transform_point<half>", "y", double(float32(transform_point(th, vec3h(1.f, 0.f, 0.f))[1])), 3.0, 4e-3);
}

static void test_adjoints() {
    for (int rep = 0; rep < 4; ++rep) {
        const X a = random_of<X>(), b = random_of<X>();  // non-unit q too: gradients are of the formulas
        const V3 x = random_of<V3>();
        const M44 m = random_of<M44>();
        const double s = rnd() + 2.0;
        check2<X>("adj_transform_multiply", [](const X& u, const X& v) { return transform_multiply(u, v); },
                  [](const X& u, const X& v, X& gu, X& gv, const X& w) { adj_transform_multiply(u, v, gu, gv, w); }, a, b);
        check2<X>("adj_mul(t,t)", [](const X& u, const X& v) { return mul(u, v); },
                  [](const X& u, const X& v, X& gu, X& gv, const X& w) { adj_mul(u, v, gu, gv, w); }, a, b);
        check2<V3>("adj_transform_point", [](const X& u, const V3& v) { return transform_point(u, v); },
                   [](const X& u, const V3& v, X& gu, V3& gv, const V3& w) { adj_transform_point(u, v, gu, gv, w); }, a, x);
        check2<V3>("adj_transform_vector", [](const X& u, const V3& v) { return transform_vector(u, v); },
                   [](const X& u, const V3& v, X& gu, V3& gv, const V3& w) { adj_transform_vector(u, v, gu, gv, w); }, a, x);
        check1<X>("adj_transform_inverse", [](const X& u) { return transform_inverse(u); },
                  [](const X& u, X& g, const X& w) { adj_transform_inverse(u, g, w); }, a);
        check2<V3>("adj_transform_point(mat44)", [](const M44& u, const V3& v) { return transform_point(u, v); },
                   [](const M44& u, const V3& v, M44& gu, V3& gv, const V3& w) { adj_transform_point(u, v, gu, gv, w); }, m, x);
        check2<V3>("adj_transform_vector(mat44)", [](const M44& u, const V3& v) { return transform_vector(u, v); },
                   [](const M44& u, const V3& v, M44& gu, V3& gv, const V3& w) { adj_transform_vector(u, v, gu, gv, w); }, m, x);
        check1<V3>("adj_transform_get_translation", [](const X& u) { return transform_get_translation(u); },
                   [](const X& u, X& g, const V3& w) { adj_transform_get_translation(u, g, w); }, a);
        check1<Q>("adj_transform_get_rotation", [](const X& u) { return transform_get_rotation(u); },
                  [](const X& u, X& g, const Q& w) { adj_transform_get_rotation(u, g, w); }, a);
        check2<X>("adj_add", [](const X& u, const X& v) { return add(u, v); },
                  [](const X& u, const X& v, X& gu, X& gv, const X& w) { adj_add(u, v, gu, gv, w); }, a, b);
        check2<X>("adj_sub", [](const X& u, const X& v) { return sub(u, v); },
                  [](const X& u, const X& v, X& gu, X& gv, const X& w) { adj_sub(u, v, gu, gv, w); }, a, b);
        check2<X>("adj_mul(t,s)", [](const X& u, double v) { return mul(u, v); },
                  [](const X& u, double v, X& gu, double& gv, const X& w) { adj_mul(u, v, gu, gv, w); }, a, s);
        check2<X>("adj_mul(s,t)", [](double v, const X& u) { return mul(v, u); },
                  [](double v, const X& u, double& gv, X& gu, const X& w) { adj_mul(v, u, gv, gu, w); }, s, a);
        for (int i = 0; i < 7; ++i) {
            check1<double>("adj_extract", [i](const X& u) { return extract(u, i); },
                           [i](const X& u, X& g, const double& w) { int32 gi = 0; adj_extract(u, i, g, gi, w); }, a);
            check2<X>("adj_with_index", [i](const X& u, double v) { return with_index(u, i, v); },
                      [i](const X& u, double v, X& gu, double& gv, const X& w) { int32 gi = 0; adj_with_index(u, i, v, gu, gi, gv, w); }, a, s);
        }
    }
}

int main() {
    test_layout_and_constructors();
    test_values();
    test_adjoints();
    if (g_fail) std::printf("test_transform: %d failure(s)\n", g_fail);
    else std::printf("test_transform: all passed\n");
    return g_fail ? 1 : 0;
}
