"""Continuous nodes of any degree on a mesh, numbered from its cell-to-vertex table.

A node of a cell lies on one of the cell's entities (a vertex, an edge, a face, the cell itself):
those of its vertex weights that are not zero (barycentric coordinates on simplices, the bilinear
or trilinear weights on quads and hexes). Two cells hold the same node exactly when it lies on the
same entity (the same set of global vertices) with the same weight on each of them, whatever
order the cells list the vertices in. So a node's key is its (global vertex, weight) pairs, and
the nodes are numbered by their keys: a node at a vertex takes that vertex's index (degree 1
numbers the mesh's vertices as the mesh does, as in Warp), the others follow. Weights are
compared rounded to 1e-6: nodes of one element are far further apart than that."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from ..geometry.element import Element
from .topology import SpaceTopology

#: the attribute holding the cell-to-vertex table of each mesh kind
_VERTEX_TABLES = ("tri_vertex_indices", "quad_vertex_indices", "tet_vertex_indices", "hex_vertex_indices")


#: the reference corners of a hex's local vertices, in Hexmesh's (Warp's) order
_HEX_CORNERS = ((0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1))


def _vertex_weights(element: Element, coords: np.ndarray) -> np.ndarray:
    """(nodes, vertices) weights of each node (reference coordinates) on the cell's vertices."""
    u, v, w = coords[:, 0], coords[:, 1], coords[:, 2]
    if element == Element.TRIANGLE:
        return coords[:, :3].copy()
    if element == Element.TETRAHEDRON:
        return np.stack([1.0 - u - v - w, u, v, w], axis=1)
    if element == Element.SQUARE:  # vertices (0,0), (1,0), (1,1), (0,1)
        return np.stack([(1 - u) * (1 - v), u * (1 - v), u * v, (1 - u) * v], axis=1)
    if element == Element.CUBE:  # Hexmesh's vertex order (bottom square counter-clockwise, then the top)
        return np.stack([(u if i else 1 - u) * (v if j else 1 - v) * (w if k else 1 - w)
                         for i, j, k in _HEX_CORNERS], axis=1)
    raise NotImplementedError(f"continuous spaces of degree > 1 on {element.name} meshes are not supported by "
                              "warp_nb.fem yet")


def vertex_table(geometry):
    """The geometry's cell-to-vertex table (a warp array), or one made for a grid, or None."""
    geometry = geometry.base  # a deformed geometry's topology is its base's
    for name in _VERTEX_TABLES:
        table = getattr(geometry, name, None)
        if table is not None:
            return table
    if hasattr(geometry, "res"):
        return grid_vertex_table(tuple(int(r) for r in geometry.res))
    if hasattr(geometry, "cell_vertex_table"):  # a Nanogrid
        return geometry.cell_vertex_table()
    return None


def grid_vertex_table(res: tuple):
    """A grid's cells' vertices in the order _vertex_weights gives the square (2-D) and cube (3-D: a hex's),
    numbered as the grid numbers its vertices (x slowest, the last axis fastest)."""
    if len(res) == 2:
        nx, ny = res
        x, y = np.meshgrid(np.arange(nx), np.arange(ny), indexing="ij")
        v = lambda i, j: (x + i) * (ny + 1) + (y + j)
        table = np.stack([v(0, 0), v(1, 0), v(1, 1), v(0, 1)], axis=-1).reshape(-1, 4)
    else:
        nx, ny, nz = res
        x, y, z = np.meshgrid(np.arange(nx), np.arange(ny), np.arange(nz), indexing="ij")
        table = np.stack([((x + i) * (ny + 1) + (y + j)) * (nz + 1) + (z + k)
                          for i, j, k in _HEX_CORNERS], axis=-1).reshape(-1, 8)
    return wp.array(table.astype(np.int32), dtype=int)


class MeshEntityTopology(SpaceTopology):
    """Continuous nodes of `shape` on a mesh geometry (see the module's docstring)."""

    @wp.struct
    class TopologyArg:
        element_nodes: wp.array2d(dtype=int)

    def __init__(self, geometry, shape):
        super().__init__(geometry, shape.NODES_PER_ELEMENT)
        cells = vertex_table(geometry).numpy()
        vertex_count = geometry.vertex_count()
        weights = _vertex_weights(Element(geometry.reference_cell()), np.asarray(shape._node_coords(), np.float64))
        weights = np.where(np.abs(weights) < 1e-9, 0.0, weights)
        n_cells, npe, nv = cells.shape[0], weights.shape[0], weights.shape[1]
        # per (cell, node): its (global vertex, rounded weight) pairs sorted by vertex, absent ones last
        gids = np.broadcast_to(cells[:, None, :], (n_cells, npe, nv)).astype(np.int64)
        wts = np.broadcast_to(np.rint(weights * 1e6).astype(np.int64)[None], (n_cells, npe, nv))
        gids = np.where(wts != 0, gids, np.iinfo(np.int64).max)
        order = np.argsort(gids, axis=2, kind="stable")
        gids = np.take_along_axis(gids, order, axis=2).reshape(-1, nv)
        wts = np.take_along_axis(wts, order, axis=2).reshape(-1, nv)
        keys = np.concatenate([gids, wts], axis=1)
        unique, inverse = np.unique(keys, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
        at_vertex = (unique[:, 1] == np.iinfo(np.int64).max) | (nv == 1)
        ids = np.empty(len(unique), dtype=np.int64)
        ids[at_vertex] = unique[at_vertex, 0]
        others = np.nonzero(~at_vertex)[0]
        ids[others] = vertex_count + np.arange(len(others))
        self._node_count = vertex_count + len(others)
        self.element_nodes = wp.array(ids[inverse].reshape(n_cells, npe).astype(np.int32), dtype=int,
                                      device=vertex_table(geometry).device)

    def node_count(self) -> int:
        return self._node_count

    def topo_arg_value(self, device):
        arg = self.TopologyArg()
        arg.element_nodes = self.element_nodes.to(device)
        return arg

    @wp.func
    def element_node_index(cell_arg: wp.types.Any, topo_arg: wp.types.Any, element_index: int, node: int):
        return topo_arg.element_nodes[element_index, node]
