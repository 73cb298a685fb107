"""fem.PointBasisSpace (nodes at a quadrature's points, radial kernel basis functions) and
fem.interpolate to a sparse matrix: field values and gradients against numpy sums of the kernel
over the points of the sample's cell, gradients also against finite differences of that sum,
integrals against the points' weights, matrices against the nodes' positions (reduction="first"
taking each node's first cell that has a point, with gradients through the matrix's values), and
bad kernels refused by name."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import fem
from warp_nb.sparse import bsr_zeros

RADIUS = 0.2


@wp.func
def gaussian(squared_dist: float, point_index: int, radius: float):
    return wp.exp(-squared_dist / (2.0 * radius * radius))


@wp.func
def gaussian_grad(squared_dist: float, point_index: int, radius: float):
    # d gaussian / d squared_dist: the basis's gradient is this times grad(squared_dist)
    return -wp.exp(-squared_dist / (2.0 * radius * radius)) / (2.0 * radius * radius)


@wp.func
def bad_kernel(squared_dist: int, point_index: int):
    return float(squared_dist)


@fem.integrand
def value(s: fem.Sample, u: fem.Field):
    return u(s)


@fem.integrand
def gradient(s: fem.Sample, u: fem.Field):
    return fem.grad(u, s)


@fem.integrand
def position(s: fem.Sample, domain: fem.Domain):
    return domain(s)


@fem.integrand
def mass(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)


# three particles: two in cell 0 of a 2x2 unit grid, one in cell 3
POINTS = np.array([[0.25, 0.33], [0.33, 0.25], [0.8, 0.8]])
DOFS = np.array([1.0, -2.0, 3.0])


def setup(kernel=True, distance_space="world", bounds_hi=(1.0, 1.0)):
    geo = fem.Grid2D(res=wp.vec2i(2), bounds_hi=wp.vec2(*bounds_hi))
    domain = fem.Cells(geo)
    scale = np.array(bounds_hi)
    pic = fem.PicQuadrature(domain, positions=wp.array(POINTS * scale, dtype=wp.vec2))
    options = {"kernel_func": gaussian, "kernel_grad_func": gaussian_grad, "kernel_values": {"radius": RADIUS},
               "distance_space": distance_space} if kernel else {}
    basis = fem.PointBasisSpace(pic, **options)
    space = fem.make_collocated_function_space(basis)
    field = space.make_field()
    field.dof_values = wp.array(DOFS, dtype=float)
    return geo, domain, pic, basis, space, field


def cell_of(x, h):
    return int(x[0] // h[0]) * 2 + int(x[1] // h[1])


def field_np(x, h, points, distance_space="world"):
    """Sum of dof * gaussian over the points of x's cell (distances in world or reference units)."""
    unit = np.ones(2) if distance_space == "world" else np.asarray(h)
    total = 0.0
    for p, d in zip(points, DOFS, strict=True):
        if cell_of(p, h) == cell_of(x, h):
            r2 = np.sum(((x - p) / unit) ** 2)
            total += d * np.exp(-r2 / (2 * RADIUS ** 2))
    return total


def eval_points(domain):
    quadrature = fem.RegularQuadrature(domain, order=3)
    positions = wp.zeros(quadrature.total_point_count(), dtype=wp.vec2)
    fem.interpolate(position, dest=positions, at=quadrature)
    return quadrature, positions.numpy()


def test_dirac_basis_is_one_at_its_point_and_zero_elsewhere():
    _, domain, pic, _, _, field = setup(kernel=False)
    at_points = wp.zeros(3, dtype=float)
    fem.interpolate(value, dest=at_points, at=pic, fields={"u": field})
    np.testing.assert_array_equal(at_points.numpy(), DOFS)
    quadrature, _ = eval_points(domain)
    elsewhere = wp.zeros(quadrature.total_point_count(), dtype=float)
    fem.interpolate(value, dest=elsewhere, at=quadrature, fields={"u": field})
    np.testing.assert_array_equal(elsewhere.numpy(), 0.0)


@pytest.mark.parametrize("distance_space, bounds_hi", [("world", (1.0, 1.0)), ("reference", (2.0, 1.0))])
def test_kernel_field_values_and_gradients_match_numpy(distance_space, bounds_hi):
    _geo, domain, _, _, _, field = setup(distance_space=distance_space, bounds_hi=bounds_hi)
    h = np.array(bounds_hi) / 2
    points = POINTS * np.array(bounds_hi)
    quadrature, xs = eval_points(domain)
    values = wp.zeros(len(xs), dtype=float)
    grads = wp.zeros(len(xs), dtype=wp.vec2)
    fem.interpolate(value, dest=values, at=quadrature, fields={"u": field})
    fem.interpolate(gradient, dest=grads, at=quadrature, fields={"u": field})
    expected = [field_np(x, h, points, distance_space) for x in xs]
    np.testing.assert_allclose(values.numpy(), expected, rtol=1e-5, atol=1e-6)
    # central differences of the numpy field, in world coordinates (the points stay in their cells)
    eps = 1e-4
    fd = np.array([[(field_np(x + e, h, points, distance_space) - field_np(x - e, h, points, distance_space)) /
                    (2 * eps) for e in np.eye(2) * eps] for x in xs])
    assert np.abs(fd).max() > 0.1  # the gradients checked are not all zero
    np.testing.assert_allclose(grads.numpy(), fd, rtol=1e-3, atol=1e-3)


def test_gradient_without_gradient_function_is_zero():
    _, domain, _, _, _, _ = setup()
    basis = fem.PointBasisSpace(fem.PicQuadrature(domain, positions=wp.array(POINTS, dtype=wp.vec2)),
                                kernel_func=gaussian, kernel_values={"radius": RADIUS})
    field = fem.make_collocated_function_space(basis).make_field()
    field.dof_values.fill_(1.0)
    quadrature, xs = eval_points(domain)
    grads = wp.zeros(len(xs), dtype=wp.vec2)
    fem.interpolate(gradient, dest=grads, at=quadrature, fields={"u": field})
    np.testing.assert_array_equal(grads.numpy(), 0.0)


def test_integrals_against_the_point_basis():
    _geo, domain, pic, basis, space, _ = setup(kernel=False)
    # a particle's weight is its cell's area over the particles there
    weights = np.array([0.125, 0.125, 0.25])
    linear = fem.integrate(value, quadrature=pic, fields={"u": fem.make_test(space, domain=domain)})
    np.testing.assert_allclose(linear.numpy(), weights, rtol=1e-6)
    matrix = fem.integrate(mass, quadrature=pic, fields={"u": fem.make_trial(space), "v": fem.make_test(space)})
    # Dirac bases of distinct points never overlap: a diagonal matrix, its zero blocks left out
    assert matrix.nnz_sync() == 3
    dense = np.zeros((3, 3))
    offsets, columns, vals = matrix.offsets.numpy(), matrix.columns.numpy(), matrix.values.numpy()
    for r in range(3):
        for k in range(offsets[r], offsets[r + 1]):
            dense[r, columns[k]] = vals[k]
    np.testing.assert_allclose(dense, np.diag(weights), rtol=1e-6)
    # the nodes are the particles, in particle order
    np.testing.assert_allclose(basis.node_positions().numpy(), POINTS, rtol=1e-6)
    np.testing.assert_allclose(space.node_positions().numpy(), POINTS, rtol=1e-6)
    # variable points per element: cells 1 and 2 have none, the restriction reaches the 3 nodes
    assert space.topology.NODES_PER_ELEMENT == 2
    assert fem.make_space_restriction(space_topology=space.topology, domain=domain).node_count() == 3


def test_nodal_assembly_on_a_regular_rule_sums_its_weights():
    geo = fem.Grid2D(res=wp.vec2i(2), bounds_hi=wp.vec2(2.0, 1.0))
    domain = fem.Cells(geo)
    quadrature = fem.RegularQuadrature(domain, order=2)
    space = fem.make_collocated_function_space(fem.PointBasisSpace(quadrature))
    nodal = fem.integrate(value, fields={"u": fem.make_test(space, domain=domain)}, assembly="nodal")
    assert nodal.shape == (quadrature.total_point_count(),)
    np.testing.assert_allclose(nodal.numpy().sum(), 2.0, rtol=1e-5)  # the domain's area


def test_interpolate_to_a_matrix_of_a_trial_field():
    geo = fem.Grid2D(res=wp.vec2i(2))
    trial_space = fem.make_polynomial_space(geo)
    dest_space = fem.make_polynomial_space(geo, discontinuous=True)
    matrix = bsr_zeros(dest_space.node_count(), trial_space.node_count(), block_type=float)
    fem.interpolate(value, fields={"u": fem.make_trial(trial_space)}, dest=matrix, dest_space=dest_space)
    # at each node, only the trial basis function of the vertex there is not zero (and is 1)
    dest_x, trial_x = dest_space.node_positions().numpy(), trial_space.node_positions().numpy()
    expected = (np.linalg.norm(dest_x[:, None] - trial_x[None], axis=2) < 1e-6).astype(float)
    assert matrix.nnz_sync() == dest_space.node_count()
    offsets, columns, vals = matrix.offsets.numpy(), matrix.columns.numpy(), matrix.values.numpy()
    dense = np.zeros(expected.shape)
    for r in range(len(offsets) - 1):
        for k in range(offsets[r], offsets[r + 1]):
            dense[r, columns[k]] = vals[k]
    np.testing.assert_array_equal(dense, expected)


def test_interpolate_gradient_to_a_matrix_sums_or_averages_over_cells():
    geo, _domain, _pic, basis, space, _ = setup()
    vec_space = fem.make_collocated_function_space(basis, dtype=wp.vec2)
    block = wp.types.matrix(shape=(2, 1), dtype=float)
    matrix = bsr_zeros(3, 3, block_type=block)
    fem.interpolate(gradient, fields={"u": fem.make_trial(space)}, dest=matrix, dest_space=vec_space)
    # gradient of point j's basis at point i (same cell): 2 k'(d2) (x_i - x_j); zero at itself
    d = POINTS[0] - POINTS[1]
    k = -np.exp(-d @ d / (2 * RADIUS ** 2)) / (2 * RADIUS ** 2)
    assert matrix.nnz_sync() == 2
    np.testing.assert_array_equal(matrix.columns.numpy()[:2], [1, 0])
    np.testing.assert_allclose(matrix.values.numpy()[:2].reshape(2, 2), [2 * k * d, -2 * k * d], rtol=1e-5)
    # to the vertices of the grid: a vertex in several cells gets the mean (default) or the sum
    q1 = fem.make_polynomial_space(geo)
    mean, total = bsr_zeros(9, 3, block_type=float), bsr_zeros(9, 3, block_type=float)
    fem.interpolate(value, fields={"u": fem.make_trial(space)}, dest=mean, dest_space=q1)
    fem.interpolate(value, fields={"u": fem.make_trial(space)}, dest=total, dest_space=q1, reduction="sum")
    cells_per_vertex = np.array([1, 2, 1, 2, 4, 2, 1, 2, 1])
    rows = np.repeat(np.arange(9), np.diff(mean.offsets.numpy()))
    n = mean.nnz_sync()
    np.testing.assert_allclose(total.values.numpy()[:n], mean.values.numpy()[:n] * cells_per_vertex[rows], rtol=1e-6)


def test_gradients_reach_the_dofs_through_interpolation_to_nodes():
    geo, _domain, _pic, _, _space, field = setup()
    field.dof_values.requires_grad = True
    dest = fem.make_polynomial_space(geo).make_field()
    dest.dof_values.requires_grad = True
    tape = wp.Tape()
    with tape:
        fem.interpolate(field, dest=dest)
    weights = np.linspace(1.0, 2.0, 9)
    dest.dof_values.grad.assign(weights.astype(np.float32))
    tape.backward()
    # d(sum_v w_v value(x_v)) / d dof_j: value is linear in the dofs, its coefficient the mean of the
    # kernel over the cells holding the vertex
    vertices, expected = dest.space.node_positions().numpy(), np.zeros(3)
    for j in range(3):
        unit = np.eye(3)[j]
        for v, x in enumerate(vertices):
            cells = [c for c in range(4) if np.all(np.abs(x - (np.array([c // 2, c % 2]) * 0.5 + 0.25)) <= 0.25)]
            contributions = [unit[j] * np.exp(-np.sum((x - POINTS[j]) ** 2) / (2 * RADIUS ** 2))
                             for c in cells if cell_of(POINTS[j], (0.5, 0.5)) == c]
            expected[j] += weights[v] * sum(contributions) / len(cells)
    np.testing.assert_allclose(field.dof_values.grad.numpy(), expected, rtol=1e-5, atol=1e-7)


def test_bad_kernels_are_refused_by_name():
    _, _domain, pic, _, _, _ = setup(kernel=False)
    with pytest.raises(TypeError, match=r"Radial kernel 'bad_kernel' argument types must be \(float32, int32\), "
                                        r"got \(int32, int32\)"):
        fem.PointBasisSpace(pic, kernel_func=bad_kernel)
    with pytest.raises(ValueError, match="radius"):
        fem.PointBasisSpace(pic, kernel_func=gaussian)
    with pytest.raises(ValueError, match="distance_space"):
        fem.PointBasisSpace(pic, distance_space="physical")


def test_interpolate_to_a_matrix_weighs_cells_by_measure():
    corners = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [3.0, 3.0]])
    triangles = np.array([[0, 1, 2], [1, 3, 2]])
    geo = fem.Trimesh2D(wp.array(triangles, dtype=int), wp.array(corners, dtype=wp.vec2))
    dest_space, trial_space = fem.make_polynomial_space(geo), fem.make_polynomial_space(geo, discontinuous=True)
    edges = corners[triangles[:, 1:]] - corners[triangles[:, :1]]
    areas = 0.5 * np.abs(edges[:, 0, 0] * edges[:, 1, 1] - edges[:, 0, 1] * edges[:, 1, 0])
    for reduction, cell_weights in (("weighted_average", areas), ("mean", np.ones(2))):
        matrix = bsr_zeros(4, 6, block_type=float)
        fem.interpolate(value, fields={"u": fem.make_trial(trial_space)}, dest=matrix, dest_space=dest_space,
                        reduction=reduction)
        # a vertex's row holds, for each cell around it, the cell's own (discontinuous) node there,
        # weighted by the cell's share of the weights around the vertex
        expected = np.zeros((4, 6))
        for cell, tri in enumerate(triangles):
            for k, vertex in enumerate(tri):
                around = [c for c in range(2) if vertex in triangles[c]]
                expected[vertex, cell * 3 + k] = cell_weights[cell] / cell_weights[around].sum()
        dense = np.zeros((4, 6))
        offsets, columns, vals = matrix.offsets.numpy(), matrix.columns.numpy(), matrix.values.numpy()
        for r in range(4):
            for k in range(offsets[r], offsets[r + 1]):
                dense[r, columns[k]] = vals[k]
        np.testing.assert_allclose(dense, expected, rtol=1e-6)


def test_dirac_basis_tolerates_rounding_only():
    # 1 within a squared (reference) distance of 1e-6 of its point, as warp-lang's (probed): a
    # particle rebuilt from rounded positions still sees its own value
    _, domain, _, _, _, field = setup(kernel=False)
    for offset, expected in ((1e-5, DOFS[0]), (1e-3, 0.0)):
        near = fem.PicQuadrature(domain, positions=wp.array([POINTS[0] + [offset, 0.0]], dtype=wp.vec2))
        out = wp.zeros(1, dtype=float)
        fem.interpolate(value, dest=out, at=near, fields={"u": field})
        assert out.numpy()[0] == expected


@fem.integrand
def indexed_value(s: fem.Sample, u: fem.Field):
    return u(s) * float(s.qp_index + 1) * float(s.element_index + 1)


@pytest.mark.parametrize("reduction", ["first", "sum"])
def test_interpolate_to_a_matrix_first_or_sum_with_the_node_as_point_index(reduction):
    geo = fem.Grid2D(res=wp.vec2i(2))
    dest_space, trial_space = fem.make_polynomial_space(geo), fem.make_polynomial_space(geo, discontinuous=True)
    matrix = bsr_zeros(9, 16, block_type=float)
    fem.interpolate(indexed_value, fields={"u": fem.make_trial(trial_space)}, dest=matrix, dest_space=dest_space,
                    reduction=reduction)
    # the trial node of cell c at vertex v is the one at v's position among c's 4 nodes; the sample's
    # point index is the destination node's (as warp-lang's)
    dest_x, trial_x = dest_space.node_positions().numpy(), trial_space.node_positions().numpy()
    expected = np.zeros((9, 16))
    for v, x in enumerate(dest_x):
        cells = [c for c in range(4) if np.any(np.linalg.norm(trial_x[4 * c:4 * c + 4] - x, axis=1) < 1e-6)]
        for c in (cells[:1] if reduction == "first" else cells):
            k = 4 * c + int(np.argmin(np.linalg.norm(trial_x[4 * c:4 * c + 4] - x, axis=1)))
            expected[v, k] = (v + 1) * (c + 1)
    dense = np.zeros((9, 16))
    offsets, columns, vals = matrix.offsets.numpy(), matrix.columns.numpy(), matrix.values.numpy()
    for r in range(9):
        for k in range(offsets[r], offsets[r + 1]):
            dense[r, columns[k]] = vals[k]
    np.testing.assert_array_equal(dense, expected)


@wp.func
def constant_kernel(squared_dist: float, point_index: int):
    return 1.0


@fem.integrand
def scaled_value(s: fem.Sample, u: fem.Field, scale: wp.array(dtype=float)):
    return u(s) * scale[0]


@wp.kernel
def _sum_into(values: wp.array(dtype=float), total: wp.array(dtype=float)):
    wp.atomic_add(total, 0, values[wp.tid()])


@pytest.mark.parametrize("construction", ["triplets", "row_compress"])
def test_interpolate_first_skips_cells_without_points_and_differentiates(construction):
    # points only in cell 3 of a 2x2 grid: each of its 4 vertices takes its row from cell 3, even the
    # centre vertex, whose first cell (0) has no point to sample (as warp-lang: rows of the vertices
    # of cell 3 only, one block per point)
    geo = fem.Grid2D(res=wp.vec2i(2))
    cells = [3, 3]
    pic = fem.PicQuadrature(fem.Cells(geo), positions=(wp.array(cells, dtype=int),
                                                       wp.array([[0.25, 0.25, 0.0], [0.75, 0.5, 0.0]], dtype=wp.vec3)))
    trial_space = fem.make_collocated_function_space(fem.PointBasisSpace(pic, kernel_func=constant_kernel,
                                                                         max_nodes_per_element=2))
    dest_space = fem.make_polynomial_space(geo, degree=1)
    matrix = bsr_zeros(dest_space.node_count(), trial_space.node_count(), block_type=float)
    matrix.values = wp.empty(0, dtype=float, requires_grad=True)  # ask for gradients, as in Warp
    scale = wp.array([3.0], dtype=float, requires_grad=True)
    loss = wp.zeros(1, dtype=float, requires_grad=True)
    with wp.Tape() as tape:
        fem.interpolate(scaled_value, dest=matrix, dest_space=dest_space, at=fem.Cells(geo),
                        fields={"u": fem.make_trial(trial_space)}, values={"scale": scale}, reduction="first",
                        bsr_options={"construction": construction}, kernel_options={"enable_backward": True})
        nnz = matrix.nnz_sync()
        wp.launch(_sum_into, dim=nnz, inputs=[matrix.values[:nnz], loss])
    tape.backward(loss=loss)
    corner_nodes = np.unique(dest_space.topology.element_node_indices().numpy()[3])
    rows = np.repeat(np.arange(dest_space.node_count()), np.diff(matrix.offsets.numpy()))
    assert nnz == 4 * 2
    np.testing.assert_array_equal(np.unique(rows[:nnz]), corner_nodes)
    np.testing.assert_allclose(matrix.values.numpy()[:nnz], 3.0)
    np.testing.assert_allclose(loss.numpy(), [24.0])
    np.testing.assert_allclose(scale.grad.numpy(), [8.0])  # d(sum of 8 blocks of u * scale) / d scale
