"""Samples that carry no dof, node contributions of discrete fields, node interpolation (its
reductions and its gradient), and the output layouts of linear forms: each against values
computed independently with numpy or by finite differences."""

import numpy as np
import pytest

import warp_nb as wp
import warp_nb.fem as fem


@fem.integrand
def test_at_lookup(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    return v(fem.lookup(domain, domain(s)))


@fem.integrand
def test_at_lookup_guess(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    return v(fem.lookup(domain, domain(s), guess=s))


@fem.integrand
def test_at_free_sample(s: fem.Sample, v: fem.Field):
    return v(fem.make_free_sample(s.element_index, s.element_coords))


@fem.integrand
def test_value(s: fem.Sample, v: fem.Field):
    return v(s)


@fem.integrand
def node_sum(s: fem.Sample, w: fem.Field):
    total = float(0.0)
    for k in range(fem.node_count(w, s)):
        total += w(s, k)
    return total


@fem.integrand
def node_zero(s: fem.Sample, w: fem.Field):
    return w(s, 0)


@fem.integrand
def field_value(s: fem.Sample, w: fem.Field):
    return w(s)


@fem.integrand
def test_at_other_field_nodes(s: fem.Sample, w: fem.Field, v: fem.Field):
    total = float(0.0)
    for k in range(fem.node_count(w, s)):
        total += v(fem.at_node(w, s, k))
    return total


@fem.integrand
def element_index_value(s: fem.Sample):
    return float(s.element_index)


@fem.integrand
def squared(s: fem.Sample, u: fem.Field):
    return u(s) * u(s)


@fem.integrand
def vector_load(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    p = domain(s)
    return wp.dot(wp.vec2(1.0 + p[0], 2.0 - p[1]), v(s))


def _grid_space(degree=1, res=3, dtype=float):
    geo = fem.Grid2D(res=wp.vec2i(res))
    return geo, fem.make_polynomial_space(geo, degree=degree, dtype=dtype)


@pytest.mark.parametrize("form", [test_at_lookup, test_at_lookup_guess, test_at_free_sample])
def test_test_function_vanishes_at_samples_without_dofs(form):
    geo, space = _grid_space()
    v = fem.make_test(space)
    np.testing.assert_array_equal(fem.integrate(form, fields={"v": v}).numpy(), 0.0)
    # the same test function at its own samples integrates to the basis functions' integrals
    direct = fem.integrate(test_value, fields={"v": v}).numpy()
    assert direct.min() > 0.0 and abs(direct.sum() - 1.0) < 1.0e-5


def test_test_function_vanishes_at_another_fields_nodes():
    geo, space = _grid_space(degree=2)
    w = space.make_field()
    v = fem.make_test(space)
    result = fem.integrate(test_at_other_field_nodes, fields={"w": w, "v": v})
    np.testing.assert_array_equal(result.numpy(), 0.0)


def test_node_contributions_of_a_discrete_field():
    geo, space = _grid_space(res=2)
    w = space.make_field()
    values = np.arange(space.node_count(), dtype=np.float32) ** 2
    w.dof_values = wp.array(values)
    cells = fem.Cells(geo)
    whole = fem.integrate(field_value, fields={"w": w}, domain=cells)
    assert abs(fem.integrate(node_sum, fields={"w": w}, domain=cells) - whole) < 1.0e-5
    # node 0 of each cell is its lower-left vertex; a bilinear basis function integrates to a
    # quarter of the cell's area (1/16 on a 2x2 grid of the unit square)
    first = fem.integrate(node_zero, fields={"w": w}, domain=cells)
    nodes = space.topology.element_node_indices().numpy()[:, 0]
    assert abs(first - values[nodes].sum() / 16.0) < 1.0e-5


def test_weighted_average_weighs_element_measures():
    positions = wp.array(np.array([[0, 0], [1, 0], [0, 1], [3, 3]], dtype=np.float32), dtype=wp.vec2)
    triangles = wp.array(np.array([[0, 1, 2], [1, 3, 2]], dtype=np.int32), dtype=int)
    geo = fem.Trimesh2D(tri_vertex_indices=triangles, positions=positions)
    field = fem.make_polynomial_space(geo, degree=1).make_field()
    areas = np.array([0.5, 2.5])
    fem.interpolate(element_index_value, dest=field, reduction="weighted_average")
    shared = (0.0 * areas[0] + 1.0 * areas[1]) / areas.sum()
    np.testing.assert_allclose(field.dof_values.numpy(), [0.0, shared, shared, 1.0], rtol=1.0e-6)
    fem.interpolate(element_index_value, dest=field, reduction="mean")
    np.testing.assert_allclose(field.dof_values.numpy(), [0.0, 0.5, 0.5, 1.0], rtol=1.0e-6)


def test_node_interpolation_records_on_the_tape():
    geo, space = _grid_space(res=2)
    u = space.make_field()
    u.dof_values = wp.array(np.linspace(-1.0, 2.0, space.node_count()).astype(np.float32), requires_grad=True)
    out = space.make_field()
    out.dof_values.requires_grad = True
    tape = wp.Tape()
    with tape:
        fem.interpolate(squared, dest=out, fields={"u": u})
    np.testing.assert_allclose(out.dof_values.numpy(), u.dof_values.numpy() ** 2, rtol=1.0e-5, atol=1.0e-6)
    seed = np.linspace(0.5, 1.5, space.node_count()).astype(np.float32)
    tape.backward(grads={out.dof_values: wp.array(seed)})
    # d(sum seed * u^2)/du = 2 seed u at every node (each cell's value at a node is the same)
    np.testing.assert_allclose(u.dof_values.grad.numpy(), 2.0 * seed * u.dof_values.numpy(), rtol=1.0e-5,
                               atol=1.0e-6)


def test_scalar_output_layouts_of_a_vector_space():
    geo, space = _grid_space(res=2, dtype=wp.vec2)
    v = fem.make_test(space)
    nodes = space.node_count()
    reference = fem.integrate(vector_load, fields={"v": v}).numpy()
    flat = wp.zeros(nodes * 2 + 3, dtype=float)
    fem.integrate(vector_load, fields={"v": v}, output=flat)
    np.testing.assert_allclose(flat.numpy()[: nodes * 2], reference.reshape(-1), rtol=1.0e-6)
    np.testing.assert_array_equal(flat.numpy()[nodes * 2:], 0.0)
    table = wp.zeros((nodes, 2), dtype=float)
    fem.integrate(vector_load, fields={"v": v}, output=table)
    np.testing.assert_allclose(table.numpy(), reference, rtol=1.0e-6)
    with pytest.raises(RuntimeError, match="last dimension must be of size 2"):
        fem.integrate(vector_load, fields={"v": v}, output=wp.zeros((nodes, 1), dtype=float))
    with pytest.raises(RuntimeError, match=f"at least {nodes * 2} entries"):
        fem.integrate(vector_load, fields={"v": v}, output=wp.zeros(nodes * 2 - 1, dtype=float))
    with pytest.raises(RuntimeError, match="contiguous"):
        fem.integrate(vector_load, fields={"v": v}, output=wp.zeros(nodes * 4, dtype=float)[::2])


def test_uniform_field_keeps_its_type():
    field = fem.UniformField(fem.Cells(fem.Grid2D(res=wp.vec2i(1))), 1.0)
    field.value = 2.5
    assert float(field.value) == 2.5
    with pytest.raises(TypeError, match="must remain float32, got vec2f"):
        field.value = wp.vec2(1.0)


def test_array_view_keeps_its_gradient():
    a = wp.zeros(4, dtype=wp.vec2, requires_grad=True)
    flat = a.view(wp.float32).flatten()
    assert flat.grad is not None and flat.grad.ptr == a.grad.ptr and flat.grad.shape == (8,)
