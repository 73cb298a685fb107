"""Warp's public type queries and conversions (`wp.types.type_is_vector`, `wp.dtype_from_numpy`,
`wp.types.type_size`, ...): thin names over warp_nb's own type predicates, so programs and
tests written for Warp find them where Warp puts them."""

from __future__ import annotations

import numpy as np

from . import composite as _c
from . import scalars as _s
from .array_type import ArrayType
from .tiles import TileType


def dtype_from_numpy(numpy_dtype):
    """The warp_nb scalar type of a numpy dtype (np.float32 -> wp.float32); ml_dtypes' bfloat16, the
    bfloat16 numpy code uses (numpy has none), is wp.bfloat16."""
    dtype = np.dtype(numpy_dtype)
    if dtype.name == "bfloat16" and type(dtype).__module__.startswith("ml_dtypes"):
        return _s.bfloat16
    t = _s.scalar_from_numpy(dtype)
    if t is None:
        raise TypeError(f"cannot convert numpy dtype {numpy_dtype} to a Warp type")
    return t


def dtype_to_numpy(warp_dtype):
    """The numpy dtype of a warp_nb scalar type (wp.float32 -> np.float32)."""
    t = _s.canonical_scalar(warp_dtype)
    if not _s.is_scalar_type(t):
        raise TypeError(f"cannot convert {warp_dtype!r} to a numpy dtype (only scalar types have one)")
    return t._np.type


def type_is_int(t) -> bool:
    return _s.is_int_type(_s.canonical_scalar(t))


def type_is_float(t) -> bool:
    return _s.is_float_type(_s.canonical_scalar(t))


def type_is_scalar(t) -> bool:
    return _s.is_scalar_type(_s.canonical_scalar(t))


def type_is_vector(t) -> bool:
    return _c.kind_of(t) == "vector"


def type_is_matrix(t) -> bool:
    return _c.kind_of(t) == "matrix"


def type_is_quaternion(t) -> bool:
    return _c.kind_of(t) == "quaternion"


def type_is_transformation(t) -> bool:
    return _c.kind_of(t) == "transformation"


def type_is_composite(t) -> bool:
    return _c.is_composite_type(t)


def type_is_struct(t) -> bool:
    return bool(getattr(t, "_wp_struct_", False))


def type_is_array(t) -> bool:
    return isinstance(t, ArrayType) or bool(getattr(type(t), "_wp_array_", False)) or bool(
        getattr(t, "_wp_array_", False))


def type_is_value(t) -> bool:
    return type_is_scalar(t) or type_is_composite(t) or t in (int, float, bool)


def type_is_tile(t) -> bool:
    return isinstance(t, TileType)


def _of_value(pred):
    return lambda x: pred(type(x)) if not isinstance(x, type) else pred(x)


is_int = _of_value(type_is_int)
is_float = _of_value(type_is_float)
is_scalar = _of_value(type_is_scalar)
is_vector = _of_value(type_is_vector)
is_matrix = _of_value(type_is_matrix)
is_quaternion = _of_value(type_is_quaternion)
is_transformation = _of_value(type_is_transformation)
is_composite = _of_value(type_is_composite)
is_struct = lambda x: type_is_struct(x) or type_is_struct(type(x))  # noqa: E731
is_array = lambda x: type_is_array(x)  # noqa: E731
is_value = _of_value(type_is_value)
is_tile = lambda x: type_is_tile(x) or type_is_tile(getattr(x, 'type', None))  # noqa: E731


def type_length(t) -> int:
    """Number of scalars in a scalar or composite type."""
    return 1 if type_is_scalar(t) else int(np.prod(t._shape_))


def type_scalar_type(t):
    """The scalar type of a composite (its own type for a scalar)."""
    t = _s.canonical_scalar(t)
    return getattr(t, "_wp_scalar_type_", t)


def type_repr(t) -> str:
    from . import type_name
    return type_name(t)


def types_equal(a, b, match_generic: bool = False) -> bool:
    """Whether two types are the same (int and wp.int32, float and wp.float32 are)."""
    from typing import Any
    a, b = _s.canonical_scalar(a), _s.canonical_scalar(b)
    if match_generic and (a is Any or b is Any):
        return True
    return a is b or a == b
