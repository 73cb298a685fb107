"""Generic types: annotations with `typing.Any` in them (`x: Any`, `wp.array(dtype=Any)`,
`wp.types.vector(length=Any, dtype=Any)`, `wp.types.matrix(shape=(3, Any), dtype=wp.Float)`) or
Warp's type variables `wp.Scalar`, `wp.Float`, `wp.Int`. A generic type matches a family of
concrete types; a kernel or function with generic parameters is typed, and compiled, once per
concrete signature (its arguments' types at a launch or call, or a `wp.overload`)."""

from __future__ import annotations

import typing

from . import composite, scalars
from .tiles import TileType


class Generic:
    """A family of concrete types."""

    def match(self, t) -> bool:
        raise NotImplementedError

    def type_name(self) -> str:
        raise NotImplementedError

    __repr__ = lambda self: self.type_name()  # noqa: E731


class TypeVariable(Generic):
    """Warp's `Scalar`, `Float` and `Int`: any scalar type of some kinds."""

    def __init__(self, name: str, kinds: tuple):
        self.name, self.kinds = name, kinds

    def match(self, t) -> bool:
        t = scalars.canonical_scalar(t)
        return scalars.is_scalar_type(t) and t._kind in self.kinds

    def type_name(self) -> str:
        return self.name


Scalar = TypeVariable("Scalar", ("float", "int", "uint"))
Float = TypeVariable("Float", ("float",))
Int = TypeVariable("Int", ("int", "uint"))


class GenericComposite(Generic):
    """A vector, matrix, quaternion or transform type with Any (or a type variable) for its length,
    its shape's parts, or its element type."""

    def __init__(self, kind: str, shape: tuple, dtype):
        self.kind, self.shape, self.dtype = kind, tuple(shape), dtype

    def match(self, t) -> bool:
        if composite.kind_of(t) != self.kind:
            return False
        if self.kind in ("vector", "matrix") and (len(self.shape) != len(t._shape_) or any(
                s is not typing.Any and s != n for s, n in zip(self.shape, t._shape_))):
            return False
        return matches(self.dtype, t._wp_scalar_type_)

    def __eq__(self, other):
        return isinstance(other, GenericComposite) and (self.kind, self.shape, self.dtype) == (
            other.kind, other.shape, other.dtype)

    def __hash__(self):
        return hash((self.kind, self.shape, id(self.dtype)))

    def type_name(self) -> str:
        shown = lambda x: "Any" if x is typing.Any else getattr(x, "type_name", lambda: str(x))() if not isinstance(  # noqa: E731
            x, int) else str(x)
        if self.kind == "vector":
            return f"vector(length={shown(self.shape[0])}, dtype={shown(self.dtype)})"
        if self.kind == "matrix":
            return f"matrix(shape=({', '.join(map(shown, self.shape))}), dtype={shown(self.dtype)})"
        return f"{self.kind}(dtype={shown(self.dtype)})"


def is_generic(t) -> bool:
    """Whether an annotation stands for more than one concrete type."""
    if t is typing.Any or isinstance(t, Generic) or t is scalars.Scalar:
        return True
    if isinstance(t, TileType):
        return t.is_generic()
    dtype = getattr(t, "dtype", None)  # an array type (generic in its dtype, or in its ndim: wp.array[float, Any])
    return hasattr(t, "ndim") and hasattr(t, "dtype") and dtype is not None and (
        is_generic(dtype) or getattr(t, "ndim", None) is typing.Any)


def matches(pattern, t) -> bool:
    """Whether the concrete type `t` belongs to `pattern` (a concrete type matches itself)."""
    if pattern is typing.Any:
        return True
    if pattern is scalars.Scalar:  # the base class of scalar types, written as an annotation
        pattern = Scalar
    if isinstance(pattern, (Generic, TileType)):
        return pattern.match(t)
    if hasattr(pattern, "ndim") and hasattr(pattern, "dtype") and (
            is_generic(pattern.dtype) or pattern.ndim is typing.Any):
        return hasattr(t, "ndim") and hasattr(t, "dtype") and pattern.ndim in (t.ndim, typing.Any) \
            and getattr(t, "kind", None) == getattr(pattern, "kind", None) and matches(pattern.dtype, t.dtype)
    pattern, t = scalars.canonical_scalar(pattern), scalars.canonical_scalar(t)
    return pattern is t or pattern == t
