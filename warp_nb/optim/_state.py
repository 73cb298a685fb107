"""What Adam and SGD share: checking parameters and gradients with Warp's messages, the state
dtype for a parameter dtype, keeping (or moving) state buffers when parameters are set again,
and the scalar views the update kernels work on."""

from __future__ import annotations

from .. import types as T
from ..arrays.array import array
from ..arrays.create import zeros

_FLOAT_SCALARS = (T.float16, T.float32, T.float64)


def state_dtype(dtype):
    """float16 parameters keep float32 state; other float types keep their own."""
    scalar = T.scalar_type_of(dtype)
    if scalar is not T.float16:
        return dtype
    kind = T.kind_of(dtype)
    if kind == "vector":
        return T.vector(T.type_length(dtype), T.float32)
    if kind == "matrix":
        return T.matrix(T.numpy_inner_shape(dtype), T.float32)
    return T.float32


def check_param(owner: str, p) -> None:
    if not isinstance(p, array):
        raise TypeError(f"{owner} parameters must be warp arrays, got {type(p).__name__}")
    if T.scalar_type_of(p.dtype) not in _FLOAT_SCALARS:
        raise TypeError(f"{owner} parameters must have a float16, float32 or float64 element type, got "
                        f"{T.type_name(p.dtype)}")
    if not p.is_contiguous:
        raise ValueError(f"{owner} parameters must be contiguous arrays (pass a .contiguous() copy and read it back)")


def check_grads(owner: str, params, grads) -> None:
    if params is None:
        raise RuntimeError(f"{owner} parameters must be set before calling step(), got None")
    if len(grads) != len(params):
        raise ValueError(f"{owner} step() needs one gradient per parameter array ({len(params)}), got {len(grads)}")
    for p, g in zip(params, grads):
        if not (g.dtype is p.dtype or T.types_equal(g.dtype, p.dtype)):
            raise TypeError(f"{owner} gradient dtype must match parameter dtype {T.type_name(p.dtype)}, got "
                            f"{T.type_name(g.dtype)}")
        if tuple(g.shape) != tuple(p.shape):
            raise ValueError(f"{owner} gradient shape must match parameter shape {tuple(p.shape)}, got "
                             f"{tuple(g.shape)}")


def keep_or_make(old: list, params: list) -> list:
    """One state buffer per parameter: the old buffer at that position when it fits (moved to the
    parameter's device if the parameter moved), else a new zeroed one."""
    out = []
    for i, p in enumerate(params):
        dtype = state_dtype(p.dtype)
        prev = old[i] if i < len(old) else None
        if prev is not None and tuple(prev.shape) == tuple(p.shape) and T.types_equal(prev.dtype, dtype):
            out.append(prev if prev.device == p.device else prev.to(p.device))
        else:
            out.append(zeros(p.shape, dtype=dtype, device=p.device))
    return out


def scalars(a: array) -> array:
    """The scalars of a contiguous array, as a one-dimensional array sharing its memory."""
    if not a.is_contiguous:
        a = a.contiguous()
    n = a.size * T.type_length(a.dtype)
    return array(ptr=a.ptr, dtype=T.scalar_type_of(a.dtype), shape=(n,), device=a.device, owner=a)
