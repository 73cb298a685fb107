"""Warp's array constructors and copies: `empty`, `zeros`, `full`, `ones`, their `*_like` forms,
`clone`, `from_numpy` and `copy` (flattened, with offsets and counts; recorded on an active Tape).
Apart from arrays.py because they build on the finished `array` class."""

from __future__ import annotations

import builtins

import numpy as np

from . import devices, types
from .arrays import _resolve_dtype, _shape_tuple, array


def empty(shape=None, dtype=types.float32, device=None, requires_grad=False, pinned=False, **kwargs) -> array:
    a = array.__new__(array, shape=shape or 0)
    a.device = devices.get_device(device)
    a.pinned = bool(pinned) and a.device.is_cpu and devices.is_cuda_available()
    a._init_alloc(_resolve_dtype(dtype), _shape_tuple(shape if shape is not None else 0), zero=False)
    a._grad = None
    a.requires_grad = requires_grad
    a.retain_grad = bool(kwargs.get("retain_grad", False))
    return a


def zeros(shape=None, dtype=types.float32, device=None, requires_grad=False, pinned=False, **kwargs) -> array:
    return array(shape=shape if shape is not None else 0, dtype=dtype, device=device, requires_grad=requires_grad,
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
    a = empty(shape, dtype, device, requires_grad=requires_grad, **kwargs)
    a.fill_(value)
    return a


def ones(shape=None, dtype=types.float32, device=None, requires_grad=False, pinned=False, **kwargs) -> array:
    return full(shape, 1, dtype, device, requires_grad)


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


def clone(src: array, device=None, requires_grad=None, pinned=None) -> array:
    """A contiguous copy of `src` (on `device`, default: the same device)."""
    rg = src.requires_grad if requires_grad is None else requires_grad
    out = empty(src.shape, src.dtype, device or src.device, rg)
    if (out.device.is_cuda or src.device.is_cuda) and src.is_contiguous:
        copy(out, src)
    elif out.device.is_cuda:
        out.assign(src.numpy())  # a strided view: gathered on the host
    else:
        out.numpy()[...] = src.numpy()
    return out


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
    if dest.device.is_cuda or src.device.is_cuda:
        from . import device_arrays
        device_arrays.copy(dest, src, dest_offset, src_offset, count)
        _record_copy(dest, src, dest_offset, src_offset, count)
        return
    s, d = src.numpy(), dest.numpy()
    if s.dtype != d.dtype:
        s = s.view(d.dtype)
    if dest.is_contiguous:
        d = d.reshape((dest.size,) + types.numpy_inner_shape(dest.dtype))
        d[dest_offset: dest_offset + count] = s.reshape(d.shape[:1] and (-1,) + d.shape[1:])[
            src_offset: src_offset + count]
    elif src.shape == dest.shape and count == src.size and not (src_offset or dest_offset):
        d[...] = s
    else:
        raise ValueError("wp.copy with offsets or a count needs a contiguous destination; "
                         "use a.contiguous() or copy whole arrays of the same shape")
    _record_copy(dest, src, dest_offset, src_offset, count)


def _record_copy(dest, src, dest_offset, src_offset, count) -> None:
    from . import recording
    if recording.tape is not None:
        recording.tape.record_copy(dest, src, dest_offset, src_offset, count)


def _element_numpy(dtype, value) -> np.ndarray:
    """One element of `dtype` holding `value`, in the dtype's numpy layout."""
    np_dtype = types.numpy_dtype(dtype)
    if hasattr(dtype, "numpy_value"):
        return np.array(dtype.numpy_value(value), dtype=np_dtype)
    inner = types.numpy_inner_shape(dtype)
    return np.broadcast_to(np.asarray(getattr(value, "value", value), dtype=np_dtype), inner).copy()
