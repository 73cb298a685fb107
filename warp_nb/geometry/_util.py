"""Input checks shared by the geometry classes: everything is validated in Python, before any
native code or kernel touches the data, and bad input raises a ValueError/TypeError that says
what is wrong and where."""

from __future__ import annotations

import importlib

import numpy as np

from .. import types as T
from ..arrays.array import array


def as_vec3_array(value, what: str):
    """(wp.array of vec3f, its (n, 3) float32 numpy view). Accepts a wp.array of vec3f or float32
    shape (n, 3), or anything numpy reads as (n, 3) (copied into a new wp.array)."""
    if isinstance(value, array):
        if value.device.is_cuda:
            raise ValueError(f"{what}: CUDA arrays are not supported by warp_nb's geometry yet; use device='cpu'")
        if value.dtype is T.vec3f and value.ndim == 1:
            arr = value
        elif value.dtype is T.float32 and value.ndim == 2 and value.shape[1] == 3:
            arr = array(ptr=value.ptr, dtype=T.vec3f, shape=(value.shape[0],), strides=(value.strides[0],),
                        device=value.device, owner=value)
        else:
            raise TypeError(f"{what} must be a wp.array of wp.vec3 (float32), got {T.type_name(value.dtype)} with "
                            f"shape {value.shape}")
        if not arr.is_contiguous:
            raise ValueError(f"{what} must be contiguous (pass a.contiguous() or wp.clone(a))")
    else:
        data = np.ascontiguousarray(np.asarray(value, dtype=np.float32))
        if data.ndim != 2 or data.shape[1] != 3:
            raise TypeError(f"{what} must have shape (n, 3), got {data.shape}")
        arr = array(data, dtype=T.vec3f)
    view = arr.numpy().reshape(-1, 3) if arr.shape[0] else np.zeros((0, 3), np.float32)
    return arr, view


def as_int_array(value, what: str):
    """(wp.array of int32 (1-D, contiguous), its numpy view)."""
    if isinstance(value, array):
        if value.dtype is not T.int32:
            raise TypeError(f"{what} must be a wp.array of int32, got {T.type_name(value.dtype)}")
        arr = value if value.ndim == 1 else value.reshape((value.size,))
        if not arr.is_contiguous:
            raise ValueError(f"{what} must be contiguous")
    else:
        data = np.asarray(value)
        if data.size and not np.issubdtype(data.dtype, np.integer):
            raise TypeError(f"{what} must hold integers, got {data.dtype}")
        arr = array(np.ascontiguousarray(data.reshape(-1), dtype=np.int32), dtype=T.int32)
    view = arr.numpy().reshape(-1) if arr.shape[0] else np.zeros(0, np.int32)
    return arr, view


def check_finite(view: np.ndarray, what: str) -> None:
    if view.size and not np.isfinite(view).all():
        bad = int(np.argwhere(~np.isfinite(view).reshape(view.shape[0], -1).all(axis=1))[0, 0])
        raise ValueError(f"{what} holds non-finite values (first at index {bad}: {view[bad].tolist()})")


def optional_module(name: str, feature: str, package: str, extra: str):
    """Import `name`, which `feature` needs from the optional `package` (the `extra` installs it),
    or raise an ImportError that says how to install it."""
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise ImportError(f"warp_nb's {feature} needs {package}: pip install 'warp_nb[{extra}]' "
                          f"(or pip install {package}) ({e})") from None
