"""Structural operations: copies and assignment (with a new scalar type or block shape),
transposes, diagonals and identities.

Copies, assignments and transposes turn the source's blocks into triplets (its active slots;
inactive ones carry row -1 and are dropped) and assemble them into the destination under the
requested topology, so padded and masked destinations behave as everywhere else."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from .. import types as T
from ..arrays.array import array
from ._common import block_shape_of, block_type_for, flat2d, kernel_cache, same_block_type, scalar_of
from .assemble import assemble, check_topology
from .matrix import BsrMatrix, bsr_zeros
from .topology import find_block
from .values import launch_transform, reblock_kernel


def matrix_triplets(A: BsrMatrix, scalar=None, alpha=1.0, transpose: bool = False, with_values: bool = True):
    """A's slots as triplets (rows, columns, values as (nnz, block_size) of `scalar`, nnz); rows
    are -1 for inactive slots. Values are A's own memory when nothing changes, else a new array."""
    n = A.nnz
    A._grow(n)
    rows = A.uncompress_rows()
    cols = A.columns[:n]
    if transpose:
        rows, cols = cols, rows  # an inactive slot's row -1 becomes its column: still dropped
    if not with_values or n == 0:
        return rows, cols, None, n
    scalar = A.scalar_type if scalar is None else scalar
    src = flat2d(A.values, n, A.block_size, A.scalar_type)
    if scalar is A.scalar_type and alpha == 1.0 and not transpose:
        return rows, cols, src, n
    r, c = A.block_shape
    out = wp.empty((n, A.block_size), dtype=scalar, device=A.device, requires_grad=src.requires_grad)
    launch_transform(src, out, 0, (c, r) if transpose else (r, c), alpha, transpose)
    return rows, cols, out, n


# --- copies and assignment ---------------------------------------------------------------------
def _reblock_triplets(src: BsrMatrix, dest_shape: tuple, scalar, with_values: bool):
    sr, sc = src.block_shape
    dr, dc = dest_shape
    parts_r, parts_c = max(1, sr // dr), max(1, sc // dc)
    parts = parts_r * parts_c
    rows, cols, _, n = matrix_triplets(src, with_values=False)
    m = n * parts
    out_rows = wp.empty(m, dtype=int, device=src.device)
    out_cols = wp.empty(m, dtype=int, device=src.device)
    values = wp.empty((m, dr * dc), dtype=scalar, device=src.device, requires_grad=src.requires_grad)
    if m:
        values2d = flat2d(src.values, n, src.block_size, src.scalar_type)
        wp.launch(reblock_kernel(src.scalar_type, scalar), (m, dr * dc),
                  inputs=[values2d, rows, cols, sr, sc, dr, dc, parts_c, parts, out_rows, out_cols, values],
                  device=src.device)
    return out_rows, out_cols, values if with_values else None, m


def _check_reblock(src_shape: tuple, dest_shape: tuple, total: tuple) -> None:
    for s, d in zip(src_shape, dest_shape):
        if s % d and d % s:
            raise ValueError(f"Incompatible dest and src block shapes: {tuple(dest_shape)} and {tuple(src_shape)} "
                             "(each dimension of one must divide the other's)")
    if total[0] % dest_shape[0] or total[1] % dest_shape[1]:
        raise ValueError(f"The requested block shape {tuple(dest_shape)} does not evenly divide the source matrix of "
                         f"total size {tuple(total)}")


def bsr_assign(dest: BsrMatrix, src: BsrMatrix, structure_only: bool = False, masked: bool = False,
               topology=None) -> None:
    """Copy src into dest, converting to dest's scalar type and block shape (block shapes must
    divide one another); dest's shape in blocks follows. masked / topology="masked" keeps dest's
    topology, "padded" writes into dest's row capacity."""
    if not isinstance(dest, BsrMatrix) or not isinstance(src, BsrMatrix):
        raise TypeError("bsr_assign: dest and src must be BsrMatrix")
    topology = check_topology(topology, masked)
    dest_shape = dest.block_shape
    _check_reblock(src.block_shape, dest_shape, src.shape)
    nrow, ncol = src.shape[0] // dest_shape[0], src.shape[1] // dest_shape[1]
    if topology == "compact":
        dest.nrow, dest.ncol = nrow, ncol
    elif (dest.nrow, dest.ncol) != (nrow, ncol):
        raise ValueError(f"dest has {dest.nrow}x{dest.ncol} blocks but src needs {nrow}x{ncol} for a "
                         f"{topology} assignment")
    if src.requires_grad and topology == "compact":
        dest.values.requires_grad = True
    if tuple(dest_shape) == tuple(src.block_shape):
        rows, cols, values, n = matrix_triplets(src, dest.scalar_type, with_values=not structure_only)
    else:
        rows, cols, values, n = _reblock_triplets(src, dest_shape, dest.scalar_type, not structure_only)
    assemble(dest, rows, cols, values, n, topology=topology)


def _row_capacities(A: BsrMatrix) -> array:
    offsets = A.offsets.numpy()[: A.nrow + 1]
    return wp.array(np.diff(offsets).astype(np.int32), dtype=int, device=A.device)


def bsr_copy(A: BsrMatrix, scalar_type=None, block_shape=None, structure_only: bool = False,
             topology=None) -> BsrMatrix:
    """A new matrix equal to A, optionally with another scalar type or block shape. topology="padded"
    gives the copy the row capacities of A's storage (or of its compact copy when reblocked)."""
    if not isinstance(A, BsrMatrix):
        raise TypeError(f"bsr_copy expects a BsrMatrix, got {type(A).__name__}")
    topology = check_topology(topology)
    scalar = A.scalar_type if scalar_type is None else scalar_type
    shape = A.block_shape if block_shape is None else tuple(block_shape)
    if scalar is A.scalar_type and shape == A.block_shape:
        block_type = A.dtype
    else:
        block_type = block_type_for(shape, scalar)
    _check_reblock(A.block_shape, shape, A.shape)
    nrow, ncol = A.shape[0] // shape[0], A.shape[1] // shape[1]
    if topology == "padded":
        source = A if shape == A.block_shape else bsr_copy(A, block_shape=shape)
        dest = bsr_zeros(nrow, ncol, block_type, device=A.device, row_capacity=_row_capacities(source))
    elif topology == "compact":
        dest = bsr_zeros(nrow, ncol, block_type, device=A.device)
    else:
        raise ValueError("bsr_copy supports topology='compact' or 'padded'")
    dest.values.requires_grad = A.requires_grad
    bsr_assign(dest, A, structure_only=structure_only, topology=topology)
    return dest


# --- transposes --------------------------------------------------------------------------------
def bsr_set_transpose(dest: BsrMatrix, src: BsrMatrix, masked: bool = False, topology=None) -> None:
    """dest = transpose of src (dest's blocks are src's transposed: block shape reversed)."""
    topology = check_topology(topology, masked)
    r, c = src.block_shape
    if tuple(dest.block_shape) != (c, r):
        raise ValueError(f"Destination block shape must be {(c, r)} (the source's {(r, c)} transposed), "
                         f"got {tuple(dest.block_shape)}")
    if dest.scalar_type is not src.scalar_type:
        raise ValueError(f"Destination and source scalar types must match ({T.type_name(dest.scalar_type)} vs "
                         f"{T.type_name(src.scalar_type)})")
    nrow, ncol = src.ncol, src.nrow
    if topology == "compact":
        dest.nrow, dest.ncol = nrow, ncol
    elif (dest.nrow, dest.ncol) != (nrow, ncol):
        raise ValueError(f"dest has {dest.nrow}x{dest.ncol} blocks; the transpose has {nrow}x{ncol}")
    rows, cols, values, n = matrix_triplets(src, transpose=True)
    assemble(dest, rows, cols, values, n, topology=topology)


def bsr_transposed(A: BsrMatrix) -> BsrMatrix:
    """A new matrix, the transpose of A."""
    r, c = A.block_shape
    dest = bsr_zeros(A.ncol, A.nrow, block_type_for((c, r), A.scalar_type), device=A.device)
    dest.values.requires_grad = A.requires_grad
    bsr_set_transpose(dest, A)
    return dest


# --- diagonals ---------------------------------------------------------------------------------
@kernel_cache
def _get_diag_kernel(scalar):
    def get_diag(offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int), padded: int,
                 columns: wp.array(dtype=int), values: wp.array2d(dtype=scalar), out: wp.array2d(dtype=scalar)):
        r, k = wp.tid()
        lo = offsets[r]
        hi = offsets[r + 1]
        if padded != 0:
            hi = lo + row_counts[r]
        b = find_block(columns, lo, hi, r)
        if b >= 0:
            out[r, k] = values[b, k]
        else:
            out[r, k] = scalar(0.0)

    return wp.kernel(get_diag, key=f"bsr_get_diag_{T.type_name(scalar)}")


@wp.kernel(enable_backward=False)
def _diag_topology(ndiag: int, offsets: wp.array(dtype=int), columns: wp.array(dtype=int)):
    r = wp.tid()
    offsets[r] = wp.min(r, ndiag)
    if r < ndiag:
        columns[r] = r


def bsr_get_diag(A: BsrMatrix, out: array | None = None) -> array:
    """The diagonal blocks of A (zero where A has none), one per row up to min(nrow, ncol)."""
    n = min(A.nrow, A.ncol)
    if out is None:
        out = wp.empty(n, dtype=A.values.dtype, device=A.device, requires_grad=A.requires_grad)
    elif out.shape[0] < n:
        raise ValueError(f"out must hold {n} blocks, got {out.shape[0]}")
    if n == 0:
        return out
    values = flat2d(A.values, max(A.values.shape[0], 1), A.block_size, A.scalar_type) if A.values.shape[0] else \
        wp.zeros((1, A.block_size), dtype=A.scalar_type, device=A.device)
    counts = A.row_counts if A.padded else A.offsets
    wp.launch(_get_diag_kernel(A.scalar_type), (n, A.block_size),
              inputs=[A.offsets, counts, int(A.padded), A.columns if A.columns.shape[0] else A.offsets, values,
                      flat2d(out, n, A.block_size, A.scalar_type)], device=A.device)
    return out


def _set_diag_topology(A: BsrMatrix, nrow: int, ncol: int) -> int:
    A.nrow, A.ncol = nrow, ncol
    n = min(nrow, ncol)
    A.offsets = wp.empty(nrow + 1, dtype=int, device=A.device)
    A.columns = wp.empty(n, dtype=int, device=A.device)
    wp.launch(_diag_topology, nrow + 1, inputs=[n, A.offsets, A.columns], device=A.device, record_tape=False)
    A.row_counts = None
    A.nnz = n
    return n


def bsr_set_diag(A: BsrMatrix, diag, rows_of_blocks: int | None = None, cols_of_blocks: int | None = None) -> None:
    """Make A block diagonal: `diag` is an array of blocks (one per diagonal block) or one block
    value repeated (then rows_of_blocks, or A's own row count, says how many)."""
    if isinstance(diag, array):
        if not (same_block_type(diag.dtype, A.dtype) or diag.dtype is A.scalar_type and A.block_shape == (1, 1)):
            raise ValueError(f"diag: blocks of type {T.type_name(diag.dtype)} do not match the matrix's "
                             f"{T.type_name(A.dtype)}")
        nrow = diag.shape[0] if rows_of_blocks is None else int(rows_of_blocks)
    else:
        nrow = A.nrow if rows_of_blocks is None else int(rows_of_blocks)
    ncol = nrow if cols_of_blocks is None else int(cols_of_blocks)
    n = _set_diag_topology(A, nrow, ncol)
    if isinstance(diag, array):
        values = wp.empty(n, dtype=A.dtype, device=A.device, requires_grad=diag.requires_grad)
        if n:
            launch_transform(flat2d(diag, n, A.block_size, A.scalar_type),
                             flat2d(values, n, A.block_size, A.scalar_type), 0, A.block_shape, 1.0)
        A.values = values
    else:
        A.values = wp.full(n, value=diag, dtype=A.dtype, device=A.device)


def bsr_diag(diag=None, rows_of_blocks: int | None = None, cols_of_blocks: int | None = None, block_type=None,
             device=None) -> BsrMatrix:
    """A new block-diagonal matrix: from an array of blocks, one repeated block value, or (diag None)
    zero blocks of block_type, giving the diagonal topology to fill later."""
    if isinstance(diag, array):
        block_type, device = diag.dtype, diag.device
    elif diag is not None:
        if block_type is None:
            block_type = type(diag) if not isinstance(diag, (int, float)) else T.float32
        block_shape_of(block_type)
    elif block_type is None:
        raise ValueError("bsr_diag needs diag or block_type")
    if rows_of_blocks is None:
        if not isinstance(diag, array):
            raise ValueError("bsr_diag needs rows_of_blocks when diag is not an array")
        rows_of_blocks = diag.shape[0]
    A = bsr_zeros(int(rows_of_blocks), int(rows_of_blocks if cols_of_blocks is None else cols_of_blocks),
                  block_type, device=device)
    if diag is None:
        n = _set_diag_topology(A, A.nrow, A.ncol)
        A.values = wp.zeros(n, dtype=A.dtype, device=A.device)
    else:
        bsr_set_diag(A, diag, A.nrow, A.ncol)
    return A


def bsr_set_identity(A: BsrMatrix, rows_of_blocks: int | None = None) -> None:
    """Make A the identity (square blocks), of rows_of_blocks rows if given."""
    r, c = A.block_shape
    if r != c:
        raise ValueError(f"An identity matrix needs square blocks, got {(r, c)}")
    nrow = A.nrow if rows_of_blocks is None else int(rows_of_blocks)
    n = _set_diag_topology(A, nrow, nrow)
    eye = np.broadcast_to(np.eye(r, dtype=wp.types.dtype_to_numpy(scalar_of(A.dtype))), (n, r, r))
    A.values = wp.array(np.ascontiguousarray(eye.reshape(n) if r == 1 else eye), dtype=A.dtype, device=A.device)


def bsr_identity(rows_of_blocks: int, block_type, device=None) -> BsrMatrix:
    """A new identity matrix of rows_of_blocks x rows_of_blocks square blocks."""
    A = bsr_zeros(rows_of_blocks, rows_of_blocks, block_type, device=device)
    bsr_set_identity(A)
    return A
