"""What the array families (wp.array, wp.indexedarray, wp.fabricarray, wp.indexedfabricarray and
their fixed-ndim forms) share as classes: `Family[dtype]` and `Family[dtype, ndim]` build the
family's annotation through the class's `_subscript_type(key)`, and a user's subclass (an
application's `class TaggedArray(wp.array)`) is not an annotation factory, as in Warp.

The subscript is `__class_getitem__`, not a metaclass: the families' metaclass is plain `type`, so
an application may mix its own metaclass (or an ABC such as `collections.abc.Sequence`) into a
subclass, as it can with Warp's classes. Which family an object belongs to is a type question,
answered in types/array_family.py (struct fields need it too, and types/ cannot import arrays/)."""

from __future__ import annotations


class ArrayFamily:
    """Base of the four array families; holds only the subscript rule."""

    __slots__ = ()

    def __class_getitem__(cls, key):
        if not cls.__dict__.get("_wp_subscriptable_", False):
            raise TypeError(f"Subscript syntax not supported for {cls.__name__}: it subclasses a Warp array class; "
                            f"annotate with the Warp class itself (wp.array[dtype], wp.fabricarray[dtype], ...)")
        return cls._subscript_type(key)

