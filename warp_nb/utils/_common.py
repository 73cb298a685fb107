"""What the array utilities share: argument checks with Warp's messages, flat and scalar views of
arrays, and a cache of kernels made per element type (a kernel is written once as a function of
its dtype and compiled for each dtype it meets)."""

from __future__ import annotations

import functools

from .. import types as T
from ..arrays.array import array

#: scalar types whose arrays the float reductions accept (vectors and matrices of them too)
FLOAT_SCALARS = (T.float32, T.float64)


def name(dtype) -> str:
    return T.type_name(dtype)


def scalar_of(dtype):
    return T.scalar_type_of(dtype)


def same_type(a, b) -> bool:
    return a is b or T.types_equal(a, b)


def check_same_device(what: str, a, b) -> None:
    if a.device != b.device:
        raise RuntimeError(f"{what} do not match ({a.device} vs {b.device})")


def flat(a: array) -> array:
    """A one-dimensional view of a's elements in row-major order (a contiguous copy if a is strided)."""
    if a.ndim == 1:
        return a
    return a.contiguous().flatten()


def scalar_view(a: array) -> array:
    """The scalars of a contiguous array of vectors or matrices, as a one-dimensional array."""
    src = a.contiguous()
    length = T.type_length(src.dtype)
    return array(ptr=src.ptr, dtype=scalar_of(src.dtype), shape=(src.size * length,), device=src.device, owner=src)


def kernel_per_dtype(make):
    """Decorator: make(*dtypes) builds kernels for those element types; each is built once."""
    return functools.cache(make)


def check_count(count, what: str = "count") -> int:
    if isinstance(count, bool) or not isinstance(count, int) and not hasattr(count, "__index__"):
        raise TypeError(f"{what} must be an integer, got {type(count).__name__}")
    return int(count)


def named_func(fn, suffix: str):
    """wp.func(fn) under a name of its own: functions made per dtype would otherwise become
    overloads of one function (wp.func groups defs of one name in one module)."""
    import warp_nb as wp
    fn.__qualname__ = f"{fn.__qualname__}_{suffix}"
    return wp.func(fn)
