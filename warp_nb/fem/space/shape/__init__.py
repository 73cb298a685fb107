"""`warp.fem.space.shape`: shape function families on the reference elements, `ElementBasis`, and
`make_element_shape_function`, which picks a family from an element kind, a degree, an element basis
and a point family (what a polynomial space builds its topology on)."""

from enum import Enum

import warp_nb as wp

from ...geometry.element import Element
from ...polynomial import Polynomial
from .bspline_shape_function import CubeBSplineShapeFunctions, SquareBSplineShapeFunctions
from .cube_shape_function import (
    CubeNedelecFirstKindShapeFunctions,
    CubeNonConformingPolynomialShapeFunctions,
    CubeRaviartThomasShapeFunctions,
    CubeSerendipityShapeFunctions,
    CubeShapeFunction,
    CubeTripolynomialShapeFunctions,
)
from .shape_function import ConstantShapeFunction, ShapeFunction
from .simplex_shape_function import (
    TetrahedronNedelecFirstKindShapeFunctions,
    TetrahedronNonConformingPolynomialShapeFunctions,
    TetrahedronPolynomialShapeFunctions,
    TetrahedronRaviartThomasShapeFunctions,
    TetrahedronShapeFunction,
    TriangleNedelecFirstKindShapeFunctions,
    TriangleNonConformingPolynomialShapeFunctions,
    TrianglePolynomialShapeFunctions,
    TriangleRaviartThomasShapeFunctions,
    TriangleShapeFunction,
)
from .square_shape_function import (
    SquareBipolynomialShapeFunctions,
    SquareNedelecFirstKindShapeFunctions,
    SquareNonConformingPolynomialShapeFunctions,
    SquareRaviartThomasShapeFunctions,
    SquareSerendipityShapeFunctions,
    SquareShapeFunction,
)

__all__ = [
    "ConstantShapeFunction",
    "CubeBSplineShapeFunctions",
    "CubeNedelecFirstKindShapeFunctions",
    "CubeNonConformingPolynomialShapeFunctions",
    "CubeRaviartThomasShapeFunctions",
    "CubeSerendipityShapeFunctions",
    "CubeShapeFunction",
    "CubeTripolynomialShapeFunctions",
    "ElementBasis",
    "ShapeFunction",
    "SquareBSplineShapeFunctions",
    "SquareBipolynomialShapeFunctions",
    "SquareNedelecFirstKindShapeFunctions",
    "SquareNonConformingPolynomialShapeFunctions",
    "SquareRaviartThomasShapeFunctions",
    "SquareSerendipityShapeFunctions",
    "SquareShapeFunction",
    "TetrahedronNedelecFirstKindShapeFunctions",
    "TetrahedronNonConformingPolynomialShapeFunctions",
    "TetrahedronPolynomialShapeFunctions",
    "TetrahedronRaviartThomasShapeFunctions",
    "TetrahedronShapeFunction",
    "TriangleNedelecFirstKindShapeFunctions",
    "TriangleNonConformingPolynomialShapeFunctions",
    "TrianglePolynomialShapeFunctions",
    "TriangleRaviartThomasShapeFunctions",
    "TriangleShapeFunction",
    "make_element_shape_function",
]


class ElementBasis(Enum):
    """The kind of basis a polynomial function space uses on each element."""

    LAGRANGE = "P"
    """Lagrange (nodal) polynomials: Q_k on squares and cubes, P_k on simplices."""
    SERENDIPITY = "S"
    """Serendipity elements (squares and cubes); Lagrange on simplices."""
    NONCONFORMING_POLYNOMIAL = "dP"
    """P_k with all nodes inside the element (discontinuous spaces only)."""
    NEDELEC_FIRST_KIND = "N1"
    """Lowest-order H(curl)-conforming Nedelec (first kind) vector basis."""
    RAVIART_THOMAS = "RT"
    """Lowest-order H(div)-conforming Raviart-Thomas vector basis."""
    BSPLINE = "B"
    """Uniform B-splines (squares and cubes)."""


_FAMILIES = {
    (Element.SQUARE, ElementBasis.LAGRANGE): SquareBipolynomialShapeFunctions,
    (Element.SQUARE, ElementBasis.SERENDIPITY): SquareSerendipityShapeFunctions,
    (Element.SQUARE, ElementBasis.NONCONFORMING_POLYNOMIAL): SquareNonConformingPolynomialShapeFunctions,
    (Element.SQUARE, ElementBasis.NEDELEC_FIRST_KIND): SquareNedelecFirstKindShapeFunctions,
    (Element.SQUARE, ElementBasis.RAVIART_THOMAS): SquareRaviartThomasShapeFunctions,
    (Element.SQUARE, ElementBasis.BSPLINE): SquareBSplineShapeFunctions,
    (Element.CUBE, ElementBasis.LAGRANGE): CubeTripolynomialShapeFunctions,
    (Element.CUBE, ElementBasis.SERENDIPITY): CubeSerendipityShapeFunctions,
    (Element.CUBE, ElementBasis.NONCONFORMING_POLYNOMIAL): CubeNonConformingPolynomialShapeFunctions,
    (Element.CUBE, ElementBasis.NEDELEC_FIRST_KIND): CubeNedelecFirstKindShapeFunctions,
    (Element.CUBE, ElementBasis.RAVIART_THOMAS): CubeRaviartThomasShapeFunctions,
    (Element.CUBE, ElementBasis.BSPLINE): CubeBSplineShapeFunctions,
    (Element.TRIANGLE, ElementBasis.LAGRANGE): TrianglePolynomialShapeFunctions,
    (Element.TRIANGLE, ElementBasis.SERENDIPITY): TrianglePolynomialShapeFunctions,
    (Element.TRIANGLE, ElementBasis.NONCONFORMING_POLYNOMIAL): TriangleNonConformingPolynomialShapeFunctions,
    (Element.TRIANGLE, ElementBasis.NEDELEC_FIRST_KIND): TriangleNedelecFirstKindShapeFunctions,
    (Element.TRIANGLE, ElementBasis.RAVIART_THOMAS): TriangleRaviartThomasShapeFunctions,
    (Element.TETRAHEDRON, ElementBasis.LAGRANGE): TetrahedronPolynomialShapeFunctions,
    (Element.TETRAHEDRON, ElementBasis.SERENDIPITY): TetrahedronPolynomialShapeFunctions,
    (Element.TETRAHEDRON, ElementBasis.NONCONFORMING_POLYNOMIAL): TetrahedronNonConformingPolynomialShapeFunctions,
    (Element.TETRAHEDRON, ElementBasis.NEDELEC_FIRST_KIND): TetrahedronNedelecFirstKindShapeFunctions,
    (Element.TETRAHEDRON, ElementBasis.RAVIART_THOMAS): TetrahedronRaviartThomasShapeFunctions,
}

_WITH_FAMILY = (SquareBipolynomialShapeFunctions, SquareSerendipityShapeFunctions, CubeTripolynomialShapeFunctions,
                CubeSerendipityShapeFunctions)


def make_element_shape_function(
    element: Element,
    degree: int,
    element_basis: ElementBasis | None = None,
    family: Polynomial | None = None,
    scalar_type=wp.float32,
) -> ShapeFunction:
    """The shape functions of `element_basis` (Lagrange by default) of `degree` on `element`. Degree 0
    gives the constant function; serendipity of degree 1 is Q_1; `family` picks the points of the
    Lagrange and serendipity bases on squares and cubes (Gauss-Lobatto-Legendre by default)."""
    element = Element(element)
    element_basis = ElementBasis.LAGRANGE if element_basis is None else ElementBasis(element_basis)
    if int(degree) != degree or degree < 0:
        raise ValueError(f"degree must be a non-negative integer, got {degree!r}")
    if degree == 0 and element_basis in (ElementBasis.LAGRANGE, ElementBasis.SERENDIPITY):
        return ConstantShapeFunction(element, scalar_type=scalar_type)
    if element_basis == ElementBasis.SERENDIPITY and degree == 1:
        element_basis = ElementBasis.LAGRANGE
    cls = _FAMILIES.get((element, element_basis))
    if cls is None:
        raise ValueError(f"element_basis {element_basis.name} is not available on {element.name} elements")
    if cls in _WITH_FAMILY:
        return cls(degree, family=family, scalar_type=scalar_type)
    return cls(degree, scalar_type=scalar_type)
