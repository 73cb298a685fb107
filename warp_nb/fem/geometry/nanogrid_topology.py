"""The host side of `fem.Nanogrid`: from the active voxels of an index volume (the cells), the
vertices, faces and edges of the hexahedral grid they make, each as an index volume numbered the
way Warp numbers them, with the per-face arrays the device functions read.

Conventions (Warp's, read from warp-lang's grids): a cell is the voxel `ijk`, spanning index
coordinates [ijk - 0.5, ijk + 0.5]; vertex `v` sits at index coordinates `v - 0.5`, cell `ijk`
has the vertices `ijk + {0, 1}^3`. A face or an edge is named by its origin vertex and an axis (the
face's normal, the edge's direction) and stored in its index volume at the origin with that axis'
coordinate XOR-ed with `AXIS_FLAG` (2^20), so that the three axes never share a voxel. Each grid
numbers its voxels in NanoVDB tree order (volume_rebuild.tree_order). A face's flags hold its axis
(bits 0-1), `INNER_OFFSET` for a boundary face on the low side of its cell, `OUTER_OFFSET` for one
on the high side. Knows nothing of device functions or spaces."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

AXIS_FLAG = 1 << 20
FACE_AXIS_MASK = 3
FACE_INNER_OFFSET = 4
FACE_OUTER_OFFSET = 8

_CORNERS = np.array([(i, j, k) for i in (0, 1) for j in (0, 1) for k in (0, 1)], dtype=np.int64)


def encode_axis(ijk: np.ndarray, axis: np.ndarray) -> np.ndarray:
    """`ijk` with its `axis` coordinate XOR-ed with AXIS_FLAG (a face's or an edge's voxel)."""
    out = np.array(ijk, dtype=np.int64, copy=True)
    rows = np.arange(len(out))
    out[rows, axis] ^= AXIS_FLAG
    return out


def decode_axis(voxels: np.ndarray):
    """(origin ijk, axis) of encoded face or edge voxels."""
    voxels = np.asarray(voxels, np.int64).reshape(-1, 3)
    flagged = ((voxels & AXIS_FLAG) != 0) != (voxels < 0)  # the flag flips a negative coordinate's bit too
    axis = np.argmax(flagged, axis=1)
    return encode_axis(voxels, axis), axis


class VoxelIndex:
    """Index of voxels in a given order (the order of an index volume's get_voxels)."""

    def __init__(self, voxels: np.ndarray, width: int = 3):
        self._width = width  # 3 coordinates, or 4 with a level
        self._voxels = np.asarray(voxels, np.int64).reshape(-1, width)

    def __call__(self, queries: np.ndarray) -> np.ndarray:
        """The index of each query voxel, -1 where it is absent (one sort of both sets: encoded
        coordinates need 22 bits per axis, more than one int64 key holds)."""
        queries = np.asarray(queries, np.int64).reshape(-1, self._width)
        n = len(self._voxels)
        _, inverse = np.unique(np.concatenate([self._voxels, queries]), axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        at = np.full(inverse.max(initial=-1) + 1, -1, np.int64)
        at[inverse[:n]] = np.arange(n)
        return at[inverse[n:]]


def index_volume(voxels: np.ndarray, like, device):
    """An index volume of `voxels` with the transform and translation of `like`."""
    return wp.Volume.allocate_by_voxels(np.ascontiguousarray(voxels, np.int32).reshape(-1, 3), device=device,
                                        transform=like.transform, translation=tuple(like.translation))


def _floor_to(ijk: np.ndarray, level) -> np.ndarray:
    """The origin of the level-`level` cell (2^level voxels wide, aligned) holding voxel `ijk`."""
    return (np.asarray(ijk, np.int64) >> level) << level


class GridTopology:
    """Vertices, faces and edges of a set of cells (voxel coordinates of their origin, in cell order,
    and for an adaptive grid their levels: a level-l cell is 2^l voxels wide).

    Faces: each cell's face towards a neighbour of the same or a coarser level, or towards nothing
    (a boundary face); a face towards finer cells is theirs. A face's level is its cell's. Edges (and,
    for the nodes of higher-degree spaces, `stacked` faces) are every cell's own, one per (origin,
    axis, level)."""

    def __init__(self, cells: np.ndarray, like, device, levels=None):
        cells = np.asarray(cells, np.int64).reshape(-1, 3)
        levels = np.zeros(len(cells), np.int64) if levels is None else np.asarray(levels, np.int64).reshape(-1)
        self.cells, self.levels = cells, levels
        self.level_count = int(levels.max(initial=0)) + 1
        sizes = (1 << levels)[:, None]
        cell_index = VoxelIndex(cells)

        def find_cell(voxels):
            # the cell holding each voxel (-1: none), trying each level's aligned origin
            found = np.full(len(voxels), -1, np.int64)
            for level in range(self.level_count):
                idx = cell_index(_floor_to(voxels, level))
                ok = (idx >= 0) & (found < 0)
                ok[ok] = levels[idx[ok]] == level
                found[ok] = idx[ok]
            return found

        self.find_cell = find_cell
        corners = (cells[:, None, :] + sizes[:, :, None] * _CORNERS[None]).reshape(-1, 3)
        self.vertex_grid = index_volume(np.unique(corners, axis=0), like, device)
        self.vertices = self.vertex_grid.get_voxels().numpy().astype(np.int64)
        self.vertex_index = VoxelIndex(self.vertices)

        faces, axes, face_levels = [], [], []
        for a in range(3):
            e = np.zeros(3, np.int64)
            e[a] = 1
            for origin, probe in ((cells, cells - e), (cells + sizes * e, cells + sizes * e)):
                n = find_cell(probe)
                keep = (n < 0) | (levels[np.maximum(n, 0)] >= levels)
                faces.append(origin[keep])
                axes.append(np.full(int(keep.sum()), a))
                face_levels.append(levels[keep])
        encoded = encode_axis(np.concatenate(faces), np.concatenate(axes))
        unique, first = np.unique(encoded, axis=0, return_index=True)
        self.face_grid = index_volume(unique, like, device)
        face_voxels = self.face_grid.get_voxels().numpy().astype(np.int64)
        self.face_ijk, self.face_axis = decode_axis(face_voxels)
        # (two cells listing one face are of one level: a face towards a finer cell is not listed)
        self.face_levels = np.concatenate(face_levels)[first][VoxelIndex(unique)(face_voxels)]
        e = np.eye(3, dtype=np.int64)[self.face_axis]
        above = find_cell(self.face_ijk)  # the cell on the high side of the face
        below = find_cell(self.face_ijk - e)
        self.face_flags = self.face_axis + np.where(below < 0, FACE_INNER_OFFSET, 0) + \
            np.where(above < 0, FACE_OUTER_OFFSET, 0) + (self.face_levels << 4)
        self.face_cells = np.stack([np.where(below < 0, above, below), np.where(above < 0, below, above)], axis=1)
        self.boundary_faces = np.nonzero((below < 0) | (above < 0))[0]
        self.face_index = VoxelIndex(np.concatenate([face_voxels, self.face_levels[:, None]], axis=1), 4)

        edges, axes, edge_levels = [], [], []
        stacked, stacked_axes, stacked_levels = [], [], []
        for a in range(3):
            u, v = np.eye(3, dtype=np.int64)[(a + 1) % 3], np.eye(3, dtype=np.int64)[(a + 2) % 3]
            for offset in (0 * u, u, v, u + v):
                edges.append(cells + sizes * offset)
                axes.append(np.full(len(cells), a))
                edge_levels.append(levels)
            e = np.eye(3, dtype=np.int64)[a]
            for offset in (0 * e, e):
                stacked.append(cells + sizes * offset)
                stacked_axes.append(np.full(len(cells), a))
                stacked_levels.append(levels)
        keys = np.concatenate([encode_axis(np.concatenate(edges), np.concatenate(axes)),
                               np.concatenate(edge_levels)[:, None]], axis=1)
        keys = np.unique(keys, axis=0)
        self.edge_grid = index_volume(np.unique(keys[:, :3], axis=0), like, device)
        if self.level_count == 1:  # numbered as the edge grid numbers them (Warp's)
            keys = np.concatenate([self.edge_grid.get_voxels().numpy().astype(np.int64),
                                   np.zeros((len(keys), 1), np.int64)], axis=1)
        self.stacked_edge_count = len(keys)
        self.edge_index = VoxelIndex(keys, 4)
        skeys = np.unique(np.concatenate([encode_axis(np.concatenate(stacked), np.concatenate(stacked_axes)),
                                          np.concatenate(stacked_levels)[:, None]], axis=1), axis=0)
        self.stacked_face_count = len(skeys)
        self.stacked_face_index = self.face_index if self.level_count == 1 else VoxelIndex(skeys, 4)
