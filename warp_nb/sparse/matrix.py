"""`BsrMatrix`, Warp's block sparse row matrix, and its allocation: `bsr_zeros`, `bsr_set_zero`,
`bsr_matrix_t`, the status codes of padded storage.

Storage, as Warp lays it out: row r's blocks live in slots offsets[r] .. offsets[r + 1] of
`columns` and `values`. A *compact* matrix uses every slot of a row (row_counts is None); a
*padded* one reserves a capacity per row and row_counts[r] says how many of the row's slots are
active. `nnz` is a host-side upper bound on the slots in use (what launches are sized by): an
operation that builds a topology on the device leaves it at the bound instead of reading the
count back, and `nnz_sync()` reads the exact count (offsets[nrow]).

This module knows the layout; building topologies, arithmetic and products live beside it. The
operators (`A + B`, `2.0 * A`, `A @ x`) evaluate at once and return new matrices or arrays."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from .. import types as T
from ..arrays.array import array
from ._common import block_shape_of, capturing, check_scalar, live, scalar_of, untaped

#: status of a padded matrix after an operation: every row fit in its capacity
BSR_STATUS_SUCCESS = 0
#: status of a padded matrix after an operation: some row had more blocks than its capacity (such a
#: row is left empty)
BSR_STATUS_ROW_CAPACITY_EXCEEDED = 1


@wp.kernel(enable_backward=False)
def _uncompress_rows(offsets: wp.array(dtype=int), row_counts: wp.array(dtype=int), padded: int,
                     rows: wp.array(dtype=int)):
    r = wp.tid()
    begin = offsets[r]
    end = offsets[r + 1]
    active = end
    if padded != 0:
        active = begin + row_counts[r]
    for b in range(begin, wp.min(end, rows.shape[0])):
        if b < active:
            rows[b] = r
        else:
            rows[b] = -1


@wp.kernel(enable_backward=False)
def _uniform_offsets(capacity: int, offsets: wp.array(dtype=int)):
    r = wp.tid()
    offsets[r] = r * capacity


class BsrMatrix:
    """A block sparse row matrix (CSR when blocks are scalars). Build one with `bsr_zeros`,
    `bsr_from_triplets`, `bsr_diag` and the like rather than directly."""

    dtype = None  # the block type of matrices made by bsr_matrix_t

    def __init__(self, nrow: int = 0, ncol: int = 0, block_type=None, device=None):
        block_type = self.dtype if block_type is None else block_type
        self.nrow = int(nrow)
        self.ncol = int(ncol)
        self.nnz = 0
        self.dtype = block_type
        device = wp.get_device(device)
        self.offsets = wp.zeros(self.nrow + 1, dtype=int, device=device)
        self.row_counts = None
        self.columns = wp.empty(0, dtype=int, device=device)
        self.values = wp.empty(0, dtype=block_type, device=device)
        self._status = None

    def __class_getitem__(cls, block_type):
        return cls  # BsrMatrix[float] in annotations, as Warp's generic class allows

    # --- what the matrix is -----------------------------------------------------------------
    @property
    def scalar_type(self):
        return scalar_of(self.dtype)

    @property
    def block_shape(self) -> tuple:
        return block_shape_of(self.dtype)

    @property
    def block_size(self) -> int:
        r, c = self.block_shape
        return r * c

    @property
    def shape(self) -> tuple:
        r, c = self.block_shape
        return (self.nrow * r, self.ncol * c)

    @property
    def device(self):
        return self.values.device

    @property
    def requires_grad(self) -> bool:
        return self.values.requires_grad

    @property
    def scalar_values(self) -> array:
        """The values as a (nnz_capacity, rows, cols) array of scalars, sharing memory."""
        r, c = self.block_shape
        v = self.values
        return array(ptr=v.ptr, dtype=self.scalar_type, shape=(v.shape[0], r, c), device=v.device, owner=v)

    @property
    def padded(self) -> bool:
        return self.row_counts is not None

    # --- the block count ----------------------------------------------------------------------
    def nnz_sync(self) -> int:
        """The exact number of stored block slots (offsets[nrow]), read from the device; also
        tightens `nnz` to it. A transfer started by copy_nnz_async (and restarted by every topology
        change since) is used instead of a new copy."""
        if capturing() is not None:
            if getattr(self, "_captured_topology", None) is capturing():
                raise NotImplementedError("BsrMatrix.nnz_sync(): this capture recorded a topology update of the "
                                          "matrix, which runs only when the graph is launched; read nnz after "
                                          "capture_launch")
            with live():  # the count as it is now, not a copy deferred to the replay
                return self.nnz_sync()
        transfer = getattr(self, "_nnz_transfer", None)
        if transfer is None:
            transfer = wp.empty(1, dtype=int, device="cpu")
        if not getattr(self, "_nnz_transfer_pending", False):
            wp.copy(transfer, self.offsets, src_offset=self.nrow, count=1)
        self._nnz_transfer_pending = False
        self.nnz = int(transfer.numpy()[0])
        return self.nnz

    def copy_nnz_async(self) -> None:
        """Deprecated in Warp (nnz_sync() reads the count itself): start copying the block count to
        the host, so that the next nnz_sync() need not."""
        from ..runtime import compat_hooks
        from ..utils import warn
        log = compat_hooks.resolve("sparse", "log_warning", warn)
        log("BsrMatrix.copy_nnz_async() is deprecated; call nnz_sync() when the count is needed",
            category=DeprecationWarning)
        if getattr(self, "_nnz_transfer", None) is None:
            self._nnz_transfer = wp.empty(1, dtype=int, device="cpu")
        self._nnz_transfer_pending = True
        self._restart_nnz_transfer()

    def _restart_nnz_transfer(self) -> None:
        """After a topology change: refresh a transfer copy_nnz_async started and nnz_sync has not
        consumed yet (no resources are made unless copy_nnz_async asked for them)."""
        if getattr(self, "_nnz_transfer_pending", False):
            wp.copy(self._nnz_transfer, self.offsets, src_offset=self.nrow, count=1)

    def notify_nnz_changed(self, nnz: int | None = None) -> None:
        """Say that offsets changed outside warp.sparse: nnz becomes `nnz` (an upper bound) or, when
        None, the count read from offsets; columns and values grow to hold it."""
        if nnz is None:
            self.nnz_sync()
        else:
            self.nnz = int(nnz)
            self._restart_nnz_transfer()
        self._grow(self.nnz)

    def _grow(self, capacity: int) -> None:
        """Make columns and values hold at least `capacity` blocks, keeping their contents."""
        if self.columns.shape[0] < capacity:
            columns = wp.empty(capacity, dtype=int, device=self.device)
            if self.columns.shape[0]:
                wp.copy(columns, self.columns, count=self.columns.shape[0])
            self.columns = columns
        if self.values.shape[0] < capacity:
            values = wp.zeros(capacity, dtype=self.values.dtype, device=self.device,
                              requires_grad=self.values.requires_grad)
            if self.values.shape[0]:
                wp.copy(values, self.values, count=self.values.shape[0])
            self.values = values

    def uncompress_rows(self, out: array | None = None) -> array:
        """The row of every block slot [0, nnz): -1 for a slot that holds no active block."""
        n = self.nnz
        if out is None:
            out = wp.empty(n, dtype=int, device=self.device)
        with untaped():
            out.fill_(-1)
            if self.nrow > 0 and n > 0:
                counts = self.row_counts if self.padded else self.offsets
                wp.launch(_uncompress_rows, self.nrow, inputs=[self.offsets, counts, int(self.padded), out],
                          device=self.device)
        return out

    # --- padded-storage status ----------------------------------------------------------------
    def _ensure_status(self) -> array:
        if self._status is None:
            self._status = wp.zeros(1, dtype=int, device=self.device)
        return self._status

    def status_sync(self) -> int:
        """The status of the last padded operations (BSR_STATUS_*), read from the device."""
        graph = capturing()
        if graph is not None:
            kind = "CPU APIC graph capture" if getattr(graph, "apic", False) else "graph capture"
            raise NotImplementedError(f"BsrMatrix.status_sync(): cannot read sparse status during a live {kind}: "
                                      "the recorded operations set it only when the graph is launched")
        return int(self._ensure_status().numpy()[0])

    def clear_status(self) -> None:
        self._ensure_status().zero_()

    def status_message(self) -> str:
        return {BSR_STATUS_SUCCESS: "success",
                BSR_STATUS_ROW_CAPACITY_EXCEEDED: "row capacity exceeded"}.get(self.status_sync(), "unknown")

    # --- operators: evaluated at once ---------------------------------------------------------
    def eval(self) -> BsrMatrix:
        return self

    def transpose(self) -> BsrMatrix:
        from .structure import bsr_transposed
        return bsr_transposed(self)

    @property
    def T(self) -> BsrMatrix:
        return self.transpose()

    def __mul__(self, alpha):
        from .arithmetic import scaled
        if isinstance(alpha, (BsrMatrix, array)):
            return NotImplemented
        return scaled(self, alpha)

    __rmul__ = __mul__

    def __truediv__(self, alpha):
        return self * (1.0 / alpha)

    def __neg__(self):
        return self * -1.0

    def __pos__(self):
        return self

    def __add__(self, other):
        from .arithmetic import bsr_axpy
        from .structure import bsr_copy
        if not isinstance(other, BsrMatrix):
            return NotImplemented
        return bsr_axpy(other, bsr_copy(self), 1.0, 1.0)

    def __sub__(self, other):
        from .arithmetic import bsr_axpy
        from .structure import bsr_copy
        if not isinstance(other, BsrMatrix):
            return NotImplemented
        return bsr_axpy(other, bsr_copy(self), -1.0, 1.0)

    def __iadd__(self, other):
        from .arithmetic import bsr_axpy
        return bsr_axpy(other, self, 1.0, 1.0)

    def __isub__(self, other):
        from .arithmetic import bsr_axpy
        return bsr_axpy(other, self, -1.0, 1.0)

    def __imul__(self, alpha):
        from .arithmetic import bsr_scale
        return bsr_scale(self, alpha)

    def __matmul__(self, other):
        from .arithmetic import bsr_mm
        from .mv import bsr_mv
        if isinstance(other, BsrMatrix):
            return bsr_mm(self, other)
        if isinstance(other, array):
            return bsr_mv(self, other)
        return NotImplemented

    def __rmatmul__(self, other):
        from .mv import bsr_mv
        if isinstance(other, array):
            return bsr_mv(self, other, transpose=True)
        return NotImplemented

    def __repr__(self):
        return (f"BsrMatrix(shape={self.shape}, block_shape={self.block_shape}, "
                f"scalar_type={T.type_name(self.scalar_type)}, nnz<={self.nnz}, device={self.device})")


def bsr_matrix_t(dtype):
    """The BsrMatrix class of matrices whose blocks are `dtype` (a scalar or a matrix type)."""
    block_shape_of(dtype)
    return type(f"BsrMatrix_{T.type_name(dtype)}", (BsrMatrix,), {"dtype": dtype})


def _check_dims(rows_of_blocks, cols_of_blocks) -> None:
    for what, n in (("rows_of_blocks", rows_of_blocks), ("cols_of_blocks", cols_of_blocks)):
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError(f"{what} must be a non-negative integer, got {n!r}")


def _set_padded_capacity(bsr: BsrMatrix, row_capacity, nnz_capacity) -> None:
    """Reserve row_capacity slots per row (an int, or an int array of one capacity per row)."""
    device = bsr.device
    offsets = bsr.offsets if bsr.offsets.shape[0] >= bsr.nrow + 1 else wp.empty(bsr.nrow + 1, dtype=int,
                                                                                  device=device)
    if isinstance(row_capacity, array):
        if row_capacity.shape[0] < bsr.nrow:
            raise ValueError(f"row_capacity must hold one capacity per row ({bsr.nrow}), got {row_capacity.shape[0]}")
        counts = wp.zeros(bsr.nrow + 1, dtype=int, device=device)
        if bsr.nrow:
            wp.copy(counts, row_capacity, count=bsr.nrow)
        wp.utils.array_scan(counts, offsets[: bsr.nrow + 1], inclusive=False)
        total = int(offsets.numpy()[bsr.nrow]) if nnz_capacity is None else int(nnz_capacity)
    else:
        capacity = int(row_capacity)
        if capacity < 0:
            raise ValueError(f"row_capacity must be non-negative, got {capacity}")
        wp.launch(_uniform_offsets, bsr.nrow + 1, inputs=[capacity, offsets], device=device, record_tape=False)
        total = bsr.nrow * capacity
        if nnz_capacity is not None:
            total = max(total, int(nnz_capacity))
    bsr.offsets = offsets
    bsr.row_counts = wp.zeros(bsr.nrow, dtype=int, device=device)
    bsr.nnz = total
    bsr._grow(total)
    bsr.clear_status()


def bsr_zeros(rows_of_blocks: int, cols_of_blocks: int, block_type, device=None, *, topology=None,
              row_capacity=None, nnz_capacity=None) -> BsrMatrix:
    """An empty (all-zero) matrix of rows_of_blocks x cols_of_blocks blocks of `block_type` (a
    scalar type for CSR, a matrix type for BSR). With row_capacity (an int or a per-row int
    array) the storage is padded: that many slots reserved per row."""
    _check_dims(rows_of_blocks, cols_of_blocks)
    block_shape_of(block_type)
    check_scalar(scalar_of(block_type))
    bsr = bsr_matrix_t(block_type)(rows_of_blocks, cols_of_blocks, block_type, device)
    if topology is None:
        topology = "padded" if row_capacity is not None else "compact"
    if topology not in ("compact", "padded"):
        raise ValueError(f"topology must be 'compact' or 'padded' for bsr_zeros, got {topology!r}")
    if topology == "padded":
        _set_padded_capacity(bsr, 0 if row_capacity is None else row_capacity, nnz_capacity)
    elif nnz_capacity is not None:
        bsr._grow(int(nnz_capacity))
    return bsr


def bsr_set_zero(bsr: BsrMatrix, rows_of_blocks: int | None = None, cols_of_blocks: int | None = None, *,
                 topology=None, row_capacity=None) -> None:
    """Make `bsr` the zero matrix (optionally of a new shape). Compact: no blocks. Padded: every
    row keeps (or gets, from row_capacity) its reserved slots, none active."""
    if rows_of_blocks is not None:
        bsr.nrow = int(rows_of_blocks)
    if cols_of_blocks is not None:
        bsr.ncol = int(cols_of_blocks)
    if topology is None:
        topology = "padded" if (row_capacity is not None or bsr.padded) else "compact"
    if topology == "padded":
        if row_capacity is None:
            if bsr.padded and bsr.offsets.shape[0] >= bsr.nrow + 1:
                bsr.row_counts = wp.zeros(bsr.nrow, dtype=int, device=bsr.device)
                bsr.clear_status()
                return
            row_capacity = 0
        _set_padded_capacity(bsr, row_capacity, None)
        return
    if topology != "compact":
        raise ValueError(f"topology must be 'compact' or 'padded' for bsr_set_zero, got {topology!r}")
    if bsr.offsets.shape[0] < bsr.nrow + 1:
        bsr.offsets = wp.zeros(bsr.nrow + 1, dtype=int, device=bsr.device)
    else:
        bsr.offsets.zero_()
    bsr.row_counts = None
    bsr.nnz = 0
