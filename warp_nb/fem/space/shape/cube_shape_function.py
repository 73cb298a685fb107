"""Shape functions on the unit cube: tensor Lagrange (Q_k), serendipity (S_k), non-conforming P_k
(all nodes inside), and the lowest-order Nedelec (first kind) and Raviart-Thomas bases. Node numbering
and types follow Warp's:

- Q_k: node i (k+1)^2 + j (k+1) + l sits at (X_i, X_j, X_l);
- S_k: the eight vertices (4 i + 2 j + l), then for each interior edge point m, the twelve edges in the
  order (instance 0: axes x, y, z; instance 1: axes x, y, z; ...);
- N1: one node per edge (axis-major); RT: one node per face (x=0, x=1, y=0, y=1, z=0, z=1).

`node_type_and_type_index(n)` returns (type, instance, index in instance). An edge along axis a is
instance 4 a + 2 c[(a+1)%3] + c[(a+2)%3], c its fixed coordinates; a face normal to axis a is instance
2 a + c[a], its nodes indexed (u - 1)(k - 1) + (v - 1) along axes (a+1)%3, (a+2)%3."""

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
    poly_mul,
    poly_var,
    xyz_from_cube_coords,
)
from .shape_function import ShapeFunction
from .simplex_shape_function import simplex_lagrange_nodes, simplex_node_tets, simplex_vtk_type
from .square_shape_function import (
    SquareSerendipityShapeFunctions,
    _node_type_function,
    _point_family,
    serendipity_exponents,
    serendipity_node_weights,
)
from .tensor_product import (
    make_lagrange_1d,
    make_tensor_functions,
    tensor_node_coords,
    tensor_node_weights,
)


class CubeShapeFunction(ShapeFunction):
    """Node types of the cube."""

    VERTEX = 0
    EDGE = 1
    FACE = 2
    INTERIOR = 3


def _edge_instance(axis: int, fixed) -> int:
    """Instance of the edge along `axis` whose other coordinates are `fixed` (0 or 1 per axis)."""
    return 4 * axis + 2 * fixed[(axis + 1) % 3] + fixed[(axis + 2) % 3]


def _cube_node_type(idx, order: int):
    """(type, instance, index) of tensor node idx = (i, j, l) of a closed family of degree `order`."""
    on_side = [k in (0, order) for k in idx]
    side = [k // order if k in (0, order) else 0 for k in idx]
    count = sum(on_side)
    if count == 3:
        return (CubeShapeFunction.VERTEX, 4 * side[0] + 2 * side[1] + side[2], 0)
    if count == 2:
        axis = on_side.index(False)
        return (CubeShapeFunction.EDGE, _edge_instance(axis, side), idx[axis] - 1)
    if count == 1:
        axis = on_side.index(True)
        u, v = idx[(axis + 1) % 3], idx[(axis + 2) % 3]
        return (CubeShapeFunction.FACE, 2 * axis + side[axis], (u - 1) * (order - 1) + v - 1)
    i, j, l = (k - 1 for k in idx)
    return (CubeShapeFunction.INTERIOR, 0, (i * (order - 1) + j) * (order - 1) + l)


class CubeTripolynomialShapeFunctions(CubeShapeFunction):
    """Q_k: tensor products of degree-k Lagrange polynomials through the family's points."""

    def __init__(self, degree: int, family: Polynomial, scalar_type=wp.float32):
        super().__init__(scalar_type)
        self.family = _point_family(degree, family)
        self.ORDER = int(degree)
        self.ORDER_PLUS_ONE = n = self.ORDER + 1
        self.NODES_PER_ELEMENT = n**3
        self.NODES_PER_SIDE = n**2
        self._points, self._weights = quadrature_1d(n, self.family)
        vec_t = wp.types.vector(length=n, dtype=scalar_type)
        self.LOBATTO_COORDS = vec_t(*self._points.tolist())
        self.LOBATTO_WEIGHT = vec_t(*self._weights.tolist())
        o = self.ORDER
        if is_closed(self.family):
            self.VERTEX_NODE_COUNT, self.EDGE_NODE_COUNT = 1, o - 1
            self.FACE_NODE_COUNT, self.INTERIOR_NODE_COUNT = (o - 1) ** 2, (o - 1) ** 3
            types = [_cube_node_type(idx, o) for idx in np.ndindex(n, n, n)]
        else:
            self.VERTEX_NODE_COUNT = self.EDGE_NODE_COUNT = self.FACE_NODE_COUNT = 0
            self.INTERIOR_NODE_COUNT = self.NODES_PER_ELEMENT
            types = [(self.INTERIOR, 0, k) for k in range(self.NODES_PER_ELEMENT)]
        self.node_type_and_type_index = _node_type_function(types)

    @property
    def name(self) -> str:
        return f"Cube_Q{self.ORDER}_{self.family.value}{self._precision_suffix}"

    def _node_coords(self):
        return tensor_node_coords(self._points, 3)

    def _node_quadrature_weights(self):
        return tensor_node_weights(self._weights, 3)

    def _trace_node_quadrature_weights(self):
        n, o, w = self.ORDER_PLUS_ONE, self.ORDER, self._weights
        out = np.zeros(self.NODES_PER_ELEMENT)
        if not is_closed(self.family):
            return out
        for node, idx in enumerate(np.ndindex(n, n, n)):
            # the weight on the first side the node lies on; interior nodes as if on an x side (as Warp)
            axis = next((a for a in range(3) if idx[a] in (0, o)), 0)
            out[node] = np.prod([w[idx[a]] for a in range(3) if a != axis])
        return out

    def _make_value_functions(self):
        value_1d, derivative_1d = make_lagrange_1d(self._points)
        return make_tensor_functions(value_1d, derivative_1d, self.ORDER_PLUS_ONE, 3, self.scalar_type)

    def element_node_hexes(self):
        return cells.grid_hexes(self.ORDER_PLUS_ONE)

    def element_node_tets(self):
        return cells.grid_tets(self.ORDER_PLUS_ONE)

    def element_vtk_cells(self):
        if self.ORDER == 1:
            return cells.cells_of(cells.grid_hexes(2), cells.VTK_HEXAHEDRON)
        return cells.cells_of(cells.vtk_lagrange_hex(self.ORDER_PLUS_ONE)[None, :], cells.VTK_LAGRANGE_HEXAHEDRON)


class CubeSerendipityShapeFunctions(CubeShapeFunction):
    """S_k (k = 2, 3): vertex and edge nodes only, spanning the serendipity space."""

    def __init__(self, degree: int, family: Polynomial, scalar_type=wp.float32):
        if degree not in (2, 3):
            raise ValueError(f"serendipity shape functions are available for degree 2 or 3, got {degree}")
        super().__init__(scalar_type)
        self.family = _point_family(degree, family)
        if not is_closed(self.family):
            raise ValueError(f"serendipity shape functions need a closed point family, got {self.family.name}")
        self.ORDER = o = int(degree)
        self.ORDER_PLUS_ONE = o + 1
        self.NODES_PER_ELEMENT = 8 + 12 * (o - 1)
        self.NODES_PER_SIDE = 4 + 4 * (o - 1)
        self.VERTEX_NODE_COUNT, self.EDGE_NODE_COUNT = 1, o - 1
        self.FACE_NODE_COUNT = self.INTERIOR_NODE_COUNT = 0
        self._points, self._weights = quadrature_1d(o + 1, self.family)
        vec_t = wp.types.vector(length=o + 1, dtype=scalar_type)
        self.LOBATTO_COORDS = vec_t(*self._points.tolist())
        self.LOBATTO_WEIGHT = vec_t(*self._weights.tolist())
        types, coords = [], []
        for idx in np.ndindex(2, 2, 2):
            types.append((self.VERTEX, 4 * idx[0] + 2 * idx[1] + idx[2], 0))
            coords.append(tuple(float(k) for k in idx))
        for m in range(o - 1):
            t = float(self._points[m + 1])
            for inst in range(4):
                for axis in range(3):
                    # instance = 2 c[(a+1)%3] + c[(a+2)%3]
                    c = [0.0, 0.0, 0.0]
                    c[(axis + 1) % 3], c[(axis + 2) % 3] = float(inst // 2), float(inst % 2)
                    c[axis] = t
                    coords.append(tuple(c))
                    types.append((self.EDGE, 4 * axis + inst, m))
        self._coords = np.array(coords)
        exps = serendipity_exponents(o, 3)
        self._table = PolynomialTable(exps, lagrange_table(exps, self._coords), 3)
        self.node_type_and_type_index = _node_type_function(types)

    @property
    def name(self) -> str:
        return f"Cube_S{self.ORDER}_{self.family.value}{self._precision_suffix}"

    def _node_coords(self):
        return self._coords

    def _node_quadrature_weights(self):
        return serendipity_node_weights(self.ORDER, 3, self.NODES_PER_ELEMENT)

    def _trace_node_quadrature_weights(self):
        # a face carries the square serendipity element: its (positive) nodal weights
        face = SquareSerendipityShapeFunctions(self.ORDER, self.family)
        face_xy, face_w = face._node_coords()[:, :2], face._node_quadrature_weights()
        out = np.zeros(self.NODES_PER_ELEMENT)
        for n, p in enumerate(self._coords):
            axis = next((a for a in range(3) if p[a] in (0.0, 1.0)), None)
            if axis is not None:
                uv = np.array([p[(axis + 1) % 3], p[(axis + 2) % 3]])
                out[n] = face_w[np.argmin(np.abs(face_xy - uv).sum(axis=1))]
        return out

    def _make_value_functions(self):
        return make_table_functions(self._table, xyz_from_cube_coords, self.scalar_type)


class CubeNonConformingPolynomialShapeFunctions(ShapeFunction):
    """P_k on the cube with its nodes on the P_k lattice of the regular tetrahedron inscribed in the
    cube's inscribed sphere, apex up, base vertices at 210, 330 and 90 degrees (where Warp places them)."""

    _TETRAHEDRON = 0.5 + 0.5 * np.array(
        [[np.sqrt(8.0) / 3.0 * np.cos(a), np.sqrt(8.0) / 3.0 * np.sin(a), -1.0 / 3.0] for a in np.radians([210, 330, 90])]
        + [[0.0, 0.0, 1.0]]
    )

    def __init__(self, degree: int, scalar_type=wp.float32):
        if degree < 0:
            raise ValueError(f"degree must be non-negative, got {degree}")
        super().__init__(scalar_type)
        self.ORDER = int(degree)
        bary = simplex_lagrange_nodes(self.ORDER, 3)[0] if self.ORDER > 0 else np.full((1, 4), 0.25)
        self._coords = bary @ self._TETRAHEDRON
        self.NODES_PER_ELEMENT = len(self._coords)
        exps = monomials_up_to(self.ORDER, 3)
        self._table = PolynomialTable(exps, lagrange_table(exps, self._coords), 3)

    @property
    def name(self) -> str:
        return f"Cube_P{self.ORDER}d{self._precision_suffix}"

    def _node_coords(self):
        return self._coords

    def _node_quadrature_weights(self):
        return node_quadrature_weights(self._table, self._coords, lambda e: cube_integrals(e, 3), "uniform")

    def _trace_node_quadrature_weights(self):
        return np.zeros(self.NODES_PER_ELEMENT)

    def _make_value_functions(self):
        return make_table_functions(self._table, xyz_from_cube_coords, self.scalar_type)

    def element_node_tets(self):
        return simplex_node_tets(self.ORDER)

    def element_vtk_cells(self):
        return cells.single_cell(self.NODES_PER_ELEMENT, simplex_vtk_type(self.ORDER, 3))


def _linear(axis: int, side: int):
    """x_axis on side 1, 1 - x_axis on side 0."""
    return poly_var(axis) if side else poly_var(axis, -1.0, 1.0)


class _CubeVectorShapeFunctions(CubeShapeFunction):
    def __init__(self, degree: int, scalar_type=wp.float32):
        if degree != 1:
            raise ValueError(f"only degree 1 is available for {type(self).__name__}, got {degree}")
        super().__init__(scalar_type)
        self.ORDER = 1
        polys, self._coords, types = self._build()
        self.NODES_PER_ELEMENT = len(polys)
        self._table = PolynomialTable.from_polys(polys, 3)
        self.node_type_and_type_index = _node_type_function(types)

    def _node_coords(self):
        return self._coords

    def _node_quadrature_weights(self):
        return np.full(self.NODES_PER_ELEMENT, 1.0 / self.NODES_PER_ELEMENT)

    def _trace_node_quadrature_weights(self):
        return np.full(self.NODES_PER_ELEMENT, 1.0 / self.NODES_PER_SIDE)

    def _make_value_functions(self):
        return make_table_functions(self._table, xyz_from_cube_coords, self.scalar_type)


class CubeNedelecFirstKindShapeFunctions(_CubeVectorShapeFunctions):
    """Lowest-order Nedelec (first kind): along its edge's axis, bilinear in the two others."""

    value = ShapeFunction.Value.CovariantVector
    NODES_PER_SIDE = 4
    VERTEX_NODE_COUNT, EDGE_NODE_COUNT, FACE_NODE_COUNT, INTERIOR_NODE_COUNT = 0, 1, 0, 0

    @property
    def name(self) -> str:
        return f"CubeN1_{self.ORDER}{self._precision_suffix}"

    def _build(self):
        polys, coords, types = [], [], []
        for axis in range(3):
            u, v = (axis + 1) % 3, (axis + 2) % 3
            for inst in range(4):
                cu, cv = inst // 2, inst % 2
                comps = [poly_const(0.0)] * 3
                comps[axis] = poly_mul(_linear(u, cu), _linear(v, cv))
                polys.append(comps)
                c = [0.5, 0.5, 0.5]
                c[u], c[v] = float(cu), float(cv)
                coords.append(c)
                types.append((self.EDGE, 4 * axis + inst, 0))
        return polys, np.array(coords), types


class CubeRaviartThomasShapeFunctions(_CubeVectorShapeFunctions):
    """Lowest-order Raviart-Thomas: normal component linear across the cube, 1 on its own face."""

    value = ShapeFunction.Value.ContravariantVector
    NODES_PER_SIDE = 1
    VERTEX_NODE_COUNT, EDGE_NODE_COUNT, FACE_NODE_COUNT, INTERIOR_NODE_COUNT = 0, 0, 1, 0

    @property
    def name(self) -> str:
        return f"CubeRT_{self.ORDER}{self._precision_suffix}"

    def _build(self):
        polys, coords, types = [], [], []
        for axis in range(3):
            for side in range(2):
                comps = [poly_const(0.0)] * 3
                comps[axis] = _linear(axis, side)
                polys.append(comps)
                c = [0.5, 0.5, 0.5]
                c[axis] = float(side)
                coords.append(c)
                types.append((self.FACE, 2 * axis + side, 0))
        return polys, np.array(coords), types
