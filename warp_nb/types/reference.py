"""`wp.ref[T]`: Warp's annotation of a @wp.func or @wp.func_native parameter passed by reference:
the type itself (annotations, equality, `dtype`). How a call passes the argument is the
compiler's (compiler/typecheck_references.py; docs/compat.md)."""

from __future__ import annotations

from .scalars import canonical_scalar


class Reference:
    """The type `wp.ref[dtype]`."""

    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = canonical_scalar(dtype)

    @property
    def value_type(self):
        return self.dtype

    def __eq__(self, other):
        return isinstance(other, Reference) and other.dtype == self.dtype

    def __hash__(self):
        return hash(("wp.ref", self.dtype))

    def type_name(self) -> str:
        return f"wp.ref[{getattr(self.dtype, '__name__', self.dtype)}]"

    def __repr__(self):
        return self.type_name()


class _RefFactory:
    """`wp.ref`: subscript it with a type (`wp.ref[wp.float32]`)."""

    def __getitem__(self, dtype) -> Reference:
        return Reference(dtype)

    def __repr__(self):
        return "wp.ref"


ref = _RefFactory()
