"""Degree-1 spaces on unstructured meshes read each cell's vertices in the geometry's own order: a
linear function interpolated at the nodes is reproduced exactly inside every cell (numpy's value at
the cells' centres) on hexes listed from any corner and on a deformed mesh's base topology."""

import numpy as np

import warp_nb as wp
from warp_nb import fem

from .geometry_values import evaluate
from .test_fem_geometries import _grid_hexes, _grid_points, _grid_quads, _rotate_hex


@fem.integrand
def _linear(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return 1.0 + 2.0 * x[0] - 3.0 * x[1] + (0.5 * x[2] if wp.static(len(x) == 3) else 0.0)


@fem.integrand
def _at_centres(s: fem.Sample, domain: fem.Domain, f: fem.Field, out: wp.array(dtype=float)):
    out[s.element_index] = f(s)


def _centre_values(geo, quadrature_geo=None):
    space = fem.make_polynomial_space(geo, degree=1)
    field = space.make_field()
    fem.interpolate(_linear, dest=field)
    out = wp.zeros(geo.cell_count(), dtype=float)
    fem.interpolate(_at_centres, at=fem.RegularQuadrature(fem.Cells(geo), order=0), fields={"f": field},
                    values={"out": out})
    return out.numpy()


def _linear_np(p):
    return 1.0 + 2.0 * p[:, 0] - 3.0 * p[:, 1] + (0.5 * p[:, 2] if p.shape[1] == 3 else 0.0)


def test_hexmesh_degree1_space_follows_hex_vertex_order():
    points = _grid_points((2, 1, 2), noise=0.0)
    hexes = _grid_hexes(2, 1, 2)
    Rz = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]])
    Rx = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]])
    hexes[0], hexes[3] = _rotate_hex(hexes[0], Rz), _rotate_hex(hexes[3], Rx)
    geo = fem.Hexmesh(wp.array(hexes, dtype=int), wp.array(points, dtype=wp.vec3))
    centres = points[hexes].mean(axis=1)
    np.testing.assert_allclose(_centre_values(geo), _linear_np(centres), rtol=1.0e-5)


def test_deformed_quadmesh_degree1_space_uses_base_vertices():
    points = _grid_points((3, 2), noise=0.05)
    base = fem.Quadmesh2D(wp.array(_grid_quads(3, 2), dtype=int), wp.array(points, dtype=wp.vec2))
    displacement = fem.make_polynomial_space(base, degree=1, dtype=wp.vec2).make_field()
    deformed = displacement.make_deformed_geometry()  # zero displacement: the same cells
    centres = evaluate(wp, fem, base)["cell_centre"]
    np.testing.assert_allclose(_centre_values(deformed), _linear_np(centres), rtol=1.0e-5)
