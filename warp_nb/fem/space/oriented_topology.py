"""Nodes of edge (Nedelec) and side (Raviart-Thomas) vector bases, with the sign that makes
neighbouring cells agree on each node's direction.

A node of such a basis stands for a direction along one entity of the mesh: the tangent of an
edge (the basis function's circulation along it is 1) or the normal of a side (its flux through it
is 1). Two cells sharing the entity see it from their own reference elements, whose directions may
disagree; the node's global direction is fixed once, and each (cell, node) gets the sign (+1 or -1)
that turns the cell's basis function into the global one. The global directions are Warp's (as its
spaces show, probed): on grids, the positive axis; on meshes, a side's normal points out of its
inner cell (and in 2-D an edge's tangent is that normal turned a quarter counter-clockwise, the
order the geometry stores the edge's vertices in); a 3-D edge runs from its lower global vertex to
its higher one.

Host side only: the tables are built with numpy from the cell-to-vertex table (mesh_topology.py),
the geometry's side tables and the reference basis evaluated at its nodes."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from ..geometry.element import Element
from .mesh_topology import _HEX_CORNERS, _vertex_weights, vertex_table
from .topology import SpaceTopology

#: reference (x, y, z) of each element's local vertices, in the order _vertex_weights uses
_REFERENCE_VERTICES = {
    Element.TRIANGLE: np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
    Element.SQUARE: np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 0.0]]),
    Element.TETRAHEDRON: np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
    Element.CUBE: np.array(_HEX_CORNERS, dtype=np.float64),
}

#: (side vertices, side cells) attribute names of each mesh kind
_SIDE_TABLES = (("edge_vertex_indices", "edge_tri_indices"), ("edge_vertex_indices", "edge_quad_indices"),
                ("face_vertex_indices", "face_tet_indices"), ("face_vertex_indices", "face_hex_indices"))


class ReferenceEntities:
    """Per node of a vector shape: its entity's local vertices and the reference dual vector D_k,
    the edge vector (Nedelec) or the side's area-weighted normal (Raviart-Thomas) oriented like the
    node's basis function, so that basis_j(x_k) . D_k = delta_jk. For Nedelec, (`start`, `end`)
    are the local vertices the basis runs from and to; for Raviart-Thomas, `outward` says whether
    the basis leaves the reference cell through its side."""

    def __init__(self, element: Element, shape):
        d = 2 if element in (Element.TRIANGLE, Element.SQUARE) else 3
        coords = np.asarray(shape._node_coords(), np.float64).reshape(-1, 3)
        xyz = np.stack([coords[:, 1], coords[:, 2], np.zeros(len(coords))], 1) if element == Element.TRIANGLE \
            else coords
        weights = _vertex_weights(element, coords)
        values = shape._table.evaluate(xyz)[:, :, :d]  # [point, node, component]
        X = _REFERENCE_VERTICES[element][:, :d]
        curl = shape.value == type(shape).Value.CovariantVector
        self.vertices, self.start, self.end, self.outward, dual = [], [], [], [], []
        centre = X.mean(axis=0)
        for k in range(len(coords)):
            local = [int(v) for v in np.nonzero(np.abs(weights[k]) > 1e-9)[0]]
            self.vertices.append(local)
            own = values[k, k]
            if curl:
                a, b = local
                if np.dot(own, X[b] - X[a]) < 0:
                    a, b = b, a
                self.start.append(a)
                self.end.append(b)
                dual.append(X[b] - X[a])
            else:
                normal = _side_normal(X[local])
                if np.dot(own, normal) < 0:
                    normal = -normal
                self.outward.append(bool(np.dot(normal, xyz[k, :d] - centre) > 0))
                dual.append(normal)
        self.dual = np.array(dual)
        check = np.einsum("jkc,kc->kj", values.transpose(1, 0, 2), self.dual)
        if not np.allclose(check, np.eye(len(coords)), atol=1e-9):
            raise AssertionError(f"{shape.name}: its nodes' dual vectors are not dual to its basis")


def _side_normal(points: np.ndarray) -> np.ndarray:
    """The normal of a reference side scaled by its measure (its orientation is fixed by the caller)."""
    if len(points) == 2:
        e = points[1] - points[0]
        return np.array([e[1], -e[0]])
    if len(points) == 3:
        return 0.5 * np.cross(points[1] - points[0], points[2] - points[0])
    # a quadrilateral face: half the cross product of its diagonals (the farthest vertex from the first)
    far = int(np.argmax(np.linalg.norm(points - points[0], axis=1)))
    others = [i for i in range(1, 4) if i != far]
    return 0.5 * np.cross(points[far] - points[0], points[others[1]] - points[others[0]])


def _side_index(side_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The row of `side_keys` equal to each row of `keys` (sorted vertex tuples)."""
    unique, inverse = np.unique(np.concatenate([side_keys, keys]), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    row = np.full(len(unique), -1, dtype=np.int64)
    row[inverse[:len(side_keys)]] = np.arange(len(side_keys))
    found = row[inverse[len(side_keys):]]
    if (found < 0).any():
        raise ValueError("a cell's side is missing from the geometry's side table")
    return found


def _cell_orientation(element: Element, cells: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Sign of each cell's Jacobian determinant (at its first vertex)."""
    if element in (Element.TRIANGLE, Element.SQUARE):
        last = 2 if element == Element.TRIANGLE else 3
        a, b = positions[cells[:, 1]] - positions[cells[:, 0]], positions[cells[:, last]] - positions[cells[:, 0]]
        det = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
    else:
        ids = (1, 2, 3) if element == Element.TETRAHEDRON else (1, 3, 4)
        m = np.stack([positions[cells[:, i]] - positions[cells[:, 0]] for i in ids], axis=2)
        det = np.linalg.det(m)
    return np.where(det < 0, -1.0, 1.0)


class OrientedEntityTopology(SpaceTopology):
    """One node per edge (Nedelec) or side (Raviart-Thomas) of a mesh or grid, and the sign of each
    cell's basis function relative to the node's global direction (see the module's docstring)."""

    @wp.struct
    class TopologyArg:
        element_nodes: wp.array2d(dtype=int)
        element_signs: wp.array2d(dtype=float)

    def __init__(self, geometry, shape):
        super().__init__(geometry, shape.NODES_PER_ELEMENT)
        element = Element(geometry.reference_cell())
        self.reference = ref = ReferenceEntities(element, shape)
        base = geometry.base
        table = vertex_table(geometry)
        cells = table.numpy().astype(np.int64)
        curl = shape.value == type(shape).Value.CovariantVector
        n_cells, npe = cells.shape[0], shape.NODES_PER_ELEMENT
        keys = np.sort(cells[:, np.array(ref.vertices)], axis=2).reshape(n_cells * npe, -1)
        signs = np.ones((n_cells, npe))
        sides = self._side_tables(base)
        if sides is not None and not (curl and len(ref.vertices[0]) == 2 and element in (Element.TETRAHEDRON,
                                                                                          Element.CUBE)):
            # nodes on the geometry's sides: numbered as its sides, oriented by them
            side_vertices, side_cells = sides
            ids = _side_index(np.sort(side_vertices, axis=1), keys).reshape(n_cells, npe)
            self._node_count = len(side_vertices)
            inner = side_cells[ids, 0] == np.arange(n_cells)[:, None]
            if curl:  # 2-D edges: the geometry's vertex order along the edge
                first = side_vertices[ids, 0]
                starts = cells[:, ref.start]
                signs = np.where(starts == first, 1.0, -1.0)
            else:
                orientation = _cell_orientation(element, cells, base.positions.numpy().astype(np.float64))
                outward = np.where(np.array(ref.outward), 1.0, -1.0)
                signs = orientation[:, None] * outward[None, :] * np.where(inner, 1.0, -1.0)
        else:
            unique, inverse = np.unique(keys, axis=0, return_inverse=True)
            ids = inverse.reshape(n_cells, npe)
            self._node_count = len(unique)
            if curl and sides is not None:  # 3-D edges: from the lower global vertex to the higher
                signs = np.where(cells[:, ref.start] < cells[:, ref.end], 1.0, -1.0)
            # grids: every reference direction is the positive axis already
        device = table.device
        self.element_nodes = wp.array(ids.astype(np.int32), dtype=int, device=device)
        self.element_signs = wp.array(signs.astype(np.float32), dtype=float, device=device)

    @staticmethod
    def _side_tables(base):
        if hasattr(base, "res") or hasattr(base, "cell_grid"):  # grids and Nanogrids: axis-aligned cells
            return None
        for vertices, cells in _SIDE_TABLES:
            if hasattr(base, vertices) and hasattr(base, cells):
                return getattr(base, vertices).numpy().astype(np.int64), getattr(base, cells).numpy().astype(np.int64)
        raise NotImplementedError(f"Nedelec and Raviart-Thomas spaces on {type(base).__name__} are not supported by "
                                  "warp_nb.fem yet (grids, triangle, quad, tet and hex meshes are)")

    def node_count(self) -> int:
        return self._node_count

    def topo_arg_value(self, device):
        arg = self.TopologyArg()
        arg.element_nodes = self.element_nodes.to(device)
        arg.element_signs = self.element_signs.to(device)
        return arg

    @wp.func
    def element_node_index(cell_arg: wp.types.Any, topo_arg: wp.types.Any, element_index: int, node: int):
        return topo_arg.element_nodes[element_index, node]

    @wp.func
    def element_node_sign(topo_arg: wp.types.Any, element_index: int, node: int):
        return topo_arg.element_signs[element_index, node]
