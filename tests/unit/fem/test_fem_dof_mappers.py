"""Dof mappers and B-spline spaces.

Mappers: a unit dof maps to a value of unit norm under 0.5 (a : a) and back exactly (Warp's test
asks for exact zeros); value_to_dof projects any matrix on the symmetric (or skew) part, checked
against numpy; a space with a SymmetricTensorMapper stores vec3 dofs and reproduces a symmetric
matrix field exactly. B-splines: node counts of the padded lattice and exact linear fields."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import fem


def _units(mapper):
    size = mapper.DOF_SIZE
    if size == 1:
        return [1.0]
    return [mapper.dof_dtype(*np.eye(size)[k]) for k in range(size)]


@pytest.mark.parametrize("mapper", [fem.SymmetricTensorMapper(wp.mat22), fem.SymmetricTensorMapper(wp.mat33),
                                    fem.SymmetricTensorMapper(wp.mat22, fem.SymmetricTensorMapper.Mapping.DB16),
                                    fem.SymmetricTensorMapper(wp.mat33, fem.SymmetricTensorMapper.Mapping.DB16),
                                    fem.SkewSymmetricTensorMapper(wp.mat22), fem.SkewSymmetricTensorMapper(wp.mat33)],
                         ids=str)
def test_mapper_round_trip_norm_and_projection(mapper):
    n = mapper.value_dtype._shape_[0]
    basis = []
    for unit in _units(mapper):
        value = np.array(mapper.dof_to_value(unit)).reshape(n, n)
        basis.append(value)
        assert 0.5 * np.sum(value * value) == pytest.approx(1.0, abs=1e-6)
        np.testing.assert_array_equal(np.atleast_1d(np.array(mapper.value_to_dof(mapper.value_dtype(*value.ravel())))),
                                      np.atleast_1d(np.array(unit)))
    # any matrix: its dofs are the 0.5 (B_k : M) of the basis, so mapping back gives its (skew-)symmetric part
    m = np.random.default_rng(1).normal(size=(n, n))
    dofs = np.atleast_1d(np.array(mapper.value_to_dof(mapper.value_dtype(*m.ravel())), dtype=np.float64))
    np.testing.assert_allclose(dofs, [0.5 * np.sum(b * m) for b in basis], atol=1e-5)
    part = 0.5 * (m - m.T) if isinstance(mapper, fem.SkewSymmetricTensorMapper) else 0.5 * (m + m.T)
    np.testing.assert_allclose(sum(d * b for d, b in zip(dofs, basis)), part, atol=1e-5)


@fem.integrand
def _sym_field(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return wp.mat22(1.0 + x[0], 2.0 * x[1], 2.0 * x[1], 3.0 - x[0])


@fem.integrand
def _sym_error(s: fem.Sample, domain: fem.Domain, tau: fem.Field):
    x = domain(s)
    e = tau(s) - wp.mat22(1.0 + x[0], 2.0 * x[1], 2.0 * x[1], 3.0 - x[0])
    return wp.ddot(e, e)


def test_symmetric_tensor_space_stores_mapped_dofs():
    geo = fem.Grid2D(res=wp.vec2i(3))
    space = fem.make_polynomial_space(geo, degree=1, dtype=wp.mat22, dof_mapper=fem.SymmetricTensorMapper(wp.mat22))
    assert space.dtype == wp.mat22 and space.dof_dtype == wp.vec3 and space.NODE_DOF_COUNT == 3
    field = space.make_field()
    assert field.dof_values.dtype == wp.vec3
    fem.interpolate(_sym_field, dest=field)
    # node (0, 0) of the grid: x = (0, 0), value diag(1, 3): Voigt dofs (1/sqrt2, 3/sqrt2, 0)
    np.testing.assert_allclose(field.dof_values.numpy()[0], [1 / np.sqrt(2), 3 / np.sqrt(2), 0.0], atol=1e-6)
    assert fem.integrate(_sym_error, domain=fem.Cells(geo), fields={"tau": field}) < 1e-10


@fem.integrand
def _linear(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return 2.0 + x[0] - 0.5 * x[1]


@fem.integrand
def _linear_error(s: fem.Sample, domain: fem.Domain, u: fem.Field):
    x = domain(s)
    e = u(s) - (2.0 + x[0] - 0.5 * x[1])
    return e * e


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_bspline_space_reproduces_linear_fields(degree):
    geo = fem.Grid2D(res=wp.vec2i(3, 2))
    space = fem.make_polynomial_space(geo, degree=degree, element_basis=fem.ElementBasis.BSPLINE)
    per_dim = 2 if degree == 1 else 4
    assert space.node_count() == (3 + per_dim - 1) * (2 + per_dim - 1)
    field = space.make_field()
    fem.interpolate(_linear, dest=field)
    error = fem.integrate(_linear_error, quadrature=fem.RegularQuadrature(fem.Cells(geo), order=2 * degree),
                          fields={"u": field})
    assert error < 1e-10
