"""End to end: vector, matrix, quaternion and transform math, atomics, random numbers and
multi-threaded launches, checked against numpy and independent formulas."""

import numpy as np
import pytest

import warp_nb as wp
from tests.support.helpers import rng, run

pytestmark = pytest.mark.needs_cxx


def vec_array(values, dtype=wp.vec3):
    return wp.array(np.asarray(values, np.float32), dtype=dtype)


# --- reference quaternion / transform math (x, y, z, w layout, as Warp) ------------------------


def q_mul(a, b):
    av, aw, bv, bw = a[:3], a[3], b[:3], b[3]
    return np.array([*(aw * bv + bw * av + np.cross(av, bv)), aw * bw - av @ bv])


def q_from_axis_angle(axis, angle):
    axis = axis / np.linalg.norm(axis)
    return np.array([*(axis * np.sin(angle / 2)), np.cos(angle / 2)])


def q_to_matrix(q):
    """Rodrigues: R = I + sin(t) K + (1 - cos(t)) K^2 for the axis-angle of q."""
    angle = 2 * np.arctan2(np.linalg.norm(q[:3]), q[3])
    axis = q[:3] / np.linalg.norm(q[:3])
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + np.sin(angle) * k + (1 - np.cos(angle)) * k @ k


def random_quats(g, n):
    axes = g.normal(size=(n, 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)  # unit axes (Warp does not normalise in kernels)
    angles = g.uniform(-np.pi, np.pi, n)
    return np.array([q_from_axis_angle(a, t) for a, t in zip(axes, angles)]), axes, angles


# --- components and constructors ----------------------------------------------------------------


@wp.kernel
def k_components(vs: wp.array(dtype=wp.vec3), ms: wp.array(dtype=wp.mat33), out_v: wp.array(dtype=wp.vec3),
                 out_m: wp.array(dtype=wp.mat33), out_s: wp.array(dtype=float, ndim=2),
                 vs_inplace: wp.array(dtype=wp.vec3),
                 ms_inplace: wp.array(dtype=wp.mat33)):
    i = wp.tid()
    v = vs[i]
    m = ms[i]
    out_s[i, 0] = v.x + 10.0 * v.y + 100.0 * v.z
    out_s[i, 1] = v[0] - v[2]
    out_s[i, 2] = m[1, 2] + m[2][0]
    k = i % 3
    out_s[i, 3] = v[k] + m[k, 2 - k]  # dynamic component indices
    w = v
    w.y = -1.0
    w[2] = w[2] * 2.0
    w[k] = w[k] + 100.0
    out_v[i] = w
    m2 = m
    m2[0, 1] = 5.0
    m2[2] = wp.vec3(7.0, 8.0, 9.0)
    m2[k, k] = -3.0
    out_m[i] = m2
    # stores into components of array elements, in place
    vs_inplace[i].y = float(i)
    vs_inplace[i][2] = vs_inplace[i][2] + 1.0
    ms_inplace[i][1, 1] = 42.0
    ms_inplace[i][0, k] = -1.0


@pytest.mark.slow
def test_component_reads_and_writes():
    n = 6
    g = rng(10)
    v = g.uniform(-1, 1, (n, 3)).astype(np.float32)
    m = g.uniform(-1, 1, (n, 3, 3)).astype(np.float32)
    out_v, out_m, out_s = wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.mat33), wp.zeros((n, 4))
    vi, mi = vec_array(v), wp.array(m, dtype=wp.mat33)
    run(k_components, n, vec_array(v), wp.array(m, dtype=wp.mat33), out_v, out_m, out_s, vi, mi)
    k = np.arange(n) % 3
    exp_s = np.stack([v[:, 0] + 10 * v[:, 1] + 100 * v[:, 2], v[:, 0] - v[:, 2], m[:, 1, 2] + m[:, 2, 0],
                      v[np.arange(n), k] + m[np.arange(n), k, 2 - k]], 1)
    np.testing.assert_allclose(out_s.numpy(), exp_s, rtol=1e-6)
    w = v.copy()
    w[:, 1] = -1
    w[:, 2] *= 2
    w[np.arange(n), k] += 100
    np.testing.assert_allclose(out_v.numpy(), w, rtol=1e-6)
    m2 = m.copy()
    m2[:, 0, 1] = 5
    m2[:, 2] = [7, 8, 9]
    m2[np.arange(n), k, k] = -3
    np.testing.assert_allclose(out_m.numpy(), m2, rtol=1e-6)
    v_in = v.copy()
    v_in[:, 1] = np.arange(n)
    v_in[:, 2] += 1
    np.testing.assert_allclose(vi.numpy(), v_in, rtol=1e-6)
    m_in = m.copy()
    m_in[:, 1, 1] = 42
    m_in[np.arange(n), 0, k] = -1
    np.testing.assert_allclose(mi.numpy(), m_in, rtol=1e-6)


@wp.kernel
def k_constructors(x: wp.array(dtype=float), out3: wp.array(dtype=wp.vec3), out3d: wp.array(dtype=wp.vec3d),
                   out4: wp.array(dtype=wp.vec4), out_i: wp.array(dtype=wp.vec3i), out_m: wp.array(dtype=wp.mat22),
                   out_q: wp.array(dtype=wp.quat), out_sv: wp.array(dtype=wp.spatial_vector)):
    i = wp.tid()
    s = x[i]
    a = wp.vec3(s, 2.0 * s, 3.0)
    out3[i] = a + wp.vec3(1.0)  # broadcast constructor
    out3d[i] = wp.vec3d(a) * wp.float64(2.0)  # conversion vec3f -> vec3d
    out4[i] = wp.vec4(s)
    out_i[i] = wp.vec3i(a)  # float -> int truncates
    out_m[i] = wp.mat22(s, 1.0, 2.0, 3.0) + wp.mat22(1.0)
    out_q[i] = wp.quat(wp.vec3(s, 0.0, 1.0), 2.0)
    out_sv[i] = wp.spatial_vector(1.0, 2.0, 3.0, s, s, s)


def test_vector_matrix_constructors():
    x = np.array([-1.5, 0.0, 2.75], np.float32)
    n = len(x)
    outs = [wp.zeros(n, dtype=t) for t in (wp.vec3, wp.vec3d, wp.vec4, wp.vec3i, wp.mat22, wp.quat,
                                           wp.spatial_vector)]
    run(k_constructors, n, wp.array(x), *outs)
    a = np.stack([x, 2 * x, np.full(n, 3.0)], 1)
    np.testing.assert_allclose(outs[0].numpy(), a + 1, rtol=1e-6)
    assert outs[1].numpy().dtype == np.float64
    np.testing.assert_allclose(outs[1].numpy(), a.astype(np.float32).astype(np.float64) * 2, rtol=1e-12)
    np.testing.assert_allclose(outs[2].numpy(), np.repeat(x[:, None], 4, 1))
    np.testing.assert_array_equal(outs[3].numpy(), np.trunc(a).astype(np.int32))
    exp_m = np.stack([np.stack([x + 1, np.full(n, 2.0)], 1), np.stack([np.full(n, 3.0), np.full(n, 4.0)], 1)], 1)
    np.testing.assert_allclose(outs[4].numpy(), exp_m, rtol=1e-6)
    np.testing.assert_allclose(outs[5].numpy(), np.stack([x, np.zeros(n), np.ones(n), np.full(n, 2.0)], 1))
    np.testing.assert_allclose(outs[6].numpy(), np.stack([np.ones(n), 2 * np.ones(n), 3 * np.ones(n), x, x, x], 1))


VEC5 = wp.types.vector(length=5, dtype=float)

@wp.kernel
def k_vector_misc(vs: wp.array(dtype=wp.vec3), s: wp.array(dtype=float, ndim=2), rows: wp.array(dtype=wp.mat33),
                  v5: wp.array(dtype=VEC5), half: wp.array(dtype=wp.vec3h), vi: wp.array(dtype=wp.vec3i)):
    i = wp.tid()
    v = vs[i]
    x, y, z = v  # unpacking
    s[i, 0] = x + 2.0 * y + 4.0 * z
    s[i, 1] = float(len(v))
    s[i, 2] = v[-1]
    s[i, 3] = float(v == wp.vec3(1.0, 2.0, 3.0)) + 10.0 * float(v != wp.vec3(1.0, 2.0, 3.0))
    s[i, 4] = float(wp.argmax(v)) + 10.0 * float(wp.argmin(v))
    w = wp.vec3(1, 2, 3)  # integer literals into a float vector
    w += v
    rows[i] = wp.matrix_from_rows(v, w, wp.vec3(0.0)) + wp.identity(n=3, dtype=float) * 2.0
    v5[i] = wp.vector(1.0, 2.0, 3.0, 4.0, float(i)) * 2.0
    h = wp.vec3h(v)
    half[i] = h * wp.float16(2.0) + wp.vec3h(wp.float16(1.0))
    vi[i] = wp.vec3i(7, -7, 9) / 2 + wp.vec3i(i)

def test_vector_unpack_len_compare_generic_and_typed_vectors():
    v = np.array([[1, 2, 3], [4, -5, 6], [0, -1, 2], [1, 2, 3.5]], np.float32)
    n = len(v)
    s, rows, v5 = wp.zeros((n, 5)), wp.zeros(n, dtype=wp.mat33), wp.zeros(n, dtype=VEC5)
    half, vi = wp.zeros(n, dtype=wp.vec3h), wp.zeros(n, dtype=wp.vec3i)
    run(k_vector_misc, n, vec_array(v), s, rows, v5, half, vi)
    eq = (v == [1, 2, 3]).all(1)
    exp = np.stack([v @ [1, 2, 4], np.full(n, 3), v[:, 2], eq + 10 * ~eq, v.argmax(1) + 10 * v.argmin(1)], 1)
    np.testing.assert_allclose(s.numpy(), exp, rtol=1e-6)
    exp_rows = np.stack([v, v + [1, 2, 3], np.zeros_like(v)], 1) + 2 * np.eye(3)
    np.testing.assert_allclose(rows.numpy(), exp_rows, rtol=1e-6)
    np.testing.assert_allclose(v5.numpy(), np.stack([np.full(n, 2), np.full(n, 4), np.full(n, 6), np.full(n, 8),
                                                     2 * np.arange(n)], 1))
    assert half.numpy().dtype == np.float16
    np.testing.assert_allclose(half.numpy().astype(np.float32), v * 2 + 1, rtol=2e-3)
    np.testing.assert_array_equal(vi.numpy(), np.array([3, -3, 4]) + np.arange(n)[:, None])

@wp.kernel
def k_composite_params(v: wp.vec3, m: wp.mat22, q: wp.quat, t: wp.transform, d: wp.float64, big: wp.int64,
                       flag: wp.bool, u: wp.uint8, h: wp.float16, out: wp.array(dtype=wp.float64)):
    out[0] = wp.float64(v[1])
    out[1] = wp.float64(m[1, 0])
    out[2] = wp.float64(q.w)
    out[3] = wp.float64(t.p[2] + t.q.y)
    out[4] = d
    out[5] = wp.float64(big)
    out[6] = wp.float64(1.0) if flag else wp.float64(-1.0)
    out[7] = wp.float64(u)
    out[8] = wp.float64(h)

@pytest.mark.parametrize("form", ["wp", "python"])
def test_kernel_parameters_of_composite_and_scalar_types(form):
    out = wp.zeros(9, dtype=wp.float64)
    if form == "wp":
        args = [wp.vec3(1, 2, 3), wp.mat22(1, 2, 3, 4), wp.quat(0, 0, 0.6, 0.8),
                wp.transform(wp.vec3(1, 2, 3), wp.quat(0, 0.6, 0, 0.8)), 0.1, 2 ** 40, True, 200, 0.5]
    else:  # tuples and numpy scalars, converted at launch
        args = [(1, 2, 3), ((1, 2), (3, 4)), (0, 0, 0.6, 0.8), (1, 2, 3, 0, 0.6, 0, 0.8), np.float64(0.1),
                np.int64(2 ** 40), np.bool_(True), np.uint8(200), np.float16(0.5)]
    run(k_composite_params, 1, *args, out)
    np.testing.assert_allclose(out.numpy(), [2, 3, 0.8, 3.6, 0.1, 2 ** 40, 1, 200, 0.5], rtol=1e-7)

# --- vector and matrix builtins -----------------------------------------------------------------


@wp.kernel
def k_vec_ops(a: wp.array(dtype=wp.vec3), b: wp.array(dtype=wp.vec3), s: wp.array(dtype=float, ndim=2),
              v: wp.array(dtype=wp.vec3, ndim=2), m: wp.array(dtype=wp.mat33, ndim=2)):
    i = wp.tid()
    x = a[i]
    y = b[i]
    s[i, 0] = wp.dot(x, y)
    s[i, 1] = wp.length(x)
    s[i, 2] = wp.length_sq(y)
    s[i, 3] = wp.min(x)
    s[i, 4] = wp.max(y)
    v[i, 0] = wp.cross(x, y)
    v[i, 1] = wp.normalize(x)
    v[i, 2] = wp.cw_mul(x, y)
    v[i, 3] = wp.cw_div(x, y)
    v[i, 4] = x * 2.0 - y / 4.0 + (-x)
    v[i, 5] = wp.min(x, y)
    v[i, 6] = wp.abs(y)
    v[i, 7] = wp.lerp(x, y, 0.25)
    m[i, 0] = wp.outer(x, y)
    m[i, 1] = wp.skew(x)
    m[i, 2] = wp.diag(y)


def test_vector_builtins():
    n = 16
    g = rng(11)
    a = g.uniform(-2, 2, (n, 3)).astype(np.float32)
    b = g.uniform(0.5, 2, (n, 3)).astype(np.float32) * g.choice([-1, 1], (n, 3))
    s, v, m = wp.zeros((n, 5)), wp.zeros((n, 8), dtype=wp.vec3), wp.zeros((n, 3), dtype=wp.mat33)
    run(k_vec_ops, n, vec_array(a), vec_array(b), s, v, m)
    r = dict(rtol=1e-5, atol=1e-6)
    exp_s = np.stack([(a * b).sum(1), np.linalg.norm(a, axis=1), (b * b).sum(1), a.min(1), b.max(1)], 1)
    np.testing.assert_allclose(s.numpy(), exp_s, **r)
    vv = v.numpy()
    np.testing.assert_allclose(vv[:, 0], np.cross(a, b), **r)
    np.testing.assert_allclose(vv[:, 1], a / np.linalg.norm(a, axis=1, keepdims=True), **r)
    np.testing.assert_allclose(vv[:, 2], a * b, **r)
    np.testing.assert_allclose(vv[:, 3], a / b, **r)
    np.testing.assert_allclose(vv[:, 4], a * 2 - b / 4 - a, **r)
    np.testing.assert_allclose(vv[:, 5], np.minimum(a, b), **r)
    np.testing.assert_allclose(vv[:, 6], np.abs(b), **r)
    np.testing.assert_allclose(vv[:, 7], a * 0.75 + b * 0.25, **r)
    mm = m.numpy()
    np.testing.assert_allclose(mm[:, 0], a[:, :, None] * b[:, None, :], **r)
    for i in range(n):  # skew(x) @ u == cross(x, u)
        np.testing.assert_allclose(mm[i, 1] @ b[i], np.cross(a[i], b[i]), **r)
        np.testing.assert_allclose(mm[i, 2], np.diag(b[i]), **r)


def _mat_kernel(mat_t, vec_t):
    @wp.kernel
    def k(a: wp.array(dtype=mat_t), b: wp.array(dtype=mat_t), x: wp.array(dtype=vec_t),
          mm: wp.array(dtype=mat_t, ndim=2), mv: wp.array(dtype=vec_t, ndim=2), sc: wp.array(dtype=float, ndim=2)):
        i = wp.tid()
        A = a[i]
        B = b[i]
        mm[i, 0] = A * B
        mm[i, 1] = A @ B
        mm[i, 2] = wp.transpose(A)
        mm[i, 3] = wp.inverse(A)
        mm[i, 4] = A + B * 2.0 - wp.cw_mul(A, B)
        mm[i, 5] = wp.inverse(A) * A
        mv[i, 0] = A * x[i]
        mv[i, 1] = A @ x[i]
        mv[i, 2] = x[i] * A  # row vector times matrix
        mv[i, 3] = wp.get_diag(B)
        sc[i, 0] = float(wp.determinant(A))
        sc[i, 1] = float(wp.trace(B))
        sc[i, 2] = float(wp.ddot(A, B))
    return k


@pytest.mark.parametrize("size", [2, 3, 4])
def test_matrix_builtins(size):
    mat_t, vec_t = {2: (wp.mat22, wp.vec2), 3: (wp.mat33, wp.vec3), 4: (wp.mat44, wp.vec4)}[size]
    n = 12
    g = rng(12 + size)
    A = (g.uniform(-1, 1, (n, size, size)) + 2 * np.eye(size)).astype(np.float32)  # well conditioned
    B = g.uniform(-1, 1, (n, size, size)).astype(np.float32)
    x = g.uniform(-1, 1, (n, size)).astype(np.float32)
    mm, mv, sc = wp.zeros((n, 6), dtype=mat_t), wp.zeros((n, 4), dtype=vec_t), wp.zeros((n, 3))
    run(_mat_kernel(mat_t, vec_t), n, wp.array(A, dtype=mat_t), wp.array(B, dtype=mat_t), wp.array(x, dtype=vec_t),
        mm, mv, sc)
    r = dict(rtol=1e-4, atol=1e-5)
    o = mm.numpy()
    np.testing.assert_allclose(o[:, 0], A @ B, **r)
    np.testing.assert_allclose(o[:, 1], A @ B, **r)
    np.testing.assert_allclose(o[:, 2], A.transpose(0, 2, 1), **r)
    np.testing.assert_allclose(o[:, 3], np.linalg.inv(A), **r)
    np.testing.assert_allclose(o[:, 4], A + 2 * B - A * B, **r)
    np.testing.assert_allclose(o[:, 5], np.broadcast_to(np.eye(size), (n, size, size)), **r)
    v = mv.numpy()
    np.testing.assert_allclose(v[:, 0], np.einsum("nij,nj->ni", A, x), **r)
    np.testing.assert_allclose(v[:, 1], np.einsum("nij,nj->ni", A, x), **r)
    np.testing.assert_allclose(v[:, 2], np.einsum("ni,nij->nj", x, A), **r)
    np.testing.assert_allclose(v[:, 3], np.diagonal(B, axis1=1, axis2=2), **r)
    np.testing.assert_allclose(sc.numpy(), np.stack([np.linalg.det(A), np.trace(B, axis1=1, axis2=2),
                                                     (A * B).sum((1, 2))], 1), **r)


@wp.kernel
def k_mat_double(a: wp.array(dtype=wp.mat33d), x: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.vec3d),
                 det: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = wp.inverse(a[i]) * x[i]
    det[i] = wp.determinant(a[i])


def test_float64_matrix_solve():
    g = rng(20)
    A = g.uniform(-1, 1, (8, 3, 3)) + 3 * np.eye(3)
    x = g.uniform(-1, 1, (8, 3))
    out, det = wp.zeros(8, dtype=wp.vec3d), wp.zeros(8, dtype=wp.float64)
    run(k_mat_double, 8, wp.array(A, dtype=wp.mat33d), wp.array(x, dtype=wp.vec3d), out, det)
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(A, x[..., None])[..., 0], rtol=1e-12)
    np.testing.assert_allclose(det.numpy(), np.linalg.det(A), rtol=1e-12)


# --- quaternions and transforms -----------------------------------------------------------------


@wp.kernel
def k_quat(axes: wp.array(dtype=wp.vec3), angles: wp.array(dtype=float), pts: wp.array(dtype=wp.vec3),
           q_out: wp.array(dtype=wp.quat, ndim=2), v_out: wp.array(dtype=wp.vec3, ndim=2),
           m_out: wp.array(dtype=wp.mat33), s_out: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.quat_from_axis_angle(axes[i], angles[i])
    r = wp.quat_from_axis_angle(axes[(i + 1) % axes.shape[0]], 0.5)
    q_out[i, 0] = q
    q_out[i, 1] = wp.quat_inverse(q)
    q_out[i, 2] = q * r
    q_out[i, 3] = wp.normalize(q * 3.0)
    v_out[i, 0] = wp.quat_rotate(q, pts[i])
    v_out[i, 1] = wp.quat_rotate_inv(q, pts[i])
    v_out[i, 2] = wp.quat_rotate(q * r, pts[i]) - wp.quat_rotate(q, wp.quat_rotate(r, pts[i]))
    m_out[i] = wp.quat_to_matrix(q)
    q_out[i, 4] = wp.quat_from_matrix(wp.quat_to_matrix(q))
    q_out[i, 5] = wp.quat_rpy(angles[i], 0.5, -0.25)
    s_out[i] = wp.length(q) + q.w * 10.0


def test_quaternions():
    n = 10
    g = rng(21)
    qs, axes, angles = random_quats(g, n)
    pts = g.uniform(-2, 2, (n, 3))
    qo, vo, mo, so = wp.zeros((n, 6), dtype=wp.quat), wp.zeros((n, 3), dtype=wp.vec3), wp.zeros(n, dtype=wp.mat33), \
        wp.zeros(n)
    run(k_quat, n, vec_array(axes), wp.array(angles.astype(np.float32)), vec_array(pts), qo, vo, mo, so)
    r = dict(rtol=1e-4, atol=1e-5)
    q = qo.numpy()
    np.testing.assert_allclose(q[:, 0], qs, **r)
    np.testing.assert_allclose(q[:, 1], qs * [-1, -1, -1, 1], **r)
    for i in range(n):
        rq = q_from_axis_angle(axes[(i + 1) % n], 0.5)
        np.testing.assert_allclose(q[i, 2], q_mul(qs[i], rq), **r)
        R = q_to_matrix(qs[i])
        np.testing.assert_allclose(mo.numpy()[i], R, **r)
        np.testing.assert_allclose(vo.numpy()[i, 0], R @ pts[i], **r)
        np.testing.assert_allclose(vo.numpy()[i, 1], R.T @ pts[i], **r)
        assert abs(abs(q[i, 4] @ qs[i]) - 1) < 1e-5  # from_matrix(to_matrix(q)) is q or -q
        ex, ey, ez = np.eye(3)
        rpy = q_mul(q_from_axis_angle(ez, -0.25), q_mul(q_from_axis_angle(ey, 0.5), q_from_axis_angle(ex, angles[i])))
        np.testing.assert_allclose(q[i, 5], rpy, **r)  # roll about x, then pitch about y, then yaw about z
    np.testing.assert_allclose(q[:, 3], qs, **r)
    np.testing.assert_allclose(vo.numpy()[:, 2], 0, atol=1e-5)
    np.testing.assert_allclose(so.numpy(), 1 + 10 * qs[:, 3], **r)


@wp.kernel
def k_transform(ts: wp.array(dtype=wp.transform), us: wp.array(dtype=wp.transform), pts: wp.array(dtype=wp.vec3),
                v_out: wp.array(dtype=wp.vec3, ndim=2), t_out: wp.array(dtype=wp.transform, ndim=2)):
    i = wp.tid()
    t = ts[i]
    u = us[i]
    p = pts[i]
    v_out[i, 0] = wp.transform_point(t, p)
    v_out[i, 1] = wp.transform_vector(t, p)
    v_out[i, 2] = wp.transform_point(wp.transform_inverse(t), wp.transform_point(t, p))
    v_out[i, 3] = wp.transform_get_translation(t) + t.p
    t_out[i, 0] = wp.transform_multiply(t, u)
    t_out[i, 1] = t * u
    t_out[i, 2] = wp.transform_inverse(t)
    t_out[i, 3] = wp.transform(wp.vec3(1.0, 2.0, 3.0), wp.transform_get_rotation(u))


def test_transforms():
    n = 8
    g = rng(22)
    qa, _, _ = random_quats(g, n)
    qb, _, _ = random_quats(g, n)
    pa, pb, pts = g.uniform(-3, 3, (n, 3)), g.uniform(-3, 3, (n, 3)), g.uniform(-3, 3, (n, 3))
    ta = np.concatenate([pa, qa], 1).astype(np.float32)
    tb = np.concatenate([pb, qb], 1).astype(np.float32)
    vo, to = wp.zeros((n, 4), dtype=wp.vec3), wp.zeros((n, 4), dtype=wp.transform)
    run(k_transform, n, wp.array(ta, dtype=wp.transform), wp.array(tb, dtype=wp.transform), vec_array(pts), vo, to)
    r = dict(rtol=1e-4, atol=1e-4)
    for i in range(n):
        Ra, Rb = q_to_matrix(qa[i]), q_to_matrix(qb[i])
        np.testing.assert_allclose(vo.numpy()[i, 0], Ra @ pts[i] + pa[i], **r)
        np.testing.assert_allclose(vo.numpy()[i, 1], Ra @ pts[i], **r)
        np.testing.assert_allclose(vo.numpy()[i, 2], pts[i], **r)
        np.testing.assert_allclose(vo.numpy()[i, 3], 2 * pa[i], **r)
        composed = to.numpy()[i, 0]
        np.testing.assert_allclose(composed, to.numpy()[i, 1], **r)
        np.testing.assert_allclose(composed[:3], Ra @ pb[i] + pa[i], **r)
        np.testing.assert_allclose(q_to_matrix(composed[3:]), Ra @ Rb, **r)
        inv = to.numpy()[i, 2]
        np.testing.assert_allclose(q_to_matrix(inv[3:]), Ra.T, **r)
        np.testing.assert_allclose(inv[:3], -Ra.T @ pa[i], **r)
        np.testing.assert_allclose(to.numpy()[i, 3], [1, 2, 3, *qb[i]], **r)


@wp.kernel(module="unique")
def read_component_at(j: int, v: wp.vec3, out: wp.array(dtype=float)):
    out[0] = v[j]


def test_runtime_component_reads_out_of_range_in_release_code_read_what_warp_reads(monkeypatch):
    """A script's release code does not check `v[j]`: a negative j counts from the end and one still
    outside the vector reads 0, as in warp-lang (never the memory beside the vector)."""
    monkeypatch.setattr(wp.config, "bounds_check", False)
    v = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    for j in (-4, -3, -1, 0, 2, 3, 7, 1 << 20):
        out = wp.zeros(1)
        wp.launch(read_component_at, dim=1, inputs=[j, wp.vec3(*v), out])
        expected = v[j] if -3 <= j < 3 else 0.0
        assert out.numpy()[0] == expected, (j, out.numpy()[0])


class vec5f(wp.types.vector(length=5, dtype=float)):
    """An application's named subclass of a vector type, as MuJoCo Warp declares its vec5."""


@wp.kernel
def _subclass_branches(a: wp.array[vec5f], out: wp.array[vec5f], flag: int):
    if flag > 0:
        s = a[0]
    else:
        s = 2.0 * a[0] + a[0]  # arithmetic gives the generic vector type, the load the subclass
    out[0] = s
    out[1] = vec5f(1.0, 2.0, 3.0, 4.0, 5.0) + s


def test_vector_subclass_is_its_base_type_in_kernels():
    # Warp compares composites by kind, shape and element type (values probed from warp-lang 1.19)
    base = wp.types.vector(length=5, dtype=float)
    assert wp.types.types_equal(base, vec5f) and wp.types.types_equal(vec5f, base)
    a = wp.array([[1.0, 2.0, 3.0, 4.0, 5.0]], dtype=vec5f)
    out = wp.zeros(2, dtype=vec5f)
    wp.launch(_subclass_branches, dim=1, inputs=[a, out, 0])
    np.testing.assert_allclose(out.numpy(), [[3, 6, 9, 12, 15], [4, 8, 12, 16, 20]])
    wp.launch(_subclass_branches, dim=1, inputs=[a, out, 1])
    np.testing.assert_allclose(out.numpy(), [[1, 2, 3, 4, 5], [2, 4, 6, 8, 10]])
