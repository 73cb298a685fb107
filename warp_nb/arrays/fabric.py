"""`wp.fabricarray` and `wp.indexedfabricarray`: 1-D views over an attribute stored in buckets
(Omniverse Fabric), made from a Fabric array interface (arrays/fabric_interface.py), and such a
view seen through an index array (`fa[indices]`). Kernels read, write and update their elements
like an array's (native/arrays/fabric_array.h); from Python they convert to numpy (a gathered
copy), fill, zero and assign. An attribute whose elements are arrays makes a Fabric array of
arrays (ndim 2, `wp.fabricarrayarray`): a kernel's a[i] is a wp.array over element i; Python
cannot copy it (as in Warp). `wp.fabricarray(dtype=...)` without data is the annotation.

The memory belongs to whoever made the interface: these objects keep the interface dict alive but
free nothing. They have no gradient storage."""

from __future__ import annotations

import numpy as np

from .. import types
from ..types.fabric_type import DESCRIPTOR_STUBS, FabricArrayType, IndexedFabricArrayType, annotation
from .arithmetic import ArrayArithmetic
from .array import array, copy_elements, empty_array
from .descriptor import make_words_descriptor
from .fabric_interface import bucket_table, read_attribute
from .family import ArrayFamily

_NO_ARRAY_COPY = "Copying to/from Fabric arrays of arrays is not supported"
_UNSET = object()  # wp.fabricarray(dtype=Any) is an annotation; a bare fabricarray.__new__(fabricarray) is not


class _FabricBase(ArrayArithmetic, ArrayFamily):
    """What both Fabric views share on the Python side: the element type, shape, device, and
    numpy / fill / assign through the subclasses' gather and scatter."""

    _wp_fabric_ = True  # how other modules (wp.copy, launches, struct fields) recognise Fabric arrays
    _wp_indexed_fabric_ = False
    _subscript_type = classmethod(annotation)  # wp.fabricarray[float], wp.indexedfabricarray[float, Literal[2]]
    is_contiguous = False  # elements are wherever their buckets are
    requires_grad = False  # no gradient storage
    grad = None

    def __ctype__(self):
        """The kernel descriptor as a ctypes structure of its 64-bit words (Warp's name)."""
        return make_words_descriptor(self, self._desc)

    @property
    def size(self) -> int:
        return int(self.shape[0])

    def __len__(self):
        return self.shape[0]

    @property
    def type(self) -> FabricArrayType:
        made = IndexedFabricArrayType if self._wp_indexed_fabric_ else FabricArrayType
        return made(self.dtype, self.ndim)

    def _refuse_array_of_arrays(self):
        if self.ndim != 1:
            raise RuntimeError(_NO_ARRAY_COPY)

    def _staging(self) -> array:
        return empty_array(self.shape, self.dtype, self.device, False, False)

    def numpy(self) -> np.ndarray:
        """The elements, gathered (a copy)."""
        return self.contiguous().numpy()

    def list(self) -> list:
        return [v for v in self.numpy().reshape((-1,) + types.numpy_inner_shape(self.dtype)).tolist()]

    def contiguous(self) -> array:
        """The elements gathered into a new contiguous wp.array."""
        self._refuse_array_of_arrays()
        out = self._staging()
        if self.size:
            self._gather(out)
        return out

    def assign(self, src) -> None:
        """Write values (an array of any kind, numpy array or sequence of this shape) to the elements."""
        self._refuse_array_of_arrays()
        if self.size == 0:
            return
        staged = self._staging()  # converts `src` as an array would
        staged.assign(src if isinstance(src, (array, np.ndarray, list, tuple)) or not hasattr(src, "numpy")
                      else src.numpy())
        self._scatter(staged)

    def fill_(self, value) -> None:
        self._refuse_array_of_arrays()
        if self.size:
            staged = self._staging()  # converts `value` as an array's fill_ does
            staged.fill_(value)
            self._scatter(staged)

    def zero_(self) -> None:
        self._refuse_array_of_arrays()
        if self.size:
            staged = self._staging()
            staged.zero_()
            self._scatter(staged)

    def __getitem__(self, key):
        raise ValueError(f"Fabric arrays only support indexing using index arrays, got key of type {type(key)}")

    def __del__(self):  # nothing to free (the interface's owner holds the memory); safe on a bare instance
        pass

    def __repr__(self):
        return f"wp.{type(self).__name__}(shape={self.shape}, dtype={types.type_name(self.dtype)})"


class fabricarray(_FabricBase):
    """The attribute `attrib` of the Fabric array interface `data` (a dict): element i is in the
    bucket its cumulative counts place it in."""

    _wp_subscriptable_ = True
    _wp_family_root_ = True  # a native array family (arrays/family.py: native_family)

    def __new__(cls, data=None, attrib=None, dtype=_UNSET, ndim=None, **kwargs):
        if data is None and dtype is not _UNSET:  # an annotation: wp.fabricarray(dtype=float)
            return FabricArrayType(dtype, ndim or 1)
        return super().__new__(cls)

    def __init__(self, data=None, attrib=None, dtype=_UNSET, ndim=None, **kwargs):
        if kwargs:
            raise TypeError(f"wp.fabricarray() got unexpected keyword arguments: {', '.join(kwargs)}")
        if data is None:
            raise TypeError("wp.fabricarray(data, attrib) needs a Fabric array interface, or dtype= for an annotation")
        if not isinstance(attrib, str):
            raise TypeError(f"wp.fabricarray(data, attrib): `attrib` must be the attribute's name, got {attrib!r}")
        found = read_attribute(data, attrib)
        if dtype not in (_UNSET, types.Any) and types.canonical_scalar(dtype) != found.dtype:
            raise TypeError(f"wp.fabricarray: attribute '{attrib}' holds {types.type_name(found.dtype)}, "
                            f"not {types.type_name(dtype)}")
        self.dtype, self.ndim, self.device, self.access = found.dtype, found.ndim, found.device, found.access
        self.buckets = found.buckets
        size = sum(count for _, count, _ in found.buckets)
        self.shape = (size,)
        self._iface = data  # keeps the owner's references (Warp's interfaces carry them) alive
        self._table = array(bucket_table(found.buckets), dtype=types.int64, device=self.device) \
            if found.buckets else None
        # what a kernel argument packs: bucket table, bucket count, shape (no fixed second extent)
        self._desc = (self._table.ptr if self._table is not None else 0, len(found.buckets), size) + \
            (0,) * (self.ndim - 1)

    def _bucket_views(self):
        """(offset, wp.array over the bucket's elements) per bucket."""
        offset = 0
        for ptr, count, _ in self.buckets:
            yield offset, array(ptr=ptr, shape=(count,), dtype=self.dtype, device=self.device)
            offset += count

    def _gather(self, out: array) -> None:
        for offset, view in self._bucket_views():
            copy_elements(out, view, offset, 0, view.size)

    def _scatter(self, staged: array) -> None:
        for offset, view in self._bucket_views():
            copy_elements(view, staged, 0, offset, view.size)

    def __getitem__(self, key):
        if getattr(type(key), "_wp_array_", False):
            return indexedfabricarray(self, key)
        return super().__getitem__(key)


class indexedfabricarray(_FabricBase):
    """`fa` (a wp.fabricarray) seen through `indices`, a 1-D int32 wp.array of positions in it."""

    _wp_subscriptable_ = True
    _wp_family_root_ = True
    _wp_indexed_fabric_ = True

    def __new__(cls, fa=None, indices=None, dtype=_UNSET, ndim=None, **kwargs):
        if fa is None and dtype is not _UNSET:  # an annotation: wp.indexedfabricarray(dtype=float)
            return IndexedFabricArrayType(dtype, ndim or 1)
        return super().__new__(cls)

    def __init__(self, fa=None, indices=None, dtype=_UNSET, ndim=None, **kwargs):
        if kwargs:
            raise TypeError(f"wp.indexedfabricarray() got unexpected keyword arguments: {', '.join(kwargs)}")
        if not getattr(type(fa), "_wp_fabric_", False) or getattr(type(fa), "_wp_indexed_fabric_", False):
            raise TypeError(f"wp.indexedfabricarray(fa, indices): `fa` must be a wp.fabricarray, got "
                            f"{type(fa).__name__}")
        if not getattr(type(indices), "_wp_array_", False) or indices.ndim != 1 \
                or indices.dtype is not types.int32 or indices.device != fa.device:
            raise TypeError(f"wp.indexedfabricarray(fa, indices): `indices` must be a 1-D int32 wp.array on "
                            f"{fa.device.alias}")
        self.fa, self.indices = fa, indices
        self.dtype, self.ndim, self.device = fa.dtype, fa.ndim, fa.device
        self.shape = (indices.shape[0],)
        self._desc = fa._desc + (indices.ptr or 0, self.shape[0]) + (0,) * (self.ndim - 1)

    def _gather(self, out: array) -> None:
        out.assign(self.fa.numpy()[self.indices.numpy()])

    def _scatter(self, staged: array) -> None:
        full = self.fa.numpy()
        full[self.indices.numpy()] = staged.numpy()
        self.fa.assign(full)


def fabricarrayarray(data=None, attrib=None, dtype=types.Any, **kwargs):
    """A Fabric array of arrays (each element a variable-length array); without data, its annotation."""
    if data is None:
        return FabricArrayType(dtype, 2)
    return fabricarray(data, attrib, dtype=dtype, **kwargs)


def indexedfabricarrayarray(fa=None, indices=None, dtype=types.Any, **kwargs):
    """An indexed Fabric array of arrays; without data, its annotation."""
    if fa is None:
        return IndexedFabricArrayType(dtype, 2)
    return indexedfabricarray(fa, indices, dtype=dtype, **kwargs)


def descriptor_stub(t: FabricArrayType) -> _FabricBase:
    """What a Fabric field of a struct read back from memory (`struct_array.list()`) holds: an object
    of the field's kind, dtype and ndim over no storage (the descriptor's owner is not known), as Warp
    gives."""
    cls = indexedfabricarray if t.kind == "indexedfabricarray" else fabricarray
    stub = _FabricBase.__new__(cls)
    stub.dtype, stub.ndim, stub.shape, stub.device = t.dtype, t.ndim, (0,), None
    fields = 2 + t.ndim + (1 + t.ndim if t.kind == "indexedfabricarray" else 0)
    stub._desc = (0,) * fields  # no buckets: an empty array if it is ever passed on
    return stub


DESCRIPTOR_STUBS["fabricarray"] = DESCRIPTOR_STUBS["indexedfabricarray"] = descriptor_stub
