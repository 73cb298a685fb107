"""`wp.indexedarray`: an array seen through index arrays, one per dimension (None: the dimension
taken whole), as Warp defines it. Kernels read, write and update it like an array (the indices
are followed in native/arrays/indexed_array.h); from Python it converts to numpy (a gathered copy) and
can be filled. `wp.indexedarray(dtype=...)` without data is the annotation."""

from __future__ import annotations

import typing

import numpy as np

from .. import types
from ..types.array_annotation import IndexedArrayAnnotation
from ..types.array_type import IndexedArrayType, literal_int
from .arithmetic import ArrayArithmetic
from .array import array, empty_array
from .descriptor import make_words_descriptor
from .family import ArrayFamily


def _indexed_subscript(cls, key):  # wp.indexedarray[float], wp.indexedarray[float, 2]
    if isinstance(key, tuple):
        dtype, ndim = key
        return IndexedArrayAnnotation(dtype, ndim if ndim is typing.Any else literal_int(ndim, "an array's ndim"))
    return IndexedArrayAnnotation(key, getattr(cls, "_default_ndim", 1))


class indexedarray(ArrayArithmetic, ArrayFamily):
    """`data` (a wp.array) seen through `indices`: a list with one int32 wp.array (or None) per
    dimension of `data`."""

    _default_ndim = 1
    _wp_indexedarray_ = True
    _wp_family_root_ = True  # a native array family (arrays/family.py: native_family)
    _wp_subscriptable_ = True  # wp.indexedarray[float] (not a user's subclass: arrays/family.py)
    _subscript_type = classmethod(_indexed_subscript)

    def __new__(cls, data=None, indices=None, dtype=types.Any, ndim=None, **subclass_kwargs):
        if data is None and "_wp_subscriptable_" in cls.__dict__:  # an annotation: wp.indexedarray(dtype=float)
            return IndexedArrayType(dtype, ndim or cls._default_ndim)
        return super().__new__(cls)

    def __ctype__(self):
        """The kernel descriptor as a ctypes structure of its 64-bit words (Warp's name)."""
        return make_words_descriptor(self, self._desc)

    def __init__(self, data=None, indices=None, dtype=types.Any, ndim=None):
        if not getattr(type(data), "_wp_array_", False):
            raise TypeError(f"wp.indexedarray(data, indices) indexes a wp.array, got {type(data).__name__}")
        if getattr(type(indices), "_wp_array_", False):  # one index array: the first dimension's
            indices = [indices]
        indices = list(indices) if indices is not None else []
        if len(indices) > data.ndim:
            raise ValueError(f"wp.indexedarray: {len(indices)} index arrays for a {data.ndim}-D array")
        indices += [None] * (data.ndim - len(indices))
        for d, idx in enumerate(indices):
            if idx is not None and (not getattr(type(idx), "_wp_array_", False) or idx.ndim != 1
                                    or idx.dtype is not types.int32 or idx.device != data.device):
                raise TypeError(f"wp.indexedarray: the indices of dimension {d} must be a 1-D int32 wp.array on "
                                f"{data.device.alias}")
        self.data, self.indices = data, indices
        self.dtype, self.ndim, self.device = data.dtype, data.ndim, data.device
        self.shape = tuple(data.shape[d] if idx is None else idx.shape[0] for d, idx in enumerate(indices))
        # what a kernel argument packs: the array's descriptor, the index pointers, the shape
        self._desc = data._desc + tuple((idx.ptr or 0) if idx is not None else 0 for idx in indices) + self.shape

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def is_contiguous(self) -> bool:
        """Never: its elements are wherever the indices point (as Warp reports it)."""
        return False

    @property
    def type(self) -> IndexedArrayType:
        return IndexedArrayType(self.dtype, self.ndim)

    def _positions(self):
        return np.ix_(*[np.arange(n) if idx is None else idx.numpy() for n, idx in zip(self.data.shape, self.indices)])

    def numpy(self) -> np.ndarray:
        """The indexed elements, gathered (a copy)."""
        return self.data.numpy()[self._positions()]

    def list(self) -> list:
        return [v for v in self.numpy().reshape((-1,) + types.numpy_inner_shape(self.dtype)).tolist()]

    @property
    def requires_grad(self) -> bool:
        return self.data.requires_grad

    def contiguous(self) -> array:
        """The indexed elements gathered into a new contiguous wp.array."""
        out = empty_array(self.shape, self.dtype, self.device, self.requires_grad, False)
        if self.size:
            out.assign(self.numpy())
        return out

    def assign(self, src) -> None:
        """Write values (an array, indexed array, numpy array or sequence of this shape) to the
        indexed elements."""
        if self.size == 0:
            return
        staged = empty_array(self.shape, self.dtype, self.device, False, False)  # converts `src` as an array would
        # (values, also from an array: an indexed array converts them, where Warp's copy refuses another
        # element size and copies the bytes of one of the same size)
        staged.assign(src.numpy() if isinstance(src, indexedarray) or getattr(src, "_wp_array_", False) else src)
        self._scatter(staged)

    def fill_(self, value) -> None:
        if self.size == 0:
            return
        _refuse_in_capture("fill_")
        staged = empty_array(self.shape, self.dtype, self.device, False, False)  # converts `value` as an array's fill_ does
        staged.fill_(value)
        self._scatter(staged)

    def zero_(self) -> None:
        if self.size:
            _refuse_in_capture("zero_")
            staged = empty_array(self.shape, self.dtype, self.device, False, False)
            staged.zero_()
            self._scatter(staged)

    def _scatter(self, staged: array) -> None:
        full = self.data.numpy().copy()
        full[self._positions()] = staged.numpy()
        self.data.assign(full)

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        return f"wp.indexedarray(shape={self.shape}, dtype={types.type_name(self.dtype)})"


def _fixed(ndim: int):
    cls = type(f"indexedarray{ndim}d", (indexedarray,), {"_default_ndim": ndim, "_wp_subscriptable_": True})
    return cls


indexedarray1d, indexedarray2d, indexedarray3d, indexedarray4d = (_fixed(n) for n in (1, 2, 3, 4))


def _refuse_in_capture(what: str) -> None:
    """A scatter through indices is not recorded by wp.ScopedCapture (it would run once, now, and not on
    replay): refused, as Warp refuses it."""
    from ..runtime import recording
    if recording.capture is not None:
        raise NotImplementedError(f"indexedarray.{what}() cannot be captured in a graph; fill the underlying array, "
                                  "or run it outside the capture")
