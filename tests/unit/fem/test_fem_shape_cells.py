"""Sub-cells of shape function nodes (plotting and VTK export): triangles and tetrahedra tile the
element (their areas / volumes add up to the element's, none degenerate), VTK Lagrange cells list each
node once with the corners first, and the corner-node quads / hexes of B-splines span the element."""

import numpy as np
import pytest

from warp_nb.fem import Element, Polynomial
from warp_nb.fem.space import shape as S

LGL = Polynomial.LOBATTO_GAUSS_LEGENDRE


def _xy(shape):
    c = np.asarray(shape._node_coords())
    if isinstance(shape, (S.TrianglePolynomialShapeFunctions, S.TriangleNonConformingPolynomialShapeFunctions)):
        return c[:, 1:3]
    return c[:, :2]


def _areas(xy, tris):
    a, b, c = xy[tris[:, 0]], xy[tris[:, 1]], xy[tris[:, 2]]
    return 0.5 * ((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0]))


@pytest.mark.parametrize("shape, area", [
    (S.SquareBipolynomialShapeFunctions(1, LGL), 1.0),
    (S.SquareBipolynomialShapeFunctions(3, LGL), 1.0),
    (S.SquareSerendipityShapeFunctions(2, LGL), 1.0),
    (S.SquareSerendipityShapeFunctions(3, LGL), 1.0),
    (S.TrianglePolynomialShapeFunctions(3), 0.5),
])
def test_triangulations_tile_the_element(shape, area):
    tris = shape.element_node_triangulation()
    areas = _areas(_xy(shape), tris)
    assert np.all(areas > 1e-6)  # counter-clockwise, none degenerate
    assert areas.sum() == pytest.approx(area)
    conn, types = shape.element_vtk_cells()
    assert len(conn) == len(types)


def test_non_conforming_triangulations_cover_their_node_triangle():
    for shape in (S.SquareNonConformingPolynomialShapeFunctions(2), S.TriangleNonConformingPolynomialShapeFunctions(3)):
        areas = _areas(_xy(shape), shape.element_node_triangulation())
        assert np.all(areas > 1e-6) and len(areas) == shape.ORDER**2


def _volumes(xyz, tets):
    a = xyz[tets[:, 0]]
    m = np.stack([xyz[tets[:, k]] - a for k in (1, 2, 3)], axis=1)
    return np.linalg.det(m) / 6.0


@pytest.mark.parametrize("shape, volume", [
    (S.CubeTripolynomialShapeFunctions(1, LGL), 1.0),
    (S.CubeTripolynomialShapeFunctions(2, LGL), 1.0),
    (S.TetrahedronPolynomialShapeFunctions(1), 1.0 / 6.0),
    (S.TetrahedronPolynomialShapeFunctions(2), 1.0 / 6.0),
])
def test_tetrahedra_tile_the_element(shape, volume):
    vols = np.abs(_volumes(np.asarray(shape._node_coords()), shape.element_node_tets()))
    assert np.all(vols > 1e-6)
    assert vols.sum() == pytest.approx(volume)


def test_hexes_tile_the_cube():
    shape = S.CubeTripolynomialShapeFunctions(3, LGL)
    xyz = np.asarray(shape._node_coords())
    hexes = shape.element_node_hexes()
    sizes = xyz[hexes[:, 6]] - xyz[hexes[:, 0]]  # opposite corners in VTK order
    assert np.all(sizes > 0) and np.prod(sizes, axis=1).sum() == pytest.approx(1.0)


@pytest.mark.parametrize("shape", [
    S.SquareBipolynomialShapeFunctions(3, LGL),
    S.CubeTripolynomialShapeFunctions(3, LGL),
    S.TrianglePolynomialShapeFunctions(3),
    S.TetrahedronPolynomialShapeFunctions(3),
])
def test_vtk_lagrange_cells_list_every_node_once_corners_first(shape):
    conn, types = shape.element_vtk_cells()
    assert conn.shape == (1, shape.NODES_PER_ELEMENT) and sorted(conn[0]) == list(range(shape.NODES_PER_ELEMENT))
    xyz = np.asarray(shape._node_coords())
    corner_count = {70: 4, 72: 8, 69: 3, 71: 4}[int(types[0])]
    corners = xyz[conn[0, :corner_count]]
    assert np.all(np.isclose(corners, 0.0) | np.isclose(corners, 1.0))


def test_bspline_cells_join_the_corner_nodes():
    square = S.SquareBSplineShapeFunctions(3)
    xy = np.asarray(square._node_coords())[:, :2]
    assert xy[square.element_node_quads()[0]].tolist() == [[0, 0], [1, 0], [1, 1], [0, 1]]
    cube = S.CubeBSplineShapeFunctions(2)
    xyz = np.asarray(cube._node_coords())
    assert xyz[cube.element_node_hexes()[0]].tolist()[:2] == [[0, 0, 0], [1, 0, 0]]
    assert S.ConstantShapeFunction(Element.TRIANGLE).element_vtk_cells()[1].tolist() == [1]
