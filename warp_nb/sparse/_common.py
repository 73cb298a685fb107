"""What the sparse modules share: block types as (shape, scalar type), scalar views of value arrays
(so one kernel per scalar type serves every block shape), argument checks with messages that name
the argument, and a cache of kernels made per scalar type.

Value kernels see a matrix's values as a two-dimensional scalar array (blocks, block_size): a
`mat33` array, a (n, 3, 3) float array and a float array of 1x1 blocks are then the same thing,
and a float32 kernel serves all of them. The views share memory (and the gradient's memory) with
the arrays they view, so a launch recorded on a Tape differentiates the user's arrays."""

from __future__ import annotations

import contextlib
import functools

import warp_nb as wp

from .. import types as T
from ..arrays.array import array
from ..runtime import recording

#: scalar types the value kernels are made for
SCALARS = (T.float16, T.float32, T.float64)


def is_block_type(t) -> bool:
    return T.type_is_matrix(t) or T.type_is_scalar(t) and t not in (bool,)


def block_shape_of(block_type) -> tuple:
    if T.type_is_matrix(block_type):
        return tuple(block_type._shape_)
    if T.type_is_scalar(block_type):
        return (1, 1)
    raise ValueError(f"BsrMatrix block type must be either warp matrix or scalar; got {T.type_name(block_type)}")


def scalar_of(block_type):
    return T.type_scalar_type(block_type)


def block_type_for(shape: tuple, scalar):
    """A scalar for 1x1 blocks (CSR), otherwise a matrix type: Warp's convention."""
    shape = tuple(int(s) for s in shape)
    return scalar if shape == (1, 1) else wp.types.matrix(shape=shape, dtype=scalar)


def check_scalar(scalar) -> None:
    if scalar not in SCALARS:
        raise TypeError(f"warp.sparse supports float16, float32 and float64 blocks, got {T.type_name(scalar)}")


def scalar_view(a: array, shape: tuple, scalar) -> array:
    """The first prod(shape) scalars of contiguous array a, as an array of `shape`, with a's gradient
    viewed alike (so a recorded launch differentiates a itself)."""
    if a.dtype is scalar and a.shape == shape:
        return a  # already what the kernel takes (the common CSR case: no view to build)
    if not a.is_contiguous:
        raise ValueError("sparse value arrays must be contiguous")
    grad = None
    if a.requires_grad and a.grad is not None:
        grad = array(ptr=a.grad.ptr, dtype=scalar, shape=shape, device=a.device, owner=a.grad)
    # with grad given, requires_grad keeps that gradient (the viewed array's own) instead of allocating one
    return array(ptr=a.ptr, dtype=scalar, shape=shape, device=a.device, owner=a, grad=grad,
                 requires_grad=grad is not None)


def flat2d(a: array, count: int, block_size: int, scalar) -> array | None:
    """Elements [0, count) of a contiguous array of blocks as a (count, block_size) scalar array,
    its gradient viewed alike; None when count is 0 (there is nothing to launch over)."""
    if count == 0:
        return None
    return scalar_view(a, (count, block_size), scalar)


def vector_view(a: array, length: int, block: int, scalar) -> array:
    """A vector of `length` blocks of `block` scalars (a scalar array, or an array of vectors) as a
    (length, block) scalar array, or a 1-d one when block is 0."""
    if not a.is_contiguous:
        a = a.contiguous()
    return scalar_view(a, (length, block) if block else (length,), scalar)


def unsigned(a: array) -> array:
    """An int32 index array seen as uint32 (same bits; the indices it holds are never negative): an
    index the C++ compiler knows to be non-negative skips the wrap of negative indices on every
    access, which costs a third of a memory-bound loop's time."""
    return array(ptr=a.ptr, dtype=T.uint32, shape=a.shape, strides=a.strides, device=a.device, owner=a)


def int_array(a, what: str) -> array:
    if not isinstance(a, array):
        raise TypeError(f"{what} must be a warp array, got {type(a).__name__}")
    return a


def kernel_cache(make):
    """Decorator: make(*types) builds kernels for those types, each built once."""
    return functools.cache(make)


def same_block_type(a, b) -> bool:
    return a is b or T.types_equal(a, b)


@contextlib.contextmanager
def untaped():
    """Launches and copies inside are not recorded on an active Tape: topology work (counting,
    scans, sorts of integers) has nothing to differentiate, and replaying it backwards would only
    warn. Value kernels stay outside, so gradients flow through them."""
    outer, recording.tape = recording.tape, None
    try:
        yield
    finally:
        recording.tape = outer


@contextlib.contextmanager
def live():
    """Inside a wp.ScopedCapture, run what is inside now instead of recording it (a snapshot or a
    host readback that must see the current data)."""
    outer, recording.capture = recording.capture, None
    try:
        yield
    finally:
        recording.capture = outer


def capturing():
    """The capture being recorded (wp.ScopedCapture), or None."""
    return recording.capture
