"""`bsr_mv`: y = alpha * A @ x + beta * y, or with A transposed.

One thread per row of blocks: it walks the row's active blocks and writes its own entries of y,
so the product needs no atomics and no scratch (CSR matrices take a scalar kernel with no block
loops). The transposed product scatters each row's contribution into y with atomic adds after y
has been scaled by beta. Vectors are scalar arrays or arrays of vectors of the block size; both
are seen as (blocks, block_size) scalar arrays."""

from __future__ import annotations

import warp_nb as wp

from .. import types as T
from ..arrays.array import array
from ._common import flat2d, kernel_cache, scalar_view, unsigned, vector_view
from .matrix import BsrMatrix


@kernel_cache
def _csr_kernel(scalar):
    def csr_mv(offsets: wp.array(dtype=wp.uint32), row_counts: wp.array(dtype=wp.uint32), padded: int,
               columns: wp.array(dtype=wp.uint32), values: wp.array(dtype=scalar), x: wp.array(dtype=scalar),
               alpha: scalar, beta: scalar, y: wp.array(dtype=scalar)):
        r = wp.tid()
        begin = int(offsets[r])
        end = int(offsets[r + 1])
        if padded != 0:
            end = begin + int(row_counts[r])
        s = scalar(0.0)
        for b in range(begin, end):
            s = s + values[b] * x[columns[b]]
        if beta == scalar(0.0):
            y[r] = alpha * s  # y is not read: NaN in y does not leak through a zero beta
        else:
            y[r] = alpha * s + beta * y[r]

    return wp.kernel(csr_mv, key=f"bsr_csr_mv_{T.type_name(scalar)}")


@kernel_cache
def _bsr_kernel(scalar):
    def bsr_mv_rows(offsets: wp.array(dtype=wp.uint32), row_counts: wp.array(dtype=wp.uint32), padded: int,
                    columns: wp.array(dtype=wp.uint32), values: wp.array2d(dtype=scalar), block_rows: int,
                    block_cols: int,
                    x: wp.array2d(dtype=scalar), alpha: scalar, beta: scalar, y: wp.array2d(dtype=scalar)):
        r = wp.tid()
        begin = int(offsets[r])
        end = int(offsets[r + 1])
        if padded != 0:
            end = begin + int(row_counts[r])
        for i in range(block_rows):
            s = scalar(0.0)
            for b in range(begin, end):
                c = columns[b]
                for j in range(block_cols):
                    s = s + values[b, i * block_cols + j] * x[c, j]
            if beta == scalar(0.0):
                y[r, i] = alpha * s
            else:
                y[r, i] = alpha * s + beta * y[r, i]

    return wp.kernel(bsr_mv_rows, key=f"bsr_mv_rows_{T.type_name(scalar)}")


@kernel_cache
def _transposed_kernels(scalar):
    def scale(y: wp.array(dtype=scalar), beta: scalar):
        i = wp.tid()
        if beta == scalar(0.0):
            y[i] = scalar(0.0)
        else:
            y[i] = beta * y[i]

    def scatter(offsets: wp.array(dtype=wp.uint32), row_counts: wp.array(dtype=wp.uint32), padded: int,
                columns: wp.array(dtype=wp.uint32), values: wp.array2d(dtype=scalar), block_rows: int, block_cols: int,
                x: wp.array2d(dtype=scalar), alpha: scalar, y: wp.array(dtype=scalar)):
        r = wp.tid()
        begin = int(offsets[r])
        end = int(offsets[r + 1])
        if padded != 0:
            end = begin + int(row_counts[r])
        for b in range(begin, end):
            c = int(columns[b])
            for j in range(block_cols):
                s = scalar(0.0)
                for i in range(block_rows):
                    s = s + values[b, i * block_cols + j] * x[r, i]
                wp.atomic_add(y, c * block_cols + j, alpha * s)

    name = T.type_name(scalar)
    return (wp.kernel(scale, key=f"bsr_mv_scale_{name}"), wp.kernel(scatter, key=f"bsr_mv_scatter_{name}"))


def _scalars(v: array) -> int:
    return v.size * T.type_length(v.dtype)


def _check_vector(what: str, v, A: BsrMatrix, expected: int) -> None:
    if not isinstance(v, array):
        raise TypeError(f"'{what}' must be a warp array, got {type(v).__name__}")
    if T.type_scalar_type(v.dtype) is not A.scalar_type:
        raise ValueError(f"Incompatible '{what}': its scalar type {T.type_name(T.type_scalar_type(v.dtype))} is not "
                         f"the matrix's {T.type_name(A.scalar_type)}")
    if _scalars(v) != expected:
        raise ValueError(f"Incompatible '{what}': the product needs {expected} scalars, '{what}' holds "
                         f"{_scalars(v)} (shape {v.shape}, {T.type_name(v.dtype)})")
    if v.device != A.device:
        raise ValueError(f"Incompatible '{what}': it is on {v.device}, the matrix on {A.device}")


def _vector_type(n: int, scalar):
    return scalar if n == 1 else wp.types.vector(length=n, dtype=scalar)


def bsr_mv(A: BsrMatrix, x: array, y: array | None = None, alpha=1.0, beta=0.0, transpose: bool = False,
           work_buffer: array | None = None, tile_size: int = 0) -> array:
    """y = alpha * A @ x + beta * y (A transposed when `transpose`); y is allocated (and beta taken
    as 0) when None. x and y may be the same array: x is then copied to work_buffer first."""
    if not isinstance(A, BsrMatrix):
        raise TypeError(f"A must be a BsrMatrix, got {type(A).__name__}")
    r, c = A.block_shape
    rows_in, cols_in = (A.nrow * r, A.ncol * c) if not transpose else (A.ncol * c, A.nrow * r)
    in_block, out_block = (c, r) if not transpose else (r, c)
    n_in, n_out = (A.ncol, A.nrow) if not transpose else (A.nrow, A.ncol)
    _check_vector("x", x, A, cols_in)
    if y is None:
        y = wp.zeros(n_out, dtype=_vector_type(out_block, A.scalar_type), device=A.device,
                     requires_grad=A.requires_grad or x.requires_grad)
        beta = 0.0
    else:
        _check_vector("y", y, A, rows_in)
        if not y.is_contiguous:
            raise ValueError("Incompatible 'y': it must be contiguous (it is written in place)")
    if x.ptr == y.ptr and x.size:
        if work_buffer is None or _scalars(work_buffer) < _scalars(x):
            work_buffer = wp.empty_like(x)
        wp.copy(work_buffer, x)
        x = work_buffer
    scalar = A.scalar_type
    if n_out == 0:
        return y
    capacity = A.values.shape[0]
    if capacity == 0:  # no blocks: kernels still need an array to read nothing from
        values = wp.zeros((1, A.block_size), dtype=scalar, device=A.device)
    elif (r, c) == (1, 1) and not transpose:
        values = scalar_view(A.values, (capacity,), scalar)
    else:
        values = flat2d(A.values, capacity, A.block_size, scalar)
    counts = A.row_counts if A.padded else A.offsets
    columns = A.columns if A.columns.shape[0] else A.offsets
    head = [unsigned(A.offsets), unsigned(counts), int(A.padded), unsigned(columns)]
    if transpose:
        scale, scatter = _transposed_kernels(scalar)
        y1 = vector_view(y, n_out * out_block, 0, scalar)
        wp.launch(scale, y1.shape[0], inputs=[y1, scalar(beta)], device=A.device)
        if A.nrow:
            wp.launch(scatter, A.nrow, inputs=head + [values, r, c, vector_view(x, n_in, in_block, scalar),
                                                      scalar(alpha), y1], device=A.device)
    elif (r, c) == (1, 1):
        wp.launch(_csr_kernel(scalar), A.nrow,
                  inputs=head + [values if values.ndim == 1 else values.flatten(), vector_view(x, n_in, 0, scalar),
                                 scalar(alpha), scalar(beta), vector_view(y, n_out, 0, scalar)], device=A.device)
    else:
        wp.launch(_bsr_kernel(scalar), A.nrow,
                  inputs=head + [values, r, c, vector_view(x, n_in, in_block, scalar), scalar(alpha), scalar(beta),
                                 vector_view(y, n_out, out_block, scalar)], device=A.device)
    return y
