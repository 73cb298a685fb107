"""The geometry group of the Warp-API benchmark: the same code runs under `import warp as wp` and
`import warp_nb as wp` (bench_warp_api.py merges these workloads into its worker).

    bvh_build   wp.Mesh(points, indices) for a 1M-triangle mesh (the BVH build); the same for a
                20k-triangle mesh (bvh_build_20k), and mesh.refit() of the 1M mesh (mesh_refit)
    mesh_query  1M wp.mesh_query_point_no_sign queries on a 100k-triangle mesh
    hash_build  wp.HashGrid.build for 1M points
    hash_query  neighbour counts within r for 1M points (wp.hash_grid_query loops)

Inputs and numpy oracles are made once and kept in .bench/oracle/geometry_*.npz."""

import os

import numpy as np

import common

GEOMETRY = {
    "bvh_build": "BVH build: wp.Mesh of 1M triangles (height-field sheet)",
    "mesh_query": "1M closest-point queries (mesh_query_point_no_sign) on a 100k-triangle mesh",
    "hash_grid": "hash grid of 1M points: build (128^3 table) and neighbour counts within r",
}
#: result rows (name, workload that produces it, title)
ROWS = [("bvh_build", "bvh_build", None),
        ("bvh_build_20k", "bvh_build", "BVH build: wp.Mesh of 20k triangles (height-field sheet)"),
        ("mesh_refit", "bvh_build", "mesh.refit() of the 1M-triangle mesh after its points moved"),
        ("mesh_query", "mesh_query", None),
        ("hash_build", "hash_grid", "hash grid build, 1M points (128^3 table)"),
        ("hash_query", "hash_grid", "hash grid neighbour counts within r = 0.01 for 1M points")]
N_BUILD_SIDE = 708       # 2 * 708^2 = 1.0M triangles
N_SMALL_SIDE = 100       # 2 * 100^2 = 20k triangles
N_QUERY_SIDE = 224       # 2 * 224^2 = 100k triangles
N_QUERIES = 1_000_000
N_POINTS = 1_000_000
HASH_R = 0.01            # about 4 neighbours per point in the unit cube
N_CHECK = 400            # queries checked against numpy brute force
REPEATS = {False: {"bvh_build": 5, "bvh_build_20k": 50, "mesh_refit": 10, "mesh_query": 5, "hash_build": 10,
                  "hash_query": 5},
           True: {"bvh_build": 2, "bvh_build_20k": 10, "mesh_refit": 3, "mesh_query": 2, "hash_build": 3,
                  "hash_query": 2}}
REFIT_SHIFT = np.float32([0.0, 0.0, 0.05])  # the refit workload moves the mesh by this


def sheet(n):
    """A wavy n x n height-field sheet over the unit square: (points (m, 3) f32, indices int32)."""
    x = np.linspace(0.0, 1.0, n + 1)
    X, Y = np.meshgrid(x, x, indexing="ij")
    Z = 0.1 * np.sin(6 * X) * np.cos(5 * Y)
    pts = np.stack([X.ravel(), Y.ravel(), Z.ravel()], 1).astype(np.float32)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    a = (i * (n + 1) + j).ravel()
    b, c, d = a + n + 1, a + 1, a + n + 2
    idx = np.stack([a, b, d, a, d, c], 1).reshape(-1).astype(np.int32)
    return pts, idx


def _closest_dist(p, verts, idx):
    """Brute-force distance from points p to a triangle mesh (float64, chunked)."""
    tri = verts.astype(np.float64)[idx.reshape(-1, 3)]
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    out = np.empty(len(p))
    for k, q in enumerate(p.astype(np.float64)):
        ab, ac, ap = b - a, c - a, q - a
        n = np.cross(ab, ac)
        n2 = (n * n).sum(1)
        proj = q - ((ap * n).sum(1) / n2)[:, None] * n
        inside = np.ones(len(a), bool)
        for u, v in ((a, b), (b, c), (c, a)):
            inside &= (np.cross(v - u, proj - u) * n).sum(1) >= 0
        d = np.where(inside, np.linalg.norm(q - proj, axis=1), np.inf)
        for u, v in ((a, b), (b, c), (c, a)):
            e = v - u
            t = np.clip(((q - u) * e).sum(1) / (e * e).sum(1), 0, 1)
            d = np.minimum(d, np.linalg.norm(q - (u + t[:, None] * e), axis=1))
        out[k] = d.min()
    return out


def load(name):
    path = os.path.join(common.ORACLE_DIR, "geometry_%s.npz" % name)
    if os.path.exists(path):
        with np.load(path) as z:
            return {k: z[k] for k in z.files}
    rng = np.random.default_rng(11)
    if name == "build":
        pts, idx = sheet(N_BUILD_SIDE)
        check = np.array([[0.5, 0.5, 0.2], [0.13, 0.77, -0.15]], np.float32)
        case = {"points": pts, "indices": idx, "check": check, "dist": _closest_dist(check, pts, idx)}
    elif name == "query":
        pts, idx = sheet(N_QUERY_SIDE)
        q = rng.uniform([-0.1, -0.1, -0.3], [1.1, 1.1, 0.3], (N_QUERIES, 3)).astype(np.float32)
        case = {"points": pts, "indices": idx, "queries": q, "dist": _closest_dist(q[:N_CHECK], pts, idx)}
    else:
        p = rng.random((N_POINTS, 3), dtype=np.float32)
        check = np.empty(N_CHECK, np.int64)
        for k in range(N_CHECK):
            check[k] = int((np.linalg.norm(p.astype(np.float64) - p[k], axis=1) <= HASH_R).sum())
        case = {"points": p, "counts": check}
    os.makedirs(common.ORACLE_DIR, exist_ok=True)
    tmp = "%s.%d.tmp.npz" % (path[:-4], os.getpid())
    np.savez(tmp, **case)
    os.replace(tmp, path)
    return case


def make(wp, device):
    """The geometry workloads for the module `wp` (warp or warp_nb): name -> fn(ctx)."""
    if not hasattr(wp, "Mesh") or not hasattr(wp, "HashGrid"):
        def missing(ctx):
            raise common.NotYet("wp.Mesh / wp.HashGrid are missing")
        return {k: missing for k in GEOMETRY}

    @wp.kernel
    def closest_kernel(mesh: wp.uint64, qs: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
        i = wp.tid()
        p = qs[i]
        q = wp.mesh_query_point_no_sign(mesh, p, 10.0)
        d = float(-1.0)
        if q.result:
            d = wp.length(p - wp.mesh_eval_position(mesh, q.face, q.u, q.v))
        out[i] = d

    @wp.kernel
    def count_kernel(grid: wp.uint64, pts: wp.array(dtype=wp.vec3), r: float, out: wp.array(dtype=int)):
        i = wp.tid()
        p = pts[i]
        c = int(0)
        for j in wp.hash_grid_query(grid, p, r):
            if wp.length(pts[j] - p) <= r:
                c += 1
        out[i] = c

    def reps(ctx, name):
        return REPEATS[ctx["quick"]][name]

    def bench_build(ctx):
        case = load("build")
        pts = wp.array(case["points"], dtype=wp.vec3, device=device)
        idx = wp.array(case["indices"], dtype=int, device=device)
        holder = {}

        def run():
            holder["mesh"] = wp.Mesh(points=pts, indices=idx)
            wp.synchronize()

        def distances(mesh, check_points):
            out = wp.zeros(len(check_points), dtype=float, device=device)
            wp.launch(closest_kernel, len(check_points),
                      inputs=[mesh.id, wp.array(check_points, dtype=wp.vec3, device=device), out], device=device)
            return out.numpy()

        times = common.time_it(run, reps(ctx, "bvh_build"))
        # check: the built mesh answers closest-point queries (numpy brute force)
        check = common.check_close(distances(holder["mesh"], case["check"]), case["dist"], 1e-4, 1e-5)
        results = [common.result("bvh_build", times, check)]

        # the same on a 20k-triangle mesh (what a notebook rebuilds often), its oracle made here (small)
        small_pts, small_idx = sheet(N_SMALL_SIDE)
        small_p = wp.array(small_pts, dtype=wp.vec3, device=device)
        small_i = wp.array(small_idx, dtype=int, device=device)

        def run_small():
            holder["small"] = wp.Mesh(points=small_p, indices=small_i)
            wp.synchronize()

        times = common.time_it(run_small, reps(ctx, "bvh_build_20k"))
        small_ref = _closest_dist(case["check"], small_pts, small_idx)
        results.append(common.result("bvh_build_20k", times, common.check_close(
            distances(holder["small"], case["check"]), small_ref, 1e-4, 1e-5)))

        # refit after the points moved: the moved mesh answers the queries moved with it
        mesh = holder["mesh"]
        wp.copy(pts, wp.array(case["points"] + REFIT_SHIFT, dtype=wp.vec3, device=device))

        def run_refit():
            mesh.refit()
            wp.synchronize()

        times = common.time_it(run_refit, reps(ctx, "mesh_refit"))
        results.append(common.result("mesh_refit", times, common.check_close(
            distances(mesh, case["check"] + REFIT_SHIFT), case["dist"], 1e-4, 1e-5)))
        return results

    def bench_query(ctx):
        case = load("query")
        mesh = wp.Mesh(points=wp.array(case["points"], dtype=wp.vec3, device=device),
                       indices=wp.array(case["indices"], dtype=int, device=device))
        qs = wp.array(case["queries"], dtype=wp.vec3, device=device)
        out = wp.zeros(N_QUERIES, dtype=float, device=device)

        def run():
            wp.launch(closest_kernel, N_QUERIES, inputs=[mesh.id, qs, out], device=device)
            wp.synchronize()

        times = common.time_it(run, reps(ctx, "mesh_query"))
        check = common.check_close(out.numpy()[:N_CHECK], case["dist"], 1e-4, 2e-5)
        return common.result("mesh_query", times, check)

    def bench_hash(ctx):
        case = load("hash")
        pts = wp.array(case["points"], dtype=wp.vec3, device=device)
        grid = wp.HashGrid(128, 128, 128, device=device)
        counts = wp.zeros(N_POINTS, dtype=int, device=device)

        def build():
            grid.build(pts, HASH_R)
            wp.synchronize()

        def query():
            wp.launch(count_kernel, N_POINTS, inputs=[grid.id, pts, HASH_R, counts], device=device)
            wp.synchronize()

        tb = common.time_it(build, reps(ctx, "hash_build"))
        tq = common.time_it(query, reps(ctx, "hash_query"))
        got = counts.numpy()[:N_CHECK]
        check = "ok" if (got == case["counts"]).all() else "WRONG: %d of %d counts differ" % (
            int((got != case["counts"]).sum()), N_CHECK)
        return [common.result("hash_build", tb, check), common.result("hash_query", tq, check)]

    return {"bvh_build": bench_build, "mesh_query": bench_query, "hash_grid": bench_hash}
