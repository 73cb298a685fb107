"""The type of an array argument (`wp.array(dtype=...)` in a kernel signature): element type and
number of dimensions. The array objects themselves live in `warp_nb.arrays`."""

from __future__ import annotations

import operator
import typing

from .. import types
from .memory_kind import MemoryKind
from .scalars import canonical_scalar


def literal_int(x, what: str) -> int:
    """A type parameter given as 3 or Literal[3] -> 3; Literal[2, 3] names no single value."""
    args = typing.get_args(x)
    if args and len(args) != 1:
        raise TypeError(f"Expected a single Literal value for {what}, got {x}")
    value = args[0] if args else x
    try:
        if isinstance(value, bool):
            raise TypeError
        return operator.index(value)  # an int, or a numpy integer
    except TypeError:
        raise TypeError(f"{what} must be a positive integer, got {value!r}") from None


class ArrayType:
    """The type of an array argument: element type and number of dimensions.
    `wp.array(dtype=wp.vec3)`, `wp.array2d(dtype=float)` and `wp.array[float]` all make one."""

    # shape: Warp's annotation is an array instance without data, whose shape is zeros and may be
    # overwritten (applications keep their own dimension labels there, e.g. ("nworld", 3))
    __slots__ = ("_vars", "dtype", "ndim", "shape")
    memory_kind = MemoryKind.UNKNOWN  # an annotation points at no memory (Warp's answer too)

    def __init__(self, dtype=types.float32, ndim: int = 1):
        self.dtype = canonical_scalar(dtype)
        self._vars = None
        if ndim is typing.Any:  # wp.array[float, Any]: a generic parameter, any number of dimensions
            self.ndim = ndim
            self.shape = ()
            return
        self.ndim = int(ndim)
        if not 1 <= self.ndim <= 4:
            raise ValueError(f"arrays have 1 to 4 dimensions (ndim must be between 1 and 4), got ndim={ndim}")
        if not hasattr(self, "shape"):  # a fixed-size array sets its own before
            self.shape = (0,) * self.ndim

    kind = "array"
    cpp_template = "wpnb::array_t"

    def __eq__(self, other):
        # by kind, not class: wp.array[float] (an annotation, ArrayAnnotation) is wp.array(dtype=float)
        return isinstance(other, ArrayType) and other.kind == self.kind and other.dtype is self.dtype \
            and other.ndim == self.ndim

    @property
    def vars(self) -> dict:
        """The attributes a kernel reads from an array of this type, with their types (made once)."""
        if self._vars is None:
            shape = types.vector(self.ndim, types.int32) if isinstance(self.ndim, int) else typing.Any
            self._vars = {"shape": shape, "ndim": types.int32, "ptr": types.uint64, "dtype": self.dtype}
        return self._vars

    def __hash__(self):
        return hash((self.kind, self.dtype, self.ndim))

    def __ctype__(self):
        """The kernel descriptor of an array of this type pointing at no memory (all zeros): Warp's
        annotation is an array instance without data, and its __ctype__ is that."""
        from .structs import field_ctype
        return field_ctype(self)()

    def view_type(self, ndim: int) -> ArrayType:
        """The type of a[i] (leading indices fixed): the same kind of array with `ndim` dimensions."""
        return type(self)(self.dtype, ndim)

    def type_name(self) -> str:
        dtype = "Any" if self.dtype is typing.Any else types.type_name(self.dtype)
        ndim = "Any" if self.ndim is typing.Any else self.ndim
        return f"{self.kind}(dtype={dtype}, ndim={ndim})"

    __repr__ = type_name


class FixedArrayType(ArrayType):
    """`wp.fixedarray(shape=..., dtype=...)`: Warp's type of a fixed-size array, the kind a kernel or
    function makes with wp.zeros(shape=<constants>, dtype=...); the shape is part of the type. Inside
    kernels such an array is an ordinary array over local memory."""

    __slots__ = ()
    kind = "fixedarray"

    def __init__(self, shape=(1,), dtype=types.float32):
        self.shape = (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)
        super().__init__(dtype, len(self.shape))

    def __eq__(self, other):
        return super().__eq__(other) and other.shape == self.shape

    def __hash__(self):
        return hash((self.kind, self.dtype, self.shape))

    def type_name(self) -> str:
        return f"fixedarray(shape={self.shape}, dtype={types.type_name(self.dtype)})"

    __repr__ = type_name


class fixedarray:
    """Warp's `wp.fixedarray(shape=..., dtype=...)`: called, the type of a fixed-size array, for
    annotations (a FixedArrayType). A class so that code may derive from it, as from Warp's; an
    instance of such a subclass only records its shape and dtype (it holds no memory: fixed-size
    arrays live inside kernels)."""

    def __new__(cls, shape=(1,), dtype=types.float32, *args, **kwargs):
        if cls is fixedarray:
            return FixedArrayType(shape, dtype)
        return super().__new__(cls)

    def __init__(self, shape=(1,), dtype=types.float32, *args, **kwargs):
        made = FixedArrayType(shape, dtype)
        self.shape, self.dtype, self.ndim = made.shape, made.dtype, made.ndim
        self.size = 1
        for n in self.shape:
            self.size *= n


class IndexedArrayType(ArrayType):
    """`wp.indexedarray(dtype=...)`: an array seen through index arrays (one per dimension, or
    none for a dimension taken whole). Kernels read, write and update its elements like an array's."""

    __slots__ = ()
    kind = "indexedarray"

    @property
    def memory_kind(self):
        # as in Warp: an indexed array has none of its own (its values and indices may differ in kind)
        raise AttributeError("an indexed array has no memory_kind; ask its data and index arrays")
    cpp_template = "wpnb::indexedarray_t"
