"""Triangle meshes of the renderer's primitive shapes, built with numpy in the shape's own frame:
centred at the origin, the long axis along `up_axis` (0=X, 1=Y, 2=Z), outward-facing triangles
(counter-clockwise seen from outside). The pyvista-backed OpenGLRenderer draws these; the
UsdRenderer writes USD's own primitives instead.

Each function returns (points (n, 3) float32, triangles (m, 3) int32)."""

from __future__ import annotations

import itertools

import numpy as np

from ._common import axis_rotation


def _lathe(profile, segments: int):
    """A surface of revolution about +Y: `profile` is a list of (radius, y) from bottom to top;
    radius 0 makes a single pole vertex."""
    angles = np.linspace(0.0, 2.0 * np.pi, segments, endpoint=False)
    points, rings = [], []
    for r, y in profile:
        start = len(points)
        if r == 0.0:
            points.append((0.0, y, 0.0))
            rings.append([start])
        else:
            points.extend(zip(r * np.cos(angles), np.full(segments, y), -r * np.sin(angles)))
            rings.append(list(range(start, start + segments)))
    tris = []
    for lo, hi in itertools.pairwise(rings):
        for k in range(segments):
            k1 = (k + 1) % segments
            a, b = lo[k % len(lo)], lo[k1 % len(lo)]
            d, c = hi[k % len(hi)], hi[k1 % len(hi)]
            if len(lo) == 1:
                tris.append((a, c, d))
            elif len(hi) == 1:
                tris.append((a, b, d))
            else:
                tris.append((a, b, c))
                tris.append((a, c, d))
    return np.asarray(points, np.float64), np.asarray(tris, np.int32)


def _oriented(points, tris, up_axis: int):
    p = points @ axis_rotation(int(up_axis)).T
    return np.ascontiguousarray(p, np.float32), np.ascontiguousarray(tris, np.int32)


def sphere(radius: float, segments: int = 24, rings: int = 12):
    theta = np.linspace(-np.pi / 2, np.pi / 2, rings + 1)
    profile = [(0.0, -radius)] + [(radius * np.cos(t), radius * np.sin(t)) for t in theta[1:-1]] + [(0.0, radius)]
    return _oriented(*_lathe(profile, segments), 1)


def capsule(radius: float, half_height: float, up_axis: int = 1, segments: int = 24, rings: int = 6):
    """A cylinder of length 2*half_height along the axis, closed by two hemispheres of `radius`."""
    theta = np.linspace(0.0, np.pi / 2, rings + 1)
    bottom = [(radius * np.sin(t), -half_height - radius * np.cos(t)) for t in theta]
    top = [(radius * np.cos(t), half_height + radius * np.sin(t)) for t in theta]
    profile = [(0.0, -half_height - radius)] + bottom[1:] + top[:-1] + [(0.0, half_height + radius)]
    return _oriented(*_lathe(profile, segments), up_axis)


def cylinder(radius: float, half_height: float, up_axis: int = 1, segments: int = 24):
    h = half_height
    profile = [(0.0, -h), (radius, -h), (radius, h), (0.0, h)]
    return _oriented(*_lathe(profile, segments), up_axis)


def cone(radius: float, half_height: float, up_axis: int = 1, segments: int = 24):
    """Base disc of `radius` at -half_height, apex at +half_height."""
    h = half_height
    profile = [(0.0, -h), (radius, -h), (0.0, h)]
    return _oriented(*_lathe(profile, segments), up_axis)


def arrow(base_radius: float, base_height: float, cap_radius: float, cap_height: float, up_axis: int = 1,
          segments: int = 24):
    """A shaft (cylinder from 0 to base_height) and a head (cone from base_height to
    base_height + cap_height) along the axis; the origin is the arrow's tail."""
    profile = [(0.0, 0.0), (base_radius, 0.0), (base_radius, base_height), (cap_radius, base_height),
               (0.0, base_height + cap_height)]
    return _oriented(*_lathe(profile, segments), up_axis)


_BOX_FACES = [  # +X, -X, +Y, -Y, +Z, -Z: four corners each, counter-clockwise seen from outside
    ((1, -1, -1), (1, 1, -1), (1, 1, 1), (1, -1, 1)),
    ((-1, -1, -1), (-1, -1, 1), (-1, 1, 1), (-1, 1, -1)),
    ((-1, 1, -1), (-1, 1, 1), (1, 1, 1), (1, 1, -1)),
    ((-1, -1, -1), (1, -1, -1), (1, -1, 1), (-1, -1, 1)),
    ((-1, -1, 1), (1, -1, 1), (1, 1, 1), (-1, 1, 1)),
    ((-1, -1, -1), (-1, 1, -1), (1, 1, -1), (1, -1, -1)),
]


def box(extents):
    """An axis-aligned box from -extents to +extents (half sizes), 4 vertices per face."""
    e = np.asarray(extents, np.float64).reshape(3)
    points = np.asarray([c for face in _BOX_FACES for c in face], np.float64) * e
    tris = [(4 * f, 4 * f + 1, 4 * f + 2) for f in range(6)] + [(4 * f, 4 * f + 2, 4 * f + 3) for f in range(6)]
    return np.ascontiguousarray(points, np.float32), np.asarray(tris, np.int32)


def plane(width: float, length: float, cells_u: int = 1, cells_v: int = 1):
    """A grid over [-width, width] x [-length, length] in the local XZ plane, normal +Y (half
    sizes); returns (points, triangles, the cell (i, j) of each triangle)."""
    u = np.linspace(-width, width, cells_u + 1)
    v = np.linspace(-length, length, cells_v + 1)
    uu, vv = np.meshgrid(u, v, indexing="ij")
    points = np.stack([uu.ravel(), np.zeros(uu.size), vv.ravel()], 1)
    tris, cells = [], []
    for i in range(cells_u):
        for j in range(cells_v):
            a, b = i * (cells_v + 1) + j, (i + 1) * (cells_v + 1) + j
            c, d = b + 1, a + 1
            tris += [(a, d, c), (a, c, b)]  # normal +Y: (d - a) x (b - a) = +z x +x
            cells += [(i, j), (i, j)]
    return (np.ascontiguousarray(points, np.float32), np.asarray(tris, np.int32), np.asarray(cells, np.int32))
