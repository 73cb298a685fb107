"""pyvista bridge (the `[viz]` extra): wp.Mesh, point arrays and wp.Volume to and from pyvista.

    poly = mesh_to_pyvista(mesh)             # pyvista.PolyData of the triangles
    mesh = mesh_from_pyvista(poly)           # any pyvista surface (triangulated on the way)
    cloud = points_to_pyvista(positions, velocity=v)  # PolyData of points, with point data
    arr = points_from_pyvista(cloud)         # wp.array of wp.vec3
    grid = volume_to_pyvista(volume)         # pyvista.ImageData of the allocated region
    vol = volume_from_pyvista(grid, "values", bg_value=0.0)
"""

from __future__ import annotations

import numpy as np

from .. import types as T
from ..arrays.array import array
from ._util import optional_module


def _pv():
    return optional_module("pyvista", "pyvista bridge", "pyvista", "viz")


def _np(a, cols=None) -> np.ndarray:
    data = a.numpy() if isinstance(a, array) else np.asarray(a)
    return data.reshape(-1, cols) if cols else data


def mesh_to_pyvista(mesh):
    """A pyvista.PolyData of a wp.Mesh's triangles (velocities, when present, as point data)."""
    pv = _pv()
    pts = _np(mesh.points, 3).astype(np.float32)
    tris = _np(mesh.indices).reshape(-1, 3).astype(np.int64)
    faces = np.hstack([np.full((len(tris), 1), 3, np.int64), tris]).reshape(-1)
    poly = pv.PolyData(pts.copy(), faces)
    if mesh.velocities is not None:
        poly.point_data["velocity"] = _np(mesh.velocities, 3).copy()
    return poly


def mesh_from_pyvista(poly, **mesh_kwargs):
    """A wp.Mesh from a pyvista surface (polygons are triangulated; keyword arguments go to wp.Mesh)."""
    _pv()
    from .mesh import Mesh
    surf = poly.extract_surface() if not hasattr(poly, "faces") else poly
    surf = surf.triangulate()
    faces = np.asarray(surf.faces).reshape(-1, 4)
    if len(faces) == 0:
        raise ValueError("the pyvista data has no polygons to make a mesh from")
    return Mesh(np.asarray(surf.points, np.float32), faces[:, 1:].astype(np.int32).reshape(-1), **mesh_kwargs)


def points_to_pyvista(points, **point_data):
    """A pyvista.PolyData of points (an (n, 3) array or wp.array of wp.vec3), with point data arrays."""
    pv = _pv()
    poly = pv.PolyData(_np(points, 3).astype(np.float32).copy())
    for name, values in point_data.items():
        poly.point_data[name] = _np(values).copy()
    return poly


def points_from_pyvista(data):
    """The points of any pyvista dataset as a wp.array of wp.vec3."""
    return array(np.ascontiguousarray(np.asarray(data.points, np.float32)), dtype=T.vec3f)


def volume_to_pyvista(volume, lower=None, upper=None, name: str = "values"):
    """A pyvista.ImageData sampling a wp.Volume on its voxels over [lower, upper] (index space, by
    default the allocated bricks' bounds), origin and spacing from the volume's transform (an
    axis-aligned one)."""
    pv = _pv()
    values, lo = volume.to_dense(lower, upper)
    m = volume.transform
    if np.abs(m - np.diag(np.diag(m))).max() > 1e-9:
        raise ValueError("volume_to_pyvista needs an axis-aligned volume transform")
    grid = pv.ImageData(dimensions=values.shape, spacing=tuple(np.diag(m)),
                        origin=tuple(volume.translation + np.diag(m) * lo))
    grid.point_data[name] = values.reshape(-1, order="F")
    return grid


def volume_from_pyvista(image, name: str | None = None, bg_value: float = 0.0):
    """A wp.Volume from a pyvista.ImageData point array (the active scalars by default)."""
    _pv()
    from .volume import Volume
    name = name or image.active_scalars_name
    if name is None:
        raise ValueError("the image has no point data to make a volume from")
    values = np.asarray(image.point_data[name]).reshape(tuple(image.dimensions), order="F")
    return Volume.load_from_numpy(values, min_world=tuple(image.origin), voxel_size=tuple(image.spacing),
                                  bg_value=bg_value)
