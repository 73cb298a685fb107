"""`warp._src.types`: Warp's type tables, over warp_nb.types."""

from __future__ import annotations

import builtins
import typing

import numpy as np

from ..types import *  # noqa: F401,F403
from ..types import (  # noqa: F401
    bfloat16, bool, float16, float32, float64, int8, int16, int32, int64, matrix, quaternion, transformation, type_name,
    type_scalar_type, uint8, uint16, uint32, uint64, vector,
)
from ..types.array_type import ArrayType  # noqa: F401
from ..types.tiles import TileType  # noqa: F401
from ..types.reference import Reference  # noqa: F401  (wp.ref[T])
from ..types.scalars import SCALAR_TYPES, Scalar

scalar_base = float_base = int_base = Scalar  # warp_nb has one base class for scalar types
int_types = (int8, uint8, int16, uint16, int32, uint32, int64, uint64)
float_types = (float16, float32, float64, bfloat16)
scalar_types = int_types + float_types
scalar_and_bool_types = scalar_types + (bool,)
non_atomic_types = (int8, uint8, int16, uint16, int64)
# the vector types with public names (wp.vec3h ...): bfloat16 vectors have none, in Warp as here
vector_types = tuple(vector(n, t) for t in scalar_types if t is not bfloat16 for n in (2, 3, 4))
np_dtype_to_warp_type = {np.dtype(t._np): t for t in SCALAR_TYPES}
warp_type_to_np_dtype = {t: np.dtype(t._np) for t in SCALAR_TYPES}


def types_equal_generic(a, b) -> bool:
    """types_equal with generic matching; a tuple (T, ...) on either side matches a tuple of any
    length whose every element matches T."""
    for pattern, other in ((a, b), (b, a)):
        if isinstance(pattern, tuple) and Ellipsis in pattern:
            if len(pattern) != 2 or pattern[1] is not Ellipsis or pattern[0] is Ellipsis:
                raise TypeError(f"An ellipsis sequence pattern must contain one type followed by Ellipsis, "
                                f"got {pattern!r}")
            items = other if isinstance(other, tuple) else (other,)
            return all(types_equal_generic(pattern[0], x) for x in items if x is not Ellipsis)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(types_equal_generic(x, y) for x, y in zip(a, b))
    return types_equal(a, b, match_generic=True)


def strides_from_shape(shape, dtype) -> tuple:
    from ..types import type_size_in_bytes
    strides, acc = [], type_size_in_bytes(dtype)
    for s in reversed(tuple(shape)):
        strides.append(acc)
        acc *= s
    return tuple(reversed(strides))


_SCALAR_CODES = {int8: "i1", uint8: "u1", int16: "i2", uint16: "u2", int32: "i4", uint32: "u4", int64: "i8",
                 uint64: "u8", float16: "f2", float32: "f4", float64: "f8", bfloat16: "bf2", bool: "b"}


builtins_bool = builtins.bool  # Python's bool (this module's `bool` is wp.bool)


_FAMILY_CODES = {"indexedarray": "ia", "fabricarray": "fa", "indexedfabricarray": "ifa"}


def get_type_code(t) -> str:
    """Warp's short code of a type, as its tests spell them: f4 (float32), v3f4 (vec3f), m33f4,
    qf4, tf4, a2f4 (a 2-D float32 array), tpl2f4f4 (tuple[float, float]), tpl2v3f4? (tuple[vec3f, ...])."""
    from ..types import kind_of
    from ..types.scalars import canonical_scalar

    if typing.get_origin(t) is tuple:
        args = typing.get_args(t)
        if len(args) == 2 and args[1] is Ellipsis:
            return f"tpl2{get_type_code(args[0])}?"
        return f"tpl{len(args)}" + "".join(get_type_code(x) for x in args)
    if t is typing.Any:
        return "?"
    t = _normalize_array_argument_type(t)  # an array instance: its family's annotation
    if isinstance(t, ArrayType):  # a, ia, fa, ifa: the array family, as Warp's codes
        return f"{_FAMILY_CODES.get(t.kind, 'a')}{t.ndim}{get_type_code(t.dtype)}"
    if getattr(t, "_wp_struct_", False):
        return f"s{getattr(t, 'key', None) or t.__name__}"
    t = getattr(t, "_wp_kernel_type_", t) if isinstance(t, type) else t  # wp.Texture2D: its kernel type
    if type(t).__name__ == "TextureType":
        return f"t{t.ndim}"  # wp.Texture1D / 2D / 3D
    if isinstance(t, TileType):  # t, storage (r, s), the extents or ? for any shape, the dtype
        shape = "?" if t.shape is typing.Any else "".join(str(n) for n in t.shape)
        return f"t{t.storage[0]}{shape}{get_type_code(t.dtype)}"
    scalar = canonical_scalar(t) if t in (int, float, builtins_bool) else t
    if scalar in _SCALAR_CODES:
        return _SCALAR_CODES[scalar]
    kind = kind_of(t)
    if kind is not None:
        inner = get_type_code(t._wp_scalar_type_)
        if kind == "vector":
            return f"v{t._shape_[0]}{inner}"
        if kind == "matrix":
            return f"m{t._shape_[0]}{t._shape_[1]}{inner}"
        return {"quaternion": "q", "transformation": "t"}.get(kind, kind[0]) + inner
    raise TypeError(f"Unrecognized type '{t!r}'")


# --- names Warp's tests import from here ------------------------------------------------------

from ..types.composite import Composite  # noqa: E402
from ._internal import internal  # noqa: E402


def _literal(x, what: str = "a length") -> int:
    """Literal[3] or 3 -> 3, a positive integer."""
    from ..types.array_type import literal_int
    value = literal_int(x, what)
    if value <= 0:
        raise TypeError(f"{what} must be a positive integer, got {value}")
    return value


class _CompositeFamily(Composite):
    """Warp's generic composite classes, subscripted into concrete types: Vector[float, Literal[3]],
    Matrix[wp.float64, 2, 4], Quaternion[wp.float32], Transformation[wp.float32]. isinstance
    against them holds for every composite value, as warp_nb has one base class."""

    _make = None
    _params: tuple = ()

    def __class_getitem__(cls, key):
        key = key if isinstance(key, tuple) else (key,)
        if any(isinstance(k, typing.TypeVar) for k in key):
            # Vector[T, N] in a static type hint: a generic alias (as typing.Generic makes), not a type
            return typing._GenericAlias(cls, key)
        if len(key) != len(cls._params):
            raise TypeError(f"{cls.__name__}[...] requires {len(cls._params)} parameters "
                            f"({', '.join(cls._params)}), got {len(key)}")
        return cls._make(*key)


class Vector(_CompositeFamily):
    _params = ("dtype", "length")
    _make = staticmethod(lambda dtype, length: vector(_literal(length, "a vector's length"), dtype))


class Matrix(_CompositeFamily):
    _params = ("dtype", "rows", "cols")
    _make = staticmethod(lambda dtype, rows, cols: matrix((_literal(rows, "a matrix's rows"),
                                                           _literal(cols, "a matrix's columns")), dtype))


class Quaternion(_CompositeFamily):
    _params = ("dtype",)
    _make = staticmethod(lambda dtype: quaternion(dtype))


class Transformation(_CompositeFamily):
    _params = ("dtype",)
    _make = staticmethod(lambda dtype: transformation(dtype))
ARRAY_TYPE_REGULAR, ARRAY_TYPE_INDEXED, ARRAY_TYPE_FABRIC, ARRAY_TYPE_FABRIC_INDEXED = 0, 1, 2, 3


_ARRAY_TYPE_IDS = {"indexedarray": ARRAY_TYPE_INDEXED, "fabricarray": ARRAY_TYPE_FABRIC,
                   "indexedfabricarray": ARRAY_TYPE_FABRIC_INDEXED}


def array_type_id(a) -> int:
    """Warp's family number of an array or array type: by its kind (a type's, or an array object's)."""
    from ..types.array_type import ArrayType
    if not isinstance(a, ArrayType):
        family = _resolve_array_family(a)  # an application's subclass: its family (two families: TypeError)
        if family is not None:
            return _ARRAY_TYPE_IDS.get(family.__name__, ARRAY_TYPE_REGULAR)
    kind = a.kind if isinstance(a, ArrayType) else getattr(getattr(a, "type", None), "kind", None)
    if kind is None and getattr(type(a), "_wp_indexedarray_", False):
        kind = "indexedarray"
    return _ARRAY_TYPE_IDS.get(kind, ARRAY_TYPE_REGULAR)


from ..types.scalars import bfloat16_bits_to_floats as _np_bfloat16_bits_to_float32  # noqa: E402,F401
from ..types.scalars import floats_to_bfloat16_bits as _np_float32_to_bfloat16_bits  # noqa: E402,F401


matches_array_class = internal("warp._src.types.matches_array_class")
from ..types.array_annotation import ArrayAnnotation as _ArrayAnnotation  # noqa: F401
from ..types.array_annotation import ArrayAnnotationBase as _ArrayAnnotationBase  # noqa: F401
from ..types.array_annotation import IndexedArrayAnnotation as _IndexedArrayAnnotation  # noqa: F401


# --- array families: an application's subclass of a Warp array class is its native family ---------
# (GH-1723). The rule itself is warp_nb's (arrays/family.py: native_family, used by launches,
# struct fields and generic signatures); these are Warp's names for it and for the type queries its
# tests ask of instances.

def _resolve_array_family(value):
    """The native family class of an array instance (through subclasses), None for anything else."""
    from ..types.array_family import native_family
    return native_family(value)


def _family_of_type(t):
    from ..arrays.array import array
    from ..arrays.fabric import fabricarray, indexedfabricarray
    from ..arrays.indexed import indexedarray
    return {"indexedarray": indexedarray, "fabricarray": fabricarray,
            "indexedfabricarray": indexedfabricarray}.get(getattr(t, "kind", None), array)


def concrete_array_type(value):
    """The array family class of an array instance or annotation; any other value's own type."""
    from ..types.array_type import FixedArrayType, fixedarray
    if isinstance(value, (FixedArrayType, fixedarray)):
        return fixedarray
    if isinstance(value, ArrayType):
        return _family_of_type(value)
    family = _resolve_array_family(value)
    return family if family is not None else type(value)


def is_array(value) -> builtins_bool:
    """An array instance (of any family, through subclasses) or an array annotation; not a class."""
    if isinstance(value, ArrayType):
        return True
    try:
        return not isinstance(value, type) and _resolve_array_family(value) is not None
    except TypeError:  # derives from two families: an array, if not a usable one
        return True


def type_is_array(t) -> builtins_bool:
    """An array annotation, or one of Warp's own array classes (not an application's subclass)."""
    return isinstance(t, ArrayType) or (isinstance(t, type) and t.__dict__.get("_wp_subscriptable_", False))


def _normalize_array_argument_type(value):
    """An array instance as its annotation (family[dtype, ndim]); anything else unchanged."""
    if value is None or isinstance(value, (type, int, float, builtins_bool, ArrayType)):
        return value
    from ..types.array_family import annotation_of
    annotation = annotation_of(value)
    return annotation if annotation is not None else value


def infer_argument_types(args, templates, arg_names=None) -> list:
    """The concrete types of `args` for the parameter `templates` (annotations or Any), as a launch
    or a Python-scope call infers them: an array as its family's annotation, a Python float as
    float32, an int as int32. A None argument takes its template (an array instance given as a
    template is read as its annotation, without constructing anything)."""
    from typing import Any

    from ..program.signatures import type_of_value
    from ..types.generic import is_generic, matches
    out = []
    for k, (value, template) in enumerate(zip(args, templates)):
        name = f"argument '{arg_names[k]}'" if arg_names else f"argument {k}"
        template = _normalize_array_argument_type(template)
        if value is None:
            out.append(template)
            continue
        if isinstance(value, (ArrayType, type)):
            raise TypeError(f"Unable to infer the type of {name}: {type_repr(value)} is a type annotation, not a value")
        t = type_of_value(value)
        if t is None:
            raise TypeError(f"Unable to infer the type of {name} from a value of type {type(value).__name__}")
        if isinstance(t, ArrayType):
            t = _normalize_array_argument_type(value)
        if template is not Any and is_generic(template) and not matches(template, t):
            raise TypeError(f"{name}: type mismatch, expected {type_repr(template)}, got {type_repr(t)}")
        out.append(t)
    return out


def types_equal(a, b, match_generic: builtins_bool = False) -> builtins_bool:
    """Whether two types are the same; an array instance counts as its family's annotation."""
    from ..types import types_equal as _types_equal
    return _types_equal(_normalize_array_argument_type(a), _normalize_array_argument_type(b), match_generic)


def type_repr(t) -> str:
    """A type's name; an array instance (of an application's subclass too) by its own class name,
    dtype and ndim, even when its class is ambiguous (two families)."""
    if isinstance(t, (type, ArrayType)) or not hasattr(t, "dtype") or not hasattr(t, "ndim"):
        return type_name(t)
    return f"{type(t).__name__}(dtype={type_name(t.dtype)}, ndim={t.ndim})"


def get_signature(arg_types, func_name=None, arg_names=None) -> str:
    """A text key of a list of concrete types (equal types give equal keys)."""
    return "_".join(get_type_code(t) for t in arg_types)


def type_matches_template(arg_type, template_type) -> builtins_bool:
    """Whether a concrete type (or an array instance, read as its annotation) fits a template."""
    from ..types.generic import matches
    arg_type = _normalize_array_argument_type(arg_type)
    template_type = _normalize_array_argument_type(template_type)
    if isinstance(template_type, ArrayType) and isinstance(arg_type, ArrayType) and (
            getattr(template_type, "kind", None) != getattr(arg_type, "kind", None)):
        return False
    return matches(template_type, arg_type)


from ..arrays.layout import check_dim_lengths as check_array_shape  # noqa: E402,F401  (wp.array's own check)


def _get_ml_dtypes_bfloat16():
    """ml_dtypes' bfloat16 scalar type when that package is installed, else None (wp.dtype_from_numpy
    converts it to wp.bfloat16)."""
    try:
        import ml_dtypes
    except ImportError:
        return None
    return getattr(ml_dtypes, "bfloat16", None)


def hash_grid_query_type(dtype):
    """The query type of a hash grid of `dtype` (wp.HashGridQuery[dtype]; geometry-utils)."""
    from ..builtins.geometry import HashGridQuery
    return HashGridQuery[dtype]


def __getattr__(name):
    """Any other name of Warp's implementation: a stand-in that raises when used (see _internal.py)."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ._internal import internal as _stand_in
    return _stand_in(f"warp._src.types.{name}")
