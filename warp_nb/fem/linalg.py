"""`warp.fem.linalg`: small dense linear algebra as device functions, generic over the matrix size
and the scalar type (float16, bfloat16, float32, float64): tensor parts (spherical, symmetric,
skew), generalized inner and outer products, Householder QR and Hessenberg reduction, triangular
solves, inverse by QR, and the eigen-decomposition of symmetric matrices by the tridiagonal QR
algorithm. `array_axpy` (an array update recorded on the tape) is here too, as in Warp.

Scale: every routine that squares entries divides the matrix by its largest entry first and scales
the result back, and each Householder vector and Givens rotation is computed from scaled values,
so that matrices of magnitude 1e-22 in float32 (or 1e-4 in float16) neither underflow nor lose
their small couplings. Deflation of the tridiagonal QR compares an off-diagonal term with the
geometric mean of its two diagonal neighbours (|e| <= tol sqrt|a| sqrt|b|), which keeps the small
eigenvalue -c^2/a of [[a, c], [c, 0]] even when c is below eps * a; 2x2 blocks are diagonalized
exactly by one Jacobi rotation.

This module knows nothing about fields or geometry; it is plain kernel code (`@wp.func`s)."""

from __future__ import annotations

from typing import Any

import warp_nb as wp

from .. import types as T
from .linalg_tridiagonal import (  # noqa: F401  (the eigen-solver's pieces, public in Warp's module)
    _dtype_epsilon,
    _givens_rotation,
    _safe_hypot,
    _sqrt_min_normal,
    _wilkinson_shift,
    tridiagonal_symmetric_eigenvalues_qr,
)

_vec_any = T.vector(length=Any, dtype=Any)
_mat_any = T.matrix(shape=(Any, Any), dtype=Any)
_mat22_any = T.matrix(shape=(2, 2), dtype=Any)
_mat33_any = T.matrix(shape=(3, 3), dtype=Any)
_quat_any = T.quaternion(dtype=Any)


# --- tensor parts ------------------------------------------------------------------------------

@wp.func
def spherical_part(x: _mat_any):
    """Spherical part of a square tensor: trace(x) / n times the identity."""
    n = len(x)
    return (wp.trace(x) / x.dtype(n)) * wp.identity(n=len(x), dtype=x.dtype)


@wp.func
def symmetric_part(x: Any):
    """Symmetric part of a square tensor: (x + x^T) / 2."""
    return x.dtype(0.5) * (x + wp.transpose(x))


@wp.func
def skew_part(x: _mat22_any):
    """Skew part of a 2x2 tensor as the corresponding rotation scalar, (x[1,0] - x[0,1]) / 2."""
    return x.dtype(0.5) * (x[1, 0] - x[0, 1])


@wp.func
def skew_part(x: _mat33_any):  # noqa: F811  (an overload)
    """Skew part of a 3x3 tensor as the corresponding rotation vector w (skew(w) = (x - x^T) / 2)."""
    a = x.dtype(0.5) * (x - wp.transpose(x))
    return wp.vector(a[2, 1], a[0, 2], a[1, 0])


# --- generalized products --------------------------------------------------------------------------

@wp.func
def generalized_outer(x: _vec_any, y: _vec_any):
    """Outer product x y^T of two vectors."""
    return wp.outer(x, y)


@wp.func
def generalized_outer(x: wp.Scalar, y: _vec_any):  # noqa: F811
    """A scalar times a vector."""
    return x * y


@wp.func
def generalized_outer(x: _vec_any, y: wp.Scalar):  # noqa: F811
    """A vector times a scalar."""
    return x * y


@wp.func
def generalized_outer(x: _quat_any, y: _vec_any):  # noqa: F811
    """Outer product x y^T of a quaternion (as a 4-vector) and a vector."""
    return wp.outer(wp.vector(x[0], x[1], x[2], x[3]), y)


@wp.func
def generalized_inner(x: wp.Scalar, y: wp.Scalar):
    """Product of two scalars."""
    return x * y


@wp.func
def generalized_inner(x: _vec_any, y: _vec_any):  # noqa: F811
    """Dot product of two vectors."""
    return wp.dot(x, y)


@wp.func
def generalized_inner(x: _mat_any, y: _mat_any):  # noqa: F811
    """Double contraction x : y of two matrices."""
    return wp.ddot(x, y)


@wp.func
def generalized_inner(x: _mat_any, y: _vec_any):  # noqa: F811
    """Contraction of a matrix's first index with a vector: x^T y."""
    return y * x


@wp.func
def generalized_inner(x: _vec_any, y: _mat_any):  # noqa: F811
    """Contraction of a vector with a matrix's first index: y^T x."""
    return x * y


@wp.func
def basis_coefficient(val: wp.Scalar, i: int):
    """The coefficient of a scalar: itself."""
    return val


@wp.func
def basis_coefficient(val: _vec_any, i: int):  # noqa: F811
    """The i-th coefficient of a vector."""
    return val[i]


@wp.func
def basis_coefficient(val: _mat_any, i: int):  # noqa: F811
    """The i-th coefficient of a matrix in row-major order."""
    cols = len(val[0])
    return val[i // cols, i - (i // cols) * cols]


@wp.func
def basis_coefficient(val: wp.Scalar, i: int, j: int):  # noqa: F811
    """The coefficient of a scalar: itself."""
    return val


@wp.func
def basis_coefficient(val: _vec_any, i: int, j: int):  # noqa: F811
    """The j-th coefficient of a vector (a vector is a row: i is its only row)."""
    return val[j]


@wp.func
def basis_coefficient(val: _mat_any, i: int, j: int):  # noqa: F811
    """The (i, j) coefficient of a matrix."""
    return val[i, j]


# --- Householder reflections, QR and Hessenberg -----------------------------------------------

@wp.func
def _householder_reflection(x: Any, pivot: int):
    """(v, beta) such that (I - beta v v^T) x has zeros below `pivot` and x's values above it,
    computed from x / max|x[pivot:]| so that neither tiny nor huge entries over- or underflow.
    beta is 0 (the identity) when x is already zero below the pivot."""
    n = len(x)
    zero = x.dtype(0.0)
    v = x * zero
    scale = zero
    below = zero
    for i in range(pivot, n):
        scale = wp.max(scale, wp.abs(x[i]))
        if i > pivot:
            below = wp.max(below, wp.abs(x[i]))
    if below == zero:
        return v, zero
    sum_sq = zero
    for i in range(pivot, n):
        v[i] = x[i] / scale
        sum_sq += v[i] * v[i]
    sigma = wp.sqrt(sum_sq)
    alpha = sigma
    if v[pivot] > zero:
        alpha = -sigma
    v[pivot] = v[pivot] - alpha  # |v[pivot]| = |y_p| + sigma: no cancellation
    return v, x.dtype(2.0) / wp.dot(v, v)


@wp.func
def householder_qr_decomposition(A: Any):
    """QR decomposition of a square matrix by Householder reflections: (Q, R) with Q R = A, Q
    orthonormal (Q Q^T = I) and R upper triangular."""
    n = len(A)
    Q = wp.identity(n=len(A), dtype=A.dtype)
    R = A
    for k in range(n - 1):
        v, beta = _householder_reflection(wp.transpose(R)[k], k)
        if beta != A.dtype(0.0):
            R -= beta * wp.outer(v, v * R)
            Q -= beta * wp.outer(Q * v, v)
    return Q, R


@wp.func
def householder_make_hessenberg(A: Any):
    """Reduction of a square matrix to Hessenberg form (one lower diagonal) by Householder
    reflections: (Q, H) with Q H Q^T = A, Q orthonormal; H is tridiagonal when A is symmetric."""
    n = len(A)
    Q = wp.identity(n=len(A), dtype=A.dtype)
    H = A
    for k in range(n - 2):
        v, beta = _householder_reflection(wp.transpose(H)[k], k + 1)
        if beta != A.dtype(0.0):
            H -= beta * wp.outer(v, v * H)
            H -= beta * wp.outer(H * v, v)
            Q -= beta * wp.outer(Q * v, v)
    return Q, H


@wp.func
def solve_triangular(R: Any, b: Any):
    """Solve R x = b for x, R upper triangular (back substitution)."""
    n = len(b)
    x = b
    for k in range(n):
        i = n - 1 - k
        s = b[i]
        for j in range(i + 1, n):
            s -= R[i, j] * x[j]
        x[i] = s / R[i, i]
    return x


@wp.func
def _max_abs(A: Any):
    n = len(A)
    m = A.dtype(0.0)
    for i in range(n):
        for j in range(n):
            m = wp.max(m, wp.abs(A[i, j]))
    return m


@wp.func
def inverse_qr(A: Any):
    """Inverse of a square matrix through its QR factorization (A / max|A| is factorized, so that
    very small or very large matrices invert without over- or underflow)."""
    n = len(A)
    scale = _max_abs(A)
    Q, R = householder_qr_decomposition(A / scale)
    inverse = A * A.dtype(0.0)
    for j in range(n):
        column = solve_triangular(R, Q[j])  # column j of R^-1 Q^T
        for i in range(n):
            inverse[i, j] = column[i] / scale
    return inverse


@wp.func
def symmetric_eigenvalues_qr(A: Any, tol: Any):
    """Eigenvalues and eigenvectors of a square symmetric matrix by Householder tridiagonalization
    and the symmetric tridiagonal QR algorithm with Wilkinson shifts.

    `tol` bounds the off-diagonal terms left, relative to their neighbouring diagonal terms;
    tolerances below the scalar type's machine epsilon use the tightest attainable criterion.
    Returns (D, P): the eigenvalues and a matrix with one eigenvector per row, A = P^T diag(D) P.
    The zero matrix gives D = 0 and P = I."""
    n = len(A)
    scale = _max_abs(A)
    zero = A.dtype(0.0)
    if scale == zero:
        return wp.get_diag(A), wp.identity(n=len(A), dtype=A.dtype)
    Q, H = householder_make_hessenberg(A / scale)
    D = wp.get_diag(H)
    L = D * zero
    for i in range(n - 1):
        L[i] = H[i + 1, i]
    D, P = tridiagonal_symmetric_eigenvalues_qr(D, L, wp.transpose(Q), tol)
    return D * scale, P


# --- arrays ------------------------------------------------------------------------------------

@wp.kernel
def _array_axpy_kernel(x: wp.array(dtype=Any), y: wp.array(dtype=Any), alpha: Any, beta: Any):
    i = wp.tid()
    y[i] = beta * y[i] + alpha * y.dtype(x[i])


def array_axpy(x: wp.array, y: wp.array, alpha: float = 1.0, beta: float = 1.0):
    """y = alpha * x + beta * y for 1-D arrays of the same length (x's values converted to y's
    dtype), recorded on the active tape so that gradients flow to x and y."""
    if not isinstance(x, wp.array) or not isinstance(y, wp.array):
        raise TypeError(f"array_axpy: x and y must be wp.array, got {type(x).__name__} and {type(y).__name__}")
    if x.shape != y.shape:
        raise ValueError(f"array_axpy: x and y must have the same shape, got {x.shape} and {y.shape}")
    if x.device != y.device:
        raise ValueError(f"array_axpy: x and y must be on the same device, got {x.device} and {y.device}")
    scalar = T.type_scalar_type(y.dtype)
    wp.launch(_array_axpy_kernel, dim=y.size, device=y.device,
              inputs=[x.flatten() if x.ndim > 1 else x, y.flatten() if y.ndim > 1 else y, scalar(alpha), scalar(beta)])
