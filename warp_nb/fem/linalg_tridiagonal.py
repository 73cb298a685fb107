"""The symmetric tridiagonal QR algorithm of `warp.fem.linalg` (Golub and Van Loan, Matrix
Computations, 8.3: implicit Wilkinson shifts, Givens chasing), with the scalar constants and
scale-safe rotations it needs. Generic over the vector length and the scalar type.

Choices, each for a case Warp's tests check:
- Deflation: L[i] is dropped when |L[i]| <= tol sqrt|D[i]| sqrt|D[i+1]| (LAPACK's steqr test). A
  coupling far below eps times its larger neighbour still sets the small eigenvalue -c^2/a of
  [[a, c], [c, 0]], and a test against |D[i]| + |D[i+1]| would drop it.
- An unreduced 2x2 block is diagonalized by one exact Jacobi rotation instead of QR steps: two zero
  diagonal terms coupled by a tiny term (which a shift never moves) converge at once.
- Rotations come from hypot computed on scaled values, so tiny blocks do not underflow.
- After 16 n steps without convergence the test relaxes to |L[i]| <= eps (|D[i]| + |D[i+1]|), and
  after 32 n the loop stops: the function always returns."""

from __future__ import annotations

from typing import Any

import warp_nb as wp


@wp.func
def _dtype_epsilon(_value: wp.float16):
    """Machine epsilon of the scalar type of `_value` (the distance from 1 to the next number)."""
    return wp.float16(9.765625e-4)


@wp.func
def _dtype_epsilon(_value: wp.bfloat16):  # (overloads by scalar type)
    return wp.bfloat16(7.8125e-3)


@wp.func
def _dtype_epsilon(_value: wp.float32):
    return wp.float32(1.1920928955078125e-07)


@wp.func
def _dtype_epsilon(_value: wp.float64):
    return wp.float64(2.220446049250313e-16)


@wp.func
def _sqrt_min_normal(_value: wp.float16):
    """Square root of the smallest normal number of the scalar type of `_value`."""
    return wp.float16(7.8125e-3)


@wp.func
def _sqrt_min_normal(_value: wp.bfloat16):
    return wp.bfloat16(1.0842021724855044e-19)


@wp.func
def _sqrt_min_normal(_value: wp.float32):
    return wp.float32(1.0842021724855044e-19)


@wp.func
def _sqrt_min_normal(_value: wp.float64):
    return wp.float64(1.4916681462400413e-154)


@wp.func
def _safe_hypot(a: Any, b: Any):
    """sqrt(a^2 + b^2) without squaring a or b themselves (no underflow for tiny values)."""
    m = wp.max(wp.abs(a), wp.abs(b))
    if m == type(a)(0.0):
        return m
    x = a / m
    y = b / m
    return m * wp.sqrt(x * x + y * y)


@wp.func
def _givens_rotation(a: Any, b: Any):
    """(c, s, r) with c a + s b = r and -s a + c b = 0 (c = s = 0 never: (1, 0, 0) for a = b = 0)."""
    zero = type(a)(0.0)
    r = _safe_hypot(a, b)
    if r == zero:
        return type(a)(1.0), zero, zero
    return a / r, b / r, r


@wp.func
def _wilkinson_shift(a: Any, b: Any, c: Any):
    """The eigenvalue of [[a, b], [b, c]] closer to c, as c - b^2 / (d + sign(d) hypot(d, b)) with
    d = (a - c) / 2 (b^2 is formed as b (b / ...) so that it cannot underflow)."""
    zero = type(a)(0.0)
    if b == zero:
        return c
    d = (a - c) * type(a)(0.5)
    h = _safe_hypot(d, b)
    if d < zero:
        h = -h
    return c - b * (b / (d + h))


@wp.func
def _is_negligible_coupling(e: Any, a: Any, b: Any, tol: Any, eps: Any, relaxed: bool):
    """Whether the off-diagonal term e between diagonal terms a and b can be set to zero."""
    ae = wp.abs(e)
    tiny = _sqrt_min_normal(e)
    if ae < tiny * tiny:
        return True
    if ae <= tol * wp.sqrt(wp.abs(a)) * wp.sqrt(wp.abs(b)):
        return True
    return relaxed and ae <= eps * (wp.abs(a) + wp.abs(b))


@wp.func
def _jacobi_2x2(D: Any, L: Any, P: Any, lo: int):
    """Diagonalize the block [[D[lo], L[lo]], [L[lo], D[lo + 1]]] exactly, rotating rows lo, lo + 1 of P."""
    one = D.dtype(1.0)
    a = D[lo]
    b = L[lo]
    c = D[lo + 1]
    tau = (c - a) / (D.dtype(2.0) * b)
    t = one / (wp.abs(tau) + _safe_hypot(one, tau))
    if tau < D.dtype(0.0):
        t = -t
    cs = one / wp.sqrt(one + t * t)
    sn = t * cs
    D[lo] = a - t * b
    D[lo + 1] = c + t * b
    L[lo] = D.dtype(0.0)
    row = P[lo]
    row1 = P[lo + 1]
    P[lo] = cs * row - sn * row1
    P[lo + 1] = sn * row + cs * row1
    return D, L, P


@wp.func
def _implicit_qr_step(D: Any, L: Any, P: Any, lo: int, hi: int):
    """One QR step with Wilkinson shift on the unreduced block lo..hi, chasing the bulge with Givens
    rotations G (T <- G T G^T on the tridiagonal terms, P <- G P)."""
    mu = _wilkinson_shift(D[hi - 1], L[hi - 1], D[hi])
    x = D[lo] - mu
    z = L[lo]
    two = D.dtype(2.0)
    for k in range(lo, hi):
        c, s, r = _givens_rotation(x, z)
        if k > lo:
            L[k - 1] = r
        dk = D[k]
        dk1 = D[k + 1]
        ek = L[k]
        D[k] = c * c * dk + two * c * s * ek + s * s * dk1
        D[k + 1] = s * s * dk - two * c * s * ek + c * c * dk1
        L[k] = c * s * (dk1 - dk) + (c * c - s * s) * ek
        if k + 1 < hi:
            z = s * L[k + 1]
            L[k + 1] = c * L[k + 1]
        x = L[k]
        row = P[k]
        row1 = P[k + 1]
        P[k] = c * row + s * row1
        P[k + 1] = c * row1 - s * row
    return D, L, P


@wp.func
def tridiagonal_symmetric_eigenvalues_qr(D: Any, L: Any, Q: Any, tol: Any):
    """Eigenvalues and eigenvectors of the symmetric tridiagonal matrix with main diagonal D and
    lower diagonal L (L[i] = A[i + 1, i]; entries past len(D) - 2 are ignored), by the QR algorithm
    with implicit Wilkinson shifts.

    Q initializes the eigenvectors (the identity, or the transform of a pre-reduction: for
    A = Q^T T Q pass Q). `tol` bounds the off-diagonal terms left, relative to their neighbouring
    diagonal terms; below the type's machine epsilon the tightest attainable criterion is used.
    Returns (D, P): eigenvalues and one eigenvector per row, T = P^T diag(D) P for Q = I."""
    n = len(D)
    zero = D.dtype(0.0)
    eps = _dtype_epsilon(zero)
    tol_eff = wp.max(D.dtype(tol), eps)
    P = Q
    for it in range(32 * n):
        relaxed = it >= 16 * n
        for i in range(n - 1):
            if L[i] != zero and _is_negligible_coupling(L[i], D[i], D[i + 1], tol_eff, eps, relaxed):
                L[i] = zero
        hi = n - 1
        while hi > 0 and L[hi - 1] == zero:
            hi -= 1
        if hi == 0:
            break
        lo = hi - 1
        while lo > 0 and L[lo - 1] != zero:
            lo -= 1
        if hi - lo == 1:
            D, L, P = _jacobi_2x2(D, L, P, lo)
        else:
            D, L, P = _implicit_qr_step(D, L, P, lo, hi)
    return D, P
