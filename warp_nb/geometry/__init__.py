"""Geometry as first-class data: triangle meshes with BVH queries (wp.Mesh), box hierarchies
(wp.Bvh), hash grids for point clouds (wp.HashGrid), sparse volumes (wp.Volume) and marching
cubes (wp.geometry.IsoSurfaceMarchingCubes, sparse_marching_cubes), surface nets (IsoSurfaceNets), swept
volumes, triangle adjacency and Delaunay edge flipping of 2-D meshes (wp.geometry.tri_tri_adjacency,
delaunay_edge_flip); USD (`warp_nb.geometry.usd`, needs usd-core) and pyvista
(`warp_nb.geometry.pyvista_bridge`) bridges. Kernel-side queries are the builtins declared in
warp_nb/builtins/geometry.py over native/geometry/{bvh,mesh,hash_grid,volume}.h."""

from .bvh import Bvh  # noqa: F401
from .mesh import Mesh  # noqa: F401
from .hash_grid import HashGrid  # noqa: F401
from .volume import Volume  # noqa: F401

# The builders are imported on first use (PEP 562): a first cell that only launches kernels over
# arrays, meshes or volumes does not pay for their kernels, tables and helpers at `import warp_nb`.
# No submodule may be named as a name it provides: importing it would bind the package attribute to
# the module, and __getattr__ would never be asked for the function.
_LAZY = {
    "IsoSurfaceBase": "iso_surface", "IsoSurfaceMarchingCubes": "iso_surface", "MarchingCubes": "iso_surface",
    "IsoSurfaceNets": "surface_nets", "lipschitz_octree": "lipschitz_pruning",
    "sparse_marching_cubes": "marching_cubes_sparse", "sparse_marching_cubes_from_cells": "marching_cubes_sparse",
    "SweptVolumeSignMode": "swept_volume", "swept_volume_bounds": "swept_volume", "swept_volume_field": "swept_volume",
    "swept_volume_mesh": "swept_volume", "swept_volume_sdf": "swept_volume",
    "find_triangle_neighbor_edge_index": "triangle_adjacency", "tri_tri_adjacency": "triangle_adjacency",
    "delaunay_edge_flip": "delaunay",
}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'warp_nb.geometry' has no attribute {name!r}")
    import importlib
    # MarchingCubes: Warp's older name of IsoSurfaceMarchingCubes (wp.MarchingCubes warns that it is deprecated)
    value = getattr(importlib.import_module(f".{module}", __name__), "IsoSurfaceMarchingCubes" if name == "MarchingCubes"
                    else name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


def is_cubql_available() -> bool:
    """Whether `constructor="cubql"` (wp.Bvh) and `bvh_constructor="cubql"` (wp.Mesh) may be asked
    for, as Warp answers on a machine with its cuBQL builder: always, here, since warp_nb builds
    every tree with its own SAH builder whatever the constructor's name (bvh.CONSTRUCTORS)."""
    return True
