"""Mesh, BVH, hash-grid and volume queries run by warp_nb and by warp-lang on the same random
inputs, compared query by query.

CI has no warp-lang, so this is a tool, not a test: give it a Python that has warp-lang installed,
e.g. the conformance runner's baseline venv.

    python -m tests.fuzz.geometry_against_warp --seed 1 \
        --warp-python ~/.cache/warp_nb/conformance/venv-warp/bin/python

The inputs (a closed, bumpy sphere mesh and an open triangle soup, query points inside, outside
and on the surface, rays, boxes, a point cloud, a dense volume) come from a seed and are written to
an .npz file; each side builds its meshes, BVHs, hash grid and volume from it in its own process,
runs the queries in kernels and writes every result. What is compared: the closest point's distance and sign
(mesh_query_point, _no_sign, _sign_normal, _sign_winding_number, _sign_parity; a sign as the
documentation defines it, < 0 inside and >= 0 outside), the furthest point's distance,
the ray's hit distance, face and sign (mesh_query_ray, bvh_query_ray hit sets), the triangles an
AABB query visits (mesh_query_aabb, bvh_query_aabb) and the neighbours a hash-grid query accepts
within its radius, and a volume's linear and closest samples, gradient and index-to-world map in
and around it. A face index differs legitimately where two faces are equally close, so closest
points are compared by position, not by face. Exit status 1 when results differ."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import tempfile

import numpy as np

from tests.fuzz import two_sides

QUERIES = 512


def make_inputs(seed: int, path: str) -> None:
    rng = np.random.default_rng(seed)
    # a closed mesh: a UV sphere with a bumpy radius (40 x 20 quads, split)
    nu, nv = 40, 20
    theta = np.linspace(0, np.pi, nv + 1)[1:-1]
    phi = np.linspace(0, 2 * np.pi, nu, endpoint=False)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    r = 1.0 + 0.15 * np.sin(3 * t) * np.cos(2 * p)
    ring = np.stack([r * np.sin(t) * np.cos(p), r * np.sin(t) * np.sin(p), r * np.cos(t)], axis=-1).reshape(-1, 3)
    points = np.concatenate([ring, [[0, 0, 1.0]], [[0, 0, -1.0]]])
    top, bottom = len(ring), len(ring) + 1
    tris = []
    for i in range(nv - 2):
        for j in range(nu):
            a, b = i * nu + j, i * nu + (j + 1) % nu
            c, d = a + nu, b + nu
            tris += [(a, c, b), (b, c, d)]
    for j in range(nu):
        tris.append((top, j, (j + 1) % nu))
        base = (nv - 2) * nu
        tris.append((bottom, base + (j + 1) % nu, base + j))
    soup = rng.uniform(-1.5, 1.5, (300, 3))
    soup_tris = rng.integers(0, 300, (200, 3))
    soup_tris = soup_tris[(soup_tris[:, 0] != soup_tris[:, 1]) & (soup_tris[:, 1] != soup_tris[:, 2])
                          & (soup_tris[:, 0] != soup_tris[:, 2])]
    q = rng.uniform(-1.6, 1.6, (QUERIES, 3))
    q[: QUERIES // 8] = points[rng.integers(0, len(points), QUERIES // 8)]  # on vertices: ties between faces
    dirs = rng.standard_normal((QUERIES, 3))
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    lo = rng.uniform(-1.5, 1.0, (QUERIES, 3))
    hi = lo + rng.uniform(0.0, 0.6, (QUERIES, 3))
    cloud = rng.uniform(-1.0, 1.0, (2000, 3))
    voxels = rng.standard_normal((8, 9, 10))
    np.savez(path, points=points.astype(np.float32), tris=np.array(tris, np.int32),
             soup=soup.astype(np.float32), soup_tris=soup_tris.astype(np.int32), q=q.astype(np.float32),
             dirs=dirs.astype(np.float32), lo=lo.astype(np.float32), hi=hi.astype(np.float32),
             cloud=cloud.astype(np.float32), voxels=voxels.astype(np.float32))


def run_side(module: str, inputs: str, out: str) -> None:
    os.environ["GEOMETRY_AGAINST_WARP_MODULE"] = module
    wp = importlib.import_module(module)
    wp.config.quiet = True
    from tests.fuzz import geometry_kernels
    k = geometry_kernels.build()
    d = np.load(inputs)
    n = QUERIES
    results = {}

    def arr(a, dtype):
        return wp.array(a, dtype=dtype)

    q, dirs = arr(d["q"], wp.vec3), arr(d["dirs"], wp.vec3)
    lo, hi = arr(d["lo"], wp.vec3), arr(d["hi"], wp.vec3)
    for name, pts, tris in (("sphere", d["points"], d["tris"]), ("soup", d["soup"], d["soup_tris"])):
        mesh = wp.Mesh(points=arr(pts, wp.vec3), indices=arr(tris.ravel(), wp.int32), support_winding_number=True)
        outs = {key: wp.zeros(n, dtype=t) for key, t in geometry_kernels.POINT_OUTPUTS.items()}
        wp.launch(k.point_queries, dim=n, inputs=[mesh.id, q, 4.0], outputs=list(outs.values()))
        rays = {key: wp.zeros(n, dtype=t) for key, t in geometry_kernels.RAY_OUTPUTS.items()}
        wp.launch(k.ray_queries, dim=n, inputs=[mesh.id, q, dirs, 10.0], outputs=list(rays.values()))
        counts = wp.zeros(n, dtype=wp.int32)
        sums = wp.zeros(n, dtype=wp.int64)
        wp.launch(k.aabb_queries, dim=n, inputs=[mesh.id, lo, hi], outputs=[counts, sums])
        for key, a in {**outs, **rays, "aabb_count": counts, "aabb_sum": sums}.items():
            results[f"{name}.{key}"] = a.numpy()
    # a BVH of boxes (the soup's triangle bounds) and a hash grid of the point cloud
    tri = d["soup"][d["soup_tris"]]
    bvh = wp.Bvh(arr(tri.min(axis=1), wp.vec3), arr(tri.max(axis=1), wp.vec3))
    counts, sums = wp.zeros(n, dtype=wp.int32), wp.zeros(n, dtype=wp.int64)
    wp.launch(k.bvh_aabb, dim=n, inputs=[bvh.id, lo, hi], outputs=[counts, sums])
    results["bvh.aabb_count"], results["bvh.aabb_sum"] = counts.numpy(), sums.numpy()
    counts, sums = wp.zeros(n, dtype=wp.int32), wp.zeros(n, dtype=wp.int64)
    wp.launch(k.bvh_ray, dim=n, inputs=[bvh.id, q, dirs], outputs=[counts, sums])
    results["bvh.ray_count"], results["bvh.ray_sum"] = counts.numpy(), sums.numpy()
    grid = wp.HashGrid(16, 16, 16)
    cloud = arr(d["cloud"], wp.vec3)
    grid.build(cloud, 0.2)
    counts, sums = wp.zeros(n, dtype=wp.int32), wp.zeros(n, dtype=wp.int64)
    wp.launch(k.grid_neighbours, dim=n, inputs=[grid.id, cloud, q, 0.2], outputs=[counts, sums])
    results["grid.count"], results["grid.sum"] = counts.numpy(), sums.numpy()
    # a dense volume (NanoVDB) with an offset origin and a background value, sampled in and around it
    volume = wp.Volume.load_from_numpy(d["voxels"], min_world=(-1.0, -2.0, 0.5), voxel_size=0.25, bg_value=0.5)
    outs = [wp.zeros(n, dtype=t) for t in (wp.float32, wp.float32, wp.vec3, wp.vec3)]
    wp.launch(k.volume_queries, dim=n, inputs=[volume.id, q], outputs=outs)
    for key, a in zip(("linear", "closest", "grad", "world"), outs):
        results[f"volume.{key}"] = a.numpy()
    np.savez(out, **results)


def compare(warp: dict, ours: dict) -> list:
    """(key, queries that differ, of them not on a vertex, an example) for each result that differs."""
    found = []
    for key in sorted(warp):
        a, b = warp[key], ours[key]
        if key.endswith("sign") or ".sign_" in key:  # Warp documents sign's sign: < 0 inside, >= 0 outside
            a, b = np.where(a < 0, -1, 1), np.where(b < 0, -1, 1)
        if a.dtype.kind == "f":
            bad = ~(np.isclose(a, b, rtol=1e-4, atol=1e-4) | (np.isnan(a) & np.isnan(b)))
        else:
            bad = a != b
        bad = bad.reshape(len(a), -1).any(axis=1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            off = np.flatnonzero(bad[QUERIES // 8:]) + QUERIES // 8  # queries not started on a vertex
            j = int(off[0]) if off.size else i
            found.append((key, int(bad.sum()), int(off.size), j, a[j], b[j]))
    return found


def main(argv=None) -> int:
    p = two_sides.parser(__doc__)
    p.add_argument("--inputs", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.side:
        run_side(args.side, args.inputs, args.out)
        return 0
    with tempfile.TemporaryDirectory(prefix="wpnb-geometry-") as tmp:
        inputs = os.path.join(tmp, "inputs.npz")
        make_inputs(args.seed, inputs)
        results = {}
        for side, python in (("warp", args.warp_python), ("warp_nb", sys.executable)):
            out = os.path.join(tmp, f"{side}.npz")
            two_sides.run_side(python, "tests.fuzz.geometry_against_warp",
                               ["--side", side, "--inputs", inputs, "--out", out])
            results[side] = dict(np.load(out))
    found = compare(results["warp"], results["warp_nb"])
    print(f"seed {args.seed}: {len(results['warp'])} results of {QUERIES} queries each; {len(found)} differ")
    for key, count, off, i, a, b in found:
        print(f"  {key}: {count} queries ({off} not on a vertex), e.g. query {i}: warp-lang {a}, warp_nb {b}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
