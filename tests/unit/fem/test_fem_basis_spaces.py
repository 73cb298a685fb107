"""Basis spaces and the factories around them: make_element_based_space_topology (node counts as
warp-lang 1.19 gives them, numbering as make_polynomial_space's), ShapeBasisSpace (a space built from
a topology and a shape reproduces quadratics exactly), make_covariant_function_space /
make_contravariant_function_space (Nedelec / Raviart-Thomas spaces that reproduce the fields their
families hold, with the dofs of make_polynomial_space's), and GeometryField (the base of the fields,
with the geometry, element kind, dtype and degree warp-lang reports)."""

import numpy as np
import pytest

import warp_nb as wp
import warp_nb.fem as fem
from warp_nb.fem.utils import grid_to_tris

EB = fem.ElementBasis


def _trimesh():
    pos = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [2, 0], [2, 1]], dtype=np.float32)
    tris = np.array([[0, 1, 2], [1, 3, 2], [1, 4, 3], [4, 5, 3]], dtype=np.int32)
    return fem.Trimesh2D(wp.array(tris, dtype=int), wp.array(pos, dtype=wp.vec2))


#: (geometry, basis, degree, discontinuous) -> node count, as warp-lang 1.19.0 numbers them (probed)
WARP_NODE_COUNTS = {
    ("grid", EB.LAGRANGE, 1, False): 12, ("grid", EB.LAGRANGE, 1, True): 24, ("grid", EB.LAGRANGE, 2, False): 35,
    ("grid", EB.LAGRANGE, 2, True): 54, ("grid", EB.SERENDIPITY, 2, False): 29, ("grid", EB.SERENDIPITY, 2, True): 48,
    ("grid", EB.NONCONFORMING_POLYNOMIAL, 1, True): 18, ("grid", EB.NEDELEC_FIRST_KIND, 1, False): 17,
    ("grid", EB.NEDELEC_FIRST_KIND, 1, True): 24, ("grid", EB.RAVIART_THOMAS, 1, False): 17,
    ("grid", EB.BSPLINE, 2, False): 30, ("grid", EB.BSPLINE, 2, True): 96, ("grid", EB.LAGRANGE, 0, False): 6,
    ("tri", EB.LAGRANGE, 1, False): 6, ("tri", EB.LAGRANGE, 2, False): 15, ("tri", EB.LAGRANGE, 2, True): 24,
    ("tri", EB.NEDELEC_FIRST_KIND, 1, False): 9, ("tri", EB.RAVIART_THOMAS, 1, True): 12,
    ("tri", EB.LAGRANGE, 0, True): 4,
}


@pytest.mark.parametrize("key", list(WARP_NODE_COUNTS), ids=lambda k: f"{k[0]}-{k[1].name}-{k[2]}-{k[3]}")
def test_element_based_topology_counts_nodes_as_warp(key):
    kind, basis, degree, discontinuous = key
    geo = fem.Grid2D(res=wp.vec2i(2, 3)) if kind == "grid" else _trimesh()
    shape = fem.make_element_shape_function(geo.reference_cell(), degree=degree, element_basis=basis)
    topology = fem.make_element_based_space_topology(geo, shape, discontinuous=discontinuous)
    assert isinstance(topology, fem.SpaceTopology)
    assert topology.node_count() == WARP_NODE_COUNTS[key]
    assert topology.NODES_PER_ELEMENT == shape.NODES_PER_ELEMENT
    if basis in (EB.NEDELEC_FIRST_KIND, EB.RAVIART_THOMAS) and discontinuous:
        return  # (no function space of warp_nb's to compare with: see the refusal test)
    space = fem.make_polynomial_space(geo, degree=degree, element_basis=basis, discontinuous=discontinuous)
    np.testing.assert_array_equal(topology.element_node_indices().numpy(),
                                  space.topology.element_node_indices().numpy())


def test_element_based_topology_refuses_what_warp_refuses():
    grid = fem.Grid2D(res=wp.vec2i(2, 2))
    with pytest.raises(ValueError, match="Unsupported shape function"):  # a triangle's shape on squares
        fem.make_element_based_space_topology(grid, fem.make_element_shape_function(fem.Element.TRIANGLE, degree=1))
    with pytest.raises(ValueError, match="Unsupported shape function"):  # non-conforming nodes have no continuity
        fem.make_element_based_space_topology(
            grid, fem.make_element_shape_function(grid.reference_cell(), 1, EB.NONCONFORMING_POLYNOMIAL))


@fem.integrand
def quadratic(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return 1.0 + x[0] - 2.0 * x[1] + 0.5 * x[0] * x[0] + 3.0 * x[0] * x[1]


@fem.integrand
def error_sq(s: fem.Sample, domain: fem.Domain, u: fem.Field):
    e = u(s) - quadratic(s, domain)
    return e * e


@fem.integrand
def value(s: fem.Sample, u: fem.Field):
    return u(s)


@pytest.mark.parametrize("kind", ["grid", "tri"])
def test_shape_basis_space_of_a_topology_reproduces_quadratics(kind):
    geo = fem.Grid2D(res=wp.vec2i(2, 3), bounds_hi=wp.vec2(2.0, 1.0)) if kind == "grid" else _trimesh()
    shape = fem.make_element_shape_function(geo.reference_cell(), degree=2)
    basis = fem.ShapeBasisSpace(fem.make_element_based_space_topology(geo, shape), shape)
    assert isinstance(basis, fem.BasisSpace) and basis.shape is shape and basis.geometry is geo
    assert basis.value == fem.ShapeFunction.Value.Scalar and basis.name.endswith(shape.name)
    u = fem.make_collocated_function_space(basis).make_field()
    fem.interpolate(quadratic, dest=u)
    assert fem.integrate(error_sq, fields={"u": u}, quadrature=fem.RegularQuadrature(fem.Cells(geo), order=6)) < 1e-10
    # the integral of the field, against the closed form of the quadratic's over the domain
    integral = fem.integrate(value, fields={"u": u}, quadrature=fem.RegularQuadrature(fem.Cells(geo), order=4))
    exact = 2.0 * (1.0 + 1.0 - 1.0 + 0.5 * 4.0 / 3.0 + 3.0 * 1.0 * 0.5) if kind == "grid" else \
        fem.integrate(quadratic, domain=fem.Cells(geo), quadrature=fem.RegularQuadrature(fem.Cells(geo), order=4))
    assert integral == pytest.approx(exact, rel=1e-5)


def test_shape_basis_space_refuses_a_shape_of_another_node_count():
    geo = fem.Grid2D(res=wp.vec2i(2, 2))
    q1 = fem.make_element_shape_function(geo.reference_cell(), degree=1)
    q2 = fem.make_element_shape_function(geo.reference_cell(), degree=2)
    with pytest.raises(ValueError, match="nodes per element"):
        fem.ShapeBasisSpace(fem.make_element_based_space_topology(geo, q1), q2)
    assert isinstance(fem.make_polynomial_basis_space(geo, degree=2), fem.ShapeBasisSpace)


@wp.func
def _curl_field(x: wp.vec2):  # in the lowest Nedelec space: constant plus rotation
    return wp.vec2(1.0 - 0.5 * x[1], 2.0 + 0.5 * x[0])


@wp.func
def _div_field(x: wp.vec2):  # in the lowest Raviart-Thomas space: constant plus dilation
    return wp.vec2(1.0, 2.0) + 0.7 * x


@fem.integrand
def vector_target(s: fem.Sample, domain: fem.Domain, curl: int):
    if curl:
        return _curl_field(domain(s))
    return _div_field(domain(s))


@fem.integrand
def vector_error_sq(s: fem.Sample, domain: fem.Domain, u: fem.Field, curl: int):
    e = u(s) - vector_target(s, domain, curl)
    return wp.dot(e, e)


def _sheared_trimesh():
    x = np.linspace(0.0, 1.0, 3)
    p = np.transpose(np.meshgrid(x, x, indexing="ij"), (1, 2, 0)).reshape(-1, 2) @ np.array([[1.0, 0.6], [-0.3, 0.9]]).T
    return fem.Trimesh2D(wp.array(grid_to_tris(2, 2), dtype=int), wp.array(p, dtype=wp.vec2))


@pytest.mark.parametrize("basis", [EB.NEDELEC_FIRST_KIND, EB.RAVIART_THOMAS])
@pytest.mark.parametrize("kind", ["grid", "tri"])
def test_covariant_and_contravariant_spaces_of_a_basis(basis, kind):
    geo = fem.Grid2D(res=wp.vec2i(3, 2), bounds_hi=wp.vec2(1.5, 0.5)) if kind == "grid" else _sheared_trimesh()
    basis_space = fem.make_polynomial_basis_space(geo, degree=1, element_basis=basis)
    assert basis_space.value == (fem.ShapeFunction.Value.CovariantVector if basis == EB.NEDELEC_FIRST_KIND
                                 else fem.ShapeFunction.Value.ContravariantVector)
    curl = int(basis == EB.NEDELEC_FIRST_KIND)
    make = fem.make_covariant_function_space if curl else fem.make_contravariant_function_space
    space = make(basis_space)
    assert space.dtype == wp.vec2 and space.topology is basis_space.topology
    u = space.make_field()
    fem.interpolate(vector_target, dest=u, values={"curl": curl})
    error = fem.integrate(vector_error_sq, fields={"u": u}, values={"curl": curl},
                          quadrature=fem.RegularQuadrature(fem.Cells(geo), order=3))
    assert error < 1e-9
    reference = fem.make_polynomial_space(geo, degree=1, element_basis=basis).make_field()
    fem.interpolate(vector_target, dest=reference, values={"curl": curl})
    assert np.abs(reference.dof_values.numpy()).max() > 0.1
    np.testing.assert_allclose(u.dof_values.numpy(), reference.dof_values.numpy(), atol=1e-6)
    # the other map is refused, as warp-lang refuses it
    other = fem.make_contravariant_function_space if curl else fem.make_covariant_function_space
    with pytest.raises(ValueError, match="may only be constructed from"):
        other(basis_space)


def test_vector_factories_refuse_other_bases():
    geo = fem.Grid2D(res=wp.vec2i(2, 2))
    with pytest.raises(ValueError, match="Covariant function spaces may only be constructed"):
        fem.make_covariant_function_space(fem.make_polynomial_basis_space(geo, degree=1))
    with pytest.raises(ValueError, match="Collocated function spaces may only be constructed from scalar"):
        fem.make_collocated_function_space(fem.make_polynomial_basis_space(geo, 1, element_basis=EB.RAVIART_THOMAS))
    shape = fem.make_element_shape_function(geo.reference_cell(), degree=1, element_basis=EB.NEDELEC_FIRST_KIND)
    discontinuous = fem.ShapeBasisSpace(fem.make_element_based_space_topology(geo, shape, discontinuous=True), shape)
    with pytest.raises(NotImplementedError, match="discontinuous"):
        fem.make_covariant_function_space(discontinuous)


@wp.func
def _x(x: wp.vec2):
    return x[0]


def test_geometry_field_is_the_base_of_fields_with_warps_attributes():
    geo = fem.Grid2D(res=wp.vec2i(2, 2))
    space = fem.make_polynomial_space(geo, degree=2, dtype=wp.vec2)
    discrete = space.make_field()
    cases = [  # (field, element kind, degree, dtype), as warp-lang 1.19.0 reports them (probed)
        (discrete, fem.ElementKind.CELL, 2, wp.vec2),
        (fem.make_test(space, domain=fem.Sides(geo)), fem.ElementKind.SIDE, 2, wp.vec2),
        (fem.make_trial(space), fem.ElementKind.CELL, 2, wp.vec2),
        (fem.ImplicitField(fem.Sides(geo), _x, degree=3), fem.ElementKind.SIDE, 3, None),
        (fem.UniformField(fem.BoundarySides(geo), wp.vec3(1.0)), fem.ElementKind.SIDE, 0, wp.vec3),
        (fem.NonconformingField(fem.Cells(geo), discrete), fem.ElementKind.CELL, 2, wp.vec2),
    ]
    for field, kind, degree, dtype in cases:
        assert isinstance(field, fem.GeometryField), type(field).__name__
        assert field.geometry is geo and field.element_kind == kind
        assert field.degree == degree and field.dtype == dtype
    with pytest.raises(NotImplementedError):
        _ = fem.GeometryField().geometry
