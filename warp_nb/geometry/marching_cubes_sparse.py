"""wp.geometry.sparse_marching_cubes and sparse_marching_cubes_from_cells: marching cubes on a list of
cells instead of a whole grid. In: integer cell subscripts with the field's values at their 8 corners
(ordered as IsoSurfaceMarchingCubes.CUBE_CORNER_OFFSETS), or a batched field and a grid (nx, ny, nz
nodes over [lower, upper]) whose cells lipschitz_pruning.py chooses; out: (verts, indices) as the
dense extractor gives them, the same surface where the cells cover the dense grid's crossing cells.

The topology (each cell's case, its triangles, one vertex per crossed grid edge shared by every cell
around that edge) is decided on the host with the dense extractor's own case table
(marching_cubes.py), so sparse and dense agree triangle for triangle. Where each vertex lies is
computed by a warp_nb kernel from two corner values, so a launch recorded on a wp.Tape carries
gradients from the vertices back to corner_values (and through them to the field). Subscripts are
taken relative to their minimum, whose offset is folded into the origin in double precision, so
subscripts past float32's exact integers still give exact corners."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from .. import types as T
from ..arrays.array import array, array2d
from ..program.kernel import kernel
from .lipschitz_pruning import check_field, check_lipschitz, evaluate, refine
from .marching_cubes import CORNERS, EDGES, case_table

_AXES = np.array([axis for _, _, axis in EDGES], np.int64)
_EDGE_LOW = np.array([a for a, _, _ in EDGES], np.int64)
_EDGE_HIGH = np.array([b for _, b, _ in EDGES], np.int64)


@kernel
def _place_vertices(values: array2d(dtype=float), sites: array(dtype=T.vec4i), nodes: array(dtype=T.vec4i),
                    threshold: float, origin: T.vec3, spacing: T.vec3, verts: array(dtype=T.vec3)):
    v = wp.tid()
    s = sites[v]  # the cell (its row in values), the edge's two corners, unused
    n = nodes[v]  # the edge's lower node (relative to the cells' minimum) and its axis
    f0 = values[s[0], s[1]]
    f1 = values[s[0], s[2]]
    t = wp.clamp((threshold - f0) / (f1 - f0), 0.0, 1.0)
    p = wp.vec3(float(n[0]), float(n[1]), float(n[2]))
    if n[3] == 0:
        p = p + wp.vec3(t, 0.0, 0.0)
    elif n[3] == 1:
        p = p + wp.vec3(0.0, t, 0.0)
    else:
        p = p + wp.vec3(0.0, 0.0, t)
    verts[v] = origin + wp.cw_mul(p, spacing)


@kernel
def _gather_corners(values: array(dtype=float), corner_ids: array2d(dtype=T.int32), out: array2d(dtype=float)):
    c, k = wp.tid()
    out[c, k] = values[corner_ids[c, k]]


@kernel(enable_backward=False)
def _node_points(nodes: array(dtype=T.vec3i), lower: T.vec3, spacing: T.vec3, out: array(dtype=T.vec3)):
    i = wp.tid()
    n = nodes[i]
    out[i] = lower + wp.cw_mul(spacing, wp.vec3(float(n[0]), float(n[1]), float(n[2])))


def _cells_array(cells) -> np.ndarray:
    c = cells.numpy() if isinstance(cells, wp.array) else np.asarray(cells)
    c = np.asarray(c)
    if c.size % 3 or (c.ndim == 2 and c.shape[1] != 3) or c.ndim > 2:
        raise ValueError(f"`cells` must hold 3 integer subscripts per cell (shape (n, 3) or wp.vec3i), got shape "
                         f"{c.shape}")
    if c.size and not np.issubdtype(c.dtype, np.integer):
        raise TypeError(f"`cells` must hold integers, got {c.dtype}")
    return c.reshape(-1, 3).astype(np.int64)


def _corner_values(corner_values, n: int, device):
    """corner_values as an (n, 8) wp.array of float32 (kept as given when it already is one, strided or not,
    so that gradients reach it)."""
    if isinstance(corner_values, wp.array):
        if corner_values.size != 8 * n:
            raise ValueError(f"`corner_values` holds {corner_values.size} values for {n} cells; 8 per cell expected")
        if corner_values.dtype != wp.float32:
            raise TypeError(f"`corner_values` must be float32, got {corner_values.dtype}")
        if corner_values.ndim == 2 and corner_values.shape[1] == 8:
            return corner_values
        if corner_values.is_contiguous:
            return corner_values.reshape((n, 8))
        return wp.array(corner_values.numpy().reshape(n, 8), dtype=wp.float32, device=device)
    v = np.asarray(corner_values, np.float32)
    if v.size != 8 * n:
        raise ValueError(f"`corner_values` holds {v.size} values for {n} cells; 8 per cell expected")
    return wp.array(v.reshape(n, 8), dtype=wp.float32, device=device)


def topology(cells: np.ndarray, values: np.ndarray, threshold: float):
    """(sites (v, 4): cell row, low corner, high corner, 0; nodes (v, 4): the edge's lower node relative to
    the cells' minimum and its axis; triangles (t,) of vertex indices; the minimum subscript)."""
    table, counts = case_table()
    base = cells.min(axis=0) if len(cells) else np.zeros(3, np.int64)
    local = cells - base
    inside = values >= np.float32(threshold)
    case = (inside.astype(np.int64) << np.arange(8)).sum(axis=1) if len(cells) else np.zeros(0, np.int64)
    n_tri = counts[case]
    rows = np.repeat(np.arange(len(cells)), n_tri)
    first = np.repeat(np.cumsum(n_tri) - n_tri, n_tri)
    edges = table[case[rows], np.arange(len(rows)) - first].reshape(-1)  # three edges per triangle
    tri_cell = np.repeat(rows, 3)
    node = local[tri_cell] + CORNERS[_EDGE_LOW[edges]]
    axis = _AXES[edges]
    span = node.max(axis=0) + 1 if len(node) else np.ones(3, np.int64)
    key = ((node[:, 0] * span[1] + node[:, 1]) * span[2] + node[:, 2]) * 3 + axis
    keys, first_use, tri_vertex = np.unique(key, return_index=True, return_inverse=True)
    sites = np.stack([tri_cell[first_use], _EDGE_LOW[edges[first_use]], _EDGE_HIGH[edges[first_use]],
                      np.zeros(len(keys), np.int64)], 1)
    nodes = np.concatenate([node[first_use], axis[first_use, None]], 1)
    return sites.astype(np.int32), nodes.astype(np.int32), tri_vertex.reshape(-1).astype(np.int32), base


def extract_cells(cells: np.ndarray, values, origin, spacing, threshold: float, device):
    """(verts, indices) of the level set over explicit cells; values: an (n, 8) wp.array of float32."""
    origin = np.asarray(origin, np.float64).reshape(3)
    spacing = np.asarray(spacing, np.float64).reshape(3)
    sites, nodes, tris, base = topology(cells, values.numpy().reshape(-1, 8), threshold)
    verts = wp.zeros(len(sites), dtype=wp.vec3, device=device, requires_grad=values.requires_grad)
    if len(sites):
        shifted = origin + base * spacing  # in float64, before it is rounded to float32 once
        wp.launch(_place_vertices, len(sites),
                  inputs=[values, wp.array(sites, dtype=wp.vec4i, device=device),
                          wp.array(nodes, dtype=wp.vec4i, device=device), float(threshold), wp.vec3(*shifted),
                          wp.vec3(*spacing), verts], device=device)
    return verts, wp.array(tris, dtype=wp.int32, device=device)


def sparse_marching_cubes_from_cells(cells, corner_values, origin=(0.0, 0.0, 0.0), cell_width: float = 1.0,
                                     threshold: float = 0.0, device=None):
    """(verts, indices) of the level set corner_values == threshold over the cells (i, j, k) given
    (an (n, 3) integer array or a wp.array of wp.vec3i), each spanning origin + cell_width * ((i, j, k)
    .. (i + 1, j + 1, k + 1)); corner_values: (n, 8) or n * 8 float32, corners ordered as
    IsoSurfaceMarchingCubes.CUBE_CORNER_OFFSETS. Cells sharing an edge share its vertex; gradients flow
    from verts to corner_values."""
    cell_width = float(cell_width)
    if not cell_width > 0.0:
        raise ValueError(f"`cell_width` must be positive, got {cell_width}")
    if device is None:
        device = cells.device if isinstance(cells, wp.array) else (
            corner_values.device if isinstance(corner_values, wp.array) else None)
    device = wp.get_device(device)
    c = _cells_array(cells)
    values = _corner_values(corner_values, len(c), device)
    return extract_cells(c, values, origin, [cell_width] * 3, threshold, device)


def sparse_marching_cubes(field, nx: int, ny: int, nz: int, *, lower=None, upper=None, threshold: float = 0.0,
                          lipschitz_bound: float = 1.0, device=None, return_stats: bool = False):
    """(verts, indices[, stats]) of the level set field == threshold on the grid of nx x ny x nz nodes over
    [lower, upper] (grid coordinates without bounds), as IsoSurfaceMarchingCubes.extract gives it, while
    the field is evaluated only near the surface. field: a callable taking a wp.array of wp.vec3 points and
    returning a wp.array of float32 values, lipschitz_bound-Lipschitz (1 for a signed distance). The grid is
    padded to a cube of 2**d cells for the octree and cells past the grid are culled. stats: resolution,
    leaf_cells, culled_cells, field_evaluations. Gradients flow from verts to what field returns."""
    check_field(field)
    bound = check_lipschitz(lipschitz_bound)
    shape = tuple(int(n) for n in (nx, ny, nz))
    if min(shape) < 2:
        raise ValueError(f"sparse_marching_cubes needs at least 2 nodes on each axis, got {shape}")
    counts = np.asarray(shape, np.int64) - 1
    if (lower is None) != (upper is None):
        raise ValueError("sparse_marching_cubes: give both `lower` and `upper`, or neither (grid coordinates)")
    if lower is None:
        lo, hi = np.zeros(3), counts.astype(np.float64)
    else:
        lo, hi = np.asarray(lower, np.float64).reshape(3), np.asarray(upper, np.float64).reshape(3)
    spacing = (hi - lo) / counts
    device = wp.get_device(device)
    max_depth = int(np.ceil(np.log2(counts.max()))) if counts.max() > 1 else 0
    leaves, evaluations = refine(field, lo, spacing, max_depth, (1 << max_depth,) * 3, bound, threshold, device)
    inside = (leaves < counts).all(axis=1)
    culled = int((~inside).sum())
    leaves = leaves[inside].astype(np.int64)
    stats = {"resolution": 1 << max_depth, "leaf_cells": int(len(leaves) + culled), "culled_cells": culled,
             "requested_ncells": tuple(int(c) for c in counts), "unique_corners": 0}
    if len(leaves):
        corners = (leaves[:, None, :] + CORNERS[None]).reshape(-1, 3)
        key = (corners[:, 0] * (counts[1] + 1) + corners[:, 1]) * (counts[2] + 1) + corners[:, 2]
        unique, corner_ids = np.unique(key, return_inverse=True)
        nodes = np.stack([unique // ((counts[1] + 1) * (counts[2] + 1)), unique // (counts[2] + 1) % (counts[1] + 1),
                          unique % (counts[2] + 1)], 1)
        points = wp.empty(len(nodes), dtype=wp.vec3, device=device)
        wp.launch(_node_points, len(nodes), inputs=[wp.array(nodes.astype(np.int32), dtype=wp.vec3i, device=device),
                                                    wp.vec3(*lo), wp.vec3(*spacing), points], device=device,
                  record_tape=False)
        values = evaluate(field, points)
        evaluations += len(nodes)
        stats["unique_corners"] = len(nodes)
        per_cell = wp.zeros((len(leaves), 8), dtype=wp.float32, device=device, requires_grad=values.requires_grad)
        wp.launch(_gather_corners, (len(leaves), 8),
                  inputs=[values, wp.array(corner_ids.reshape(-1, 8).astype(np.int32), dtype=wp.int32, device=device),
                          per_cell], device=device)
        verts, indices = extract_cells(leaves, per_cell, lo, spacing, threshold, device)
    else:
        verts = wp.zeros(0, dtype=wp.vec3, device=device)
        indices = wp.zeros(0, dtype=wp.int32, device=device)
    stats["field_evaluations"] = int(evaluations)
    return (verts, indices, stats) if return_stats else (verts, indices)
