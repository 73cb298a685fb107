"""The later query builtins against numpy brute force: bvh sphere and capsule queries, grouped
trees, query objects in branches and function parameters, mesh sphere queries, the furthest
point, counting ray hits, the parity sign, any-hit, mesh_get / mesh_get_bvh and the
out-parameter forms of the point and ray queries."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


def _boxes(n, seed):
    rng = np.random.default_rng(seed)
    lo = rng.random((n, 3)) * 5.0
    return lo, lo + rng.random((n, 3)) * 2.0


@wp.kernel
def sphere_hits(bvh: wp.uint64, c: wp.vec3, r: float, hits: wp.array(dtype=int)):
    q = wp.bvh_query_sphere(bvh, c, r)
    k = int(0)
    while wp.bvh_query_next(q, k):
        hits[k] += 1


@wp.kernel
def capsule_hits(bvh: wp.uint64, p0: wp.vec3, p1: wp.vec3, r: float, hits: wp.array(dtype=int)):
    for k in wp.bvh_query_capsule(bvh, p0, p1 - p0, r):
        hits[k] += 0  # the for form must at least compile and run
    q = wp.bvh_query_capsule(bvh, p0, p1 - p0, r)
    k = int(0)
    while wp.bvh_query_next(q, k, 1.0):
        hits[k] += 1


@wp.func
def drain(query: wp.BvhQuery, hits: wp.array(dtype=int)):
    k = int(0)
    while wp.bvh_query_next(query, k):
        hits[k] += 1


@wp.kernel
def either_kind(bvh: wp.uint64, use_ray: bool, a: wp.vec3, b: wp.vec3, root: int, hits: wp.array(dtype=int)):
    if use_ray:
        q = wp.bvh_query_ray(bvh, a, b, root)
    else:
        q = wp.bvh_query_aabb(bvh, a, b, root)
    drain(q, hits)


def _slab_ray(o, d, lo, hi):
    t0, t1 = np.zeros(len(lo)), np.full(len(lo), np.inf)
    for a in range(3):
        if d[a] == 0:
            inside = (o[a] >= lo[:, a]) & (o[a] <= hi[:, a])
            t1 = np.where(inside, t1, -1.0)
            continue
        ta, tb = (lo[:, a] - o[a]) / d[a], (hi[:, a] - o[a]) / d[a]
        t0, t1 = np.maximum(t0, np.minimum(ta, tb)), np.minimum(t1, np.maximum(ta, tb))
    return t0, t1


def test_bvh_sphere_and_capsule_match_brute_force():
    lo, hi = _boxes(300, 1)
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), leaf_size=2)
    hits = wp.zeros(300, dtype=int)
    c, r = np.array([3.0, 2.5, 3.5]), 1.7
    wp.launch(sphere_hits, 1, inputs=[bvh.id, wp.vec3(*c), r, hits])
    d = np.maximum(np.maximum(lo - c, c - hi), 0.0)
    np.testing.assert_array_equal(hits.numpy(), ((d ** 2).sum(axis=1) <= r * r).astype(int))
    hits.zero_()
    p0, p1, rad = np.array([0.0, 0.5, 6.0]), np.array([6.0, 5.0, 0.0]), 0.4
    wp.launch(capsule_hits, 1, inputs=[bvh.id, wp.vec3(*p0), wp.vec3(*p1), rad, hits])
    t0, t1 = _slab_ray(p0, p1 - p0, lo - rad, hi + rad)  # the segment against boxes grown by the radius
    expect = (t0 <= np.minimum(t1, 1.0)).astype(int)
    np.testing.assert_array_equal(hits.numpy(), expect)
    assert 0 < expect.sum() < 300


def test_grouped_bvh_roots_and_query_kinds_in_branches():
    lo, hi = _boxes(200, 2)
    groups = np.random.default_rng(3).integers(0, 5, 200) * 10  # ids 0, 10, ..., 40
    bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3), wp.array(hi, dtype=wp.vec3), groups=wp.array(groups, dtype=int))

    @wp.kernel
    def roots(bvh: wp.uint64, ids: wp.array(dtype=int), out: wp.array(dtype=int)):
        i = wp.tid()
        out[i] = wp.bvh_get_group_root(bvh, ids[i])

    ids = wp.array([0, 10, 20, 30, 40, 7], dtype=int)
    out = wp.zeros(6, dtype=int)
    wp.launch(roots, 6, inputs=[bvh.id, ids, out])
    r = out.numpy()
    assert (r[:5] >= 0).all() and r[5] == -1
    big_lo, big_hi = wp.vec3(-1.0, -1.0, -1.0), wp.vec3(9.0, 9.0, 9.0)
    for g, root in zip((0, 10, 20, 30, 40), r[:5]):
        hits = wp.zeros(200, dtype=int)
        wp.launch(either_kind, 1, inputs=[bvh.id, False, big_lo, big_hi, int(root), hits])
        np.testing.assert_array_equal(hits.numpy(), (groups == g).astype(int))
    hits = wp.zeros(200, dtype=int)  # root -1: the whole tree; the ray kind through the same variable
    o, d = np.array([0.0, 0.0, 0.0]), np.array([1.0, 0.8, 0.6])
    wp.launch(either_kind, 1, inputs=[bvh.id, True, wp.vec3(*o), wp.vec3(*d), -1, hits])
    t0, t1 = _slab_ray(o, d, lo, hi)
    np.testing.assert_array_equal(hits.numpy(), (t0 <= t1).astype(int))


def _sphere_mesh(n=16):
    """A closed UV sphere of radius 1 with outward faces."""
    verts = [(0.0, 0.0, 1.0)]
    for i in range(1, n):
        th = np.pi * i / n
        verts += [(np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), np.cos(th))
                  for ph in np.linspace(0, 2 * np.pi, 2 * n, endpoint=False)]
    verts.append((0.0, 0.0, -1.0))
    m, faces = 2 * n, []
    ring = lambda i, j: 1 + (i - 1) * m + j % m  # noqa: E731
    for j in range(m):
        faces.append((0, ring(1, j), ring(1, j + 1)))
        faces.append((len(verts) - 1, ring(n - 1, j + 1), ring(n - 1, j)))
        for i in range(1, n - 1):
            faces += [(ring(i, j), ring(i + 1, j), ring(i + 1, j + 1)), (ring(i, j), ring(i + 1, j + 1), ring(i, j + 1))]
    return np.array(verts, dtype=np.float32), np.array(faces, dtype=np.int32)


def _ray_triangle_ts(o, d, tri):
    """t of the ray against every triangle (nan where it misses), numpy Moller-Trumbore."""
    a, e1, e2 = tri[:, 0], tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
    pv = np.cross(d, e2)
    det = (e1 * pv).sum(1)
    tv = o - a
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (tv * pv).sum(1) / det
        qv = np.cross(tv, e1)
        w = (d * qv).sum(1) / det
        t = (e2 * qv).sum(1) / det
    ok = (det != 0) & (s >= 0) & (w >= 0) & (s + w <= 1)
    return np.where(ok, t, np.nan)


@wp.kernel
def mesh_queries(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3),
                 counts: wp.array(dtype=int), far: wp.array(dtype=float), parity: wp.array(dtype=float),
                 anyhit: wp.array(dtype=int), same: wp.array(dtype=int)):
    i = wp.tid()
    p = pts[i]
    counts[i] = wp.mesh_query_ray_count_intersections(mesh, p, dirs[i])
    q = wp.mesh_query_furthest_point_no_sign(mesh, p, 0.0)
    far[i] = wp.length(wp.mesh_eval_position(mesh, q.face, q.u, q.v) - p)
    parity[i] = wp.mesh_query_point_sign_parity(mesh, p, 10.0, 3, 0.05).sign
    anyhit[i] = int(wp.mesh_query_ray_anyhit(mesh, p, dirs[i], 0.5))
    # the out-parameter forms agree with the struct forms
    sign = float(0.0)
    face = int(-1)
    u = float(0.0)
    v = float(0.0)
    found = wp.mesh_query_point(mesh, p, 10.0, sign, face, u, v)
    r = wp.mesh_query_point(mesh, p, 10.0)
    t = float(0.0)
    n = wp.vec3()
    face2 = int(-1)
    hit = wp.mesh_query_ray(mesh, p, dirs[i], 10.0, t, u, v, sign, n, face2)
    rr = wp.mesh_query_ray(mesh, p, dirs[i], 10.0)
    same[i] = int(found == r.result and face == r.face and hit == rr.result and face2 == rr.face and t == rr.t)


def test_mesh_counting_furthest_parity_and_out_forms():
    verts, faces = _sphere_mesh()
    mesh = wp.Mesh(points=wp.array(verts, dtype=wp.vec3), indices=wp.array(faces.ravel(), dtype=int))
    rng = np.random.default_rng(5)
    pts = rng.uniform(-1.4, 1.4, (64, 3)).astype(np.float32)
    dirs = rng.normal(size=(64, 3)).astype(np.float32)
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    outs = [wp.zeros(64, dtype=int), wp.zeros(64), wp.zeros(64), wp.zeros(64, dtype=int), wp.zeros(64, dtype=int)]
    wp.launch(mesh_queries, 64, inputs=[mesh.id, wp.array(pts, dtype=wp.vec3), wp.array(dirs, dtype=wp.vec3), *outs])
    counts, far, parity, anyhit, same = (o.numpy() for o in outs)
    tri = verts[faces]
    for i in range(64):
        ts = _ray_triangle_ts(pts[i].astype(np.float64), dirs[i].astype(np.float64), tri.astype(np.float64))
        assert counts[i] == np.sum(ts >= 0), i
        assert anyhit[i] == int(np.any((ts >= 0) & (ts < 0.5))), i
    np.testing.assert_allclose(far, np.linalg.norm(verts[None] - pts[:, None], axis=2).max(axis=1), rtol=1e-5)
    r = np.linalg.norm(pts, axis=1)
    clear = np.abs(r - 1.0) > 0.05  # away from the faceted surface
    np.testing.assert_array_equal(parity[clear], np.where(r[clear] < 1.0, -1.0, 1.0))
    assert same.all()


@wp.kernel
def sphere_faces(mesh: wp.uint64, c: wp.vec3, r: float, hits: wp.array(dtype=int), bvh_hits: wp.array(dtype=int)):
    for f in wp.mesh_query_sphere(mesh, c, r):
        hits[f] += 1
    q = wp.bvh_query_sphere(wp.mesh_get_bvh(mesh), c, r)
    k = int(0)
    while wp.bvh_query_next(q, k):
        bvh_hits[k] += 1


@wp.kernel
def read_view(mesh: wp.uint64, pts: wp.array(dtype=wp.vec3), idx: wp.array(dtype=int)):
    i = wp.tid()
    m = wp.mesh_get(mesh)
    pts[i] = m.points[i]
    idx[i] = m.indices[i]


def test_mesh_sphere_query_view_and_tree():
    verts, faces = _sphere_mesh(8)
    mesh = wp.Mesh(points=wp.array(verts, dtype=wp.vec3), indices=wp.array(faces.ravel(), dtype=int))
    tri = verts[faces].astype(np.float64)
    c, r = np.array([0.6, 0.5, 0.2]), 0.45
    hits, bvh_hits = wp.zeros(len(faces), dtype=int), wp.zeros(len(faces), dtype=int)
    wp.launch(sphere_faces, 1, inputs=[mesh.id, wp.vec3(*c), r, hits, bvh_hits])
    # point-triangle distance by dense barycentric sampling (an upper bound within 1e-2 of the truth)
    s = np.linspace(0, 1, 41)
    uu, vv = np.meshgrid(s, s)
    keep = uu + vv <= 1
    w = np.stack([uu[keep], vv[keep], 1 - uu[keep] - vv[keep]], axis=1)
    samples = np.einsum("sk,fkd->fsd", w, tri)
    dist = np.linalg.norm(samples - c, axis=2).min(axis=1)
    got = hits.numpy().astype(bool)
    assert got[dist < r - 0.01].all() and not got[dist > r + 0.01].any() and got.sum() > 0
    box_d = np.maximum(np.maximum(tri.min(1) - c, c - tri.max(1)), 0)
    np.testing.assert_array_equal(bvh_hits.numpy(), ((box_d ** 2).sum(1) <= r * r).astype(int))
    n = 3 * len(faces)
    pts, idx = wp.zeros(n, dtype=wp.vec3), wp.zeros(n, dtype=int)
    wp.launch(read_view, len(verts), inputs=[mesh.id, pts, idx])
    np.testing.assert_array_equal(pts.numpy()[: len(verts)], verts)
    np.testing.assert_array_equal(idx.numpy()[: len(verts)], faces.ravel()[: len(verts)])


@wp.kernel
def grouped_ray(mesh: wp.uint64, group: int, o: wp.vec3, d: wp.vec3, out: wp.array(dtype=int)):
    root = wp.mesh_get_group_root(mesh, group)
    r = wp.mesh_query_ray(mesh, o, d, 100.0, root)
    out[0] = r.face
    out[1] = wp.mesh_query_ray_count_intersections(mesh, o, d, root)


def test_grouped_mesh_confines_queries_to_a_group():
    verts, faces = _sphere_mesh(8)
    groups = (np.arange(len(faces)) % 3).astype(np.int32)
    mesh = wp.Mesh(points=wp.array(verts, dtype=wp.vec3), indices=wp.array(faces.ravel(), dtype=int),
                   groups=wp.array(groups, dtype=int))
    o, d = np.array([0.05, 0.02, 0.01]), np.array([0.3, 0.4, 0.866])
    ts = _ray_triangle_ts(o, d / np.linalg.norm(d), verts[faces].astype(np.float64))
    out = wp.zeros(2, dtype=int)
    for g in range(3):
        wp.launch(grouped_ray, 1, inputs=[mesh.id, g, wp.vec3(*o), wp.vec3(*(d / np.linalg.norm(d))), out])
        ahead = np.where((groups == g) & (ts >= 0), ts, np.nan)  # this group's hits in front of the origin
        face, count = out.numpy()
        assert count == np.sum(~np.isnan(ahead))
        assert face == (-1 if np.isnan(ahead).all() else int(np.nanargmin(ahead)))


def test_constructor_names_and_errors():
    pts, idx = wp.array(np.eye(3), dtype=wp.vec3), wp.array([0, 1, 2], dtype=int)
    for name in ("sah", "median", "cubql"):
        assert wp.Mesh(points=pts, indices=idx, bvh_constructor=name).bvh_constructor == name
    with pytest.raises(ValueError, match="unknown Mesh constructor"):
        wp.Mesh(points=pts, indices=idx, bvh_constructor="cuqbl")
    with pytest.raises(RuntimeError, match="Grouped BVHs"):
        wp.Bvh(pts, pts, constructor="cubql", groups=wp.array([0, 0, 0], dtype=int))
    wp.Mesh.__new__(wp.Mesh).__del__()  # an object never built can be deleted
