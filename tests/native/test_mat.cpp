// Mirror test of native/core/mat.h: values against independent formulas (Gaussian elimination for
// determinants, m * inverse(m) == I, ...), every adjoint against central differences in float64.
#include <cmath>
#include <cstdio>
#include <type_traits>
#include <utility>

#include "core/mat.h"
#include "adjoint_check.h"  // expect_near, check1..3: adjoints against central differences

using namespace wpnb;

typedef vec_t<2, double> V2;
typedef vec_t<3, double> V3;
typedef vec_t<4, double> V4;
typedef mat_t<2, 2, double> M22;
typedef mat_t<3, 3, double> M33;
typedef mat_t<4, 4, double> M44;
typedef mat_t<2, 3, double> M23;
typedef mat_t<3, 2, double> M32;
typedef mat_t<3, 4, double> M34;

// Independent determinant: Gaussian elimination with partial pivoting.
template <int N> static double det_gauss(const mat_t<N, N, double>& m) {
    double a[N][N];
    for (int i = 0; i < N; ++i) for (int j = 0; j < N; ++j) a[i][j] = m.c[i][j];
    double d = 1;
    for (int k = 0; k < N; ++k) {
        int p = k;
        for (int i = k + 1; i < N; ++i) if (std::fabs(a[i][k]) > std::fabs(a[p][k])) p = i;
        if (a[p][k] == 0) return 0;
        if (p != k) { for (int j = 0; j < N; ++j) std::swap(a[p][j], a[k][j]); d = -d; }
        d *= a[k][k];
        for (int i = k + 1; i < N; ++i) {
            const double f = a[i][k] / a[k][k];
            for (int j = k; j < N; ++j) a[i][j] -= f * a[k][j];
        }
    }
    return d;
}
// A well-conditioned random matrix: random entries plus 2 on the diagonal.
template <int N> static mat_t<N, N, double> well_conditioned() {
    mat_t<N, N, double> m = random_of<mat_t<N, N, double>>();
    for (int i = 0; i < N; ++i) m.c[i][i] += 2.5;
    return m;
}
template <int R, int C> static double max_abs_diff(const mat_t<R, C, double>& a, const mat_t<R, C, double>& b) {
    double e = 0; for (int i = 0; i < R; ++i) for (int j = 0; j < C; ++j) e = std::fmax(e, std::fabs(a.c[i][j] - b.c[i][j]));
    return e;
}

static void test_layout_and_constructors() {
    static_assert(sizeof(mat33f) == 36, "mat33f is 36 bytes");
    static_assert(sizeof(mat44d) == 128, "mat44d is 128 bytes");
    static_assert(sizeof(mat22h) == 8, "mat22h is 8 bytes");
    static_assert(sizeof(mat_t<2, 3, float32>) == 24, "mat23f is 24 bytes");
    static_assert(std::is_standard_layout<mat33f>::value, "standard layout");
    static_assert(std::is_trivially_copyable<mat44d>::value, "trivially copyable");
    const mat_t<2, 3, float32> m(1.f, 2.f, 3.f, 4.f, 5.f, 6.f);
    const float32* raw = reinterpret_cast<const float32*>(&m);
    expect_true("mat_t(6 scalars)", "row-major storage", raw[0] == 1.f && raw[2] == 3.f && raw[3] == 4.f && raw[5] == 6.f);
    expect_true("mat_t(6 scalars)", "m(1,0)", m(1, 0) == 4.f && m.c[0][2] == 3.f);
    const mat33f z;
    expect_true("mat_t()", "zero", z == mat33f(0.f));
    expect_true("mat_t(s)", "broadcast", mat22f(2.f) == mat22f(2.f, 2.f, 2.f, 2.f));
    const mat22h h(mat22f(1.f, 2.f, 3.f, 4.f));
    const mat22d d(h);
    expect_true("mat_t<half>(mat22f)", "round trip", d == M22(1.0, 2.0, 3.0, 4.0));
    expect_true("identity<3,float32>", "value", identity<3, float32>() == mat33f(1.f, 0.f, 0.f, 0.f, 1.f, 0.f, 0.f, 0.f, 1.f));

    const V3 a(1.0, 2.0, 3.0), b(4.0, 5.0, 6.0);
    const M23 r = matrix_from_rows(a, b);
    expect_true("matrix_from_rows", "2x3 rows", r == M23(1.0, 2.0, 3.0, 4.0, 5.0, 6.0));
    const M32 c = matrix_from_cols(a, b);
    expect_true("matrix_from_cols", "3x2 columns", c == M32(1.0, 4.0, 2.0, 5.0, 3.0, 6.0));
    const M33 c3 = matrix_from_cols(a, b, V3(7.0, 8.0, 9.0));
    expect_true("matrix_from_cols", "3x3 == transpose(from_rows)", c3 == transpose(matrix_from_rows(a, b, V3(7.0, 8.0, 9.0))));

    for (int rep = 0; rep < 3; ++rep) {
        check1<M22>("adj_mat_t(4 scalars)", [](const V4& x) { return M22(x[0], x[1], x[2], x[3]); },
                    [](const V4& x, V4& g, const M22& w) { adj_mat_t(x[0], x[1], x[2], x[3], g[0], g[1], g[2], g[3], w); },
                    random_of<V4>());
        typedef vec_t<9, double> V9;
        check1<M33>("adj_mat_t(9 scalars)", [](const V9& x) { return M33(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8]); },
                    [](const V9& x, V9& g, const M33& w) {
                        adj_mat_t(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], g[0], g[1], g[2], g[3], g[4], g[5],
                                  g[6], g[7], g[8], w); }, random_of<V9>());
        typedef vec_t<16, double> V16;
        check1<M44>("adj_mat_t(16 scalars)",
                    [](const V16& x) { return M44(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], x[10], x[11],
                                                  x[12], x[13], x[14], x[15]); },
                    [](const V16& x, V16& g, const M44& w) {
                        adj_mat_t(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], x[10], x[11], x[12], x[13], x[14],
                                  x[15], g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13],
                                  g[14], g[15], w); }, random_of<V16>());
        check1<M33>("adj_mat_t(s)", [](double x) { return M33(x); },
                    [](double x, double& g, const M33& w) { adj_mat_t(x, g, w); }, rnd());
        check2<M23>("adj_matrix_from_rows", [](const V3& x, const V3& y) { return matrix_from_rows(x, y); },
                    [](const V3& x, const V3& y, V3& gx, V3& gy, const M23& w) { adj_matrix_from_rows(x, y, gx, gy, w); },
                    random_of<V3>(), random_of<V3>());
        check2<M32>("adj_matrix_from_cols", [](const V3& x, const V3& y) { return matrix_from_cols(x, y); },
                    [](const V3& x, const V3& y, V3& gx, V3& gy, const M32& w) { adj_matrix_from_cols(x, y, gx, gy, w); },
                    random_of<V3>(), random_of<V3>());
        check3<M33>("adj_matrix_from_cols(3)", [](const V3& x, const V3& y, const V3& c3v) { return matrix_from_cols(x, y, c3v); },
                    [](const V3& x, const V3& y, const V3& c3v, V3& gx, V3& gy, V3& gz, const M33& w) {
                        adj_matrix_from_cols(x, y, c3v, gx, gy, gz, w); }, random_of<V3>(), random_of<V3>(), random_of<V3>());
        const M22 w = random_of<M22>();
        mat22f gu(1.f);
        adj_mat_t(mat22f(1.f), gu, w);
        expect_near("adj_mat_t(conversion)", "entry", gu(1, 0), double(float(1.0 + float(w(1, 0)))), 1e-6);
    }
}

template <int N> static void test_square_values(const char* tag) {
    typedef mat_t<N, N, double> M;
    for (int rep = 0; rep < 5; ++rep) {
        const M m = well_conditioned<N>(), n = random_of<M>();
        expect_near("determinant", tag, determinant(m), det_gauss<N>(m), 1e-10);
        expect_near("determinant", "det(AB) = det(A) det(B)", determinant(mul(m, n)), determinant(m) * determinant(n), 1e-9);
        expect_near("determinant", "det(A^T) = det(A)", determinant(transpose(n)), determinant(n), 1e-10);
        const M inv = inverse(m);
        expect_true("inverse", tag, max_abs_diff(mul(m, inv), identity<N, double>()) < 1e-10 &&
                                        max_abs_diff(mul(inv, m), identity<N, double>()) < 1e-10);
        double tr = 0; for (int i = 0; i < N; ++i) tr += m.c[i][i];
        expect_near("trace", tag, trace(m), tr);
        expect_near("ddot", "== trace(A^T B)", ddot(m, n), trace(mul(transpose(m), n)));
        expect_true("diag/get_diag", tag, get_diag(diag(get_diag(m))) == get_diag(m) && trace(diag(get_diag(m))) == trace(m));
    }
    // singular: two equal rows -> determinant 0, inverse returns zeros with zero gradient
    M s = random_of<M>();
    for (int j = 0; j < N; ++j) s.c[1][j] = s.c[0][j];
    expect_near("determinant(singular)", tag, determinant(s), 0.0, 1e-12);
    M s2 = identity<N, double>(); s2.c[N - 1][N - 1] = 0.0;
    expect_true("inverse(singular)", "zero matrix", inverse(s2) == M());
    M g(1.0);
    adj_inverse(s2, g, random_of<M>());
    expect_true("adj_inverse(singular)", "zero gradient", g == M(1.0));
}

static void test_values() {
    for (int rep = 0; rep < 5; ++rep) {
        const M23 a = random_of<M23>();
        const M34 b = random_of<M34>();
        const mat_t<2, 4, double> p = mul(a, b);
        for (int i = 0; i < 2; ++i) for (int j = 0; j < 4; ++j) {
            double s = 0; for (int k = 0; k < 3; ++k) s += a.c[i][k] * b.c[k][j];
            expect_near("mul(m,m)", "2x3 * 3x4", p.c[i][j], s);
        }
        const V3 v = random_of<V3>(), u = random_of<V3>();
        const V2 mv = mul(a, v);
        expect_near("mul(m,v)", "row 0", mv[0], a.c[0][0] * v[0] + a.c[0][1] * v[1] + a.c[0][2] * v[2]);
        expect_near("mul(m,v)", "row 1", mv[1], a.c[1][0] * v[0] + a.c[1][1] * v[1] + a.c[1][2] * v[2]);
        const V2 w2 = random_of<V2>();
        const V3 vm = mul(w2, a), vt = mul(transpose(a), w2);
        for (int j = 0; j < 3; ++j) expect_near("mul(v,m)", "== transpose(m) * v", vm[j], vt[j]);
        const M33 sk = skew(v);
        const V3 cx = mul(sk, u), cr = cross(v, u);
        for (int j = 0; j < 3; ++j) expect_near("skew", "skew(a) b == cross(a, b)", cx[j], cr[j]);
        const M32 o = outer(v, w2);
        expect_near("outer", "entry (2,1)", o.c[2][1], v[2] * w2[1]);
        const double s = rnd() + 2.0;
        for (int i = 0; i < 2; ++i) for (int j = 0; j < 3; ++j) {
            expect_near("add", "entry", add(a, a).c[i][j], 2 * a.c[i][j]);
            expect_near("sub", "entry", sub(a, mul(a, 2.0)).c[i][j], -a.c[i][j]);
            expect_near("neg", "entry", neg(a).c[i][j], -a.c[i][j]);
            expect_near("pos", "entry", pos(a).c[i][j], a.c[i][j]);
            expect_near("mul(s,m)", "entry", mul(s, a).c[i][j], s * a.c[i][j]);
            expect_near("div(m,s)", "entry", div(a, s).c[i][j], a.c[i][j] / s);
            expect_near("div(s,m)", "entry", div(s, a).c[i][j], s / a.c[i][j]);
            expect_near("cw_mul", "entry", cw_mul(a, a).c[i][j], a.c[i][j] * a.c[i][j]);
            expect_near("cw_div", "entry", cw_div(a, add(a, a)).c[i][j], 0.5);
            expect_near("transpose", "entry", transpose(a).c[j][i], a.c[i][j]);
            expect_near("extract(m,i,j)", "entry", extract(a, i, j), a.c[i][j]);
            expect_near("extract(m,i)", "entry", extract(a, i)[j], a.c[i][j]);
            expect_near("lerp", "entry", lerp(a, neg(a), s).c[i][j], (1 - 2 * s) * a.c[i][j]);
        }
        const M23 wi = with_index(a, 1, 2, 5.0);
        expect_true("with_index(m,i,j,v)", "replaced", wi.c[1][2] == 5.0 && wi.c[0][2] == a.c[0][2] && wi.c[1][1] == a.c[1][1]);
        const M23 wr = with_index(a, 0, v);
        expect_true("with_index(m,i,row)", "replaced", extract(wr, 0) == v && extract(wr, 1) == extract(a, 1));
        expect_true("eq/ne", "matrices", eq(a, a) && !ne(a, a) && ne(a, wi) && a != wi);
    }
    test_square_values<2>("2x2");
    test_square_values<3>("3x3");
    test_square_values<4>("4x4");
    // reduced precision and integers
    const mat22f f(4.f, 7.f, 2.f, 6.f);
    expect_near("determinant<float>", "value", determinant(f), 10.0, 1e-6);
    expect_near("inverse<float>", "entry", inverse(f)(0, 1), -0.7, 1e-6);
    const mat33h hm(mat33f(2.f, 0.f, 0.f, 0.f, 4.f, 0.f, 0.f, 0.f, 0.5f));
    expect_near("determinant<half>", "value", double(float32(determinant(hm))), 4.0, 1e-3);
    expect_near("inverse<half>", "entry", double(float32(inverse(hm)(1, 1))), 0.25, 1e-3);
    const mat_t<2, 2, int32> im(1, 2, 3, 4);
    expect_true("mul<int>", "value", mul(im, im) == mat_t<2, 2, int32>(7, 10, 15, 22));
    expect_true("determinant<int>", "value", determinant(im) == -2);
}

template <int N> static void test_square_adjoints() {
    typedef mat_t<N, N, double> M;
    typedef vec_t<N, double> V;
    for (int rep = 0; rep < 3; ++rep) {
        const M m = well_conditioned<N>();
        check1<double>("adj_determinant", [](const M& x) { return determinant(x); },
                       [](const M& x, M& g, const double& w) { adj_determinant(x, g, w); }, m, 1e-6);
        check1<double>("adj_determinant(random)", [](const M& x) { return determinant(x); },
                       [](const M& x, M& g, const double& w) { adj_determinant(x, g, w); }, random_of<M>(), 1e-6);
        check1<M>("adj_inverse", [](const M& x) { return inverse(x); },
                  [](const M& x, M& g, const M& w) { adj_inverse(x, g, w); }, m, 1e-5);
        check1<double>("adj_trace", [](const M& x) { return trace(x); },
                       [](const M& x, M& g, const double& w) { adj_trace(x, g, w); }, m);
        check1<M>("adj_diag", [](const V& x) { return diag(x); },
                  [](const V& x, V& g, const M& w) { adj_diag(x, g, w); }, random_of<V>());
        check1<V>("adj_get_diag", [](const M& x) { return get_diag(x); },
                  [](const M& x, M& g, const V& w) { adj_get_diag(x, g, w); }, m);
    }
}

static void test_adjoints() {
    for (int rep = 0; rep < 3; ++rep) {
        const M23 a = random_of<M23>(), b = random_of<M23>();
        const M34 c = random_of<M34>();
        const V3 v = random_of<V3>();
        const V2 u = random_of<V2>();
        const double s = rnd() + 2.0;
        typedef mat_t<2, 4, double> M24;
        check2<M23>("adj_add", [](const M23& x, const M23& y) { return add(x, y); },
                    [](const M23& x, const M23& y, M23& gx, M23& gy, const M23& w) { adj_add(x, y, gx, gy, w); }, a, b);
        check2<M23>("adj_sub", [](const M23& x, const M23& y) { return sub(x, y); },
                    [](const M23& x, const M23& y, M23& gx, M23& gy, const M23& w) { adj_sub(x, y, gx, gy, w); }, a, b);
        check1<M23>("adj_neg", [](const M23& x) { return neg(x); }, [](const M23& x, M23& g, const M23& w) { adj_neg(x, g, w); }, a);
        check1<M23>("adj_pos", [](const M23& x) { return pos(x); }, [](const M23& x, M23& g, const M23& w) { adj_pos(x, g, w); }, a);
        check2<M23>("adj_mul(m,s)", [](const M23& x, double t) { return mul(x, t); },
                    [](const M23& x, double t, M23& gx, double& gt, const M23& w) { adj_mul(x, t, gx, gt, w); }, a, s);
        check2<M23>("adj_mul(s,m)", [](double t, const M23& x) { return mul(t, x); },
                    [](double t, const M23& x, double& gt, M23& gx, const M23& w) { adj_mul(t, x, gt, gx, w); }, s, a);
        check2<M23>("adj_div(m,s)", [](const M23& x, double t) { return div(x, t); },
                    [](const M23& x, double t, M23& gx, double& gt, const M23& w) { adj_div(x, t, gx, gt, w); }, a, s);
        check2<M23>("adj_div(s,m)", [](double t, const M23& x) { return div(t, x); },
                    [](double t, const M23& x, double& gt, M23& gx, const M23& w) { adj_div(t, x, gt, gx, w); }, s,
                    add(a, M23(3.0)));
        check2<M23>("adj_cw_mul", [](const M23& x, const M23& y) { return cw_mul(x, y); },
                    [](const M23& x, const M23& y, M23& gx, M23& gy, const M23& w) { adj_cw_mul(x, y, gx, gy, w); }, a, b);
        check2<M23>("adj_cw_div", [](const M23& x, const M23& y) { return cw_div(x, y); },
                    [](const M23& x, const M23& y, M23& gx, M23& gy, const M23& w) { adj_cw_div(x, y, gx, gy, w); }, a,
                    add(b, M23(3.0)));
        check2<double>("adj_ddot", [](const M23& x, const M23& y) { return ddot(x, y); },
                       [](const M23& x, const M23& y, M23& gx, M23& gy, const double& w) { adj_ddot(x, y, gx, gy, w); }, a, b);
        check2<M24>("adj_mul(m,m)", [](const M23& x, const M34& y) { return mul(x, y); },
                    [](const M23& x, const M34& y, M23& gx, M34& gy, const M24& w) { adj_mul(x, y, gx, gy, w); }, a, c);
        check2<V2>("adj_mul(m,v)", [](const M23& x, const V3& y) { return mul(x, y); },
                   [](const M23& x, const V3& y, M23& gx, V3& gy, const V2& w) { adj_mul(x, y, gx, gy, w); }, a, v);
        check2<V3>("adj_mul(v,m)", [](const V2& x, const M23& y) { return mul(x, y); },
                   [](const V2& x, const M23& y, V2& gx, M23& gy, const V3& w) { adj_mul(x, y, gx, gy, w); }, u, a);
        check2<M23>("adj_outer", [](const V2& x, const V3& y) { return outer(x, y); },
                    [](const V2& x, const V3& y, V2& gx, V3& gy, const M23& w) { adj_outer(x, y, gx, gy, w); }, u, v);
        check1<M32>("adj_transpose", [](const M23& x) { return transpose(x); },
                    [](const M23& x, M23& g, const M32& w) { adj_transpose(x, g, w); }, a);
        check1<M33>("adj_skew", [](const V3& x) { return skew(x); }, [](const V3& x, V3& g, const M33& w) { adj_skew(x, g, w); }, v);
        for (int i = 0; i < 2; ++i) {
            check1<V3>("adj_extract(m,i)", [i](const M23& x) { return extract(x, i); },
                       [i](const M23& x, M23& g, const V3& w) { int32 gi = 0; adj_extract(x, i, g, gi, w); }, a);
            check2<M23>("adj_with_index(m,i,row)", [i](const M23& x, const V3& r) { return with_index(x, i, r); },
                        [i](const M23& x, const V3& r, M23& gx, V3& gr, const M23& w) {
                            int32 gi = 0; adj_with_index(x, i, r, gx, gi, gr, w); }, a, v);
            for (int j = 0; j < 3; ++j) {
                check1<double>("adj_extract(m,i,j)", [i, j](const M23& x) { return extract(x, i, j); },
                               [i, j](const M23& x, M23& g, const double& w) { int32 gi = 0, gj = 0; adj_extract(x, i, j, g, gi, gj, w); }, a);
                check2<M23>("adj_with_index(m,i,j,v)", [i, j](const M23& x, double t) { return with_index(x, i, j, t); },
                            [i, j](const M23& x, double t, M23& gx, double& gt, const M23& w) {
                                int32 gi = 0, gj = 0; adj_with_index(x, i, j, t, gx, gi, gj, gt, w); }, a, s);
            }
        }
        check3<M23>("adj_lerp", [](const M23& x, const M23& y, double t) { return lerp(x, y, t); },
                    [](const M23& x, const M23& y, double t, M23& gx, M23& gy, double& gt, const M23& w) {
                        adj_lerp(x, y, t, gx, gy, gt, w); }, a, b, s);
    }
    test_square_adjoints<2>();
    test_square_adjoints<3>();
    test_square_adjoints<4>();
}

int main() {
    test_layout_and_constructors();
    test_values();
    test_adjoints();
    if (g_fail) std::printf("test_mat: %d failure(s)\n", g_fail);
    else std::printf("test_mat: all passed\n");
    return g_fail ? 1 : 0;
}
