"""fem.node_inner_weight / node_outer_weight (and their _gradient) and fem.element_index: node weights
of a discrete field against the closed-form Q2 Lagrange basis (values and world gradients on a
stretched grid), on sides against the same field read on the side's inner and outer cells, on
Nedelec fields against the field's own value (sum of dof times signed weight, Piola-mapped); the
test / trial forms against the integrals and matrices of the fields' values; element_index against
subdomain lists and the elements a one-point-per-element quadrature visits."""

import numpy as np
import pytest

import warp_nb as wp
import warp_nb.fem as fem
from warp_nb.errors import KernelSyntaxError
from warp_nb.fem.utils import grid_to_tris
from warp_nb.sparse import bsr_axpy, bsr_copy, bsr_mv

HX, HY = 0.75, 0.5  # cell size of the stretched grid: world gradients are reference ones over these


def _grid():
    return fem.Grid2D(res=wp.vec2i(2, 1), bounds_hi=wp.vec2(2 * HX, HY))


@fem.integrand
def record_weights(s: fem.Sample, f: fem.Field, w: wp.array2d(dtype=float), g: wp.array2d(dtype=wp.vec2),
                   pos: wp.array(dtype=wp.vec2), domain: fem.Domain):
    pos[s.qp_index] = domain(s)
    for k in range(w.shape[1]):
        w[s.qp_index, k] = fem.node_inner_weight(f, s, k)
        g[s.qp_index, k] = fem.node_inner_weight_gradient(f, s, k)


def _lagrange_1d(nodes, i, x):
    others = [n for j, n in enumerate(nodes) if j != i]
    value = np.prod([(x - o) / (nodes[i] - o) for o in others])
    slope = sum(np.prod([(x - o) / (nodes[i] - o) for o in others if o is not skip]) / (nodes[i] - skip)
                for skip in others)
    return value, slope


def test_discrete_field_weights_are_the_q2_lagrange_basis():
    geo = _grid()
    space = fem.make_polynomial_space(geo, degree=2)
    field = space.make_field()
    quadrature = fem.RegularQuadrature(fem.Cells(geo), order=3)
    n = quadrature.total_point_count()
    w, g = wp.zeros((n, 9), dtype=float), wp.zeros((n, 9), dtype=wp.vec2)
    pos = wp.zeros(n, dtype=wp.vec2)
    fem.interpolate(record_weights, at=quadrature, fields={"f": field}, values={"w": w, "g": g, "pos": pos})
    w, g, pos = w.numpy(), g.numpy(), pos.numpy()
    node_coords = np.asarray(space.shape._node_coords())[:, :2]  # the shape's own node order
    nodes = [0.0, 0.5, 1.0]
    for q in range(n):
        x, y = pos[q, 0] / HX % 1.0, pos[q, 1] / HY  # reference coordinates in the point's cell
        for k, (a, b) in enumerate(node_coords):
            (lx, dx), (ly, dy) = _lagrange_1d(nodes, nodes.index(a), x), _lagrange_1d(nodes, nodes.index(b), y)
            assert w[q, k] == pytest.approx(lx * ly, abs=1e-5)
            np.testing.assert_allclose(g[q, k], [dx * ly / HX, lx * dy / HY], atol=1e-4)
    np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-5)  # a partition of unity
    np.testing.assert_allclose(g.sum(axis=1), 0.0, atol=1e-4)


@fem.integrand
def weighted_sum_error(s: fem.Sample, f: fem.Field, out: wp.array(dtype=float)):
    # sum over the element's nodes of node value times weight is the field's value, and its gradient too
    v = float(0.0)
    gv = wp.vec2(0.0)
    for k in range(fem.node_count(f, s)):
        dof = f(fem.at_node(f, s, k))
        v += dof * fem.node_inner_weight(f, s, node_index_in_elt=k)  # (Warp's keyword)
        gv += dof * fem.node_outer_weight_gradient(f, s, k)  # (on cells, outer is inner)
    out[s.qp_index] = wp.abs(v - f(s)) + wp.length(gv - fem.grad(f, s))


def test_weighted_node_values_give_the_field_and_its_gradient():
    geo = _grid()
    space = fem.make_polynomial_space(geo, degree=2)
    field = space.make_field()
    field.dof_values = wp.array(np.random.default_rng(3).normal(size=space.node_count()), dtype=float)
    quadrature = fem.RegularQuadrature(fem.Cells(geo), order=4)
    out = wp.zeros(quadrature.total_point_count(), dtype=float)
    fem.interpolate(weighted_sum_error, at=quadrature, fields={"f": field}, values={"out": out})
    assert np.abs(out.numpy()).max() < 1e-4


@fem.integrand
def side_vs_cells(s: fem.Sample, domain: fem.Domain, f: fem.Field, npe: int, out: wp.array2d(dtype=float)):
    cf = fem.cells(f)
    inner_s = fem.to_inner_cell(domain, s)
    outer_s = fem.to_outer_cell(domain, s)
    for k in range(npe):
        # nodes 0..npe-1 are the inner cell's, npe..2npe-1 the outer cell's; each weighs nothing in the other
        out[s.qp_index, 0] += wp.abs(fem.node_inner_weight(f, s, k) - fem.node_inner_weight(cf, inner_s, k))
        out[s.qp_index, 0] += wp.abs(fem.node_outer_weight(f, s, k + npe) - fem.node_inner_weight(cf, outer_s, k))
        out[s.qp_index, 0] += wp.length(fem.node_inner_weight_gradient(f, s, k)
                                        - fem.node_inner_weight_gradient(cf, inner_s, k))
        out[s.qp_index, 0] += wp.length(fem.node_outer_weight_gradient(f, s, k + npe)
                                        - fem.node_inner_weight_gradient(cf, outer_s, k))
        out[s.qp_index, 1] += wp.abs(fem.node_outer_weight(f, s, k)) + wp.abs(fem.node_inner_weight(f, s, k + npe))
        out[s.qp_index, 1] += wp.length(fem.node_outer_weight_gradient(f, s, k))
        out[s.qp_index, 1] += wp.length(fem.node_inner_weight_gradient(f, s, k + npe))
        out[s.qp_index, 2] += fem.node_inner_weight(f, s, k) + fem.node_outer_weight(f, s, k + npe)


def test_discrete_field_weights_on_sides_are_the_inner_then_outer_cells():
    geo = _grid()
    space = fem.make_polynomial_space(geo, degree=2)
    sides = fem.Sides(geo)
    quadrature = fem.RegularQuadrature(sides, order=2)
    out = wp.zeros((quadrature.total_point_count(), 3), dtype=float)
    fem.interpolate(side_vs_cells, at=quadrature, fields={"f": space.make_field().trace()},
                    values={"npe": 9, "out": out})
    out = out.numpy()
    assert np.abs(out[:, :2]).max() < 1e-4
    np.testing.assert_allclose(out[:, 2], 2.0, atol=1e-5)  # each cell's weights sum to 1


@fem.integrand
def weight_load(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    x = domain(s)
    return fem.node_inner_weight(v, s) * (1.0 + x[0]) + wp.dot(fem.node_inner_weight_gradient(v, s), wp.vec2(0.3, 1.7))


@fem.integrand
def value_load(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    x = domain(s)
    return fem.inner(v, s) * (1.0 + x[0]) + wp.dot(fem.grad(v, s), wp.vec2(0.3, 1.7))


@fem.integrand
def outer_weight_load(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    x = domain(s)
    return fem.node_outer_weight(v, s) * (1.0 + x[0]) + wp.dot(fem.node_outer_weight_gradient(v, s),
                                                                 wp.vec2(0.3, 1.7))


@fem.integrand
def outer_value_load(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    x = domain(s)
    return fem.outer(v, s) * (1.0 + x[0]) + wp.dot(fem.grad_outer(v, s), wp.vec2(0.3, 1.7))


@pytest.mark.parametrize("domain_kind", ["cells", "sides", "boundary"])
def test_test_field_weights_are_its_basis_functions(domain_kind):
    geo = _grid()
    space = fem.make_polynomial_space(geo, degree=2)
    domain = {"cells": fem.Cells, "sides": fem.Sides, "boundary": fem.BoundarySides}[domain_kind](geo)
    v = fem.make_test(space, domain=domain)
    for by_weight, by_value in ((weight_load, value_load), (outer_weight_load, outer_value_load)):
        a = fem.integrate(by_weight, fields={"v": v}, quadrature=fem.RegularQuadrature(domain, order=3)).numpy()
        b = fem.integrate(by_value, fields={"v": v}, quadrature=fem.RegularQuadrature(domain, order=3)).numpy()
        assert np.abs(b).max() > 0.1
        np.testing.assert_allclose(a, b, atol=1e-4)


@fem.integrand
def weight_mass(s: fem.Sample, u: fem.Field, v: fem.Field):
    return fem.node_inner_weight(u, s) * fem.node_inner_weight(v, s) + wp.dot(
        fem.node_inner_weight_gradient(u, s), fem.node_inner_weight_gradient(v, s))


@fem.integrand
def value_mass(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s) + wp.dot(fem.grad(u, s), fem.grad(v, s))


def test_trial_field_weights_assemble_the_same_matrix():
    geo = _grid()
    space = fem.make_polynomial_space(geo, degree=1)
    fields = {"u": fem.make_trial(space), "v": fem.make_test(space)}
    a = fem.integrate(weight_mass, fields=fields, output_dtype=float)
    b = fem.integrate(value_mass, fields=fields, output_dtype=float)
    x = wp.array(np.linspace(0.5, 2.0, space.node_count()), dtype=float)
    ya, yb = bsr_mv(a, x).numpy(), bsr_mv(b, x).numpy()
    assert np.abs(yb).max() > 0.1
    np.testing.assert_allclose(ya, yb, atol=1e-4)
    diff = bsr_copy(a)
    bsr_axpy(b, diff, alpha=-1.0)
    assert np.abs(diff.values.numpy()[:diff.nnz_sync()]).max() < 1e-5


def _trimesh():
    n = 2
    x = np.linspace(0.0, 1.0, n + 1)
    p = np.transpose(np.meshgrid(x, x, indexing="ij"), (1, 2, 0)).reshape(-1, 2) @ np.array([[1.0, 0.6], [-0.3, 0.9]]).T
    return fem.Trimesh2D(wp.array(grid_to_tris(n, n), dtype=int), wp.array(p, dtype=wp.vec2))


@fem.integrand
def nedelec_error(s: fem.Sample, domain: fem.Domain, f: fem.Field, dofs: wp.array(dtype=float),
                  out: wp.array(dtype=float)):
    ref = wp.vec2(0.0)
    for k in range(3):
        ref += dofs[fem.node_index(f, s, k)] * fem.node_inner_weight(f, s, k)
    world = wp.transpose(wp.inverse(fem.deformation_gradient(domain, s))) * ref  # the covariant Piola map
    out[s.qp_index] = wp.length(world - f(s))


def test_nedelec_weights_carry_the_node_orientation():
    # on a mesh, cells disagree on edge directions: the field is the Piola map of the sum of dof times
    # weight only if each weight carries its (cell, node) sign
    geo = _trimesh()
    space = fem.make_polynomial_space(geo, degree=1, element_basis=fem.ElementBasis.NEDELEC_FIRST_KIND)
    signs = space.topology.element_node_sign
    field = space.make_field()
    dofs = wp.array(np.random.default_rng(5).normal(size=space.node_count()), dtype=float)
    field.dof_values = dofs
    quadrature = fem.RegularQuadrature(fem.Cells(geo), order=2)
    out = wp.zeros(quadrature.total_point_count(), dtype=float)
    fem.interpolate(nedelec_error, at=quadrature, fields={"f": field}, values={"dofs": dofs, "out": out})
    assert signs is not None and np.abs(out.numpy()).max() < 1e-4


@fem.integrand
def weight_with_node(s: fem.Sample, v: fem.Field):
    return fem.node_inner_weight(v, s, 0)


@fem.integrand
def weight_without_node(s: fem.Sample, v: fem.Field):
    return fem.node_inner_weight(v, s)


def test_node_argument_is_refused_where_warp_forbids_or_requires_it():
    geo = _grid()
    space = fem.make_polynomial_space(geo, degree=1)
    with pytest.raises(KernelSyntaxError, match="must not be given"):
        fem.integrate(weight_with_node, fields={"v": fem.make_test(space)})
    with pytest.raises(KernelSyntaxError, match="is required"):
        fem.interpolate(weight_without_node, dest=space.make_field(), fields={"v": space.make_field()})


@fem.integrand
def record_element_index(s: fem.Sample, domain: fem.Domain):
    return fem.element_index(domain, s.qp_index)


@fem.integrand
def record_sample_element(s: fem.Sample, out: wp.array(dtype=int)):
    out[s.qp_index] = s.element_index


def test_element_index_maps_domain_elements_to_the_geometry():
    geo = fem.Grid2D(res=wp.vec2i(3, 2))
    boundary = fem.BoundarySides(geo)
    chosen = fem.Subdomain(boundary, element_indices=wp.array([4, 1, 7], dtype=int))
    masked = fem.Subdomain(fem.Cells(geo), element_mask=wp.array([1, 0, 0, 1, 1, 0], dtype=int))
    partition = fem.ExplicitGeometryPartition(geo, cell_mask=wp.array([0, 1, 1, 0, 1, 0], dtype=int))
    results = {}
    for name, domain in (("cells", fem.Cells(geo)), ("boundary", boundary), ("chosen", chosen), ("masked", masked),
                         ("partition", fem.Cells(partition))):
        n = domain.element_count()
        out = wp.zeros(n, dtype=int)
        fem.interpolate(record_element_index, dest=out, dim=n, at=domain)
        results[name] = out.numpy()
    # the elements a one-point rule visits, in the domain's order
    visited = wp.zeros(boundary.element_count(), dtype=int)
    fem.interpolate(record_sample_element, at=fem.RegularQuadrature(boundary, order=0), values={"out": visited})
    np.testing.assert_array_equal(results["cells"], np.arange(6))
    np.testing.assert_array_equal(results["boundary"], visited.numpy())
    assert sorted(results["boundary"]) == sorted(set(results["boundary"])) and len(results["boundary"]) == 10
    np.testing.assert_array_equal(results["chosen"], visited.numpy()[[4, 1, 7]])
    np.testing.assert_array_equal(results["masked"], [0, 3, 4])
    np.testing.assert_array_equal(results["partition"], [1, 2, 4])  # the partition's cells, in order
