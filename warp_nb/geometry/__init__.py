"""Geometry as first-class data: triangle meshes with BVH queries (wp.Mesh), box hierarchies
(wp.Bvh), hash grids for point clouds (wp.HashGrid), sparse volumes (wp.Volume) and marching
cubes (wp.geometry.IsoSurfaceMarchingCubes), triangle adjacency and Delaunay edge flipping of 2-D
meshes (wp.geometry.tri_tri_adjacency, delaunay_edge_flip); USD (`warp_nb.geometry.usd`, needs usd-core) and pyvista
(`warp_nb.geometry.pyvista_bridge`) bridges. Kernel-side queries are the builtins declared in
warp_nb/builtins/geometry.py over native/geometry/{bvh,mesh,hash_grid,volume}.h."""

from .bvh import Bvh  # noqa: F401
from .mesh import Mesh  # noqa: F401
from .hash_grid import HashGrid  # noqa: F401
from .volume import Volume  # noqa: F401
from .iso_surface import IsoSurfaceBase, IsoSurfaceMarchingCubes  # noqa: F401
from .triangle_adjacency import find_triangle_neighbor_edge_index, tri_tri_adjacency  # noqa: F401
from .delaunay import delaunay_edge_flip  # noqa: F401

MarchingCubes = IsoSurfaceMarchingCubes  # Warp's older name (wp.MarchingCubes warns that it is deprecated)


def is_cubql_available() -> bool:
    """Whether `constructor="cubql"` (wp.Bvh) and `bvh_constructor="cubql"` (wp.Mesh) may be asked
    for, as Warp answers on a machine with its cuBQL builder: always, here, since warp_nb builds
    every tree with its own SAH builder whatever the constructor's name (bvh.CONSTRUCTORS)."""
    return True
