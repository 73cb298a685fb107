"""The tile type: a small dense block of values with a shape fixed when the kernel is compiled,
which a kernel holds in a variable like a vector (Warp's `wp.tile`). A tile type is its element
type, its shape (one to four extents; `typing.Any` in an annotation: any shape) and Warp's storage
hint ("register" or "shared"). The storage hint is kept for Warp's introspection only: warp_nb
stores every tile the same way (see docs/architecture.md, "Tiles"). Knows nothing about C++."""

from __future__ import annotations

import typing
from dataclasses import dataclass, field

from . import scalars

#: the most values one tile may hold: every tile is a value in the thread's own memory (the C++
#: stack on the CPU), so a limit keeps a typo in a shape from asking for gigabytes
MAX_TILE_SIZE = 1 << 20


@dataclass(frozen=True)
class TileType:
    """The type of a tile: element type and shape."""

    dtype: typing.Any
    shape: typing.Any  # a tuple of ints, or typing.Any (a generic annotation: any shape)
    #: Warp's hint; not part of the type's identity (a shared tile passes where a register one is expected)
    storage: str = field(default="register", compare=False)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def rows(self) -> int:
        """Rows of the stored matrix: a 1-D tile is one column; an N-D one is its last axis's lines."""
        return self.shape[0] if len(self.shape) == 1 else self.size // self.shape[-1]

    @property
    def cols(self) -> int:
        return self.shape[-1] if len(self.shape) > 1 else 1

    @property
    def padded_shape(self) -> tuple:
        """The shape with 1s in front, four extents (how native/tiles/tile.h walks 3-D and 4-D tiles)."""
        return (1,) * (4 - len(self.shape)) + tuple(self.shape)

    def is_generic(self) -> bool:
        return self.shape is typing.Any or scalars.canonical_scalar(self.dtype) is typing.Any

    def match(self, t) -> bool:
        """Whether a concrete tile type fits this (possibly generic) annotation."""
        if not isinstance(t, TileType):
            return False
        if self.dtype is not typing.Any and scalars.canonical_scalar(self.dtype) != t.dtype:
            return False
        return self.shape is typing.Any or tuple(self.shape) == tuple(t.shape)

    def type_name(self) -> str:
        shape = "Any" if self.shape is typing.Any else str(tuple(self.shape))
        name = getattr(self.dtype, "__name__", str(self.dtype))
        return f"tile(dtype={name}, shape={shape})"

    __repr__ = type_name


def tile_type(dtype, shape, storage: str = "register") -> TileType:
    """A tile type with its shape checked: a tuple of one or two positive extents."""
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    if not 1 <= len(shape) <= 4:
        raise TypeError(f"tiles have one to four dimensions, got shape {shape}")
    if any(s <= 0 for s in shape):
        raise TypeError(f"a tile's extents must be positive integers, got shape {shape}")
    size = 1
    for s in shape:
        size *= s
    if size > MAX_TILE_SIZE:
        raise TypeError(f"a tile of shape {shape} holds {size} values; warp_nb allows at most {MAX_TILE_SIZE}")
    if storage not in ("register", "shared"):
        raise TypeError(f"storage must be 'register' or 'shared', got {storage!r}")
    return TileType(scalars.canonical_scalar(dtype), shape, storage)


def tile_annotation(params) -> TileType:
    """`wp.tile[dtype]`, `wp.tile[dtype, M, N]`, `wp.tile[dtype, Literal[M]]`, `wp.tile[dtype, (M, N)]`."""
    if not isinstance(params, tuple):
        params = (params,)
    if not params:
        raise TypeError("wp.tile[...] requires at least a dtype: wp.tile[float] or wp.tile[float, M, N]")
    dtype, dims = params[0], params[1:]
    if len(dims) == 1 and isinstance(dims[0], tuple):
        dims = dims[0]
    if not dims:
        return TileType(scalars.canonical_scalar(dtype), typing.Any)
    shape = []
    for d in dims:
        if typing.get_origin(d) is typing.Literal:
            d = typing.get_args(d)[0]
        if not isinstance(d, int):
            raise TypeError(f"wp.tile[...]: a tile extent must be an int or Literal[int], got {d!r}")
        shape.append(d)
    return tile_type(dtype, tuple(shape))


@dataclass(frozen=True)
class StackType:
    """Warp's tile_stack: a stack of up to `capacity` values of `dtype`, shared by a block (one
    thread here, so a value the compiler rebinds after each push or pop)."""

    dtype: typing.Any
    capacity: int

    def type_name(self) -> str:
        return f"tile_stack(capacity={self.capacity}, dtype={getattr(self.dtype, '__name__', self.dtype)})"

    __repr__ = type_name


def stack_type(capacity, dtype) -> StackType:
    """`wp.tile_stack(capacity=..., dtype=...)` as an annotation (and what a kernel's call makes)."""
    if isinstance(capacity, bool) or not isinstance(capacity, int):
        raise TypeError(f"wp.tile_stack: capacity must be an int, got {capacity!r}")
    if capacity <= 0:
        raise ValueError(f"wp.tile_stack: capacity must be a positive integer, got {capacity}")
    return StackType(scalars.canonical_scalar(dtype), capacity)


def type_is_tile(t) -> bool:
    return isinstance(t, TileType)
