"""Warp's array constructors and copies: `empty`, `zeros`, `full`, `ones`, their `*_like` forms,
`clone`, `from_numpy` and `copy` (flattened, with offsets and counts; recorded on an active Tape).
They build on `array.py`; only `copy` validates and records (on an active Tape)."""

from __future__ import annotations

import builtins

import numpy as np

from .. import recording, types
from .array import array, copy_elements, empty_array


_KEYWORDS = {"n", "retain_grad"}


def _shape(shape, kwargs) -> object:
    """The shape argument, or Warp's older `n=` size; an unknown keyword is an error (it used to
    be ignored, so `n=5000` made an empty array)."""
    unknown = set(kwargs) - _KEYWORDS
    if unknown:
        raise TypeError(f"unexpected keyword argument {sorted(unknown)[0]!r}")
    if shape is None:
        shape = kwargs.get("n", 0)
    return shape


def empty(shape=None, dtype=types.float32, device=None, requires_grad=False, pinned=False, **kwargs) -> array:
    return empty_array(_shape(shape, kwargs), dtype, device, requires_grad, pinned, kwargs.get("retain_grad", False))


def zeros(shape=None, dtype=types.float32, device=None, requires_grad=False, pinned=False, **kwargs) -> array:
    return array(shape=_shape(shape, kwargs), dtype=dtype, device=device, requires_grad=requires_grad,
                 retain_grad=kwargs.get("retain_grad", False), pinned=pinned)


def full(shape=None, value=0, dtype=types.Any, device=None, requires_grad=False, pinned=False, **kwargs) -> array:
    if dtype is types.Any:
        if isinstance(value, builtins.bool):
            dtype = types.bool
        elif isinstance(value, int):
            dtype = types.int32
        elif isinstance(value, float):
            dtype = types.float32
        else:
            dtype = getattr(value, "_struct", type(value))  # a struct instance's type, or a composite
    a = empty(_shape(shape, kwargs), dtype, device, requires_grad=requires_grad, pinned=pinned,
              retain_grad=kwargs.get("retain_grad", False))
    a.fill_(value)
    return a


def ones(shape=None, dtype=types.float32, device=None, requires_grad=False, pinned=False, **kwargs) -> array:
    return full(_shape(shape, kwargs), 1, dtype, device, requires_grad, pinned, retain_grad=kwargs.get("retain_grad",
                                                                                                        False))


def zeros_like(src: array, device=None, requires_grad=None, pinned=None) -> array:
    rg = src.requires_grad if requires_grad is None else requires_grad
    return zeros(src.shape, src.dtype, device or src.device, rg)


def ones_like(src: array, device=None, requires_grad=None, pinned=None) -> array:
    rg = src.requires_grad if requires_grad is None else requires_grad
    return ones(src.shape, src.dtype, device or src.device, rg)


def full_like(src: array, value, device=None, requires_grad=None, pinned=None) -> array:
    rg = src.requires_grad if requires_grad is None else requires_grad
    return full(src.shape, value, src.dtype, device or src.device, rg)


def empty_like(src: array, device=None, requires_grad=None, pinned=None) -> array:
    rg = src.requires_grad if requires_grad is None else requires_grad
    return empty(src.shape, src.dtype, device or src.device, rg)


def from_numpy(arr, dtype=None, shape=None, device=None, requires_grad=False) -> array:
    return array(np.asarray(arr), dtype=dtype or types.Any, shape=shape, device=device, requires_grad=requires_grad)


def copy(dest: array, src: array, dest_offset: int = 0, src_offset: int = 0, count: int = 0) -> None:
    """Copy `count` elements (default: all of `src` after `src_offset`) from the flattened `src`
    starting at `src_offset` into the flattened `dest` starting at `dest_offset`."""
    if not isinstance(dest, array) or not isinstance(src, array):
        raise TypeError("wp.copy(dest, src) copies between two wp.array objects")
    if types.type_size_in_bytes(dest.dtype) != types.type_size_in_bytes(src.dtype):
        raise TypeError(f"cannot copy {types.type_name(src.dtype)} elements into {types.type_name(dest.dtype)}")
    count = count or (src.size - src_offset)
    if src_offset < 0 or dest_offset < 0 or src_offset + count > src.size or dest_offset + count > dest.size:
        raise ValueError(f"copy of {count} elements from offset {src_offset} (source size {src.size}) to offset "
                         f"{dest_offset} (destination size {dest.size}) is out of bounds")
    if count <= 0:
        return
    if recording.capture is not None:  # inside wp.ScopedCapture: replayed by capture_launch
        if not (dest.is_contiguous and src.is_contiguous):
            raise NotImplementedError("a copy between non-contiguous arrays cannot be captured; copy "
                                      "contiguous arrays (a.contiguous()) or run it outside the capture")
        recording.capture.record(lambda: copy_elements(dest, src, dest_offset, src_offset, count))
        return
    copy_elements(dest, src, dest_offset, src_offset, count)
    _record_copy(dest, src, dest_offset, src_offset, count)


def _record_copy(dest, src, dest_offset, src_offset, count) -> None:
    if recording.tape is not None:
        recording.tape.record_copy(dest, src, dest_offset, src_offset, count)
