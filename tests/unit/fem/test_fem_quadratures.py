"""warp_nb.fem's quadratures beyond the regular rules (ExplicitQuadrature, PicQuadrature,
NodalQuadrature) and its Subdomain / FrontierSides domains: integrals against exact values or
numpy sums over the same points, point indices against the layout each quadrature promises,
gradients through PicQuadrature against their closed forms, and bad input refused by name."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import fem
from warp_nb.fem.geometry.element import Square
from warp_nb.sparse import bsr_mv


@fem.integrand
def one(s: fem.Sample):
    return 1.0


@fem.integrand
def cell_index(s: fem.Sample):
    return float(s.element_index)


@fem.integrand
def poly(s: fem.Sample, domain: fem.Domain):
    x = domain(s)
    return x[0] * x[0] * x[1] + 2.0 * x[1] * x[1] * x[1] + x[0]


@fem.integrand
def partition_index(s: fem.Sample, domain: fem.Domain):
    return float(fem.element_partition_index(domain, s.element_index))


@fem.integrand
def world_x(s: fem.Sample, domain: fem.Domain):
    return domain(s)[0]


@fem.integrand
def test_value(s: fem.Sample, v: fem.Field):
    return v(s)


def poly_np(x, y):
    return x * x * y + 2.0 * y ** 3 + x


def poly_on_box(x0, x1, y0, y1):
    """Exact integral of poly over [x0, x1] x [y0, y1]."""
    return ((x1 ** 3 - x0 ** 3) / 3 * (y1 ** 2 - y0 ** 2) / 2 + 2.0 * (x1 - x0) * (y1 ** 4 - y0 ** 4) / 4
            + (x1 ** 2 - x0 ** 2) / 2 * (y1 - y0))


def grid_cells(res, hi):
    """[(x0, x1, y0, y1)] of a Grid2D's cells in its numbering (x major, as Warp's)."""
    hx, hy = hi[0] / res[0], hi[1] / res[1]
    return [(i * hx, (i + 1) * hx, j * hy, (j + 1) * hy) for i in range(res[0]) for j in range(res[1])]


RES, HI = (3, 2), (1.5, 1.0)


@pytest.fixture
def grid():
    return fem.Grid2D(res=wp.vec2i(*RES), bounds_hi=wp.vec2(*HI))


# --- ExplicitQuadrature ---------------------------------------------------------------------------
def test_explicit_quadrature_integrates_exactly_and_indexes_rows(grid):
    cells = fem.Cells(grid)
    pts, wts = Square().instantiate_quadrature(order=3, family=fem.Polynomial.GAUSS_LEGENDRE)
    n, count = len(pts), grid.cell_count()
    points = wp.array(np.tile(np.array(pts, np.float32), (count, 1)).reshape(count, n, 3), dtype=fem.Coords)
    weights = wp.array(np.tile(np.array(wts, np.float32), (count, 1)), dtype=float)
    q = fem.ExplicitQuadrature(cells, points, weights)
    assert (q.max_points_per_element(), q.total_point_count()) == (n, n * count)
    assert fem.integrate(poly, quadrature=q) == pytest.approx(poly_on_box(0, HI[0], 0, HI[1]), rel=1e-5)
    # point index = row * n + rank: the cell index written at every point of its row
    dest = wp.zeros(q.total_point_count(), dtype=float)
    fem.interpolate(cell_index, dest=dest, at=q)
    np.testing.assert_array_equal(dest.numpy(), np.repeat(np.arange(count), n))


def test_explicit_quadrature_rows_of_the_domain_or_of_the_geometry(grid):
    chosen = [4, 1]
    sub = fem.Subdomain(fem.Cells(grid), element_indices=wp.array(chosen, dtype=int))
    # one point per row at the centre, weight 1: the integral of world x is the sum of cell areas * centre x
    boxes = grid_cells(RES, HI)
    area = (HI[0] / RES[0]) * (HI[1] / RES[1])
    expected = sum(area * 0.5 * (boxes[c][0] + boxes[c][1]) for c in chosen)
    for rows in (len(chosen), grid.cell_count()):
        points = wp.full((rows, 1), wp.vec3(0.5, 0.5, 0.0), dtype=fem.Coords)
        weights = wp.full((rows, 1), 1.0, dtype=float)
        q = fem.ExplicitQuadrature(sub, points, weights)
        assert q.total_point_count() == rows
        assert fem.integrate(world_x, quadrature=q) == pytest.approx(expected, rel=1e-6)
        dest = wp.full(rows, -1.0, dtype=float)
        fem.interpolate(cell_index, dest=dest, at=q)
        want = np.full(rows, -1.0)
        if rows == len(chosen):
            want[:] = chosen  # rows are the subdomain's elements
        else:
            want[chosen] = chosen  # rows are the geometry's cells
        np.testing.assert_array_equal(dest.numpy(), want)


def test_explicit_quadrature_refuses_bad_arrays(grid):
    cells = fem.Cells(grid)
    good = wp.zeros((grid.cell_count(), 2), dtype=fem.Coords)
    with pytest.raises(TypeError, match="weights"):
        fem.ExplicitQuadrature(cells, good, wp.zeros(grid.cell_count() * 2, dtype=float))
    with pytest.raises(ValueError, match="same shape"):
        fem.ExplicitQuadrature(cells, good, wp.zeros((grid.cell_count(), 3), dtype=float))
    with pytest.raises(ValueError, match="one row per element"):
        fem.ExplicitQuadrature(cells, wp.zeros((2, 2), dtype=fem.Coords), wp.zeros((2, 2), dtype=float))


# --- PicQuadrature --------------------------------------------------------------------------------
def test_pic_quadrature_at_world_positions_matches_particle_sums(grid):
    rng = np.random.default_rng(3)
    P = rng.uniform([0.0, 0.0], HI, size=(40, 2)).astype(np.float32)
    M = rng.uniform(0.01, 0.1, size=40).astype(np.float32)
    pic = fem.PicQuadrature(fem.Cells(grid), positions=wp.array(P, dtype=wp.vec2), measures=wp.array(M, dtype=float))
    # binning: the particles of cell c (numpy's floor), in particle order
    ij = np.floor(P / (np.array(HI) / np.array(RES))).astype(int)
    cell = ij[:, 0] * RES[1] + ij[:, 1]
    counts = np.bincount(cell, minlength=grid.cell_count())
    np.testing.assert_array_equal(pic.cell_indices.numpy(), cell)
    np.testing.assert_array_equal(pic.cell_particle_offsets.numpy(), np.concatenate(([0], np.cumsum(counts))))
    np.testing.assert_array_equal(pic.cell_particle_indices.numpy(), np.argsort(cell, kind="stable"))
    assert pic.active_cell_count() == np.count_nonzero(counts)
    assert pic.max_points_per_element() == counts.max()
    assert pic.total_point_count() == pic.evaluation_point_count() == 40
    # each particle weighs its measure: the integral is the sum over particles
    assert fem.integrate(poly, quadrature=pic) == pytest.approx(np.sum(M * poly_np(P[:, 0], P[:, 1])), rel=1e-5)
    # point index = particle index
    dest = wp.zeros(40, dtype=float)
    fem.interpolate(world_x, dest=dest, at=pic)
    np.testing.assert_allclose(dest.numpy(), P[:, 0], rtol=1e-6)
    mask = wp.zeros(grid.cell_count(), dtype=int)
    pic.fill_element_mask(mask)
    np.testing.assert_array_equal(mask.numpy(), (counts > 0).astype(int))


def test_pic_quadrature_without_measures_shares_each_cell(grid):
    cells = [5, 0, 5, 5, 2]
    coords = wp.full(len(cells), wp.vec3(0.5, 0.5, 0.0), dtype=fem.Coords)
    pic = fem.PicQuadrature(fem.Cells(grid), positions=(wp.array(cells, dtype=int), coords))
    area = (HI[0] / RES[0]) * (HI[1] / RES[1])
    # the particles of a cell share its measure: the integral is that of the cell's index over active cells
    assert fem.integrate(cell_index, quadrature=pic) == pytest.approx(area * sum(set(cells)), rel=1e-6)
    assert fem.integrate(one, quadrature=pic) == pytest.approx(area * len(set(cells)), rel=1e-6)
    fractions = pic.arg_value(wp.get_device()).cell_particle_fraction.numpy()
    np.testing.assert_allclose(fractions, [1.0, 1.0, 1 / 3, 1 / 3, 1 / 3])


def test_gimp_quadrature_entries_and_invalid_overlaps(grid):
    cells = wp.array([[0, 3], [4, -1]], dtype=int)
    coords = wp.array(np.array([[[0.2, 0.3, 0], [0.7, 0.1, 0]], [[0.4, 0.4, 0], [0, 0, 0]]], np.float32),
                      dtype=fem.Coords)
    frac = wp.array([[0.25, 0.75], [1.0, 0.0]], dtype=float)
    measures = wp.array([0.2, 0.1], dtype=float)
    q = fem.PicQuadrature(fem.Cells(grid), (cells, coords, frac), measures=measures)
    assert (q.total_point_count(), q.evaluation_point_count(), q.max_points_per_element(),
            q.active_cell_count()) == (2, 4, 1, 3)
    np.testing.assert_array_equal(q.cell_particle_indices.numpy(), [0, 0, 1, -1])  # cells 0, 3, 4, then invalid
    # weights: fraction * particle measure, so the integral of 1 is sum(fraction * measure)
    assert fem.integrate(one, quadrature=q) == pytest.approx(0.25 * 0.2 + 0.75 * 0.2 + 0.1, rel=1e-6)
    assert fem.integrate(cell_index, quadrature=q) == pytest.approx(3 * 0.75 * 0.2 + 4 * 0.1, rel=1e-6)


def test_pic_quadrature_on_subdomain_elements(grid):
    sub = fem.Subdomain(fem.Cells(grid), element_indices=wp.array([4, 1], dtype=int))
    coords = wp.full(3, wp.vec3(0.5, 0.5, 0.0), dtype=fem.Coords)
    q = fem.PicQuadrature(sub, (wp.array([1, 1, 0], dtype=int), coords), use_domain_element_indices=True)
    np.testing.assert_array_equal(q.cell_particle_offsets.numpy(), [0, 1, 3])
    area = (HI[0] / RES[0]) * (HI[1] / RES[1])
    assert fem.integrate(cell_index, quadrature=q) == pytest.approx(area * (4 + 1), rel=1e-6)


def test_pic_quadrature_gradients_reach_positions_and_measures(grid):
    rng = np.random.default_rng(7)
    P = rng.uniform([0.0, 0.0], HI, size=(12, 2)).astype(np.float32)
    M = rng.uniform(0.01, 0.1, size=12).astype(np.float32)
    p = wp.array(P, dtype=wp.vec2, requires_grad=True)
    m = wp.array(M, dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        pic = fem.PicQuadrature(fem.Cells(grid), positions=p, measures=m, requires_grad=True)
        fem.integrate(poly, quadrature=pic, output=loss)
    tape.backward(loss=loss)
    x, y = P[:, 0].astype(np.float64), P[:, 1].astype(np.float64)
    np.testing.assert_allclose(m.grad.numpy(), poly_np(x, y), rtol=1e-5)
    dpoly = np.stack([2 * x * y + 1.0, x * x + 6.0 * y * y], axis=1)
    np.testing.assert_allclose(p.grad.numpy(), M[:, None] * dpoly, rtol=1e-4)


def test_pic_quadrature_refuses_bad_input(grid):
    cells = fem.Cells(grid)
    with pytest.raises(TypeError, match="measures"):
        fem.PicQuadrature(cells, wp.zeros(3, dtype=wp.vec2), measures=wp.zeros(2, dtype=float))
    with pytest.raises(TypeError, match="coordinates"):
        fem.PicQuadrature(cells, (wp.zeros(3, dtype=int), wp.zeros(3, dtype=float)))
    with pytest.raises(TypeError, match="length 2"):
        fem.PicQuadrature(cells, wp.zeros(3, dtype=wp.vec3))
    with pytest.raises(ValueError, match="particles live in cells"):
        fem.PicQuadrature(fem.Sides(grid), (wp.zeros(3, dtype=int), wp.zeros(3, dtype=fem.Coords)))


# --- NodalQuadrature ------------------------------------------------------------------------------
@pytest.mark.parametrize("degree,discontinuous,family", [(2, True, fem.Polynomial.GAUSS_LEGENDRE), (3, False, None)])
def test_nodal_quadrature_integrates_exactly_at_the_nodes(grid, degree, discontinuous, family):
    kw = {"family": family} if family is not None else {}
    space = fem.make_polynomial_space(grid, degree=degree, discontinuous=discontinuous, **kw)
    q = fem.NodalQuadrature(fem.Cells(grid), space)
    assert q.max_points_per_element() == (degree + 1) ** 2
    assert q.total_point_count() == space.node_count()
    # Gauss nodes (k+1 points) are exact to 2k+1, Gauss-Lobatto ones to 2k-1: both >= 3, poly's degree
    assert fem.integrate(poly, quadrature=q) == pytest.approx(poly_on_box(0, HI[0], 0, HI[1]), rel=1e-5)
    # point index = node index: interpolating the position gives the nodes' positions
    dest = wp.zeros(space.node_count(), dtype=float)
    fem.interpolate(world_x, dest=dest, at=q)
    np.testing.assert_allclose(dest.numpy(), space.node_positions().numpy()[:, 0], rtol=1e-6, atol=1e-7)


def test_nodal_quadrature_refuses_sides(grid):
    with pytest.raises(NotImplementedError, match="cell domains"):
        fem.NodalQuadrature(fem.BoundarySides(grid), fem.make_polynomial_space(grid, degree=1))


# --- Subdomain, FrontierSides, partition indices ----------------------------------------------------
def test_subdomain_integrals_are_sums_over_its_cells(grid):
    rng = np.random.default_rng(1)
    mask = (rng.uniform(size=grid.cell_count()) < 0.5).astype(np.int32)
    mask[0] = 1
    sub = fem.Subdomain(fem.Cells(grid), element_mask=wp.array(mask, dtype=int))
    chosen = np.nonzero(mask)[0]
    assert sub.element_count() == len(chosen)
    boxes = grid_cells(RES, HI)
    expected = sum(poly_on_box(*boxes[c]) for c in chosen)
    assert fem.integrate(poly, domain=sub, quadrature=fem.RegularQuadrature(sub, order=3)) == \
        pytest.approx(expected, rel=1e-5)
    area = (HI[0] / RES[0]) * (HI[1] / RES[1])
    assert fem.integrate(cell_index, domain=sub) == pytest.approx(area * chosen.sum(), rel=1e-6)
    # a subdomain of the subdomain: its element k is the parent's element indices[k]
    inner = fem.Subdomain(sub, element_indices=wp.array([len(chosen) - 1, 0], dtype=int))
    assert fem.integrate(cell_index, domain=inner) == pytest.approx(area * (chosen[-1] + chosen[0]), rel=1e-6)
    # a test field over the subdomain: its linear form sums to the subdomain's area
    space = fem.make_polynomial_space(grid, degree=1)
    v = fem.make_test(space, domain=sub)
    assert fem.integrate(test_value, fields={"v": v}).numpy().sum() == pytest.approx(area * len(chosen), rel=1e-5)


def test_subdomain_of_boundary_sides(grid):
    boundary = fem.BoundarySides(grid)
    count = boundary.element_count()
    whole = fem.integrate(world_x, domain=boundary)
    halves = [fem.Subdomain(boundary, element_indices=wp.array(np.arange(count)[k::2].astype(np.int32), dtype=int))
              for k in (0, 1)]
    parts = [fem.integrate(world_x, domain=h) for h in halves]
    assert sum(parts) == pytest.approx(whole, rel=1e-6)
    assert min(parts) > 0.0
    # the perimeter, by sides of the two halves
    assert sum(fem.integrate(one, domain=h) for h in halves) == pytest.approx(2 * (HI[0] + HI[1]), rel=1e-6)


def test_subdomain_refuses_bad_input(grid):
    cells = fem.Cells(grid)
    with pytest.raises(ValueError, match="exactly one"):
        fem.Subdomain(cells)
    with pytest.raises(ValueError, match="exactly one"):
        fem.Subdomain(cells, element_mask=wp.zeros(6, dtype=int), element_indices=wp.zeros(1, dtype=int))
    with pytest.raises(ValueError, match="element_mask"):
        fem.Subdomain(cells, element_mask=wp.zeros(5, dtype=int))
    with pytest.raises(ValueError, match="element_indices"):
        fem.Subdomain(cells, element_indices=wp.array([0, 6], dtype=int))
    with pytest.raises(TypeError, match="element_indices"):
        fem.Subdomain(cells, element_indices=wp.zeros(2, dtype=float))
    with pytest.raises(TypeError, match="domain"):
        fem.Subdomain(grid, element_indices=wp.zeros(2, dtype=int))


def test_frontier_sides_of_a_whole_geometry_are_empty(grid):
    frontier = fem.FrontierSides(grid)
    assert frontier.element_count() == 0
    assert fem.integrate(one, domain=frontier) == 0.0


def test_element_partition_index_is_the_cell_index(grid):
    cells = fem.Cells(grid)
    assert fem.integrate(partition_index, domain=cells) == pytest.approx(fem.integrate(cell_index, domain=cells))


@fem.integrand
def on_left(s: fem.Sample, domain: fem.Domain):
    return wp.where(domain(s)[0] < 1.0e-4, 1, 0)


@fem.integrand
def mass(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


def test_fields_over_a_boundary_subdomain(grid):
    """Warp's examples pick boundary parts by a mask computed at side centres, then assemble over them."""
    boundary = fem.BoundarySides(grid)
    mask = wp.zeros(boundary.element_count(), dtype=int)
    fem.interpolate(on_left, dest=mask, at=fem.RegularQuadrature(boundary, order=0))
    left = fem.Subdomain(boundary, element_mask=mask)
    assert left.element_count() == RES[1]
    space = fem.make_polynomial_space(grid, degree=2)
    u, v = fem.make_trial(space, domain=left), fem.make_test(space, domain=left)
    # the nodal projector holds the 2 * res_y + 1 nodes of the left edge; the mass matrix sums to its length
    assert fem.integrate(mass, fields={"u": u, "v": v}, assembly="nodal").nnz_sync() == 2 * RES[1] + 1
    ones = wp.array(np.ones(space.node_count(), np.float32))
    assert bsr_mv(fem.integrate(mass, fields={"u": u, "v": v}), ones).numpy().sum() == pytest.approx(HI[1], rel=1e-5)


def test_quadratures_on_a_triangle_mesh():
    geo = fem.Trimesh2D(wp.array([[0, 1, 3], [0, 3, 2]], dtype=int),
                        wp.array([[0.0, 0.0], [2.0, 0.0], [0.0, 1.0], [2.0, 1.0]], dtype=wp.vec2))
    exact = poly_on_box(0.0, 2.0, 0.0, 1.0)
    # P3 Lagrange nodes: their nodal weights integrate cubics exactly
    q = fem.NodalQuadrature(fem.Cells(geo), fem.make_polynomial_space(geo, degree=3))
    assert fem.integrate(poly, quadrature=q) == pytest.approx(exact, rel=1e-5)
    # particles given by (triangle, barycentric coordinates) weigh their measures
    coords = wp.array([[1 / 3, 1 / 3, 1 / 3], [0.2, 0.5, 0.3], [0.6, 0.2, 0.2]], dtype=fem.Coords)
    q = fem.PicQuadrature(fem.Cells(geo), (wp.array([0, 1, 1], dtype=int), coords),
                          measures=wp.array([0.5, 0.2, 0.3], dtype=float))
    assert fem.integrate(one, quadrature=q) == pytest.approx(1.0, rel=1e-6)


@fem.integrand
def mark_centre_x(s: fem.Sample, domain: fem.Domain, out: wp.array(dtype=float)):
    out[s.qp_index] = domain(s)[0]


def test_interpolate_at_a_domain_visits_element_centres(grid):
    """As Warp: `at=domain` evaluates once per element of the domain, at its centre, point index = element."""
    out = wp.zeros(grid.cell_count(), dtype=float)
    fem.interpolate(mark_centre_x, at=fem.Cells(grid), values={"out": out})
    np.testing.assert_allclose(out.numpy(), [0.5 * (b[0] + b[1]) for b in grid_cells(RES, HI)], rtol=1e-6)
