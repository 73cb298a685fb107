"""`side_coordinates(args, side, pos)` and `side_closest_point(args, side, pos) -> (coords, squared
distance)` for any geometry, from its `side_position` and `side_deformation_gradient`: the
coordinates of a world point on a side (not clamped), and the nearest point of the side.

Segments are solved in one projection, triangles (tetrahedron faces, barycentric coordinates) by
their pseudo-inverse and the simplex projection, squares (grid and hex faces, possibly bilinear) by
a few Gauss-Newton steps, clamped to the unit square for the closest point."""

from typing import Any

import warp_nb as wp

from ..types import Sample
from .closest_point import project_on_tri_at_origin
from .element import Element
from .geometry import _element_inverse


def make_side_queries(geo):
    """(side_coordinates, side_closest_point) device functions for `geo`'s kind of side."""
    side_position = geo.side_position
    side_deformation_gradient = geo.side_deformation_gradient
    kind = geo.reference_side()

    @wp.func
    def _at(args: Any, side: int, coords: wp.vec3):
        s = Sample()
        s.element_index = side
        s.element_coords = coords
        return s

    if kind == Element.LINE_SEGMENT:

        @wp.func
        def segment_coordinates(args: Any, element_index: int, pos: Any):
            s = _at(args, element_index, wp.vec3(0.0))
            F = side_deformation_gradient(args, s)
            return wp.vec3(wp.dot(F, pos - side_position(args, s)) / wp.dot(F, F), 0.0, 0.0)

        @wp.func
        def segment_closest_point(args: Any, side_index: int, pos: Any):
            c = segment_coordinates(args, side_index, pos)
            c = wp.vec3(wp.clamp(c[0], 0.0, 1.0), 0.0, 0.0)
            return c, wp.length_sq(side_position(args, _at(args, side_index, c)) - pos)

        return segment_coordinates, segment_closest_point

    if kind == Element.TRIANGLE:

        @wp.func
        def triangle_coordinates(args: Any, element_index: int, pos: Any):
            s = _at(args, element_index, wp.vec3(1.0, 0.0, 0.0))
            vw = _element_inverse(side_deformation_gradient(args, s)) @ (pos - side_position(args, s))
            return wp.vec3(1.0 - vw[0] - vw[1], vw[0], vw[1])

        @wp.func
        def triangle_closest_point(args: Any, side_index: int, pos: Any):
            a = side_position(args, _at(args, side_index, wp.vec3(1.0, 0.0, 0.0)))
            b = side_position(args, _at(args, side_index, wp.vec3(0.0, 1.0, 0.0)))
            c = side_position(args, _at(args, side_index, wp.vec3(0.0, 0.0, 1.0)))
            d, bary = project_on_tri_at_origin(pos - a, b - a, c - a)
            return bary, d

        return triangle_coordinates, triangle_closest_point

    def square_newton(clamp: bool):
        @wp.func
        def square_coordinates(args: Any, element_index: int, pos: Any):
            c = wp.vec3(0.5, 0.5, 0.0)
            for _it in range(6):
                s = _at(args, element_index, c)
                step = _element_inverse(side_deformation_gradient(args, s)) @ (pos - side_position(args, s))
                c = wp.vec3(c[0] + step[0], c[1] + step[1], 0.0)
                if wp.static(clamp):
                    c = wp.vec3(wp.clamp(c[0], 0.0, 1.0), wp.clamp(c[1], 0.0, 1.0), 0.0)
            return c

        return square_coordinates

    square_coordinates = square_newton(False)
    square_closest = square_newton(True)

    @wp.func
    def square_closest_point(args: Any, side_index: int, pos: Any):
        c = square_closest(args, side_index, pos)
        return c, wp.length_sq(side_position(args, _at(args, side_index, c)) - pos)

    return square_coordinates, square_closest_point
