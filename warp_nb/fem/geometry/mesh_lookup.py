"""Finding the cell of an unstructured mesh at a world position (`cell_lookup`, behind `fem.lookup`),
and the per-cell queries it is built on.

A mesh's cells get a `wp.Bvh` of their bounding boxes when `build_bvh` is called (Warp's meshes
support lookups only then). A lookup first asks the BVH for the cells whose box holds the point and
keeps the closest of them; when none holds it (a point outside the mesh), it scans every cell
within `max_dist` for the nearest. Also here: `newton_cell_coordinates`, the coordinates of a
point in a cell whose map is not affine (quads and hexes), found by Gauss-Newton steps, optionally
kept inside the reference cell for closest-point queries."""

from typing import Any

import numpy as np

import warp_nb as wp

from ..types import NULL_ELEMENT_INDEX, OUTSIDE, Sample
from .geometry import _element_inverse


def make_cell_lookup(cell_closest_point, cell_count):
    """`cell_lookup(args, pos, max_dist)` for a mesh whose CellArg has a `bvh` id, from its
    `cell_closest_point(args, cell, pos) -> (coords, squared distance)` and `cell_count(args)`."""

    # the Bvh holds float32 boxes, whatever the geometry's precision (`vec3f` stays float32 in
    # float64 code, see precision.py)
    @wp.func
    def _as_vec3(p: wp.vec2):
        q = wp.vec2f(p)
        return wp.vec3f(q[0], q[1], 0.0)

    @wp.func
    def _as_vec3(p: wp.vec3):
        return wp.vec3f(p)

    @wp.func
    def cell_lookup(args: Any, pos: Any, max_dist: float):
        s = Sample()
        s.element_index = NULL_ELEMENT_INDEX
        s.element_coords = wp.vec3(OUTSIDE)
        s.qp_index = -1
        best = max_dist * max_dist  # (inf for Warp's default 1e30: every cell qualifies)
        found = False
        if args.bvh != wp.uint64(0):
            p = _as_vec3(pos)
            query = wp.bvh_query_aabb(args.bvh, p, p)
            cell = int(0)
            while wp.bvh_query_next(query, cell):
                coords, d = cell_closest_point(args, cell, pos)
                if d <= best:
                    best = d
                    s.element_index = cell
                    s.element_coords = coords
                    found = True
        if not found:  # outside every cell: the nearest one within max_dist
            for cell in range(cell_count(args)):
                coords, d = cell_closest_point(args, cell, pos)
                if d <= best:
                    best = d
                    s.element_index = cell
                    s.element_coords = coords
        return s

    return cell_lookup


def make_newton_coordinates(cell_position, cell_deformation_gradient, cell_dim: int, clamp: bool,
                            iterations: int = 8):
    """`(args, cell, pos) -> coords`: Gauss-Newton on the cell's map from the reference centre; with
    `clamp` each step is kept inside the reference cube (the closest point, for maps close to affine)."""
    start = wp.vec3(0.5, 0.5, 0.5 if cell_dim == 3 else 0.0)

    @wp.func
    def newton_cell_coordinates(args: Any, cell: int, pos: Any):
        s = Sample()
        s.element_index = cell
        s.element_coords = start
        for _it in range(iterations):
            step = _element_inverse(cell_deformation_gradient(args, s)) @ (pos - cell_position(args, s))
            c = s.element_coords
            for k in range(wp.static(cell_dim)):
                c[k] = c[k] + step[k]
                if wp.static(clamp):
                    c[k] = wp.clamp(c[k], 0.0, 1.0)
            s.element_coords = c
        return s.element_coords

    return newton_cell_coordinates


class MeshLookup:
    """The BVH side of a mesh geometry: `build_bvh`, `update_bvh`, `bvh_id`, `supports_cell_lookup`.
    The mesh provides `positions` and `_cell_vertex_array()` (its (n, k) vertex indices)."""

    _bvh = None

    def _cell_bounds(self):
        points = self.positions.numpy().astype(np.float64)
        if points.shape[1] == 2:
            points = np.concatenate([points, np.zeros((len(points), 1))], 1)
        corners = points[self._cell_vertex_array().numpy()]
        lo, hi = corners.min(axis=1), corners.max(axis=1)
        pad = 1.0e-5 * max(1.0, float(np.abs(points).max(initial=0.0)))  # points on a face are in both boxes
        return (lo - pad).astype(np.float32), (hi + pad).astype(np.float32)

    def build_bvh(self, device=None):
        """Build the cells' bounding volume hierarchy (enables `fem.lookup` on this mesh)."""
        device = self.positions.device if device is None else device
        lo, hi = self._cell_bounds()
        self._bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3, device=device), wp.array(hi, dtype=wp.vec3, device=device))

    def update_bvh(self, device=None):
        """Refit the hierarchy after the positions moved."""
        self.build_bvh(device)

    def bvh_id(self, device) -> int:
        return 0 if self._bvh is None else int(self._bvh.id)

    def supports_cell_lookup(self, device) -> bool:
        return self._bvh is not None
