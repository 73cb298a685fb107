"""The descriptor a kernel receives for an array, as a ctypes structure (Warp's `array_t`): what
`from_torch(..., return_ctype=True)` and `from_paddle(..., return_ctype=True)` return, for code
that packs kernel arguments itself."""

from __future__ import annotations

import ctypes

from ..arrays.array import array


class array_t(ctypes.Structure):
    """Data and grad addresses, shape, strides in bytes, dimensions."""
    _fields_ = [("data", ctypes.c_uint64), ("grad", ctypes.c_uint64), ("shape", ctypes.c_int32 * 4),
                ("strides", ctypes.c_int32 * 4), ("ndim", ctypes.c_int32)]


def descriptor(a: array) -> array_t:
    d = array_t()
    d.data, d.grad, d.ndim = a.ptr or 0, (a.grad.ptr or 0 if a.grad is not None else 0), a.ndim
    for k, (n, s) in enumerate(zip(a.shape, a.strides)):
        d.shape[k], d.strides[k] = n, s
    return d
