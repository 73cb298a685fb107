"""wp.MarchingCubes: the isosurface of a scalar field on a regular grid as a triangle mesh.

The case table is generated here, not copied: for each of the 256 sign patterns of a cube's
corners, every face contributes segments between the crossing points of its edges (positive
corners on the left as seen from outside, diagonal ambiguities resolved by separating the
positive corners, a rule both cubes sharing a face agree on), the segments chain into loops,
and each loop is fanned into triangles from a vertex whose diagonals cross the cube's interior. Surfaces are therefore closed across cells, and their
normals point towards increasing field values (outwards for a signed distance field). The
extraction itself is vectorised numpy over all cells; crossing points are shared between cells."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .. import types as T
from ..arrays.array import array

# corner k sits at (k & 1, (k >> 1) & 1, (k >> 2) & 1)
CORNERS = np.array([[k & 1, (k >> 1) & 1, (k >> 2) & 1] for k in range(8)])
# edges: (corner with the lower coordinate, corner with the higher one, axis)
EDGES = [(a, a | (1 << axis), axis) for axis in range(3) for a in range(8) if not a & (1 << axis)]
_EDGE_OF = {frozenset((a, b)): e for e, (a, b, _) in enumerate(EDGES)}


def _faces():
    """The 6 faces as corner cycles, counter-clockwise seen from outside the cube."""
    faces = []
    for axis in range(3):
        for side in (0, 1):
            u, v = (axis + 1) % 3, (axis + 2) % 3
            cyc = []
            for du, dv in ((0, 0), (1, 0), (1, 1), (0, 1)):
                p = [0, 0, 0]
                p[axis], p[u], p[v] = side, du, dv
                cyc.append(p[0] | (p[1] << 1) | (p[2] << 2))
            # (u, v, axis) is right-handed: the cycle is CCW seen from +axis; flip it for the low side
            faces.append(cyc if side == 1 else cyc[::-1])
    return faces


def _fan_start(loop, face_edges):
    """The loop rotated so that its fan's diagonals never join two points of one cube face (such a
    diagonal could coincide with the neighbouring cube's and make the surface non-manifold)."""
    def shares_face(a, b):
        return any(a in f and b in f for f in face_edges)
    for s in range(len(loop)):
        rot = loop[s:] + loop[:s]
        if not any(shares_face(rot[0], rot[i]) for i in range(2, len(rot) - 1)):
            return rot
    return loop


@lru_cache(maxsize=1)
def case_table() -> tuple:
    """(triangles [256, M, 3] of edge indices, -1 padded; triangle count per case)."""
    faces = _faces()
    face_edges = [{_EDGE_OF[frozenset((c[i], c[(i + 1) % 4]))] for i in range(4)} for c in faces]
    cases = []
    for case in range(256):
        pos = [(case >> k) & 1 for k in range(8)]
        nxt = {}
        for cyc in faces:
            crossings = []  # (position in the walk, edge, kind)
            for s in range(4):
                a, b = cyc[s], cyc[(s + 1) % 4]
                if pos[a] != pos[b]:
                    crossings.append((_EDGE_OF[frozenset((a, b))], "exit" if pos[a] else "entry"))
            for i, (edge, kind) in enumerate(crossings):
                if kind == "exit":  # pair with the entry just before it along the walk
                    nxt[edge] = crossings[i - 1][0]
        tris, seen = [], set()
        for start in sorted(nxt):
            if start in seen:
                continue
            loop, e = [], start
            while e not in seen:
                seen.add(e)
                loop.append(e)
                e = nxt[e]
            loop = _fan_start(loop, face_edges)
            tris += [(loop[0], loop[i], loop[i + 1]) for i in range(1, len(loop) - 1)]
        cases.append(tris)
    m = max(len(t) for t in cases)
    table = np.full((256, m, 3), -1, np.int32)
    for c, tris in enumerate(cases):
        if tris:
            table[c, :len(tris)] = tris
    return table, np.array([len(t) for t in cases], np.int32)


def extract(field: np.ndarray, threshold: float):
    """(verts (n, 3) float32 in grid coordinates, indices (m,) int32) of the isosurface field == threshold."""
    f = np.asarray(field, np.float32)
    if f.ndim != 3 or min(f.shape) < 2:
        raise ValueError(f"marching cubes needs a 3-D field of at least 2x2x2 samples, got shape {f.shape}")
    if not np.isfinite(f).all():
        raise ValueError("marching cubes: the field holds non-finite values")
    thr = np.float32(threshold)
    pos = f >= thr
    verts, ids = [], []
    base = 0
    for axis in range(3):
        lo = [slice(None)] * 3
        hi = [slice(None)] * 3
        lo[axis], hi[axis] = slice(0, -1), slice(1, None)
        f0, f1 = f[tuple(lo)], f[tuple(hi)]
        cross = pos[tuple(lo)] != pos[tuple(hi)]
        idx = np.full(cross.shape, -1, np.int64)
        where = np.nonzero(cross)
        count = len(where[0])
        idx[where] = base + np.arange(count)
        base += count
        a, b = f0[where].astype(np.float64), f1[where].astype(np.float64)
        t = np.clip((thr - a) / (b - a), 0.0, 1.0)
        p = np.stack(where, 1).astype(np.float64)
        p[:, axis] += t
        verts.append(p)
        ids.append(idx)
    table, counts = case_table()
    nx, ny, nz = (s - 1 for s in f.shape)
    case = np.zeros((nx, ny, nz), np.int32)
    for k, (dx, dy, dz) in enumerate(CORNERS):
        case |= pos[dx:dx + nx, dy:dy + ny, dz:dz + nz].astype(np.int32) << k
    n_tri = counts[case]
    cells = np.nonzero(n_tri)
    per_cell = n_tri[cells]
    cell_rep = [np.repeat(c, per_cell) for c in cells]
    case_rep = np.repeat(case[cells], per_cell)
    first = np.repeat(np.cumsum(per_cell) - per_cell, per_cell)
    k = np.arange(len(case_rep)) - first
    local = table[case_rep, k]  # (T, 3) edge indices
    out = np.empty(local.shape, np.int64)
    for e, (a, _, axis) in enumerate(EDGES):
        sel = local == e
        if not sel.any():
            continue
        rows, cols = np.nonzero(sel)
        dx, dy, dz = CORNERS[a]
        out[rows, cols] = ids[axis][cell_rep[0][rows] + dx, cell_rep[1][rows] + dy, cell_rep[2][rows] + dz]
    v = np.concatenate(verts).astype(np.float32) if base else np.zeros((0, 3), np.float32)
    return v, out.reshape(-1).astype(np.int32)


class MarchingCubes:
    """Isosurfaces of an nx x ny x nz field: surface(field, threshold) fills `verts` (a wp.array
    of wp.vec3; grid coordinates, or mapped onto [lower, upper] when the domain is given) and
    `indices` (a wp.array of int32, three per triangle)."""

    def __init__(self, nx: int, ny: int, nz: int, lower=None, upper=None, *args, device=None,
                 domain_bounds_lower_corner=None, domain_bounds_upper_corner=None, max_verts=None, max_tris=None):
        self.nx, self.ny, self.nz = int(nx), int(ny), int(nz)
        if isinstance(lower, (int, np.integer)) and not isinstance(lower, bool):
            lower = upper = None  # Warp's older signature: (nx, ny, nz, max_verts, max_tris, device)
        self.domain_bounds_lower_corner = lower if lower is not None else domain_bounds_lower_corner
        self.domain_bounds_upper_corner = upper if upper is not None else domain_bounds_upper_corner
        self.device = device
        self.verts = array(np.zeros((0, 3), np.float32), dtype=T.vec3f)
        self.indices = array(np.zeros(0, np.int32), dtype=T.int32)

    def resize(self, nx: int, ny: int, nz: int, max_verts: int = 0, max_tris: int = 0) -> None:
        self.nx, self.ny, self.nz = int(nx), int(ny), int(nz)

    def surface(self, field, threshold: float) -> None:
        """Extract the surface field == threshold (field: a 3-D wp.array or numpy array of the grid's shape)."""
        data = field.numpy() if isinstance(field, array) else np.asarray(field)
        if data.shape != (self.nx, self.ny, self.nz):
            raise ValueError(f"MarchingCubes({self.nx}, {self.ny}, {self.nz}) got a field of shape {data.shape}")
        verts, indices = extract(data, threshold)
        lo, hi = self.domain_bounds_lower_corner, self.domain_bounds_upper_corner
        if lo is not None and hi is not None and len(verts):
            lo, hi = np.asarray(lo, np.float64), np.asarray(hi, np.float64)
            verts = (lo + verts * (hi - lo) / np.maximum(np.array([self.nx, self.ny, self.nz]) - 1, 1)).astype(np.float32)
        self.verts = array(verts.reshape(-1, 3), dtype=T.vec3f) if len(verts) else array(np.zeros((0, 3), np.float32),
                                                                                         dtype=T.vec3f)
        self.indices = array(indices, dtype=T.int32) if len(indices) else array(np.zeros(0, np.int32), dtype=T.int32)

    def __repr__(self):
        return f"wp.MarchingCubes({self.nx}, {self.ny}, {self.nz})"
