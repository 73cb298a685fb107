"""Closest points on simplices, as device functions: the nearest point of a triangle or of a
tetrahedron (one vertex at the origin, spanned by edge vectors) to a query point, with its squared
distance and its element coordinates. The geometries' `cell_closest_point` and cell lookups use
them; Warp's tests call them directly (warp._src.fem.geometry.closest_point).

The triangle query walks the Voronoi regions of the vertices and edges before the face (the
classic construction from Ericson's Real-Time Collision Detection, 5.1.5) and works in 2-D and
3-D. The tetrahedron query solves for the point's coordinates and, when it lies outside, takes the
nearest of the four faces."""

from typing import Any

import warp_nb as wp


@wp.func
def project_on_tri_at_origin(q: Any, e1: Any, e2: Any):
    """Closest point to `q` on the triangle (0, e1, e2): (squared distance, barycentric coordinates
    (1 - v - w, v, w) as a Coords)."""
    d1 = wp.dot(e1, q)
    d2 = wp.dot(e2, q)
    bary = wp.vec3(1.0, 0.0, 0.0)
    done = d1 <= 0.0 and d2 <= 0.0  # the origin vertex
    if not done:
        bp = q - e1
        d3 = wp.dot(e1, bp)
        d4 = wp.dot(e2, bp)
        cp = q - e2
        d5 = wp.dot(e1, cp)
        d6 = wp.dot(e2, cp)
        vc = d1 * d4 - d3 * d2
        vb = d5 * d2 - d1 * d6
        va = d3 * d6 - d5 * d4
        if d3 >= 0.0 and d4 <= d3:  # vertex e1
            bary = wp.vec3(0.0, 1.0, 0.0)
        elif vc <= 0.0 and d1 >= 0.0 and d3 <= 0.0:  # edge (0, e1)
            v = d1 / (d1 - d3)
            bary = wp.vec3(1.0 - v, v, 0.0)
        elif d6 >= 0.0 and d5 <= d6:  # vertex e2
            bary = wp.vec3(0.0, 0.0, 1.0)
        elif vb <= 0.0 and d2 >= 0.0 and d6 <= 0.0:  # edge (0, e2)
            w = d2 / (d2 - d6)
            bary = wp.vec3(1.0 - w, 0.0, w)
        elif va <= 0.0 and d4 - d3 >= 0.0 and d5 - d6 >= 0.0:  # edge (e1, e2)
            w = (d4 - d3) / ((d4 - d3) + (d5 - d6))
            bary = wp.vec3(0.0, 1.0 - w, w)
        else:  # inside the face
            denom = 1.0 / (va + vb + vc)
            v = vb * denom
            w = vc * denom
            bary = wp.vec3(1.0 - v - w, v, w)
    p = bary[1] * e1 + bary[2] * e2
    return wp.length_sq(q - p), bary


@wp.func
def project_on_tet_at_origin(q: wp.vec3, e1: wp.vec3, e2: wp.vec3, e3: wp.vec3):
    """Closest point to `q` on the tetrahedron (0, e1, e2, e3): (squared distance, coordinates
    (x, y, z) with the point at x e1 + y e2 + z e3)."""
    c = wp.inverse(wp.matrix_from_cols(e1, e2, e3)) @ q
    if c[0] >= 0.0 and c[1] >= 0.0 and c[2] >= 0.0 and c[0] + c[1] + c[2] <= 1.0:
        return float(0.0), c  # noqa: UP018 (float: float64 in a float64 mesh's copy, as the other return)
    # outside: the nearest of the four faces
    d, b = project_on_tri_at_origin(q, e1, e2)
    best_d = d
    best = wp.vec3(b[1], b[2], 0.0)
    d, b = project_on_tri_at_origin(q, e2, e3)
    if d < best_d:
        best_d = d
        best = wp.vec3(0.0, b[1], b[2])
    d, b = project_on_tri_at_origin(q, e3, e1)
    if d < best_d:
        best_d = d
        best = wp.vec3(b[2], 0.0, b[1])
    d, b = project_on_tri_at_origin(q - e1, e2 - e1, e3 - e1)
    if d < best_d:
        best_d = d
        best = wp.vec3(b[0], b[1], b[2])
    return best_d, best
