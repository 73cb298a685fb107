"""wp.Volume: a sparse volume of float voxels (volume.h). Data lives in 8x8x8 bricks allocated
only where the volume has data, found through hash tables that native/runtime/geometry.cpp
builds; constant regions (from NanoVDB tiles) and the background fill the rest. Created from a
dense numpy array, from points (allocate_by_tiles / allocate_by_voxels, then kernels write with
wp.volume_store_f), from a box (allocate) or from a NanoVDB float grid (load_from_nvdb).

Index space has voxel centres at integer coordinates; world = M @ index + translation (M is
diag(voxel_size) unless a transform is given). Kernels sample in index space:
wp.volume_sample_f(volume.id, wp.volume_world_to_index(volume.id, x), wp.Volume.LINEAR)."""

from __future__ import annotations

import ctypes

import numpy as np

from .. import types as T
from ..arrays.array import array
from . import native, nvdb

TILE = 8
_LEVEL_SHIFTS = (3, 3, 7, 12)


def _voxel_size3(voxel_size) -> np.ndarray:
    vs = np.broadcast_to(np.asarray(voxel_size, np.float64), (3,)).copy()
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

    def __init__(self, data=None, copy: bool = True, *, _parts=None):
        if _parts is None:
            if data is None:
                raise TypeError("wp.Volume(data) takes a NanoVDB grid buffer; use Volume.load_from_numpy, "
                                "load_from_nvdb or allocate to make one from other data")
            raw = data.numpy().tobytes() if isinstance(data, array) else bytes(np.asarray(data, np.uint8).tobytes())
            _parts = _parts_from_nvdb(raw)
        self._init(**_parts)

    def _init(self, origins, values, background, xform, translation, levels=()):
        origins = np.ascontiguousarray(origins, np.int32).reshape(-1, 3) & ~(TILE - 1)
        self._data = np.ascontiguousarray(values, np.float32).reshape(-1, 512)
        if len(self._data) != len(origins):
            raise ValueError("Volume: one brick of 512 values per tile origin")
        self._origins = origins
        self._levels = [(np.asarray(o, np.int32).reshape(-1, 3), np.asarray(v, np.float32).reshape(-1))
                        for o, v in levels]
        self.background = float(background)
        xform = np.asarray(xform, np.float64).reshape(3, 3)
        if not np.isfinite(xform).all() or abs(np.linalg.det(xform)) < 1e-30:
            raise ValueError(f"Volume transform must be finite and invertible, got {xform.tolist()}")
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
                consts.append(np.asarray(lv[1], np.float32).reshape(-1))
            self._tables.append((keys, vals))
            t = d.levels[level]
            t.keys, t.values, t.shift, t.log2_capacity = native.ptr(keys), native.ptr(vals), _LEVEL_SHIFTS[level], log2
        self._const_values = np.concatenate(consts).astype(np.float32) if consts else np.zeros(1, np.float32)
        d.data, d.const_values = native.ptr(self._data), native.ptr(self._const_values)
        d.background, d.num_tiles = self.background, len(origins)
        inv = np.linalg.inv(xform)
        d.xform[:] = xform.reshape(-1).astype(np.float32).tolist()
        d.inv_xform[:] = inv.reshape(-1).astype(np.float32).tolist()
        d.translation[:] = self._translation.astype(np.float32).tolist()
        self.id = ctypes.addressof(d)
        self.device = None

    # --- construction -------------------------------------------------------------------
    @classmethod
    def load_from_numpy(cls, ndarray, min_world=(0.0, 0.0, 0.0), voxel_size=1.0, bg_value=0.0, device=None):
        """A volume holding a dense 3-D array: element [i, j, k] is voxel (i, j, k), at world position
        min_world + voxel_size * (i, j, k). Only bricks with a value other than bg_value are kept."""
        a = np.asarray(ndarray)
        if a.ndim != 3:
            raise ValueError(f"Volume.load_from_numpy needs a 3-D array, got shape {a.shape}")
        if a.size == 0:
            raise ValueError("Volume.load_from_numpy got an empty array")
        a = a.astype(np.float32, copy=False)
        if not np.isfinite(a).all():
            raise ValueError("Volume.load_from_numpy: the array holds non-finite values")
        bg = np.float32(bg_value)
        nt = [-(-s // TILE) for s in a.shape]
        padded = np.full([n * TILE for n in nt], bg, np.float32)
        padded[:a.shape[0], :a.shape[1], :a.shape[2]] = a
        bricks = padded.reshape(nt[0], TILE, nt[1], TILE, nt[2], TILE).transpose(0, 2, 4, 1, 3, 5)
        bricks = bricks.reshape(-1, 512)
        keep = (bricks != bg).any(axis=1)
        tiles = np.stack(np.meshgrid(*[np.arange(n) for n in nt], indexing="ij"), -1).reshape(-1, 3) * TILE
        vs = _voxel_size3(voxel_size)
        return cls(_parts=dict(origins=tiles[keep], values=bricks[keep], background=bg, xform=np.diag(vs),
                               translation=np.asarray(min_world, np.float64)))

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
        return cls._from_tiles(tiles, vs, bg_value, translation)

    @classmethod
    def allocate_by_tiles(cls, tile_points, voxel_size=None, bg_value=0.0, translation=(0.0, 0.0, 0.0), device=None,
                          transform=None, **kwargs):
        """The bricks containing tile_points: integer points are index-space voxel coordinates,
        float points world positions."""
        pts = tile_points.numpy() if isinstance(tile_points, array) else np.asarray(tile_points)
        vs = _voxel_size3(1.0 if voxel_size is None else voxel_size)
        pts = pts.reshape(-1, 3)
        if np.issubdtype(pts.dtype, np.floating):
            if not np.isfinite(pts).all():
                raise ValueError("Volume.allocate_by_tiles: points hold non-finite values")
            pts = np.floor((pts - np.asarray(translation)) / vs)
        ijk = pts.astype(np.int64)
        tiles = np.unique(ijk // TILE, axis=0) * TILE
        if len(tiles) == 0:
            raise ValueError("Volume.allocate_by_tiles got no points")
        return cls._from_tiles(tiles, vs, bg_value, translation)

    @classmethod
    def allocate_by_voxels(cls, voxel_points, voxel_size=None, translation=(0.0, 0.0, 0.0), device=None, **kwargs):
        """The bricks containing the given voxels (background 0)."""
        return cls.allocate_by_tiles(voxel_points, voxel_size, 0.0, translation)

    @classmethod
    def _from_tiles(cls, tiles, vs, bg_value, translation):
        tiles = np.asarray(tiles, np.int64)
        if np.abs(tiles).max(initial=0) >= 2 ** 23:
            raise ValueError("Volume: index coordinates must stay within +-2^23 voxels")
        values = np.full((len(tiles), 512), np.float32(bg_value), np.float32)
        return cls(_parts=dict(origins=tiles, values=values, background=bg_value, xform=np.diag(vs),
                               translation=translation))

    @classmethod
    def load_from_nvdb(cls, file_or_buffer, device=None):
        """A volume from a NanoVDB float grid: a path, an open binary file, or bytes."""
        if isinstance(file_or_buffer, (bytes, bytearray, memoryview)):
            data = bytes(file_or_buffer)
        elif hasattr(file_or_buffer, "read"):
            data = file_or_buffer.read()
        else:
            with open(file_or_buffer, "rb") as f:
                data = f.read()
        return cls(_parts=_parts_from_nvdb(data))

    def save_to_nvdb(self, path, codec: str = "none") -> None:
        """Write the volume as a NanoVDB float grid (codec "none" or "zip"), readable by
        load_from_nvdb and by NanoVDB tools."""
        levels = []
        for level in range(1, 4):
            lv = self._levels[level - 1] if len(self._levels) >= level else None
            levels.append(lv if lv is not None else (np.zeros((0, 3), np.int32), np.zeros(0, np.float32)))
        grid, info = nvdb.write_grid(self._origins, self._data, levels, self.background, self._xform,
                                     self._translation)
        data = nvdb.write_file(grid, info, codec)
        if hasattr(path, "write"):
            path.write(data)
        else:
            with open(path, "wb") as f:
                f.write(data)

    # --- inspection ---------------------------------------------------------------------
    def get_tile_count(self) -> int:
        return len(self._origins)

    def get_voxel_count(self) -> int:
        return 512 * len(self._origins)

    def get_tiles(self, out=None):
        """Index-space origins of the allocated bricks (a wp.array of wp.vec3i)."""
        return array(self._origins.copy(), dtype=T.vec3i)

    def get_voxels(self, out=None):
        """Index-space coordinates of every voxel of the allocated bricks (a wp.array of wp.vec3i)."""
        local = np.stack(np.meshgrid(np.arange(8), np.arange(8), np.arange(8), indexing="ij"), -1).reshape(-1, 3)
        return array((self._origins[:, None, :] + local[None]).reshape(-1, 3).astype(np.int32), dtype=T.vec3i)

    def get_voxel_size(self) -> tuple:
        return tuple(float(np.linalg.norm(self._xform[:, k])) for k in range(3))

    @property
    def transform(self) -> np.ndarray:
        return self._xform.copy()

    @property
    def translation(self) -> np.ndarray:
        return self._translation.copy()

    def lookup(self, ijk) -> np.ndarray:
        """Voxel values at integer index coordinates (n, 3), evaluated in Python (for tests and tools)."""
        ijk = np.asarray(ijk, np.int64).reshape(-1, 3)
        out = np.full(len(ijk), self.background, np.float32)
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
        out = np.full(shape, self.background, np.float32)
        for size, lv in reversed(list(zip((8, 128, 4096), self._levels))):  # constant regions, coarse first
            for o, v in zip(lv[0].astype(np.int64), lv[1]):
                a, b = np.maximum(o, lower) - lower, np.minimum(o + size - 1, upper) - lower
                if (b >= a).all():
                    out[a[0]:b[0] + 1, a[1]:b[1] + 1, a[2]:b[2] + 1] = v
        bricks = self._data.reshape(-1, 8, 8, 8)
        for t, o in enumerate(self._origins.astype(np.int64)):
            a, b = np.maximum(o, lower), np.minimum(o + 7, upper)
            if (b < a).any():
                continue
            out[a[0] - lower[0]:b[0] - lower[0] + 1, a[1] - lower[1]:b[1] - lower[1] + 1,
                a[2] - lower[2]:b[2] - lower[2] + 1] = bricks[t, a[0] - o[0]:b[0] - o[0] + 1,
                                                              a[1] - o[1]:b[1] - o[1] + 1, a[2] - o[2]:b[2] - o[2] + 1]
        return out, lower

    def __repr__(self):
        return f"wp.Volume({len(self._origins)} tiles of 8^3, voxel size {self.get_voxel_size()})"


def _parts_from_nvdb(data: bytes) -> dict:
    grid = nvdb.parse_grid(nvdb.read_file(data))
    return dict(origins=grid["origins"], values=grid["values"], background=grid["background"], xform=grid["xform"],
                translation=grid["translation"], levels=grid["levels"])
