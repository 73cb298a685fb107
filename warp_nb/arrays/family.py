"""The metaclass of every array family (wp.array, wp.indexedarray, wp.fabricarray,
wp.indexedfabricarray and their fixed-ndim forms). `Family[dtype]` and `Family[dtype, ndim]` build
the family's annotation through the class's `_subscript_type(key)`. One metaclass for all of them,
so that a class naming two families as bases is refused by the family checks with a clear message
rather than by Python's metaclass conflict, and so that a user's subclass (an application's
`class TaggedArray(wp.array)`) is not an annotation factory, as in Warp."""

from __future__ import annotations


class ArrayFamilyMeta(type):
    def __getitem__(cls, key):
        if not cls.__dict__.get("_wp_subscriptable_", False):
            raise TypeError(f"Subscript syntax not supported for {cls.__name__}: it subclasses a Warp array class; "
                            f"annotate with the Warp class itself (wp.array[dtype], wp.fabricarray[dtype], ...)")
        return cls._subscript_type(key)
