"""Continuous nodes on a `fem.Nanogrid`, numbered from its vertex, edge and face grids.

Lagrange and serendipity shapes: a node lies on a vertex, an edge, a face or a cell interior (the
coordinates that are strictly between 0 and 1 say which). Nodes are numbered vertices first (vertex
grid order), then edge nodes (edge grid order, so many per edge), face nodes (face grid order), cell
nodes. Within an edge or a cell, nodes run along the global axes (x slowest); within a face, along its
tangent axes a + 1 then a + 2 of its normal a; so the cells sharing an entity agree, and the numbering
is Warp's (checked against warp-lang for degrees 1 to 3 and B-splines 2 and 3). On an AdaptiveNanogrid
edges and faces are each cell's own ("stacked": one per origin, axis and level), so nodes are shared
only between cells of one level. Counts follow Warp's: a rebuildable grid counts its capacities
(8 vertices, 12 edges, 6 faces per cell).

B-splines: the control points of cell `ijk` are the voxels `ijk - PADDING + {0..NODES_PER_DIM-1}^3`
of a padded node grid (the cells dilated by -1..+2 on each axis, as Warp's), numbered in its order.

The element-to-node table is built on the host (cells past the active ones of a rebuildable grid
get -1, as in Warp); `rebuild()` rebuilds it after the geometry was rebuilt."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from ..geometry import nanogrid_topology as gt
from .topology import SpaceTopology


def _node_entities(coords: np.ndarray):
    """Per node: (offset of the origin vertex in the cell (3,), kind 0-3, axis, position key)."""
    coords = np.asarray(coords, np.float64)[:, :3]
    interior = (coords > 1e-6) & (coords < 1 - 1e-6)
    base = np.where(interior, 0, np.rint(coords)).astype(np.int64)
    return base, interior


class NanogridTopology(SpaceTopology):
    """Continuous Lagrange / serendipity nodes on a Nanogrid (see the module's docstring)."""

    @wp.struct
    class TopologyArg:
        element_nodes: wp.array2d(dtype=int)

    def __init__(self, geometry, shape):
        super().__init__(geometry, shape.NODES_PER_ELEMENT)
        self._shape = shape
        self.rebuild()

    def rebuild(self):
        geo, t = self.geometry, self.geometry._topology
        self._vertex_grid, self._edge_grid, self._face_grid = (t.vertex_grid.id, t.edge_grid.id, t.face_grid.id)
        coords = np.asarray(self._shape._node_coords(), np.float64)[:, :3]
        base, interior = _node_entities(coords)
        kinds = interior.sum(axis=1)
        # local rank of each node within its entity, along the global axes (the same in every cell)
        rank = np.zeros(len(coords), np.int64)
        per_entity = {}
        for n in range(len(coords)):
            key = (int(kinds[n]), tuple(base[n]), tuple(interior[n]))
            per_entity.setdefault(key, []).append(n)
        for (kind, _base, inside), nodes in per_entity.items():
            # along the global axes; a face's along its tangents (a + 1, a + 2) of its normal a, as Warp's
            axes = [0, 1, 2]
            if kind == 2:
                a = int(np.argmin(inside))
                axes = [(a + 1) % 3, (a + 2) % 3, a]
            order = sorted(nodes, key=lambda n: tuple(coords[n][axes]))
            for r, n in enumerate(order):
                rank[n] = r
        counts = [max((len(v) for k, v in per_entity.items() if k[0] == kind), default=0) for kind in range(4)]
        cells, levels = t.cells, t.levels[:, None]
        if geo.is_rebuildable:
            cap = geo.cell_count()
            sizes = (8 * cap, 12 * cap, 6 * cap, cap)
        else:  # (an adaptive grid's edges and faces are stacked: each level's own)
            sizes = (len(t.vertices), t.stacked_edge_count, t.stacked_face_count, len(cells))
        starts = np.cumsum([0] + [sizes[k] * counts[k] for k in range(3)])
        table = np.full((geo.cell_count(), len(coords)), -1, np.int64)
        for n in range(len(coords)):
            origin = cells + base[n] * (1 << levels)
            kind = kinds[n]
            if kind == 0:
                index = t.vertex_index(origin)
            elif kind == 1:
                axis = np.full(len(cells), int(np.argmax(interior[n])))
                index = t.edge_index(np.concatenate([gt.encode_axis(origin, axis), levels], axis=1))
            elif kind == 2:
                axis = np.full(len(cells), int(np.argmin(interior[n])))
                index = t.stacked_face_index(np.concatenate([gt.encode_axis(origin, axis), levels], axis=1))
            else:
                index = np.arange(len(cells))
            table[:len(cells), n] = starts[kind] + index * counts[kind] + rank[n]
        self._node_count = int(sum(sizes[k] * counts[k] for k in range(4)))
        self.element_nodes = wp.array(table.astype(np.int32), dtype=int, device=geo.cell_grid.device)

    def node_count(self) -> int:
        return self._node_count

    def topo_arg_value(self, device):
        arg = self.TopologyArg()
        arg.element_nodes = self.element_nodes.to(device)
        return arg

    @wp.func
    def element_node_index(cell_arg: wp.types.Any, topo_arg: wp.types.Any, element_index: int, node: int):
        return topo_arg.element_nodes[element_index, node]


class NanogridBSplineTopology(NanogridTopology):
    """The control points of B-spline shapes on a Nanogrid (see the module's docstring)."""

    def rebuild(self):
        geo, t = self.geometry, self.geometry._topology
        shape = self._shape
        k, pad = shape.NODES_PER_DIM, shape.PADDING
        stencil = np.array([(i, j, m) for i in range(-1, 3) for j in range(-1, 3) for m in range(-1, 3)], np.int64)
        padded = np.unique((t.cells[:, None, :] + stencil[None]).reshape(-1, 3), axis=0)
        grid = gt.index_volume(padded, geo.cell_grid, geo.cell_grid.device)
        if geo.is_rebuildable:  # Warp's padded grid is rebuildable, with 64 nodes per cell reserved
            cap = geo.cell_count()
            grid = wp.Volume.allocate_by_voxels(np.ascontiguousarray(padded, np.int32), device=geo.cell_grid.device,
                                                transform=geo.cell_grid.transform,
                                                translation=tuple(geo.cell_grid.translation), rebuildable=True,
                                                max_active_voxels=64 * cap, max_leaf_nodes=64 * cap,
                                                max_lower_nodes=64 * cap, max_upper_nodes=64 * cap)
        self._padded_node_grid = grid
        index = gt.VoxelIndex(grid.get_voxels().numpy())
        local = np.array([(i, j, m) for i in range(k) for j in range(k) for m in range(k)], np.int64) - pad
        table = np.full((geo.cell_count(), len(local)), -1, np.int64)
        for n, off in enumerate(local):
            table[:len(t.cells), n] = index(t.cells + off)
        self._node_count = 64 * geo.cell_count() if geo.is_rebuildable else len(padded)
        self.element_nodes = wp.array(table.astype(np.int32), dtype=int, device=geo.cell_grid.device)
