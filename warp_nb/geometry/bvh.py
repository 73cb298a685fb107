"""wp.Bvh: a bounding volume hierarchy over boxes, for `wp.bvh_query_aabb`, `_ray`, `_sphere` and
`_capsule` loops in kernels; with groups, one subtree per group (groups.py). Built on the CPU by
native/runtime/bvh_builder.cpp (binned SAH); `id` is the address of the bvh_t descriptor this
object owns."""

from __future__ import annotations

import ctypes

import numpy as np

from . import native
from ._util import as_vec3_array, check_finite
from .groups import build_grouped_tree, group_array
from ..runtime import live_handles, recording
from ..runtime.memory_tracker import native_allocations, record_host

#: Warp's tree builders' names; warp_nb builds every tree with its binned SAH builder, so each name gives
#: a valid tree (of SAH quality).
CONSTRUCTORS = ("sah", "median", "lbvh", "cubql")


def check_constructor(constructor, groups, device, what: str) -> str:
    constructor = constructor or "sah"
    if constructor not in CONSTRUCTORS:
        raise ValueError(f"unknown {what} constructor {constructor!r}; use one of {', '.join(CONSTRUCTORS)}")
    if constructor == "cubql" and groups is not None:
        raise RuntimeError(f"Grouped BVHs are not supported with the cubql constructor ({what}); use 'sah'")
    return constructor


def build_tree(lib, lo: np.ndarray, hi: np.ndarray, leaf_size: int):
    """(nodes, items, node count) of a tree over the boxes lo[k]..hi[k]."""
    n = lo.shape[0]
    nodes = np.zeros(max(2 * n - 1, 1), dtype=native.NODE_DTYPE)
    items = np.zeros(max(n, 1), dtype=np.int32)
    count = lib.wpnb_bvh_build(native.ptr(lo), native.ptr(hi), n, int(leaf_size), native.ptr(nodes),
                               native.ptr(items), native.threads())
    return nodes, items, int(count)


class Bvh:
    """A tree over n boxes (lowers[k], uppers[k]: wp.arrays of wp.vec3). Kernels get `bvh.id`
    and loop over `wp.bvh_query_aabb(id, lo, hi)` or `wp.bvh_query_ray(id, start, dir)`."""

    @native_allocations("bvh")
    def __init__(self, lowers, uppers, constructor=None, groups=None, leaf_size: int = 1, device=None):
        self.lowers, lo = as_vec3_array(lowers, "Bvh lowers")
        self.uppers, hi = as_vec3_array(uppers, "Bvh uppers")
        if lo.shape[0] != hi.shape[0]:
            raise ValueError(f"Bvh lowers and uppers differ in length ({lo.shape[0]} and {hi.shape[0]})")
        if lo.shape[0] == 0:
            raise ValueError("Bvh needs at least one box (lowers is empty)")
        self.device = self.lowers.device
        self.constructor = check_constructor(constructor, groups, self.device, "Bvh")
        self.groups = groups
        self._groups = group_array(groups, lo.shape[0], "Bvh") if groups is not None else None
        self.leaf_size = max(1, int(leaf_size))
        self._desc = native.BvhDesc()
        self.id = ctypes.addressof(self._desc)
        live_handles.register(self.id, self)
        self.rebuild()

    def _views(self):
        lo = self.lowers.numpy().reshape(-1, 3)
        hi = self.uppers.numpy().reshape(-1, 3)
        check_finite(lo, "Bvh lowers")
        check_finite(hi, "Bvh uppers")
        if (lo > hi).any():
            k = int(np.argwhere((lo > hi).any(axis=1))[0, 0])
            raise ValueError(f"Bvh box {k} has lowers > uppers ({lo[k].tolist()} > {hi[k].tolist()})")
        return lo, hi

    def rebuild(self, constructor=None) -> None:
        """Build the tree anew from the current boxes (in a graph capture: each time the graph runs)."""
        if _captured("wp.Bvh.rebuild()", lambda: self.rebuild(constructor)):
            return
        lo, hi = self._views()
        lib = native.library()
        d = self._desc
        if self._groups is not None:
            built = build_grouped_tree(lambda a, b, leaf: build_tree(lib, a, b, leaf), lo, hi, self._groups,
                                       self.leaf_size)
            self._nodes, self._items, count, self._group_ids, self._group_roots = built
            d.group_ids, d.group_roots = native.ptr(self._group_ids), native.ptr(self._group_roots)
            d.num_groups = len(self._group_ids)
        else:
            self._nodes, self._items, count = build_tree(lib, lo, hi, self.leaf_size)
        d.nodes, d.items = native.ptr(self._nodes), native.ptr(self._items)
        d.lowers, d.uppers = self.lowers.ptr or 0, self.uppers.ptr or 0
        d.num_nodes, d.num_items = count, lo.shape[0]
        record_host("tree", self._nodes, self._items)  # wp.ScopedMemoryTracker

    def refit(self) -> None:
        """Update the node boxes after the boxes moved (same tree; rebuild() after large motion; in a
        graph capture: each time the graph runs)."""
        if _captured("wp.Bvh.refit()", self.refit):
            return
        lo, hi = self._views()
        native.library().wpnb_bvh_refit(native.ptr(self._nodes), self._desc.num_nodes, native.ptr(self._items),
                                        native.ptr(lo), native.ptr(hi), native.threads())

    @property
    def num_nodes(self) -> int:
        return int(self._desc.num_nodes)

    def __del__(self):
        # the tree is numpy memory owned by this object: nothing to free by hand (and an object made
        # with Bvh.__new__ alone has nothing at all)
        pass

    def __repr__(self):
        return f"wp.Bvh({self._desc.num_items} boxes, {self.num_nodes} nodes)"


def _captured(what: str, run) -> bool:
    """Record `run` into an open graph capture (replayed with the boxes of that moment); True when
    recorded. A host-side tree update holds process-local memory: wp.capture_save refuses it."""
    if recording.capture is None:
        return False
    recording.capture.record(recording.Operation("host", run, what=what))
    return True
