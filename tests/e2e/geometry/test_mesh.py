"""wp.Mesh against numpy brute force: closest points and signs, ray hits, box queries, face
evaluation, refit, gradients, and bad input refused before any kernel runs."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.autograd import gradcheck

from tests.support.shapes import closest_points, grid_plane, ray_hits, uv_sphere

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def closest_kernel(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), max_dist: float, mode: int,
                   dist: wp.array(dtype=float), face: wp.array(dtype=int), sign: wp.array(dtype=float),
                   cp: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = pts[i]
    q = wp.mesh_query_point_no_sign(mesh, p, max_dist)
    if mode == 1:
        q = wp.mesh_query_point(mesh, p, max_dist)
    elif mode == 2:
        q = wp.mesh_query_point_sign_normal(mesh, p, max_dist)
    elif mode == 3:
        q = wp.mesh_query_point_sign_winding_number(mesh, p, max_dist, 2.0, 0.5)
    if q.result:
        c = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
        dist[i] = wp.length(p - c)
        face[i] = q.face
        sign[i] = q.sign
        cp[i] = c
    else:
        dist[i] = -1.0
        face[i] = -1


def _query(mesh, pts, max_dist=1e6, mode=0):
    n = len(pts)
    out = [wp.zeros(n, dtype=float), wp.zeros(n, dtype=int), wp.zeros(n, dtype=float), wp.zeros(n, dtype=wp.vec3)]
    wp.launch(closest_kernel, n, inputs=[mesh.id, wp.array(pts, dtype=wp.vec3), max_dist, mode] + out)
    return [o.numpy() for o in out]


@pytest.fixture(scope="module")
def sphere():
    verts, idx = uv_sphere(1.0, 12, 18)
    return verts, idx, wp.Mesh(wp.array(verts, dtype=wp.vec3), wp.array(idx, dtype=wp.int32),
                               support_winding_number=True)


@pytest.mark.slow
def test_closest_points_match_brute_force(sphere):
    verts, idx, mesh = sphere
    rng = np.random.default_rng(1)
    pts = rng.uniform(-1.6, 1.6, (400, 3)).astype(np.float32)
    dist, face, _, cp = _query(mesh, pts)
    ref_d, ref_f, ref_cp = closest_points(pts, verts, idx)
    np.testing.assert_allclose(dist, ref_d, atol=2e-5)
    np.testing.assert_allclose(cp, ref_cp, atol=5e-5)
    # the face may differ where several faces share the closest point (a vertex or an edge)
    assert (face >= 0).all() and (face == ref_f).mean() > 0.5


def test_max_dist_limits_the_search(sphere):
    verts, idx, mesh = sphere
    pts = np.array([[0, 0, 3.0], [0, 0, 1.2]], np.float32)
    dist, face, _, _ = _query(mesh, pts, max_dist=0.5)
    assert dist[0] == -1.0 and face[0] == -1
    assert abs(dist[1] - 0.2) < 1e-3


@pytest.mark.parametrize("mode", [1, 2, 3])
def test_signs_inside_and_outside(sphere, mode):
    verts, idx, mesh = sphere
    rng = np.random.default_rng(2)
    pts = rng.uniform(-1.5, 1.5, (600, 3)).astype(np.float32)
    r = np.linalg.norm(pts, axis=1)
    pts = pts[np.abs(r - 0.97) > 0.06]  # away from the (polygonal) surface
    inside = np.linalg.norm(pts, axis=1) < 0.97
    _, _, sign, _ = _query(mesh, pts, mode=mode)
    np.testing.assert_array_equal(sign < 0, inside)
    assert set(np.unique(sign)) <= {-1.0, 1.0}


def test_winding_number_on_open_mesh():
    # a sphere with a hole still classifies its inside (winding number > 0.5)
    verts, idx = uv_sphere(1.0, 12, 18)
    mesh = wp.Mesh(wp.array(verts, dtype=wp.vec3), wp.array(idx.reshape(-1, 3)[4:].reshape(-1), dtype=wp.int32),
                   support_winding_number=True)
    pts = np.array([[0, 0, 0], [0.3, -0.2, 0.1], [0, 0, 2.0], [1.5, 0, 0]], np.float32)
    _, _, sign, _ = _query(mesh, pts, mode=3)
    np.testing.assert_array_equal(sign, [-1, -1, 1, 1])


@wp.kernel
def ray_kernel(mesh: wp.uint64, o: wp.array(dtype=wp.vec3), d: wp.array(dtype=wp.vec3), t: wp.array(dtype=float),
               face: wp.array(dtype=int), sign: wp.array(dtype=float), normal: wp.array(dtype=wp.vec3),
               hit: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    q = wp.mesh_query_ray(mesh, o[i], d[i], 1.0e6)
    if q.result:
        t[i] = q.t
        face[i] = q.face
        sign[i] = q.sign
        normal[i] = q.normal
        hit[i] = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
    else:
        t[i] = -1.0
        face[i] = -1


def test_ray_hits_match_brute_force(sphere):
    verts, idx, mesh = sphere
    rng = np.random.default_rng(3)
    n = 500
    o = rng.uniform(-2, 2, (n, 3)).astype(np.float32)
    d = (rng.uniform(-0.8, 0.8, (n, 3)) - o).astype(np.float32) * 1.7  # mostly towards the sphere
    d[::5] = rng.normal(size=(len(d[::5]), 3))  # some in any direction
    outs = [wp.zeros(n, dtype=float), wp.zeros(n, dtype=int), wp.zeros(n, dtype=float),
            wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=wp.vec3)]
    wp.launch(ray_kernel, n, inputs=[mesh.id, wp.array(o, dtype=wp.vec3), wp.array(d, dtype=wp.vec3)] + outs)
    t, face, sign, normal, hit = [x.numpy() for x in outs]
    ref_t, ref_f = ray_hits(o, d, verts, idx)
    assert ((t >= 0) == np.isfinite(ref_t)).mean() > 0.99  # grazing hits on shared edges may differ
    both = (t >= 0) & np.isfinite(ref_t)
    assert both.sum() > 100
    np.testing.assert_allclose(t[both], ref_t[both], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(hit[both], o[both] + t[both, None] * d[both], atol=1e-4)
    # sign: +1 where the ray enters through a face's front
    front = (normal[both] * d[both]).sum(1) < 0
    np.testing.assert_array_equal(sign[both] > 0, front)
    inside = np.linalg.norm(o[both], axis=1) < 0.95
    assert (sign[both][inside] < 0).all()


@wp.kernel
def aabb_kernel(mesh: wp.uint64, lo: wp.vec3, hi: wp.vec3, hits: wp.array(dtype=int), count: wp.array(dtype=int)):
    c = int(0)
    for f in wp.mesh_query_aabb(mesh, lo, hi):
        hits[f] = 1
        c += 1
    count[0] = c


def test_aabb_query_lists_overlapping_faces(sphere):
    verts, idx, mesh = sphere
    lo, hi = np.array([0.2, -0.3, -0.1], np.float32), np.array([1.1, 0.4, 0.5], np.float32)
    hits, count = wp.zeros(mesh.num_tris, dtype=int), wp.zeros(1, dtype=int)
    wp.launch(aabb_kernel, 1, inputs=[mesh.id, wp.vec3(*lo), wp.vec3(*hi), hits, count])
    tri = verts[idx.reshape(-1, 3)]
    ref = ((tri.min(1) <= hi) & (tri.max(1) >= lo)).all(1)
    np.testing.assert_array_equal(hits.numpy().astype(bool), ref)
    assert count.numpy()[0] == ref.sum()


@wp.kernel
def eval_kernel(mesh: wp.uint64, out: wp.array(dtype=wp.vec3), ids: wp.array(dtype=int)):
    out[0] = wp.mesh_eval_position(mesh, 1, 0.2, 0.3)
    out[1] = wp.mesh_eval_velocity(mesh, 1, 0.2, 0.3)
    out[2] = wp.mesh_eval_face_normal(mesh, 1)
    out[3] = wp.mesh_get_point(mesh, 2)
    out[4] = wp.mesh_get_velocity(mesh, 2)
    ids[0] = wp.mesh_get_index(mesh, 4)


def test_face_evaluation():
    pts, idx = grid_plane(2, 2.0)
    vel = np.arange(pts.size, dtype=np.float32).reshape(-1, 3)
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(idx, dtype=wp.int32), wp.array(vel, dtype=wp.vec3))
    out, ids = wp.zeros(5, dtype=wp.vec3), wp.zeros(1, dtype=int)
    wp.launch(eval_kernel, 1, inputs=[mesh.id, out, ids])
    o = out.numpy()
    f = idx.reshape(-1, 3)[1]
    np.testing.assert_allclose(o[0], 0.2 * pts[f[0]] + 0.3 * pts[f[1]] + 0.5 * pts[f[2]], atol=1e-6)
    np.testing.assert_allclose(o[1], 0.2 * vel[f[0]] + 0.3 * vel[f[1]] + 0.5 * vel[f[2]], atol=1e-5)
    n = np.cross(pts[f[1]] - pts[f[0]], pts[f[2]] - pts[f[0]])
    np.testing.assert_allclose(o[2], n / np.linalg.norm(n), atol=1e-6)
    np.testing.assert_allclose(o[3], pts[2])
    np.testing.assert_allclose(o[4], vel[2])
    assert ids.numpy()[0] == idx[4]


def test_refit_follows_moved_points(sphere):
    verts, idx = uv_sphere(1.0, 8, 12)
    points = wp.array(verts, dtype=wp.vec3)
    mesh = wp.Mesh(points, wp.array(idx, dtype=wp.int32))
    points.numpy()[:] += np.float32([5.0, 0.0, 0.0])
    mesh.refit()
    dist, _, sign, _ = _query(mesh, np.array([[5.0, 0, 0], [0, 0, 0]], np.float32), mode=1)
    ref_d, _, _ = closest_points(np.array([[5.0, 0, 0], [0, 0, 0]], np.float32), verts + [5, 0, 0], idx)
    np.testing.assert_allclose(dist, ref_d, atol=1e-5)
    assert sign[0] < 0 and sign[1] > 0
    mesh.points = wp.array(verts, dtype=wp.vec3)  # a new array of the same length refits too
    dist, _, _, _ = _query(mesh, np.array([[0, 0, 0]], np.float32))
    assert abs(dist[0] - ref_d[0]) < 1e-5


@wp.kernel
def sdf_kernel(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    p = pts[i]
    q = wp.mesh_query_point_no_sign(mesh, p, 100.0)
    c = wp.mesh_eval_position(mesh, q.face, q.u, q.v)
    out[i] = wp.length(p - c)


def test_gradient_of_distance_through_query():
    pts, idx = grid_plane(4, 1.0)
    mesh = wp.Mesh(wp.array(pts, dtype=wp.vec3), wp.array(idx, dtype=wp.int32))
    # above the face interiors, beside an edge and beyond a corner
    p = np.array([[0.3, 0.55, 0.4], [0.61, 0.2, -0.7], [1.3, 0.5, 0.2], [-0.4, -0.3, 0.25]], np.float32)
    x = wp.array(p, dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(len(p), dtype=float, requires_grad=True)
    gradcheck(sdf_kernel, len(p), [mesh.id, x], [out], eps=1e-3, atol=2e-3, rtol=2e-2)
    tape = wp.Tape()
    with tape:
        wp.launch(sdf_kernel, len(p), inputs=[mesh.id, x], outputs=[out])
    tape.backward(grads={out: wp.ones(len(p), dtype=float)})
    _, _, cp = closest_points(p, pts, idx)
    ref = (p - cp) / np.linalg.norm(p - cp, axis=1, keepdims=True)
    np.testing.assert_allclose(x.grad.numpy(), ref, atol=1e-4)


def test_bad_input_is_refused():
    pts, idx = grid_plane(2)
    P = wp.array(pts, dtype=wp.vec3)
    with pytest.raises(ValueError, match="multiple of 3"):
        wp.Mesh(P, wp.array(idx[:-1], dtype=wp.int32))
    with pytest.raises(ValueError, match="out of range"):
        wp.Mesh(P, wp.array(np.array([0, 1, 99], np.int32), dtype=wp.int32))
    with pytest.raises(ValueError, match="out of range"):
        wp.Mesh(P, wp.array(np.array([0, -1, 2], np.int32), dtype=wp.int32))
    with pytest.raises(ValueError, match="empty"):
        wp.Mesh(P, wp.zeros(0, dtype=wp.int32))
    with pytest.raises(ValueError, match="empty"):
        wp.Mesh(wp.zeros(0, dtype=wp.vec3), wp.array(idx, dtype=wp.int32))
    bad = pts.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        wp.Mesh(wp.array(bad, dtype=wp.vec3), wp.array(idx, dtype=wp.int32))
    with pytest.raises(TypeError):
        wp.Mesh(wp.array(pts[:, :2].copy(), dtype=wp.vec2), wp.array(idx, dtype=wp.int32))
    mesh = wp.Mesh(P, wp.array(idx, dtype=wp.int32))
    P.numpy()[0, 0] = np.inf
    with pytest.raises(ValueError, match="non-finite"):
        mesh.refit()


def test_numpy_inputs_and_large_build_time():
    import time
    pts, idx = grid_plane(200, 1.0)  # 80k triangles
    t0 = time.perf_counter()
    mesh = wp.Mesh(pts, idx)
    assert time.perf_counter() - t0 < 1.0
    assert mesh.num_tris == len(idx) // 3
    rng = np.random.default_rng(5)
    q = rng.uniform(0, 1, (200, 3)).astype(np.float32)
    dist, _, _, _ = _query(mesh, q)
    np.testing.assert_allclose(dist, np.abs(q[:, 2]), atol=1e-5)


def test_sign_normal_counts_points_on_the_surface_as_inside():
    # warp-lang 1.19 gives -1 for a point on a face, an edge or a vertex (tests/fuzz/geometry_against_warp.py);
    # warp_nb gave +1 there. Points off the surface keep their side.
    points = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=np.float32)
    tris = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]], dtype=np.int32)  # outward normals
    mesh = wp.Mesh(wp.array(points, dtype=wp.vec3), wp.array(tris.ravel(), dtype=wp.int32))
    on_surface = [[0.25, 0.25, 0.0], [0.0, 0.0, 0.0], [0.5, 0.0, 0.0], [0.5, 0.5, 0.0]]  # face, vertex, edges
    off_surface = [[0.1, 0.1, 0.1], [0.1, 0.1, -0.1], [2.0, 2.0, 2.0]]
    _, _, sign, _ = _query(mesh, np.array(on_surface + off_surface, dtype=np.float32), mode=2)
    np.testing.assert_array_equal(sign, [-1.0, -1.0, -1.0, -1.0, -1.0, 1.0, 1.0])


def test_signs_on_a_concave_shape():
    # an L-shaped solid (union of two boxes) meshed by marching cubes: concave edges and corners
    n = 40
    x = np.linspace(-1, 1, n)
    X, Y, Z = np.meshgrid(x, x, x, indexing="ij")

    def box(cx, cy, cz, hx, hy, hz):
        q = np.stack([np.abs(X - cx) - hx, np.abs(Y - cy) - hy, np.abs(Z - cz) - hz])
        return np.linalg.norm(np.maximum(q, 0), axis=0) + np.minimum(q.max(0), 0)
    f = np.minimum(box(-0.3, 0, 0, 0.5, 0.7, 0.5), box(0.3, -0.4, 0, 0.5, 0.3, 0.5)).astype(np.float32)
    mc = wp.geometry.IsoSurfaceMarchingCubes(n, n, n, (-1, -1, -1), (1, 1, 1))
    mc.surface(f, 0.0)
    mesh = wp.Mesh(mc.verts, mc.indices, support_winding_number=True)
    rng = np.random.default_rng(7)
    pts = rng.uniform(-1, 1, (3000, 3)).astype(np.float32)
    i, j, k = (np.clip(np.round((pts + 1) / 2 * (n - 1)), 0, n - 1).astype(int)).T
    sdf = f[i, j, k]
    keep = np.abs(sdf) > 0.08  # clearly inside or outside (the mesh is within a voxel of the surface)
    pts, inside = pts[keep], sdf[keep] < 0
    assert inside.sum() > 200 and (~inside).sum() > 200
    for mode in (1, 2, 3):
        _, _, sign, _ = _query(mesh, pts, mode=mode)
        np.testing.assert_array_equal(sign < 0, inside, err_msg=f"mode {mode}")


def test_a_failed_native_build_raises_instead_of_aborting():
    """The tree builder reports a failure (return 0 and a message) instead of aborting the
    process; wp.Mesh turns it into a RuntimeError with that message. The builder is replaced
    by one that fails, since a real allocation failure cannot be provoked safely here."""
    from unittest import mock

    from warp_nb._src.context import _get_runtime
    from warp_nb.geometry import native

    verts, faces = uv_sphere(1.0, 8, 6)
    runtime = _get_runtime(init=True)
    with mock.patch.object(runtime.core, "wp_mesh_create_host", return_value=0):
        # nothing failed in the native library itself, so its message is the runtime's fallback
        with pytest.raises(RuntimeError, match="Failed to create mesh: unknown native error"):
            wp.Mesh(points=wp.array(verts, dtype=wp.vec3), indices=wp.array(faces, dtype=int))
    mesh = wp.Mesh(points=wp.array(verts, dtype=wp.vec3), indices=wp.array(faces, dtype=int))
    assert mesh.num_tris == len(faces) // 3
    assert native.last_error() == ""  # no build failed on this thread
    assert runtime.get_error_string() == "unknown native error"
