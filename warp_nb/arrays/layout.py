"""How data becomes an array's memory: shapes checked, data read as whole vector or matrix elements, contiguous strides, the element type of
untyped data, numpy data in an element type's layout (bfloat16 as its bits), and whether numpy
memory can be used in place. Used by arrays/array.py and the array factories."""

from __future__ import annotations

import math

import numpy as np

from .. import types
from ..errors import ArgumentTypeError, ArgumentValueError
from ..types import scalars
from ..types.native_types import native_info, native_values_to_numpy
from ..types.scalars import canonical_scalar, is_scalar_type, scalar_from_numpy


def _shape_tuple(shape) -> tuple:
    if shape is None:
        raise ValueError("an array needs a shape")
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__") \
            or not all(isinstance(s, (int, np.integer)) for s in shape):
        raise TypeError(f"an array shape is an int or a tuple of ints, got {shape!r}")
    return tuple(int(s) for s in shape)


#: the largest length of one dimension: kernels index arrays with int32, as Warp's do
MAX_DIM_LENGTH = 2**31 - 1


def check_dim_lengths(shape) -> None:
    """Refuse a shape with a negative dimension or one that an int32 index cannot reach (before
    anything is allocated: wp.zeros(2**31) must not first take 2 GiB)."""
    if any(int(s) < 0 for s in shape):
        raise ValueError(f"Array shapes must be non-negative, got {tuple(shape)}")
    if any(int(s) > MAX_DIM_LENGTH for s in shape):
        raise ValueError(f"Array shapes must not exceed the maximum representable value of a signed 32-bit "
                         f"integer ({MAX_DIM_LENGTH}), got {tuple(int(s) for s in shape)}")


def _contiguous_strides(shape, elem: int) -> tuple:
    strides, acc = [], elem
    for s in reversed(shape):
        strides.append(acc)
        acc *= s  # as Warp: the strides before a zero dimension are 0
    return tuple(reversed(strides))


def _resolve_dtype(dtype, data=None):
    if dtype is types.Any or dtype is None:
        if data is None:
            return types.float32
        arr_dtype = getattr(data, "dtype", None)
        if isinstance(arr_dtype, np.dtype) and scalar_from_numpy(arr_dtype):
            return scalar_from_numpy(arr_dtype)
        try:
            found = np.asarray(data).dtype
            if found.kind == "O":  # a numpy array of Python numbers: their type (Warp refuses object arrays)
                found = np.asarray(np.asarray(data, dtype=object).tolist()).dtype
        except (TypeError, ValueError, OverflowError) as e:
            raise _conversion_error(e, data, "float64") from None
        if found.kind in "OUSV":  # (a list of wp.int32 objects, strings): as Warp, no type is guessed
            raise ArgumentTypeError(f"Unsupported input data dtype: {found} (give dtype=, e.g. dtype=wp.int32)")
        return scalar_from_numpy(found) or types.float64
    dtype = canonical_scalar(dtype)
    if not (is_scalar_type(dtype) or types.is_composite_type(dtype) or hasattr(dtype, "numpy_dtype")
            or native_info(dtype) is not None):
        raise TypeError(f"{dtype!r} is not an array element type; use a scalar, vector, matrix or @wp.struct type")
    return dtype


def _as_numpy(src, dtype) -> np.ndarray:
    """`src` as a numpy array with this dtype's numpy layout (copying only if it must)."""
    if native_info(dtype) is not None:  # a C++ type of the user's (wp.build_experimental)
        return native_values_to_numpy(dtype, src)
    np_dtype = types.numpy_dtype(dtype)
    if types.scalar_type_of(dtype) is types.bfloat16:
        return _as_bfloat16_bits(src)
    if hasattr(dtype, "numpy_value") and not isinstance(src, np.ndarray):
        return np.array([dtype.numpy_value(v) for v in src], dtype=np_dtype)
    if isinstance(src, np.ndarray) and src.dtype == np_dtype:
        return src
    try:
        return np.asarray(src, dtype=np_dtype)
    except (TypeError, ValueError, OverflowError) as e:
        raise _conversion_error(e, src, types.type_name(dtype)) from None


def _conversion_error(e: Exception, src, type_name: str) -> Exception:
    """numpy's refusal to read `src`: as Warp, also a RuntimeError (ragged lists, integers out of range)."""
    cls = ArgumentTypeError if isinstance(e, TypeError) else ArgumentValueError
    return cls(f"cannot convert {type(src).__name__} to an array of {type_name}: {e}")


def _as_bfloat16_bits(src) -> np.ndarray:
    """Data for a bfloat16 array, as Warp reads it: a uint16 numpy array holds the bits already
    (what .numpy() gives back); anything else holds values, rounded to bfloat16."""
    if isinstance(src, np.ndarray) and src.dtype == np.uint16:
        return src
    if isinstance(src, np.ndarray) and src.dtype == scalars.ml_dtypes_bfloat16():
        return src.view(np.uint16)  # ml_dtypes' bfloat16 (what .numpy() gives back with it): the same bits
    if isinstance(src, np.ndarray):
        return scalars.floats_to_bfloat16_bits(src)
    try:
        values = np.asarray(src, dtype=np.float32)
    except (TypeError, ValueError) as e:
        raise _conversion_error(e, src, "bfloat16") from None
    return scalars.floats_to_bfloat16_bits(values)


def _can_alias(src: np.ndarray, dtype) -> bool:
    """Whether `src` can be used in place: same element layout, aligned, inner dims packed."""
    inner = types.numpy_inner_shape(dtype)
    packed = _contiguous_strides(inner, src.dtype.itemsize)
    if inner and tuple(src.strides[src.ndim - len(inner):]) != packed:
        return False
    return src.dtype == types.numpy_dtype(dtype) and src.ctypes.data % src.dtype.itemsize == 0


def _check_alloc_strides(shape, strides) -> tuple:
    """Strides for a new allocation: one non-negative byte count per dimension."""
    strides = (int(strides),) if isinstance(strides, int) else tuple(int(s) for s in strides)
    if len(strides) != len(shape):  # (Warp's wording, which its tests match)
        raise ValueError(f"Invalid number of strides, expected {len(shape)} strides, got {len(strides)}: strides "
                         f"{strides} do not fit shape {tuple(shape)} (one byte stride per dimension)")
    if any(s < 0 for s in strides):
        raise NotImplementedError(f"Negative strides are not supported for newly allocated arrays (strides "
                                  f"{strides}): give each dimension a non-negative byte stride")
    return strides


def as_whole_elements(src_np: np.ndarray, inner: tuple, dtype) -> np.ndarray:
    """Data whose last dimensions are not the `inner` shape of a vector or matrix dtype, read as Warp
    reads it: trailing dimensions of length 1 are dropped ((n, 3, 1) as vec3: n vectors, from columns),
    then a last dimension of k whole elements becomes k elements ((4, 6) as vec3: (4, 2); (4, 9) as
    mat33: (4,); flat (9,) as vec3: (3,)). Rows that would split an element are refused."""
    shape = src_np.shape
    while len(shape) > 1 and shape[-1] == 1 and shape[len(shape) - len(inner):] != inner:
        shape = shape[:-1]
    if shape[len(shape) - len(inner):] == inner:
        return src_np.reshape(shape)
    per = math.prod(inner)
    if not shape or shape[-1] % per:
        raise ArgumentValueError(f"The inner dimensions of the input data are not compatible with the requested "
                         f"{types.type_name(dtype)} type: data of shape {src_np.shape} has rows of "
                         f"{shape[-1] if shape else 0} values, which do not hold whole elements of shape {inner}")
    k = shape[-1] // per
    outer = (k,) if len(shape) == 1 else shape[:-1] if k == 1 else shape[:-1] + (k,)
    return src_np.reshape(outer + inner)
