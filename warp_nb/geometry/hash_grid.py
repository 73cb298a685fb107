"""wp.HashGrid: points sorted into cubic cells (the build radius) hashed onto a fixed table of
dim_x * dim_y * dim_z cells, for neighbour loops `for j in wp.hash_grid_query(grid.id, p, r)`
in kernels (hash_grid.h).

Grids are float32 (points wp.vec3), float16 (wp.vec3h) or float64 (wp.vec3d): build and query
compute a point's cell the same way (float16 in single precision), so they always agree. A
cell coordinate is floor(x / cell width) clamped to the int32 range; NaN goes to cell 0. With
groups, each cell's points are sorted by group id and `wp.hash_grid_query(id, p, r, group)`
visits that group's only. float32 grids without groups are sorted by the native counting sort
(native/runtime/geometry.cpp), the others by numpy on the host. A grid on a CUDA device is built
the same way and its tables uploaded (device_mirror.py)."""

from __future__ import annotations

import ctypes

import numpy as np

from ..runtime import live_handles, recording
from .. import types as T
from ..arrays.array import array
from . import native
from .device_mirror import DeviceMirror, cuda_device_or_none
from ..runtime.memory_tracker import native_allocations, record_host

_VEC = {T.float16: T.vec3h, T.float32: T.vec3f, T.float64: T.vec3d}
_MAX_CELLS = 2**31 - 1


def _cell_coords(points: np.ndarray, inv) -> np.ndarray:
    """Cell coordinates (int64) of points (n, 3), as hash_grid_coord computes them."""
    c = np.floor(points * inv)
    c = np.where(np.isnan(c), 0.0, np.clip(c, -2.0**31, 2.0**31 - 1))
    return c.astype(np.int64)


class HashGrid:
    """A hash grid of dim_x * dim_y * dim_z cells for points of `dtype` (wp.float32, default;
    wp.float16 or wp.float64). build(points, radius, groups=None) sorts the points into cells of
    size radius; kernels then iterate candidates with wp.hash_grid_query(id, p, r[, group])."""

    @native_allocations("hashgrid")
    def __init__(self, dim_x: int, dim_y: int, dim_z: int, device=None, dtype=None):
        dims = (int(dim_x), int(dim_y), int(dim_z))
        if min(dims) < 1:
            raise ValueError(f"HashGrid dimensions must be positive, got {dims}")
        if int(np.prod(dims, dtype=np.int64)) > _MAX_CELLS:
            raise RuntimeError(f"HashGrid cell count exceeds supported limit ({dims} is more than 2^31 - 1 cells)")
        dtype = T.float32 if dtype is None else T.canonical_scalar(dtype)
        if dtype not in _VEC:
            raise TypeError(f"HashGrid dtype must be wp.float16, wp.float32 or wp.float64, got "
                            f"{getattr(dtype, '__name__', dtype)}")
        self.dim_x, self.dim_y, self.dim_z = dims
        self.dtype = dtype
        self.device = device
        self.reserved = False
        self._cell_starts = np.zeros(int(np.prod(dims)), dtype=np.int32)
        self._cell_ends = np.zeros(int(np.prod(dims)), dtype=np.int32)
        self._point_ids = np.zeros(0, dtype=np.int32)
        self._point_groups = None
        self._points = None
        self._desc = native.HashGridDesc()
        d = self._desc
        d.cell_starts, d.cell_ends = native.ptr(self._cell_starts), native.ptr(self._cell_ends)
        d.point_ids = native.ptr(self._point_ids)
        d.dim_x, d.dim_y, d.dim_z = dims
        d.cell_width, d.cell_width_inv, d.cell_width_inv_d, d.num_points = 1.0, 1.0, 1.0, 0
        # on a GPU, kernels get the id of a device copy of the descriptor and tables, uploaded after
        # each build (the build itself runs on the host)
        cuda = cuda_device_or_none(device)
        self._mirror = DeviceMirror(cuda, native.HashGridDesc) if cuda is not None else None
        self.id = self._mirror.id if self._mirror else ctypes.addressof(self._desc)
        self._upload()
        live_handles.register(self.id, self)
        record_host("cells", self._cell_starts, self._cell_ends)  # wp.ScopedMemoryTracker

    def reserve(self, num_points: int, with_groups: bool = False) -> None:
        """Allocate room for num_points points (build() grows it when needed)."""
        if recording.capture is not None:
            raise NotImplementedError("HashGrid.reserve() is not supported while a graph capture is recording; "
                                      "reserve before capture")
        self._grow(num_points)
        self.reserved = True

    def _grow(self, num_points: int) -> None:
        if int(num_points) > self._point_ids.size:
            self._point_ids = np.zeros(int(num_points), dtype=np.int32)
            self._desc.point_ids = native.ptr(self._point_ids)
            self._upload()

    def _upload(self) -> None:
        if self._mirror is not None:
            self._mirror.upload(self._desc, {"point_ids": self._point_ids, "cell_starts": self._cell_starts,
                                             "cell_ends": self._cell_ends, "point_groups": self._point_groups})

    def build(self, points, radius: float, groups=None) -> None:
        """Sort points (a wp.array of the grid's vec3 type, any shape: its elements in row-major
        order) into cells of size radius; groups (int32, one per point) makes grouped queries possible."""
        radius = float(radius)
        if not radius > 0.0 or not np.isfinite(radius):
            raise ValueError(f"HashGrid radius must be positive and finite, got {radius}")
        if recording.capture is not None:
            # recorded, not run: each replay sorts the points the array holds then
            if recording.capture.apic:
                raise NotImplementedError("HashGrid serialization is not yet supported: HashGrid.build() cannot be "
                                          "recorded into a saveable (apic=True) capture")
            self._points_view(points)  # the same checks now as at replay
            recording.capture.record(lambda: self._build_now(points, radius, groups))
            return
        self._build_now(points, radius, groups)

    def _build_now(self, points, radius: float, groups) -> None:
        view = self._points_view(points)
        n = view.shape[0]
        group_ids = self._groups_view(groups, points, n) if groups is not None else None
        self._grow(n)
        d = self._desc
        inv32 = np.float32(1.0) / np.float32(radius)
        inv64 = 1.0 / radius
        if self.dtype is T.float32 and group_ids is None and n:
            pts = np.ascontiguousarray(view, dtype=np.float32)
            native.library().wpnb_hash_grid_build(native.ptr(pts), 12, n, float(inv32), self.dim_x, self.dim_y,
                                                  self.dim_z, native.ptr(self._point_ids),
                                                  native.ptr(self._cell_starts), native.ptr(self._cell_ends),
                                                  native.threads())
            self._point_groups = None
        else:
            pts = view.astype(np.float64) if self.dtype is T.float64 else view.astype(np.float32)
            self._sort(pts, np.float64(inv64) if self.dtype is T.float64 else inv32, group_ids)
        d.point_groups = native.ptr(self._point_groups)
        self._points = points
        d.cell_width, d.cell_width_inv, d.cell_width_inv_d = radius, float(inv32), inv64
        d.num_points = n
        self._upload()

    def _points_view(self, points) -> np.ndarray:
        if isinstance(points, array):
            if self.device is not None and not _same_device(points, self.device):
                raise RuntimeError(f"HashGrid points must live on the same device as the grid ({self.device}), got "
                                   f"{points.device}")
            if not (points.dtype is _VEC[self.dtype] or T.types_equal(points.dtype, _VEC[self.dtype])):
                raise TypeError(f"HashGrid of {T.type_name(self.dtype)} takes points of {T.type_name(_VEC[self.dtype])}, "
                                f"got {T.type_name(points.dtype)}")
            data = points.numpy()
        else:
            data = np.asarray(points)
        return data.reshape(-1, 3)

    def _groups_view(self, groups, points, n: int) -> np.ndarray:
        if isinstance(groups, array) and isinstance(points, array) and groups.device != points.device:
            raise RuntimeError("HashGrid groups must live on the same device as the points")
        g = (groups.numpy() if isinstance(groups, array) else np.asarray(groups)).reshape(-1).astype(np.int32)
        if g.size != n:
            raise ValueError(f"HashGrid groups has {g.size} entries for {n} points")
        return g

    def _sort(self, pts: np.ndarray, inv, groups) -> None:
        """The counting sort of the native builder, in numpy: by cell slot, then group, then index."""
        dims = np.array([self.dim_x, self.dim_y, self.dim_z], dtype=np.int64)
        w = _cell_coords(pts, inv) % dims if len(pts) else np.zeros((0, 3), np.int64)
        slot = (w[:, 2] * self.dim_y + w[:, 1]) * self.dim_x + w[:, 0]
        order = np.lexsort((groups, slot)) if groups is not None else np.argsort(slot, kind="stable")
        self._point_ids[: len(order)] = order
        counts = np.bincount(slot, minlength=self._cell_starts.size)
        np.cumsum(counts, out=self._cell_ends)
        self._cell_starts[:] = self._cell_ends - counts
        self._point_groups = np.ascontiguousarray(groups[order]) if groups is not None else None

    @property
    def cell_width(self) -> float:
        return float(self._desc.cell_width)

    def __del__(self):
        pass  # the tables are numpy memory owned by this object (and HashGrid.__new__ alone made nothing)

    def __repr__(self):
        return f"wp.HashGrid({self.dim_x}, {self.dim_y}, {self.dim_z}; {self._desc.num_points} points)"


def _same_device(a: array, device) -> bool:
    from ..runtime.devices import get_device
    return a.device == get_device(device)
