"""`warp.fem.ShapeFunction`: the shape functions of one reference element, as device-function factories.

A shape function family knows, for each of its NODES_PER_ELEMENT nodes, the node's element coordinates,
its weight in the nodal quadrature (the mean over the element of its basis function where those are
all positive, so that the nodal rule integrates the interpolant exactly; else positive weights exact
for linear functions, see polynomial_table.node_quadrature_weights), its weight in the nodal quadrature of a side, and the
basis function's value and gradient anywhere in the element. Subclasses give those as host tables
(`_node_coords`, `_node_quadrature_weights`, `_trace_node_quadrature_weights`) and value / gradient
functions (`_make_value_functions`); this class turns the tables into device functions, built once per
instance so that every kernel using them shares one definition.

Knows nothing about geometries, topologies or function spaces."""

from enum import Enum

import numpy as np

import warp_nb as wp


class ShapeFunction:
    """Interpolation and quadrature data of one family of shape functions on a reference element."""

    class Value(Enum):
        Scalar = 0
        CovariantVector = 1
        ContravariantVector = 2

    value = Value.Scalar
    ORDER: int
    NODES_PER_ELEMENT: int

    def __init__(self, scalar_type=wp.float32):
        if scalar_type not in (wp.float32, wp.float64):
            raise TypeError(f"scalar_type must be wp.float32 or wp.float64, got {scalar_type!r}")
        self.scalar_type = scalar_type
        self.CoordsType = wp.types.vector(length=3, dtype=scalar_type)
        self._funcs = {}

    # --- what subclasses provide ----------------------------------------------------------------

    @property
    def name(self) -> str:
        """A name unique to the family, degree, point family and precision (kernels are cached by it)."""
        raise NotImplementedError

    def _node_coords(self) -> np.ndarray:
        """[node, 3] element coordinates of the nodes."""
        raise NotImplementedError

    def _node_quadrature_weights(self) -> np.ndarray:
        raise NotImplementedError

    def _trace_node_quadrature_weights(self) -> np.ndarray:
        raise NotImplementedError

    def _make_value_functions(self):
        """(value(coords, node), gradient(coords, node)) device functions."""
        raise NotImplementedError

    # --- device functions --------------------------------------------------------------------------

    @property
    def _precision_suffix(self) -> str:
        return "" if self.scalar_type == wp.float32 else "_f64"

    def _cached(self, key, build):
        if key not in self._funcs:
            self._funcs[key] = build()
        return self._funcs[key]

    def _table_func(self, values):
        """A device function node_index -> values[node] (a scalar table)."""
        S = self.scalar_type
        values = np.asarray(values, dtype=np.float64).reshape(-1)
        table_t = wp.types.vector(length=len(values), dtype=S)
        TABLE = table_t(*values.tolist())

        @wp.func
        def node_table_value(node_index_in_elt: int):
            return TABLE[node_index_in_elt]

        return node_table_value

    def make_node_coords_in_element(self):
        """Device function: node index -> the node's element coordinates (Coords)."""

        def build():
            coords = np.asarray(self._node_coords(), dtype=np.float64).reshape(-1, 3)
            table_t = wp.types.matrix(shape=(len(coords), 3), dtype=self.scalar_type)
            TABLE = table_t(*coords.reshape(-1).tolist())
            coords_t = self.CoordsType

            @wp.func
            def node_coords_in_element(node_index_in_elt: int):
                return coords_t(TABLE[node_index_in_elt, 0], TABLE[node_index_in_elt, 1], TABLE[node_index_in_elt, 2])

            return node_coords_in_element

        return self._cached("node_coords", build)

    def make_node_quadrature_weight(self):
        """Device function: node index -> weight of the node in the element's nodal quadrature."""
        return self._cached("node_qw", lambda: self._table_func(self._node_quadrature_weights()))

    def make_trace_node_quadrature_weight(self):
        """Device function: node index -> weight of the node in a side's nodal quadrature (0 off sides)."""
        return self._cached("trace_qw", lambda: self._table_func(self._trace_node_quadrature_weights()))

    def make_element_inner_weight(self):
        """Device function (coords, node index) -> the node's basis function at coords."""
        return self._cached("value", self._make_value_functions)[0]

    def make_element_inner_weight_gradient(self):
        """Device function (coords, node index) -> the basis function's gradient in reference space."""
        return self._cached("value", self._make_value_functions)[1]

    def make_element_outer_weight(self):
        """Outer (neighbour-side) values equal inner ones on the reference element."""
        return self.make_element_inner_weight()

    def make_element_outer_weight_gradient(self):
        return self.make_element_inner_weight_gradient()

    def make_node_dual_weight(self):
        """Device function: node index -> the weight that turns a nodal value into a degree of freedom
        (1 for the interpolating families built here)."""

        def build():
            S = self.scalar_type

            @wp.func
            def node_dual_weight(node_index_in_elt: int):
                return S(1.0)

            return node_dual_weight

        return self._cached("dual", build)


class ConstantShapeFunction(ShapeFunction):
    """One node at the element's centre, whose basis function is 1 everywhere."""

    ORDER = 0
    NODES_PER_ELEMENT = 1

    def __init__(self, element, scalar_type=wp.float32):
        super().__init__(scalar_type)
        from ...geometry.element import PROTOTYPES, Element

        self._element = Element(element)
        self._element_prototype = PROTOTYPES[self._element]
        self.COORDS = self.CoordsType(*self._element_prototype().center())

    @property
    def name(self) -> str:
        return f"{self._element_prototype.__name__}{self._precision_suffix}"

    def _node_coords(self):
        return np.array([self._element_prototype().center()])

    def _node_quadrature_weights(self):
        return np.ones(1)

    def _trace_node_quadrature_weights(self):
        return np.ones(1)

    def element_vtk_cells(self):
        from .cells import VTK_VERTEX, single_cell

        return single_cell(1, VTK_VERTEX)

    def _make_value_functions(self):
        S = self.scalar_type
        coords_t = self.CoordsType
        dim = self._element_prototype.dimension
        grad_t = wp.types.vector(length=dim, dtype=S)

        @wp.func
        def constant_value(coords: coords_t, node_index_in_elt: int):
            return S(1.0)

        @wp.func
        def constant_gradient(coords: coords_t, node_index_in_elt: int):
            return grad_t()

        return constant_value, constant_gradient
