"""Domains over geometry partitions, space partitions and integrals over them, against numpy: an
integral over a partition's cells (sides, boundary sides, frontier sides) equals the sum of the
per-element integrals of the whole geometry over the elements the partition lists; a space
partition's nodes are the nodes of its cells (plus the halo's), found from the element-node table
independently; a partitioned test field gives the partition's rows of the whole-space vector."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import fem
from warp_nb.fem.geometry.partition import side_cells


@fem.integrand
def _x_squared_plus_y(s: fem.Sample, domain: fem.Domain):
    p = domain(s)
    return p[0] * p[0] + p[1]


@fem.integrand
def _test_times_x(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    return v(s) * domain(s)[0]


@fem.integrand
def _mass(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


def _per_element(domain_cls, geo):
    """Each element's integral of x^2 + y over the whole geometry, one subdomain of one element at a time."""
    whole = domain_cls(geo)
    out = []
    for e in range(whole.element_count()):
        sub = fem.Subdomain(whole, element_indices=wp.array([e], dtype=wp.int32))
        out.append(fem.integrate(_x_squared_plus_y, domain=sub, quadrature=fem.RegularQuadrature(sub, order=3)))
    return np.array(out)


@pytest.fixture(scope="module")
def grid():
    return fem.Grid2D(res=wp.vec2i(3, 2), bounds_hi=wp.vec2(1.5, 1.0))


def test_partition_integrals_are_sums_over_their_elements(grid):
    mask = np.array([1, 0, 1, 1, 0, 0])
    part = fem.ExplicitGeometryPartition(grid, wp.array(mask, dtype=int))
    cells = _per_element(fem.Cells, grid)
    sides = _per_element(fem.Sides, grid)
    # the partition's element lists, computed independently from the side cells
    sc = side_cells(grid)
    owned_sides = np.flatnonzero(mask[sc[:, 0]] != 0)
    frontier = np.flatnonzero((mask[sc[:, 0]] != 0) != (mask[sc[:, 1]] != 0))
    owned_boundary = np.flatnonzero((mask[sc[:, 0]] != 0) & (sc[:, 0] == sc[:, 1]))
    expected = {
        fem.Cells: cells[mask != 0].sum(),
        fem.Sides: sides[owned_sides].sum(),
        fem.FrontierSides: sides[frontier].sum(),
        fem.BoundarySides: sides[owned_boundary].sum(),
    }
    for domain_cls, value in expected.items():
        domain = domain_cls(part)
        assert domain.geometry is grid and domain.geometry_partition is part
        got = fem.integrate(_x_squared_plus_y, domain=domain, quadrature=fem.RegularQuadrature(domain, order=3))
        assert got == pytest.approx(value, rel=1e-5, abs=1e-6), domain_cls.__name__


def test_linear_partitions_cover_the_geometry(grid):
    total = fem.integrate(_x_squared_plus_y, domain=fem.Cells(grid))
    parts = [fem.Cells(fem.LinearGeometryPartition(grid, r, 4)) for r in range(4)]
    assert sum(fem.integrate(_x_squared_plus_y, domain=d) for d in parts) == pytest.approx(total, rel=1e-5)
    assert fem.Cells(grid) != parts[0] and parts[0] == fem.Cells(parts[0].geometry_partition)


def test_space_partition_nodes_and_partitioned_rows(grid):
    space = fem.make_polynomial_space(grid, degree=1)
    mask = np.array([0, 1, 0, 0, 1, 0])
    part = fem.ExplicitGeometryPartition(grid, wp.array(mask, dtype=int))
    table = space.topology.element_node_indices().numpy()
    # numpy: the nodes of the owned cells, then the halo (cells across the frontier), each ascending
    owned = np.unique(table[mask != 0])
    sc = side_cells(grid)
    frontier = sc[(mask[sc[:, 0]] != 0) != (mask[sc[:, 1]] != 0)]
    halo_cells = np.setdiff1d(np.unique(frontier), np.flatnonzero(mask))
    halo = np.setdiff1d(np.unique(table[halo_cells]), owned)

    no_halo = fem.make_space_partition(space.topology, part, with_halo=False)
    np.testing.assert_array_equal(no_halo.space_node_indices().numpy(), owned)
    with_halo = fem.make_space_partition(space.topology, part)
    np.testing.assert_array_equal(with_halo.space_node_indices().numpy(), np.concatenate([owned, halo]))
    assert with_halo.owned_node_count() == len(owned)

    whole_rhs = fem.integrate(_test_times_x, fields={"v": fem.make_test(space)}).numpy()
    part_rhs = fem.integrate(_test_times_x, fields={"v": fem.make_test(space, space_partition=no_halo)}).numpy()
    # over the partition's cells only: the whole geometry's rows minus the other cells' contributions
    others = fem.ExplicitGeometryPartition(grid, wp.array(1 - mask, dtype=int))
    rest = fem.integrate(_test_times_x, fields={"v": fem.make_test(space, domain=fem.Cells(others))}).numpy()
    np.testing.assert_allclose(part_rhs, (whole_rhs - rest)[owned], rtol=1e-5, atol=1e-6)

    matrix = fem.integrate(_mass, fields={"u": fem.make_trial(space, space_partition=no_halo),
                                          "v": fem.make_test(space, space_partition=no_halo)})
    assert (matrix.nrow, matrix.ncol) == (len(owned), len(owned))


def test_partition_rebuild_and_restriction(grid):
    space = fem.make_polynomial_space(grid, degree=1)
    mask = wp.zeros(grid.cell_count(), dtype=int)
    mask[:1].fill_(1)
    part = fem.ExplicitGeometryPartition(grid, mask)
    space_part = fem.make_space_partition(space.topology, part, with_halo=False)
    restriction = fem.make_space_restriction(space_partition=space_part, domain=fem.Cells(part))
    assert restriction.node_count() == 4
    mask[:3].fill_(1)
    part.rebuild(mask)
    space_part.rebuild()
    restriction.rebuild()
    table = space.topology.element_node_indices().numpy()
    expected = np.unique(table[:3])
    np.testing.assert_array_equal(space_part.space_node_indices().numpy(), expected)
    np.testing.assert_array_equal(restriction.node_partition_indices().numpy(), np.arange(len(expected)))
    assert restriction.node_arg_value("cpu").dof_partition_indices.ptr == restriction._dof_partition_indices.ptr


def test_environment_first_offsets_and_capacity(grid):
    space = fem.make_polynomial_space(grid, degree=0, discontinuous=True)
    geo = fem.Grid2D(res=wp.vec2i(2), env_count=3)
    space = fem.make_polynomial_space(geo, degree=0, discontinuous=True)
    part = fem.make_space_partition(space.topology, environment_first=True)
    np.testing.assert_array_equal(part.env_offsets.numpy(), [0, 4, 8, 12])
    capped = fem.make_space_partition(space.topology, environment_first=True, max_node_count=6)
    np.testing.assert_array_equal(capped.env_offsets.numpy(), [0, 4, 6, 6])
    assert capped.node_count() == 6
    with pytest.raises(ValueError, match="with_halo"):
        fem.make_space_partition(space.topology, fem.LinearGeometryPartition(geo, 0, 2), environment_first=True)


@fem.integrand
def _x_at(s: fem.Sample, domain: fem.Domain):
    return domain(s)[0] + 2.0 * domain(s)[1]


@fem.integrand
def _field_value(s: fem.Sample, f: fem.Field):
    return f(s)


def test_partitioned_field_interpolation_and_evaluation(grid):
    space = fem.make_polynomial_space(grid, degree=1)
    mask = np.array([1, 1, 0, 0, 0, 0])
    part = fem.ExplicitGeometryPartition(grid, wp.array(mask, dtype=int))
    space_part = fem.make_space_partition(space.topology, part, with_halo=False)
    field = space.make_field(space_partition=space_part)
    assert field.dof_values.shape == (space_part.node_count(),)
    fem.interpolate(_x_at, dest=field)
    # node values: x + 2y at the partition's nodes, in its order (numpy from the grid's vertices)
    res_y = 2
    nodes = space_part.space_node_indices().numpy()
    x, y = (nodes // (res_y + 1)) * 0.5, (nodes % (res_y + 1)) * 0.5
    np.testing.assert_allclose(field.dof_values.numpy(), x + 2.0 * y, rtol=1e-6)
    # a linear function is reproduced exactly on the partition's cells: its integral there is numpy's
    domain = fem.Cells(part)
    got = fem.integrate(_field_value, domain=domain, fields={"f": field})
    want = fem.integrate(_x_at, domain=domain)
    assert got == pytest.approx(want, rel=1e-5)
