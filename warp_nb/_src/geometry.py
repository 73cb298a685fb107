"""`warp._src.geometry`: the kernel-side planar predicates Warp's Delaunay tests call by this path
(`signed_area`, `in_circle`), which warp_nb keeps with the edge flipper (geometry/delaunay.py)."""

from ..geometry.delaunay import in_circle, signed_area  # noqa: F401
from ..geometry.triangle_adjacency import find_triangle_neighbor_edge_index  # noqa: F401
