"""Ids of live process-local geometry objects (a wp.Mesh's, wp.Bvh's ... id is the address of its
descriptor in this process). Geometry registers its objects here; a saved graph (launch/apic_save.py) looks here
to find the handles it holds, which another process cannot use. Knows nothing of meshes' contents."""

from __future__ import annotations

import weakref

#: mesh id -> the live wp.Mesh (weak: a deleted mesh drops out)
MESHES: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
#: id -> a live wp.Bvh, wp.HashGrid, wp.Volume or texture: handles a saved graph cannot carry yet
OTHERS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def register_mesh(mesh_id: int, mesh) -> None:
    MESHES[mesh_id] = mesh


def register(object_id: int, obj) -> None:
    """A Bvh, HashGrid, Volume or texture id (not serialised into saved graphs)."""
    OTHERS[object_id] = obj


def live_mesh_ids() -> set:
    return set(MESHES.keys())


#: how a loader makes a mesh from (points: float32 (n, 3) array, indices: int32 array, winding: bool);
#: set by geometry/mesh.py when it loads (this layer cannot import it)
make_mesh = None
