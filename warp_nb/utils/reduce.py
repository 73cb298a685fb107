"""`wp.utils.array_sum` and `wp.utils.array_inner`: sums and inner products of float arrays
(float32/float64 and vectors or matrices of them), over the whole array or along one axis, as
warp_nb kernels so they run on any device.

A whole-array reduction is two launches: P threads each sum a strided share of the elements
(P <= 1024), then one thread sums the P partials. An axis reduction sees the array as
(outer, axis, inner) and gives each (outer, inner) pair one thread that walks the axis."""

from typing import Any

import numpy as np

import warp_nb as wp

from .. import types as T
from ..arrays.array import array
from ._common import FLOAT_SCALARS, check_same_device, flat, kernel_per_dtype, name, same_type, scalar_of

_PARTIALS = 1024


@kernel_per_dtype
def _sum_kernels(dtype):
    def partial_sum(values: wp.array(dtype=dtype), n: int, p: int, out: wp.array(dtype=dtype)):
        t = wp.tid()
        s = dtype()
        for i in range(t, n, p):
            s = s + values[i]
        out[t] = s

    def axis_sum(values: wp.array3d(dtype=dtype), count: int, out: wp.array2d(dtype=dtype)):
        o, k = wp.tid()
        s = dtype()
        for j in range(count):
            s = s + values[o, j, k]
        out[o, k] = s

    key = name(dtype)
    return (wp.kernel(partial_sum, key=f"array_sum_partial_{key}", enable_backward=False),
            wp.kernel(axis_sum, key=f"array_sum_axis_{key}", enable_backward=False))


@kernel_per_dtype
def _products():
    """The product each element kind contributes to an inner product (generic wp.funcs)."""
    def scalar_product(a: Any, b: Any):
        return a * b

    def vector_product(a: Any, b: Any):
        return wp.dot(a, b)

    def matrix_product(a: Any, b: Any):
        return wp.ddot(a, b)

    def transform_product(a: Any, b: Any):
        return wp.dot(wp.transform_get_translation(a), wp.transform_get_translation(b)) + wp.dot(
            wp.transform_get_rotation(a), wp.transform_get_rotation(b))

    # a quaternion's or transform's inner product is the dot product of its components, as in Warp
    return {"scalar": wp.func(scalar_product), "vector": wp.func(vector_product), "matrix": wp.func(matrix_product),
            "quaternion": wp.func(vector_product), "transformation": wp.func(transform_product)}


@kernel_per_dtype
def _inner_kernels(dtype):
    scalar = scalar_of(dtype)

    product = _products()[T.kind_of(dtype) or "scalar"]

    def partial_inner(a: wp.array(dtype=dtype), b: wp.array(dtype=dtype), n: int, p: int,
                      out: wp.array(dtype=scalar)):
        t = wp.tid()
        s = scalar()
        for i in range(t, n, p):
            s = s + product(a[i], b[i])
        out[t] = s

    def axis_inner(a: wp.array3d(dtype=dtype), b: wp.array3d(dtype=dtype), count: int,
                   out: wp.array2d(dtype=scalar)):
        o, k = wp.tid()
        s = scalar()
        for j in range(count):
            s = s + product(a[o, j, k], b[o, j, k])
        out[o, k] = s

    key = name(dtype)
    return (wp.kernel(partial_inner, key=f"array_inner_partial_{key}", enable_backward=False),
            wp.kernel(axis_inner, key=f"array_inner_axis_{key}", enable_backward=False))


def _check_dtype(dtype) -> None:
    if scalar_of(dtype) not in FLOAT_SCALARS:
        raise RuntimeError(f"Unsupported data type: {name(dtype)}")


def _normalize_axis(what: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise IndexError(f"{what}() axis {axis} is out of bounds for an array with {ndim} dimensions")
    return axis % ndim


def _as_3d(a: array, axis: int) -> array:
    """a (contiguous) seen as (elements before axis, axis, elements after axis)."""
    outer = int(np.prod(a.shape[:axis], dtype=np.int64))
    inner = int(np.prod(a.shape[axis + 1:], dtype=np.int64))
    if a.ndim == 1 and not a.is_contiguous:  # a strided view read in place (a copy would not be captured)
        return array(ptr=a.ptr, dtype=a.dtype, shape=(1, a.shape[0], 1), strides=(0, a.strides[0], 0),
                     device=a.device, owner=a)
    return a.contiguous().reshape((outer, a.shape[axis], inner))


def _check_capture(what: str, out, count, *arrays) -> None:
    """Refuse what a graph capture cannot replay (as Warp): a result returned to Python, a reversed
    view (it would be copied now, once), a negative count."""
    from ..runtime import recording
    if recording.capture is None or all(a.size == 0 for a in arrays):  # (an empty input records nothing)
        return
    if out is None:
        raise NotImplementedError(f"{what}() during graph capture needs an explicit out array (its result cannot "
                                  "be returned to Python while capturing)")
    if any(s < 0 for a in arrays for s in a.strides):
        raise NotImplementedError(f"{what}() during graph capture does not support arrays with negative strides")
    if count is not None and int(count) < 0:
        raise RuntimeError(f"{what}() during graph capture got a negative count ({count})")


def _prepare_out(what, out, shape, dtype, device):
    """out checked (device, type, shape: before the input's type, as in Warp), or a new array."""
    if out is None:
        return wp.empty(shape, dtype=dtype, device=device)
    if out.device != device:
        raise RuntimeError("out storage device should match values array")
    if not same_type(out.dtype, dtype):
        raise RuntimeError(f"out array should have type {name(dtype)}")
    if tuple(out.shape) != tuple(shape):
        raise RuntimeError(f"out array should have shape {tuple(shape)}")
    return out


def _write_axis(kernel, inputs, count, out, device) -> None:
    """Launch an axis kernel writing out (shape with the axis kept as 1) through a 2-d view."""
    outer, inner = inputs[0].shape[0], inputs[0].shape[2]
    target = out if out.is_contiguous else wp.empty(out.shape, dtype=out.dtype, device=device)
    if outer * inner:
        view = target.reshape((outer, inner))
        wp.launch(kernel, (outer, inner), inputs=[*inputs, count, view], device=device)
    if target is not out:
        wp.copy(out, target)


def _whole(partial_kernel, finish_kernel, inputs, n, out, device) -> None:
    if n <= 0:  # (a negative count sums nothing, as in Warp)
        out.zero_()
        return
    p = min(n, _PARTIALS)
    partials = wp.empty(p, dtype=out.dtype, device=device)
    wp.launch(partial_kernel, p, inputs=[*inputs, n, p, partials], device=device)
    wp.launch(finish_kernel, 1, inputs=[partials, p, 1, out], device=device)


def _result(out, returned: bool):
    if returned:
        return out
    return out.numpy()[0]  # a numpy scalar (or array, for vectors): Warp's tests use .flatten() on it


def _axis_count(count, length: int) -> int:
    """How many elements along the axis: all by default, none for a negative count; a count past
    the axis is cut to it (Warp 1.19 reads on into the next rows there)."""
    return length if count is None else max(0, min(int(count), length))


def _nothing_along(count, length: int, result) -> bool:
    """Whether an axis reduction sums nothing (a count of 0, an axis of length 0): then, as in
    Warp, the result is zeroed whatever the type (a negative count goes on to the type check)."""
    if (length if count is None else int(count)) != 0:
        return False
    result.zero_()
    return True


def array_sum(values: array, out: array | None = None, value_count: int | None = None, axis: int | None = None):
    """Sum of the elements of `values` (float32/float64 scalars, vectors or matrices): a float (or
    a vector/matrix value) when axis and out are None, else `out`, shaped like values with the
    axis kept as 1. value_count limits the sum to the first elements (along axis if given); a
    negative one sums nothing. As in Warp, `out` is checked before the input's type, and a sum
    of nothing (value_count 0, an empty array without one, an axis of length 0) is zero whatever
    the type."""
    dtype, device = values.dtype, values.device
    _check_capture("array_sum", out, value_count, values)
    if axis is None:
        n = values.size if value_count is None else int(value_count)
        result = _prepare_out("array_sum", out, (1,), dtype, device) if out is not None else None
        if n == 0:  # nothing to launch (nor to record in a capture), whatever the type, as in Warp
            if out is None:
                # (an allocation, zeroed as made: wp.zeros in a capture would record a memset)
                return _result(wp.array(shape=(1,), dtype=dtype, device=device), False)
            out.zero_()
            return out
        _check_dtype(dtype)
        result = result if result is not None else wp.empty(1, dtype=dtype, device=device)
        _whole(_sum_kernels(dtype)[0], _sum_kernels(dtype)[0], [flat(values)], min(n, values.size), result, device)
        return _result(result, out is not None)
    axis = _normalize_axis("array_sum", axis, values.ndim)
    shape = tuple(1 if d == axis else s for d, s in enumerate(values.shape))
    result = _prepare_out("array_sum", out, shape, dtype, device)
    if _nothing_along(value_count, values.shape[axis], result):
        return result
    _check_dtype(dtype)
    _write_axis(_sum_kernels(dtype)[1], [_as_3d(values, axis)], _axis_count(value_count, values.shape[axis]), result,
                device)
    return result


def array_inner(a: array, b: array, out: array | None = None, count: int | None = None, axis: int | None = None):
    """Inner product of two arrays of the same shape and float type (dot products for vectors,
    quaternions and transforms, double dot products for matrices, summed): a float when axis and
    out are None, else `out` (the scalar type, shaped like the inputs with the axis kept as 1).
    count limits it to the first elements (along axis if given); a negative one sums nothing.
    As in Warp, the inner product of nothing (count 0, empty arrays without one, an axis of length
    0) is zero whatever the type (the Python float 0.0 for a whole array), and `out` is checked
    before the inputs' type."""
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"array_inner() arguments must have the same shape, got {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    check_same_device("A and b array storage devices", a, b)
    if not same_type(a.dtype, b.dtype):
        raise RuntimeError(f"A and b array data types do not match ({name(a.dtype)} vs {name(b.dtype)})")
    dtype, device = a.dtype, a.device
    _check_capture("array_inner", out, count, a, b)
    scalar = scalar_of(dtype)
    if axis is None:
        n = a.size if count is None else int(count)
        result = _prepare_out("array_inner", out, (1,), scalar, device) if out is not None else None
        if n == 0:  # nothing to launch (nor to record in a capture), whatever the type, as in Warp
            if out is None:
                return 0.0
            out.zero_()
            return out
        _check_dtype(dtype)
        result = result if result is not None else wp.empty(1, dtype=scalar, device=device)
        _whole(_inner_kernels(dtype)[0], _sum_kernels(scalar)[0], [flat(a), flat(b)], min(n, a.size), result, device)
        return _result(result, out is not None)
    axis = _normalize_axis("array_inner", axis, a.ndim)
    shape = tuple(1 if d == axis else s for d, s in enumerate(a.shape))
    result = _prepare_out("array_inner", out, shape, scalar, device)
    if _nothing_along(count, a.shape[axis], result):
        return result
    _check_dtype(dtype)
    _write_axis(_inner_kernels(dtype)[1], [_as_3d(a, axis), _as_3d(b, axis)], _axis_count(count, a.shape[axis]),
                result, device)
    return result
