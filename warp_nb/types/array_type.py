"""The type of an array argument (`wp.array(dtype=...)` in a kernel signature): element type and
number of dimensions. The array objects themselves live in `warp_nb.arrays`."""

from __future__ import annotations

import typing

from .. import types
from .scalars import canonical_scalar


class ArrayType:
    """The type of an array argument: element type and number of dimensions.
    `wp.array(dtype=wp.vec3)`, `wp.array2d(dtype=float)` and `wp.array[float]` all make one."""

    __slots__ = ("dtype", "ndim")

    def __init__(self, dtype=types.float32, ndim: int = 1):
        self.dtype = canonical_scalar(dtype)
        self.ndim = int(ndim)
        if not 1 <= self.ndim <= 4:
            raise ValueError(f"arrays have 1 to 4 dimensions, got ndim={ndim}")

    def __eq__(self, other):
        return isinstance(other, ArrayType) and other.dtype is self.dtype and other.ndim == self.ndim

    def __hash__(self):
        return hash(("array", self.dtype, self.ndim))

    def type_name(self) -> str:
        dtype = "Any" if self.dtype is typing.Any else types.type_name(self.dtype)
        return f"array(dtype={dtype}, ndim={self.ndim})"

    __repr__ = type_name
