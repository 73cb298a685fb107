"""Delaunay edge flipping of a 2-D triangle mesh in place, as Warp's `wp.geometry.delaunay_edge_flip`,
and the two planar predicates it is made of (`signed_area`, `in_circle`, kernel-side functions).

Lawson's algorithm run in parallel passes, every step a warp_nb kernel (so the whole loop can be
recorded in a graph capture; outside one, `wp.capture_while` runs it at once):
  1. rebuild the triangle adjacency from the current connectivity (triangle_adjacency.py);
  2. each interior edge whose opposite apex lies strictly inside its triangle's circumcircle, and
     whose quad is strictly convex (both new triangles above `area_epsilon`, and above
     `ref_area_epsilon` in the reference configuration when one is given), claims its two
     triangles with an atomic max of its priority;
  3. an edge that holds both claims flips. The winners share no triangle, so they flip at the
     same time without races, and the candidate with the highest priority always wins, so every
     pass makes progress. Priorities are a bijective hash of the half-edge and the pass number,
     never monotonic in the triangle index: on a regularly numbered grid an ordered priority lets
     one row win per pass (claims cascade along the columns), the hash lets most of them win.
  4. the pass count and the flips are tallied on the device, which decides whether to go on.
Each flip lowers the lifted surface, so the passes end, at a mesh where every flippable edge is
locally Delaunay (every edge, for a convex unconstrained domain).

Predicates are evaluated in float64 from the float32 positions, with a relative error bound: a
point within rounding of the circumcircle counts as on it and flips nothing, so cocircular
points (a square grid) are left alone and no edge can flip back and forth."""

from __future__ import annotations

import math

import warp_nb as wp

from .. import types as T
from ..arrays.array import array, array2d
from ..program.func import func
from ..program.kernel import kernel
from ..types import type_name
from .triangle_adjacency import _Corners, check_indices

_INT32_MIN = -(2**31)
#: relative bound on the rounding error of the in-circle determinant in float64 (a few ulps of its
#: permanent, with margin): below it the sign is not trusted and the point counts as cocircular
_IN_CIRCLE_TOLERANCE = 1.0e-14


@func
def signed_area(a: T.vec2, b: T.vec2, c: T.vec2) -> float:
    """Signed area of triangle abc: positive when counterclockwise, negative when clockwise."""
    return 0.5 * ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))


@func
def _area64(a: T.vec2, b: T.vec2, c: T.vec2) -> T.float64:
    """signed_area in float64 (exact differences of float32 inputs)."""
    abx = wp.float64(b[0]) - wp.float64(a[0])
    aby = wp.float64(b[1]) - wp.float64(a[1])
    acx = wp.float64(c[0]) - wp.float64(a[0])
    acy = wp.float64(c[1]) - wp.float64(a[1])
    return wp.float64(0.5) * (abx * acy - aby * acx)


@func
def _in_circle_det(a: T.vec2, b: T.vec2, c: T.vec2, d: T.vec2) -> T.float64:
    """The in-circle determinant of d against counterclockwise abc (positive: d strictly inside),
    or 0 when its magnitude is within the rounding error bound (d taken as on the circle)."""
    adx = wp.float64(a[0]) - wp.float64(d[0])
    ady = wp.float64(a[1]) - wp.float64(d[1])
    bdx = wp.float64(b[0]) - wp.float64(d[0])
    bdy = wp.float64(b[1]) - wp.float64(d[1])
    cdx = wp.float64(c[0]) - wp.float64(d[0])
    cdy = wp.float64(c[1]) - wp.float64(d[1])
    alift = adx * adx + ady * ady
    blift = bdx * bdx + bdy * bdy
    clift = cdx * cdx + cdy * cdy
    det = alift * (bdx * cdy - cdx * bdy) + blift * (cdx * ady - adx * cdy) + clift * (adx * bdy - bdx * ady)
    permanent = (alift * (wp.abs(bdx * cdy) + wp.abs(cdx * bdy)) + blift * (wp.abs(cdx * ady) + wp.abs(adx * cdy))
                 + clift * (wp.abs(adx * bdy) + wp.abs(bdx * ady)))
    if wp.abs(det) <= wp.float64(_IN_CIRCLE_TOLERANCE) * permanent:
        return wp.float64(0.0)
    return det


@func
def in_circle(a: T.vec2, b: T.vec2, c: T.vec2, d: T.vec2) -> bool:
    """Whether d lies strictly inside the circumcircle of counterclockwise triangle abc (a point on
    the circle, to within rounding, is not inside)."""
    return _in_circle_det(a, b, c, d) > wp.float64(0.0)


@func
def _priority(t: int, j: int, pass_index: int) -> int:
    """A 32-bit bijective mix of half-edge (t, j) salted by the pass: distinct edges, distinct values."""
    mask = wp.int64(4294967295)
    x = (wp.int64(t) * wp.int64(3) + wp.int64(j)) ^ ((wp.int64(pass_index) * wp.int64(2654435769)) & mask)
    x = (((x >> wp.int64(16)) ^ x) * wp.int64(73244475)) & mask
    x = (((x >> wp.int64(16)) ^ x) * wp.int64(73244475)) & mask
    x = (x >> wp.int64(16)) ^ x
    return int(x - wp.int64(2147483648))


@kernel
def _claim_flips(positions: array(dtype=T.vec2), ref_positions: array(dtype=T.vec2), use_ref: int,
                 indices: array2d(dtype=T.int32), neighbors: array2d(dtype=T.int32),
                 area_epsilon: T.float64, ref_area_epsilon: T.float64, passes: array(dtype=T.int32),
                 apex: array2d(dtype=T.int32), claims: array(dtype=T.int32)):
    t, j = wp.tid()
    apex[t, j] = -1
    n = neighbors[t, j]
    if n > t:  # an interior edge, looked at once: from its lower-numbered triangle
        c = indices[t, j]
        a = indices[t, (j + 1) % 3]
        b = indices[t, (j + 2) % 3]
        d = int(-1)
        for k in range(3):  # the neighbor's apex, when it runs the shared edge the other way (b -> a)
            if indices[n, (k + 1) % 3] == b and indices[n, (k + 2) % 3] == a:
                d = indices[n, k]
        count = positions.shape[0]
        if d >= 0 and d != c and a < count and b < count and c < count and d < count and a >= 0 and c >= 0:
            pa = positions[a]
            pb = positions[b]
            pc = positions[c]
            pd = positions[d]
            ok = _in_circle_det(pc, pa, pb, pd) > wp.float64(0.0)
            ok = ok and _area64(pc, pa, pd) > area_epsilon and _area64(pd, pb, pc) > area_epsilon
            if ok and use_ref != 0:
                ok = (_area64(ref_positions[c], ref_positions[a], ref_positions[d]) > ref_area_epsilon
                      and _area64(ref_positions[d], ref_positions[b], ref_positions[c]) > ref_area_epsilon)
            if ok:
                priority = _priority(t, j, passes[0])
                wp.atomic_max(claims, t, priority)
                wp.atomic_max(claims, n, priority)
                apex[t, j] = d


@kernel
def _apply_flips(indices: array2d(dtype=T.int32), neighbors: array2d(dtype=T.int32),
                 apex: array2d(dtype=T.int32), claims: array(dtype=T.int32),
                 passes: array(dtype=T.int32), pass_flips: array(dtype=T.int32)):
    t, j = wp.tid()
    d = apex[t, j]
    if d >= 0:
        n = neighbors[t, j]
        priority = _priority(t, j, passes[0])
        if claims[t] == priority and claims[n] == priority:
            c = indices[t, j]
            a = indices[t, (j + 1) % 3]
            b = indices[t, (j + 2) % 3]
            # quad c, a, d, b (counterclockwise): diagonal a-b becomes c-d
            indices[t, 0] = c
            indices[t, 1] = a
            indices[t, 2] = d
            indices[n, 0] = d
            indices[n, 1] = b
            indices[n, 2] = c
            wp.atomic_add(pass_flips, 0, 1)


@kernel
def _end_pass(pass_flips: array(dtype=T.int32), total: array(dtype=T.int32),
              passes: array(dtype=T.int32), max_passes: int, go_on: array(dtype=T.int32)):
    flips = pass_flips[0]
    total[0] = total[0] + flips
    passes[0] = passes[0] + 1
    pass_flips[0] = 0
    if flips > 0 and passes[0] < max_passes:
        go_on[0] = 1
    else:
        go_on[0] = 0


def _check_epsilon(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0.0:
        raise ValueError(f"{name} must be a finite, non-negative number, got {value!r}")
    return float(value)


def _check_positions(name: str, positions, device=None) -> None:
    if not isinstance(positions, array) or positions.ndim != 1 or positions.dtype != wp.vec2:
        got = (f"array(dtype={type_name(positions.dtype)}, ndim={positions.ndim})"
               if isinstance(positions, array) else type(positions).__name__)
        raise ValueError(f"{name} must be a 1-D warp array of wp.vec2, got {got}")
    if device is not None and positions.device != device:
        raise ValueError(f"{name} is on {positions.device}, the triangle indices on {device}: use one device")


def delaunay_edge_flip(positions: array, indices: array, ref_positions: array | None = None, max_passes: int = 1000,
                       area_epsilon: float = 0.0, ref_area_epsilon: float = 1.0e-10) -> array:
    """Flip non-Delaunay interior edges of the counterclockwise triangles `indices` (num_tris, 3) over
    `positions` (vec2) in place, in parallel passes, until none is left or `max_passes` ran. A flip
    is made only when both new triangles have signed area above `area_epsilon`, and, when
    `ref_positions` is given, above `ref_area_epsilon` there too. Returns a one-element int32 array
    on the mesh's device: the number of flips (filled when a captured graph runs, inside a capture)."""
    check_indices(indices)
    _check_positions("positions", positions, indices.device)
    if ref_positions is not None:
        _check_positions("ref_positions", ref_positions, indices.device)
        if ref_positions.shape != positions.shape:
            raise ValueError(f"ref_positions must have the shape of positions {tuple(positions.shape)}, "
                             f"got {tuple(ref_positions.shape)}")
    if isinstance(max_passes, bool) or not isinstance(max_passes, int) or max_passes < 1:
        raise ValueError(f"max_passes must be an int of at least 1, got {max_passes!r}")
    area_epsilon = _check_epsilon("area_epsilon", area_epsilon)
    ref_area_epsilon = _check_epsilon("ref_area_epsilon", ref_area_epsilon)

    device = indices.device
    total = wp.empty(1, dtype=wp.int32, device=device)
    total.zero_()  # a fill, so a captured graph starts each run from zero
    if indices.shape[0] == 0:
        return total

    corners = _Corners(indices, max(positions.shape[0], 1))
    neighbors = wp.empty(indices.shape, dtype=wp.int32, device=device)
    apex = wp.empty(indices.shape, dtype=wp.int32, device=device)
    claims = wp.empty(indices.shape[0], dtype=wp.int32, device=device)
    passes, pass_flips, go_on = (wp.empty(1, dtype=wp.int32, device=device) for _ in range(3))
    passes.zero_()
    pass_flips.zero_()
    go_on.fill_(1)
    ref = ref_positions if ref_positions is not None else positions

    def one_pass():
        corners.build()
        corners.match(neighbors, None)
        claims.fill_(_INT32_MIN)
        wp.launch(_claim_flips, dim=indices.shape, device=device,
                  inputs=[positions, ref, int(ref_positions is not None), indices, neighbors,
                          wp.float64(area_epsilon), wp.float64(ref_area_epsilon), passes, apex, claims])
        wp.launch(_apply_flips, dim=indices.shape, device=device,
                  inputs=[indices, neighbors, apex, claims, passes, pass_flips])
        wp.launch(_end_pass, dim=1, device=device, inputs=[pass_flips, total, passes, int(max_passes), go_on])

    wp.capture_while(go_on, one_pass)
    return total
