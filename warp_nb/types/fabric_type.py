"""The types of Fabric array arguments (`wp.fabricarray[float]`, `wp.indexedfabricarray(dtype=...)`,
`wp.fabricarrayarray(dtype=...)`) and the ctypes layouts of their kernel-side descriptors. A Fabric
array is a 1-D view over elements stored in buckets (Omniverse Fabric's attribute storage); one of
ndim 2 is a Fabric array of arrays, each element a variable-length array. The array objects live in
`warp_nb.arrays.fabric`; their C++ in native/arrays/fabric_array.h."""

from __future__ import annotations

import ctypes
import typing

from .array_annotation import ArrayAnnotationBase
from .array_type import ArrayType

# The bucket table a descriptor points at: one row per bucket, [first index, end index, data
# address, address of the lengths of its arrays (0 unless an array of arrays)], int64 each.
BUCKET_FIELDS = 4

#: kind -> function(type) making what a Fabric field of a struct read back from memory holds (an
#: object of its kind over no storage). arrays/fabric.py fills it, so the types know no array class.
DESCRIPTOR_STUBS: dict = {}


class FabricArrayType(ArrayType):
    """`wp.fabricarray(dtype=...)`: elements found through a table of buckets. ndim 1: one value
    per element; ndim 2: a Fabric array of arrays, a[i] being a 1-D wp.array view."""

    __slots__ = ()
    kind = "fabricarray"
    cpp_template = "wpnb::fabricarray_t"

    def __init__(self, dtype=float, ndim: int = 1):
        super().__init__(dtype, ndim)
        if isinstance(self.ndim, int) and self.ndim > 2:
            raise ValueError(f"Fabric arrays have 1 dimension, or 2 for a Fabric array of arrays; got ndim={ndim}")

    def view_type(self, ndim: int) -> ArrayType:
        """a[i] of a Fabric array of arrays is an ordinary array over that element's storage."""
        return ArrayType(self.dtype, ndim)


class IndexedFabricArrayType(FabricArrayType):
    """`wp.indexedfabricarray(dtype=...)`: a Fabric array seen through one int32 index array."""

    __slots__ = ()
    kind = "indexedfabricarray"
    cpp_template = "wpnb::indexedfabricarray_t"


class FabricArrayAnnotation(ArrayAnnotationBase, FabricArrayType):
    __slots__ = ()
    _subscript = "fabricarray"
    _nd_aliases = False
    _plain = FabricArrayType


class IndexedFabricArrayAnnotation(ArrayAnnotationBase, IndexedFabricArrayType):
    __slots__ = ()
    _subscript = "indexedfabricarray"
    _nd_aliases = False
    _plain = IndexedFabricArrayType


def annotation(cls, key):
    """wp.fabricarray[float], wp.fabricarray[float, Literal[2]], wp.fabricarray[float, Any]."""
    from .array_type import literal_int
    made = IndexedFabricArrayAnnotation if cls._wp_indexed_fabric_ else FabricArrayAnnotation
    if isinstance(key, tuple):
        dtype, ndim = key
        return made(dtype, ndim if ndim is typing.Any else literal_int(ndim, "a Fabric array's ndim"))
    return made(key, 1)


_CTYPES: dict = {}


def fabric_array_ctype(ndim: int, indexed: bool = False):
    """The ctypes layout of a kernel-side Fabric array: bucket table address, bucket count, shape[ndim]
    (shape[0] is the size); an indexed one adds the index array's address and its own shape."""
    if ndim is typing.Any:  # a field of any ndim (wp.fabricarray[float, Any]) takes the larger layout
        ndim = 2
    key = (indexed, ndim)
    ct = _CTYPES.get(key)
    if ct is None:
        fields = [("buckets", ctypes.c_uint64), ("nbuckets", ctypes.c_int64), ("shape", ctypes.c_int64 * ndim)]
        if indexed:
            fields = [("fa", fabric_array_ctype(ndim)), ("indices", ctypes.c_uint64), ("shape", ctypes.c_int64 * ndim)]
        ct = _CTYPES[key] = type(f"{'indexed' if indexed else ''}fabricarray{ndim}d_desc", (ctypes.Structure,),
                                 {"_fields_": fields})
    return ct


def pack_format(t: FabricArrayType) -> str:
    """The struct-module format of the descriptor `fabric_array_ctype` lays out."""
    base = f"Qq{t.ndim}q"
    return base + f"Q{t.ndim}q" if t.kind == "indexedfabricarray" else base
