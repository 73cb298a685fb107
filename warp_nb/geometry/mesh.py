"""wp.Mesh: a triangle mesh with a BVH for closest-point, ray and box queries in kernels
(mesh.h). The tree, the face boxes and the triangles in tree order are built on the CPU in one
native call (native/runtime/geometry.cpp and bvh_builder.cpp: binned SAH, on the runtime's thread
pool); `refit()` updates them after the points move. `mesh.id` is the address of the mesh_t descriptor
this object owns, so it stays valid exactly as long as the Mesh (and the arrays it holds)."""

from __future__ import annotations

import ctypes

import numpy as np

from . import native
from ..runtime import compat_hooks, live_handles
from ._util import as_int_array, as_vec3_array, check_finite
from .bvh import build_tree, check_constructor
from .groups import build_grouped_tree, group_array
from ..runtime.memory_tracker import native_allocations, record_host

DEFAULT_LEAF_SIZE = 4


class Mesh:
    """A triangle mesh: points (wp.array of wp.vec3), indices (wp.array of int32, 3 per face,
    counter-clockwise faces have outward normals), optional per-point velocities.

    Kernels take `mesh.id` (a wp.uint64) and call wp.mesh_query_point(id, p, max_dist) and the
    other mesh_* builtins. With support_winding_number=True the tree also keeps the data for
    wp.mesh_query_point_sign_winding_number."""

    @native_allocations("mesh")
    def __init__(self, points, indices, velocities=None, support_winding_number: bool = False,
                 bvh_constructor=None, bvh_leaf_size: int | None = None, groups=None, device=None):
        pts_arr, pts = as_vec3_array(points, "Mesh points")
        idx_arr, idx = as_int_array(indices, "Mesh indices")
        if pts.shape[0] == 0:
            raise ValueError("Mesh points is empty: a mesh needs at least one triangle")
        if idx.size == 0:
            raise ValueError("Mesh indices is empty: a mesh needs at least one triangle")
        if idx.size % 3:
            raise ValueError(f"Mesh indices must hold 3 entries per triangle; got {idx.size}, not a multiple of 3")
        bad = (idx < 0) | (idx >= pts.shape[0])
        if bad.any():
            k = int(np.argmax(bad))
            raise ValueError(f"Mesh indices[{k}] = {int(idx[k])} is out of range for {pts.shape[0]} points")
        constructor = check_constructor(bvh_constructor, groups, pts_arr.device, "Mesh")
        if constructor == "cubql" and support_winding_number:
            raise RuntimeError("support_winding_number is not available with the cubql constructor; use 'sah'")
        check_finite(pts, "Mesh points")
        if velocities is not None:
            vel_arr, vel = as_vec3_array(velocities, "Mesh velocities")
            if vel.shape[0] != pts.shape[0]:
                raise ValueError(f"Mesh velocities has {vel.shape[0]} entries for {pts.shape[0]} points")
        else:
            vel_arr = None
        self._points, self.indices, self._velocities = pts_arr, idx_arr, vel_arr
        self.device = pts_arr.device
        self.support_winding_number = bool(support_winding_number)
        self.bvh_constructor = constructor
        self.groups = groups
        self._groups = group_array(groups, idx.size // 3, "Mesh") if groups is not None else None
        self.bvh_leaf_size = int(bvh_leaf_size) if bvh_leaf_size else DEFAULT_LEAF_SIZE
        self._desc = native.MeshDesc()
        self.id = ctypes.addressof(self._desc)
        live_handles.register_mesh(self.id, self)
        self._build()

    # --- building -----------------------------------------------------------------------
    def _build(self) -> None:
        pts = self._points.numpy().reshape(-1, 3)
        idx = self.indices.numpy().reshape(-1)
        n_tris = idx.size // 3
        # the builder writes every entry (of the nodes: as many as it returns), so nothing is zeroed
        self._nodes = np.empty(max(2 * n_tris - 1, 1), dtype=native.NODE_DTYPE)
        self._items = np.empty(n_tris, dtype=np.int32)
        self._face_lowers = np.empty((n_tris, 3), dtype=np.float32)  # face boxes: the tree as a wp.Bvh
        self._face_uppers = np.empty((n_tris, 3), dtype=np.float32)
        self._tris = np.empty((n_tris, 9), dtype=np.float32)  # the triangles in tree order
        avg = np.empty(1, dtype=np.float32)
        create, last_error = _mesh_builder()
        count = create(native.ptr(pts), native.ptr(idx), n_tris, self.bvh_leaf_size, native.ptr(self._nodes),
                       native.ptr(self._items), native.ptr(self._face_lowers), native.ptr(self._face_uppers),
                       native.ptr(self._tris), native.ptr(avg), native.threads())
        if count == 0:
            raise RuntimeError(f"Failed to create mesh: {last_error()}")
        d = self._desc
        if self._groups is not None:  # rebuilt as one subtree per group (same average edge length)
            lib = native.library()
            self._nodes, self._items, count, self._group_ids, self._group_roots = build_grouped_tree(
                lambda a, b, leaf: build_tree(lib, a, b, leaf), self._face_lowers, self._face_uppers, self._groups,
                self.bvh_leaf_size)
            lib.wpnb_mesh_soup(native.ptr(pts), native.ptr(idx), native.ptr(self._items), n_tris,
                               native.ptr(self._tris), native.threads())
            d.bvh.group_ids, d.bvh.group_roots = native.ptr(self._group_ids), native.ptr(self._group_roots)
            d.bvh.num_groups = len(self._group_ids)
        self._dipoles = np.zeros((count, 8), dtype=np.float32) if self.support_winding_number else None
        record_host("tree", self._nodes, self._items, self._tris, self._dipoles)  # wp.ScopedMemoryTracker
        d.bvh.nodes, d.bvh.items, d.bvh.num_nodes, d.bvh.num_items = (native.ptr(self._nodes),
                                                                       native.ptr(self._items), count, n_tris)
        d.points, d.indices = self._points.ptr or 0, self.indices.ptr or 0
        d.velocities = (self._velocities.ptr or 0) if self._velocities is not None else 0
        d.points_grad, d.velocities_grad = _grad_ptr(self._points), _grad_ptr(self._velocities)
        d.dipoles, d.tris = native.ptr(self._dipoles), native.ptr(self._tris)
        d.bvh.lowers, d.bvh.uppers = native.ptr(self._face_lowers), native.ptr(self._face_uppers)
        d.num_points, d.num_tris, d.average_edge_length = pts.shape[0], n_tris, float(avg[0])
        if self._dipoles is not None:
            self._refit(pts, idx)

    def _refit(self, pts, idx) -> None:
        """Face boxes, triangle soup, node boxes (and dipoles) from the current points, in one native call."""
        native.library().wpnb_mesh_refit(native.ptr(pts), native.ptr(idx), idx.size // 3, native.ptr(self._nodes),
                                         self._desc.bvh.num_nodes, native.ptr(self._items),
                                         native.ptr(self._face_lowers), native.ptr(self._face_uppers),
                                         native.ptr(self._tris), native.ptr(self._dipoles), native.threads())

    def refit(self) -> None:
        """Update the tree (and winding-number data) after the points moved in place."""
        pts = self._points.numpy().reshape(-1, 3)
        check_finite(pts, "Mesh points")
        self._refit(pts, self.indices.numpy().reshape(-1))

    def rebuild(self) -> None:
        """Build the tree anew (better than refit() after large deformations)."""
        check_finite(self._points.numpy().reshape(-1, 3), "Mesh points")
        self._build()

    # --- properties ---------------------------------------------------------------------
    @property
    def points(self):
        """The points (a wp.array of wp.vec3). Assigning an array of the same length refits."""
        return self._points

    @points.setter
    def points(self, value):
        arr, view = as_vec3_array(value, "Mesh points")
        if view.shape[0] != self._desc.num_points:
            raise ValueError(f"new Mesh points has {view.shape[0]} entries; the mesh has {self._desc.num_points}")
        self._points = arr
        self._desc.points, self._desc.points_grad = arr.ptr or 0, _grad_ptr(arr)
        self.refit()

    @property
    def velocities(self):
        return self._velocities

    @velocities.setter
    def velocities(self, value):
        if value is None:
            self._velocities, self._desc.velocities, self._desc.velocities_grad = None, 0, 0
            return
        arr, view = as_vec3_array(value, "Mesh velocities")
        if view.shape[0] != self._desc.num_points:
            raise ValueError(f"Mesh velocities has {view.shape[0]} entries for {self._desc.num_points} points")
        self._velocities, self._desc.velocities = arr, arr.ptr or 0
        self._desc.velocities_grad = _grad_ptr(arr)

    @property
    def num_tris(self) -> int:
        return int(self._desc.num_tris)

    @property
    def num_points(self) -> int:
        return int(self._desc.num_points)

    @property
    def average_edge_length(self) -> float:
        return float(self._desc.average_edge_length)

    def __del__(self):
        # the tree and soup are numpy memory owned by this object: nothing to free by hand (and an
        # object made with Mesh.__new__ alone has nothing at all)
        pass

    def __repr__(self):
        return f"wp.Mesh({self.num_points} points, {self.num_tris} triangles)"


def _mesh_builder():
    """(build, last error message): the native builder, or once Warp's runtime object exists (Warp's
    code asked for warp._src.context.runtime), the same entry on its core, which Warp's tests patch."""
    made = compat_hooks.resolve("runtime", "instance", lambda: None)()
    if made is not None:
        return made.core.wp_mesh_create_host, made.get_error_string
    return native.mesh_create_host, native.last_error


def _grad_ptr(arr) -> int:
    """The address of `arr`'s gradient array, 0 without one: kernels differentiate through
    wp.mesh_get(id).points[i] into it (Warp keeps the points' gradient with the mesh too)."""
    grad = getattr(arr, "grad", None) if arr is not None else None
    return (grad.ptr or 0) if grad is not None else 0


def _mesh_from_arrays(points, indices, winding: bool) -> Mesh:
    """A CPU mesh from numpy points (n, 3) and triangle indices: a saved graph's meshes, loaded."""
    from ..arrays.array import array
    from ..types import int32, vec3f
    return Mesh(array(points, dtype=vec3f, device="cpu"), array(indices, dtype=int32, device="cpu"),
                support_winding_number=winding)


live_handles.make_mesh = _mesh_from_arrays
