"""wp.Volume: a sparse volume of voxels (volume.h): float32, int32, vec3f, vec4f, vec4d (and float64,
vec3d) values. Data lives in 8x8x8 bricks allocated
only where the volume has data, found through hash tables that native/runtime/geometry.cpp
builds; constant regions (from NanoVDB tiles) and the background fill the rest. Created from a
dense numpy array, from points (allocate_by_tiles / allocate_by_voxels, then kernels write with
wp.volume_store_f), from a box (allocate) or from a NanoVDB grid of those types (load_from_nvdb).

Index space has voxel centres at integer coordinates; world = M @ index + translation (M is
diag(voxel_size) unless a transform is given). Kernels sample in index space:
wp.volume_sample_f(volume.id, wp.volume_world_to_index(volume.id, x), wp.Volume.LINEAR).

Index volumes (allocate_by_tiles(bg_value=None), allocate_by_voxels, NanoVDB OnIndex grids) hold
no values: their active voxels are numbered in get_voxels() order (per-brick active masks and
offsets), and kernels read per-voxel arrays with wp.volume_sample_index (volume_index.h).
Rebuildable volumes (volume_rebuild.py) re-apply a new layout within reserved capacities."""

from __future__ import annotations

import ctypes
import struct
from collections import namedtuple

import numpy as np

from .. import types as T
from ..arrays.array import array
from ..runtime import live_handles
from . import native, nvdb, nvdb_validate
from .device_mirror import refuse_on_cuda
from . import volume_rebuild as rb

TILE = 8
_LEVEL_SHIFTS = (3, 3, 7, 12)

#: voxel types wp.Volume holds: NanoVDB type code and name (get_grid_info().type_str)
_TYPES = {T.float32: (1, "float"), T.float64: (2, "double"), T.int32: (4, "int32"), T.vec3f: (6, "Vec3f"),
          T.vec3d: (7, "Vec3d"), T.vec4f: (17, "Vec4f"), T.vec4d: (18, "Vec4d"), T.uint64: (20, "OnIndex")}
_FROM_CODE = {**{code: t for t, (code, _) in _TYPES.items()}, nvdb.FPN: T.float32}  # FpN decodes to float
#: what get_feature_array_info returns; type_str is the struct character of the blind data's
#: NanoVDB value type ("?" when the grid does not say)
FeatureArrayInfo = namedtuple("FeatureArrayInfo", "name ptr value_size value_count type_str")
_BLIND_TYPE_CHARS = {1: "f", 2: "d", 3: "h", 4: "i", 5: "q", 10: "I"}


def _np_scalar(dtype) -> np.dtype:
    return T.numpy_dtype(T.scalar_type_of(dtype))


def _dtype_of_value(value):
    """The voxel type a background value implies (Warp's rule for Volume.allocate): an int gives
    int32, a float float32, 3 or 4 numbers vec3f / vec4f; a warp value gives its own type."""
    t = type(value)
    if t in _TYPES:
        return t
    if isinstance(value, (bool, int, np.integer)):
        return T.int32
    if isinstance(value, (float, np.floating)):
        return T.float32 if not isinstance(value, np.float64) else T.float32
    n = len(value)
    if n == 3:
        return T.vec3f
    if n == 4:
        return T.vec4f
    raise TypeError(f"Volume background {value!r} is not a scalar, 3 or 4 numbers")


class GridInfo(tuple):
    """Warp's Volume.GridInfo: name, size_in_bytes, grid_index, grid_count, type_str, translation,
    transform_matrix (index to world, row-major, 9 numbers)."""

    def __new__(cls, name, size_in_bytes, grid_index, grid_count, type_str, translation, transform_matrix):
        return super().__new__(cls, (name, size_in_bytes, grid_index, grid_count, type_str, translation,
                                     transform_matrix))

    name = property(lambda self: self[0])
    size_in_bytes = property(lambda self: self[1])
    grid_index = property(lambda self: self[2])
    grid_count = property(lambda self: self[3])
    type_str = property(lambda self: self[4])
    translation = property(lambda self: self[5])
    transform_matrix = property(lambda self: self[6])


def _voxel_size3(voxel_size) -> np.ndarray:
    if voxel_size is None or isinstance(voxel_size, (str, bytes)):
        raise TypeError(f"Volume voxel_size must be a number or 3 numbers, got {voxel_size!r}")
    try:
        vs = np.asarray(voxel_size, np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"Volume voxel_size must be a number or 3 numbers, got {voxel_size!r}") from None
    if vs.ndim > 1 or (vs.ndim == 1 and vs.size != 3):
        raise ValueError(f"Volume voxel_size must be a number or 3 numbers, got {voxel_size!r}")
    vs = np.broadcast_to(vs, (3,)).copy()
    if not (np.isfinite(vs).all() and (vs > 0).all()):
        raise ValueError(f"Volume voxel_size must be positive and finite, got {voxel_size}")
    return vs


def _table(coords: np.ndarray, shift: int):
    """(keys, values, log2 capacity) of a hash table over voxel coordinates >> shift."""
    n = len(coords)
    log2 = max(4, int(np.ceil(np.log2(max(2 * n, 2)))))
    keys = np.zeros(1 << log2, dtype=np.uint64)
    values = np.zeros(1 << log2, dtype=np.int32)
    status = native.library().wpnb_volume_table_build(native.ptr(coords), n, shift, native.ptr(keys),
                                                      native.ptr(values), log2)
    if status == -2:
        raise ValueError("Volume tiles are listed twice")
    if status != 0:
        raise RuntimeError("Volume hash table overflow")
    return keys, values, log2


class Volume:
    """A sparse float volume. Construct with the class methods (load_from_numpy, load_from_nvdb,
    allocate, allocate_by_tiles, allocate_by_voxels) or Volume(nvdb_bytes)."""

    CLOSEST = 0
    LINEAR = 1
    ActiveStats, RebuildInfo = rb.ActiveStats, rb.RebuildInfo
    REBUILD_SUCCESS, REBUILD_INVALID_INPUT = rb.REBUILD_SUCCESS, rb.REBUILD_INVALID_INPUT
    REBUILD_VOXEL_CAPACITY_EXCEEDED, REBUILD_LEAF_CAPACITY_EXCEEDED = (rb.REBUILD_VOXEL_CAPACITY_EXCEEDED,
                                                                       rb.REBUILD_LEAF_CAPACITY_EXCEEDED)
    REBUILD_LOWER_CAPACITY_EXCEEDED, REBUILD_UPPER_CAPACITY_EXCEEDED = (rb.REBUILD_LOWER_CAPACITY_EXCEEDED,
                                                                        rb.REBUILD_UPPER_CAPACITY_EXCEEDED)
    _rebuild_info = rb.NOT_REBUILDABLE
    _raw_tail, _name, _type_str = None, "", None

    def __init__(self, data=None, copy: bool = True, *, _parts=None):
        if _parts is None:
            if data is None:
                raise TypeError("wp.Volume(data) takes a NanoVDB grid buffer; use Volume.load_from_numpy, "
                                "load_from_nvdb or allocate to make one from other data")
            raw = data.numpy().tobytes() if isinstance(data, array) else bytes(np.asarray(data, np.uint8).tobytes())
            try:  # a grid buffer is checked like a file's grids, except that its size need not be 32-aligned
                _parts = _parts_from_nvdb(raw, aligned=False)
            except nvdb.NanoVDBError as e:
                raise nvdb.NanoVDBError(f"Failed to create volume from input array: {e}") from None
            _parts = dict(_parts, device=data.device if isinstance(data, array) else None)
        self._init(**_parts)

    def _init(self, origins, values, background, xform, translation, levels=(), dtype=T.float32, grid_index=0,
              grid_count=1, source=None, active=None, device=None, is_index=False, features=(),
              raw_grid=None, raw_tail=None, from_file=False, name="", type_str=None):
        refuse_on_cuda(device, "wp.Volume")
        self.dtype = dtype
        # an index volume holds no values: its active voxels are numbered (wp.volume_lookup_index)
        # and kernels read per-voxel data from arrays (wp.volume_sample_index)
        self.is_index = bool(is_index)
        # NanoVDB blind data [(name, value size, value count, bytes, type code)], copied when read so
        # that later writes to the source buffer cannot change what was validated
        self._features = list(features)
        self._raw_grid = raw_grid  # an index grid read from a file is written back as it was read
        self._raw_tail = raw_tail  # ... and Volume.array() holds it with the grids after it
        self._name, self._type_str = name, type_str  # a file grid's name, and its type when not dtype's (FpN)
        self._grid_index, self._grid_count, self._source = grid_index, grid_count, source
        npt, inner = _np_scalar(dtype), T.numpy_inner_shape(dtype)
        origins = np.ascontiguousarray(origins, np.int32).reshape(-1, 3) & ~(TILE - 1)
        self._data = np.ascontiguousarray(values, npt).reshape((-1, 512) + inner)
        # which voxels of each brick are active (allocate_by_voxels activates the given ones only)
        self._active = np.ones((len(self._data), 512), bool) if active is None else np.asarray(active, bool)
        if len(self._data) != len(origins):
            raise ValueError("Volume: one brick of 512 values per tile origin")
        self._origins = origins
        self._levels = [(np.asarray(o, np.int32).reshape(-1, 3), np.asarray(v, npt).reshape((-1,) + inner))
                        for o, v in levels]
        self._background = np.asarray(background, npt).reshape(inner)
        self.background = float(self._background) if not inner else tuple(self._background.tolist())
        xform = np.asarray(xform, np.float64).reshape(3, 3)
        singular = not np.isfinite(xform).all() or abs(np.linalg.det(xform)) < 1e-30
        if singular and (not from_file or not np.isfinite(xform).all()):
            raise (nvdb.NanoVDBError if from_file else ValueError)(
                f"Volume transform must be finite and invertible, got {xform.tolist()}")
        self._xform, self._translation = xform, np.asarray(translation, np.float64).reshape(3)
        self._tables, self._const_values = [], []
        d = self._desc = native.VolumeDesc()
        consts = []
        for level in range(4):
            if level == 0:
                coords, count = origins, len(origins)
            else:
                lv = levels[level - 1] if len(levels) >= level else (np.zeros((0, 3), np.int32), np.zeros(0))
                coords = np.ascontiguousarray(lv[0], np.int32).reshape(-1, 3)
                count = len(coords)
            if count == 0:
                d.levels[level].keys, d.levels[level].values, d.levels[level].shift = 0, 0, _LEVEL_SHIFTS[level]
                d.levels[level].log2_capacity = 0
                continue
            keys, vals, log2 = _table(coords, _LEVEL_SHIFTS[level])
            if level > 0:
                vals = np.where(keys != np.uint64(2 ** 64 - 1), vals + sum(len(c) for c in consts), 0).astype(np.int32)
                consts.append(np.asarray(lv[1], npt).reshape((-1,) + inner))
            self._tables.append((keys, vals))
            t = d.levels[level]
            t.keys, t.values, t.shift, t.log2_capacity = native.ptr(keys), native.ptr(vals), _LEVEL_SHIFTS[level], log2
        self._const_values = np.ascontiguousarray(np.concatenate(consts).astype(npt) if consts else
                                                  np.zeros((1,) + inner, npt))
        d.data, d.const_values = native.ptr(self._data), native.ptr(self._const_values)
        d.num_tiles, d.value_size = len(origins), T.type_size_in_bytes(dtype)
        # linear voxel indices (volume_lookup_index): active bits per brick, and each brick's first index
        self._active_masks = np.ascontiguousarray(np.packbits(self._active, axis=1, bitorder="little")).view(np.uint64)
        counts = self._active.sum(axis=1)
        self._voxel_offsets = np.ascontiguousarray((np.cumsum(counts) - counts).astype(np.int32))
        d.active_masks, d.voxel_offsets = native.ptr(self._active_masks), native.ptr(self._voxel_offsets)
        d.voxel_count = int(counts.sum())
        raw = self._background.tobytes()
        ctypes.memmove(ctypes.addressof(d.background), raw, len(raw))
        # a grid read from a file may carry a singular map (Warp loads it): its world lookups are
        # meaningless but in bounds, through the pseudo-inverse
        inv = np.linalg.pinv(xform) if singular else np.linalg.inv(xform)
        d.xform[:] = xform.reshape(-1).astype(np.float32).tolist()
        d.inv_xform[:] = inv.reshape(-1).astype(np.float32).tolist()
        d.translation[:] = self._translation.astype(np.float32).tolist()
        self.id = ctypes.addressof(d)
        live_handles.register(self.id, self)
        from ..runtime.devices import get_device
        self.device = get_device(device)

    # --- construction -------------------------------------------------------------------
    @classmethod
    def load_from_numpy(cls, ndarray, min_world=(0.0, 0.0, 0.0), voxel_size=1.0, bg_value=0.0, device=None):
        """A volume holding a dense array: element [i, j, k] is voxel (i, j, k), at world position
        min_world + voxel_size * (i, j, k); a 3-D array gives a float volume, a 4-D one with a last
        axis of 3 a vec3 volume. Every brick covering the array is kept, all its voxels active, as
        in Warp (one holding only bg_value too: wp.volume_store can write there)."""
        a = np.asarray(ndarray)
        if a.ndim == 4 and a.shape[3] == 3:
            dtype, inner = T.vec3f, (3,)
        elif a.ndim == 3:
            dtype, inner = T.float32, ()
        else:
            raise ValueError(f"Volume.load_from_numpy needs a 3-D array (or 4-D with a last axis of 3), got shape "
                             f"{a.shape}")
        if a.size == 0:
            raise ValueError("Volume.load_from_numpy got an empty array")
        a = a.astype(np.float32, copy=False)
        if not np.isfinite(a).all():
            raise ValueError("Volume.load_from_numpy: the array holds non-finite values")
        bg = np.broadcast_to(np.asarray(bg_value, np.float32), inner)
        nt = [-(-s // TILE) for s in a.shape[:3]]
        padded = np.empty([n * TILE for n in nt] + list(inner), np.float32)
        padded[...] = bg
        padded[:a.shape[0], :a.shape[1], :a.shape[2]] = a
        bricks = padded.reshape([nt[0], TILE, nt[1], TILE, nt[2], TILE] + list(inner))
        bricks = bricks.transpose([0, 2, 4, 1, 3, 5] + list(range(6, 6 + len(inner)))).reshape((-1, 512) + inner)
        tiles = np.stack(np.meshgrid(*[np.arange(n) for n in nt], indexing="ij"), -1).reshape(-1, 3) * TILE
        vs = _voxel_size3(voxel_size)
        return cls(_parts=dict(origins=tiles, values=bricks, background=bg, xform=np.diag(vs),
                               translation=np.asarray(min_world, np.float64), dtype=dtype, device=device))

    @classmethod
    def allocate(cls, min, max, voxel_size, bg_value=0.0, translation=(0.0, 0.0, 0.0), points_in_world_space=False,
                 device=None):
        """Every brick covering the box [min, max] (index space, or world space with
        points_in_world_space), filled with bg_value."""
        vs = _voxel_size3(voxel_size)
        lo, hi = np.asarray(min, np.float64), np.asarray(max, np.float64)
        if points_in_world_space:
            lo, hi = (lo - translation) / vs, (hi - translation) / vs
        lo_t, hi_t = np.floor(lo / TILE).astype(np.int64), np.floor(hi / TILE).astype(np.int64)
        if (hi_t < lo_t).any():
            raise ValueError(f"Volume.allocate: min {list(min)} exceeds max {list(max)}")
        axes = [np.arange(a, b + 1) for a, b in zip(lo_t, hi_t)]
        tiles = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3) * TILE
        return cls._from_tiles(tiles, vs, bg_value, translation, device=device)

    @classmethod
    def allocate_by_tiles(cls, tile_points, voxel_size=None, bg_value=0.0, translation=(0.0, 0.0, 0.0), device=None,
                          transform=None, point_mask=None, rebuildable=False, max_tiles=None, max_lower_nodes=None,
                          max_upper_nodes=None, status=None, **kwargs):
        """The bricks containing tile_points: integer points are index-space voxel coordinates,
        float points world positions (mapped by transform, or voxel_size, and translation).
        point_mask (int32, one per point) keeps the points where it is nonzero. bg_value=None
        makes an index volume (every voxel of the bricks active and numbered). rebuildable=True
        reserves max_tiles / max_lower_nodes / max_upper_nodes for later Volume.rebuild calls."""
        info = rb.capacity("tiles", None, max_tiles, max_lower_nodes, max_upper_nodes) if rebuildable else None
        return cls._allocate("tiles", tile_points, voxel_size, bg_value, translation, device, transform, point_mask,
                             info, status)

    @classmethod
    def allocate_by_voxels(cls, voxel_points, voxel_size=None, translation=(0.0, 0.0, 0.0), device=None,
                           transform=None, point_mask=None, rebuildable=False, max_active_voxels=None,
                           max_leaf_nodes=None, max_lower_nodes=None, max_upper_nodes=None, status=None, **kwargs):
        """An index volume of the given voxels: the bricks containing them, with only those voxels
        active. rebuildable=True reserves the max_* capacities for later Volume.rebuild calls."""
        info = (rb.capacity("voxels", max_active_voxels, max_leaf_nodes, max_lower_nodes, max_upper_nodes)
                if rebuildable else None)
        return cls._allocate("voxels", voxel_points, voxel_size, None, translation, device, transform, point_mask,
                             info, status)

    @classmethod
    def _allocate(cls, kind, points, voxel_size, bg_value, translation, device, transform, point_mask, info, status):
        ijk, xform = _index_points(points, voxel_size, translation, transform, point_mask)
        tiles, active = rb.layout(kind, ijk)
        bits = 0
        if info is not None:
            bits = rb.exceeded(info, tiles, len(tiles) * 512 if active is None else int(active.sum()))
            if bits:  # over capacity: an empty volume that a later rebuild may fill
                tiles, active = tiles[:0], None if active is None else active[:0]
        volume = cls._from_tiles(tiles, xform, bg_value, translation, active=active, device=device)
        if info is not None:
            volume._rebuild_info = info
            volume._rebuild_args = (kind, xform, translation, point_mask is not None)
        rb.report(status, bits)
        return volume

    @property
    def is_rebuildable(self) -> bool:
        return self._rebuild_info.input_kind is not None

    def get_rebuild_info(self) -> rb.RebuildInfo:
        """The input kind ("tiles", "voxels"; None when not rebuildable) and the reserved capacities."""
        return self._rebuild_info

    def get_active_stats(self) -> rb.ActiveStats:
        """The grid's actual topology: active voxels, leaf, lower and upper nodes."""
        return rb.stats(self._origins, int(self._active.sum()))

    def rebuild(self, points, status=None, point_mask=None):
        """Rebuild a rebuildable volume's topology from new points (of its input kind), within its
        reserved capacities; values return to the background. Over capacity, the volume is kept
        as it was and `status` says which capacity was exceeded."""
        if not self.is_rebuildable:
            raise RuntimeError("Volume.rebuild needs a volume allocated with rebuildable=True")
        kind, xform, translation, _ = self._rebuild_args
        ijk, _ = _index_points(points, None, translation, xform, point_mask, allow_empty=True)
        tiles, active = rb.layout(kind, ijk)
        bits = rb.exceeded(self._rebuild_info, tiles, len(tiles) * 512 if active is None else int(active.sum()))
        if not bits:
            bg = None if self.is_index else self._background
            rebuilt = Volume._from_tiles(tiles, xform, bg, translation, active=active, device=self.device,
                                         dtype=None if self.is_index else self.dtype)
            info, args = self._rebuild_info, self._rebuild_args
            self.__dict__.update(rebuilt.__dict__)
            self._rebuild_info, self._rebuild_args = info, args
        rb.report(status, bits)

    @classmethod
    def _from_tiles(cls, tiles, vs, bg_value, translation, active=None, device=None, dtype=None):
        tiles = np.asarray(tiles, np.int64)
        if np.abs(tiles).max(initial=0) >= 2 ** 23:
            raise ValueError("Volume: index coordinates must stay within +-2^23 voxels")
        is_index = bg_value is None
        dtype = T.uint64 if is_index else dtype or _dtype_of_value(bg_value)
        bg = np.asarray(0 if is_index else bg_value, _np_scalar(dtype)).reshape(T.numpy_inner_shape(dtype))
        values = np.empty((len(tiles), 512) + bg.shape, bg.dtype)
        values[...] = bg
        xform = np.diag(vs) if np.ndim(vs) == 1 else np.asarray(vs, np.float64)
        return cls(_parts=dict(origins=tiles, values=values, background=bg, xform=xform, translation=translation,
                               dtype=dtype, active=active, device=device, is_index=is_index))

    @classmethod
    def load_from_nvdb(cls, file_or_buffer, device=None):
        """A volume from a NanoVDB grid (float, double, int32, Vec3f/d, Vec4f/d): a path, an open
        binary file, or bytes."""
        if isinstance(file_or_buffer, (bytes, bytearray, memoryview)):
            data = bytes(file_or_buffer)
        elif hasattr(file_or_buffer, "read"):
            data = file_or_buffer.read()
        else:
            with open(file_or_buffer, "rb") as f:
                data = f.read()
        return cls(_parts=dict(_parts_from_nvdb(data), device=device))

    def load_next_grid(self):
        """The next grid of the NanoVDB file this volume came from, or None after the last one."""
        if self._source is None or self._grid_index + 1 >= self._grid_count:
            return None
        parts = _parts_from_nvdb(self._source, self._grid_index + 1)
        return None if parts is None else Volume(_parts=dict(parts, device=self.device))

    def get_feature_array_count(self) -> int:
        """The number of supplemental data arrays (NanoVDB blind data) stored with the grid."""
        return len(self._features)

    def get_feature_array_info(self, feature_index: int) -> FeatureArrayInfo:
        """Name, address, value size and count, and value type of feature array `feature_index`."""
        if not 0 <= feature_index < len(self._features):
            raise IndexError(f"Volume has {len(self._features)} feature arrays, not index {feature_index}")
        name, value_size, value_count, raw, data_type = self._features[feature_index][:5]
        ptr = np.frombuffer(raw, np.uint8).ctypes.data if raw else 0
        return FeatureArrayInfo(name, ptr, value_size, value_count, _BLIND_TYPE_CHARS.get(data_type, "?"))

    def feature_array(self, feature_index: int, dtype=None):
        """Feature array `feature_index` (NanoVDB blind data) as a wp.array of dtype (default uint8)."""
        if not 0 <= feature_index < len(self._features):
            raise IndexError(f"Volume has {len(self._features)} feature arrays, not index {feature_index}")
        raw = self._features[feature_index][3]
        dtype = T.uint8 if dtype is None else dtype
        np_type = _np_scalar(dtype)
        inner = T.numpy_inner_shape(dtype)
        values = np.frombuffer(raw, np_type, len(raw) // np.dtype(np_type).itemsize)
        if inner:
            values = values[:len(values) // int(np.prod(inner)) * int(np.prod(inner))].reshape((-1,) + inner)
        return array(values.copy(), dtype=dtype, device=self.device)

    def get_grid_info(self) -> GridInfo:
        """Warp's grid description: name, size in bytes, index and count of grids in the source, type name."""
        return GridInfo(self._name, len(self._grid_bytes()), self._grid_index, self._grid_count,
                        self._type_str or _TYPES[self.dtype][1],
                        T.vec3f(*self._translation), tuple(float(x) for x in self._xform.reshape(-1)))

    def array(self):
        """The volume as a NanoVDB grid buffer (a wp.array of uint8), as save_to_nvdb writes it; an
        index grid read from a file holds, like Warp's, its grid and the file's later grids."""
        raw = self._grid_bytes() if self._raw_tail is None else self._raw_tail
        return array(np.frombuffer(raw, np.uint8).copy(), dtype=T.uint8)

    def _grid_bytes(self) -> bytes:
        if self._raw_grid is not None:
            self._grid_info = nvdb.grid_info(self._raw_grid)
            return self._raw_grid
        levels = []
        for level in range(1, 4):
            lv = self._levels[level - 1] if len(self._levels) >= level else None
            empty = (np.zeros((0, 3), np.int32), np.zeros((0,) + self._background.shape, self._data.dtype))
            levels.append(lv if lv is not None else empty)
        grid, self._grid_info = nvdb.write_grid(self._origins, self._data, levels, self._background, self._xform,
                                                self._translation, _TYPES[self.dtype][0], self._active)
        return grid

    def __del__(self):
        pass  # the bricks and tables are numpy memory owned by this object (Volume.__new__ alone made nothing)

    def save_to_nvdb(self, path, codec: str = "none") -> None:
        """Write the volume as a NanoVDB grid of its type (codec "none" or "zip"), readable by
        load_from_nvdb and by NanoVDB tools."""
        if self._grid_index > 0:
            raise RuntimeError("Volume.save_to_nvdb writes a NanoVDB file from its first grid; this volume is grid "
                               f"{self._grid_index} of its file")
        grids, volume = [], self
        while volume is not None:  # the volume and the file's further grids, as Warp writes them
            grids.append((volume._grid_bytes(), volume._grid_info, _TYPES[volume.dtype][0]))
            volume = volume.load_next_grid()
        data = nvdb.write_files(grids, codec)
        if hasattr(path, "write"):
            path.write(data)
        else:
            with open(path, "wb") as f:
                f.write(data)

    # --- inspection ---------------------------------------------------------------------
    def get_tile_count(self) -> int:
        return len(self._origins)

    def get_voxel_count(self) -> int:
        """The number of active voxels (the reserved voxel capacity for a rebuildable volume, as Warp)."""
        return self._rebuild_info.max_active_voxels if self.is_rebuildable else int(self._active.sum())

    def get_tiles(self, out=None):
        """Index-space origins of the allocated bricks: an (n, 3) wp.array of int32 (as Warp returns
        them), or written into `out` (at least n rows) when given."""
        return _coords_array(self._origins, out)

    def get_voxels(self, out=None):
        """Index-space coordinates of the active voxels: an (n, 3) wp.array of int32, or written into `out`."""
        local = np.stack(np.meshgrid(np.arange(8), np.arange(8), np.arange(8), indexing="ij"), -1).reshape(-1, 3)
        voxels = (self._origins[:, None, :] + local[None])[self._active]
        return _coords_array(voxels.reshape(-1, 3), out)

    def get_voxel_size(self) -> tuple:
        """The world-space vector of a voxel's diagonal (M @ (1, 1, 1): the voxel size for axis-aligned grids)."""
        return tuple(float(x) for x in self._xform @ np.ones(3))

    @property
    def transform(self) -> np.ndarray:
        return self._xform.copy()

    @property
    def translation(self) -> np.ndarray:
        return self._translation.copy()

    def lookup(self, ijk) -> np.ndarray:
        """Voxel values at integer index coordinates (n, 3), evaluated in Python (for tests and tools)."""
        ijk = np.asarray(ijk, np.int64).reshape(-1, 3)
        out = np.empty((len(ijk),) + self._background.shape, self._data.dtype)
        out[...] = self._background
        pos = {tuple(o): k for k, o in enumerate(self._origins.tolist())}
        consts = [(size, {tuple(o): v for o, v in zip(lv[0].tolist(), lv[1].tolist())})
                  for size, lv in zip((8, 128, 4096), self._levels) if len(lv[0])]
        for n, (i, j, k) in enumerate(ijk.tolist()):
            t = pos.get((i & ~7, j & ~7, k & ~7))
            if t is not None:
                out[n] = self._data[t, ((i & 7) << 6) | ((j & 7) << 3) | (k & 7)]
                continue
            for size, table in consts:  # constant regions, finest first (as volume.h)
                v = table.get((i & -size, j & -size, k & -size))
                if v is not None:
                    out[n] = v
                    break
        return out

    def to_dense(self, lower=None, upper=None) -> tuple:
        """(values, lower): a dense float32 array of the index box [lower, upper] (inclusive; by
        default the allocated bricks' bounds): bricks, constant regions, and the background elsewhere."""
        if lower is None or upper is None:
            if len(self._origins) == 0:
                raise ValueError("the volume has no bricks")
            lower = self._origins.min(0) if lower is None else lower
            upper = self._origins.max(0) + 7 if upper is None else upper
        lower, upper = np.asarray(lower, np.int64), np.asarray(upper, np.int64)
        shape = tuple(int(x) for x in upper - lower + 1)
        out = np.empty(tuple(shape) + self._background.shape, self._data.dtype)
        out[...] = self._background
        for size, lv in reversed(list(zip((8, 128, 4096), self._levels))):  # constant regions, coarse first
            for o, v in zip(lv[0].astype(np.int64), lv[1]):
                a, b = np.maximum(o, lower) - lower, np.minimum(o + size - 1, upper) - lower
                if (b >= a).all():
                    out[a[0]:b[0] + 1, a[1]:b[1] + 1, a[2]:b[2] + 1] = v
        bricks = self._data.reshape((-1, 8, 8, 8) + self._background.shape)
        for t, o in enumerate(self._origins.astype(np.int64)):
            a, b = np.maximum(o, lower), np.minimum(o + 7, upper)
            if (b < a).any():
                continue
            out[a[0] - lower[0]:b[0] - lower[0] + 1, a[1] - lower[1]:b[1] - lower[1] + 1,
                a[2] - lower[2]:b[2] - lower[2] + 1] = bricks[t, a[0] - o[0]:b[0] - o[0] + 1,
                                                              a[1] - o[1]:b[1] - o[1] + 1, a[2] - o[2]:b[2] - o[2] + 1]
        return out, lower

    def __repr__(self):
        return (f"wp.Volume({len(self._origins)} tiles of 8^3 {T.type_name(self.dtype)} voxels, voxel size "
                f"{self.get_voxel_size()})")


def _coords_array(coords: np.ndarray, out=None):
    coords = np.ascontiguousarray(coords, np.int32).reshape(-1, 3)
    if out is None:
        return array(coords, dtype=T.int32)
    if out.shape[0] < len(coords):
        raise ValueError(f"Volume: `out` holds {out.shape[0]} rows, {len(coords)} are needed")
    head = out[:len(coords)] if len(coords) < out.shape[0] else out
    head.assign(coords)
    return out


def _index_points(points, voxel_size, translation, transform, point_mask, allow_empty=False):
    """(index-space voxel coordinates (n, 3) int64, index-to-world matrix) of allocation points:
    integer points are index coordinates already, float ones world positions."""
    pts = (points.numpy() if isinstance(points, array) else np.asarray(points)).reshape(-1, 3)
    if point_mask is not None:
        mask = (point_mask.numpy() if isinstance(point_mask, array) else np.asarray(point_mask)).reshape(-1)
        pts = pts[mask != 0]
    if transform is not None:
        xform = np.asarray(transform, np.float64).reshape(3, 3)
    else:
        xform = np.diag(_voxel_size3(1.0 if voxel_size is None else voxel_size))
    if np.issubdtype(pts.dtype, np.floating):
        if not np.isfinite(pts).all():
            raise ValueError("Volume allocation: points hold non-finite values")
        pts = np.floor((pts - np.asarray(translation, np.float64)) @ np.linalg.inv(xform).T + 0.5)
    if len(pts) == 0 and not (allow_empty or point_mask is not None):  # all masked out: an empty volume
        raise ValueError("Volume allocation got no points")
    return pts.astype(np.int64), xform


def _parts_from_nvdb(data: bytes, grid_index: int = 0, aligned: bool = True) -> dict | None:
    """The parts of grid `grid_index` of a .nvdb file or raw grid buffer (None past the last grid).
    Reading a file's first grid validates every grid, as Warp's loader does: a structurally invalid
    grid is reported before a grid whose layout is merely unsupported."""
    grids = nvdb.read_grids(data, None if grid_index == 0 else grid_index + 1, grid_buffer=not aligned)
    if grid_index >= len(grids):
        return None
    unsupported = None
    for k in (range(len(grids)) if grid_index == 0 else [grid_index]):
        try:
            nvdb_validate.check_grid(grids[k], aligned)
        except nvdb.NanoVDBError as e:
            if not str(e).startswith(nvdb_validate.UNSUPPORTED):
                raise
            unsupported = unsupported if unsupported is not None or k != grid_index else e
    if unsupported is not None:
        raise unsupported
    raw = grids[grid_index][:struct.unpack_from("<Q", grids[grid_index], 32)[0]]
    grid = nvdb.parse_grid(raw)
    is_raw = grids[0] is data
    count = 1 if is_raw else struct.unpack_from("<QIHH", data, 0)[2]  # a raw grid, or a file's grids
    is_index = grid["grid_type"] == nvdb.ON_INDEX
    return dict(origins=grid["origins"], values=grid["values"], background=grid["background"], xform=grid["xform"],
                translation=grid["translation"], levels=grid["levels"], dtype=_FROM_CODE[grid["grid_type"]],
                active=grid.get("active"), is_index=is_index, features=grid.get("blind", ()),
                grid_index=grid_index, grid_count=count, source=None if count == 1 else data,
                raw_grid=raw if is_index else None,
                raw_tail=(data if is_raw else b"".join(grids[grid_index:])) if is_index else None, from_file=True,
                name=raw[40:296].split(b"\0", 1)[0].decode("utf-8", "replace"),
                type_str="FloatN" if grid["grid_type"] == nvdb.FPN else None)
