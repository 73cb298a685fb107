"""End-to-end checks of the builtins with several results (svd3, svd2, qr3, eig3, in both Warp
forms) and of the noise fields, against numpy: reconstruction, orthogonality, ordering and sign
conventions; noise periodicity, its zeros on the lattice and the divergence-free curl. Their
gradients are checked against finite differences in test_builtin_gradients.py
(tests/support/gradient_cases_extra.py)."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def decompose3_f32(a: wp.array(dtype=wp.mat33), u: wp.array(dtype=wp.mat33), s: wp.array(dtype=wp.vec3),
                   v: wp.array(dtype=wp.mat33), q: wp.array(dtype=wp.mat33), r: wp.array(dtype=wp.mat33),
                   eq: wp.array(dtype=wp.mat33), ed: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    U = wp.mat33()
    sigma = wp.vec3()
    V = wp.mat33()
    wp.svd3(a[i], U, sigma, V)  # the output-argument form
    u[i] = U
    s[i] = sigma
    v[i] = V
    Q, R = wp.qr3(a[i])  # the tuple form
    q[i] = Q
    r[i] = R
    sym = a[i] + wp.transpose(a[i])
    E = wp.mat33()
    d = wp.vec3()
    wp.eig3(sym, E, d)
    eq[i] = E
    ed[i] = d


@wp.kernel
def decompose2_f64(a: wp.array(dtype=wp.mat22d), u: wp.array(dtype=wp.mat22d), s: wp.array(dtype=wp.vec2d),
                   v: wp.array(dtype=wp.mat22d)):
    i = wp.tid()
    U, sigma, V = wp.svd2(a[i])
    u[i] = U
    s[i] = sigma
    v[i] = V


def _orthonormal(m, tol):
    eye = np.broadcast_to(np.eye(m.shape[-1]), m.shape)
    np.testing.assert_allclose(m @ np.swapaxes(m, 1, 2), eye, atol=tol)
    np.testing.assert_allclose(np.linalg.det(m), 1.0, atol=tol)


def test_svd3_qr3_eig3():
    rng = np.random.default_rng(3)
    m = rng.normal(size=(32, 3, 3)).astype(np.float32)
    m[0] = np.diag([1.0, 2.0, -3.0])  # negative determinant: sigma2 < 0
    outs = [wp.zeros(32, dtype=t) for t in (wp.mat33, wp.vec3, wp.mat33, wp.mat33, wp.mat33, wp.mat33, wp.vec3)]
    wp.launch(decompose3_f32, 32, inputs=[wp.array(m, dtype=wp.mat33), *outs])
    u, s, v, q, r, eq, ed = (o.numpy().astype(np.float64) for o in outs)
    _orthonormal(u, 1e-5)
    _orthonormal(v, 1e-5)
    np.testing.assert_allclose(u @ (s[:, :, None] * np.swapaxes(v, 1, 2)), m, atol=1e-4)
    np.testing.assert_allclose(np.abs(s), np.sort(np.linalg.svd(m, compute_uv=False), axis=1)[:, ::-1], atol=1e-4)
    assert np.all(s[:, :2] >= 0) and np.all(np.sign(s[:, 2]) == np.sign(np.linalg.det(m)))
    _orthonormal(q, 1e-5)
    np.testing.assert_allclose(q @ r, m, atol=1e-4)
    assert np.all(np.abs(np.tril(r, -1)) < 1e-5) and np.all(r[:, 0, 0] >= 0) and np.all(r[:, 1, 1] >= 0)
    sym = m + np.swapaxes(m, 1, 2)
    _orthonormal(eq, 1e-5)
    np.testing.assert_allclose(np.sort(ed, axis=1), np.linalg.eigvalsh(sym), atol=1e-4)  # (Warp's order: unsorted)
    np.testing.assert_allclose(eq @ (ed[:, :, None] * np.swapaxes(eq, 1, 2)), sym, atol=1e-4)


def test_svd2():
    rng = np.random.default_rng(4)
    m = np.concatenate([rng.normal(size=(16, 2, 2)), [np.zeros((2, 2)), np.eye(2), [[1.0, 1.0], [-1.0, -1.0]],
                                                       [[3.0, 0.0], [4.0, 5.0]], [[0.0, 1.0], [1.0, 0.0]]]])
    outs = [wp.zeros(len(m), dtype=t) for t in (wp.mat22d, wp.vec2d, wp.mat22d)]
    wp.launch(decompose2_f64, len(m), inputs=[wp.array(m, dtype=wp.mat22d), *outs])
    u, s, v = (o.numpy() for o in outs)
    # Warp's conventions: sigma0 >= sigma1 >= 0, V a rotation by an angle in (-3pi/4, pi/4], U a
    # rotation or, for det(A) < 0, a reflection
    eye = np.broadcast_to(np.eye(2), u.shape)
    np.testing.assert_allclose(u @ np.swapaxes(u, 1, 2), eye, atol=1e-12)
    np.testing.assert_allclose(np.linalg.det(u), np.where(np.linalg.det(m) < 0, -1.0, 1.0), atol=1e-12)
    _orthonormal(v, 1e-12)
    angle = np.arctan2(v[:, 1, 0], v[:, 0, 0])
    assert np.all((angle > -0.75 * np.pi) & (angle <= 0.25 * np.pi + 1e-12))
    np.testing.assert_allclose(u @ (s[:, :, None] * np.swapaxes(v, 1, 2)), m, atol=1e-12)
    np.testing.assert_allclose(s, np.linalg.svd(m, compute_uv=False), atol=1e-12)


# (A, U, sigma, V) as warp-lang 1.19.0 gives them (float64): where singular values differ, the
# decompositions agree with Warp's column for column, signs included
WARP_SVD2 = [
    ([[3.0, 0.0], [4.0, 5.0]], [[0.316227766016838, -0.9486832980505138], [0.9486832980505138, 0.316227766016838]],
     [6.7082039324993685, 2.23606797749979], [[0.7071067811865476, -0.7071067811865476], [0.7071067811865476, 0.7071067811865476]]),
    ([[-1.0, 0.0], [2.0, 2.0]], [[-0.2566679351570242, 0.9664996487646696], [0.9664996487646696, 0.2566679351570242]],
     [2.9208096264818892, 0.6847416489821], [[0.7496781758158655, -0.6618025632357405], [0.6618025632357405, 0.7496781758158655]]),
    ([[1.0, 2.0], [3.0, -4.0]], [[-0.22975292054736118, 0.9732489894677301], [0.9732489894677301, 0.22975292054736118]],
     [5.116672736016928, 1.9543950758485478], [[0.5257311121191336, 0.8506508083520399], [-0.8506508083520399, 0.5257311121191336]]),
]
WARP_SVD3 = [
    ([[2.0, -1.0, 0.5], [0.3, 1.5, -2.0], [1.0, 0.2, 0.7]],
     [[0.6370146563, -0.646504668, 0.4198142946], [-0.7162629327, -0.6977209832, 0.0123628789],
      [0.2849205834, -0.3085727529, -0.9075258218]], [2.889292586488357, 2.055641825251587, 0.7391380357820471],
     [[0.4651903454, -0.8809406199, -0.0868421944], [-0.572605539, -0.2246458268, -0.788452376],
      [0.6750709884, 0.4165067546, -0.6089345482]]),
]


# (A, Q, d) of eig3 as warp-lang 1.19.0 gives them (float64): the eigenvalues unsorted, in the order its
# Jacobi rotations leave them, each vector's sign as there
WARP_EIG3 = [
    ([[1.5, -0.7, 0.3], [-0.7, 0.2, 1.1], [0.3, 1.1, -2.0]],
     [[0.9026959056490087, 0.4079131113371668, -0.13691966814065912],
      [-0.42710350663422236, 0.8108686090607022, -0.40009335593172857],
      [-0.05217946478517066, 0.41964150466701244, 0.9061888936725825]],
     [1.8138583142289846, 0.4171331769787585, -2.530991491207743]),
    ([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 5.0]],
     [[0.7071067811865476, -0.7071067811865476, 0.0], [0.7071067811865476, 0.7071067811865476, 0.0], [0.0, 0.0, 1.0]],
     [3.0, 1.0, 5.0]),
]


def test_eig3_order_and_signs_are_warps():
    for a, q, d in WARP_EIG3:
        Q, D = wp.eig3(wp.mat33d(*np.ravel(a)))
        np.testing.assert_allclose(np.array(Q), q, atol=1e-9)
        np.testing.assert_allclose(np.array(D), d, atol=1e-9)


def test_svd_signs_are_warps():
    for a, u, s, v in WARP_SVD2:
        U, sigma, V = wp.svd2(wp.mat22d(*np.ravel(a)))  # (Python scope runs the kernel's code)
        for got, want in ((U, u), (sigma, s), (V, v)):
            np.testing.assert_allclose(np.array(got), want, atol=1e-9)
    for a, u, s, v in WARP_SVD3:
        U, sigma, V = wp.svd3(wp.mat33d(*np.ravel(a)))
        for got, want in ((U, u), (sigma, s), (V, v)):
            np.testing.assert_allclose(np.array(got), want, atol=1e-9)


def test_output_arguments_must_be_variables():
    @wp.kernel
    def bad(a: wp.array(dtype=wp.mat33), u: wp.array(dtype=wp.mat33)):
        s = wp.vec3()
        V = wp.mat33()
        wp.svd3(a[0], u[0], s, V)

    with pytest.raises(wp.errors.KernelTypeError if hasattr(wp, "errors") else TypeError, match="variables"):
        wp.launch(bad, 1, inputs=[wp.zeros(1, dtype=wp.mat33), wp.zeros(1, dtype=wp.mat33)])


@wp.kernel
def axis_angle(q: wp.array(dtype=wp.quatd), axes: wp.array(dtype=wp.vec3d), angles: wp.array(dtype=wp.float64)):
    i = wp.tid()
    axis = wp.vec3d()
    angle = wp.float64(0.0)
    wp.quat_to_axis_angle(q[i], axis, angle)
    axes[i] = axis
    angles[i] = angle


def test_quat_to_axis_angle():
    rng = np.random.default_rng(6)
    q = rng.normal(size=(16, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    q[0] = [0, 0, 0, 1]  # no rotation: axis 0 (as Warp's normalize(0))
    axes, angles = wp.zeros(16, dtype=wp.vec3d), wp.zeros(16, dtype=wp.float64)
    wp.launch(axis_angle, 16, inputs=[wp.array(q, dtype=wp.quatd), axes, angles])
    s = np.where(q[:, 3] < 0, -1.0, 1.0)[:, None]
    np.testing.assert_allclose(axes.numpy()[1:], (s * q[:, :3] / np.linalg.norm(q[:, :3], axis=1, keepdims=True))[1:],
                               atol=1e-12)
    np.testing.assert_allclose(axes.numpy()[0], [0, 0, 0])
    np.testing.assert_allclose(angles.numpy(), 2 * np.arccos(np.abs(q[:, 3])), atol=1e-12)


@wp.kernel
def decompose_transform(m: wp.array(dtype=wp.mat44d), p: wp.array(dtype=wp.vec3d), q: wp.array(dtype=wp.quatd),
                        s: wp.array(dtype=wp.vec3d), back: wp.array(dtype=wp.mat44d)):
    i = wp.tid()
    pi, qi, si = wp.transform_decompose(m[i])
    p[i] = pi
    q[i] = qi
    s[i] = si
    back[i] = wp.transform_compose(pi, qi, si)


def test_transform_decompose():
    rng = np.random.default_rng(7)
    q = rng.normal(size=(16, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    p, s = rng.uniform(-2, 2, (16, 3)), rng.uniform(0.3, 3.0, (16, 3))
    m = np.zeros((16, 4, 4))
    for n in range(16):
        x, y, z, w = q[n]
        r = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                      [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                      [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
        m[n, :3, :3], m[n, :3, 3], m[n, 3, 3] = r * s[n], p[n], 1.0
    outs = [wp.zeros(16, dtype=t) for t in (wp.vec3d, wp.quatd, wp.vec3d, wp.mat44d)]
    wp.launch(decompose_transform, 16, inputs=[wp.array(m, dtype=wp.mat44d), *outs])
    got_p, got_q, got_s, back = (o.numpy() for o in outs)
    np.testing.assert_allclose(got_p, p, atol=1e-12)
    np.testing.assert_allclose(got_s, s, atol=1e-12)
    np.testing.assert_allclose(np.abs(np.sum(got_q * q, axis=1)), 1.0, atol=1e-12)  # q up to sign
    np.testing.assert_allclose(back, m, atol=1e-12)


@wp.kernel
def noise_fields(p: wp.array(dtype=wp.vec3), n1: wp.array(dtype=float), n3: wp.array(dtype=float),
                 per: wp.array(dtype=float), per_shift: wp.array(dtype=float), curl: wp.array(dtype=wp.vec3),
                 div: wp.array(dtype=float)):
    i = wp.tid()
    state = wp.rand_init(42)
    x = p[i]
    n1[i] = wp.noise(state, x[0])
    n3[i] = wp.noise(state, x)
    xy = wp.vec2(x[0], x[1])
    per[i] = wp.pnoise(state, xy, 3, 5)
    # one period further from 0 (Warp wraps with C's remainder: periodic on each side of 0)
    per_shift[i] = wp.pnoise(state, xy + wp.vec2(wp.sign(x[0]) * 3.0, wp.sign(x[1]) * 5.0), 3, 5)
    curl[i] = wp.curlnoise(state, x, wp.uint32(2), 2.0, 0.5)
    h = 1.0e-2  # central differences of the curl's divergence
    dx = wp.curlnoise(state, x + wp.vec3(h, 0.0, 0.0), wp.uint32(2), 2.0, 0.5) - \
        wp.curlnoise(state, x - wp.vec3(h, 0.0, 0.0), wp.uint32(2), 2.0, 0.5)
    dy = wp.curlnoise(state, x + wp.vec3(0.0, h, 0.0), wp.uint32(2), 2.0, 0.5) - \
        wp.curlnoise(state, x - wp.vec3(0.0, h, 0.0), wp.uint32(2), 2.0, 0.5)
    dz = wp.curlnoise(state, x + wp.vec3(0.0, 0.0, h), wp.uint32(2), 2.0, 0.5) - \
        wp.curlnoise(state, x - wp.vec3(0.0, 0.0, h), wp.uint32(2), 2.0, 0.5)
    div[i] = (dx[0] + dy[1] + dz[2]) / (2.0 * h)


def test_noise_properties():
    rng = np.random.default_rng(5)
    p = rng.uniform(-4, 4, (64, 3)).astype(np.float32)
    p[:8] = np.round(p[:8])  # lattice points: the noise is 0 there
    outs = [wp.zeros(64, dtype=t) for t in (float, float, float, float, wp.vec3, float)]
    wp.launch(noise_fields, 64, inputs=[wp.array(p, dtype=wp.vec3), *outs])
    n1, n3, per, per_shift, curl, div = (o.numpy() for o in outs)
    np.testing.assert_allclose(n3[:8], 0.0, atol=1e-6)
    np.testing.assert_allclose(n1[:8], 0.0, atol=1e-6)
    assert np.all(np.abs(n3) <= 2.0) and np.std(n3[8:]) > 1e-2  # bounded and not constant
    np.testing.assert_allclose(per, per_shift, atol=1e-5)
    assert np.std(curl) > 1e-2
    np.testing.assert_allclose(div, 0.0, atol=2e-2 * np.abs(curl).max())
