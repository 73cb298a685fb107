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

    def __init__(self, voxels: np.ndarray):
        self._voxels = np.asarray(voxels, np.int64).reshape(-1, 3)

    def __call__(self, queries: np.ndarray) -> np.ndarray:
        """The index of each query voxel, -1 where it is absent (one sort of both sets: encoded
        coordinates need 22 bits per axis, more than one int64 key holds)."""
        queries = np.asarray(queries, np.int64).reshape(-1, 3)
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


class GridTopology:
    """Vertices, faces and edges of a set of cells (voxel coordinates, in cell order)."""

    def __init__(self, cells: np.ndarray, like, device):
        cells = np.asarray(cells, np.int64).reshape(-1, 3)
        self.cells = cells
        cell_index = VoxelIndex(cells)

        corners = (cells[:, None, :] + _CORNERS[None]).reshape(-1, 3)
        self.vertex_grid = index_volume(np.unique(corners, axis=0), like, device)
        self.vertices = self.vertex_grid.get_voxels().numpy().astype(np.int64)
        self.vertex_index = VoxelIndex(self.vertices)

        # faces: the low face of every cell along each axis, and the high one
        faces, axes = [], []
        for a in range(3):
            e = np.zeros(3, np.int64)
            e[a] = 1
            faces += [cells, cells + e]
            axes += [np.full(len(cells), a), np.full(len(cells), a)]
        encoded = np.unique(encode_axis(np.concatenate(faces), np.concatenate(axes)), axis=0)
        self.face_grid = index_volume(encoded, like, device)
        self.face_ijk, self.face_axis = decode_axis(self.face_grid.get_voxels().numpy())
        e = np.eye(3, dtype=np.int64)[self.face_axis]
        above = cell_index(self.face_ijk)  # the cell whose low face this is
        below = cell_index(self.face_ijk - e)
        self.face_flags = self.face_axis + np.where(below < 0, FACE_INNER_OFFSET, 0) + \
            np.where(above < 0, FACE_OUTER_OFFSET, 0)
        self.face_cells = np.stack([np.where(below < 0, above, below), np.where(above < 0, below, above)], axis=1)
        self.boundary_faces = np.nonzero((below < 0) | (above < 0))[0]
        self.face_index = VoxelIndex(self.face_grid.get_voxels().numpy())

        edges, axes = [], []
        for a in range(3):
            u, v = np.eye(3, dtype=np.int64)[(a + 1) % 3], np.eye(3, dtype=np.int64)[(a + 2) % 3]
            for offset in (0 * u, u, v, u + v):
                edges.append(cells + offset)
                axes.append(np.full(len(cells), a))
        self.edge_grid = index_volume(np.unique(encode_axis(np.concatenate(edges), np.concatenate(axes)), axis=0),
                                      like, device)
        self.edge_index = VoxelIndex(self.edge_grid.get_voxels().numpy())
