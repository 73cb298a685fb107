"""warp_nb.fem's integration core on Grid2D / Grid3D: integrals against exact values, interpolation
exactness by degree, assembled matrices against their defining identities, a Poisson problem
with Dirichlet projection converging at the expected rate, the divergence theorem, gradients
through `integrate` against the linear form they must equal, and bad input refused with names."""

import numpy as np
import pytest

import warp_nb as wp
import warp_nb.fem as fem
from warp_nb.errors import KernelSyntaxError
from warp_nb.optim.linear import cg
from warp_nb.sparse import bsr_mv


@fem.integrand
def one(s: fem.Sample):
    return 1.0


@fem.integrand
def xy(s: fem.Sample, domain: fem.Domain):
    p = domain(s)
    return p[0] * p[1]


@fem.integrand
def quadratic(s: fem.Sample, domain: fem.Domain):
    p = domain(s)
    return p[0] * p[0] + 3.0 * p[0] * p[1]


@fem.integrand
def error_sq(s: fem.Sample, domain: fem.Domain, u: fem.Field):
    p = domain(s)
    e = u(s) - (p[0] * p[0] + 3.0 * p[0] * p[1])
    return e * e


@fem.integrand
def mass(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


@fem.integrand
def diffusion(s: fem.Sample, u: fem.Field, v: fem.Field):
    return wp.dot(fem.grad(u, s), fem.grad(v, s))


@fem.integrand
def source(s: fem.Sample, v: fem.Field, f: float):
    return f * v(s)


@fem.integrand
def boundary_value(s: fem.Sample, domain: fem.Domain, v: fem.Field):
    p = domain(s)
    return (p[0] * p[0] + p[1] * p[1]) * v(s)


@fem.integrand
def poisson_error_sq(s: fem.Sample, domain: fem.Domain, u: fem.Field):
    p = domain(s)
    e = u(s) - (p[0] * p[0] + p[1] * p[1])
    return e * e


@fem.integrand
def divergence(s: fem.Sample, u: fem.Field):
    return fem.div(u, s)


@fem.integrand
def flux(s: fem.Sample, domain: fem.Domain, u: fem.Field):
    return wp.dot(u(s), fem.normal(domain, s))


@fem.integrand
def field_value(s: fem.Sample, u: fem.Field):
    return u(s)


@fem.integrand
def scaled_test(s: fem.Sample, v: fem.Field, scale: wp.array(dtype=float)):
    return v(s) * scale[0]


def test_value_integrals_match_exact_values():
    geo = fem.Grid2D(res=wp.vec2i(4, 3), bounds_hi=wp.vec2(2.0, 1.0))
    cells = fem.Cells(geo)
    assert fem.integrate(one, domain=cells) == pytest.approx(2.0, rel=1e-6)
    assert fem.integrate(xy, quadrature=fem.RegularQuadrature(cells, order=2)) == pytest.approx(1.0, rel=1e-6)
    assert fem.integrate(one, domain=fem.BoundarySides(geo)) == pytest.approx(6.0, rel=1e-6)


@pytest.mark.parametrize("degree,exact", [(1, False), (2, True), (3, True)])
def test_interpolation_is_exact_from_the_polynomial_degree(degree, exact):
    geo = fem.Grid2D(res=wp.vec2i(3, 2))
    space = fem.make_polynomial_space(geo, degree=degree)
    assert space.node_count() == (3 * degree + 1) * (2 * degree + 1)
    field = space.make_field()
    fem.interpolate(quadratic, dest=field)
    cells = fem.Cells(geo)
    err = fem.integrate(error_sq, fields={"u": field}, quadrature=fem.RegularQuadrature(cells, order=6))
    assert (err < 1e-10) == exact


def test_mass_and_stiffness_matrices_satisfy_their_identities():
    geo = fem.Grid2D(res=wp.vec2i(4, 3), bounds_hi=wp.vec2(2.0, 1.0))
    space = fem.make_polynomial_space(geo, degree=2)
    u, v = fem.make_trial(space), fem.make_test(space)
    M = fem.integrate(mass, fields={"u": u, "v": v})
    K = fem.integrate(diffusion, fields={"u": u, "v": v})
    ones = wp.array(np.ones(space.node_count(), dtype=np.float32))
    assert bsr_mv(M, ones).numpy().sum() == pytest.approx(2.0, rel=1e-5)  # 1^T M 1 = area
    assert np.abs(bsr_mv(K, ones).numpy()).max() < 1e-4  # constants are in the kernel of K
    dense = np.zeros((space.node_count(), space.node_count()))
    offsets, columns, values = M.offsets.numpy(), M.columns.numpy(), M.values.numpy()
    for r in range(M.nrow):
        for k in range(offsets[r], offsets[r + 1]):
            dense[r, columns[k]] += values[k]
    assert np.allclose(dense, dense.T, atol=1e-6)
    assert np.all(np.linalg.eigvalsh(dense) > 0)
    b = fem.integrate(source, fields={"v": v}, values={"f": 3.0})
    assert b.numpy().sum() == pytest.approx(6.0, rel=1e-5)  # sum of basis functions is one


def _poisson_l2_error(n: int) -> float:
    geo = fem.Grid2D(res=wp.vec2i(n, n))
    space = fem.make_polynomial_space(geo, degree=1)
    v, u = fem.make_test(space), fem.make_trial(space)
    b = fem.integrate(source, fields={"v": v}, values={"f": -4.0})  # -lap(x^2 + y^2) = -4
    K = fem.integrate(diffusion, fields={"u": u, "v": v})
    boundary = fem.BoundarySides(geo)
    bv, bu = fem.make_test(space, domain=boundary), fem.make_trial(space, domain=boundary)
    P = fem.integrate(mass, fields={"u": bu, "v": bv}, assembly="nodal")
    g = fem.integrate(boundary_value, fields={"v": bv}, assembly="nodal")
    fem.project_linear_system(K, b, P, g)
    x = wp.zeros_like(b)
    iterations, residual, _ = cg(K, b, x, tol=1e-9, maxiter=2000)
    assert residual < 1e-6
    solution = space.make_field()
    solution.dof_values = x
    cells = fem.Cells(geo)
    return float(np.sqrt(fem.integrate(poisson_error_sq, fields={"u": solution},
                                       quadrature=fem.RegularQuadrature(cells, order=4))))


def test_poisson_with_dirichlet_projection_converges_at_second_order():
    coarse, fine = _poisson_l2_error(8), _poisson_l2_error(16)
    assert fine < 0.01
    assert coarse / fine > 3.3  # O(h^2): 4 in the limit


def test_divergence_theorem_for_a_quadratic_vector_field():
    rng = np.random.default_rng(3)
    geo = fem.Grid2D(res=wp.vec2i(4))
    space = fem.make_polynomial_space(geo, degree=2, dtype=wp.vec2)
    u = space.make_field()
    u.dof_values = wp.array(rng.random((space.node_count(), 2)).astype(np.float32), dtype=wp.vec2)
    inside = fem.integrate(divergence, fields={"u": u}, quadrature=fem.RegularQuadrature(fem.Cells(geo), order=2))
    boundary = fem.BoundarySides(geo)
    outside = fem.integrate(flux, fields={"u": u.trace()}, quadrature=fem.RegularQuadrature(boundary, order=2))
    assert inside == pytest.approx(outside, abs=1e-5)


def test_gradient_of_an_integral_is_the_linear_form():
    geo = fem.Grid2D(res=wp.vec2i(3))
    space = fem.make_polynomial_space(geo, degree=2)
    quadrature = fem.RegularQuadrature(fem.Cells(geo), order=3)
    u = space.make_field()
    u.dof_values = wp.zeros(space.node_count(), dtype=float, requires_grad=True)
    result = wp.zeros(1, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        fem.integrate(field_value, quadrature=quadrature, fields={"u": u}, output=result)
    tape.backward(result)
    linear = fem.integrate(scaled_test, quadrature=quadrature, fields={"v": fem.make_test(space)},
                           values={"scale": wp.ones(1, dtype=float)})
    assert np.allclose(u.dof_values.grad.numpy(), linear.numpy(), atol=1e-6)
    assert linear.numpy().sum() == pytest.approx(1.0, rel=1e-5)


@fem.integrand
def grad_of_value(s: fem.Sample, u: fem.Field, c: float):
    return fem.grad(c, s)


def test_bad_input_is_refused_with_the_names_involved():
    geo = fem.Grid2D(res=wp.vec2i(2))
    space = fem.make_polynomial_space(geo, degree=1)
    field = space.make_field()
    with pytest.raises(ValueError, match="no parameter `w`"):
        fem.integrate(field_value, domain=fem.Cells(geo), fields={"u": field, "w": field})
    with pytest.raises(ValueError, match="needs a value for `f`"):
        fem.integrate(source, fields={"v": fem.make_test(space)})
    with pytest.raises(ValueError, match="needs a test field"):
        fem.integrate(mass, domain=fem.Cells(geo), fields={"u": fem.make_trial(space), "v": field})
    with pytest.raises(KernelSyntaxError, match="grad_of_value") as info:
        fem.integrate(grad_of_value, domain=fem.Cells(geo), fields={"u": field}, values={"c": 1.0})
    assert "fem.grad" in str(info.value) and "test_fem_integrate_core.py" in str(info.value)
    with pytest.raises(TypeError, match="evaluated inside integrands"):
        fem.grad(field, None)


def test_normalized_projector_blocks_are_the_projectors_onto_their_range():
    # warp-lang 1.19: a float32 rank-1 block w n n^T becomes n n^T (its float32 rounding leaves tiny eigenvalues
    # that must not count as directions), a diagonal block of rank 2 the projector onto its two axes
    from warp_nb.sparse import bsr_set_from_triplets, bsr_zeros
    n = np.array([0.677, 0.677, 0.29])
    n /= np.linalg.norm(n)
    blocks = np.array([2.0 * np.outer(n, n), np.diag([3.0, 0.0, 0.0]), np.diag([2.0, 0.5, 0.0])], dtype=np.float32)
    P = bsr_zeros(3, 3, wp.mat33)
    bsr_set_from_triplets(P, wp.array([0, 1, 2], dtype=int), wp.array([0, 1, 2], dtype=int),
                          wp.array(blocks, dtype=wp.mat33))
    fem.normalize_dirichlet_projector(P)
    expected = [np.outer(n, n), np.diag([1.0, 0.0, 0.0]), np.diag([1.0, 1.0, 0.0])]
    np.testing.assert_allclose(P.values.numpy()[:3], expected, atol=1e-5)
    for block in P.values.numpy()[:3]:  # idempotent
        np.testing.assert_allclose(block @ block, block, atol=1e-5)


def test_fields_and_domains_of_two_alike_geometries_are_told_apart():
    """Two Grid2D objects: the error says which is which (their cell counts), not 'Grid2D, Grid2D'."""
    geo, other = fem.Grid2D(res=wp.vec2i(4)), fem.Grid2D(res=wp.vec2i(3))
    space, space_other = fem.make_polynomial_space(geo, degree=1), fem.make_polynomial_space(other, degree=1)
    with pytest.raises(ValueError, match=r"field `u` is defined on a Grid2D of 9 cells, the domain on a Grid2D of "
                                         r"16 cells: they must be the same geometry object"):
        fem.integrate(mass, fields={"u": fem.make_trial(space_other, domain=fem.Cells(other)),
                                    "v": fem.make_test(space, domain=fem.Cells(geo))})
    with pytest.raises(ValueError, match=r"the domain's geometry \(a Grid2D of 9 cells\) is not the space's "
                                         r"\(a Grid2D of 16 cells\)"):
        fem.make_test(space, domain=fem.Cells(other))
    twin = fem.Grid2D(res=wp.vec2i(4))
    with pytest.raises(ValueError, match=r"\(a Grid2D of 16 cells\) is not the space's \(another Grid2D of 16 cells\)"):
        fem.make_test(space, domain=fem.Cells(twin))


def test_a_calls_kernel_options_reach_its_kernels_over_the_integrands():
    """integrate(..., kernel_options=) and interpolate(..., kernel_options=) override the integrand's own
    options in the kernels they build (as Warp's), and a call with other options gets other kernels."""
    geo = fem.Grid2D(res=wp.vec2i(3))
    space = fem.make_polynomial_space(geo, degree=1)
    u = space.make_field()
    u.dof_values.fill_(2.0)
    plain = fem.integrate(field_value, fields={"u": u}, domain=fem.Cells(geo))
    before = set(map(id, field_value.cached_kernels.values()))
    lean = fem.integrate(field_value, fields={"u": u}, domain=fem.Cells(geo), kernel_options={"enable_backward": False})
    assert float(lean) == pytest.approx(float(plain)) == pytest.approx(2.0)
    new = [k for k in field_value.cached_kernels.values() if id(k) not in before]
    assert len(new) == 1 and new[0].options["enable_backward"] is False
    assert all(k.options.get("enable_backward") is not False for k in field_value.cached_kernels.values()
               if id(k) in before)
    v = space.make_field()
    fem.interpolate(field_value, dest=v, fields={"u": u}, kernel_options={"enable_backward": False})
    assert np.allclose(v.dof_values.numpy(), 2.0)
    assert any(k.options.get("enable_backward") is False and "interpolate" in k.key
               for k in field_value.cached_kernels.values())
    with pytest.raises(TypeError, match="`kernel_options` must be a dict"):
        fem.integrate(field_value, fields={"u": u}, domain=fem.Cells(geo), kernel_options=["enable_backward"])
