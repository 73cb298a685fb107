"""Shape functions on the unit triangle and tetrahedron: Lagrange P_k on the equispaced lattice,
non-conforming P_k (all nodes inside), and the lowest-order Nedelec (first kind, Whitney edge forms)
and Raviart-Thomas bases. Triangle coordinates are barycentric (1 - x - y, x, y), tetrahedron ones
Cartesian (x, y, z); gradients are taken in (x, y[, z]).

Node order follows Warp's: vertices, then each edge's nodes from its first vertex (triangle edges
(0,1), (1,2), (2,0); tetrahedron edges also (0,3), (1,3), (2,3)), then the faces' interior nodes
(faces opposite vertex 3, 0, 1, 2), then the interior. `node_type_and_type_index(n)` returns (type,
index among the nodes of that type)."""

import numpy as np

import warp_nb as wp

from ...polynomial import Polynomial, quadrature_1d
from . import cells
from .polynomial_table import (
    PolynomialTable,
    lagrange_table,
    make_table_functions,
    monomials_up_to,
    node_quadrature_weights,
    poly_add,
    poly_const,
    poly_scale,
    poly_var,
    simplex_integrals,
    xyz_from_cube_coords,
    xyz_from_triangle_coords,
)
from .shape_function import ShapeFunction

TRIANGLE_EDGES = [(0, 1), (1, 2), (2, 0)]
TETRAHEDRON_EDGES = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)]
TETRAHEDRON_FACES = [(0, 1, 2), (1, 2, 3), (0, 2, 3), (0, 1, 3)]
"""Faces opposite vertex 3, 0, 1, 2."""


def _pair_type_function(types):
    """Device function node -> (type, index within type) from a host table of pairs."""
    flat = [int(v) for t in types for v in t]
    table_t = wp.types.vector(length=len(flat), dtype=wp.int32)
    TABLE = table_t(*flat)

    @wp.func
    def node_type_and_type_index(node_index_in_elt: int):
        return TABLE[2 * node_index_in_elt], TABLE[2 * node_index_in_elt + 1]

    return node_type_and_type_index


def _interior_lattice(degree: int, count: int):
    """Integer barycentric points (count entries, each >= 1) summing to degree; first-but-one fastest."""
    pts = []
    for idx in np.ndindex(*([degree] * (count - 1))):
        rest = tuple(reversed(idx))
        rest = tuple(k + 1 for k in rest)
        first = degree - sum(rest)
        if first >= 1:
            pts.append((first, *rest))
    return pts


def simplex_lagrange_nodes(degree: int, dimension: int):
    """Barycentric nodes (dimension + 1 entries) and (type, type index) of P_k, in Warp's order."""
    nv = dimension + 1
    edges = TRIANGLE_EDGES if dimension == 2 else TETRAHEDRON_EDGES
    nodes, types = [], []

    def bary(entries):
        b = np.zeros(nv)
        for v, k in entries:
            b[v] += k / degree
        return b

    for v in range(nv):
        nodes.append(bary([(v, degree)]))
        types.append((0, v))
    for e, (a, b) in enumerate(edges):
        for m in range(1, degree):
            nodes.append(bary([(a, degree - m), (b, m)]))
            types.append((1, e * (degree - 1) + m - 1))
    if dimension == 3:
        face_pts = _interior_lattice(degree, 3)
        for f, verts in enumerate(TETRAHEDRON_FACES):
            for i, p in enumerate(face_pts):
                nodes.append(bary(list(zip(verts, p))))
                types.append((2, f * len(face_pts) + i))
    interior = _interior_lattice(degree, nv)
    for i, p in enumerate(interior):
        nodes.append(bary(list(zip(range(nv), p))))
        types.append((dimension, i))
    return np.array(nodes), types


def _bary_to_xyz(bary):
    """Full barycentric (l0, l1, ...) -> reference (x, y, z) = (l1, l2, l3)."""
    b = np.asarray(bary).reshape(len(bary), -1)
    xyz = np.zeros((len(b), 3))
    xyz[:, : b.shape[1] - 1] = b[:, 1:]
    return xyz


def simplex_side_means(evaluate, node_bary, dimension: int, tol: float = 1e-9) -> np.ndarray:
    """Per node, the mean of its scalar basis over the first side (some barycentric = 0) it lies on."""
    from ...geometry.element import Triangle

    if dimension == 2:
        t, w = quadrature_1d(8, Polynomial.GAUSS_LEGENDRE)
        side_bary, side_w = np.stack([1.0 - t, t], axis=1), w
    else:
        pts, w = Triangle.instantiate_quadrature(14, Polynomial.GAUSS_LEGENDRE)
        side_bary, side_w = np.array(pts), np.array(w)
    out = np.zeros(len(node_bary))
    for n, b in enumerate(node_bary):
        for k in range(dimension + 1):
            if abs(b[k]) < tol:
                verts = [v for v in range(dimension + 1) if v != k]
                full = np.zeros((len(side_bary), dimension + 1))
                full[:, verts] = side_bary
                out[n] = np.dot(side_w, evaluate(_bary_to_xyz(full))[:, n])
                break
    return out


def simplex_vtk_type(degree: int, dimension: int) -> int:
    if degree == 0:
        return cells.VTK_VERTEX
    if dimension == 2:
        return cells.VTK_TRIANGLE if degree == 1 else cells.VTK_LAGRANGE_TRIANGLE
    return cells.VTK_TETRA if degree == 1 else cells.VTK_LAGRANGE_TETRAHEDRON


def simplex_node_tets(degree: int) -> np.ndarray:
    """Sub-tetrahedra of a P1 or P2 tetrahedron's nodes (Warp has none past P2 either)."""
    if degree == 1:
        return np.array([[0, 1, 2, 3]], dtype=np.int32)
    if degree == 2:
        return cells.p2_tetrahedra(list(range(10)))
    raise NotImplementedError(f"sub-tetrahedra are available for degree 1 and 2, not {degree}")


class _SimplexShapeFunction(ShapeFunction):
    DIMENSION = 2

    def element_vtk_cells(self):
        """One VTK (Lagrange) simplex: the nodes already come in VTK's order up to degree 3."""
        return cells.single_cell(self.NODES_PER_ELEMENT, simplex_vtk_type(self.ORDER, self.DIMENSION))

    def _lattice_index(self):
        """Node of each integer lattice point (k x, k y[, k z]) of the unshrunk P_k lattice."""
        k = self.ORDER
        return {tuple(round(v * k) for v in b[1:]): n for n, b in enumerate(self._lattice_bary)}

    def element_node_triangulation(self):
        if self.DIMENSION != 2 or self.ORDER == 0:
            raise NotImplementedError("node triangulations are available for triangle bases of degree >= 1")
        index = self._lattice_index()
        return cells.lattice_triangles(self.ORDER, lambda i, j: index[(i, j)])

    def element_node_tets(self):
        if self.DIMENSION != 3:
            raise NotImplementedError("sub-tetrahedra are available for tetrahedron bases")
        return simplex_node_tets(self.ORDER)

    @property
    def _element_name(self):
        return "Tri" if self.DIMENSION == 2 else "Tet"

    def _to_xyz(self):
        return xyz_from_triangle_coords if self.DIMENSION == 2 else xyz_from_cube_coords

    def _coords_from_bary(self, bary):
        """Element coordinates: barycentric on the triangle, Cartesian on the tetrahedron."""
        bary = np.asarray(bary)
        return bary if self.DIMENSION == 2 else _bary_to_xyz(bary)


class _SimplexPolynomialShapeFunctions(_SimplexShapeFunction):
    """Lagrange P_k on the equispaced lattice of the simplex."""

    def __init__(self, degree: int, scalar_type=wp.float32):
        if degree < 1:
            raise ValueError(f"degree must be at least 1, got {degree}")
        super().__init__(scalar_type)
        d, k = self.DIMENSION, int(degree)
        self.ORDER = k
        self._bary, types = simplex_lagrange_nodes(k, d)
        self._lattice_bary = self._bary
        self.NODES_PER_ELEMENT = len(self._bary)
        self.NODES_PER_SIDE = len(simplex_lagrange_nodes(k, d - 1)[0]) if d == 3 else k + 1
        self.VERTEX_NODE_COUNT = 1
        self.EDGE_NODE_COUNT = k - 1
        if d == 3:
            self.FACE_NODE_COUNT = max(0, (k - 1) * (k - 2) // 2)
            self.INTERIOR_NODE_COUNT = max(0, (k - 1) * (k - 2) * (k - 3) // 6)
        else:
            self.INTERIOR_NODE_COUNT = max(0, (k - 1) * (k - 2) // 2)
        exps = monomials_up_to(k, d)
        self._table = PolynomialTable(exps, lagrange_table(exps, _bary_to_xyz(self._bary)), d)
        self.node_type_and_type_index = _pair_type_function(types)

    @property
    def name(self) -> str:
        return f"{self._element_name}_P{self.ORDER}{self._precision_suffix}"

    def _node_coords(self):
        return self._coords_from_bary(self._bary)

    def _node_quadrature_weights(self):
        return node_quadrature_weights(
            self._table, _bary_to_xyz(self._bary), lambda e: simplex_integrals(e, self.DIMENSION)
        )

    def _trace_node_quadrature_weights(self):
        if self.DIMENSION == 2:  # edges: the means of the 1-D Lagrange basis (closed Newton-Cotes weights)
            return simplex_side_means(lambda p: self._table.evaluate(p)[:, :, 0], self._bary, 2)
        # faces carry the triangle P_k element: its (positive) nodal weights, matched up to symmetry
        face = TrianglePolynomialShapeFunctions(self.ORDER)
        keys = [tuple(np.round(sorted(b), 9)) for b in face._bary]
        face_w = face._node_quadrature_weights()
        out = np.zeros(self.NODES_PER_ELEMENT)
        for n, b in enumerate(self._bary):
            zero = np.flatnonzero(np.abs(b) < 1e-12)
            if len(zero):
                out[n] = face_w[keys.index(tuple(np.round(sorted(np.delete(b, zero[0])), 9)))]
        return out

    def _make_value_functions(self):
        return make_table_functions(self._table, self._to_xyz(), self.scalar_type)


_NONCONFORMING_SHRINK = {
    2: {1: 0.5, 2: 0.6686157226562501, 3: 0.7644165039062503},
    3: {1: 1.0 / np.sqrt(5.0), 2: 0.6123779416, 3: 0.7153564392},
}
"""Per dimension and degree, how far towards the centroid Warp shrinks the P_k lattice of its
non-conforming simplex bases (the nodes' basis means are then all positive)."""


class _SimplexNonConformingPolynomialShapeFunctions(_SimplexShapeFunction):
    """P_k with every node inside: the P_k lattice shrunk towards the centroid by the factors Warp uses
    (for which the nodes' basis means are all positive); 0.5 past the degrees Warp has."""


    def __init__(self, degree: int, scalar_type=wp.float32):
        if degree < 0:
            raise ValueError(f"degree must be non-negative, got {degree}")
        super().__init__(scalar_type)
        d, k = self.DIMENSION, int(degree)
        self.ORDER = k
        centroid = np.full(d + 1, 1.0 / (d + 1))
        lattice = simplex_lagrange_nodes(k, d)[0] if k > 0 else centroid[None, :]
        self._lattice_bary = lattice
        self._bary = centroid + _NONCONFORMING_SHRINK[d].get(k, 0.5) * (lattice - centroid)
        self.NODES_PER_ELEMENT = len(self._bary)
        exps = monomials_up_to(k, d)
        self._table = PolynomialTable(exps, lagrange_table(exps, _bary_to_xyz(self._bary)), d)

    @property
    def name(self) -> str:
        return f"{self._element_name}_dP{self.ORDER}{self._precision_suffix}"

    def _node_coords(self):
        return self._coords_from_bary(self._bary)

    def _node_quadrature_weights(self):
        return node_quadrature_weights(
            self._table, _bary_to_xyz(self._bary), lambda e: simplex_integrals(e, self.DIMENSION), "uniform"
        )

    def _trace_node_quadrature_weights(self):
        return np.zeros(self.NODES_PER_ELEMENT)

    def _make_value_functions(self):
        return make_table_functions(self._table, self._to_xyz(), self.scalar_type)


def _barycentric_polys(dimension: int):
    """lambda_0 = 1 - sum(x), lambda_i = x_{i-1}, and their (constant) gradients."""
    lam = [poly_add(poly_const(1.0), *[poly_var(a, -1.0) for a in range(dimension)])]
    lam += [poly_var(a) for a in range(dimension)]
    grads = [np.full(dimension, -1.0)] + [np.eye(dimension)[a] for a in range(dimension)]
    return lam, grads


class _SimplexVectorShapeFunctions(_SimplexShapeFunction):
    """Lowest-order vector bases: one node per edge (Nedelec) or per side (Raviart-Thomas)."""

    def __init__(self, degree: int, scalar_type=wp.float32):
        if degree != 1:
            raise ValueError(f"only degree 1 is available for {type(self).__name__}, got {degree}")
        super().__init__(scalar_type)
        self.ORDER = 1
        d = self.DIMENSION
        polys, self._bary, types = self._build(d)
        self.NODES_PER_ELEMENT = len(polys)
        self._table = PolynomialTable.from_polys(polys, d)
        self.node_type_and_type_index = _pair_type_function(types)

    def _node_coords(self):
        return self._coords_from_bary(self._bary)

    def _node_quadrature_weights(self):
        return np.full(self.NODES_PER_ELEMENT, 1.0 / self.NODES_PER_ELEMENT)

    def _trace_node_quadrature_weights(self):
        return np.full(self.NODES_PER_ELEMENT, 1.0 / self.NODES_PER_SIDE)

    def _make_value_functions(self):
        return make_table_functions(self._table, self._to_xyz(), self.scalar_type)


class _SimplexNedelecFirstKindShapeFunctions(_SimplexVectorShapeFunctions):
    """Whitney edge forms lambda_a grad(lambda_b) - lambda_b grad(lambda_a), edge (a, b)."""

    value = ShapeFunction.Value.CovariantVector

    def _build(self, d):
        lam, grads = _barycentric_polys(d)
        edges = TRIANGLE_EDGES if d == 2 else TETRAHEDRON_EDGES
        self.NODES_PER_SIDE = 1 if d == 2 else 3
        self.VERTEX_NODE_COUNT, self.EDGE_NODE_COUNT, self.INTERIOR_NODE_COUNT = 0, 1, 0
        if d == 3:
            self.FACE_NODE_COUNT = 0
        polys, bary = [], []
        for a, b in edges:
            polys.append([poly_add(poly_scale(lam[a], grads[b][c]), poly_scale(lam[b], -grads[a][c])) for c in range(d)])
            mid = np.zeros(d + 1)
            mid[[a, b]] = 0.5
            bary.append(mid)
        return polys, np.array(bary), [(1, e) for e in range(len(edges))]

    @property
    def name(self) -> str:
        return f"{self._element_name}N1_{self.ORDER}{self._precision_suffix}"


class _SimplexRaviartThomasShapeFunctions(_SimplexVectorShapeFunctions):
    """(x - v) scaled by the dimension's factor, v the vertex opposite the node's side."""

    value = ShapeFunction.Value.ContravariantVector

    def _build(self, d):
        sides = TRIANGLE_EDGES if d == 2 else TETRAHEDRON_FACES
        self.NODES_PER_SIDE = 1
        self.VERTEX_NODE_COUNT, self.INTERIOR_NODE_COUNT = 0, 0
        if d == 3:
            self.EDGE_NODE_COUNT, self.FACE_NODE_COUNT = 0, 1
        else:
            self.EDGE_NODE_COUNT = 1
        scale = float(d - 1)  # unit normal flux over the reference side (Warp's scaling)
        vertices = np.vstack([np.zeros(d), np.eye(d)])
        polys, bary = [], []
        for side in sides:
            opposite = next(v for v in range(d + 1) if v not in side)
            polys.append([poly_add(poly_var(c, scale), poly_const(-scale * vertices[opposite][c])) for c in range(d)])
            centre = np.zeros(d + 1)
            centre[list(side)] = 1.0 / len(side)
            bary.append(centre)
        return polys, np.array(bary), [(d - 1, s) for s in range(len(sides))]

    @property
    def name(self) -> str:
        return f"{self._element_name}RT_{self.ORDER}{self._precision_suffix}"


class TriangleShapeFunction(_SimplexShapeFunction):
    """Node types of the triangle."""

    VERTEX = 0
    EDGE = 1
    INTERIOR = 2
    DIMENSION = 2


class TetrahedronShapeFunction(_SimplexShapeFunction):
    """Node types of the tetrahedron."""

    VERTEX = 0
    EDGE = 1
    FACE = 2
    INTERIOR = 3
    DIMENSION = 3


class TrianglePolynomialShapeFunctions(TriangleShapeFunction, _SimplexPolynomialShapeFunctions):
    def __init__(self, degree: int, scalar_type=wp.float32):
        _SimplexPolynomialShapeFunctions.__init__(self, degree, scalar_type)
        self.NODE_TRIANGLE_COORDS = wp.types.matrix(shape=(self.NODES_PER_ELEMENT, 2), dtype=wp.int32)(
            *[round(v * self.ORDER) for b in self._bary for v in b[1:]]
        )


class TriangleNonConformingPolynomialShapeFunctions(_SimplexNonConformingPolynomialShapeFunctions):
    DIMENSION = 2


class TriangleNedelecFirstKindShapeFunctions(TriangleShapeFunction, _SimplexNedelecFirstKindShapeFunctions):
    pass


class TriangleRaviartThomasShapeFunctions(TriangleShapeFunction, _SimplexRaviartThomasShapeFunctions):
    pass


class TetrahedronPolynomialShapeFunctions(TetrahedronShapeFunction, _SimplexPolynomialShapeFunctions):
    def __init__(self, degree: int, scalar_type=wp.float32):
        _SimplexPolynomialShapeFunctions.__init__(self, degree, scalar_type)
        self.NODE_TET_COORDS = wp.types.matrix(shape=(self.NODES_PER_ELEMENT, 3), dtype=wp.int32)(
            *[round(v * self.ORDER) for b in self._bary for v in b[1:]]
        )


class TetrahedronNonConformingPolynomialShapeFunctions(_SimplexNonConformingPolynomialShapeFunctions):
    DIMENSION = 3


class TetrahedronNedelecFirstKindShapeFunctions(TetrahedronShapeFunction, _SimplexNedelecFirstKindShapeFunctions):
    pass


class TetrahedronRaviartThomasShapeFunctions(TetrahedronShapeFunction, _SimplexRaviartThomasShapeFunctions):
    pass
