"""The thread-block geometry queries (wp.tile_bvh_query_aabb / _ray, wp.tile_mesh_query_aabb and
Warp's older *_tiled names): each block walks one query with `while wp.tile_query_valid(q)`, and
the items it reports must be those of numpy brute force and of the per-thread queries, each once.
The kernels also compile for sm_90 with NVRTC."""

import numpy as np
import pytest

import warp_nb as wp
from tests.support.nvrtc_sm90 import compile_for_sm90

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def tile_box(bvh: wp.uint64, lo: wp.array(dtype=wp.vec3), hi: wp.array(dtype=wp.vec3), hits: wp.array2d(dtype=int),
             steps: wp.array(dtype=int)):
    i = wp.tid()  # one block per query box
    q = wp.tile_bvh_query_aabb(bvh, lo[i], hi[i])
    while wp.tile_query_valid(q):
        k = wp.untile(wp.tile_bvh_query_next(q))
        steps[i] += 1
        if k >= 0:
            wp.atomic_add(hits, i, k, 1)


@wp.kernel
def tile_ray(bvh: wp.uint64, o: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3), hits: wp.array2d(dtype=int)):
    i = wp.tid()
    q = wp.tile_bvh_query_ray(bvh, o[i], d[i])
    while wp.tile_query_valid(q):
        k = wp.untile(wp.tile_bvh_query_next(q))
        if k >= 0:
            wp.atomic_add(hits, i, k, 1)


@wp.kernel
def thread_ray(bvh: wp.uint64, o: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3), hits: wp.array2d(dtype=int)):
    i = wp.tid()
    for k in wp.bvh_query_ray(bvh, o[i], d[i]):
        hits[i, k] += 1


@wp.kernel
def older_names(bvh: wp.uint64, mesh: wp.uint64, lo: wp.vec3, hi: wp.vec3, o: wp.vec3, d: wp.vec3,
                hits: wp.array2d(dtype=int)):
    box = wp.bvh_query_aabb_tiled(bvh, lo, hi)
    while wp.tile_query_valid(box):
        k = wp.untile(wp.bvh_query_next_tiled(box))
        if k >= 0:
            hits[0, k] += 1
    ray = wp.bvh_query_ray_tiled(bvh, o, d)
    while wp.tile_query_valid(ray):
        k = wp.untile(wp.bvh_query_next_tiled(ray))
        if k >= 0:
            hits[1, k] += 1
    faces = wp.mesh_query_aabb_tiled(mesh, lo, hi)
    while wp.tile_query_valid(faces):
        f = wp.untile(wp.mesh_query_aabb_next_tiled(faces))
        if f >= 0:
            hits[2, f] += 1


@wp.kernel
def tile_faces(mesh: wp.uint64, lo: wp.array(dtype=wp.vec3), hi: wp.array(dtype=wp.vec3),
               hits: wp.array2d(dtype=int)):
    i = wp.tid()
    q = wp.tile_mesh_query_aabb(mesh, lo[i], hi[i])
    while wp.tile_query_valid(q):
        f = wp.untile(wp.tile_mesh_query_aabb_next(q))
        if f >= 0:
            wp.atomic_add(hits, i, f, 1)


@wp.kernel
def exhausted(bvh: wp.uint64, lo: wp.vec3, hi: wp.vec3, out: wp.array(dtype=int)):
    q = wp.tile_bvh_query_aabb(bvh, lo, hi)
    out[0] = int(wp.tile_query_valid(q))  # true before the first step, even for an empty query
    t = wp.tile_bvh_query_next(q)
    out[1] = wp.untile(t)
    out[2] = int(wp.tile_query_valid(q))
    out[3] = wp.untile(wp.tile_bvh_query_next(q))  # stepping past the end keeps saying none


@wp.kernel
def weighted(bvh: wp.uint64, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    q = wp.tile_bvh_query_aabb(bvh, wp.vec3(-1.0), wp.vec3(1.0))
    while wp.tile_query_valid(q):
        i = wp.untile(wp.tile_bvh_query_next(q))
        if i >= 0:
            wp.atomic_add(y, 0, x[i] * x[i])


def _boxes(n, seed):
    rng = np.random.default_rng(seed)
    c = rng.uniform(-1, 1, (n, 3))
    h = rng.uniform(0.01, 0.2, (n, 3))
    return (c - h).astype(np.float32), (c + h).astype(np.float32)


def _vec3(a):
    return wp.array(a, dtype=wp.vec3)


def _ray_box(o, d, lo, hi):
    inv = 1.0 / d
    t0, t1 = (lo[None] - o[:, None]) * inv[:, None], (hi[None] - o[:, None]) * inv[:, None]
    return np.maximum(np.minimum(t0, t1).max(-1), 0) <= np.maximum(t0, t1).min(-1)


@pytest.mark.parametrize("block_dim", [1, 64])
def test_tile_box_query_reports_each_overlapping_item_once(block_dim):
    lo, hi = _boxes(300, 1)
    bvh = wp.Bvh(_vec3(lo), _vec3(hi))
    qlo, qhi = _boxes(12, 2)
    qhi += 0.3
    hits, steps = wp.zeros((12, 300), dtype=int), wp.zeros(12, dtype=int)
    wp.launch_tiled(tile_box, dim=12, inputs=[bvh.id, _vec3(qlo), _vec3(qhi), hits, steps], block_dim=block_dim)
    ref = ((lo[None] <= qhi[:, None]) & (hi[None] >= qlo[:, None])).all(-1)
    np.testing.assert_array_equal(hits.numpy(), ref.astype(int))
    # one step per result and a last, empty one that ends the loop
    np.testing.assert_array_equal(steps.numpy(), ref.sum(1) + 1)
    assert ref.sum() > 30


def test_tile_ray_query_matches_the_thread_query_and_brute_force():
    lo, hi = _boxes(300, 3)
    bvh = wp.Bvh(_vec3(lo), _vec3(hi))
    rng = np.random.default_rng(4)
    o = rng.uniform(-2, 2, (20, 3)).astype(np.float32)
    d = (rng.uniform(-0.5, 0.5, (20, 3)) - o).astype(np.float32)
    tiled, single = wp.zeros((20, 300), dtype=int), wp.zeros((20, 300), dtype=int)
    wp.launch_tiled(tile_ray, dim=20, inputs=[bvh.id, _vec3(o), _vec3(d), tiled], block_dim=32)
    wp.launch(thread_ray, 20, inputs=[bvh.id, _vec3(o), _vec3(d), single])
    np.testing.assert_array_equal(tiled.numpy(), single.numpy())
    ref = _ray_box(o.astype(np.float64), d.astype(np.float64), lo, hi)
    assert (tiled.numpy() <= 1).all()
    assert (tiled.numpy().astype(bool) != ref).sum() <= 2  # boundary touches may round either way
    assert ref.sum() > 20


def _grid_mesh(n):
    """An n x n grid of quads in the z = 0 plane, two triangles each, gently warped in z."""
    x, y = np.meshgrid(np.linspace(0, 1, n + 1), np.linspace(0, 1, n + 1), indexing="ij")
    pts = np.stack([x, y, 0.1 * np.sin(6 * x) * np.cos(5 * y)], -1).reshape(-1, 3).astype(np.float32)
    v = np.arange((n + 1) ** 2).reshape(n + 1, n + 1)
    a, b, c, e = v[:-1, :-1], v[1:, :-1], v[1:, 1:], v[:-1, 1:]
    tris = np.concatenate([np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, e], -1).reshape(-1, 3)])
    return pts, tris.astype(np.int32)


def test_tile_mesh_box_query_lists_the_faces_whose_bounds_overlap():
    pts, tris = _grid_mesh(12)
    mesh = wp.Mesh(_vec3(pts), wp.array(tris.reshape(-1), dtype=wp.int32))
    qlo = np.array([[0.2, 0.2, -1], [0.5, 0.1, 0.0], [2, 2, 2]], np.float32)
    qhi = np.array([[0.45, 0.3, 1], [0.55, 0.9, 0.05], [3, 3, 3]], np.float32)
    hits = wp.zeros((3, len(tris)), dtype=int)
    wp.launch_tiled(tile_faces, dim=3, inputs=[mesh.id, _vec3(qlo), _vec3(qhi), hits], block_dim=64)
    flo, fhi = pts[tris].min(1), pts[tris].max(1)
    ref = ((flo[None] <= qhi[:, None]) & (fhi[None] >= qlo[:, None])).all(-1)
    np.testing.assert_array_equal(hits.numpy(), ref.astype(int))
    assert ref[0].sum() > 4 and ref[1].sum() > 4 and ref[2].sum() == 0


def test_older_names_are_the_same_queries():
    lo, hi = _boxes(100, 5)
    bvh = wp.Bvh(_vec3(lo), _vec3(hi))
    pts, tris = _grid_mesh(4)
    mesh = wp.Mesh(_vec3(pts), wp.array(tris.reshape(-1), dtype=wp.int32))
    qlo, qhi = np.array([-0.3, 0.2, -0.5], np.float32), np.array([0.6, 0.7, 0.5], np.float32)
    o, d = np.array([-2, -2, -2], np.float32), np.array([1, 1.1, 0.9], np.float32)
    hits = wp.zeros((3, 100), dtype=int)
    wp.launch_tiled(older_names, dim=1, inputs=[bvh.id, mesh.id, wp.vec3(*qlo), wp.vec3(*qhi), wp.vec3(*o),
                                                wp.vec3(*d), hits], block_dim=16)
    got = hits.numpy()
    np.testing.assert_array_equal(got[0], ((lo <= qhi) & (hi >= qlo)).all(-1))
    ray = _ray_box(o[None].astype(np.float64), d[None].astype(np.float64), lo, hi)[0]
    assert (got[1].astype(bool) != ray).sum() <= 1 and ray.sum() >= 3
    flo, fhi = pts[tris].min(1), pts[tris].max(1)
    np.testing.assert_array_equal(got[2, :len(tris)], ((flo <= qhi) & (fhi >= qlo)).all(-1))


def test_an_empty_query_takes_one_step():
    lo, hi = _boxes(50, 6)
    bvh = wp.Bvh(_vec3(lo), _vec3(hi))
    out = wp.full(4, 7, dtype=int)
    wp.launch_tiled(exhausted, dim=1, inputs=[bvh.id, wp.vec3(5.0, 5.0, 5.0), wp.vec3(6.0, 6.0, 6.0), out],
                    block_dim=8)
    assert out.numpy().tolist() == [1, -1, 0, -1]


def test_a_thread_query_is_not_a_tile_query():
    @wp.kernel
    def mixed(bvh: wp.uint64):
        q = wp.bvh_query_aabb(bvh, wp.vec3(0.0), wp.vec3(1.0))
        wp.tile_query_valid(q)

    lo, hi = _boxes(4, 7)
    with pytest.raises(Exception, match=r"wp.tile_query_valid does not accept \(BvhQuery\)"):
        wp.launch_tiled(mixed, dim=1, inputs=[wp.Bvh(_vec3(lo), _vec3(hi)).id], block_dim=8)


def test_gradients_flow_through_a_tiled_query_loop():
    lo, hi = _boxes(40, 8)
    lo, hi = lo * 2.5, hi * 2.5  # some inside the kernel's box [-1, 1]^3, some not
    bvh = wp.Bvh(_vec3(lo), _vec3(hi))
    x = wp.array(np.arange(40, dtype=np.float32), requires_grad=True)
    y = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(weighted, dim=1, inputs=[bvh.id, x, y], block_dim=8)
    tape.backward(grads={y: wp.ones(1)})
    inside = ((lo <= 1) & (hi >= -1)).all(-1)
    assert 0 < inside.sum() < 40
    np.testing.assert_allclose(y.numpy()[0], (np.arange(40) ** 2 * inside).sum())
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.arange(40) * inside)


def test_tiled_queries_belong_in_tile_kernels():
    with pytest.raises(RuntimeError, match=r"wp.tile_bvh_query_aabb\(\) is a tile builtin"):
        wp.tile_bvh_query_aabb(wp.uint64(0), wp.vec3(0.0), wp.vec3(1.0))


@pytest.mark.needs_nvrtc
def test_tiled_query_kernels_compile_for_sm90_with_nvrtc():
    compile_for_sm90([tile_box, tile_ray, older_names, tile_faces, exhausted, weighted])