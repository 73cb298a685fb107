"""wp.Bvh: a bounding volume hierarchy over boxes, for `wp.bvh_query_aabb` and `wp.bvh_query_ray`
loops in kernels. Built on the CPU by native/runtime/geometry.cpp (binned SAH); `id` is the
address of the bvh_t descriptor this object owns."""

from __future__ import annotations

import ctypes

import numpy as np

from . import native
from ._util import as_vec3_array, check_finite


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

    def __init__(self, lowers, uppers, constructor=None, groups=None, leaf_size: int = 1, device=None):
        self.lowers, lo = as_vec3_array(lowers, "Bvh lowers")
        self.uppers, hi = as_vec3_array(uppers, "Bvh uppers")
        if lo.shape[0] != hi.shape[0]:
            raise ValueError(f"Bvh lowers and uppers differ in length ({lo.shape[0]} and {hi.shape[0]})")
        if lo.shape[0] == 0:
            raise ValueError("Bvh needs at least one box (lowers is empty)")
        if groups is not None:
            raise NotImplementedError("Bvh groups are not supported by warp_nb yet")
        self.device = self.lowers.device
        self.constructor = constructor or "sah"
        self.leaf_size = max(1, int(leaf_size))
        self._desc = native.BvhDesc()
        self.id = ctypes.addressof(self._desc)
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
        """Build the tree anew from the current boxes."""
        lo, hi = self._views()
        lib = native.library()
        self._nodes, self._items, count = build_tree(lib, lo, hi, self.leaf_size)
        d = self._desc
        d.nodes, d.items = native.ptr(self._nodes), native.ptr(self._items)
        d.lowers, d.uppers = self.lowers.ptr, self.uppers.ptr
        d.num_nodes, d.num_items = count, lo.shape[0]

    def refit(self) -> None:
        """Update the node boxes after the boxes moved (same tree; rebuild() after large motion)."""
        lo, hi = self._views()
        native.library().wpnb_bvh_refit(native.ptr(self._nodes), self._desc.num_nodes, native.ptr(self._items),
                                        native.ptr(lo), native.ptr(hi))

    @property
    def num_nodes(self) -> int:
        return int(self._desc.num_nodes)

    def __repr__(self):
        return f"wp.Bvh({self._desc.num_items} boxes, {self.num_nodes} nodes)"
