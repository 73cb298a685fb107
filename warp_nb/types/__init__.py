"""The public type vocabulary (`wp.types`): scalar types, the composite factories
`vector(length, dtype)` / `matrix(shape, dtype)`, the named aliases (vec3, mat33f, quat,
transform, ...), and small queries the compiler stages share (names for messages, sizes,
numpy layouts). Knows nothing about kernels or C++."""

from __future__ import annotations

import ctypes
from typing import Any  # noqa: F401  (re-exported: generic function arguments use typing.Any)

import numpy as np

from .composite import Composite, is_composite_type, kind_of, matrix, quaternion, transformation, vector  # noqa: F401
from .scalars import (  # noqa: F401
    FLOAT_TYPES, INT_TYPES, SCALAR_TYPES, Scalar, bfloat16, bool, canonical_scalar, float16, float32, float64, half,
    handle, int8, int16, int32, int64, is_float_type, is_int_type, is_scalar_type, scalar_from_numpy, uint8, uint16, uint32, uint64,
)

from .tiles import TileType, tile_type  # noqa: F401
from .native_types import native_info, native_numpy_dtype
from .queries import (  # noqa: F401  (Warp's public type queries)
    dtype_from_numpy, dtype_to_numpy, is_array, is_composite, is_float, is_int, is_matrix, is_quaternion, is_scalar,
    is_struct, is_tile, is_transformation, is_value, is_vector, type_is_array, type_is_composite, type_is_float,
    type_is_int, type_is_matrix, type_is_quaternion, type_is_scalar, type_is_struct, type_is_tile,
    type_is_transformation, type_is_value, type_is_vector, type_repr, type_scalar_type, types_equal,
)

_FLOATS = {"h": float16, "f": float32, "d": float64}
_ALL_ELEMS = {**_FLOATS, "i": int32, "ui": uint32, "b": int8, "ub": uint8, "s": int16, "us": uint16,
              "l": int64, "ul": uint64}

vec2, vec3, vec4 = vector(2), vector(3), vector(4)
for _n in (2, 3, 4):
    for _s, _t in _ALL_ELEMS.items():
        globals()[f"vec{_n}{_s}"] = vector(_n, _t)
    for _s, _t in _FLOATS.items():
        globals()[f"mat{_n}{_n}{_s}"] = matrix((_n, _n), _t)
    globals()[f"mat{_n}{_n}"] = matrix((_n, _n))

quat, quatf, quatd, quath = quaternion(), quaternion(float32), quaternion(float64), quaternion(float16)
transform, transformf, transformd, transformh = (
    transformation(), transformation(float32), transformation(float64), transformation(float16))
spatial_vector, spatial_vectorf, spatial_vectord, spatial_vectorh = (
    vector(6), vector(6, float32), vector(6, float64), vector(6, float16))
spatial_matrix, spatial_matrixf, spatial_matrixd, spatial_matrixh = (
    matrix((6, 6)), matrix((6, 6), float32), matrix((6, 6), float64), matrix((6, 6), float16))


def scalar_type_of(t):
    """The element scalar type of a scalar or composite type."""
    # only composites carry _wp_scalar_type_, as in Warp (whose tests tell scalars from vectors by it)
    return t if is_scalar_type(t) else getattr(t, "_wp_scalar_type_", None)


def type_length(t) -> int:
    """Number of scalars in a scalar or composite type (a struct counts as one record)."""
    if is_scalar_type(t) or not hasattr(t, "_shape_"):
        return 1
    return int(np.prod(t._shape_))


def type_size_in_bytes(t) -> int:
    if is_scalar_type(t):
        return ctypes.sizeof(t._type_)
    return ctypes.sizeof(getattr(t, "ctype", t))  # structs keep their layout in .ctype


def numpy_dtype(t) -> np.dtype:
    """The numpy dtype of one element of an array of `t` (composites use their scalar dtype
    and add trailing dimensions, see `numpy_inner_shape`)."""
    if is_scalar_type(t):
        return t._np
    if is_composite_type(t):
        return t._wp_scalar_type_._np
    if hasattr(t, "numpy_dtype"):  # structs: their ctypes layout
        return np.dtype(t.ctype)
    if native_info(t) is not None:  # a C++ type of the user's (wp.build_experimental.add_native_type)
        return native_numpy_dtype(t)
    raise TypeError(f"{type_name(t)} has no numpy equivalent")


def numpy_inner_shape(t) -> tuple:
    return tuple(t._shape_) if is_composite_type(t) else ()


def type_name(t) -> str:
    """How a type is shown to users in messages: float32, vec3f, mat33d, array(dtype=vec3f, ndim=1)."""
    if t is None:
        return "None"
    name = getattr(t, "type_name", None)
    if callable(name):
        return name()
    if isinstance(t, type):
        return t.__name__
    return repr(t)


def type_size(t) -> int:
    """Warp's name: the number of scalars in a scalar or composite type."""
    return type_length(t)


def type_ctype(dtype):
    """The ctypes type of one value of `dtype` (Warp's): c_float for float32, c_uint16 for the
    16-bit floats (their bits), the vector or matrix type itself (a ctypes array), a struct's own
    type; what a kernel's argument struct holds for a parameter of that type."""
    from .structs import field_ctype
    if is_composite_type(dtype):  # a matrix too, as Warp's (a struct's field holds it as nested arrays for numpy)
        return dtype
    return field_ctype(dtype)
