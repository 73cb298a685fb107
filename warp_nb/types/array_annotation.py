"""What `wp.array[dtype]`, `wp.array2d[dtype]`, `wp.array[dtype, ndim]` and `wp.indexedarray[...]`
make: array types (the same as `wp.array(dtype=..., ndim=...)`, and equal to them) that also
behave as Python annotations: their repr is the subscript that makes them (so `eval(repr(t)) == t`),
and `|` builds a `typing.Union` with them for Python-side type hints. Kernels refuse unions
(compiler/annotations.py): a kernel parameter has one type."""

from __future__ import annotations

import typing

from .. import types as T
from .array_type import ArrayType, IndexedArrayType


def _public_names() -> dict:
    """id(type) -> its wp.* name, for the scalar and composite types warp_nb exports (all of them come
    from this package; the longest name where several name one type: wp.vec3f rather than wp.vec3,
    as Warp writes them)."""
    names: dict = {}
    for name in dir(T):
        obj = getattr(T, name, None)
        if isinstance(obj, type) and (T.is_scalar_type(obj) or T.is_composite_type(obj)):
            known = names.get(id(obj))
            if known is None or (len(name), name) > (len(known), known):
                names[id(obj)] = name
    return names


_NAMES: dict = {}


def dtype_repr(dtype) -> str:
    """A dtype as source text: wp.float32, wp.vec3f; Any; a struct's or custom type's own name; a
    vector or matrix without a wp.* name as vector(length=5, dtype=float32)."""
    if dtype is typing.Any:
        return "Any"
    if not _NAMES:
        _NAMES.update(_public_names())
    name = _NAMES.get(id(dtype))
    if name is not None and getattr(T, name, None) is dtype:
        return f"wp.{name}"
    if getattr(dtype, "_wp_struct_", False):
        return getattr(dtype, "key", dtype.__name__)
    if T.is_composite_type(dtype):
        scalar = T.type_name(T.type_scalar_type(dtype))
        kind = T.kind_of(dtype)
        if kind == "vector":
            return f"vector(length={dtype._length_}, dtype={scalar})"
        if kind == "matrix":
            return f"matrix(shape={tuple(dtype._shape_)}, dtype={scalar})"
        return f"{kind}(dtype={scalar})"
    if T.is_scalar_type(dtype):
        return T.type_name(dtype)
    return getattr(dtype, "__qualname__", repr(dtype))


class ArrayAnnotationBase:
    """Mixin: the subscript repr and `|`."""

    __slots__ = ()
    _subscript = "array"
    _nd_aliases = True  # wp.array2d ... exist for wp.array, not for wp.indexedarray

    def __repr__(self):
        dtype = dtype_repr(self.dtype)
        if self.ndim is typing.Any:
            return f"wp.{self._subscript}[{dtype}, Any]"
        if self.ndim == 1:
            return f"wp.{self._subscript}[{dtype}]"
        if self._nd_aliases:
            return f"wp.{self._subscript}{self.ndim}d[{dtype}]"
        return f"wp.{self._subscript}[{dtype}, Literal[{self.ndim}]]"

    def plain(self) -> ArrayType:
        """The same type as the compiler's own (ArrayType, IndexedArrayType), without the annotation
        behaviour."""
        return self._plain(self.dtype, self.ndim)

    def __or__(self, other):
        return typing.Union[self, other]  # noqa: UP007  (a runtime Union of instances)

    def __ror__(self, other):
        return typing.Union[other, self]  # noqa: UP007


class ArrayAnnotation(ArrayAnnotationBase, ArrayType):
    __slots__ = ()
    _plain = ArrayType


class IndexedArrayAnnotation(ArrayAnnotationBase, IndexedArrayType):
    __slots__ = ()
    _subscript = "indexedarray"
    _nd_aliases = False
    _plain = IndexedArrayType
