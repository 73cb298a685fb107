"""Warp's dense linear algebra builtins (wp.dense_gemm, dense_chol, dense_subs, dense_solve)
against numpy, float32 and float64, transposed operands included."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


_KERNELS = {}


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
@pytest.mark.parametrize("t1,t2", [(0, 0), (1, 0), (0, 1), (1, 1)])
def test_gemm_chol_solve(dtype, t1, t2):
    @wp.kernel
    def solve(m: int, n: int, p: int, t1: int, t2: int, A: wp.array(dtype=dtype), B: wp.array(dtype=dtype),
              C: wp.array(dtype=dtype), S: wp.array(dtype=dtype), L: wp.array(dtype=dtype),
              b: wp.array(dtype=dtype), x: wp.array(dtype=dtype), y: wp.array(dtype=dtype)):
        wp.dense_gemm(m, n, p, t1, t2, A, B, C)
        wp.dense_chol(m, S, dtype(0.25), L)
        wp.dense_subs(m, L, b, x)
        wp.dense_solve(m, S, L, b, y)

    _KERNELS[dtype] = solve
    rng = np.random.default_rng(t1 + 2 * t2)
    m, n, p = 4, 3, 5
    A = rng.standard_normal((p, m) if t1 else (m, p))
    B = rng.standard_normal((n, p) if t2 else (p, n))
    R = rng.standard_normal((m, m))
    S = R @ R.T + np.eye(m)
    b = rng.standard_normal(m)

    def arr(a):
        return wp.array(a.ravel(), dtype=dtype)

    C, L = wp.zeros(m * n, dtype=dtype), wp.zeros(m * m, dtype=dtype)
    x, y = wp.zeros(m, dtype=dtype), wp.zeros(m, dtype=dtype)
    wp.launch(solve, 1, inputs=[m, n, p, t1, t2, arr(A), arr(B), C, arr(S), L, arr(b), x, y])
    tol = 1e-5 if dtype == wp.float32 else 1e-12
    expected = (A.T if t1 else A) @ (B.T if t2 else B)
    np.testing.assert_allclose(C.numpy().reshape(m, n), expected, rtol=tol, atol=tol)
    reg = S + 0.25 * np.eye(m)
    np.testing.assert_allclose(np.tril(L.numpy().reshape(m, m)), np.linalg.cholesky(reg), rtol=tol, atol=tol)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(reg, b), rtol=10 * tol, atol=10 * tol)
    np.testing.assert_allclose(y.numpy(), x.numpy(), rtol=tol, atol=tol)


def test_dense_kernels_compile_for_sm90_with_nvrtc():
    from tests.support.nvrtc_sm90 import compile_for_sm90

    compile_for_sm90(list(_KERNELS.values()))
