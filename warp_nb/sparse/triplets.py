"""Matrices from coordinate (COO) triplets, as Warp builds them: `bsr_from_triplets`,
`bsr_set_from_triplets` (duplicates summed, triplets outside the shape dropped, zero blocks
pruned on request), the reusable triplet -> block map (`BsrTripletMap`,
`bsr_set_from_mapped_values`) and `bsr_compress` (sort and merge the blocks of each row).

The arguments are checked here, with messages that name them; the work is topology.py's and
assemble.py's."""

from __future__ import annotations

import warp_nb as wp

from .. import types as T
from ..arrays.array import array
from ._common import block_shape_of, block_type_for, flat2d, same_block_type
from .assemble import assemble, check_topology, gather
from .matrix import BsrMatrix, bsr_zeros
from .topology import Compacted


def _check_index_arrays(rows, columns, device) -> int:
    for what, a in (("rows", rows), ("columns", columns)):
        if not isinstance(a, array):
            raise TypeError(f"{what} must be a warp array of int32, got {type(a).__name__}")
    if rows.dtype is not T.int32 or columns.dtype is not T.int32:
        raise TypeError("Rows and columns arrays must be of type int32")
    if rows.ndim != 1 or columns.ndim != 1:
        raise ValueError(f"rows and columns must be one-dimensional, got shapes {rows.shape} and {columns.shape}")
    if rows.shape[0] != columns.shape[0]:
        raise ValueError(f"rows and columns must have the same length (one entry per triplet), got "
                         f"{rows.shape[0]} rows and {columns.shape[0]} columns")
    for what, a in (("rows", rows), ("columns", columns)):
        if a.device != device:
            raise ValueError(f"{what} is on {a.device} but the matrix is on {device}: pass arrays on the same device")
    return rows.shape[0]


def triplet_values_2d(values: array, dest: BsrMatrix, n: int, what: str = "values") -> array | None:
    """values as a (n, block_size) scalar view: a 1-d array of dest's block type, or a (n, rows,
    cols) array of its scalar type (a 1-d scalar array for 1x1 blocks)."""
    if not isinstance(values, array):
        raise TypeError(f"{what} must be a warp array, got {type(values).__name__}")
    if values.shape[0] != n:
        raise ValueError(f"{what} must hold one block per triplet ({n}), got {values.shape[0]}")
    if values.device != dest.device:
        raise ValueError(f"{what} is on {values.device} but the matrix is on {dest.device}")
    if not values.is_contiguous:
        raise ValueError(f"{what} must be contiguous")
    rows, cols = dest.block_shape
    blocks = values.ndim == 1 and same_block_type(values.dtype, dest.dtype)
    scalars = values.ndim == 3 and values.dtype is dest.scalar_type and values.shape[1:] == (rows, cols)
    csr = values.ndim == 1 and (rows, cols) == (1, 1) and values.dtype is dest.scalar_type
    if not (blocks or scalars or csr):
        got = T.type_name(values.dtype) + (f" of shape {values.shape}" if values.ndim != 1 else "")
        raise ValueError(f"{what}: blocks of type {got} do not match the matrix's block type "
                         f"{T.type_name(dest.dtype)} (pass a 1-d array of {T.type_name(dest.dtype)} or a "
                         f"(n, {rows}, {cols}) array of {T.type_name(dest.scalar_type)})")
    return flat2d(values, n, rows * cols, dest.scalar_type)


class BsrTripletMap:
    """Which block each triplet of a bsr_set_from_triplets call went to, so that new values for the
    same triplets can be summed into the matrix again (bsr_set_from_mapped_values) without
    rebuilding the topology. Storage grows to the triplet count and is otherwise reused."""

    def __init__(self, capacity: int = 0, device=None):
        self.device = wp.get_device(device)
        self.capacity = 0
        self.triplet_count = 0
        self._built = False
        self._allocate(int(capacity))
        self._triplet_blocks = self._storage[0][:0]
        self._block_ends = self._storage[1][:0]
        self._triplet_indices = self._storage[2][:0]

    def _allocate(self, capacity: int) -> None:
        self.capacity = capacity
        self._storage = [wp.empty(capacity, dtype=int, device=self.device) for _ in range(3)]

    def _storage_for(self, n: int, device) -> dict:
        if device != self.device:
            raise ValueError(f"build_mapping must be on the same device as the matrix ({device}), "
                             f"got a map on {self.device}")
        if n > self.capacity:
            self._allocate(n)
        self.triplet_count = n
        self._built = True
        self._triplet_blocks, self._block_ends, self._triplet_indices = (s[:n] for s in self._storage)
        return {"triplet_blocks": self._triplet_blocks, "block_ends": self._block_ends,
                "triplet_indices": self._triplet_indices}


def bsr_set_from_triplets(dest: BsrMatrix, rows: array, columns: array, values: array | None = None,
                          count: array | None = None, prune_numerical_zeros: bool = True, masked: bool = False,
                          topology=None, build_mapping=None):
    """Fill dest from COO triplets (block row, block column, block value), discarding its blocks:
    duplicates are summed, triplets outside the shape (or past `count`) are dropped, and with
    prune_numerical_zeros all-zero blocks are ignored. Returns the BsrTripletMap when
    build_mapping is True or a map (filled in place), else None."""
    if not isinstance(dest, BsrMatrix):
        raise TypeError(f"dest must be a BsrMatrix, got {type(dest).__name__}")
    n = _check_index_arrays(rows, columns, dest.device)
    topology = check_topology(topology, masked)
    mapping = None
    if build_mapping is not None and build_mapping is not False:
        if build_mapping is True:
            mapping = BsrTripletMap(capacity=n, device=dest.device)
        elif isinstance(build_mapping, BsrTripletMap):
            mapping = build_mapping
        else:
            raise TypeError(f"build_mapping must be None, a bool or a BsrTripletMap, got "
                            f"{type(build_mapping).__name__}")
        if topology != "compact":
            raise ValueError(f"build_mapping requires topology='compact' (got {topology!r})")
        if prune_numerical_zeros:
            raise ValueError("build_mapping requires prune_numerical_zeros=False (a map must not depend on values)")
    if count is not None and (not isinstance(count, array) or count.dtype is not T.int32 or count.size < 1):
        raise TypeError("count must be a one-element int32 warp array")
    values2d = None if values is None else triplet_values_2d(values, dest, n)
    assemble(dest, rows, columns, values2d, n, topology=topology, count=count, prune=prune_numerical_zeros,
             mapping=mapping)
    return mapping


def bsr_from_triplets(rows_of_blocks: int, cols_of_blocks: int, rows: array, columns: array, values: array,
                      prune_numerical_zeros: bool = True) -> BsrMatrix:
    """A new compact matrix from COO triplets; the block type is values' dtype, or (rows, cols) of
    its scalar type for a (n, rows, cols) scalar array."""
    if not isinstance(values, array):
        raise TypeError(f"values must be a warp array, got {type(values).__name__}")
    if values.ndim == 3:
        block_type = block_type_for(values.shape[1:], values.dtype)
    elif values.ndim == 1:
        block_type = values.dtype
    else:
        raise ValueError(f"values must be a 1-d array of blocks or a 3-d array of scalars, got shape {values.shape}")
    block_shape_of(block_type)
    A = bsr_zeros(rows_of_blocks, cols_of_blocks, block_type, device=values.device)
    A.values.requires_grad = values.requires_grad
    bsr_set_from_triplets(A, rows, columns, values, prune_numerical_zeros=prune_numerical_zeros)
    return A


def bsr_set_from_mapped_values(dest: BsrMatrix, mapping: BsrTripletMap, values: array, reduction: str = "gather"):
    """Sum new values of the triplets `mapping` was built from into dest's blocks (the topology is
    kept). Both reductions ("gather", "atomic") give the same sums here; slots past the active
    blocks are left as they are."""
    if not isinstance(mapping, BsrTripletMap):
        raise TypeError(f"mapping must be a BsrTripletMap, got {type(mapping).__name__}")
    if not mapping._built:
        raise ValueError("the BsrTripletMap has not been built: pass it to bsr_set_from_triplets(build_mapping=...)")
    if reduction not in ("gather", "atomic"):
        raise ValueError(f"reduction must be 'gather' or 'atomic', got {reduction!r}")
    n = mapping.triplet_count
    values2d = triplet_values_2d(values, dest, n)
    if n == 0 or dest.nrow == 0:
        return dest
    comp = Compacted(dest.nrow, dest.ncol, n, dest.offsets, dest.columns, mapping._triplet_indices,
                     mapping._block_ends)
    gather(comp, values2d, flat2d(dest.values, dest.values.shape[0], dest.block_size, dest.scalar_type))
    return dest


def bsr_compress(src: BsrMatrix, prune_numerical_zeros: bool = True, inplace: bool = False, topology=None,
                 structure_only: bool = False) -> BsrMatrix:
    """Sort and merge the active blocks of each row of src (duplicate columns summed, columns outside
    the shape dropped, zero blocks pruned on request) and return src. Compact packs the rows;
    padded keeps each row's capacity. (`inplace` is accepted; new storage is used either way.)"""
    topology = check_topology(topology)
    if topology == "masked":
        raise ValueError("bsr_compress supports topology='compact' or 'padded'")
    n = src.nnz
    rows = src.uncompress_rows()
    columns = src.columns[:n]
    values = src.values
    values2d = None if structure_only else flat2d(values, n, src.block_size, src.scalar_type)
    if topology == "padded" and not src.padded:
        raise ValueError("topology='padded' needs a padded matrix (allocated with row_capacity)")
    assemble(src, rows, columns, values2d, n, topology=topology, prune=prune_numerical_zeros and not structure_only)
    if structure_only:
        src.values = values
    return src

