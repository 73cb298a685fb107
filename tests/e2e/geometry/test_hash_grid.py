"""wp.HashGrid neighbour queries against brute-force counts, rebuilds, wrap-around, bad input."""

from typing import Any

import numpy as np
import pytest

import warp_nb as wp
from tests.support.hash_grid_kernels import count_neighbours

pytestmark = pytest.mark.needs_cxx


def _brute(pts, r):
    d = np.linalg.norm(pts[:, None].astype(np.float64) - pts[None], axis=-1)
    return (d <= r).sum(1)


@pytest.mark.parametrize("dims,r", [((16, 16, 16), 0.05), ((4, 3, 5), 0.1), ((128, 128, 128), 0.07)])
def test_neighbour_counts_match_brute_force(dims, r):
    rng = np.random.default_rng(1)
    pts = rng.uniform(-1, 1, (1500, 3)).astype(np.float32)
    P = wp.array(pts, dtype=wp.vec3)
    grid = wp.HashGrid(*dims)
    grid.build(P, r)
    counts, cand = wp.zeros(len(pts), dtype=int), wp.zeros(len(pts), dtype=int)
    wp.launch(count_neighbours, len(pts), inputs=[grid.id, P, r, counts, cand])
    ref = _brute(pts, r)
    # distances within one float32 rounding of r may go either way
    d = np.linalg.norm(pts[:, None].astype(np.float64) - pts[None], axis=-1)
    edge = (np.abs(d - r) < 1e-6).sum(1)
    assert (np.abs(counts.numpy() - ref) <= edge).all()
    assert (cand.numpy() >= counts.numpy()).all()


def test_rebuild_and_reserve():
    rng = np.random.default_rng(2)
    grid = wp.HashGrid(8, 8, 8)
    grid.reserve(10)
    for n, r in ((300, 0.2), (2000, 0.1)):
        pts = rng.uniform(0, 1, (n, 3)).astype(np.float32)
        P = wp.array(pts, dtype=wp.vec3)
        grid.build(P, r)
        counts, cand = wp.zeros(n, dtype=int), wp.zeros(n, dtype=int)
        wp.launch(count_neighbours, n, inputs=[grid.id, P, r, counts, cand])
        np.testing.assert_array_equal(counts.numpy(), _brute(pts, r))


def test_a_build_inside_a_capture_replays_on_the_points_of_the_moment():
    """A HashGrid.build recorded in a graph capture sorts, at each replay, what the points array
    holds then (the capture does not run it, and it does not freeze the points)."""
    rng = np.random.default_rng(3)
    n, r = 400, 0.15
    first, second = (rng.uniform(0, 1, (n, 3)).astype(np.float32) for _ in range(2))
    P = wp.array(first, dtype=wp.vec3)
    grid = wp.HashGrid(8, 8, 8)
    counts, cand = wp.zeros(n, dtype=int), wp.zeros(n, dtype=int)
    with wp.ScopedCapture() as capture:
        grid.build(P, r)
        wp.launch(count_neighbours, n, inputs=[grid.id, P, r, counts, cand])
    assert (counts.numpy() == 0).all()  # recorded, not run
    for pts in (first, second):
        P.assign(pts)
        wp.capture_launch(capture.graph)
        np.testing.assert_array_equal(counts.numpy(), _brute(pts, r))


def test_what_a_capture_cannot_record():
    grid = wp.HashGrid(4, 4, 4)
    with pytest.raises(NotImplementedError, match="reserve before capture"):
        with wp.ScopedCapture():
            grid.reserve(8)
    with pytest.raises(NotImplementedError, match="serialization"):
        with wp.ScopedCapture(apic=True):
            grid.build(wp.zeros(3, dtype=wp.vec3), 0.1)


def test_query_before_build_is_empty():
    grid = wp.HashGrid(4, 4, 4)
    pts = wp.zeros(3, dtype=wp.vec3)
    counts, cand = wp.zeros(3, dtype=int), wp.zeros(3, dtype=int)
    wp.launch(count_neighbours, 3, inputs=[grid.id, pts, 1.0, counts, cand])
    assert (cand.numpy() == 0).all()


def test_bad_input():
    with pytest.raises(ValueError):
        wp.HashGrid(0, 4, 4)
    grid = wp.HashGrid(4, 4, 4)
    with pytest.raises(ValueError, match="radius"):
        grid.build(wp.zeros(3, dtype=wp.vec3), 0.0)
    with pytest.raises(TypeError, match="takes points of vec3d"):
        wp.HashGrid(4, 4, 4, dtype=wp.float64).build(wp.zeros(3, dtype=wp.vec3), 0.1)
    with pytest.raises(TypeError):
        wp.HashGrid(4, 4, 4, dtype=wp.int32)
    with pytest.raises(RuntimeError, match="cell count exceeds"):
        wp.HashGrid(1291, 1291, 1291)


@wp.kernel
def neighbours_any(grid: wp.uint64, x: wp.array(dtype=Any), r: Any, counts: wp.array(dtype=int)):
    i = wp.tid()
    for j in wp.hash_grid_query(grid, x[i], r):
        if wp.length(x[j] - x[i]) <= r:
            counts[i] += 1


@wp.kernel
def neighbours_in_group(grid: wp.uint64, x: wp.array(dtype=wp.vec3), r: float, g: wp.array(dtype=int),
                        counts: wp.array(dtype=int)):
    i = wp.tid()
    for j in wp.hash_grid_query(grid, x[i], r, g[i]):
        if wp.length(x[j] - x[i]) <= r:
            counts[i] += 1


@pytest.mark.parametrize("dtype, vec", [(wp.float16, wp.vec3h), (wp.float64, wp.vec3d), (wp.float32, wp.vec3)])
def test_precisions_and_groups_match_brute_force(dtype, vec):
    rng = np.random.default_rng(11)
    pts = rng.uniform(-2, 2, (300, 3))
    pts[::37] = np.nan  # NaN points go to cell 0 and are no one's neighbour (NaN distances)
    x = wp.array(pts, dtype=vec)
    stored = x.numpy().astype(np.float64)  # the values as held in the grid's precision
    grid = wp.HashGrid(5, 7, 3, dtype=dtype)
    grid.build(x, 0.4)
    counts = wp.zeros(300, dtype=int)
    wp.launch(neighbours_any, 300, inputs=[grid.id, x, dtype(0.4), counts])
    dist = np.linalg.norm(stored[:, None] - stored[None], axis=2)
    r = float(np.float16(0.4)) if dtype is wp.float16 else 0.4
    tol = 1e-3 if dtype is wp.float16 else 1e-6  # pairs right at the radius may round either way
    got, exact = counts.numpy(), (dist <= r).sum(1)
    assert (np.abs(got - exact) <= (np.abs(dist - r) < tol).sum(1)).all()
    if dtype is wp.float32:
        groups = rng.integers(-3, 3, 300).astype(np.int32)
        grid.build(x, 0.4, groups=wp.array(groups, dtype=int))
        counts.zero_()
        wp.launch(neighbours_in_group, 300, inputs=[grid.id, x, 0.4, wp.array(groups, dtype=int), counts])
        same = groups[:, None] == groups[None]
        np.testing.assert_array_equal(counts.numpy(), ((dist <= 0.4) & same).sum(1))


@wp.kernel
def smooth_sum(grid: wp.uint64, x: wp.array(dtype=wp.vec3), r: float, out: wp.array(dtype=float)):
    i = wp.tid()
    p = x[i]
    s = float(0.0)
    for j in wp.hash_grid_query(grid, p, r):
        d2 = wp.length_sq(x[j] - p)
        if d2 < r * r:
            w = r * r - d2
            s += w * w * w
    out[i] = s


def test_gradient_through_a_query_loop():
    """The adjoint of a query loop (recomputed per iteration) against central differences and numpy."""
    from warp_nb.autograd import gradcheck
    rng = np.random.default_rng(3)
    pts = rng.uniform(0, 0.6, (24, 3)).astype(np.float64)
    x = wp.array(pts.astype(np.float32), dtype=wp.vec3, requires_grad=True)
    grid = wp.HashGrid(8, 8, 8)
    grid.build(x, 0.3)
    out = wp.zeros(24, dtype=float, requires_grad=True)
    gradcheck(smooth_sum, 24, [grid.id, x, 0.3], [out], eps=1e-3, atol=1e-3, rtol=2e-2)
    tape = wp.Tape()
    with tape:
        wp.launch(smooth_sum, 24, inputs=[grid.id, x, 0.3], outputs=[out])
    tape.backward(grads={out: wp.ones(24, dtype=float)})
    d = pts[:, None] - pts[None]  # x_i - x_j
    d2 = (d ** 2).sum(-1)
    w = np.where(d2 < 0.09, 0.09 - d2, 0.0)
    # d/dx_k sum_i sum_j w_ij^3 = sum_j 3 w^2 (-2 (x_k - x_j)) * 2 (pairs ij and ji)
    ref = (3 * w[..., None] ** 2 * (-2 * d) * 2).sum(1)
    np.testing.assert_allclose(x.grad.numpy(), ref, rtol=1e-3, atol=1e-6)
