"""`warp_nb.fem.linalg` against numpy: eigen-decompositions of symmetric matrices (eigenvalues from
numpy.linalg.eigvalsh, reconstruction P^T diag(D) P, orthonormal P) for sizes 2 to 9, float32 and
float64, at ordinary and extreme scales; inverses against numpy.linalg.inv; the Householder QR and
Hessenberg factorizations; triangular solves; tensor parts and generalized products; array_axpy's
values and gradients."""

from typing import Any

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.fem import linalg

pytestmark = pytest.mark.needs_cxx


@wp.kernel(enable_backward=False)
def _eigen_kernel(matrices: wp.array(dtype=Any), values: wp.array(dtype=Any), vectors: wp.array(dtype=Any)):
    i = wp.tid()
    D, P = linalg.symmetric_eigenvalues_qr(matrices[i], matrices.dtype.dtype(0.0))
    values[i] = D
    vectors[i] = P


@wp.kernel(enable_backward=False)
def _inverse_kernel(matrices: wp.array(dtype=Any), inverses: wp.array(dtype=Any)):
    i = wp.tid()
    inverses[i] = linalg.inverse_qr(matrices[i])


@wp.kernel(enable_backward=False)
def _factor_kernel(matrices: wp.array(dtype=Any), qs: wp.array(dtype=Any), rs: wp.array(dtype=Any),
                   hq: wp.array(dtype=Any), hs: wp.array(dtype=Any)):
    i = wp.tid()
    Q, R = linalg.householder_qr_decomposition(matrices[i])
    qs[i] = Q
    rs[i] = R
    Qh, H = linalg.householder_make_hessenberg(matrices[i])
    hq[i] = Qh
    hs[i] = H


@wp.kernel(enable_backward=False)
def _solve_kernel(matrices: wp.array(dtype=Any), rhs: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = linalg.solve_triangular(matrices[i], rhs[i])


def _types(n, scalar):
    return wp.types.matrix(shape=(n, n), dtype=scalar), wp.types.vector(length=n, dtype=scalar)


def _symmetric(rng, count, n, spread=0.0):
    A = rng.standard_normal((count, n, n))
    if spread:  # eigenvalues over `spread` decades
        Q = np.linalg.qr(rng.standard_normal((count, n, n)))[0]
        d = rng.choice([-1.0, 1.0], (count, n)) * 10.0 ** rng.uniform(-spread, 0.0, (count, n))
        return np.einsum("cij,cj,ckj->cik", Q, d, Q)
    return A + np.swapaxes(A, 1, 2)


def _eigen(A, scalar):
    n = A.shape[-1]
    mat, vec = _types(n, scalar)
    values = wp.empty(len(A), dtype=vec)
    vectors = wp.empty(len(A), dtype=mat)
    wp.launch(_eigen_kernel, dim=len(A), inputs=[wp.array(A, dtype=mat), values, vectors])
    return values.numpy().astype(np.float64), vectors.numpy().astype(np.float64)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 9])
@pytest.mark.parametrize("scalar, rtol", [(wp.float32, 2.0e-5), (wp.float64, 1.0e-12)])
def test_symmetric_eigenvalues_match_numpy(n, scalar, rtol):
    rng = np.random.default_rng(n)
    A = _symmetric(rng, 20, n)
    A = A.astype(np.float32).astype(np.float64) if scalar is wp.float32 else A
    D, P = _eigen(A, scalar)
    scale = np.abs(A).max(axis=(1, 2))[:, None]
    np.testing.assert_allclose(np.sort(D, axis=1) / scale, np.linalg.eigvalsh(A) / scale, atol=rtol * n)
    reconstruction = np.einsum("cki,ck,ckj->cij", P, D, P)
    np.testing.assert_allclose(reconstruction / scale[:, :, None], A / scale[:, :, None], atol=rtol * n)
    np.testing.assert_allclose(np.einsum("cik,cjk->cij", P, P), np.broadcast_to(np.eye(n), P.shape), atol=rtol * n)


@pytest.mark.parametrize("scale", [1.0e-30, 1.0e30])
def test_symmetric_eigenvalues_at_extreme_scales(scale):
    """Eigenvalues spread over 6 decades, the whole matrix scaled near float32's limits."""
    rng = np.random.default_rng(7)
    A = _symmetric(rng, 10, 4, spread=6.0)
    D, P = _eigen((A * scale).astype(np.float32), wp.float32)
    expected = np.linalg.eigvalsh(A)
    np.testing.assert_allclose(np.sort(D / scale, axis=1), expected, atol=1.0e-5)
    assert np.all(np.isfinite(P))


def test_zero_matrix_gives_identity_vectors():
    D, P = _eigen(np.zeros((1, 3, 3)), wp.float32)
    np.testing.assert_array_equal(D, 0.0)
    np.testing.assert_array_equal(P[0], np.eye(3))


def test_tiny_coupling_between_zero_diagonals_is_kept():
    """[[0, t], [t, 0]] has eigenvalues +-t however small t is, and [[a, c], [c, 0]] keeps -c^2/a
    when c is below eps * a."""
    t = 1.0e-25
    D, _ = _eigen(np.array([[[1.0, 0, 0], [0, 0, t], [0, t, 0]]]), wp.float32)
    np.testing.assert_allclose(np.sort(D[0]), [-t, t, 1.0], rtol=1.0e-5)
    D, _ = _eigen(np.array([[[1.0e10, 1.0e3], [1.0e3, 0.0]]]), wp.float32)
    np.testing.assert_allclose(D[0].min(), -1.0e-4, rtol=1.0e-4)


@pytest.mark.parametrize("n", [2, 3, 6])
@pytest.mark.parametrize("scalar, rtol", [(wp.float32, 1.0e-4), (wp.float64, 1.0e-10)])
def test_inverse_qr_matches_numpy(n, scalar, rtol):
    rng = np.random.default_rng(10 + n)
    A = rng.standard_normal((20, n, n)) + 2.0 * n * np.eye(n)  # well conditioned
    mat, _ = _types(n, scalar)
    out = wp.empty(len(A), dtype=mat)
    wp.launch(_inverse_kernel, dim=len(A), inputs=[wp.array(A, dtype=mat), out])
    np.testing.assert_allclose(out.numpy(), np.linalg.inv(A.astype(out.numpy().dtype)), rtol=rtol, atol=rtol)


def test_inverse_qr_of_tiny_matrix():
    A = np.array([[[3.0, 0.4, -0.2], [0.4, 2.0, 0.3], [-0.2, 0.3, 1.5]]]) * 1.0e-22
    out = wp.empty(1, dtype=wp.mat33)
    wp.launch(_inverse_kernel, dim=1, inputs=[wp.array(A, dtype=wp.mat33), out])
    np.testing.assert_allclose(out.numpy()[0] * 1.0e-22, np.linalg.inv(A[0] * 1.0e22), rtol=1.0e-5)


def test_householder_factorizations():
    rng = np.random.default_rng(3)
    n = 5
    A = rng.standard_normal((4, n, n))
    A[2] = A[2] + A[2].T  # a symmetric one: its Hessenberg form is tridiagonal
    mat, _ = _types(n, wp.float64)
    outs = [wp.empty(len(A), dtype=mat) for _ in range(4)]
    wp.launch(_factor_kernel, dim=len(A), inputs=[wp.array(A, dtype=mat), *outs])
    Q, R, Qh, H = (o.numpy() for o in outs)
    eye = np.broadcast_to(np.eye(n), A.shape)
    np.testing.assert_allclose(Q @ R, A, atol=1.0e-12)
    np.testing.assert_allclose(Q @ np.swapaxes(Q, 1, 2), eye, atol=1.0e-12)
    np.testing.assert_allclose(np.tril(R, -1), 0.0, atol=1.0e-12)
    np.testing.assert_allclose(Qh @ H @ np.swapaxes(Qh, 1, 2), A, atol=1.0e-12)
    np.testing.assert_allclose(np.tril(H, -2), 0.0, atol=1.0e-12)
    np.testing.assert_allclose(np.triu(H[2], 2), 0.0, atol=1.0e-12)


def test_solve_triangular():
    rng = np.random.default_rng(4)
    R = np.triu(rng.standard_normal((6, 4, 4))) + 4.0 * np.eye(4)
    b = rng.standard_normal((6, 4))
    mat, vec = _types(4, wp.float64)
    out = wp.empty(6, dtype=vec)
    wp.launch(_solve_kernel, dim=6, inputs=[wp.array(R, dtype=mat), wp.array(b, dtype=vec), out])
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(R, b[..., None])[..., 0], rtol=1.0e-12)


@wp.kernel(enable_backward=False)
def _parts_kernel(m2: wp.array(dtype=wp.mat22), m3: wp.array(dtype=wp.mat33), v2: wp.array(dtype=wp.vec2),
                  v3: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat),
                  mats3: wp.array(dtype=wp.mat33), skew2: wp.array(dtype=float), skew3: wp.array(dtype=wp.vec3),
                  outer23: wp.array(dtype=wp.types.matrix(shape=(2, 3), dtype=float)),
                  outer_q: wp.array(dtype=wp.types.matrix(shape=(4, 2), dtype=float)),
                  scalars: wp.array(dtype=float), vecs: wp.array(dtype=wp.vec3)):
    mats3[0] = linalg.spherical_part(m3[0])
    mats3[1] = linalg.symmetric_part(m3[0])
    skew2[0] = linalg.skew_part(m2[0])
    skew3[0] = linalg.skew_part(m3[0])
    outer23[0] = linalg.generalized_outer(v2[0], v3[0])
    outer_q[0] = linalg.generalized_outer(q[0], v2[0])
    vecs[0] = linalg.generalized_outer(2.0, v3[0])
    vecs[1] = linalg.generalized_inner(m3[0], v3[0])
    vecs[2] = linalg.generalized_inner(v3[0], m3[0])
    scalars[0] = linalg.generalized_inner(v3[0], v3[0])
    scalars[1] = linalg.generalized_inner(m3[0], m3[0])
    scalars[2] = linalg.generalized_inner(2.0, 3.0)
    scalars[3] = linalg.basis_coefficient(m3[0], 1, 2)
    scalars[4] = linalg.basis_coefficient(m3[0], 5)
    scalars[5] = linalg.basis_coefficient(v3[0], 0, 2)
    scalars[6] = linalg.basis_coefficient(v3[0], 1)


def test_tensor_parts_and_generalized_products():
    rng = np.random.default_rng(5)
    m2, m3, v2, v3, q = (rng.standard_normal(s) for s in ((2, 2), (3, 3), 2, 3, 4))
    outs = {"mats3": wp.empty(2, dtype=wp.mat33), "skew2": wp.empty(1, dtype=float),
            "skew3": wp.empty(1, dtype=wp.vec3), "outer23": wp.empty(1, dtype=wp.types.matrix(shape=(2, 3), dtype=float)),
            "outer_q": wp.empty(1, dtype=wp.types.matrix(shape=(4, 2), dtype=float)),
            "scalars": wp.empty(7, dtype=float), "vecs": wp.empty(3, dtype=wp.vec3)}
    wp.launch(_parts_kernel, dim=1, inputs=[wp.array([m2], dtype=wp.mat22), wp.array([m3], dtype=wp.mat33),
                                            wp.array([v2], dtype=wp.vec2), wp.array([v3], dtype=wp.vec3),
                                            wp.array([q], dtype=wp.quat), *outs.values()])
    o = {k: v.numpy() for k, v in outs.items()}
    tol = {"rtol": 1.0e-5, "atol": 1.0e-6}
    np.testing.assert_allclose(o["mats3"][0], np.trace(m3) / 3.0 * np.eye(3), **tol)
    np.testing.assert_allclose(o["mats3"][1], 0.5 * (m3 + m3.T), **tol)
    np.testing.assert_allclose(o["skew2"][0], 0.5 * (m2[1, 0] - m2[0, 1]), **tol)
    W = 0.5 * (m3 - m3.T)  # skew(w) = W: w = (W[2,1], W[0,2], W[1,0])
    np.testing.assert_allclose(o["skew3"][0], [W[2, 1], W[0, 2], W[1, 0]], **tol)
    np.testing.assert_allclose(o["outer23"][0], np.outer(v2, v3), **tol)
    np.testing.assert_allclose(o["outer_q"][0], np.outer(q, v2), **tol)
    np.testing.assert_allclose(o["vecs"], [2.0 * v3, m3.T @ v3, m3.T @ v3], **tol)
    np.testing.assert_allclose(o["scalars"], [v3 @ v3, np.sum(m3 * m3), 6.0, m3[1, 2], m3.ravel()[5], v3[2], v3[1]],
                               **tol)


def test_array_axpy_values_and_gradients():
    x = wp.array(np.arange(5.0) + 1.0, dtype=wp.float32, requires_grad=True)
    y = wp.array(np.linspace(-1.0, 1.0, 5), dtype=wp.float64, requires_grad=True)
    y0 = y.numpy().copy()
    tape = wp.Tape()
    with tape:
        linalg.array_axpy(x=x, y=y, alpha=0.5, beta=3.0)
    np.testing.assert_allclose(y.numpy(), 0.5 * x.numpy() + 3.0 * y0)
    y.grad.fill_(1.0)
    tape.backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(5, 0.5))
    np.testing.assert_allclose(y.grad.numpy(), np.full(5, 3.0))


def test_array_axpy_refuses_mismatched_shapes():
    with pytest.raises(ValueError, match="same shape"):
        linalg.array_axpy(wp.zeros(3), wp.zeros(4))
