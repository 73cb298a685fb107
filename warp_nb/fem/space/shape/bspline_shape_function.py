"""Uniform B-spline shape functions on squares and cubes (degree 1 to 3). Each axis carries the B-splines
centred on the integers whose support meets [0, 1]: centres -PADDING .. NODES_PER_DIM - 1 - PADDING,
so degree 1 has 2 per axis and degrees 2 and 3 have 4 (one padding node on each side). Nodes sit at
those centres (outside the element for padding nodes), which makes sum_n B_n(x) x_n = x: the nodal
quadrature with equal weights then has the element's centre as its centroid.

B-splines do not interpolate past degree 1 (a node's function is not 1 at its node)."""

import numpy as np

import warp_nb as wp

from . import cells
from .shape_function import ShapeFunction
from .tensor_product import make_tensor_functions, tensor_node_coords


def make_bspline_1d(degree: int, padding: int):
    """Device functions (value(t, i), derivative(t, i)) of the uniform B-spline centred at i - padding."""
    f64 = wp.float64
    offset = f64(padding)

    if degree == 1:

        @wp.func
        def bspline_value(t: f64, i: int):
            r = wp.abs(t - (f64(i) - offset))
            return wp.max(f64(1.0) - r, f64(0.0))

        @wp.func
        def bspline_derivative(t: f64, i: int):
            d = t - (f64(i) - offset)
            if wp.abs(d) >= f64(1.0):
                return f64(0.0)
            return -wp.sign(d)

    elif degree == 2:

        @wp.func
        def bspline_value(t: f64, i: int):
            r = wp.abs(t - (f64(i) - offset))
            if r <= f64(0.5):
                return f64(0.75) - r * r
            if r < f64(1.5):
                return f64(0.5) * (f64(1.5) - r) * (f64(1.5) - r)
            return f64(0.0)

        @wp.func
        def bspline_derivative(t: f64, i: int):
            d = t - (f64(i) - offset)
            r = wp.abs(d)
            if r <= f64(0.5):
                return f64(-2.0) * d
            if r < f64(1.5):
                return -wp.sign(d) * (f64(1.5) - r)
            return f64(0.0)

    else:

        @wp.func
        def bspline_value(t: f64, i: int):
            r = wp.abs(t - (f64(i) - offset))
            if r <= f64(1.0):
                return f64(2.0) / f64(3.0) - r * r + f64(0.5) * r * r * r
            if r < f64(2.0):
                return (f64(2.0) - r) * (f64(2.0) - r) * (f64(2.0) - r) / f64(6.0)
            return f64(0.0)

        @wp.func
        def bspline_derivative(t: f64, i: int):
            d = t - (f64(i) - offset)
            r = wp.abs(d)
            if r <= f64(1.0):
                return wp.sign(d) * (f64(-2.0) * r + f64(1.5) * r * r)
            if r < f64(2.0):
                return -wp.sign(d) * f64(0.5) * (f64(2.0) - r) * (f64(2.0) - r)
            return f64(0.0)

    return bspline_value, bspline_derivative


class _BSplineShapeFunctions(ShapeFunction):
    DIMENSION = 2

    def __init__(self, degree: int, scalar_type=wp.float32):
        if degree not in (1, 2, 3):
            raise ValueError(f"B-spline shape functions are available for degree 1, 2 or 3, got {degree}")
        super().__init__(scalar_type)
        self.ORDER = int(degree)
        self.PADDING = 0 if degree == 1 else 1
        self.NODES_PER_DIM = 2 if degree == 1 else 4
        self.NODES_PER_ELEMENT = self.NODES_PER_DIM**self.DIMENSION
        self.NODES_PER_SIDE = 2 ** (self.DIMENSION - 1)
        self._centres = np.arange(self.NODES_PER_DIM, dtype=np.float64) - self.PADDING

    def _node_coords(self):
        return tensor_node_coords(self._centres, self.DIMENSION)

    def _node_quadrature_weights(self):
        return np.full(self.NODES_PER_ELEMENT, 1.0 / self.NODES_PER_ELEMENT)

    def _trace_node_quadrature_weights(self):
        return np.full(self.NODES_PER_ELEMENT, 1.0 / self.NODES_PER_DIM ** (self.DIMENSION - 1))

    def _make_value_functions(self):
        value_1d, derivative_1d = make_bspline_1d(self.ORDER, self.PADDING)
        return make_tensor_functions(value_1d, derivative_1d, self.NODES_PER_DIM, self.DIMENSION, self.scalar_type)


class SquareBSplineShapeFunctions(_BSplineShapeFunctions):
    DIMENSION = 2

    def element_node_quads(self):
        """The quad of the four nodes at the element's corners."""
        return cells.grid_quads(self.NODES_PER_DIM, self.PADDING, self.PADDING + 1)

    def element_vtk_cells(self):
        return cells.cells_of(self.element_node_quads(), cells.VTK_QUAD)

    @property
    def name(self) -> str:
        return f"SquareBSpline{self.ORDER}{self._precision_suffix}"


class CubeBSplineShapeFunctions(_BSplineShapeFunctions):
    DIMENSION = 3

    def element_node_hexes(self):
        """The hexahedron of the eight nodes at the element's corners."""
        return cells.grid_hexes(self.NODES_PER_DIM, self.PADDING, self.PADDING + 1)

    def element_vtk_cells(self):
        return cells.cells_of(self.element_node_hexes(), cells.VTK_HEXAHEDRON)

    @property
    def name(self) -> str:
        return f"CubeBSpline{self.ORDER}{self._precision_suffix}"
