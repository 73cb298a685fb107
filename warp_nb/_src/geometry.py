"""`warp._src.geometry`: what Warp's geometry tests import from it: the kernel-side planar predicates
of the Delaunay tests (`signed_area`, `in_circle`), which warp_nb keeps with the edge flipper
(geometry/delaunay.py), and surface nets' tables as the attribute `surface_nets` (the tests only
`from warp._src.geometry import surface_nets`, so this stays one module)."""

from . import geometry_surface_nets as surface_nets  # noqa: F401
from ..geometry.delaunay import in_circle, signed_area  # noqa: F401
from ..geometry.triangle_adjacency import find_triangle_neighbor_edge_index  # noqa: F401
