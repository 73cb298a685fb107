"""What the array families (wp.array, wp.indexedarray, wp.fabricarray, wp.indexedfabricarray and
their fixed-ndim forms) share as classes: `Family[dtype]` and `Family[dtype, ndim]` build the
family's annotation through the class's `_subscript_type(key)`, and a user's subclass (an
application's `class TaggedArray(wp.array)`) is not an annotation factory, as in Warp.

The subscript is `__class_getitem__`, not a metaclass: the families' metaclass is plain `type`, so
an application may mix its own metaclass (or an ABC such as `collections.abc.Sequence`) into a
subclass, as it can with Warp's classes. Which family an object belongs to is `native_family`."""

from __future__ import annotations


class ArrayFamily:
    """Base of the four array families; holds only the subscript rule."""

    __slots__ = ()

    def __class_getitem__(cls, key):
        if not cls.__dict__.get("_wp_subscriptable_", False):
            raise TypeError(f"Subscript syntax not supported for {cls.__name__}: it subclasses a Warp array class; "
                            f"annotate with the Warp class itself (wp.array[dtype], wp.fabricarray[dtype], ...)")
        return cls._subscript_type(key)


_FAMILY_NAMES = "wp.array, wp.indexedarray, wp.fabricarray or wp.indexedfabricarray"


def native_family(value) -> type | None:
    """The array family class (wp.array, wp.indexedarray, wp.fabricarray, wp.indexedfabricarray)
    that `value` is an instance of, through any depth of user subclasses; None for anything else.

    It reads `type(value)`, never `value.__class__`: a mock or a weakref proxy reports the class it
    imitates there, and must not be taken for an array whose descriptor can be read. Nothing is
    cached per class (a dynamically made subclass must be collectable; a user metaclass may make
    classes unhashable) and the MRO walk compares classes by identity only (a metaclass may define
    `__eq__`). A class deriving from two families is refused: its descriptor would be ambiguous."""
    roots = [c for c in type(value).__mro__ if c.__dict__.get("_wp_family_root_", False)]
    if len(roots) == 1:
        return roots[0]
    if not roots:
        return None
    raise TypeError(f"{type(value).__name__} derives from more than one native array family "
                    f"({', '.join(c.__name__ for c in roots)}); an array subclass must derive from exactly one of "
                    f"{_FAMILY_NAMES}")


def annotation_of(value):
    """The annotation of an array instance's type (`family[dtype, ndim]`, shared by a class and all
    its subclasses), or None when `value` is not an array instance. Nothing is constructed."""
    if isinstance(value, type):
        return None
    family = native_family(value)
    return family._subscript_type((value.dtype, value.ndim)) if family is not None else None
