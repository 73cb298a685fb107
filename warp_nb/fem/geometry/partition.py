"""`warp.fem` geometry partitions: the part of a geometry one process (or one pass) works on.

A cell-based partition owns a set of cells, and with them every side whose inner cell it owns; of
those it lists the boundary sides (one cell) and the frontier sides (a side with exactly one of its
two cells in the partition, whichever owns it), all in ascending side order. This is Warp's rule,
checked against warp-lang. `LinearGeometryPartition` owns a contiguous range of cells (rank r of n
gets ceil(cells / n) of them), `ExplicitGeometryPartition` the cells a mask selects. The side lists
are computed with numpy from the geometry's inner and outer cells, read once by a kernel. Device
functions map partition indices to geometry indices (`cell_index`, `side_index`,
`boundary_side_index`, `frontier_side_index`) and back (`partition_cell_index`)."""

import functools
import weakref

import numpy as np

import warp_nb as wp

from ..types import NULL_ELEMENT_INDEX


def side_cells(geometry, device=None):
    """(side_count, 2) numpy array of each side's inner and outer cell."""
    cached = _SIDE_CELLS.get(geometry)
    if cached is not None:
        return cached
    inner, outer = geometry.side_inner_cell_index, geometry.side_outer_cell_index

    @wp.kernel
    def read(args: geometry.SideArg, out: wp.array(dtype=wp.vec2i)):
        i = wp.tid()
        out[i] = wp.vec2i(inner(args, i), outer(args, i))

    out = wp.zeros(geometry.side_count(), dtype=wp.vec2i, device=device)
    if geometry.side_count():
        wp.launch(read, dim=geometry.side_count(), inputs=[geometry.side_arg_value(out.device), out], device=out.device)
    cells = _SIDE_CELLS[geometry] = out.numpy()
    return cells


_SIDE_CELLS = weakref.WeakKeyDictionary()  # geometry -> its side cells, for as long as it lives


def _side_arg_struct(cell_arg):
    """The SideArg of a partition whose CellArg is `cell_arg` (one struct per cell-arg type)."""
    cached = _SIDE_ARGS.get(cell_arg)
    if cached is None:
        fields = {"cell_arg": cell_arg, "partition_side_indices": wp.array(dtype=int),
                  "boundary_side_indices": wp.array(dtype=int), "frontier_side_indices": wp.array(dtype=int)}
        cached = _SIDE_ARGS[cell_arg] = wp.struct(type("PartitionSideArg", (), {"__annotations__": fields}))
    return cached


_SIDE_ARGS: dict = {}


@functools.cache
def _side_functions(SideArg) -> dict:
    """A partition's side device functions for its SideArg type (shared by partitions of that type)."""

    @wp.func
    def side_index(args: SideArg, partition_side_index: int):
        return args.partition_side_indices[partition_side_index]

    @wp.func
    def boundary_side_index(args: SideArg, boundary_side_index: int):
        return args.boundary_side_indices[boundary_side_index]

    @wp.func
    def frontier_side_index(args: SideArg, frontier_side_index: int):
        return args.frontier_side_indices[frontier_side_index]

    @wp.func
    def side_to_cell_arg(side_arg: SideArg):
        return side_arg.cell_arg

    return dict(side_index=side_index, boundary_side_index=boundary_side_index,
                frontier_side_index=frontier_side_index, side_to_cell_arg=side_to_cell_arg)


class GeometryPartition:
    """Base of the partitions of a geometry: counts, names and argument values."""

    def __init__(self, geometry):
        self.geometry = geometry

    @property
    def name(self) -> str:
        return f"{self.geometry.name}_{type(self).__name__}"

    def __str__(self) -> str:
        return self.name

    def cell_arg_value(self, device):
        args = self.CellArg()
        self.fill_cell_arg(args, device)
        return args

    def side_arg_value(self, device):
        args = self.SideArg()
        self.fill_side_arg(args, device)
        return args


class CellBasedGeometryPartition(GeometryPartition):
    """A partition defined by the cells it owns; its sides, boundary sides and frontier sides follow."""

    def __init__(self, geometry, device=None):
        super().__init__(geometry)
        self._device = device
        self.SideArg = _side_arg_struct(self.CellArg)
        self.__dict__.update(_side_functions(self.SideArg))

    def compute_side_indices_from_cells(self, cell_mask, device=None, max_side_count: int = -1):
        """Fill the side lists from `cell_mask` (numpy bool per geometry cell)."""
        device = self._device if device is None else device
        cells = side_cells(self.geometry, device)
        owned = np.asarray(cell_mask, dtype=bool)
        inner_in, outer_in = owned[cells[:, 0]], owned[cells[:, 1]]
        sides = np.flatnonzero(inner_in)
        boundary = np.flatnonzero(inner_in & (cells[:, 0] == cells[:, 1]))
        frontier = np.flatnonzero(inner_in != outer_in)
        if max_side_count >= 0:
            sides = _padded(sides, min(max_side_count, self.geometry.side_count()))
        self._partition_side_indices = wp.array(sides.astype(np.int32), dtype=int, device=device)
        self._boundary_side_indices = wp.array(boundary.astype(np.int32), dtype=int, device=device)
        self._frontier_side_indices = wp.array(frontier.astype(np.int32), dtype=int, device=device)

    def partition_cell_indices_numpy(self) -> np.ndarray:
        """Per geometry cell, its index in the partition (NULL_ELEMENT_INDEX outside it), on the host."""
        raise NotImplementedError

    def side_count(self) -> int:
        return self._partition_side_indices.shape[0]

    def boundary_side_count(self) -> int:
        return self._boundary_side_indices.shape[0]

    def frontier_side_count(self) -> int:
        return self._frontier_side_indices.shape[0]

    def fill_side_arg(self, args, device):
        args.cell_arg = self.cell_arg_value(device)
        args.partition_side_indices = self._partition_side_indices.to(device)
        args.boundary_side_indices = self._boundary_side_indices.to(device)
        args.frontier_side_indices = self._frontier_side_indices.to(device)


def _padded(indices: np.ndarray, size: int) -> np.ndarray:
    # a fixed capacity (Warp's max_*_count): unused entries are NULL_ELEMENT_INDEX
    out = np.full(size, NULL_ELEMENT_INDEX, dtype=np.int64)
    out[:min(size, len(indices))] = indices[:size]
    return out


@wp.struct
class LinearPartitionCellArg:
    cell_begin: int
    cell_end: int


@wp.func
def _linear_cell_index(args: LinearPartitionCellArg, partition_cell_index: int):
    return args.cell_begin + partition_cell_index


@wp.func
def _linear_partition_cell_index(args: LinearPartitionCellArg, cell_index: int):
    if cell_index >= args.cell_begin and cell_index < args.cell_end:
        return cell_index - args.cell_begin
    return NULL_ELEMENT_INDEX


class LinearGeometryPartition(CellBasedGeometryPartition):
    """Rank `partition_rank` of `partition_count` contiguous ranges of the geometry's cells."""

    CellArg = LinearPartitionCellArg
    cell_index = _linear_cell_index
    partition_cell_index = _linear_partition_cell_index

    def __init__(self, geometry, partition_rank: int, partition_count: int, device=None, temporary_store=None):
        if not 0 <= partition_rank < partition_count:
            raise ValueError(f"LinearGeometryPartition: `partition_rank` must be in [0, {partition_count}), got "
                             f"{partition_rank}")
        super().__init__(geometry, device)
        total = geometry.cell_count()
        per = -(-total // partition_count)
        self.cell_begin = min(partition_rank * per, total)
        self.cell_end = min(self.cell_begin + per, total)
        mask = np.zeros(total, dtype=bool)
        mask[self.cell_begin:self.cell_end] = True
        self.compute_side_indices_from_cells(mask, device)

    def cell_count(self) -> int:
        return self.cell_end - self.cell_begin

    def partition_cell_indices_numpy(self) -> np.ndarray:
        out = np.full(self.geometry.cell_count(), NULL_ELEMENT_INDEX, dtype=np.int64)
        out[self.cell_begin:self.cell_end] = np.arange(self.cell_count())
        return out

    def fill_cell_arg(self, args, device):
        args.cell_begin = self.cell_begin
        args.cell_end = self.cell_end


@wp.struct
class ExplicitPartitionCellArg:
    cell_index: wp.array(dtype=int)
    partition_cell_index: wp.array(dtype=int)


@wp.func
def _explicit_cell_index(args: ExplicitPartitionCellArg, partition_cell_index: int):
    return args.cell_index[partition_cell_index]


@wp.func
def _explicit_partition_cell_index(args: ExplicitPartitionCellArg, cell_index: int):
    return args.partition_cell_index[cell_index]


class ExplicitGeometryPartition(CellBasedGeometryPartition):
    """The cells whose `cell_mask` entry is non-zero; `max_cell_count` / `max_side_count` fix the
    list sizes (unused entries NULL_ELEMENT_INDEX), as Warp's capture-friendly capacities."""

    CellArg = ExplicitPartitionCellArg
    cell_index = _explicit_cell_index
    partition_cell_index = _explicit_partition_cell_index

    def __init__(self, geometry, cell_mask, max_cell_count: int = -1, max_side_count: int = -1,
                 temporary_store=None):
        device = cell_mask.device if isinstance(cell_mask, wp.array) else None
        super().__init__(geometry, device)
        self._max_cell_count = max_cell_count
        self._max_side_count = max_side_count
        self.rebuild(cell_mask)

    def rebuild(self, cell_mask, temporary_store=None):
        """Recompute the owned cells and the side lists from a new `cell_mask`."""
        mask = cell_mask.numpy() if isinstance(cell_mask, wp.array) else np.asarray(cell_mask)
        if mask.shape != (self.geometry.cell_count(),):
            raise ValueError(f"ExplicitGeometryPartition: `cell_mask` must have one entry per cell "
                             f"({self.geometry.cell_count()}), got shape {mask.shape}")
        owned = mask != 0
        cells = np.flatnonzero(owned)
        partition_cell = np.full(len(mask), NULL_ELEMENT_INDEX, dtype=np.int64)
        partition_cell[cells] = np.arange(len(cells))
        if self._max_cell_count >= 0:
            cells = _padded(cells, self._max_cell_count)
        self._cells = wp.array(cells.astype(np.int32), dtype=int, device=self._device)
        self._partition_cells = wp.array(partition_cell.astype(np.int32), dtype=int, device=self._device)
        self.compute_side_indices_from_cells(owned, self._device, self._max_side_count)

    def cell_count(self) -> int:
        return self._cells.shape[0]

    def partition_cell_indices_numpy(self) -> np.ndarray:
        return self._partition_cells.numpy().astype(np.int64)

    def fill_cell_arg(self, args, device):
        args.cell_index = self._cells.to(device)
        args.partition_cell_index = self._partition_cells.to(device)
