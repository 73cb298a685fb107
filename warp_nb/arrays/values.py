"""One element's value as `a.fill_(value)`, `wp.full` and `wp.full_like` take it, converted as Warp
converts it (through the element type's constructor): integer elements refuse floats and keep the
low bits of integers that do not fit (`wp.full(n, -1, dtype=wp.uint32)` is all ones, a common
marker), a matrix takes its rows or its components flat, a vector or matrix takes one scalar for
every component. Errors are ValueErrors, as Warp's."""

from __future__ import annotations

import numpy as np

from .. import types
from ..types import scalars


def element_numpy(dtype, value) -> np.ndarray:
    """One element of `dtype` holding `value`, in the dtype's numpy layout."""
    np_dtype = types.numpy_dtype(dtype)
    if hasattr(dtype, "numpy_value"):  # a struct
        return np.array(dtype.numpy_value(value), dtype=np_dtype)
    inner = types.numpy_inner_shape(dtype)
    what = f"Failed to convert the value {value!r} to the array data type {types.type_name(dtype)}"
    if types.is_composite_type(type(value)):
        value = value.__array__()  # not np.asarray: a float16 composite's buffer holds the bits
    raw = _plain(getattr(value, "value", value))
    if raw.dtype.kind in "USV" or (raw.dtype.kind == "O" and not all(isinstance(v, int) for v in raw.flat)):
        raise ValueError(f"{what}: not a number")
    if not inner and raw.ndim:
        raise ValueError(f"{what}: cannot broadcast a non-scalar to a scalar array")
    if types.scalar_type_of(dtype) is types.bfloat16:
        floats = np.asarray(raw, dtype=np.float32)
        values = np.asarray(scalars.floats_to_bfloat16_bits(floats)).reshape(floats.shape)  # a scalar stays 0-d
    elif np.dtype(np_dtype).kind in "iu":
        if raw.dtype.kind in "fc":
            raise ValueError(f"{what}: an integer element takes integers, not floats (round or cast first)")
        values = _wrapped(raw, np.dtype(np_dtype))
    else:
        with np.errstate(over="ignore"):  # (1e6 as float16 is inf, as in Warp)
            values = raw.astype(np_dtype)
    if inner and values.size == 1 and not types.scalar_type_of(dtype) is types.bfloat16:
        values = values.reshape(())  # as Warp: one value ([x], [[x]]) for every component
    if len(inner) == 2 and values.ndim == 1:
        if values.size != int(np.prod(inner)):  # (Warp reads a 1-D value as the matrix's rows)
            raise ValueError(f"{what}: a matrix of shape {inner} takes its rows or its {int(np.prod(inner))} "
                             f"components, got {values.size} values")
        values = values.reshape(inner)  # a matrix given flat
    if values.ndim and values.shape != inner:
        raise ValueError(f"{what}: expected {inner} components, got a value of shape {values.shape}")
    return np.broadcast_to(values, inner).copy()


def _plain(value) -> np.ndarray:
    """The value as a numpy array of numbers (wp scalars in a list read as their numbers; Python
    integers of any size kept exact, as objects, until they are wrapped)."""
    if isinstance(value, (list, tuple)):
        value = [_plain(v) for v in value]
        return np.array(value) if not any(v.dtype == object for v in value) else np.array(value, dtype=object)
    if isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**64:
        return np.array(value, dtype=object)
    if isinstance(value, np.ndarray):
        return value
    return np.asarray(getattr(value, "value", value))


def _wrapped(raw: np.ndarray, np_dtype: np.dtype) -> np.ndarray:
    """Integers as an integer type of `np_dtype`, keeping their low bits (as Warp's ctypes do)."""
    if raw.dtype.kind == "b":
        return raw.astype(np_dtype)
    bits = np_dtype.itemsize * 8
    flat = [int(v) % (1 << bits) for v in raw.reshape(-1).tolist()]
    if np_dtype.kind == "i":
        flat = [v - (1 << bits) if v >= 1 << (bits - 1) else v for v in flat]
    return np.array(flat, dtype=np_dtype).reshape(raw.shape)
