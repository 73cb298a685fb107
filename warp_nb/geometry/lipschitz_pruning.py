"""wp.geometry.lipschitz_octree: the cells of a fine grid that a level set of a Lipschitz function can
pass through, found without sampling the whole grid. In: a batched field (a Python callable taking a
wp.array of wp.vec3 points and returning a wp.array of float32 values on their device), a box and a
depth; out: the integer subscripts (wp.vec3i) of the finest cells kept, and the work done.

The octree is refined level by level from one root cell: each cell's field value at its centre is
compared with the isovalue; a function whose slope is at most L cannot reach the isovalue inside a
cell whose centre value is further than L times the cell's half diagonal from it, so such a cell and
all its descendants are dropped, and the others split into their 8 children (the pruning rule of
Sharp and Jacobson's "Spelunking the deep", 2022). Centres and the keep test run in warp_nb kernels;
the compaction of the kept cells is numpy. These kernels are never recorded on a wp.Tape: choosing
cells is not differentiated (the user's field launches still are, and harmlessly carry no gradient).
Knows nothing about marching cubes (marching_cubes_sparse.py extracts the surface)."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from .. import types as T
from ..arrays.array import array
from ..program.func import Function
from ..program.kernel import kernel

_CHILDREN = np.array([[a, b, c] for a in (0, 1) for b in (0, 1) for c in (0, 1)], np.int32)


@kernel(enable_backward=False)
def _cell_centers(cells: array(dtype=T.vec3i), lower: T.vec3, size: T.vec3, out: array(dtype=T.vec3)):
    i = wp.tid()
    c = cells[i]
    out[i] = lower + wp.cw_mul(size, wp.vec3(float(c[0]) + 0.5, float(c[1]) + 0.5, float(c[2]) + 0.5))


@kernel(enable_backward=False)
def _may_cross(values: array(dtype=float), threshold: float, radius: float, keep: array(dtype=T.int32)):
    i = wp.tid()
    keep[i] = wp.where(wp.abs(values[i] - threshold) <= radius, 1, 0)


def check_field(field, name: str = "field") -> None:
    """Refuse what is not a batched evaluator: a bare @wp.func evaluates one point inside kernels only."""
    if isinstance(field, Function):
        raise TypeError(f"`{name}` is a @wp.func; pass a Python callable that takes a wp.array of wp.vec3 points "
                        "and returns a wp.array of float32 values (launch a kernel that calls the func)")
    if not callable(field):
        raise TypeError(f"`{name}` must be a callable taking a wp.array of wp.vec3 points, got {type(field).__name__}")


def check_lipschitz(lipschitz_bound) -> float:
    bound = float(lipschitz_bound)
    if not bound > 0.0:
        raise ValueError(f"`lipschitz_bound` must be positive, got {lipschitz_bound}")
    return bound


def evaluate(field, points) -> wp.array:
    """field(points) as a wp.array of float32 with one value per point (the caller's contract, checked)."""
    values = field(points)
    if not isinstance(values, wp.array):
        values = wp.array(np.asarray(values, np.float32).reshape(-1), dtype=wp.float32, device=points.device)
    if values.shape[0] != points.shape[0]:
        raise ValueError(f"the field returned {values.shape[0]} values for {points.shape[0]} points")
    return values


def refine(field, lower, finest, max_depth: int, cell_counts, lipschitz_bound: float, threshold: float, device):
    """(leaf subscripts (n, 3) int32 at the finest level, number of field evaluations). The root spans
    2**max_depth finest cells of size `finest` (per axis) from `lower`; cells lying wholly past
    `cell_counts` (the grid's cells per axis) are skipped before they are evaluated."""
    lower = np.asarray(lower, np.float64)
    finest = np.asarray(finest, np.float64)
    counts = np.asarray(cell_counts, np.int64)
    cells = np.zeros((1, 3), np.int32)
    evaluations = 0
    for depth in range(max_depth + 1):
        scale = 1 << (max_depth - depth)
        cells = cells[(cells.astype(np.int64) * scale < counts).all(axis=1)]
        if len(cells) == 0:
            break
        size = finest * scale
        cells_wp = wp.array(cells, dtype=wp.vec3i, device=device)
        points = wp.empty(len(cells), dtype=wp.vec3, device=device)
        wp.launch(_cell_centers, len(cells), inputs=[cells_wp, wp.vec3(*lower), wp.vec3(*size), points],
                  device=device, record_tape=False)
        values = evaluate(field, points)
        evaluations += len(cells)
        keep = wp.empty(len(cells), dtype=wp.int32, device=device)
        radius = lipschitz_bound * 0.5 * float(np.linalg.norm(size))
        wp.launch(_may_cross, len(cells), inputs=[values, float(threshold), radius, keep], device=device,
                  record_tape=False)
        cells = cells[keep.numpy() != 0]
        if depth < max_depth:
            cells = (2 * cells[:, None, :] + _CHILDREN[None]).reshape(-1, 3)
    return cells.reshape(-1, 3).astype(np.int32), evaluations


def lipschitz_octree(field, origin, root_width: float, max_depth: int, threshold: float = 0.0,
                     lipschitz_bound: float = 1.0, device=None):
    """(cells, cell_width): the subscripts (a wp.array of wp.vec3i) of the cells of width
    root_width / 2**max_depth, in the cube [origin, origin + root_width], that the level set
    field == threshold may cross, given that |field(x) - field(y)| <= lipschitz_bound * |x - y|.
    Cell (i, j, k) spans origin + cell_width * ((i, j, k) .. (i + 1, j + 1, k + 1))."""
    check_field(field)
    bound = check_lipschitz(lipschitz_bound)
    max_depth = int(max_depth)
    if max_depth < 0:
        raise ValueError(f"`max_depth` must be >= 0, got {max_depth}")
    root_width = float(root_width)
    if not root_width > 0.0:
        raise ValueError(f"`root_width` must be positive, got {root_width}")
    device = wp.get_device(device)
    cell_width = root_width / (1 << max_depth)
    res = 1 << max_depth
    cells, _ = refine(field, np.asarray(origin, np.float64).reshape(3), [cell_width] * 3, max_depth, (res,) * 3,
                      bound, threshold, device)
    return wp.array(cells, dtype=wp.vec3i, device=device), cell_width
