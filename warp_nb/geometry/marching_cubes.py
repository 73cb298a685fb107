"""Marching cubes' tables and topology: which grid edges an isosurface crosses and how the crossings
join into triangles (wp.geometry.IsoSurfaceMarchingCubes in iso_surface.py places the vertices).

The case table is generated here, not copied: for each of the 256 sign patterns of a cube's
corners, every face contributes segments between the crossing points of its edges (positive
corners on the left as seen from outside, diagonal ambiguities resolved by separating the
positive corners, a rule both cubes sharing a face agree on), the segments chain into loops,
and each loop is fanned into triangles from a vertex whose diagonals cross the cube's interior.
Surfaces are therefore closed across cells, and their normals point towards increasing field values
(outwards for a signed distance field). The extraction itself is vectorised numpy over all cells;
crossing points are shared between cells and numbered as Warp numbers them (by node, then axis), so
only the triangulation inside a cell can differ from Warp's."""

from __future__ import annotations

from functools import lru_cache

import numpy as np


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


def topology(field: np.ndarray, threshold: float):
    """The surface field == threshold as (crossing sites (n, 4) int32: the lower grid node i, j, k of
    each crossed edge and its axis, in the order of their nodes; triangles (m,) int32, three site indices
    each, cell by cell). Where a crossing lies along its edge is left to the caller (iso_surface.py
    computes it in a kernel, so that it is differentiable in the field)."""
    f = np.asarray(field, np.float32)
    if f.ndim != 3 or min(f.shape) < 2:
        raise ValueError(f"marching cubes needs a 3-D field with at least 2 nodes on each axis, got shape {f.shape}")
    if not np.isfinite(f).all():
        raise ValueError("marching cubes: the field holds non-finite values")
    pos = f >= np.float32(threshold)
    sites, ids = [], []
    base = 0
    for axis in range(3):
        lo = [slice(None)] * 3
        hi = [slice(None)] * 3
        lo[axis], hi[axis] = slice(0, -1), slice(1, None)
        cross = pos[tuple(lo)] != pos[tuple(hi)]
        idx = np.full(cross.shape, -1, np.int64)
        where = np.nonzero(cross)
        count = len(where[0])
        idx[where] = base + np.arange(count)
        base += count
        sites.append(np.stack([*where, np.full(count, axis)], 1))
        ids.append(idx)
    # Warp numbers the crossings node by node (i, j, k in order), a node's x, y, z edges in turn (probed)
    sites = np.concatenate(sites)
    order = np.lexsort((sites[:, 3], sites[:, 2], sites[:, 1], sites[:, 0]))
    rank = np.empty(base, np.int64)
    rank[order] = np.arange(base)
    sites = sites[order]
    ids = [np.where(idx >= 0, rank[idx.clip(0)], -1) if base else idx for idx in ids]
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
    return sites.astype(np.int32), out.reshape(-1).astype(np.int32)


def lookup_tables() -> dict:
    """The tables in Warp's published layout: corner offsets, the corners of each edge, and per case
    the range of its triangles' edge indices in one flat list (all tuples)."""
    table, counts = case_table()
    ranges = (0,) + tuple(int(x) for x in np.cumsum(counts))
    flat = tuple(int(e) for c in range(256) for tri in table[c, :counts[c]] for e in tri)
    return {"CUBE_CORNER_OFFSETS": tuple(tuple(int(x) for x in c) for c in CORNERS),
            "EDGE_TO_CORNERS": tuple((a, b) for a, b, _ in EDGES), "CASE_TO_TRI_RANGE": ranges,
            "TRI_LOCAL_INDICES": flat}
