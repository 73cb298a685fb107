"""The ctypes form of a wp.array's kernel descriptor, what `a.__ctype__()` returns (Warp's name):
a structure with the fields a kernel's array parameter packs, `data`, `grad`, `shape[ndim]` and
`strides[ndim]` (the same bytes as the launch packer writes), plus `ndim` and `flags` as Warp's
descriptor has them. It keeps a weak reference to its array (`_wp_value`), so a recorded launch
given the descriptor back finds the array, without the descriptor keeping the array alive.
Knows nothing about launches."""

from __future__ import annotations

import ctypes
import weakref

_CLASSES: dict[int, type] = {}


def _descriptor_class(ndim: int) -> type:
    cls = _CLASSES.get(ndim)
    if cls is None:
        cls = _CLASSES[ndim] = type(f"array{ndim}d_t", (ArrayDescriptor,), {
            "_fields_": [("data", ctypes.c_uint64), ("grad", ctypes.c_uint64), ("shape", ctypes.c_int64 * ndim),
                         ("strides", ctypes.c_int64 * ndim)],
            "ndim": ndim})
    return cls


class ArrayDescriptor(ctypes.Structure):
    """Base of the per-ndim descriptor structures."""

    ndim = 0
    flags = 0  # warp_nb's descriptor carries no flag bits (Warp's has some); kept for code reading it

    @property
    def _wp_value(self):
        ref = self.__dict__.get("_wp_ref")
        return ref() if ref is not None else None


def make_descriptor(a, desc: tuple) -> ArrayDescriptor:
    """The descriptor of array `a` from its packed fields `desc` (data, grad, *shape, *strides)."""
    ndim = (len(desc) - 2) // 2
    value = _descriptor_class(ndim)(desc[0], desc[1], desc[2:2 + ndim], desc[2 + ndim:])
    value.__dict__["_wp_ref"] = weakref.ref(a)
    return value


class WordsDescriptor(ctypes.Structure):
    """The descriptor of an indexed or Fabric array: its packed 64-bit words, in launch order."""

    _wp_value = ArrayDescriptor._wp_value


def make_words_descriptor(a, desc: tuple) -> WordsDescriptor:
    """`a.__ctype__()` for an indexed or Fabric array `a` whose packed fields are `desc`."""
    cls = _CLASSES.get(-len(desc))
    if cls is None:
        cls = _CLASSES[-len(desc)] = type(f"descriptor{len(desc)}_t", (WordsDescriptor,),
                                          {"_fields_": [("words", ctypes.c_int64 * len(desc))]})
    value = cls(desc)
    value.__dict__["_wp_ref"] = weakref.ref(a)
    return value
