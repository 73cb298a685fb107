"""What the framework bridges (torch.py, paddle.py) share: the descriptor a kernel receives for an
array as a ctypes structure (Warp's `array_t`, what `from_torch(..., return_ctype=True)` and
`from_paddle(..., return_ctype=True)` return, for code that packs kernel arguments itself), and the
scalar type an array is shared as."""

from __future__ import annotations

import ctypes

from .. import types as T
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


def shared_scalar(warp_dtype):
    """The scalar type a framework shares `warp_dtype` as: unsigned types wider than 8 bits as the
    signed type of their size (frameworks do few operations on those), as Warp's dtype_to_* do."""
    scalar = T.canonical_scalar(warp_dtype)
    return {T.uint16: T.int16, T.uint32: T.int32, T.uint64: T.int64}.get(scalar, scalar)
