"""`warp.fem.space.shape`: shape function families on the reference elements, and
`make_element_shape_function`, which picks one from an element kind, a degree, an `ElementBasis` and
a point family (what `make_polynomial_space` builds its topology on)."""

from .shape_function import ConstantShapeFunction, ShapeFunction  # noqa: F401
from .square_shape_function import (  # noqa: F401
    SquareBipolynomialShapeFunctions,
    SquareNedelecFirstKindShapeFunctions,
    SquareNonConformingPolynomialShapeFunctions,
    SquareRaviartThomasShapeFunctions,
    SquareSerendipityShapeFunctions,
    SquareShapeFunction,
)
