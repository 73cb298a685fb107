"""wp.geometry.tri_tri_adjacency against a numpy edge map, the planar predicates against numpy in
float64, and delaunay_edge_flip checked by brute force: after flipping, no point lies inside the
circumcircle of any triangle (the empty-circumcircle property, global on a convex domain)."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.geometry.delaunay import in_circle, signed_area

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def _predicates(a: wp.array(dtype=wp.vec2), b: wp.array(dtype=wp.vec2), c: wp.array(dtype=wp.vec2),
                d: wp.array(dtype=wp.vec2), area: wp.array(dtype=float), inside: wp.array(dtype=wp.int32)):
    i = wp.tid()
    area[i] = signed_area(a[i], b[i], c[i])
    inside[i] = wp.int32(in_circle(a[i], b[i], c[i], d[i]))


def _in_circle_det(a, b, c, d):
    """numpy, float64: positive when d is inside the circumcircle of counterclockwise abc."""
    rows = np.stack([a - d, b - d, c - d], axis=-2)
    lift = (rows**2).sum(-1, keepdims=True)
    return np.linalg.det(np.concatenate([rows, lift], axis=-1))


def _jittered_grid(nx, ny, jitter, seed):
    """A triangulation of a jittered grid (boundary points left on the rectangle), each cell split
    along a random diagonal, counterclockwise."""
    rng = np.random.default_rng(seed)
    xs, ys = np.meshgrid(np.arange(nx + 1), np.arange(ny + 1), indexing="ij")
    points = np.stack([xs.ravel(), ys.ravel()], axis=1).astype(np.float64)
    inner = (xs.ravel() > 0) & (xs.ravel() < nx) & (ys.ravel() > 0) & (ys.ravel() < ny)
    points[inner] += rng.uniform(-jitter, jitter, (int(inner.sum()), 2))
    tris = []
    for i in range(nx):
        for j in range(ny):
            bl, br, tr, tl = i * (ny + 1) + j, (i + 1) * (ny + 1) + j, (i + 1) * (ny + 1) + j + 1, i * (ny + 1) + j + 1
            tris += [[bl, br, tr], [bl, tr, tl]] if rng.uniform() < 0.5 else [[bl, br, tl], [br, tr, tl]]
    return points.astype(np.float32), np.array(tris, dtype=np.int32)


def _area(points, tris):
    p = points.astype(np.float64)[tris]
    return 0.5 * ((p[:, 1, 0] - p[:, 0, 0]) * (p[:, 2, 1] - p[:, 0, 1]) - (p[:, 1, 1] - p[:, 0, 1]) * (p[:, 2, 0] - p[:, 0, 0]))


def _edge_map(tris):
    edges = {}
    for t, tri in enumerate(tris):
        for j in range(3):
            a, b = int(tri[(j + 1) % 3]), int(tri[(j + 2) % 3])
            edges.setdefault((min(a, b), max(a, b)), []).append((t, j))
    return edges


def test_predicates_match_numpy():
    rng = np.random.default_rng(0)
    n = 2000
    a, b, c, d = (rng.uniform(-2, 2, (n, 2)).astype(np.float32) for _ in range(4))
    # make every triangle counterclockwise, as in_circle expects
    flip = _area(np.concatenate([a, b, c]), np.arange(3 * n).reshape(3, n).T) < 0
    b[flip], c[flip] = c[flip].copy(), b[flip].copy()
    area = wp.empty(n, dtype=float)
    inside = wp.empty(n, dtype=wp.int32)
    arrays = [wp.array(x, dtype=wp.vec2) for x in (a, b, c, d)]
    wp.launch(_predicates, dim=n, inputs=[*arrays, area, inside])
    want_area = _area(np.concatenate([a, b, c]), np.arange(3 * n).reshape(3, n).T)
    np.testing.assert_allclose(area.numpy(), want_area, rtol=1e-4, atol=1e-5)
    det = _in_circle_det(*(x.astype(np.float64) for x in (a, b, c, d)))
    clear = np.abs(det) > 1e-9
    assert np.array_equal(inside.numpy()[clear] == 1, det[clear] > 0)


def test_in_circle_counts_a_cocircular_point_as_outside():
    square = [wp.array(np.array([p], dtype=np.float32), dtype=wp.vec2) for p in ([0, 0], [1, 0], [1, 1], [0, 1])]
    inside = wp.empty(1, dtype=wp.int32)
    wp.launch(_predicates, dim=1, inputs=[*square, wp.empty(1, dtype=float), inside])
    assert inside.numpy()[0] == 0


@pytest.mark.parametrize("seed", [0, 1])
def test_adjacency_matches_an_edge_map(seed):
    _, tris = _jittered_grid(7, 5, 0.3, seed)
    rng = np.random.default_rng(seed)
    reversed_rows = rng.uniform(size=len(tris)) < 0.3  # orientation need not be consistent
    tris[reversed_rows] = tris[reversed_rows][:, ::-1]
    neighbors, edge_indices = wp.geometry.tri_tri_adjacency(wp.array(tris, dtype=wp.int32))
    want = np.full(tris.shape, -1)
    want_edge = np.full(tris.shape, -1)
    for incident in _edge_map(tris).values():
        if len(incident) == 2:
            (t0, j0), (t1, j1) = incident
            want[t0, j0], want_edge[t0, j0] = t1, j1
            want[t1, j1], want_edge[t1, j1] = t0, j0
    assert np.array_equal(neighbors.numpy(), want)
    assert np.array_equal(edge_indices.numpy(), want_edge)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_flipped_mesh_has_empty_circumcircles(seed):
    points, tris = _jittered_grid(9, 8, 0.45, seed)
    indices = wp.array(tris, dtype=wp.int32)
    flips = int(wp.geometry.delaunay_edge_flip(wp.array(points, dtype=wp.vec2), indices).numpy()[0])
    out = indices.numpy()
    assert flips > 0
    assert np.all(_area(points, out) > 0)
    np.testing.assert_allclose(_area(points, out).sum(), _area(points, tris).sum(), rtol=1e-6)
    assert max(len(v) for v in _edge_map(out).values()) <= 2  # still edge-manifold
    # brute force: every point against every triangle's circumcircle
    p = points.astype(np.float64)
    tri_pts = p[out]
    det = _in_circle_det(tri_pts[:, None, 0], tri_pts[:, None, 1], tri_pts[:, None, 2], p[None, :, :])
    assert det.max() <= 1e-9, f"a point lies inside a circumcircle (det {det.max()})"


def test_flipping_is_deterministic_and_stops_at_a_fixed_point():
    points, tris = _jittered_grid(12, 12, 0.4, 7)
    results = []
    for _ in range(2):
        indices = wp.array(tris, dtype=wp.int32)
        total = wp.geometry.delaunay_edge_flip(wp.array(points, dtype=wp.vec2), indices)
        results.append((int(total.numpy()[0]), indices.numpy()))
    assert results[0][0] == results[1][0] and np.array_equal(results[0][1], results[1][1])
    again = wp.geometry.delaunay_edge_flip(wp.array(points, dtype=wp.vec2), wp.array(results[0][1], dtype=wp.int32))
    assert int(again.numpy()[0]) == 0


def test_max_passes_bounds_the_work():
    points, tris = _jittered_grid(12, 12, 0.45, 8)
    full = int(wp.geometry.delaunay_edge_flip(wp.array(points, dtype=wp.vec2), wp.array(tris, dtype=wp.int32))
               .numpy()[0])
    one = int(wp.geometry.delaunay_edge_flip(wp.array(points, dtype=wp.vec2), wp.array(tris, dtype=wp.int32),
                                             max_passes=1).numpy()[0])
    assert 0 < one <= full


def test_bad_input_names_the_argument():
    points, tris = _jittered_grid(2, 2, 0.2, 0)
    positions = wp.array(points, dtype=wp.vec2)
    indices = wp.array(tris, dtype=wp.int32)
    flip = wp.geometry.delaunay_edge_flip
    with pytest.raises(ValueError, match="positions"):
        flip(wp.array(np.zeros((9, 3), np.float32), dtype=wp.vec3), indices)
    with pytest.raises(ValueError, match="ref_positions"):
        flip(positions, indices, ref_positions=wp.zeros(3, dtype=wp.vec2))
    with pytest.raises(ValueError, match="indices must have shape"):
        flip(positions, wp.zeros((4, 2), dtype=wp.int32))
    with pytest.raises(ValueError, match="indices must have dtype int32"):
        flip(positions, wp.array(tris.astype(np.int64), dtype=wp.int64))
    with pytest.raises(TypeError, match="indices"):
        flip(positions, tris)
    with pytest.raises(ValueError, match="max_passes"):
        flip(positions, indices, max_passes=True)
    with pytest.raises(ValueError, match="area_epsilon"):
        flip(positions, indices, area_epsilon="0")
    with pytest.raises(ValueError, match="vertex_count"):
        wp.geometry.tri_tri_adjacency(indices, vertex_count=-1)
    assert np.array_equal(indices.numpy(), tris)


def test_indices_past_the_vertex_count_join_no_edge():
    """An index outside [0, vertex_count) is left out of the adjacency instead of written past it."""
    tris = np.array([[0, 1, 2], [0, 2, 3], [2, 9, 3]], dtype=np.int32)
    neighbors, _ = wp.geometry.tri_tri_adjacency(wp.array(tris, dtype=wp.int32), vertex_count=4)
    assert neighbors.numpy().tolist() == [[-1, 1, -1], [2, -1, 0], [-1, 1, -1]]  # edge (2, 3) is real
    points = wp.array(np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32), dtype=wp.vec2)
    assert int(wp.geometry.delaunay_edge_flip(points, wp.array(tris, dtype=wp.int32)).numpy()[0]) == 0


@wp.kernel
def _neighbor_edges_from_func(neighbors: wp.array2d(dtype=wp.int32), out: wp.array2d(dtype=wp.int32)):
    t, j = wp.tid()
    n = neighbors[t, j]
    out[t, j] = -1
    if n >= 0:
        out[t, j] = wp.geometry.find_triangle_neighbor_edge_index(neighbors, n, t)


def test_find_triangle_neighbor_edge_index_recovers_the_neighbor_edges():
    _, tris = _jittered_grid(6, 4, 0.3, 2)
    neighbors, edge_indices = wp.geometry.tri_tri_adjacency(wp.array(tris, dtype=wp.int32))
    out = wp.empty(tris.shape, dtype=wp.int32)
    wp.launch(_neighbor_edges_from_func, dim=tris.shape, inputs=[neighbors, out])
    assert np.array_equal(out.numpy(), edge_indices.numpy())
