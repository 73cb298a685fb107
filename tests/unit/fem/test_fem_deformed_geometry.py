"""`fem.geometry.DeformedGeometry` (`field.make_deformed_geometry()`): a rigid motion with scaling,
given as a degree-2 displacement field, moves every cell and side point as numpy's rotation of the
base point, scales measures by the scale's power, rotates normals, and lookups find the moved
points again."""

import math

import numpy as np

import warp_nb as wp
from warp_nb import fem

from .geometry_values import evaluate
from .test_fem_geometries import _grid_points, _grid_tris, _kuhn_tets

SCALE = 2.0


@fem.integrand
def _rigid_2d(s: fem.Sample, domain: fem.Domain, angle: float):
    x = domain(s)
    c = wp.cos(angle)
    sn = wp.sin(angle)
    return wp.vec2(1.0, 2.0) + SCALE * wp.vec2(c * x[0] - sn * x[1], sn * x[0] + c * x[1]) - x


@fem.integrand
def _rigid_3d(s: fem.Sample, domain: fem.Domain, angle: float):
    x = domain(s)
    c = wp.cos(angle)
    sn = wp.sin(angle)  # about the y axis
    return wp.vec3(1.0, 2.0, 3.0) + SCALE * wp.vec3(c * x[0] + sn * x[2], x[1], -sn * x[0] + c * x[2]) - x


@fem.integrand(kernel_options={"enable_backward": False})
def _find_again(s: fem.Sample, domain: fem.Domain, found: wp.array(dtype=int)):
    t = fem.lookup(domain, domain(s))
    if t.element_index == s.element_index:
        wp.atomic_add(found, 0, 1)


def _deformed(geo, dtype, integrand):
    field = fem.make_polynomial_space(geo, dtype=dtype, degree=2).make_field()
    fem.interpolate(integrand, dest=field, values={"angle": math.pi / 4.0})
    return field.make_deformed_geometry()


def test_deformed_trimesh_2d():
    geo = fem.Trimesh2D(wp.array(_grid_tris(2, 2), dtype=int), wp.array(_grid_points((2, 2), 0.05), dtype=wp.vec2))
    deformed = _deformed(geo, wp.vec2, _rigid_2d)
    assert deformed.base is geo and deformed.cell_count() == geo.cell_count()
    base, moved = evaluate(wp, fem, geo), evaluate(wp, fem, deformed)
    c, sn = math.cos(math.pi / 4.0), math.sin(math.pi / 4.0)
    R = SCALE * np.array([[c, -sn], [sn, c]])
    np.testing.assert_allclose(moved["cell_pos"], base["cell_pos"] @ R.T + [1.0, 2.0], atol=1.0e-4)
    np.testing.assert_allclose(moved["pos"], base["pos"] @ R.T + [1.0, 2.0], atol=1.0e-4)
    np.testing.assert_allclose(moved["cell_measure"], SCALE**2 * base["cell_measure"], rtol=1.0e-4)
    np.testing.assert_allclose(moved["measure"], SCALE * base["measure"], rtol=1.0e-4)
    np.testing.assert_allclose(moved["normal"], base["normal"] @ (R.T / SCALE), atol=1.0e-4)
    assert moved["inner"].tolist() == base["inner"].tolist() and moved["boundary"].tolist() == base["boundary"].tolist()
    assert not deformed.supports_cell_lookup("cpu")
    deformed.build_bvh()
    assert deformed.supports_cell_lookup("cpu")
    found = wp.zeros(1, dtype=int)
    quadrature = fem.RegularQuadrature(fem.Cells(deformed), order=2)
    fem.interpolate(_find_again, at=quadrature, values={"found": found})
    assert found.numpy()[0] == quadrature.total_point_count()


def test_deformed_tetmesh():
    geo = fem.Tetmesh(wp.array(_kuhn_tets(1, 1, 2), dtype=int), wp.array(_grid_points((1, 1, 2), 0.03), dtype=wp.vec3))
    deformed = _deformed(geo, wp.vec3, _rigid_3d)
    base, moved = evaluate(wp, fem, geo), evaluate(wp, fem, deformed)
    c, sn = math.cos(math.pi / 4.0), math.sin(math.pi / 4.0)
    R = SCALE * np.array([[c, 0.0, sn], [0.0, 1.0, 0.0], [-sn, 0.0, c]])
    np.testing.assert_allclose(moved["cell_pos"], base["cell_pos"] @ R.T + [1.0, 2.0, 3.0], atol=1.0e-4)
    np.testing.assert_allclose(moved["cell_measure"], SCALE**3 * base["cell_measure"], rtol=1.0e-4)
    np.testing.assert_allclose(moved["measure"], SCALE**2 * base["measure"], rtol=1.0e-4)
    np.testing.assert_allclose(moved["normal"], base["normal"] @ (R.T / SCALE), atol=1.0e-4)


@wp.func
def _stretch(x: wp.vec2, k: float):
    # new positions: x stretched along its first axis by (1 + k x0)
    return wp.vec2(x[0] * (1.0 + k * x[0]), x[1])


@wp.func
def _stretch_grad(x: wp.vec2, k: float):
    return wp.mat22(1.0 + 2.0 * k * x[0], 0.0, 0.0, 1.0)


def test_deformed_grid_from_an_implicit_field():
    geo = fem.Grid2D(res=wp.vec2i(3, 2))
    field = fem.ImplicitField(domain=fem.Cells(geo), func=_stretch, grad_func=_stretch_grad, values={"k": 0.5})
    deformed = field.make_deformed_geometry(relative=False)
    base, moved = evaluate(wp, fem, geo), evaluate(wp, fem, deformed)
    x = base["cell_pos"]
    np.testing.assert_allclose(moved["cell_pos"], np.stack([x[..., 0] * (1.0 + 0.5 * x[..., 0]), x[..., 1]], -1),
                               atol=1.0e-6)
    # measure: the base cell's area times the stretch's Jacobian 1 + 2 k x0
    np.testing.assert_allclose(moved["cell_measure"], base["cell_measure"] * (1.0 + x[..., 0]), rtol=1.0e-5)
    # sides: the vertical ones keep their normal, their length is unchanged
    vertical = np.abs(base["normal"][:, 0, 0]) > 0.5
    np.testing.assert_allclose(moved["normal"][vertical], base["normal"][vertical], atol=1.0e-6)
    np.testing.assert_allclose(moved["measure"][vertical], base["measure"][vertical], rtol=1.0e-5)
