"""A call of fem.integrate / fem.interpolate that repeats an earlier one reuses what it can (the
specialised integrand, its return type, the default quadrature, a grid's argument structs, the
field bound to the domain); these tests check that nothing reused goes stale: node values changed in
place or replaced, a grid's bounds changed, a deformed geometry's displacement changed, a mesh's
positions moved (with update_bvh), a space partition rebuilt. Each value is checked against its exact
integral (numpy or closed form), computed independently of the earlier calls."""

import numpy as np
import pytest

import warp_nb as wp
import warp_nb.fem as fem
from warp_nb.fem.quadrature.quadrature import default_quadrature


@fem.integrand
def _one(s: fem.Sample):
    return 1.0


@fem.integrand
def _value(s: fem.Sample, u: fem.Field):
    return u(s)


@fem.integrand
def _u_times_v(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


@fem.integrand
def _x_times_v(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    return domain(s)[0] * v(s)


@fem.integrand
def _scaled_position(s: fem.Sample, domain: fem.Domain, factor: float):
    return (factor - 1.0) * domain(s)


@fem.integrand
def _doubled(s: fem.Sample, u: fem.Field):
    return 2.0 * u(s)


def test_node_values_changed_in_place_or_replaced_are_seen():
    geo = fem.Grid2D(res=wp.vec2i(2), bounds_hi=wp.vec2(2.0, 1.0))
    space = fem.make_polynomial_space(geo, degree=1)
    u = space.make_field()
    test = fem.make_test(space)
    for c in (1.0, 3.0, -0.5):
        u.dof_values.fill_(c)  # in place
        assert fem.integrate(_value, domain=fem.Cells(geo), fields={"u": u}) == pytest.approx(2.0 * c, rel=1e-6)
        # the linear form's sum over the test functions is the integral of u (they sum to one)
        assert fem.integrate(_u_times_v, fields={"u": u, "v": test}).numpy().sum() == pytest.approx(2.0 * c, rel=1e-5)
    u.dof_values = wp.full(space.node_count(), 4.0, dtype=float)  # replaced
    assert fem.integrate(_value, domain=fem.Cells(geo), fields={"u": u}) == pytest.approx(8.0, rel=1e-6)
    dest = space.make_field()
    fem.interpolate(_doubled, dest=dest, fields={"u": u})
    np.testing.assert_allclose(dest.dof_values.numpy(), 8.0)
    u.dof_values.fill_(1.5)
    fem.interpolate(_doubled, dest=dest, fields={"u": u})
    np.testing.assert_allclose(dest.dof_values.numpy(), 3.0)


def test_grid_argument_structs_are_kept_until_the_grid_changes():
    geo = fem.Grid2D(res=wp.vec2i(2))
    cells = fem.Cells(geo)
    assert geo.cell_arg_value("cpu") is geo.cell_arg_value("cpu")  # kept while nothing changed
    assert fem.integrate(_one, domain=cells) == pytest.approx(1.0, rel=1e-6)
    geo.bounds_hi = wp.vec2(3.0, 1.0)  # an attribute replaced
    assert fem.integrate(_one, domain=cells) == pytest.approx(3.0, rel=1e-6)
    geo.bounds_hi[1] = 2.0  # a vector attribute changed in place
    assert fem.integrate(_one, domain=cells) == pytest.approx(6.0, rel=1e-6)
    assert fem.integrate(_one, domain=fem.BoundarySides(geo)) == pytest.approx(10.0, rel=1e-6)


def test_deformed_geometry_follows_its_displacement():
    geo = fem.Grid2D(res=wp.vec2i(2))
    displacement = fem.make_polynomial_space(geo, degree=1, dtype=wp.vec2).make_field()
    deformed = displacement.make_deformed_geometry()
    cells = fem.Cells(deformed)
    for factor in (1.0, 2.0, 0.5):  # positions p * factor: the area is factor^2
        fem.interpolate(_scaled_position, dest=displacement, values={"factor": factor})
        assert fem.integrate(_one, domain=cells) == pytest.approx(factor * factor, rel=1e-5)


def test_mesh_positions_moved_in_place_are_seen():
    points = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    positions = wp.array(points, dtype=wp.vec2)
    mesh = fem.Trimesh2D(wp.array([[0, 1, 2], [1, 3, 2]], dtype=int), positions)
    cells = fem.Cells(mesh)
    assert fem.integrate(_one, domain=cells) == pytest.approx(1.0, rel=1e-6)
    positions.assign(points * np.array([3.0, 2.0]))
    mesh.update_bvh()
    assert fem.integrate(_one, domain=cells) == pytest.approx(6.0, rel=1e-6)


def test_rebuilt_space_partition_is_seen():
    geo = fem.Grid2D(res=wp.vec2i(3, 2), bounds_hi=wp.vec2(1.5, 1.0))
    space = fem.make_polynomial_space(geo, degree=1)
    mask = wp.zeros(geo.cell_count(), dtype=int)
    mask[:1].fill_(1)
    part = fem.ExplicitGeometryPartition(geo, mask)
    space_part = fem.make_space_partition(space.topology, part, with_halo=False)
    test = fem.make_test(space, space_partition=space_part)
    table = space.topology.element_node_indices().numpy()
    for owned_cells in (1, 3):
        if owned_cells != 1:
            mask[:owned_cells].fill_(1)
            part.rebuild(mask)
            space_part.rebuild()
        owned = np.unique(table[:owned_cells])
        # the oracle: the whole space's rows of the owned cells, from a domain of those cells alone
        cells_only = fem.ExplicitGeometryPartition(geo, wp.array((np.arange(6) < owned_cells).astype(int), dtype=int))
        rows = fem.integrate(_x_times_v, fields={"v": fem.make_test(space, domain=fem.Cells(cells_only))}).numpy()
        got = fem.integrate(_x_times_v, fields={"v": test}).numpy()
        assert got.shape == (len(owned),)
        np.testing.assert_allclose(got, rows[owned], rtol=1e-5, atol=1e-7)


def test_default_quadrature_is_one_rule_per_domain_and_order():
    geo = fem.Grid2D(res=wp.vec2i(2))
    cells = fem.Cells(geo)
    assert default_quadrature(cells, 2) is default_quadrature(cells, 2)
    assert default_quadrature(cells, 3) is not default_quadrature(cells, 2)
    assert default_quadrature(cells, 3).max_points_per_element() == 4  # 2 x 2 Gauss points
    u = fem.make_polynomial_space(geo, degree=2).make_field()
    fem.interpolate(_square_of_x, dest=u)  # x^2 exactly
    for _ in range(2):  # degree 2 field: order 2 by default, exact for x^2
        assert fem.integrate(_value, domain=fem.Cells(geo), fields={"u": u}) == pytest.approx(1.0 / 3.0, rel=1e-5)


@fem.integrand
def _square_of_x(s: fem.Sample, domain: fem.Domain):
    return domain(s)[0] * domain(s)[0]


def test_return_type_follows_the_fields_of_each_call():
    geo = fem.Grid2D(res=wp.vec2i(2))
    scalar = fem.make_polynomial_space(geo, degree=1).make_field()
    vector = fem.make_polynomial_space(geo, degree=1, dtype=wp.vec2).make_field()
    scalar.dof_values.fill_(2.0)
    vector.dof_values.fill_(wp.vec2(1.0, 3.0))
    for _ in range(2):
        s = fem.integrate(_value, domain=fem.Cells(geo), fields={"u": scalar})
        v = fem.integrate(_value, domain=fem.Cells(geo), fields={"u": vector})
        assert isinstance(s, float) and s == pytest.approx(2.0, rel=1e-6)
        assert np.allclose(np.array(v), [1.0, 3.0], rtol=1e-6)
