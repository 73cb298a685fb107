"""Warp's public type queries and conversions (`wp.types.type_is_vector`, `wp.dtype_from_numpy`,
`wp.types.type_size`, ...): thin names over warp_nb's own type predicates, so programs and
tests written for Warp find them where Warp puts them."""

from __future__ import annotations

import numpy as np

from . import composite as _c
from . import scalars as _s
from .array_type import ArrayType, fixedarray
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


# Warp 1.19's split: type_is_X(t) holds for a type (a class: wp.vec3, int, wp.array, a @wp.struct,
# wp.tile), is_X(x) for a value of one (wp.vec3(...), 1.5, an array, a struct instance). As in Warp,
# an annotation object (wp.array(dtype=float), wp.array[float], wp.tile(dtype=float, shape=...)) is a
# value, not a type.
def type_is_int(t) -> bool:
    return isinstance(t, type) and _s.is_int_type(_s.canonical_scalar(t))


def type_is_float(t) -> bool:
    return isinstance(t, type) and _s.is_float_type(_s.canonical_scalar(t))


def type_is_scalar(t) -> bool:
    return isinstance(t, type) and _s.is_scalar_type(_s.canonical_scalar(t))


def type_is_vector(t) -> bool:
    return isinstance(t, type) and _c.kind_of(t) == "vector"


def type_is_matrix(t) -> bool:
    return isinstance(t, type) and _c.kind_of(t) == "matrix"


def type_is_quaternion(t) -> bool:
    return isinstance(t, type) and _c.kind_of(t) == "quaternion"


def type_is_transformation(t) -> bool:
    return isinstance(t, type) and _c.kind_of(t) == "transformation"


def type_is_composite(t) -> bool:
    return isinstance(t, type) and _c.is_composite_type(t)


def type_is_struct(t) -> bool:
    return bool(getattr(t, "_wp_struct_", False)) and hasattr(t, "fields")  # (a @wp.struct: a StructType)


def type_is_array(t) -> bool:
    """wp.array, wp.indexedarray, wp.fabricarray, wp.fixedarray (and classes deriving from them)."""
    return isinstance(t, type) and (bool(getattr(t, "_wp_array_", False)) or issubclass(t, fixedarray)
                                    or getattr(t, "_wp_family_root_", None) is not None)


def type_is_value(t) -> bool:
    return type_is_scalar(t) or type_is_composite(t) or t in (int, float, bool)


def type_is_tile(t) -> bool:
    return bool(getattr(t, "_wp_tile_class_", False))  # wp.tile


def _of_value(pred):
    return lambda x: not isinstance(x, type) and pred(type(x))


is_int = _of_value(type_is_int)
is_float = _of_value(type_is_float)
is_scalar = _of_value(type_is_scalar)
is_vector = _of_value(type_is_vector)
is_matrix = _of_value(type_is_matrix)
is_quaternion = _of_value(type_is_quaternion)
is_transformation = _of_value(type_is_transformation)
is_composite = _of_value(type_is_composite)
is_value = _of_value(type_is_value)


def is_struct(x) -> bool:
    return not type_is_struct(x) and type_is_struct(getattr(x, "_struct", None))


def is_array(x) -> bool:
    return isinstance(x, ArrayType) or (not isinstance(x, type) and type_is_array(type(x)))


def is_tile(x) -> bool:
    return isinstance(x, TileType) or isinstance(getattr(x, "type", None), TileType)


def type_length(t) -> int:
    """Number of scalars in a scalar or composite type."""
    return 1 if type_is_scalar(t) else int(np.prod(t._shape_))


def type_scalar_type(t):
    """The scalar type of a composite (its own type for a scalar)."""
    t = _s.canonical_scalar(t)
    return getattr(t, "_wp_scalar_type_", t)


def type_repr(t) -> str:
    """A type's name as Warp writes it (a long vector or a large matrix by its shape; see warp_repr)."""
    from . import type_name
    from .composite import is_composite_type, warp_repr
    return warp_repr(t) if is_composite_type(t) else type_name(t)


def types_equal(a, b, match_generic: bool = False) -> bool:
    """Whether two types are the same (int and wp.int32, float and wp.float32 are)."""
    from typing import Any
    a, b = _s.canonical_scalar(a), _s.canonical_scalar(b)
    if match_generic and (a is Any or b is Any):
        return True
    return a is b or a == b
