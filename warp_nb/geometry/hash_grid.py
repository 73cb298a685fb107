"""wp.HashGrid: points sorted into cubic cells (the build radius) hashed onto a fixed table of
dim_x * dim_y * dim_z cells, for neighbour loops `for j in wp.hash_grid_query(grid.id, p, r)`
in kernels (hash_grid.h). Built on the CPU by a counting sort (native/runtime/geometry.cpp)."""

from __future__ import annotations

import ctypes

import numpy as np

from . import native
from ._util import as_vec3_array, check_finite


class HashGrid:
    """A hash grid of dim_x * dim_y * dim_z cells. build(points, radius) sorts the points into
    cells of size radius; kernels then iterate candidates with wp.hash_grid_query(id, p, r)."""

    def __init__(self, dim_x: int, dim_y: int, dim_z: int, device=None, dtype=None):
        dims = (int(dim_x), int(dim_y), int(dim_z))
        if min(dims) < 1:
            raise ValueError(f"HashGrid dimensions must be positive, got {dims}")
        if int(np.prod(dims, dtype=np.int64)) > 2 ** 31 - 1:
            raise ValueError(f"HashGrid has too many cells ({dims})")
        self.dim_x, self.dim_y, self.dim_z = dims
        self.device = device
        self.reserved = False
        self._cell_starts = np.zeros(int(np.prod(dims)), dtype=np.int32)
        self._cell_ends = np.zeros(int(np.prod(dims)), dtype=np.int32)
        self._point_ids = np.zeros(0, dtype=np.int32)
        self._points = None
        self._desc = native.HashGridDesc()
        d = self._desc
        d.cell_starts, d.cell_ends = native.ptr(self._cell_starts), native.ptr(self._cell_ends)
        d.point_ids = native.ptr(self._point_ids)
        d.dim_x, d.dim_y, d.dim_z = dims
        d.cell_width, d.cell_width_inv, d.num_points = 1.0, 1.0, 0
        self.id = ctypes.addressof(self._desc)

    def reserve(self, num_points: int, with_groups: bool = False) -> None:
        """Allocate room for num_points points (build() grows it when needed)."""
        if int(num_points) > self._point_ids.size:
            self._point_ids = np.zeros(int(num_points), dtype=np.int32)
            self._desc.point_ids = native.ptr(self._point_ids)
        self.reserved = True

    def build(self, points, radius: float, groups=None) -> None:
        """Sort points (a wp.array of wp.vec3) into cells of size radius."""
        if groups is not None:
            raise NotImplementedError("HashGrid groups are not supported by warp_nb yet")
        radius = float(radius)
        if not radius > 0.0 or not np.isfinite(radius):
            raise ValueError(f"HashGrid radius must be positive and finite, got {radius}")
        arr, view = as_vec3_array(points, "HashGrid points")
        n = view.shape[0]
        self.reserve(n)
        d = self._desc
        inv = float(np.float32(1.0) / np.float32(radius))
        bad = native.library().wpnb_hash_grid_build(native.ptr(view), 12, n, inv, self.dim_x, self.dim_y,
                                                    self.dim_z, native.ptr(self._point_ids),
                                                    native.ptr(self._cell_starts), native.ptr(self._cell_ends),
                                                    native.threads())
        if bad >= 0:  # found while hashing, before anything was written: the grid keeps its last build
            check_finite(view, "HashGrid points")
        self._points = arr
        d.cell_width, d.cell_width_inv = radius, inv
        d.num_points = n

    @property
    def cell_width(self) -> float:
        return float(self._desc.cell_width)

    def __repr__(self):
        return f"wp.HashGrid({self.dim_x}, {self.dim_y}, {self.dim_z}; {self._desc.num_points} points)"
