"""The views wp.array makes of its own memory in Python scope, as Warp makes them: `a[key]` (ints and
slices), `reshape`, `flatten`, `transpose` and `view(dtype)`. A view shares the array's memory, its
gradient's matching view and its requires_grad; its capacity is Warp's (the first dimension's
length times its stride). Errors are also RuntimeErrors, the class Warp raises."""

from __future__ import annotations

import numpy as np

from .. import types
from ..errors import ArgumentIndexError, ArgumentTypeError, ArgumentValueError
from ..types.scalars import canonical_scalar
from .layout import _contiguous_strides, _shape_tuple, check_dim_lengths

ELEMENT_ACCESS_MESSAGE = (
    "wp.array elements cannot be {what} from Python: kernels do that. To set values use "
    "wp.full(shape, value) or a.fill_(value) for a constant, a.assign(values) to copy from an array, "
    "list or numpy array, or edit a.numpy() (a view of CPU memory) with numpy; to read, use a.numpy() "
    "or a.list().")


def view_capacity(ptr, shape, strides, elem: int) -> int:
    """Warp's capacity of a view: its first dimension's length times that dimension's stride (the
    bytes from the first element to the end of the outer dimension, even when another dimension is
    empty), 0 without memory (a view of an empty allocation). A view with a negative first stride
    (Python slices with a negative step, which Warp refuses) counts the bytes up to its
    last-addressed element instead."""
    if not ptr:
        return 0
    if strides[0] >= 0:
        return int(shape[0]) * int(strides[0])
    return 0 if 0 in shape else sum((int(n) - 1) * int(s) for n, s in zip(shape, strides) if s > 0) + elem


def derived(a, ptr, dtype, shape, strides, grad):
    """A view of `a`'s memory (and of its gradient: `grad`), needing gradients where `a` does."""
    from .array import array

    out = array(ptr=ptr or 0, dtype=dtype, shape=shape, strides=strides, device=a.device, owner=a)
    if a.ptr is None:  # as Warp, a view of an empty allocation has no address either
        out.ptr = None
        out._update_descriptor()
    if grad is not None:
        out.grad = grad
    out._requires_grad = a.requires_grad  # as Warp: a view of an array that needs gradients needs them too
    return out


def index(a, key):
    """a[key] for a key of ints and slices (Python's rules: ends are clamped, steps may be negative).
    A key of an int per dimension reads one element, which Python scope does not do (as in Warp)."""
    key = key if isinstance(key, tuple) else (key,)
    for k in key:
        if not isinstance(k, (int, np.integer, slice)) or isinstance(k, bool):  # (a[True]: numpy reads a mask)
            raise ArgumentTypeError(f"arrays are indexed with integers and slices in Python scope, got "
                                    f"{type(k).__name__}")
    if len(key) > a.ndim:
        raise ArgumentIndexError(f"too many indices ({len(key)}) for an array with {a.ndim} dimensions")
    if len(key) == a.ndim and all(isinstance(k, (int, np.integer)) for k in key):
        raise ArgumentTypeError(ELEMENT_ACCESS_MESSAGE.format(what="read one at a time"))
    ptr, shape, strides = a.ptr or 0, [], []
    for axis, k in enumerate(key + (slice(None),) * (a.ndim - len(key))):
        n, stride = a.shape[axis], a.strides[axis]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)  # (a step of 0: Python's ValueError)
            count = len(range(start, stop, step))
            ptr += start * stride if count else 0
            shape.append(count)
            strides.append(stride * step)
        else:
            i = int(k) + (n if k < 0 else 0)
            if not 0 <= i < n:
                raise ArgumentIndexError(f"index {int(k)} is out of bounds for axis {axis} with size {n}")
            ptr += i * stride
    return derived(a, ptr, a.dtype, tuple(shape), tuple(strides), None if a.grad is None else a.grad[key])


def reshape(a, shape):
    """A view of another shape (one -1 inferred); Warp reshapes contiguous arrays only, since the
    result must share the memory."""
    shape = _shape_tuple(shape)
    if shape.count(-1) > 1:
        raise ArgumentValueError(f"Cannot infer shape if more than one index is -1 (reshape to {shape})")
    if -1 in shape:
        known = int(np.prod([s for s in shape if s != -1]))
        if known == 0:
            raise ArgumentValueError(f"cannot infer the -1 of shape {shape} for an array of size {a.size}")
        shape = tuple(a.size // known if s == -1 else s for s in shape)
    if len(shape) > 4:
        raise ArgumentValueError(f"Arrays may only have 4 dimensions maximum, trying to reshape to {shape}")
    check_dim_lengths(shape)
    if int(np.prod(shape)) != a.size:
        raise ArgumentValueError(f"cannot reshape array of shape {a.shape} (size {a.size}) into shape "
                                 f"{shape} (size {int(np.prod(shape))})")
    if not a.is_contiguous:
        raise ArgumentValueError(f"Reshaping non-contiguous arrays is unsupported (shape {a.shape}, strides "
                                 f"{a.strides}): reshape a.contiguous(), a copy")
    strides = _contiguous_strides(shape, types.type_size_in_bytes(a.dtype))
    return derived(a, a.ptr, a.dtype, shape, strides, None if a.grad is None else a.grad.reshape(shape))


def flatten(a):
    """A 1-D view of a contiguous array (a 1-D array, strided or not, is already flat: itself)."""
    if a.ndim == 1:
        return a
    if not a.is_contiguous:
        raise ArgumentValueError(f"Flattening non-contiguous arrays is unsupported (shape {a.shape}, strides "
                                 f"{a.strides}): flatten a.contiguous(), a copy")
    return reshape(a, (a.size,))


def transpose(a, axes=None):
    """The dimensions permuted (reversed by default)."""
    axes = tuple(reversed(range(a.ndim))) if axes is None else tuple(int(x) + (a.ndim if x < 0 else 0) for x in axes)
    if len(axes) != a.ndim:
        raise ArgumentValueError(f"Length of parameter axes must be equal in length to array shape: axes "
                                 f"{axes} for an array of {a.ndim} dimensions")
    if sorted(axes) != list(range(a.ndim)):  # (Warp accepts repeats, and any axes for a 1-D array)
        raise ArgumentValueError(f"transpose axes {axes} are not a permutation of {tuple(range(a.ndim))}")
    if a.ndim == 1:  # as Warp: the array itself
        return a
    return derived(a, a.ptr, a.dtype, tuple(a.shape[x] for x in axes), tuple(a.strides[x] for x in axes),
                   None if a.grad is None else a.grad.transpose(axes))


def view(a, dtype):
    """The same bytes seen as another element type, as Warp: an element of the same size keeps the
    shape; a vector or matrix array seen as its scalars gains its components as the last dimensions;
    scalars seen as vectors or matrices lose the last dimensions, which must be the contiguous
    components."""
    dtype = canonical_scalar(dtype)
    src, size, new_size = a.dtype, types.type_size_in_bytes(a.dtype), types.type_size_in_bytes(dtype)
    # (bool is no scalar of a vector's here, as in Warp: a vec4ub array is not viewed as bools)
    src_scalar = types.is_scalar_type(src) and src is not types.bool
    dst_scalar = types.is_scalar_type(dtype) and dtype is not types.bool
    shape, strides = a.shape, a.strides
    what = (f"cannot create an array view with dtype {types.type_repr(dtype)} from source dtype "
            f"{types.type_repr(src)}")
    if size == new_size:
        pass  # (vec2f as float64, vec2h as float32, a float64 array as mat11d and back)
    elif not src_scalar and dst_scalar and hasattr(src, "_shape_"):  # vec4f -> float32: components last
        scalar = src._wp_scalar_type_
        if types.type_size_in_bytes(scalar) != new_size:
            raise TypeError(f"{what}: source scalar dtype {types.type_repr(scalar)} has size "
                            f"{types.type_size_in_bytes(scalar)} bytes, but target dtype has size {new_size} bytes")
        inner = tuple(src._shape_)
        shape, strides = shape + inner, strides + _contiguous_strides(inner, new_size)
        if len(shape) > 4:
            raise ArgumentValueError(f"{what}: the view would have shape {shape}, and arrays have at most 4 "
                                     "dimensions")
    elif src_scalar and not dst_scalar and hasattr(dtype, "_shape_"):  # float32 -> vec4f: last dims
        scalar, inner = dtype._wp_scalar_type_, tuple(dtype._shape_)
        if types.type_size_in_bytes(scalar) != size:
            raise TypeError(f"{what}: source dtype has size {size} bytes, but target scalar dtype "
                            f"{types.type_repr(scalar)} has size {types.type_size_in_bytes(scalar)} bytes")
        if shape[len(shape) - len(inner):] != inner:
            raise ArgumentTypeError(f"{what}: the shape of the source array {shape} does not end in the "
                                    f"components {inner}")
        if strides[len(shape) - len(inner):] != _contiguous_strides(inner, size):
            raise ArgumentTypeError(f"{what}: the inner strides of the source array {strides} are not those of "
                                    f"contiguous components {inner}")
        shape, strides = shape[:len(shape) - len(inner)], strides[:len(shape) - len(inner)]
        if not shape:  # no 0-d arrays: one element
            shape, strides = (1,), (types.type_size_in_bytes(dtype),)
    else:
        raise TypeError(f"{what}: source dtype has size {size} bytes, but target dtype has size {new_size} bytes")
    return derived(a, a.ptr, dtype, shape, strides, None if a.grad is None else a.grad.view(dtype))
