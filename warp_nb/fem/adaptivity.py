"""Building an `AdaptiveNanogrid`: from a hierarchy of grids (`adaptive_nanogrid_from_hierarchy`) or
from a coarse grid and a refinement field (`adaptive_nanogrid_from_field`), with optional face
grading (neighbours across a face differ by at most one level). All on the host with numpy; the
field is evaluated with a particle quadrature on its own domain.

Rules (Warp's, read from warp-lang's grids):
- hierarchy: grid k's voxels are level-k cells at `2^k * ijk` of grid 0's index space; a cell that
  contains a finer one is left out.
- field: with L levels, the finest voxel is the coarse one divided by 2^(L-1) (same lower corner); a
  cell of level l wants level floor(L * f) where f is the field's least value over `samples_per_voxel`
  samples in it, and is split in 8 while it wants less than l; a cell where every sample is negative
  is removed, at any level (its finer cells are never sampled).
- samples: the points warp-lang draws (found by inverting the recorded points of a probing field
  through the PCG hash): a cell of level l whose index at that level is (x, y, z) draws from
  rand_init((l << 24) ^ (x << 12) ^ (y << 6) ^ z), each sample three randf for its position in the
  cell, so grids are warp-lang's (up to float rounding where a threshold passes within an ulp)."""

import numpy as np

import warp_nb as wp

from .geometry.adaptive_nanogrid import AdaptiveNanogrid
from .geometry.nanogrid_topology import _CORNERS, VoxelIndex
from .integrand import integrand
from .types import Field, Sample

_GRADINGS = (None, "none", "face")


def _make(cells: np.ndarray, levels: np.ndarray, transform, translation, device, grading, level_count: int):
    if grading == "vertex":
        raise NotImplementedError("adaptive grid: grading='vertex' is not supported by warp_nb.fem yet (None and "
                                  "'face' are)")
    if grading not in _GRADINGS:
        raise ValueError(f"adaptive grid: `grading` must be None, 'face' or 'vertex', got {grading!r}")
    if grading == "face":
        cells, levels = _grade(cells, levels)
    if len(cells) == 0:
        raise ValueError("adaptive grid: no cell is left (the refinement field is negative everywhere)")
    volume = wp.Volume.allocate_by_voxels(np.ascontiguousarray(cells, np.int32), device=device, transform=transform,
                                          translation=tuple(translation))
    order = VoxelIndex(cells)(volume.get_voxels().numpy())
    cell_level = wp.array(levels[order].astype(np.uint8), dtype=wp.uint8, device=device)
    return AdaptiveNanogrid(volume, cell_level, level_count)


def adaptive_nanogrid_from_hierarchy(grids, grading=None, temporary_store=None) -> AdaptiveNanogrid:
    """An AdaptiveNanogrid from index volumes of increasing voxel size (grids[0] the finest): grid k's
    voxels are level-k cells; a cell that holds a finer one is left out."""
    if not grids:
        raise ValueError("adaptive_nanogrid_from_hierarchy: `grids` is empty")
    cells, levels = [], []
    finer = np.zeros((0, 3), np.int64)
    for level, grid in enumerate(grids):
        ijk = grid.get_voxels().numpy().astype(np.int64) << level
        if len(finer):
            covered = VoxelIndex(np.unique((finer >> level) << level, axis=0))(ijk) >= 0
            ijk = ijk[~covered]
        cells.append(ijk)
        levels.append(np.full(len(ijk), level, np.int64))
        finer = np.concatenate([finer, ijk])
    fine = grids[0]
    return _make(np.concatenate(cells), np.concatenate(levels), fine.transform, fine.translation, fine.device,
                 grading, len(grids))


def _field_values(field, points: np.ndarray, max_dist: float, device) -> np.ndarray:
    """The field at world points (+inf where no cell of its domain holds the point)."""
    from .domain import Cells
    from .interpolate import interpolate
    from .quadrature import PicQuadrature

    if len(points) == 0:
        return np.zeros(0)
    values = wp.full(len(points), np.inf, dtype=float, device=device)
    pic = PicQuadrature(Cells(field.geometry), positions=wp.array(points.astype(np.float32), dtype=wp.vec3,
                                                                  device=device), max_dist=max_dist)
    interpolate(_read_field, dest=values, at=pic, fields={"f": field})
    return values.numpy().astype(np.float64)


@integrand
def _read_field(s: Sample, f: Field):
    return f(s)


def adaptive_nanogrid_from_field(coarse_grid, level_count: int, refinement_field, samples_per_voxel: int = 64,
                                 grading=None, temporary_store=None) -> AdaptiveNanogrid:
    """An AdaptiveNanogrid refining the voxels of `coarse_grid` over `level_count` levels where the
    scalar `refinement_field` is small (see the module's docstring for the rule)."""
    L = int(level_count)
    if L < 1:
        raise ValueError(f"adaptive_nanogrid_from_field: `level_count` must be at least 1, got {level_count}")
    T = np.asarray(coarse_grid.transform, np.float64)
    t = np.asarray(coarse_grid.translation, np.float64)
    fine_T = T / (1 << (L - 1))
    fine_t = t + T @ np.full(3, -0.5) + fine_T @ np.full(3, 0.5)

    max_dist = 1.0e-3 * float(np.min(np.linalg.norm(fine_T, axis=0)))

    def field_at(index_points):  # the field at fine index coordinates
        return _field_values(refinement_field, index_points @ fine_T.T + fine_t, max_dist, coarse_grid.device)

    samples = max(1, int(samples_per_voxel))
    cells = coarse_grid.get_voxels().numpy().astype(np.int64) << (L - 1)
    level = L - 1
    done_cells, done_levels = [], []
    while len(cells):
        size = 1 << level
        points = (cells[:, None, :] - 0.5 + size * _cell_samples(cells >> level, level, samples)).reshape(-1, 3)
        values = field_at(points).reshape(len(cells), -1)
        wanted = np.floor(L * values.min(axis=1))
        keep = values.max(axis=1) >= 0.0  # a cell whose every sample is negative is carved out, at any level
        if level == 0:
            done_cells.append(cells[keep])
            done_levels.append(np.zeros(int(keep.sum()), np.int64))
            break
        split = keep & (wanted < level)
        stays = keep & ~split
        done_cells.append(cells[stays])
        done_levels.append(np.full(int(stays.sum()), level, np.int64))
        half = size >> 1
        cells = (cells[split][:, None, :] + half * _CORNERS[None]).reshape(-1, 3)
        level -= 1
    return _make(np.concatenate(done_cells), np.concatenate(done_levels), fine_T, fine_t, coarse_grid.device, grading,
                 L)


def _rng_hash(x: np.ndarray) -> np.ndarray:
    """The PCG hash of wp.rand_init and wp.randf (native/core/random.h), on uint32 arrays."""
    with np.errstate(over="ignore"):
        state = x * np.uint32(747796405) + np.uint32(2891336453)
        word = ((state >> ((state >> np.uint32(28)) + np.uint32(4))) ^ state) * np.uint32(277803737)
    return (word >> np.uint32(22)) ^ word


def _cell_samples(index: np.ndarray, level: int, count: int) -> np.ndarray:
    """(cells, count, 3): the positions in [0, 1)^3 at which the field is read in each cell of `level`
    whose index at that level is `index`: warp-lang's draws (see the module's docstring)."""
    ijk = index.astype(np.int64) & 0xFFFFFFFF
    seed = ((level << 24) ^ (ijk[:, 0] << 12) ^ (ijk[:, 1] << 6) ^ ijk[:, 2]) & 0xFFFFFFFF
    state = _rng_hash(seed.astype(np.uint32))  # rand_init(seed)
    draws = np.empty((len(index), count * 3), np.float64)
    for k in range(count * 3):  # randf: the top 24 bits of each next state
        state = _rng_hash(state)
        draws[:, k] = (state >> np.uint32(8)).astype(np.float64) * 2.0 ** -24
    return draws.reshape(len(index), count, 3)


def _grade(cells: np.ndarray, levels: np.ndarray):
    """Split cells until every two cells sharing a face differ by at most one level."""
    while True:
        index = VoxelIndex(cells)
        level_count = int(levels.max(initial=0)) + 1

        def find_cell(voxels):
            found = np.full(len(voxels), -1, np.int64)
            for level in range(level_count):
                idx = index((voxels >> level) << level)
                ok = (idx >= 0) & (found < 0)
                ok[ok] = levels[idx[ok]] == level
                found[ok] = idx[ok]
            return found

        split = np.zeros(len(cells), bool)
        for level in range(2, level_count):
            mine = np.nonzero(levels == level)[0]
            if len(mine) == 0:
                continue
            size = 1 << level
            grid = np.stack(np.meshgrid(np.arange(size), np.arange(size), indexing="ij"), -1).reshape(-1, 2)
            for a in range(3):
                u, v = (a + 1) % 3, (a + 2) % 3
                for side in (-1, size):
                    layer = np.zeros((len(grid), 3), np.int64)
                    layer[:, a] = side
                    layer[:, u], layer[:, v] = grid[:, 0], grid[:, 1]
                    probe = (cells[mine][:, None, :] + layer[None]).reshape(-1, 3)
                    n = find_cell(probe).reshape(len(mine), -1)
                    finest = np.where(n >= 0, levels[np.maximum(n, 0)], level).min(axis=1)
                    split[mine[finest < level - 1]] = True
        if not split.any():
            return cells, levels
        half = (1 << levels[split]) >> 1
        children = (cells[split][:, None, :] + half[:, None, None] * _CORNERS[None]).reshape(-1, 3)
        cells = np.concatenate([cells[~split], children])
        levels = np.concatenate([levels[~split], np.repeat(levels[split] - 1, 8)])
