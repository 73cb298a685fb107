"""Test shapes and numpy brute-force oracles for the geometry tests."""

import numpy as np


def uv_sphere(radius=1.0, n_lat=16, n_lon=24, center=(0.0, 0.0, 0.0)):
    """A closed, outward-oriented triangulated sphere: (points float32 (n, 3), indices int32 (m,))."""
    pts = [[0.0, 0.0, radius]]
    for i in range(1, n_lat):
        th = np.pi * i / n_lat
        for j in range(n_lon):
            ph = 2 * np.pi * j / n_lon
            pts.append([radius * np.sin(th) * np.cos(ph), radius * np.sin(th) * np.sin(ph), radius * np.cos(th)])
    pts.append([0.0, 0.0, -radius])
    tris = []
    ring = lambda i, j: 1 + (i - 1) * n_lon + (j % n_lon)  # noqa: E731
    for j in range(n_lon):
        tris.append([0, ring(1, j), ring(1, j + 1)])
    for i in range(1, n_lat - 1):
        for j in range(n_lon):
            a, b, c, d = ring(i, j), ring(i, j + 1), ring(i + 1, j), ring(i + 1, j + 1)
            tris += [[a, c, d], [a, d, b]]
    last = len(pts) - 1
    for j in range(n_lon):
        tris.append([last, ring(n_lat - 1, j + 1), ring(n_lat - 1, j)])
    p = np.array(pts, np.float64) + np.asarray(center)
    return p.astype(np.float32), np.array(tris, np.int32).reshape(-1)


def grid_plane(n=64, size=1.0):
    """An n x n grid of squares in z = 0, two triangles each."""
    x = np.linspace(0, size, n + 1)
    X, Y = np.meshgrid(x, x, indexing="ij")
    pts = np.stack([X.ravel(), Y.ravel(), np.zeros(X.size)], 1).astype(np.float32)
    idx = []
    for i in range(n):
        for j in range(n):
            a, b, c, d = i * (n + 1) + j, (i + 1) * (n + 1) + j, i * (n + 1) + j + 1, (i + 1) * (n + 1) + j + 1
            idx += [a, b, d, a, d, c]
    return pts, np.array(idx, np.int32)


def _closest_on_segments(p, a, b):
    ab = b - a
    t = np.clip(((p - a) * ab).sum(-1) / np.maximum((ab * ab).sum(-1), 1e-300), 0, 1)
    return a + t[..., None] * ab


def closest_points(points, verts, indices):
    """Brute force over every (point, triangle) pair in float64: (distance, face, closest point).
    Inside the face: the projection on its plane; outside: the closest of its three edges."""
    P = points.astype(np.float64)[:, None, :]
    tri = verts.astype(np.float64)[indices.reshape(-1, 3)]
    a, b, c = tri[None, :, 0], tri[None, :, 1], tri[None, :, 2]
    n = np.cross(b - a, c - a)
    n = n / np.linalg.norm(n, axis=-1, keepdims=True)
    proj = P - ((P - a) * n).sum(-1, keepdims=True) * n
    inside = np.ones(proj.shape[:2], bool)
    for u, v in ((a, b), (b, c), (c, a)):
        inside &= (np.cross(v - u, proj - u) * n).sum(-1) >= 0
    best = np.where(inside[..., None], proj, 0.0)
    dist = np.where(inside, np.linalg.norm(P - proj, axis=-1), np.inf)
    for u, v in ((a, b), (b, c), (c, a)):
        q = _closest_on_segments(P, np.broadcast_to(u, proj.shape), np.broadcast_to(v, proj.shape))
        d = np.linalg.norm(P - q, axis=-1)
        better = d < dist
        dist = np.where(better, d, dist)
        best = np.where(better[..., None], q, best)
    face = dist.argmin(1)
    k = np.arange(len(points))
    return dist[k, face], face, best[k, face]


def ray_hits(origins, dirs, verts, indices):
    """Brute-force closest ray hit (t in units of dir, face; inf / -1 for misses), float64."""
    tri = verts.astype(np.float64)[indices.reshape(-1, 3)]
    a, b, c = tri[:, 0], tri[:, 1], tri[:, 2]
    n = np.cross(b - a, c - a)
    O, D = origins.astype(np.float64)[:, None], dirs.astype(np.float64)[:, None]
    denom = (n[None] * D).sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (n[None] * (a[None] - O)).sum(-1) / denom
    hit = O + t[..., None] * D
    ok = np.isfinite(t) & (t >= 0)
    for u, v in ((a, b), (b, c), (c, a)):
        ok &= (np.cross(v - u, hit - u) * n).sum(-1) >= -1e-12
    t = np.where(ok, t, np.inf)
    face = t.argmin(1)
    tt = t[np.arange(len(origins)), face]
    return tt, np.where(np.isfinite(tt), face, -1)
