"""`preconditioner(A, ptype)`: operators that approximate A's inverse. "diag" (Jacobi: one over
each diagonal coefficient), "diag_abs" (one over its absolute value) and "id" (the identity). A
zero diagonal coefficient gives 1 (the identity on that unknown), so a singular diagonal never
turns a solve into NaNs. The diagonal comes from a dense 2-d array, a diagonal 1-d array or a
`warp.sparse` BsrMatrix (the diagonals of its diagonal blocks, via `bsr_get_diag`).

The Jacobi operator is a diagonal operator (operator.diagonal_operator), which CG fuses into
its update kernel."""


import functools

import warp_nb as wp

from ... import types as T
from ...arrays.array import array
from .block_jacobi import STRATEGIES, block_jacobi
from .operator import LinearOperator, diagonal_operator, identity_operator, is_bsr, scalars

PTYPES = ("diag", "diag_abs", "id")


def preconditioner(A, ptype: str = "diag") -> LinearOperator:
    """A preconditioner for A: "diag" (Jacobi), "diag_abs" (Jacobi on absolute values), "id", or
    for a BsrMatrix of square blocks one of the block-Jacobi strategies (block_jacobi.py)."""
    if ptype in STRATEGIES:
        return block_jacobi(A, ptype, preconditioner)
    if ptype == "fsai":
        from .fsai import FSAI
        return FSAI(A)
    if not isinstance(ptype, str) or ptype not in PTYPES:
        raise ValueError(f"unknown preconditioner type {ptype!r}: expected one of {', '.join(PTYPES + STRATEGIES + ('fsai',))}")
    shape, scalar, device = _describe(A)
    if shape[0] != shape[1]:
        raise ValueError(f"preconditioner: A must be a square matrix, got shape {shape}")
    if ptype == "id":
        return identity_operator(shape[0], scalar, device)
    d = _diagonal(A, shape[0], scalar, device)
    inverse = wp.empty(shape[0], dtype=scalar, device=device)
    wp.launch(_invert_kernel(scalar), dim=shape[0], inputs=[d, int(ptype == "diag_abs"), inverse], device=device)
    return diagonal_operator(inverse)


def _describe(A):
    if isinstance(A, LinearOperator):
        return A.shape, A.scalar_type, A.device
    if is_bsr(A):
        return tuple(A.shape), A.scalar_type, A.device
    if isinstance(A, array) and A.ndim in (1, 2):
        scalar = T.scalar_type_of(A.dtype)
        n = A.size * T.type_length(A.dtype)
        return (tuple(A.shape) if A.ndim == 2 else (n, n)), scalar, A.device
    raise TypeError(f"preconditioner: A must be a warp.sparse BsrMatrix or a 1-d or 2-d warp array, got "
                    f"{type(A).__name__}")


def _diagonal(A, n, scalar, device):
    """A's diagonal coefficients as n scalars."""
    if isinstance(A, LinearOperator):
        if A._diag is None:
            raise ValueError("preconditioner: the diagonal of a LinearOperator defined by its matvec is unknown; "
                             "pass the matrix (dense array or BsrMatrix) instead")
        return A._diag
    if isinstance(A, array) and A.ndim == 1:
        return scalars(A)
    d = wp.empty(n, dtype=scalar, device=device)
    if isinstance(A, array):
        wp.launch(_dense_diagonal_kernel(scalar), dim=n, inputs=[A, d], device=device)
        return d
    from ...sparse import bsr_get_diag

    rows, cols = A.block_shape
    blocks = scalars(bsr_get_diag(A))
    wp.launch(_block_diagonal_kernel(scalar), dim=n, inputs=[blocks, rows, cols, d], device=device)
    return d


@functools.cache
def _invert_kernel(scalar):
    def invert_diagonal(d: wp.array(dtype=scalar), absolute: int, out: wp.array(dtype=scalar)):
        i = wp.tid()
        v = d[i]
        if absolute != 0:
            v = wp.abs(v)
        if v == scalar(0.0):
            out[i] = scalar(1.0)
        else:
            out[i] = scalar(1.0) / v

    return wp.kernel(invert_diagonal, key=f"linear_invert_diagonal_{T.type_name(scalar)}", enable_backward=False)


@functools.cache
def _dense_diagonal_kernel(scalar):
    def dense_diagonal(A: wp.array2d(dtype=scalar), out: wp.array(dtype=scalar)):
        i = wp.tid()
        out[i] = A[i, i]

    return wp.kernel(dense_diagonal, key=f"linear_dense_diagonal_{T.type_name(scalar)}", enable_backward=False)


@functools.cache
def _block_diagonal_kernel(scalar):
    def block_diagonal(blocks: wp.array(dtype=scalar), rows: int, cols: int, out: wp.array(dtype=scalar)):
        # scalar i is row i % rows of diagonal block i // rows, whose values are row-major
        i = wp.tid()
        block = i // rows
        r = i - block * rows
        out[i] = blocks[block * rows * cols + r * cols + r]

    return wp.kernel(block_diagonal, key=f"linear_block_diagonal_{T.type_name(scalar)}", enable_backward=False)
