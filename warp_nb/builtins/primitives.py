"""Primitive-pair geometry (closest_point.h): closest points between segments and the
triangle-triangle overlap test. Unlike the mesh and volume queries these take plain points,
no live handle, so they work in any kernel and in both precisions."""

from .. import types as T
from .registry import FLOAT, Scalar, Vec, builtin, ov

F = Scalar("T", FLOAT)
V3 = Vec(3, F)
_p = dict(header="geometry/closest_point.h", category="primitives")

builtin("closest_point_edge_edge", ov(V3, V3, V3, V3, F, ret=V3, names=("p1", "q1", "p2", "q2", "epsilon")),
        doc="Closest points of segments p1-q1 and p2-q2: vec3(s, t, d), the points being p1 + s (q1 - p1) and "
            "p2 + t (q2 - p2) and d their distance. An edge of squared length <= epsilon counts as a point; parallel "
            "edges take s = 0 or the end the clamp of t selects. Gradient of d: that of the distance with s, t held "
            "(bounded by 1; 0 where the segments touch); of s and t: implicit, on the forward pass's branch, held "
            "where clamped or (backward only) where sin^2 of the edges' angle < 1e-6.", **_p)
builtin("intersect_tri_tri", ov(V3, V3, V3, V3, V3, V3, ret=T.int32, names=("v0", "v1", "v2", "u0", "u1", "u2")),
        differentiable=False,
        doc="1 if triangles (v0, v1, v2) and (u0, u1, u2) intersect (touching counts), else 0: a separating-axis "
            "test, exact up to rounding for coplanar triangles too.", **_p)
