"""wp.geometry.swept_volume_field / swept_volume_mesh / swept_volume_bounds and the kernel-side
swept_volume_sdf: the motion envelope of rigid meshes moved through sampled poses. In: a list of
wp.Mesh and their poses, (num_meshes, num_samples, 7) transforms (p, q as x, y, z, w) or a wp.array2d of
wp.transform; out: a dense signed distance field on a regular grid (the minimum over every mesh and
pose of the distance to the posed mesh), its mesh at an isovalue (marching cubes), or the poses' box.

Each grid node is one thread: it moves itself into each mesh's rest frame by the inverse of each pose and
asks the mesh's tree for the closest point, so the field is exact at the nodes (no rasterisation).
How inside is told from outside is the sign mode; the default, the generalised winding number, also
classifies the interior of open shells. Does not know marching cubes' tables (iso_surface.py)."""

from __future__ import annotations

import enum

import numpy as np

import warp_nb as wp

from .. import types as T
from ..arrays.array import array, array2d, array3d
from ..program.func import func
from ..program.kernel import kernel
from .iso_surface import IsoSurfaceMarchingCubes


class SweptVolumeSignMode(enum.IntEnum):
    """How a point is classified inside or outside a posed mesh (an int, so kernels can compare it)."""

    NORMAL = 0  # the closest face's normal (wp.mesh_query_point_sign_normal; watertight meshes)
    WINDING_NUMBER = 1  # generalised winding number (needs wp.Mesh(..., support_winding_number=True))
    PARITY = 2  # the parity of ray crossings (watertight meshes)
    NO_SIGN = 3  # unsigned distance: the field is >= 0, extract at a positive threshold


@func
def _mesh_sdf(mesh: T.uint64, p: T.vec3, max_dist: float, sign_mode: int):
    d = max_dist
    if sign_mode == 0:
        q = wp.mesh_query_point_sign_normal(mesh, p, max_dist)
        if q.result:
            d = q.sign * wp.length(p - wp.mesh_eval_position(mesh, q.face, q.u, q.v))
    elif sign_mode == 1:
        q = wp.mesh_query_point_sign_winding_number(mesh, p, max_dist)
        if q.result:
            d = q.sign * wp.length(p - wp.mesh_eval_position(mesh, q.face, q.u, q.v))
    elif sign_mode == 2:
        q = wp.mesh_query_point_sign_parity(mesh, p, max_dist)
        if q.result:
            d = q.sign * wp.length(p - wp.mesh_eval_position(mesh, q.face, q.u, q.v))
    else:
        q = wp.mesh_query_point_no_sign(mesh, p, max_dist)
        if q.result:
            d = wp.length(p - wp.mesh_eval_position(mesh, q.face, q.u, q.v))
    return d


@func
def swept_volume_sdf(point: T.vec3, mesh_ids: array(dtype=T.uint64), transforms: array2d(dtype=T.transform),
                     max_dist: float, sign_mode: int):
    """The swept volume's signed distance at `point`: the minimum over meshes m and poses s of mesh m's
    signed distance at X[m, s]^-1 point (the point moved into the mesh's rest frame, so the geometry never
    moves); +max_dist where no surface lies within max_dist. Callable from kernels; not differentiated."""
    best = max_dist
    for m in range(mesh_ids.shape[0]):
        for s in range(transforms.shape[1]):
            p = wp.transform_point(wp.transform_inverse(transforms[m, s]), point)
            best = wp.min(best, _mesh_sdf(mesh_ids[m], p, max_dist, sign_mode))
    return best


@kernel(enable_backward=False)
def _stamp(mesh_ids: array(dtype=T.uint64), transforms: array2d(dtype=T.transform), lower: T.vec3,
           spacing: T.vec3, max_dist: float, sign_mode: int, field: array3d(dtype=float)):
    i, j, k = wp.tid()
    x = lower + wp.cw_mul(spacing, wp.vec3(float(i), float(j), float(k)))
    field[i, j, k] = swept_volume_sdf(x, mesh_ids, transforms, max_dist, sign_mode)


@kernel(enable_backward=False)
def _posed_corners(corners: array2d(dtype=T.vec3), transforms: array2d(dtype=T.transform),
                   out: array3d(dtype=T.vec3)):
    m, s, c = wp.tid()
    out[m, s, c] = wp.transform_point(transforms[m, s], corners[m, c])


def _check_inputs(meshes, transforms, sign_mode=SweptVolumeSignMode.WINDING_NUMBER) -> np.ndarray:
    """The transforms as a float32 (num_meshes, num_samples, 7) array, after checking them against the meshes."""
    meshes = list(meshes)
    if not meshes:
        raise ValueError("swept volume: `meshes` is empty; give at least one wp.Mesh")
    for m, mesh in enumerate(meshes):
        if not isinstance(mesh, wp.Mesh):
            raise TypeError(f"swept volume: meshes[{m}] is a {type(mesh).__name__}, not a wp.Mesh")
    tr = transforms.numpy() if isinstance(transforms, wp.array) else np.asarray(transforms)
    tr = np.asarray(tr, np.float32)  # a wp.array2d of wp.transform reads as (num_meshes, num_samples, 7)
    if tr.ndim == 2 and tr.shape[-1] == 7 and len(meshes) == 1:
        tr = tr[None]
    if tr.ndim != 3 or tr.shape[2] != 7:
        raise ValueError(f"swept volume: `transforms` must have shape (num_meshes, num_samples, 7), got {tr.shape}")
    if tr.shape[0] != len(meshes):
        raise ValueError(f"swept volume: `transforms` has {tr.shape[0]} rows of poses for {len(meshes)} meshes")
    if tr.shape[1] == 0:
        raise ValueError("swept volume: `transforms` holds no poses (num_samples is 0)")
    if not np.isfinite(tr).all():
        raise ValueError("swept volume: `transforms` holds non-finite values")
    mode = SweptVolumeSignMode(sign_mode)
    if mode == SweptVolumeSignMode.WINDING_NUMBER:
        for m, mesh in enumerate(meshes):
            if not mesh.support_winding_number:
                raise ValueError(f"swept volume: meshes[{m}] was built without support_winding_number=True, which "
                                 "the WINDING_NUMBER sign mode needs (or pass another sign_mode)")
    return tr


def _poses_box(meshes, tr, device):
    """The world box of every mesh's rest box moved by every pose (its 8 corners transformed in a kernel)."""
    boxes = np.zeros((len(meshes), 8, 3), np.float32)
    for m, mesh in enumerate(meshes):
        p = mesh.points.numpy().reshape(-1, 3)
        lo, hi = p.min(axis=0), p.max(axis=0)
        boxes[m] = [[(hi if c >> a & 1 else lo)[a] for a in range(3)] for c in range(8)]
    out = wp.empty((tr.shape[0], tr.shape[1], 8), dtype=wp.vec3, device=device)
    wp.launch(_posed_corners, out.shape, inputs=[wp.array(boxes, dtype=wp.vec3, device=device),
                                                 wp.array(tr, dtype=wp.transform, device=device), out],
              device=device, record_tape=False)
    p = out.numpy().reshape(-1, 3).astype(np.float64)
    return p.min(axis=0), p.max(axis=0)


def swept_volume_bounds(meshes, transforms, padding: float = 0.0, device=None):
    """(lower, upper) as wp.vec3: the world box of every mesh over every pose (each mesh's rest box, its
    corners moved by each pose), grown by `padding` on every side."""
    tr = _check_inputs(meshes, transforms, SweptVolumeSignMode.NO_SIGN)
    meshes = list(meshes)
    device = wp.get_device(device) if device is not None else meshes[0].device
    lo, hi = _poses_box(meshes, tr, device)
    return wp.vec3(*(lo - padding)), wp.vec3(*(hi + padding))


def _grid(meshes, tr, device, voxel_size, resolution, lower, upper, threshold):
    """(lower, upper, shape) of the sampling grid."""
    if voxel_size is not None and resolution is not None:
        raise ValueError("swept volume: give `voxel_size` or `resolution`, not both")
    if voxel_size is None and resolution is None:
        raise ValueError("swept volume: give `voxel_size` (cell edge) or `resolution` (nodes per axis)")
    if (lower is None) != (upper is None):
        raise ValueError("swept volume: give both `lower` and `upper` (an explicit domain), or neither")
    if voxel_size is not None:
        voxel_size = float(voxel_size)
        if not voxel_size > 0.0:
            raise ValueError(f"swept volume: `voxel_size` must be positive, got {voxel_size}")
        if lower is not None:
            raise ValueError("swept volume: an explicit `lower`/`upper` domain needs `resolution`; `voxel_size` "
                             "could not divide it into whole cells")
    else:
        resolution = tuple(int(n) for n in resolution)
        if len(resolution) != 3 or min(resolution) < 2:
            raise ValueError(f"swept volume: `resolution` must be 3 node counts, each at least 2, got {resolution}")
    if lower is not None:
        lo, hi = np.asarray(lower, np.float64).reshape(3), np.asarray(upper, np.float64).reshape(3)
        if not (hi > lo).all():
            raise ValueError(f"swept volume: `upper` {tuple(hi)} must exceed `lower` {tuple(lo)} on every axis")
        return lo, hi, resolution
    lo, hi = _poses_box(meshes, tr, device)
    th = max(float(threshold), 0.0)
    if voxel_size is not None:
        # Warp's domain (probed): whole cells over the box grown by the threshold, plus two cells on each
        # side, centred on the box (not anchored at its lower corner), so the padding is the same on both sides
        cells = np.ceil((hi - lo + 2.0 * th) / voxel_size) + 4.0
        centre = 0.5 * (lo + hi)
        shape = tuple(int(n) + 1 for n in cells)
        return centre - 0.5 * voxel_size * cells, centre + 0.5 * voxel_size * cells, shape
    # Warp's padding with node counts (probed): the threshold plus two of the box's own cells per axis
    pad = th + 2.0 * (hi - lo) / (np.asarray(resolution, np.float64) - 1.0)
    return lo - pad, hi + pad, resolution


def _field(meshes, transforms, voxel_size, resolution, lower, upper, threshold, sign_mode, device):
    tr = _check_inputs(meshes, transforms, sign_mode)
    meshes = list(meshes)
    device = wp.get_device(device) if device is not None else meshes[0].device
    lo, hi, shape = _grid(meshes, tr, device, voxel_size, resolution, lower, upper, threshold)
    spacing = (hi - lo) / (np.asarray(shape, np.float64) - 1)
    # far enough to reach the surface from every node, wherever the domain lies relative to the geometry
    glo, ghi = _poses_box(meshes, tr, device)
    max_dist = float(np.linalg.norm(np.maximum(hi, ghi) - np.minimum(lo, glo))) * 2.0 + 1.0
    field = wp.empty(shape, dtype=wp.float32, device=device)
    ids = wp.array([mesh.id for mesh in meshes], dtype=wp.uint64, device=device)
    wp.launch(_stamp, shape, inputs=[ids, wp.array(tr, dtype=wp.transform, device=device), wp.vec3(*lo),
                                     wp.vec3(*spacing), max_dist, int(SweptVolumeSignMode(sign_mode)), field],
              device=device, record_tape=False)
    return field, wp.vec3(*lo), wp.vec3(*hi)


def swept_volume_field(meshes, transforms, voxel_size=None, *, resolution=None, lower=None, upper=None,
                       sign_mode=SweptVolumeSignMode.WINDING_NUMBER, device=None):
    """(field, lower, upper): the signed distance to the union of every mesh at every pose, sampled at the
    nodes of a grid over [lower, upper] (a wp.array3d of float32; negative inside; lower, upper as wp.vec3).
    transforms: (num_meshes, num_samples, 7) poses (p, q as x, y, z, w) or a wp.array2d of wp.transform.
    The grid is sized by `voxel_size` (the node spacing, over the poses' box padded by two cells) or by
    `resolution` (node counts), optionally over an explicit domain `lower`, `upper`. Not differentiated."""
    return _field(meshes, transforms, voxel_size, resolution, lower, upper, 0.0, sign_mode, device)


def swept_volume_mesh(meshes, transforms, voxel_size=None, *, resolution=None, lower=None, upper=None,
                      threshold: float = 0.0, sign_mode=SweptVolumeSignMode.WINDING_NUMBER, device=None):
    """(verts, indices): the envelope's surface, the level `threshold` of the swept field by marching cubes
    (the automatic domain also grows by a positive threshold). With NO_SIGN the field's zero level is
    degenerate (the surface itself), so `threshold` must be positive; the unsigned level set then also
    holds an inward shell where the solid is thicker than 2 * threshold."""
    if SweptVolumeSignMode(sign_mode) == SweptVolumeSignMode.NO_SIGN and not float(threshold) > 0.0:
        raise ValueError(f"swept volume: sign_mode NO_SIGN needs a positive `threshold`, got {threshold}")
    field, lo, hi = _field(meshes, transforms, voxel_size, resolution, lower, upper, threshold, sign_mode, device)
    return IsoSurfaceMarchingCubes.extract(field, threshold=float(threshold), lower=lo, upper=hi)
