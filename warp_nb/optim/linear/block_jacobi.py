"""Block-Jacobi preconditioners of a BSR matrix with square blocks: z = alpha D^-1 x + beta y,
D the block diagonal. Warp's three strategies, and what each accepts:

- "block_jacobi_direct": any invertible block (Gauss-Jordan with partial pivoting, which is
  what a QR factorization gives here: no symmetry asked);
- "block_jacobi_sequential": symmetric positive definite blocks (an LDL^T factorization: the
  pivots of elimination without pivoting must be positive);
- "block_jacobi_tile": as sequential (Warp factorizes with tile Cholesky), float32 and float64
  only (Warp's tile_cholesky has no float16: asking for it raises ValueError).

A block the strategy cannot invert (singular, rank deficient, or not SPD / not symmetric where
asked) is replaced by the identity, as a zero diagonal is in scalar Jacobi. "Singular" is a pivot
at or below 2 * block size * the storage type's epsilon times the block's largest coefficient, so
a well-conditioned block with small coefficients (diag(1, 1e-4) in float32) is still inverted.
Blocks of one scalar fall back to scalar Jacobi for every strategy. Inverses are computed once,
in the accumulation precision (float32 for float16), one thread per block."""

import functools

import numpy as np

import warp_nb as wp

from ... import types as T
from ._kernels import acc_type
from .operator import LinearOperator, is_bsr, scalars

STRATEGIES = ("block_jacobi_direct", "block_jacobi_sequential", "block_jacobi_tile")


def block_jacobi(A, ptype: str, scalar_jacobi) -> LinearOperator:
    if not is_bsr(A):
        raise ValueError(f"preconditioner {ptype!r} needs a warp.sparse BsrMatrix, got {type(A).__name__}")
    rows, cols = A.block_shape
    if rows != cols:
        raise ValueError(f"preconditioner {ptype!r} requires square matrix blocks, got blocks of shape {(rows, cols)}")
    if A.nrow != A.ncol:
        raise ValueError(f"preconditioner {ptype!r} requires a square matrix, got {A.nrow} x {A.ncol} blocks "
                         f"(shape {tuple(A.shape)})")
    scalar = A.scalar_type
    if ptype == "block_jacobi_tile" and scalar not in (wp.float32, wp.float64):
        raise ValueError(f"preconditioner 'block_jacobi_tile' supports float32 and float64 blocks, got "
                         f"{T.type_name(scalar)} (use 'block_jacobi_direct' or 'block_jacobi_sequential')")
    if rows == 1:
        return scalar_jacobi(A, "diag")
    from ...sparse import bsr_get_diag

    bs, n = rows, A.nrow
    blocks = scalars(bsr_get_diag(A))
    acc = acc_type(scalar)
    inverse = wp.empty(n * bs * bs, dtype=acc, device=A.device)
    work = wp.empty(n * bs * bs, dtype=acc, device=A.device)
    tolerance = 2.0 * bs * float(np.finfo(_numpy_of(scalar)).eps)
    pivoting = int(ptype == "block_jacobi_direct")
    kernels = _kernels(scalar)
    wp.launch(kernels["invert"], dim=n, inputs=[blocks, bs, pivoting, acc(tolerance), work, inverse], device=A.device)
    apply = kernels["apply"]

    def matvec(x, y, z, alpha, beta):
        xs, ys, zs = scalars(x), scalars(y), scalars(z)
        wp.launch(apply, dim=n * bs, inputs=[inverse, bs, xs, ys, zs, float(alpha), float(beta)], device=A.device)

    return LinearOperator(tuple(A.shape), scalar, A.device, matvec)


def _numpy_of(scalar):
    return {wp.float16: np.float16, wp.float32: np.float32, wp.float64: np.float64}[scalar]


@functools.cache
def _kernels(scalar):
    acc = acc_type(scalar)
    key = T.type_name(scalar)

    def invert(blocks: wp.array(dtype=scalar), bs: int, pivoting: int, tolerance: acc, work: wp.array(dtype=acc),
               inverse: wp.array(dtype=acc)):
        # Gauss-Jordan on the block (in work) while the same row operations turn the identity (in
        # inverse) into its inverse; with pivoting, partial pivoting (any invertible block), else
        # the block must be symmetric with positive pivots (SPD). Failure: the identity.
        blk = wp.tid()
        base = blk * bs * bs
        scale = acc(0.0)
        symmetric = int(1)
        for i in range(bs * bs):
            work[base + i] = acc(blocks[base + i])
            scale = wp.max(scale, wp.abs(work[base + i]))
        for r in range(bs):
            for c in range(bs):
                inverse[base + r * bs + c] = acc(0.0)
                if r == c:
                    inverse[base + r * bs + c] = acc(1.0)
                if pivoting == 0:
                    d = work[base + r * bs + c] - work[base + c * bs + r]
                    if wp.abs(d) > tolerance * scale:
                        symmetric = 0
        ok = int(1)
        if scale == acc(0.0) or symmetric == 0:
            ok = 0
        k = int(0)
        while k < bs and ok == 1:
            p = k
            if pivoting != 0:
                for r in range(k + 1, bs):
                    if wp.abs(work[base + r * bs + k]) > wp.abs(work[base + p * bs + k]):
                        p = r
            piv = work[base + p * bs + k]
            if wp.abs(piv) <= tolerance * scale or (pivoting == 0 and piv <= acc(0.0)):
                ok = 0
            else:
                if p != k:
                    for c in range(bs):
                        t = work[base + k * bs + c]
                        work[base + k * bs + c] = work[base + p * bs + c]
                        work[base + p * bs + c] = t
                        t = inverse[base + k * bs + c]
                        inverse[base + k * bs + c] = inverse[base + p * bs + c]
                        inverse[base + p * bs + c] = t
                inv = acc(1.0) / piv
                for c in range(bs):
                    work[base + k * bs + c] = work[base + k * bs + c] * inv
                    inverse[base + k * bs + c] = inverse[base + k * bs + c] * inv
                for r in range(bs):
                    if r != k:
                        f = work[base + r * bs + k]
                        if f != acc(0.0):
                            for c in range(bs):
                                work[base + r * bs + c] = work[base + r * bs + c] - f * work[base + k * bs + c]
                                inverse[base + r * bs + c] = inverse[base + r * bs + c] - f * inverse[base + k * bs + c]
            k += 1
        if ok == 0:
            for r in range(bs):
                for c in range(bs):
                    inverse[base + r * bs + c] = acc(0.0)
                    if r == c:
                        inverse[base + r * bs + c] = acc(1.0)

    def apply(inverse: wp.array(dtype=acc), bs: int, x: wp.array(dtype=scalar), y: wp.array(dtype=scalar),
              z: wp.array(dtype=scalar), alpha: acc, beta: acc):
        i = wp.tid()
        blk = i // bs
        r = i - blk * bs
        s = acc(0.0)
        for c in range(bs):
            s += inverse[blk * bs * bs + r * bs + c] * acc(x[blk * bs + c])
        v = alpha * s
        if beta != acc(0.0):
            v += beta * acc(y[i])
        z[i] = scalar(v)

    return {"invert": wp.kernel(invert, key=f"linear_block_invert_{key}", enable_backward=False),
            "apply": wp.kernel(apply, key=f"linear_block_apply_{key}", enable_backward=False)}
