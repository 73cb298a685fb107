"""Reference elements and 1-D point families: quadrature rules integrate monomials exactly up to their
order (against closed-form integrals), Lagrange scales make each Lagrange polynomial 1 at its point, and
the elements' device functions (projection, reference displacements) agree with numpy."""

import itertools
import math

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.fem.geometry.element import Cube, LinearEdge, Square, Tetrahedron, Triangle
from warp_nb.fem.polynomial import Polynomial, lagrange_scales, quadrature_1d

FAMILIES = list(Polynomial)


@pytest.mark.parametrize("family", FAMILIES)
def test_1d_rules_sum_to_one_and_integrate_their_degree(family):
    closed = family in (Polynomial.LOBATTO_GAUSS_LEGENDRE, Polynomial.EQUISPACED_CLOSED)
    for n in range(2 if closed else 1, 8):
        x, w = quadrature_1d(n, family)
        assert np.all(np.diff(np.sort(x)) > 0) and x.min() >= 0 and x.max() <= 1
        exact_degree = {Polynomial.GAUSS_LEGENDRE: 2 * n - 1, Polynomial.LOBATTO_GAUSS_LEGENDRE: 2 * n - 3}.get(
            family, n - 1
        )
        for k in range(exact_degree + 1):
            assert np.dot(w, x**k) == pytest.approx(1.0 / (k + 1), abs=1e-10)
        if closed:
            assert x[0] == 0.0 and x[-1] == 1.0


def test_lagrange_scales_normalise_each_basis_polynomial():
    x, _ = quadrature_1d(5, Polynomial.GAUSS_LEGENDRE)
    s = lagrange_scales(x)
    for i in range(5):
        others = np.delete(x, i)
        assert s[i] * np.prod(x[i] - others) == pytest.approx(1.0)


def test_bad_point_counts_name_the_argument():
    with pytest.raises(ValueError, match="point_count"):
        quadrature_1d(0, Polynomial.GAUSS_LEGENDRE)
    with pytest.raises(ValueError, match="order"):
        Square().instantiate_quadrature(-1, Polynomial.GAUSS_LEGENDRE)


def _exact_simplex_monomial(powers):
    """Integral of x^a y^b (z^c) over the unit simplex: a! b! c! / (a + b + c + d)!"""
    d = len(powers)
    return math.prod(math.factorial(p) for p in powers) / math.factorial(sum(powers) + d)


@pytest.mark.parametrize("family", FAMILIES + [None])
def test_element_rules_are_exact_on_monomials(family):
    for order in range(6):
        for elt, dim in ((LinearEdge(), 1), (Square(), 2), (Cube(), 3)):
            coords, weights = elt.instantiate_quadrature(order, family)
            assert sum(weights) == pytest.approx(1.0)
            for powers in itertools.product(range(order + 1), repeat=dim):
                if sum(powers) > order:
                    continue
                got = sum(w * math.prod(c[i] ** p for i, p in enumerate(powers)) for c, w in zip(coords, weights))
                assert got == pytest.approx(math.prod(1.0 / (p + 1) for p in powers), abs=1e-9)

        coords, weights = Triangle().instantiate_quadrature(order, family)
        assert all(abs(sum(c) - 1.0) < 1e-12 for c in coords)
        for a, b in itertools.product(range(order + 1), repeat=2):
            if a + b <= order:
                got = Triangle.measure() * sum(w * c[1] ** a * c[2] ** b for c, w in zip(coords, weights))
                assert got == pytest.approx(_exact_simplex_monomial((a, b)), abs=1e-9)

        coords, weights = Tetrahedron().instantiate_quadrature(order, family)
        for a, b, c3 in itertools.product(range(order + 1), repeat=3):
            if a + b + c3 <= order:
                got = Tetrahedron.measure() * sum(w * c[0] ** a * c[1] ** b * c[2] ** c3 for c, w in zip(coords, weights))
                assert got == pytest.approx(_exact_simplex_monomial((a, b, c3)), abs=1e-9)


def test_centers_and_measures():
    assert Triangle().center() == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    assert Tetrahedron().center() == pytest.approx((0.25, 0.25, 0.25))
    assert Square().center() == (0.5, 0.5, 0.0)
    assert (Square.measure(), Triangle.measure(), Tetrahedron.measure()) == (1.0, 0.5, pytest.approx(1 / 6))


def _simplex_projection(v):
    """Euclidean projection onto {b >= 0, sum b = 1} by the sorting formula (an independent oracle)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    k = np.nonzero(u - css / np.arange(1, len(v) + 1) > 0)[0][-1]
    return np.maximum(v - css[k] / (k + 1), 0.0)


@wp.kernel
def _project_kernel(points: wp.array(dtype=wp.vec3), tri: wp.array(dtype=wp.vec3), tet: wp.array(dtype=wp.vec3),
                    sq: wp.array(dtype=wp.vec3), delta: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    tri[i] = Triangle.project(points[i])
    tet[i] = Tetrahedron.project(points[i])
    sq[i] = Square.project(points[i])
    d = Triangle.ref_delta(points[i])
    delta[i] = Triangle.coord_delta(d)


def test_projections_match_numpy():
    rng = np.random.default_rng(3)
    pts = rng.uniform(-1.0, 2.0, size=(64, 3)).astype(np.float32)
    outs = [wp.zeros(64, dtype=wp.vec3) for _ in range(4)]
    wp.launch(_project_kernel, dim=64, inputs=[wp.array(pts, dtype=wp.vec3), *outs])
    tri, tet, sq, delta = (o.numpy() for o in outs)
    for p, t, h in zip(pts.astype(np.float64), tri, tet):
        assert t == pytest.approx(_simplex_projection(p), abs=1e-5)
        bary = _simplex_projection(np.array([1.0 - p.sum(), *p]))
        assert h == pytest.approx(bary[1:], abs=1e-5)
    assert sq == pytest.approx(np.concatenate([np.clip(pts[:, :2], 0, 1), np.zeros((64, 1))], axis=1))
    expected = np.stack([-pts[:, 1] - pts[:, 2], pts[:, 1], pts[:, 2]], axis=1)
    assert delta == pytest.approx(expected, abs=1e-6)


def test_element_kinds_name_their_prototypes():
    from warp_nb.fem import Element

    assert Element.SQUARE.prototype is Square and Element.TETRAHEDRON.prototype is Tetrahedron
    points, weights = Element.TRIANGLE.prototype.instantiate_quadrature(order=2, family=None)
    assert len(points) == len(weights) == 3
    assert Element.CUBE.prototype.center() == (0.5, 0.5, 0.5)
