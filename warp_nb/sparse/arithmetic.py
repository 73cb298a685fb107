"""Matrix arithmetic: scaling (`bsr_scale`, `alpha * A`), sums (`bsr_axpy`: y = alpha x + beta y)
and products (`bsr_mm`: z = alpha x @ y + beta z).

Sums and products build their result's triplets and assemble them (assemble.py), so the result's
topology follows the requested policy (compact, padded into z's capacity, or masked by z's
topology) and operands may alias the result: every input is read into new triplet arrays before
the result is written. A product's triplets are the pairs (x block (i, k), y block (k, j)): one
thread per block of x counts its pairs, a scan places them, and a value kernel multiplies."""

from __future__ import annotations

import warp_nb as wp

from .. import types as T
from ._common import block_type_for, flat2d, same_block_type, untaped
from .assemble import assemble, check_topology
from .matrix import BsrMatrix, bsr_zeros
from .structure import matrix_triplets
from .values import launch_transform, product_kernel


class bsr_axpy_work_arrays:
    """Temporary storage bsr_axpy may reuse between calls (accepted; each call allocates its own)."""

    def __init__(self):
        self.device = None


class bsr_mm_work_arrays:
    """Temporary storage bsr_mm may reuse between calls (accepted; each call allocates its own, and
    reuse_topology recomputes the same topology)."""

    def __init__(self):
        self.device = None


def scaled(A: BsrMatrix, alpha) -> BsrMatrix:
    """A new matrix alpha * A with A's storage layout (padded stays padded)."""
    B = bsr_zeros(A.nrow, A.ncol, A.dtype, device=A.device)
    B.offsets = wp.clone(A.offsets)
    B.row_counts = None if A.row_counts is None else wp.clone(A.row_counts)
    B.columns = wp.clone(A.columns)
    B.nnz = A.nnz
    capacity = A.values.shape[0]
    B.values = wp.empty(capacity, dtype=A.dtype, device=A.device, requires_grad=A.requires_grad)
    if capacity:
        launch_transform(flat2d(A.values, capacity, A.block_size, A.scalar_type),
                         flat2d(B.values, capacity, A.block_size, A.scalar_type), 0, A.block_shape, alpha)
    return B


def bsr_scale(x: BsrMatrix, alpha) -> BsrMatrix:
    """x = alpha * x, in place; returns x."""
    capacity = x.values.shape[0]
    if capacity:
        values = flat2d(x.values, capacity, x.block_size, x.scalar_type)
        launch_transform(values, values, 0, x.block_shape, alpha)
    return x


def _concat_triplets(parts, block_size: int, scalar, device):
    """Concatenate [(rows, cols, values2d, n, alpha)] into one set of triplet arrays."""
    n = sum(p[3] for p in parts)
    rows = wp.empty(n, dtype=int, device=device)
    cols = wp.empty(n, dtype=int, device=device)
    requires_grad = any(p[2] is not None and p[2].requires_grad for p in parts)
    values = wp.empty((n, block_size), dtype=scalar, device=device, requires_grad=requires_grad)
    at = 0
    for r, c, v, m, alpha in parts:
        if m:
            with untaped():
                wp.copy(rows, r, dest_offset=at, count=m)
                wp.copy(cols, c, dest_offset=at, count=m)
            launch_transform(v, values, at, (1, block_size), alpha)
        at += m
    return rows, cols, values, n


def bsr_axpy(x: BsrMatrix, y: BsrMatrix | None = None, alpha=1.0, beta=1.0, masked: bool = False,
             work_arrays=None, topology=None) -> BsrMatrix:
    """y = alpha * x + beta * y (y allocated as zero when None); returns y."""
    if y is None:
        y = bsr_zeros(x.nrow, x.ncol, x.dtype, device=x.device)
        beta = 0.0
    topology = check_topology(topology, masked)
    if (x.nrow, x.ncol) != (y.nrow, y.ncol):
        raise ValueError(f"Matrices must have the same number of rows and columns: x has {x.nrow}x{x.ncol} blocks, "
                         f"y has {y.nrow}x{y.ncol}")
    if not same_block_type(x.dtype, y.dtype):
        raise ValueError(f"Matrices must have the same block type: x has {T.type_name(x.dtype)}, "
                         f"y has {T.type_name(y.dtype)}")
    if x.device != y.device:
        raise ValueError(f"Matrices must be on the same device: x on {x.device}, y on {y.device}")
    if alpha == 0.0 and beta != 0.0 and y.nnz != 0:
        # Warp's rule: x does not take part, so y keeps its own topology (blocks of x's pattern are
        # not added as explicit zeros). With beta == 0, or a y whose nnz (the host-side bound) is
        # 0 as bsr_zeros makes it, the result is x's pattern, zeroed, as in Warp
        return bsr_scale(y, beta)
    parts = []
    if beta != 0.0:
        parts.append(matrix_triplets(y) + (beta,))
    parts.append(matrix_triplets(x) + (alpha,))
    rows, cols, values, n = _concat_triplets(parts, y.block_size, y.scalar_type, y.device)
    if x.requires_grad and topology == "compact":
        y.values.requires_grad = True
    assemble(y, rows, cols, values, n, topology=topology)
    return y


# --- products ----------------------------------------------------------------------------------
@wp.kernel(enable_backward=False)
def _count_pairs(x_rows: wp.array(dtype=int), x_cols: wp.array(dtype=int), y_offsets: wp.array(dtype=int),
                 y_row_counts: wp.array(dtype=int), y_padded: int, y_nrow: int, counts: wp.array(dtype=int)):
    b = wp.tid()
    n = 0
    k = x_cols[b]
    if x_rows[b] >= 0 and k >= 0 and k < y_nrow:
        n = y_offsets[k + 1] - y_offsets[k]
        if y_padded != 0:
            n = y_row_counts[k]
    counts[b] = n


@wp.kernel(enable_backward=False)
def _fill_pairs(x_rows: wp.array(dtype=int), x_cols: wp.array(dtype=int), y_offsets: wp.array(dtype=int),
                y_columns: wp.array(dtype=int), starts: wp.array(dtype=int), counts: wp.array(dtype=int),
                rows: wp.array(dtype=int), cols: wp.array(dtype=int), x_blocks: wp.array(dtype=int),
                y_blocks: wp.array(dtype=int)):
    b = wp.tid()
    start = starts[b]
    first = 0
    if counts[b] > 0:
        first = y_offsets[x_cols[b]]
    for m in range(counts[b]):
        t = start + m
        rows[t] = x_rows[b]
        cols[t] = y_columns[first + m]
        x_blocks[t] = b
        y_blocks[t] = first + m


@wp.kernel(enable_backward=False)
def _clamp_offsets(limit: int, offsets: wp.array(dtype=int)):
    r = wp.tid()
    offsets[r] = wp.min(offsets[r], limit)


def _product_triplets(x: BsrMatrix, y: BsrMatrix, alpha, out_offset: int, extra: int):
    """Triplets of alpha * x @ y, in arrays with `extra` more slots after out_offset + count."""
    device = x.device
    x_rows, x_cols, _, nx = matrix_triplets(x, with_values=False)
    counts = wp.zeros(nx + 1, dtype=int, device=device)
    starts = wp.empty(nx + 1, dtype=int, device=device)
    with untaped():
        if nx:
            y_counts = y.row_counts if y.padded else y.offsets
            wp.launch(_count_pairs, nx, inputs=[x_rows, x_cols, y.offsets, y_counts, int(y.padded), y.nrow, counts],
                      device=device)
        wp.utils.array_scan(counts, starts, inclusive=False)
    n = int(starts.numpy()[nx])  # the product's triplet count sizes its arrays: read it once
    total = out_offset + n + extra
    rows = wp.empty(total, dtype=int, device=device)
    cols = wp.empty(total, dtype=int, device=device)
    r, inner = x.block_shape
    c = y.block_shape[1]
    values = wp.empty((total, r * c), dtype=x.scalar_type, device=device,
                      requires_grad=x.requires_grad or y.requires_grad)
    if n:
        x_blocks = wp.empty(n, dtype=int, device=device)
        y_blocks = wp.empty(n, dtype=int, device=device)
        with untaped():
            wp.launch(_fill_pairs, nx, inputs=[x_rows, x_cols, y.offsets, y.columns, starts, counts,
                                               rows[out_offset:], cols[out_offset:], x_blocks, y_blocks], device=device)
        xv = flat2d(x.values, x.values.shape[0], x.block_size, x.scalar_type)
        yv = flat2d(y.values, y.values.shape[0], y.block_size, y.scalar_type)
        wp.launch(product_kernel(x.scalar_type), (n, r * c),
                  inputs=[xv, yv, x_blocks, y_blocks, r, inner, c, x.scalar_type(alpha), values, out_offset],
                  device=device)
    return rows, cols, values, n


def bsr_mm(x: BsrMatrix, y: BsrMatrix, z: BsrMatrix | None = None, alpha=1.0, beta=0.0, masked: bool = False,
           work_arrays=None, reuse_topology: bool = False, tile_size: int = 0, max_new_nnz: int | None = None,
           topology=None) -> BsrMatrix:
    """z = alpha * x @ y + beta * z (z allocated as zero when None); returns z. With max_new_nnz the
    result keeps at most that many blocks (a warning says when more were needed)."""
    topology = check_topology(topology, masked)
    if x.block_shape[1] != y.block_shape[0]:
        raise ValueError(f"Incompatible block sizes for x @ y: {x.block_shape} and {y.block_shape}")
    if x.ncol != y.nrow:
        raise ValueError(f"Incompatible number of rows/columns: x has {x.ncol} columns of blocks, y has {y.nrow} rows")
    if x.scalar_type is not y.scalar_type:
        raise ValueError(f"x and y must have the same scalar type ({T.type_name(x.scalar_type)} vs "
                         f"{T.type_name(y.scalar_type)})")
    out_shape = (x.block_shape[0], y.block_shape[1])
    if z is None:
        z = bsr_zeros(x.nrow, y.ncol, block_type_for(out_shape, x.scalar_type), device=x.device)
        beta = 0.0
    if (z.nrow, z.ncol) != (x.nrow, y.ncol):
        raise ValueError(f"Incompatible number of rows/columns: z has {z.nrow}x{z.ncol} blocks, x @ y has "
                         f"{x.nrow}x{y.ncol}")
    if tuple(z.block_shape) != out_shape:
        raise ValueError(f"Incompatible block sizes: z has {z.block_shape} blocks, x @ y has {out_shape}")
    if z.scalar_type is not x.scalar_type:
        raise ValueError("z must have the scalar type of x and y")
    if alpha == 0.0 or x.nnz == 0 or y.nnz == 0:
        # Warp's rule: no product is formed when alpha is 0 or an operand's nnz (the host-side
        # bound, 0 for a matrix from bsr_zeros) is 0: z := beta * z keeps z's topology, whatever
        # the topology policy (zeroed when beta == 0)
        return bsr_scale(z, beta)
    z_part = matrix_triplets(z) if beta != 0.0 else None
    extra = z_part[3] if z_part else 0
    rows, cols, values, n = _product_triplets(x, y, alpha, 0, extra)
    if n == 0 and topology == "compact":
        # an empty product (no pair of x and y blocks meets) leaves z's compact topology as Warp
        # does, even with beta == 0: z := beta * z (a padded z has its rows emptied, as in Warp)
        return bsr_scale(z, beta)
    if z_part:
        zr, zc, zv, nz = z_part
        if nz:
            with untaped():
                wp.copy(rows, zr, dest_offset=n, count=nz)
                wp.copy(cols, zc, dest_offset=n, count=nz)
            launch_transform(zv, values, n, (1, z.block_size), beta)
    if (x.requires_grad or y.requires_grad) and topology == "compact":
        z.values.requires_grad = True
    assemble(z, rows, cols, values, n + extra, topology=topology)
    if max_new_nnz is not None and topology == "compact":
        nnz = int(z.offsets.numpy()[z.nrow])  # (not nnz_sync: a pending copy_nnz_async transfer stays pending)
        if nnz > max_new_nnz:
            print(f"Warning: bsr_mm: the product has {nnz} blocks, which exceeded max_new_nnz={max_new_nnz}; "
                  "the result was truncated")
            wp.launch(_clamp_offsets, z.nrow + 1, inputs=[int(max_new_nnz), z.offsets], device=z.device,
                      record_tape=False)
            z.nnz = int(max_new_nnz)
            z._restart_nnz_transfer()
    return z
