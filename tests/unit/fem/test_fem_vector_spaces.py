"""Nedelec (H(curl)) and Raviart-Thomas (H(div)) spaces: a linear field of the space is reproduced
exactly by interpolation on sheared meshes and grids, its div / curl equal the analytic values, and
a field of random dofs keeps its tangential (Nedelec) or normal (Raviart-Thomas) component
continuous across interior sides, while the other component jumps (so the check can fail). Also the
Jacobian of interpolation into such a space, and the one-block-per-node nodal matrix."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import fem
from warp_nb.fem.utils import grid_to_hexes, grid_to_quads, grid_to_tets, grid_to_tris
from warp_nb.sparse import bsr_zeros

N1, RT = fem.ElementBasis.NEDELEC_FIRST_KIND, fem.ElementBasis.RAVIART_THOMAS
_W = np.array([0.5, -0.25, 0.75])


def _geometry(kind: str):
    shear2 = np.array([[1.0, 0.6], [-0.3, 0.9]])
    shear3 = np.array([[1.0, 0.6, 0.2], [-0.3, 0.9, 0.1], [0.1, -0.2, 1.1]])
    if kind == "grid2":
        return fem.Grid2D(res=wp.vec2i(3, 2), bounds_hi=wp.vec2(1.5, 0.5))
    if kind == "grid3":
        return fem.Grid3D(res=wp.vec3i(2, 2, 1), bounds_hi=wp.vec3(1.0, 0.5, 2.0))
    if kind == "deformed":  # a grid bent by a quadratic map: cells that are not parallelograms
        grid = fem.Grid2D(res=wp.vec2i(3, 3))
        positions = fem.make_polynomial_space(grid, degree=2, dtype=wp.vec2).make_field()
        fem.interpolate(_bent, dest=positions)
        return positions.make_deformed_geometry(relative=False)
    n = 2
    x = np.linspace(0.0, 1.0, n + 1)
    if kind in ("tri", "quad"):
        p = np.transpose(np.meshgrid(x, x, indexing="ij"), (1, 2, 0)).reshape(-1, 2) @ shear2.T
        cells = grid_to_tris(n, n) if kind == "tri" else grid_to_quads(n, n)
        cls = fem.Trimesh2D if kind == "tri" else fem.Quadmesh2D
        return cls(wp.array(cells, dtype=int), wp.array(p, dtype=wp.vec2))
    p = np.transpose(np.meshgrid(x, x, x, indexing="ij"), (1, 2, 3, 0)).reshape(-1, 3) @ shear3.T
    cells = grid_to_tets(n, n, n) if kind == "tet" else grid_to_hexes(n, n, n)
    cls = fem.Tetmesh if kind == "tet" else fem.Hexmesh
    return cls(wp.array(cells, dtype=int), wp.array(p, dtype=wp.vec3))


@fem.integrand
def _bent(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return wp.vec2(x[0] + 0.2 * x[1] * x[1], x[1] + 0.3 * x[0] * x[1])


@wp.func
def _exact(x: wp.vec2, curl: int):
    if curl:
        return wp.vec2(1.0 - 0.5 * x[1], 2.0 + 0.5 * x[0])
    return wp.vec2(1.0, 2.0) + 0.7 * x


@wp.func
def _exact(x: wp.vec3, curl: int):  # an overload
    if curl:
        return wp.vec3(1.0, 2.0, 3.0) + wp.cross(wp.vec3(0.5, -0.25, 0.75), x)
    return wp.vec3(1.0, 2.0, 3.0) + 0.7 * x


@fem.integrand
def _exact_value(s: fem.Sample, domain: fem.Domain, curl: int):
    return _exact(domain(s), curl)


@fem.integrand
def _cell_error(s: fem.Sample, domain: fem.Domain, u: fem.Field, curl: int):
    return wp.length_sq(u(s) - _exact(domain(s), curl))


@fem.integrand
def _record_div(s: fem.Sample, u: fem.Field, out: wp.array(dtype=float)):
    out[s.qp_index] = fem.div(u, s)


@fem.integrand
def _record_curl_2d(s: fem.Sample, u: fem.Field, out: wp.array(dtype=float)):
    out[s.qp_index] = fem.curl(u, s)


@fem.integrand
def _record_curl_3d(s: fem.Sample, u: fem.Field, out: wp.array(dtype=wp.vec3)):
    out[s.qp_index] = fem.curl(u, s)


@fem.integrand
def _record_jumps(s: fem.Sample, domain: fem.Domain, u: fem.Field, out: wp.array(dtype=wp.vec2)):
    n = fem.normal(domain, s)
    jump = fem.inner(u, s) - fem.outer(u, s)
    normal_jump = wp.dot(jump, n)
    out[s.qp_index] = wp.vec2(wp.abs(normal_jump), wp.length(jump - normal_jump * n))


@pytest.mark.parametrize("kind", ["tri", "quad", "tet", "hex", "grid2", "grid3"])
def test_linear_fields_are_reproduced_with_exact_div_and_curl(kind):
    geo = _geometry(kind)
    quadrature = fem.RegularQuadrature(fem.Cells(geo), order=2)
    for basis in (N1, RT):
        curl = int(basis == N1)
        space = fem.make_polynomial_space(geo, degree=1, element_basis=basis)
        assert space.dtype == wp.types.vector(length=geo.dimension, dtype=wp.float32)
        assert space.dof_dtype == wp.float32 and space.NODE_DOF_COUNT == 1
        field = space.make_field()
        fem.interpolate(_exact_value, dest=field, values={"curl": curl})
        error = fem.integrate(_cell_error, quadrature=quadrature, fields={"u": field}, values={"curl": curl})
        assert error < 1.0e-9, (kind, basis)
        count = quadrature.total_point_count()
        if basis == RT:
            out = wp.zeros(count, dtype=float)
            fem.interpolate(_record_div, at=quadrature, fields={"u": field}, values={"out": out})
            np.testing.assert_allclose(out.numpy(), 0.7 * geo.dimension, atol=1e-4)
        elif geo.dimension == 2:
            out = wp.zeros(count, dtype=float)
            fem.interpolate(_record_curl_2d, at=quadrature, fields={"u": field}, values={"out": out})
            np.testing.assert_allclose(out.numpy(), 0.5, atol=1e-4)  # Warp's curl: half the rotational
        else:
            out = wp.zeros(count, dtype=wp.vec3)
            fem.interpolate(_record_curl_3d, at=quadrature, fields={"u": field}, values={"out": out})
            np.testing.assert_allclose(out.numpy(), np.broadcast_to(_W, (count, 3)), atol=1e-4)


@pytest.mark.parametrize("kind", ["tri", "quad", "tet", "hex", "grid3", "deformed"])
def test_random_fields_are_conforming_across_sides(kind):
    geo = _geometry(kind)
    sides = fem.RegularQuadrature(fem.Sides(geo), order=2)
    rng = np.random.default_rng(7)
    for basis in (N1, RT):
        space = fem.make_polynomial_space(geo, degree=1, element_basis=basis)
        field = space.make_field()
        field.dof_values = wp.array(rng.uniform(-1.0, 1.0, space.node_count()), dtype=float)
        out = wp.zeros(sides.total_point_count(), dtype=wp.vec2)
        fem.interpolate(_record_jumps, at=sides, fields={"u": field.trace()}, values={"out": out})
        normal_jump, tangential_jump = out.numpy()[:, 0], out.numpy()[:, 1]
        kept, free = (tangential_jump, normal_jump) if basis == N1 else (normal_jump, tangential_jump)
        assert kept.max() < 1e-4, (kind, basis)
        assert free.max() > 1e-2, (kind, basis)  # the other component does jump: the check can fail


@fem.integrand
def _value(s: fem.Sample, u: fem.Field):
    return u(s)


def test_interpolation_jacobian_from_a_lagrange_field():
    geo = _geometry("quad")
    vec2 = wp.vec2
    for basis in (N1, RT):
        space = fem.make_polynomial_space(geo, degree=1, element_basis=basis, dtype=vec2)
        lagrange = fem.make_polynomial_space(geo, degree=1, dtype=vec2)
        u = lagrange.make_field()
        u.dof_values = wp.array(np.random.default_rng(3).uniform(-1, 1, (lagrange.node_count(), 2)), dtype=vec2)
        direct = space.make_field()
        fem.interpolate(_value, dest=direct, fields={"u": u})
        jacobian = bsr_zeros(space.node_count(), lagrange.node_count(), block_type=wp.types.matrix(shape=(1, 2),
                                                                                                  dtype=float))
        fem.interpolate(_value, dest=jacobian, dest_space=space,
                        at=fem.make_space_restriction(space_topology=space.topology, domain=fem.Cells(geo)),
                        fields={"u": fem.make_trial(lagrange)})
        np.testing.assert_allclose((jacobian @ u.dof_values).numpy().ravel(), direct.dof_values.numpy(), atol=1e-5)


@fem.integrand
def _mass(s: fem.Sample, u: fem.Field, v: fem.Field):
    return wp.dot(u(s), v(s))


def test_nodal_matrix_holds_one_block_per_node():
    geo = _geometry("grid3")
    space = fem.make_polynomial_space(geo, degree=1, element_basis=RT)
    matrix = fem.integrate(_mass, fields={"u": fem.make_trial(space), "v": fem.make_test(space)}, assembly="nodal",
                           output_dtype=float)
    assert matrix.nnz == space.node_count() and matrix.values.shape == (space.node_count(),)
    np.testing.assert_array_equal(matrix.columns.numpy()[:matrix.nnz], np.arange(space.node_count()))


@fem.integrand
def _record_free_sample(s: fem.Sample, out: wp.array(dtype=wp.vec4)):
    out[s.qp_index] = wp.vec4(float(s.element_index), s.element_coords[0], s.qp_weight, float(s.test_dof[0]))


def test_interpolate_with_dim_gives_free_samples():
    """interpolate(dim=n) runs n times with Warp's free sample: no element, OUTSIDE coordinates, weight 1/n."""
    out = wp.zeros(4, dtype=wp.vec4)
    fem.interpolate(_record_free_sample, at=fem.Cells(_geometry("grid2")), dim=3, values={"out": out})
    np.testing.assert_allclose(out.numpy()[:3], np.tile([-1.0, fem.OUTSIDE, 1.0 / 3.0, -1.0], (3, 1)), rtol=1e-6)
    np.testing.assert_array_equal(out.numpy()[3], 0.0)


@fem.integrand
def _test_at_free_sample(s: fem.Sample, v: fem.Field):
    sample = fem.make_free_sample(s.element_index, s.element_coords)
    return wp.dot(v(sample), wp.vec2(1.0)) + wp.trace(fem.grad(v, sample))


@fem.integrand
def _test_at_lookup(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    return wp.dot(v(fem.lookup(domain, domain(s))), wp.vec2(1.0))


@fem.integrand
def _test_at_own_sample(s: fem.Sample, v: fem.Field):
    return wp.dot(v(s), wp.vec2(1.0))


def test_test_functions_vanish_at_samples_without_a_dof():
    geo = _geometry("grid2")
    for space in (fem.make_polynomial_space(geo, degree=1, dtype=wp.vec2),
                  fem.make_polynomial_space(geo, element_basis=RT), fem.make_polynomial_space(geo, element_basis=N1)):
        v = fem.make_test(space)
        for form in (_test_at_free_sample, _test_at_lookup):
            np.testing.assert_array_equal(fem.integrate(form, fields={"v": v}).numpy(), 0.0)
        assert np.abs(fem.integrate(_test_at_own_sample, fields={"v": v}).numpy()).max() > 0.0  # the check can fail
