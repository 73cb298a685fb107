"""`wp.ref[T]`: Warp's annotation of a @wp.func parameter passed by reference. warp_nb knows the
type (annotations, equality, `dtype`) so definitions that use it are accepted; a call of such a
function is not compiled yet and raises NotImplementedError (see docs/compat.md)."""

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

UNSUPPORTED = ("{name} takes a wp.ref[T] parameter (pass by reference), which warp_nb does not compile yet; "
               "return the new value from the function instead")
