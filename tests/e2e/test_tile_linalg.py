"""Tile linear algebra on the CPU against numpy: Cholesky factors, triangular and Cholesky solves
(values and in-place forms), tile_diag_add, and their gradients against finite differences."""

import numpy as np
import pytest

import warp_nb as wp
from tests.support.nvrtc_sm90 import compile_for_sm90

N, M = 5, 3
rng = np.random.default_rng(11)


def spd(n):
    a = rng.standard_normal((n, n))
    return a @ a.T + n * np.eye(n)


@wp.kernel
def factor_and_solve(a: wp.array2d(dtype=wp.float64), b: wp.array2d(dtype=wp.float64), v: wp.array(dtype=wp.float64),
                     d: wp.array(dtype=wp.float64), lower: wp.array2d(dtype=wp.float64),
                     upper: wp.array2d(dtype=wp.float64), x: wp.array2d(dtype=wp.float64),
                     xv: wp.array(dtype=wp.float64), xl: wp.array2d(dtype=wp.float64), xu: wp.array2d(dtype=wp.float64),
                     diag: wp.array2d(dtype=wp.float64)):
    A = wp.tile_load(a, shape=(N, N))
    B = wp.tile_load(b, shape=(N, M))
    L = wp.tile_cholesky(A)
    wp.tile_store(lower, L)
    U = wp.tile_cholesky(A, fill_mode="upper")
    wp.tile_store(upper, U)
    wp.tile_store(x, wp.tile_cholesky_solve(L, B))
    y = wp.tile_load(v, shape=N)
    wp.tile_cholesky_solve_inplace(U, y, fill_mode="upper")
    wp.tile_store(xv, y)
    wp.tile_store(xl, wp.tile_lower_solve(L, B))
    z = wp.tile_load(b, shape=(N, M))
    wp.tile_upper_solve_inplace(U, z)
    wp.tile_store(xu, z)
    C = wp.tile_load(a, shape=(N, N))
    wp.tile_cholesky_inplace(C)
    wp.tile_store(diag, wp.tile_diag_add(C, wp.tile_load(d, shape=N)))


def test_factors_and_solves_match_numpy():
    a, b, v, d = spd(N), rng.standard_normal((N, M)), rng.standard_normal(N), rng.standard_normal(N)
    outs = [wp.zeros((N, N), dtype=wp.float64), wp.zeros((N, N), dtype=wp.float64), wp.zeros((N, M), dtype=wp.float64),
            wp.zeros(N, dtype=wp.float64), wp.zeros((N, M), dtype=wp.float64), wp.zeros((N, M), dtype=wp.float64),
            wp.zeros((N, N), dtype=wp.float64)]
    ins = [wp.array(x, dtype=wp.float64) for x in (a, b, v, d)]
    wp.launch_tiled(factor_and_solve, dim=1, inputs=ins + outs, block_dim=32)
    lower, upper, x, xv, xl, xu, diag = (o.numpy() for o in outs)
    chol = np.linalg.cholesky(a)
    np.testing.assert_allclose(lower, chol, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(upper, chol.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-10)
    np.testing.assert_allclose(xv, np.linalg.solve(a, v), rtol=1e-10)
    np.testing.assert_allclose(xl, np.linalg.solve(chol, b), rtol=1e-10)
    np.testing.assert_allclose(xu, np.linalg.solve(chol.T, b), rtol=1e-10)
    np.testing.assert_allclose(diag, chol + np.diag(d), rtol=1e-12, atol=1e-12)


@wp.kernel
def solve_loss(a: wp.array2d(dtype=wp.float64), b: wp.array2d(dtype=wp.float64), w: wp.array2d(dtype=wp.float64),
               loss: wp.array(dtype=wp.float64), fill_upper: int):
    A = wp.tile_load(a, shape=(N, N))
    B = wp.tile_load(b, shape=(N, M))
    L = wp.tile_cholesky(A)
    X = wp.tile_cholesky_solve(L, B)
    Y = wp.tile_lower_solve(L, B)
    Z = wp.tile_upper_solve(wp.tile_cholesky(A, fill_mode="upper"), B)
    W = wp.tile_load(w, shape=(N, M))
    wp.tile_atomic_add(loss, wp.tile_sum(W * X) + wp.tile_sum(W * Y * Y) + wp.tile_sum(W * wp.tile_map(wp.sin, Z))
                       + wp.tile_sum(wp.tile_map(wp.cos, L)))


def _loss(a, b, w):
    sym = np.tril(a) + np.tril(a, -1).T  # the factorisation reads the lower triangle only
    low = np.tril(a.T) + np.tril(a.T, -1).T  # fill_mode="upper" reads the upper triangle
    chol = np.linalg.cholesky(sym)
    up = np.linalg.cholesky(low).T
    return ((w * np.linalg.solve(sym, b)).sum() + (w * np.linalg.solve(chol, b) ** 2).sum()
            + (w * np.sin(np.linalg.solve(up, b))).sum() + np.cos(chol).sum())


def test_solve_gradients_match_finite_differences():
    a, b, w = spd(N), rng.standard_normal((N, M)), rng.standard_normal((N, M))
    A, B, W = (wp.array(x, dtype=wp.float64, requires_grad=True) for x in (a, b, w))
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(solve_loss, dim=1, inputs=[A, B, W, loss, 0], block_dim=32)
    np.testing.assert_allclose(loss.numpy()[0], _loss(a, b, w), rtol=1e-10)
    tape.backward(loss=loss)
    eps = 1e-6
    for x, got in ((a, A.grad.numpy()), (b, B.grad.numpy())):
        fd = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            old = x[idx]
            x[idx] = old + eps
            up = _loss(a, b, w)
            x[idx] = old - eps
            fd[idx] = (up - _loss(a, b, w)) / (2 * eps)
            x[idx] = old
        np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-6)


def test_a_non_square_factor_is_refused_at_the_line():
    @wp.kernel
    def bad(a: wp.array2d(dtype=float)):
        wp.tile_store(a, wp.tile_cholesky(wp.tile_load(a, shape=(4, 3))))

    with pytest.raises(wp.KernelTypeError, match="square tile of floats"):
        wp.launch_tiled(bad, dim=1, inputs=[wp.zeros((4, 3), dtype=float)], block_dim=16)


@wp.kernel
def fourier(x: wp.array2d(dtype=wp.vec2d), y: wp.array2d(dtype=wp.vec2d), z: wp.array(dtype=wp.vec2f)):
    t = wp.tile_load(x, shape=(3, 12))
    wp.tile_fft(t)
    wp.tile_store(y, t)
    u = wp.tile_load(z, shape=8)
    wp.tile_ifft(u)
    wp.tile_store(z, u)


def test_fft_and_ifft_along_the_last_axis_match_numpy_and_differentiate():
    x = rng.standard_normal((3, 12)) + 1j * rng.standard_normal((3, 12))
    z = (rng.standard_normal(8) + 1j * rng.standard_normal(8)).astype(np.complex64)
    X = wp.array(x.view(np.float64).reshape(3, 12, 2), dtype=wp.vec2d, requires_grad=True)
    Y = wp.zeros((3, 12), dtype=wp.vec2d, requires_grad=True)
    Z = wp.array(z.view(np.float32).reshape(8, 2), dtype=wp.vec2f)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(fourier, dim=1, inputs=[X, Y, Z], block_dim=32)
    np.testing.assert_allclose(Y.numpy().view(np.complex128).reshape(3, 12), np.fft.fft(x, axis=-1), atol=1e-12)
    np.testing.assert_allclose(Z.numpy().view(np.complex64).reshape(8), np.fft.ifft(z) * 8, atol=1e-5)
    adj = rng.standard_normal((3, 12)) + 1j * rng.standard_normal((3, 12))
    tape.backward(grads={Y: wp.array(adj.view(np.float64).reshape(3, 12, 2), dtype=wp.vec2d)})
    # the transform is linear: its adjoint is the conjugate transpose, the unnormalised inverse
    np.testing.assert_allclose(X.grad.numpy().view(np.complex128).reshape(3, 12), np.fft.ifft(adj, axis=-1) * 12,
                               atol=1e-12)


@wp.kernel
def fourier_pow2(x: wp.array2d(dtype=wp.vec2d), y: wp.array2d(dtype=wp.vec2d)):
    t = wp.tile_load(x, shape=(2, 256))
    wp.tile_fft(t)
    wp.tile_store(y, t)


def test_fft_of_a_power_of_two_length_takes_the_radix2_path_and_matches_numpy():
    # 256 = 2^8: the butterfly passes and the bit reversal (lengths 8 and 12 above take shorter paths)
    x = rng.standard_normal((2, 256)) + 1j * rng.standard_normal((2, 256))
    X = wp.array(x.view(np.float64).reshape(2, 256, 2), dtype=wp.vec2d)
    Y = wp.zeros((2, 256), dtype=wp.vec2d)
    wp.launch_tiled(fourier_pow2, dim=1, inputs=[X, Y], block_dim=32)
    np.testing.assert_allclose(Y.numpy().view(np.complex128).reshape(2, 256), np.fft.fft(x, axis=-1), atol=1e-10)


@pytest.mark.needs_nvrtc
def test_linalg_kernels_compile_for_sm90_with_nvrtc():
    compile_for_sm90([factor_and_solve, solve_loss, fourier])
