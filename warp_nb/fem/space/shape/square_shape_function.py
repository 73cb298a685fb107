"""Shape functions on the unit square: tensor Lagrange (Q_k), serendipity (S_k), non-conforming
polynomial (P_k with interior nodes), and the lowest-order Nedelec (first kind) and Raviart-Thomas
vector bases. Node numbering and node types follow Warp's:

- Q_k: node i * (k + 1) + j sits at (X_i, X_j), X the family's points;
- S_k: the four vertices (index 2 i + j), then for each interior edge point m, the edges in the order
  (x-edge y=0, y-edge x=0, x-edge y=1, y-edge x=1);
- N1 / RT: one node per edge, (y=0, y=1, x=0, x=1).

`node_type_and_type_index(n)` returns (type, instance, index within the instance): VERTEX instance is
the vertex 2 i + j, EDGE_X (an edge along x) instance is its y, EDGE_Y instance its x; INTERIOR has one
instance."""

import numpy as np

import warp_nb as wp

from ...polynomial import Polynomial, is_closed, quadrature_1d
from . import cells
from .polynomial_table import (
    PolynomialTable,
    cube_integrals,
    lagrange_table,
    make_table_functions,
    monomials_up_to,
    node_quadrature_weights,
    poly_const,
    poly_var,
    xyz_from_cube_coords,
)
from .shape_function import ShapeFunction
from .tensor_product import (
    box_side_means,
    make_lagrange_1d,
    make_tensor_functions,
    tensor_node_coords,
    tensor_node_weights,
)


def _node_type_function(types):
    """Device function node -> (type, instance, index) from a host table of triples."""
    flat = [int(v) for t in types for v in t]
    table_t = wp.types.vector(length=len(flat), dtype=wp.int32)
    TABLE = table_t(*flat)

    @wp.func
    def node_type_and_type_index(node_index_in_elt: int):
        b = 3 * node_index_in_elt
        return TABLE[b], TABLE[b + 1], TABLE[b + 2]

    return node_type_and_type_index


class SquareShapeFunction(ShapeFunction):
    """Node types of the square."""

    VERTEX = 0
    EDGE_X = 1
    EDGE_Y = 2
    INTERIOR = 3


def _point_family(degree: int, family):
    if family is None:
        family = Polynomial.LOBATTO_GAUSS_LEGENDRE
    family = Polynomial(family)
    if degree < 1 and is_closed(family):
        raise ValueError(f"degree must be at least 1 for {family.name} points, got {degree}")
    return family


class SquareBipolynomialShapeFunctions(SquareShapeFunction):
    """Q_k: tensor products of degree-k Lagrange polynomials through the family's points."""

    def __init__(self, degree: int, family: Polynomial, scalar_type=wp.float32):
        super().__init__(scalar_type)
        self.family = _point_family(degree, family)
        self.ORDER = int(degree)
        self.ORDER_PLUS_ONE = self.ORDER + 1
        self.NODES_PER_ELEMENT = self.ORDER_PLUS_ONE**2
        self.NODES_PER_SIDE = self.ORDER_PLUS_ONE
        self._points, self._weights = quadrature_1d(self.ORDER_PLUS_ONE, self.family)
        vec_t = wp.types.vector(length=self.ORDER_PLUS_ONE, dtype=scalar_type)
        self.LOBATTO_COORDS = vec_t(*self._points.tolist())
        self.LOBATTO_WEIGHT = vec_t(*self._weights.tolist())
        if is_closed(self.family):
            self.VERTEX_NODE_COUNT, self.EDGE_NODE_COUNT = 1, self.ORDER - 1
            self.INTERIOR_NODE_COUNT = (self.ORDER - 1) ** 2
        else:
            self.VERTEX_NODE_COUNT, self.EDGE_NODE_COUNT = 0, 0
            self.INTERIOR_NODE_COUNT = self.NODES_PER_ELEMENT
        self.node_type_and_type_index = _node_type_function(self._node_types())

    @property
    def name(self) -> str:
        return f"Square_Q{self.ORDER}_{self.family.value}{self._precision_suffix}"

    def _node_types(self):
        n, o = self.ORDER_PLUS_ONE, self.ORDER
        types = []
        for i, j in np.ndindex(n, n):
            if not is_closed(self.family):
                types.append((self.INTERIOR, 0, i * n + j))
                continue
            bi, bj = i in (0, o), j in (0, o)
            if bi and bj:
                types.append((self.VERTEX, 2 * (i // o) + j // o, 0))
            elif bj:
                types.append((self.EDGE_X, j // o, i - 1))
            elif bi:
                types.append((self.EDGE_Y, i // o, j - 1))
            else:
                types.append((self.INTERIOR, 0, (i - 1) * (o - 1) + j - 1))
        return types

    def _node_coords(self):
        return tensor_node_coords(self._points, 2)

    def _node_quadrature_weights(self):
        return tensor_node_weights(self._weights, 2)

    def _trace_node_quadrature_weights(self):
        if not is_closed(self.family):
            return np.zeros(self.NODES_PER_ELEMENT)
        n, o, w = self.ORDER_PLUS_ONE, self.ORDER, self._weights
        # a node on the side x = 0 or 1 weighs its y weight there, and symmetrically (interior nodes, on no
        # side, get their y weight as Warp gives them)
        return np.array([w[i] if j in (0, o) and i not in (0, o) else w[j] for i, j in np.ndindex(n, n)])

    def _make_value_functions(self):
        value_1d, derivative_1d = make_lagrange_1d(self._points)
        return make_tensor_functions(value_1d, derivative_1d, self.ORDER_PLUS_ONE, 2, self.scalar_type)

    def element_node_triangulation(self):
        return cells.grid_triangles(self.ORDER_PLUS_ONE)

    def element_vtk_cells(self):
        if self.ORDER == 1:
            return cells.cells_of(cells.grid_quads(2), cells.VTK_QUAD)
        return cells.cells_of(cells.vtk_lagrange_quad(self.ORDER_PLUS_ONE)[None, :], cells.VTK_LAGRANGE_QUADRILATERAL)


def serendipity_node_weights(degree: int, dimension: int, node_count: int) -> np.ndarray:
    """Nodal weights of serendipity elements: their basis means are negative at the vertices, so (as
    Warp) each vertex weighs (1 / 2k)^d and the edge nodes share the rest evenly (symmetric, hence exact
    on linear functions)."""
    vertex = (0.5 / degree) ** dimension
    vertices = 2**dimension
    return np.array([vertex] * vertices + [(1.0 - vertices * vertex) / (node_count - vertices)] * (node_count - vertices))


def serendipity_exponents(degree: int, dimension: int):
    """Monomials whose superlinear degree (total degree less the variables of exponent 1) is <= degree."""
    return [
        e + (0,) * (3 - dimension)
        for e in np.ndindex(*([degree + 1] * dimension))
        if sum(e) - sum(1 for k in e if k == 1) <= degree
    ]


class SquareSerendipityShapeFunctions(SquareShapeFunction):
    """S_k (k = 2, 3): vertex and edge nodes only, spanning the serendipity space."""

    def __init__(self, degree: int, family: Polynomial, scalar_type=wp.float32):
        if degree not in (2, 3):
            raise ValueError(f"serendipity shape functions are available for degree 2 or 3, got {degree}")
        super().__init__(scalar_type)
        self.family = _point_family(degree, family)
        if not is_closed(self.family):
            raise ValueError(f"serendipity shape functions need a closed point family, got {self.family.name}")
        self.ORDER = int(degree)
        self.ORDER_PLUS_ONE = self.ORDER + 1
        self.NODES_PER_ELEMENT = 4 + 4 * (self.ORDER - 1)
        self.NODES_PER_SIDE = self.ORDER_PLUS_ONE
        self.VERTEX_NODE_COUNT, self.EDGE_NODE_COUNT, self.INTERIOR_NODE_COUNT = 1, self.ORDER - 1, 0
        self._points, self._weights = quadrature_1d(self.ORDER_PLUS_ONE, self.family)
        vec_t = wp.types.vector(length=self.ORDER_PLUS_ONE, dtype=scalar_type)
        self.LOBATTO_COORDS = vec_t(*self._points.tolist())
        self.LOBATTO_WEIGHT = vec_t(*self._weights.tolist())
        types, coords = [], []
        for i, j in np.ndindex(2, 2):
            types.append((self.VERTEX, 2 * i + j, 0))
            coords.append((float(i), float(j), 0.0))
        for m in range(self.ORDER - 1):
            t = float(self._points[m + 1])
            for edge_type, side in ((self.EDGE_X, 0), (self.EDGE_Y, 0), (self.EDGE_X, 1), (self.EDGE_Y, 1)):
                types.append((edge_type, side, m))
                coords.append((t, float(side), 0.0) if edge_type == self.EDGE_X else (float(side), t, 0.0))
        self._coords = np.array(coords)
        self._table = PolynomialTable(
            serendipity_exponents(self.ORDER, 2),
            lagrange_table(serendipity_exponents(self.ORDER, 2), self._coords), 2
        )
        self.node_type_and_type_index = _node_type_function(types)

    @property
    def name(self) -> str:
        return f"Square_S{self.ORDER}_{self.family.value}{self._precision_suffix}"

    def _node_coords(self):
        return self._coords

    def _node_quadrature_weights(self):
        return serendipity_node_weights(self.ORDER, 2, self.NODES_PER_ELEMENT)

    def _trace_node_quadrature_weights(self):
        return box_side_means(lambda p: self._table.evaluate(p)[:, :, 0], self._coords, 2)

    def _make_value_functions(self):
        return make_table_functions(self._table, xyz_from_cube_coords, self.scalar_type)

    def element_node_triangulation(self):
        # the boundary loop (counter-clockwise); cut each corner off, then fan the inner polygon
        def edge(slot, reverse=False):
            nodes = [4 + 4 * m + slot for m in range(self.ORDER - 1)]
            return nodes[::-1] if reverse else nodes

        loop = [0, *edge(0), 2, *edge(3), 3, *edge(2, True), 1, *edge(1, True)]
        corners = {0, 1, 2, 3}
        tris = [[loop[p - 1], v, loop[(p + 1) % len(loop)]] for p, v in enumerate(loop) if v in corners]
        inner = [v for v in loop if v not in corners]
        tris += [[inner[0], inner[i], inner[i + 1]] for i in range(1, len(inner) - 1)]
        return np.array(tris, dtype=np.int32)

    def element_vtk_cells(self):
        return cells.cells_of(self.element_node_triangulation(), cells.VTK_TRIANGLE)


class SquareNonConformingPolynomialShapeFunctions(ShapeFunction):
    """P_k on the square with its nodes on the P_k lattice of the equilateral triangle inscribed in the
    square's inscribed circle, apex up (where Warp places them)."""

    _TRIANGLE = 0.5 + 0.5 * np.array([[np.cos(a), np.sin(a)] for a in np.radians([210.0, 330.0, 90.0])])

    def __init__(self, degree: int, scalar_type=wp.float32):
        if degree < 0:
            raise ValueError(f"degree must be non-negative, got {degree}")
        super().__init__(scalar_type)
        self.ORDER = int(degree)
        from .simplex_shape_function import simplex_lagrange_nodes

        # the triangle's P_k nodes in its own order (vertices, edges, interior), as Warp numbers them
        self._lattice = simplex_lagrange_nodes(self.ORDER, 2)[0] if self.ORDER > 0 else np.full((1, 3), 1.0 / 3.0)
        self._coords = np.array([[*(lam @ self._TRIANGLE), 0.0] for lam in self._lattice])
        self.NODES_PER_ELEMENT = len(self._coords)
        exps = monomials_up_to(self.ORDER, 2)
        self._table = PolynomialTable(exps, lagrange_table(exps, self._coords), 2)

    @property
    def name(self) -> str:
        return f"Square_P{self.ORDER}d{self._precision_suffix}"

    def _node_coords(self):
        return self._coords

    def _node_quadrature_weights(self):
        return node_quadrature_weights(self._table, self._coords, lambda e: cube_integrals(e, 2), "uniform")

    def _trace_node_quadrature_weights(self):
        return np.zeros(self.NODES_PER_ELEMENT)

    def _make_value_functions(self):
        return make_table_functions(self._table, xyz_from_cube_coords, self.scalar_type)

    def element_node_triangulation(self):
        k = self.ORDER
        if k == 0:
            return np.zeros((0, 3), dtype=np.int32)
        index = {(round(l1 * k), round(l2 * k)): n for n, (_, l1, l2) in enumerate(self._lattice)}
        return cells.lattice_triangles(k, lambda i, j: index[(i, j)])

    def element_vtk_cells(self):
        vtk_type = (cells.VTK_VERTEX, cells.VTK_TRIANGLE)[self.ORDER] if self.ORDER < 2 else cells.VTK_LAGRANGE_TRIANGLE
        return cells.single_cell(self.NODES_PER_ELEMENT, vtk_type)


class _SquareEdgeVectorShapeFunctions(SquareShapeFunction):
    """Lowest-order edge-based vector bases: one node per edge, (y=0, y=1, x=0, x=1)."""

    def __init__(self, degree: int, scalar_type=wp.float32):
        if degree != 1:
            raise ValueError(f"only degree 1 is available for {type(self).__name__}, got {degree}")
        super().__init__(scalar_type)
        self.ORDER = 1
        self.NODES_PER_ELEMENT = 4
        self.NODES_PER_SIDE = 1
        self.VERTEX_NODE_COUNT, self.EDGE_NODE_COUNT, self.INTERIOR_NODE_COUNT = 0, 1, 0
        self.node_type_and_type_index = _node_type_function(
            [(self.EDGE_X, 0, 0), (self.EDGE_X, 1, 0), (self.EDGE_Y, 0, 0), (self.EDGE_Y, 1, 0)]
        )
        x, y = poly_var(0), poly_var(1)
        one_minus_x, one_minus_y = poly_var(0, -1.0, 1.0), poly_var(1, -1.0, 1.0)
        zero = poly_const(0.0)
        self._table = PolynomialTable.from_polys(self._polys(x, y, one_minus_x, one_minus_y, zero), 2)

    def _node_coords(self):
        return np.array([[0.5, 0.0, 0.0], [0.5, 1.0, 0.0], [0.0, 0.5, 0.0], [1.0, 0.5, 0.0]])

    def _node_quadrature_weights(self):
        return np.full(4, 0.25)

    def _trace_node_quadrature_weights(self):
        return np.ones(4)

    def _make_value_functions(self):
        return make_table_functions(self._table, xyz_from_cube_coords, self.scalar_type)


class SquareNedelecFirstKindShapeFunctions(_SquareEdgeVectorShapeFunctions):
    """Lowest-order Nedelec (first kind): tangential component 1 on its own edge, 0 on the others."""

    value = ShapeFunction.Value.CovariantVector

    @property
    def name(self) -> str:
        return f"SquareN1_{self.ORDER}{self._precision_suffix}"

    @staticmethod
    def _polys(x, y, one_minus_x, one_minus_y, zero):
        return [[one_minus_y, zero], [y, zero], [zero, one_minus_x], [zero, x]]


class SquareRaviartThomasShapeFunctions(_SquareEdgeVectorShapeFunctions):
    """Lowest-order Raviart-Thomas: normal component 1 on its own edge, 0 on the others."""

    value = ShapeFunction.Value.ContravariantVector

    @property
    def name(self) -> str:
        return f"SquareRT_{self.ORDER}{self._precision_suffix}"

    @staticmethod
    def _polys(x, y, one_minus_x, one_minus_y, zero):
        return [[zero, one_minus_y], [zero, y], [one_minus_x, zero], [x, zero]]
