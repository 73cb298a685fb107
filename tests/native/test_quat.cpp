// Mirror test of native/core/quat.h: values against independent formulas (q v q* products, rotation
// matrices, Warp's documented examples), every adjoint against central differences in float64.
#include <cmath>
#include <cstdio>
#include <type_traits>

#include "core/quat.h"
#include "adjoint_check.h"  // expect_near, check1..3: adjoints against central differences

using namespace wpnb;

typedef vec_t<3, double> V3;
typedef vec_t<4, double> V4;
typedef mat_t<3, 3, double> M33;
typedef mat_t<4, 4, double> M44;
typedef quat_t<double> Q;

static const double PI = 3.14159265358979323846;

static Q random_unit() { return normalize(random_of<Q>()); }
static double vdiff(const V3& a, const V3& b) { return length(sub(a, b)); }
static double qdiff_sign(const Q& a, const Q& b) {  // distance up to the sign of q
    return std::fmin(length(sub(a, b)), length(add(a, b)));
}
// q v q* computed with Hamilton products (independent of quat_rotate's closed form).
static V3 rotate_by_products(const Q& q, const V3& v) {
    const Q r = mul(mul(q, Q(v, 0.0)), quat_inverse(q));
    return V3(r.x, r.y, r.z);
}
// A rotation matrix near angle `ang` about a unit axis, plus small noise (for from_matrix branches).
static M33 noisy_rotation(const V3& axis, double ang, double noise) {
    M33 m = quat_to_matrix(quat_from_axis_angle(normalize(axis), ang));
    for (int i = 0; i < 3; ++i) for (int j = 0; j < 3; ++j) m.c[i][j] += noise * rnd();
    return m;
}

static void test_layout_and_constructors() {
    static_assert(sizeof(quatf) == 16, "quatf is 16 bytes");
    static_assert(sizeof(quatd) == 32, "quatd is 32 bytes");
    static_assert(sizeof(quath) == 8, "quath is 8 bytes");
    static_assert(std::is_standard_layout<quatf>::value, "standard layout");
    static_assert(std::is_trivially_copyable<quatd>::value, "trivially copyable");
    const quatf q(1.f, 2.f, 3.f, 4.f);
    const float32* raw = reinterpret_cast<const float32*>(&q);
    expect_true("quat_t(x,y,z,w)", "memory order x y z w", raw[0] == 1.f && raw[1] == 2.f && raw[2] == 3.f && raw[3] == 4.f);
    expect_true("quat_t(v,w)", "value", quatf(vec3f(1.f, 2.f, 3.f), 4.f) == q);
    expect_true("quat_t()", "zero", quatf() == quatf(0.f, 0.f, 0.f, 0.f));
    expect_true("quat_identity", "value", quat_identity<float32>() == quatf(0.f, 0.f, 0.f, 1.f));
    expect_true("quat_t<double>(quath)", "round trip", quatd(quath(q)) == quatd(1.0, 2.0, 3.0, 4.0));
    expect_true("operator[]", "read", q[0] == 1.f && q[3] == 4.f);
    for (int rep = 0; rep < 3; ++rep) {
        check1<Q>("adj_quat_t(x,y,z,w)", [](const V4& x) { return Q(x[0], x[1], x[2], x[3]); },
                  [](const V4& x, V4& g, const Q& w) { adj_quat_t(x[0], x[1], x[2], x[3], g[0], g[1], g[2], g[3], w); },
                  random_of<V4>());
        check2<Q>("adj_quat_t(v,w)", [](const V3& v, double w) { return Q(v, w); },
                  [](const V3& v, double w, V3& gv, double& gw, const Q& g) { adj_quat_t(v, w, gv, gw, g); },
                  random_of<V3>(), rnd());
    }
}

static void test_values() {
    // Hamilton's rules i j = k, j k = i, k i = j, i i = -1
    const Q i(1, 0, 0, 0), j(0, 1, 0, 0), k(0, 0, 1, 0);
    expect_true("mul(q,q)", "i j = k", mul(i, j) == k);
    expect_true("mul(q,q)", "j k = i", mul(j, k) == i);
    expect_true("mul(q,q)", "k i = j", mul(k, i) == j);
    expect_true("mul(q,q)", "i i = -1", mul(i, i) == Q(0, 0, 0, -1));
    // Warp's documented examples
    const V3 r90 = quat_rotate(quat_from_axis_angle(V3(0, 0, 1), PI / 2), V3(1, 0, 0));
    expect_true("quat_from_axis_angle", "pi/2 about z maps x to y", vdiff(r90, V3(0, 1, 0)) < 1e-12);
    const V3 rp = quat_rotate(quat_rpy(PI / 2, 0.0, PI / 2), V3(1, 2, 3));
    expect_true("quat_rpy", "(pi/2, 0, pi/2) maps (1,2,3) to (3,1,2)", vdiff(rp, V3(3, 1, 2)) < 1e-12);
    const Q hz = quat_slerp(quat_identity<double>(), quat_from_axis_angle(V3(0, 0, 1), PI / 2), 0.5);
    expect_true("quat_slerp", "halfway to a quarter turn", length(sub(hz, Q(0, 0, std::sin(PI / 8), std::cos(PI / 8)))) < 1e-12);
    const Q hz2 = quat_slerp(quat_identity<double>(), neg(quat_from_axis_angle(V3(0, 0, 1), PI / 2)), 0.5);
    expect_true("quat_slerp", "-b gives the same path", length(sub(hz, hz2)) < 1e-12);

    for (int rep = 0; rep < 8; ++rep) {
        const Q q = random_unit(), p = random_unit();
        const V3 v = random_of<V3>();
        const V3 rv = quat_rotate(q, v);
        expect_true("quat_rotate", "== q v q*", vdiff(rv, rotate_by_products(q, v)) < 1e-12);
        expect_true("quat_rotate", "== quat_to_matrix(q) v", vdiff(rv, mul(quat_to_matrix(q), v)) < 1e-12);
        expect_true("quat_rotate_inv", "undoes quat_rotate", vdiff(quat_rotate_inv(q, rv), v) < 1e-12);
        expect_true("quat_rotate_inv", "== rotate by quat_inverse", vdiff(quat_rotate_inv(q, v), quat_rotate(quat_inverse(q), v)) < 1e-12);
        expect_near("quat_rotate", "keeps length", length(rv), length(v));
        expect_true("mul(q,q)", "composes rotations", vdiff(quat_rotate(mul(q, p), v), quat_rotate(q, quat_rotate(p, v))) < 1e-12);
        expect_true("quat_inverse", "q q^-1 = 1", length(sub(mul(q, quat_inverse(q)), quat_identity<double>())) < 1e-12);
        const M33 m = quat_to_matrix(q);
        expect_true("quat_to_matrix", "orthonormal", length(sub(get_diag(mul(m, transpose(m))), V3(1.0))) < 1e-12);
        expect_near("quat_to_matrix", "det = 1", determinant(m), 1.0);
        expect_true("quat_from_matrix", "round trip (up to sign)", qdiff_sign(quat_from_matrix(m), q) < 1e-12);
        M44 m4 = identity<4, double>();
        for (int a = 0; a < 3; ++a) for (int b = 0; b < 3; ++b) m4.c[a][b] = m.c[a][b];
        m4.c[0][3] = 5.0; m4.c[3][1] = 7.0;  // ignored entries
        expect_true("quat_from_matrix(mat44)", "round trip", qdiff_sign(quat_from_matrix(m4), q) < 1e-12);
        // axis-angle round trip, angle in [0, pi]
        const V3 axis = normalize(random_of<V3>());
        const double ang = PI * (0.5 + 0.45 * rnd());
        const Q qa = quat_from_axis_angle(axis, ang);
        expect_near("quat_from_axis_angle", "unit", length(qa), 1.0);
        V3 ax2; double an2;
        quat_to_axis_angle(qa, ax2, an2);
        expect_true("quat_to_axis_angle", "round trip", std::fabs(an2 - ang) < 1e-12 && vdiff(ax2, axis) < 1e-12);
        quat_to_axis_angle(mul(neg(qa), 3.0), ax2, an2);  // -q and scaling: same rotation
        expect_true("quat_to_axis_angle", "-3q gives the same", std::fabs(an2 - ang) < 1e-12 && vdiff(ax2, axis) < 1e-12);
        // rpy == qz * qy * qx
        const double ro = rnd() * PI, pi_ = rnd() * PI, ya = rnd() * PI;
        const Q ref = mul(quat_from_axis_angle(V3(0, 0, 1), ya), mul(quat_from_axis_angle(V3(0, 1, 0), pi_), quat_from_axis_angle(V3(1, 0, 0), ro)));
        expect_true("quat_rpy", "== qz qy qx", length(sub(quat_rpy(ro, pi_, ya), ref)) < 1e-12);
        // slerp: endpoints, unit length, constant angular rate
        const Q b = mul(p, 2.0);  // b need not be unit
        const Q bs = dot(q, p) < 0 ? neg(p) : p;
        expect_true("quat_slerp", "t = 0 gives a", length(sub(quat_slerp(q, b, 0.0), q)) < 1e-12);
        expect_true("quat_slerp", "t = 1 gives +-normalize(b)", length(sub(quat_slerp(q, b, 1.0), bs)) < 1e-12);
        const double t = 0.5 + 0.4 * rnd();
        const Q st = quat_slerp(q, b, t);
        expect_near("quat_slerp", "unit", length(st), 1.0);
        const double full = std::acos(std::fmin(1.0, dot(q, bs)));
        expect_near("quat_slerp", "angle from a is t * angle", std::acos(std::fmin(1.0, dot(q, st))), t * full, 1e-9);
        // componentwise
        const double s = rnd() + 2.0;
        for (int c = 0; c < 4; ++c) {
            expect_near("add", "component", add(q, p)[c], q[c] + p[c]);
            expect_near("sub", "component", sub(q, p)[c], q[c] - p[c]);
            expect_near("neg", "component", neg(q)[c], -q[c]);
            expect_near("pos", "component", pos(q)[c], q[c]);
            expect_near("mul(q,s)", "component", mul(q, s)[c], q[c] * s);
            expect_near("mul(s,q)", "component", mul(s, q)[c], q[c] * s);
            expect_near("div(q,s)", "component", div(q, s)[c], q[c] / s);
            expect_near("lerp", "component", lerp(q, p, s)[c], q[c] + s * (p[c] - q[c]));
            expect_near("extract", "component", extract(q, c), q[c]);
            const Q w = with_index(q, c, 9.0);
            expect_true("with_index", "replaced", w[c] == 9.0 && w[(c + 1) % 4] == q[(c + 1) % 4]);
        }
        expect_near("dot", "value", dot(q, p), q.x * p.x + q.y * p.y + q.z * p.z + q.w * p.w);
        expect_near("length", "value", length(b), 2.0);
        expect_near("length_sq", "value", length_sq(b), 4.0);
        expect_near("normalize", "unit", length(normalize(b)), 1.0);
        expect_true("eq/ne", "value", eq(q, q) && ne(q, p) && !(q != q) && !eq(q, neg(q)));
    }
    // the four Shepperd branches: small angle (trace > 0), and near-pi turns about x, y, z
    const V3 axes[4] = {V3(0.3, 0.2, 0.9), V3(1, 0.1, 0.1), V3(0.1, 1, 0.1), V3(0.1, 0.1, 1)};
    const double angs[4] = {0.4, 3.0, 3.0, 3.0};
    for (int b = 0; b < 4; ++b) {
        const Q q = quat_from_axis_angle(normalize(axes[b]), angs[b]);
        expect_true("quat_from_matrix", "branch round trip", qdiff_sign(quat_from_matrix(quat_to_matrix(q)), q) < 1e-12);
    }
    // exact half turns about x, y, z (only the matching branch avoids dividing by zero)
    for (int a = 0; a < 3; ++a) {
        Q q; q[a] = 1.0;
        M33 m(-1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, -1.0);
        m.c[a][a] = 1.0;
        expect_true("quat_from_matrix", "half turn about an axis", qdiff_sign(quat_from_matrix(m), q) < 1e-15);
    }
    expect_true("quat_from_matrix", "identity", quat_from_matrix(identity<3, double>()) == quat_identity<double>());
    // slerp at small angles (series branch) against the sine formula in long double
    for (int rep = 0; rep < 4; ++rep) {
        const Q a = random_unit();
        const V3 ax = normalize(random_of<V3>());
        const double th = rep < 2 ? 1e-4 : 1.5e-3;  // below and above the series threshold
        const Q b = mul(mul(a, quat_from_axis_angle(ax, 2 * th)), 1.3);  // angle between a and b is th
        const double t = 0.3;
        const Q got = quat_slerp(a, b, t);
        const Q bn = normalize(b);
        const long double phi = std::acos((long double)dot(a, bn));
        const long double ka = std::sin((1 - t) * phi) / std::sin(phi), kb = std::sin(t * phi) / std::sin(phi);
        for (int c = 0; c < 4; ++c)
            expect_near("quat_slerp(small angle)", "== sine formula", got[c], double(ka * a[c] + kb * bn[c]), 1e-12);
    }
    // edge cases
    expect_true("normalize(0)", "zero", normalize(Q()) == Q());
    V3 ax; double an;
    quat_to_axis_angle(quat_identity<double>(), ax, an);
    expect_true("quat_to_axis_angle(identity)", "angle 0, axis 0 (as Warp)", an == 0.0 && ax == V3(0, 0, 0));
    quat_to_axis_angle(Q(0, 0, 1, 0), ax, an);
    expect_true("quat_to_axis_angle(pi about z)", "angle pi", std::fabs(an - PI) < 1e-12 && vdiff(ax, V3(0, 0, 1)) < 1e-12);
    // float32 and half instantiations
    const quatf qf = quat_rpy(0.3f, -0.2f, 0.9f);
    const vec3f vf = quat_rotate(qf, vec3f(1.f, 2.f, 3.f));
    expect_near("quat_rotate<float>", "keeps length", length(vf), std::sqrt(14.0), 1e-6);
    const quath qh(quat_from_axis_angle(vec3f(0.f, 0.f, 1.f), float32(PI / 2)));
    const vec3h vh = quat_rotate(qh, vec3h(1.f, 0.f, 0.f));
    expect_near("quat_rotate<half>", "x -> y", double(float32(vh[1])), 1.0, 2e-3);
    expect_near("quat_from_matrix<half>", "w", double(float32(quat_from_matrix(quat_to_matrix(qh)).w)), std::cos(PI / 4), 2e-3);
}

static void test_adjoints() {
    for (int rep = 0; rep < 4; ++rep) {
        const Q a = random_of<Q>(), b = random_of<Q>(), u = random_unit();
        const V3 v = random_of<V3>();
        const double s = rnd() + 2.0, t = 0.5 + 0.4 * rnd();
        check2<Q>("adj_add", [](const Q& x, const Q& y) { return add(x, y); },
                  [](const Q& x, const Q& y, Q& gx, Q& gy, const Q& w) { adj_add(x, y, gx, gy, w); }, a, b);
        check2<Q>("adj_sub", [](const Q& x, const Q& y) { return sub(x, y); },
                  [](const Q& x, const Q& y, Q& gx, Q& gy, const Q& w) { adj_sub(x, y, gx, gy, w); }, a, b);
        check1<Q>("adj_neg", [](const Q& x) { return neg(x); }, [](const Q& x, Q& g, const Q& w) { adj_neg(x, g, w); }, a);
        check1<Q>("adj_pos", [](const Q& x) { return pos(x); }, [](const Q& x, Q& g, const Q& w) { adj_pos(x, g, w); }, a);
        check2<Q>("adj_mul(q,s)", [](const Q& x, double y) { return mul(x, y); },
                  [](const Q& x, double y, Q& gx, double& gy, const Q& w) { adj_mul(x, y, gx, gy, w); }, a, s);
        check2<Q>("adj_mul(s,q)", [](double y, const Q& x) { return mul(y, x); },
                  [](double y, const Q& x, double& gy, Q& gx, const Q& w) { adj_mul(y, x, gy, gx, w); }, s, a);
        check2<Q>("adj_div(q,s)", [](const Q& x, double y) { return div(x, y); },
                  [](const Q& x, double y, Q& gx, double& gy, const Q& w) { adj_div(x, y, gx, gy, w); }, a, s);
        check2<Q>("adj_mul(q,q)", [](const Q& x, const Q& y) { return mul(x, y); },
                  [](const Q& x, const Q& y, Q& gx, Q& gy, const Q& w) { adj_mul(x, y, gx, gy, w); }, a, b);
        check2<double>("adj_dot", [](const Q& x, const Q& y) { return dot(x, y); },
                       [](const Q& x, const Q& y, Q& gx, Q& gy, const double& w) { adj_dot(x, y, gx, gy, w); }, a, b);
        check1<double>("adj_length", [](const Q& x) { return length(x); }, [](const Q& x, Q& g, const double& w) { adj_length(x, g, w); }, a);
        check1<double>("adj_length_sq", [](const Q& x) { return length_sq(x); },
                       [](const Q& x, Q& g, const double& w) { adj_length_sq(x, g, w); }, a);
        check1<Q>("adj_normalize", [](const Q& x) { return normalize(x); }, [](const Q& x, Q& g, const Q& w) { adj_normalize(x, g, w); }, a);
        check3<Q>("adj_lerp", [](const Q& x, const Q& y, double z) { return lerp(x, y, z); },
                  [](const Q& x, const Q& y, double z, Q& gx, Q& gy, double& gz, const Q& w) { adj_lerp(x, y, z, gx, gy, gz, w); }, a, b, s);
        for (int c = 0; c < 4; ++c) {
            check1<double>("adj_extract", [c](const Q& x) { return extract(x, c); },
                           [c](const Q& x, Q& g, const double& w) { int32 gi = 0; adj_extract(x, c, g, gi, w); }, a);
            check2<Q>("adj_with_index", [c](const Q& x, double y) { return with_index(x, c, y); },
                      [c](const Q& x, double y, Q& gx, double& gy, const Q& w) { int32 gi = 0; adj_with_index(x, c, y, gx, gi, gy, w); }, a, s);
        }
        check1<Q>("adj_quat_inverse", [](const Q& x) { return quat_inverse(x); },
                  [](const Q& x, Q& g, const Q& w) { adj_quat_inverse(x, g, w); }, a);
        check2<Q>("adj_quat_from_axis_angle", [](const V3& x, double y) { return quat_from_axis_angle(x, y); },
                  [](const V3& x, double y, V3& gx, double& gy, const Q& w) { adj_quat_from_axis_angle(x, y, gx, gy, w); }, v, s);
        // rotation builtins at non-unit quaternions too: the gradient is of the formula as written
        check2<V3>("adj_quat_rotate", [](const Q& x, const V3& y) { return quat_rotate(x, y); },
                   [](const Q& x, const V3& y, Q& gx, V3& gy, const V3& w) { adj_quat_rotate(x, y, gx, gy, w); }, a, v);
        check2<V3>("adj_quat_rotate_inv", [](const Q& x, const V3& y) { return quat_rotate_inv(x, y); },
                   [](const Q& x, const V3& y, Q& gx, V3& gy, const V3& w) { adj_quat_rotate_inv(x, y, gx, gy, w); }, a, v);
        check1<M33>("adj_quat_to_matrix", [](const Q& x) { return quat_to_matrix(x); },
                    [](const Q& x, Q& g, const M33& w) { adj_quat_to_matrix(x, g, w); }, a);
        check3<Q>("adj_quat_rpy", [](double x, double y, double z) { return quat_rpy(x, y, z); },
                  [](double x, double y, double z, double& gx, double& gy, double& gz, const Q& w) { adj_quat_rpy(x, y, z, gx, gy, gz, w); },
                  3 * rnd(), 3 * rnd(), 3 * rnd());
        // quat_to_axis_angle (output-argument form), packed as (axis, angle)
        check1<V4>("adj_quat_to_axis_angle",
                   [](const Q& x) { V3 ax; double an; quat_to_axis_angle(x, ax, an); return V4(ax[0], ax[1], ax[2], an); },
                   [](const Q& x, Q& g, const V4& w) {
                       V3 ax; double an; V3 gax(w[0], w[1], w[2]); double gan = w[3];
                       adj_quat_to_axis_angle(x, ax, an, g, gax, gan); }, a);
        // slerp: general, flipped (dot < 0), and the small-angle fallback
        const Q bf = dot(u, b) < 0 ? b : neg(b);
        check3<Q>("adj_quat_slerp", [](const Q& x, const Q& y, double z) { return quat_slerp(x, y, z); },
                  [](const Q& x, const Q& y, double z, Q& gx, Q& gy, double& gz, const Q& w) { adj_quat_slerp(x, y, z, gx, gy, gz, w); },
                  u, b, t, 1e-5);
        check3<Q>("adj_quat_slerp(flipped)", [](const Q& x, const Q& y, double z) { return quat_slerp(x, y, z); },
                  [](const Q& x, const Q& y, double z, Q& gx, Q& gy, double& gz, const Q& w) { adj_quat_slerp(x, y, z, gx, gy, gz, w); },
                  u, bf, t, 1e-5);
        const Q near = add(mul(u, 1.5), mul(random_of<Q>(), 1e-5));
        check3<Q>("adj_quat_slerp(small angle)", [](const Q& x, const Q& y, double z) { return quat_slerp(x, y, z); },
                  [](const Q& x, const Q& y, double z, Q& gx, Q& gy, double& gz, const Q& w) { adj_quat_slerp(x, y, z, gx, gy, gz, w); },
                  u, near, t, 1e-5);
    }
    // quat_from_matrix in each Shepperd branch, at noisy rotations (not exactly orthonormal)
    const V3 axes[4] = {V3(0.3, 0.2, 0.9), V3(1, 0.1, 0.1), V3(0.1, 1, 0.1), V3(0.1, 0.1, 1)};
    const double angs[4] = {0.4, 3.0, 3.0, 3.0};
    for (int rep = 0; rep < 2; ++rep)
        for (int b = 0; b < 4; ++b) {
            const M33 m = noisy_rotation(axes[b], angs[b], 0.05);
            check1<Q>("adj_quat_from_matrix", [](const M33& x) { return quat_from_matrix(x); },
                      [](const M33& x, M33& g, const Q& w) { adj_quat_from_matrix(x, g, w); }, m);
            M44 m4 = random_of<M44>();
            for (int i = 0; i < 3; ++i) for (int j = 0; j < 3; ++j) m4.c[i][j] = m.c[i][j];
            check1<Q>("adj_quat_from_matrix(mat44)", [](const M44& x) { return quat_from_matrix(x); },
                      [](const M44& x, M44& g, const Q& w) { adj_quat_from_matrix(x, g, w); }, m4);
        }
}

int main() {
    test_layout_and_constructors();
    test_values();
    test_adjoints();
    if (g_fail) std::printf("test_quat: %d failure(s)\n", g_fail);
    else std::printf("test_quat: all passed\n");
    return g_fail ? 1 : 0;
}
