"""Warp's array constructors and copies: `empty`, `zeros`, `full`, `ones`, their `*_like` forms,
`clone`, `from_numpy` and `copy` (flattened, with offsets and counts; recorded on an active Tape).
They build on `array.py`; only `copy` validates and records (on an active Tape)."""

from __future__ import annotations

import builtins

import numpy as np

from ..runtime import recording
from .. import types
from ..errors import ArgumentValueError, ArgumentTypeError, warn
from .array import array, copy_elements, empty_array


_KEYWORDS = {"n", "retain_grad", "strides"}


def _shape(shape, kwargs) -> object:
    """The shape argument, or Warp's older `n=` size; an unknown keyword is an error (it used to
    be ignored, so `n=5000` made an empty array)."""
    unknown = set(kwargs) - _KEYWORDS
    if unknown:
        raise TypeError(f"unexpected keyword argument {sorted(unknown)[0]!r}")
    if shape is None:
        shape = kwargs.get("n", 0)
    return shape


def empty(shape=None, dtype=types.float32, device=None, requires_grad=False, pinned=False, **kwargs) -> array:
    return empty_array(_shape(shape, kwargs), dtype, device, requires_grad, pinned, kwargs.get("retain_grad", False),
                       kwargs.get("strides"))


def zeros(shape=None, dtype=types.float32, device=None, requires_grad=False, pinned=False, **kwargs) -> array:
    a = array(shape=_shape(shape, kwargs), dtype=dtype, device=device, requires_grad=requires_grad,
              retain_grad=kwargs.get("retain_grad", False), pinned=pinned, strides=kwargs.get("strides"))
    if recording.capture is not None and a.is_contiguous and a.size > 0:
        # inside wp.ScopedCapture, as in Warp: each capture_launch zeroes it again (a counter the
        # captured kernels add to starts from zero on every replay); an empty array records nothing
        # (Warp's empty reductions in a capture record no operation: test_apic)
        a.zero_()
    return a


#: in a kernel, wp.zeros(shape=<constants>, dtype=...) makes a local fixed-size array (compiler/typecheck_subscript)
zeros._wp_kernel_form_ = "local_zeros"


def full(shape=None, value=0, dtype=types.Any, device=None, requires_grad=False, pinned=False, **kwargs) -> array:
    if dtype is types.Any:
        if isinstance(value, builtins.bool):
            dtype = types.bool
        elif isinstance(value, int):
            dtype = types.int32
        elif isinstance(value, float):
            dtype = types.float32
        elif isinstance(value, (list, tuple, np.ndarray)):  # as Warp: a vector (1-D) or matrix (2-D) of its values
            dtype = _composite_of(np.asarray(value))
        else:
            dtype = getattr(value, "_struct", type(value))  # a struct instance's type, or a composite
    a = empty(_shape(shape, kwargs), dtype, device, requires_grad=requires_grad, pinned=pinned,
              retain_grad=kwargs.get("retain_grad", False))
    a.fill_(value)
    return a


def _composite_of(values: np.ndarray):
    """The vector or matrix type whose value is this 1-D or 2-D numpy array (its scalar type from numpy's)."""
    from ..types.scalars import scalar_from_numpy

    scalar = scalar_from_numpy(values.dtype)
    if scalar is None or values.ndim not in (1, 2):
        raise TypeError(f"wp.full cannot infer a vector or matrix type from values of shape {values.shape} and "
                        f"dtype {values.dtype}; give dtype=")
    return types.vector(values.shape[0], scalar) if values.ndim == 1 else types.matrix(values.shape, scalar)


def ones(shape=None, dtype=types.float32, device=None, requires_grad=False, pinned=False, **kwargs) -> array:
    return full(_shape(shape, kwargs), 1, dtype, device, requires_grad, pinned, retain_grad=kwargs.get("retain_grad",
                                                                                                        False))


def zeros_like(src: array, device=None, requires_grad=None, pinned=None) -> array:
    rg = src.requires_grad if requires_grad is None else requires_grad
    return zeros(src.shape, src.dtype, device or src.device, rg)


def ones_like(src: array, device=None, requires_grad=None, pinned=None) -> array:
    rg = src.requires_grad if requires_grad is None else requires_grad
    return ones(src.shape, src.dtype, device or src.device, rg)


def full_like(src: array, value, device=None, requires_grad=None, pinned=None) -> array:
    rg = src.requires_grad if requires_grad is None else requires_grad
    return full(src.shape, value, src.dtype, device or src.device, rg)


def empty_like(src: array, device=None, requires_grad=None, pinned=None) -> array:
    rg = src.requires_grad if requires_grad is None else requires_grad
    return empty(src.shape, src.dtype, device or src.device, rg)


def from_numpy(arr, dtype=None, shape=None, device=None, requires_grad=False) -> array:
    """An array of numpy data. Without a dtype, as Warp: a 2-D array holds vectors (its rows), a 3-D
    array matrices, any other scalars of its numpy type (a given shape does not change that)."""
    arr = np.asarray(arr)
    if dtype is None:
        from ..types.scalars import scalar_from_numpy

        scalar = scalar_from_numpy(arr.dtype)
        if scalar is None:  # (what wp.array says of it: None values, complex numbers, objects)
            return array(arr, shape=shape, device=device, requires_grad=requires_grad)
        if arr.ndim in (2, 3) and 0 in arr.shape[1:]:
            raise ArgumentTypeError(f"wp.from_numpy reads a {arr.ndim}-D array of shape {arr.shape} as "
                                    f"{'vectors' if arr.ndim == 2 else 'matrices'}, and they cannot have no "
                                    "components; give dtype=")
        dtype = types.vector(arr.shape[1], scalar) if arr.ndim == 2 else \
            types.matrix(arr.shape[1:], scalar) if arr.ndim == 3 else scalar
    return array(arr, dtype=dtype, shape=shape, device=device, requires_grad=requires_grad)


def from_ptr(ptr, length, dtype=None, shape=None, device=None) -> array:
    """Warp's deprecated wp.from_ptr (from OmniGraph's days): an array viewing `length` elements of
    `dtype` at address `ptr` (or `shape`), not owned. Use wp.array(ptr=..., shape=..., dtype=...)."""
    warn("This version of wp.from_ptr() is deprecated. Use wp.array(ptr=ptr, shape=shape, dtype=dtype, "
         "device=device) instead.", DeprecationWarning, stacklevel=2)
    return array(ptr=ptr, dtype=dtype or types.float32, shape=shape if shape is not None else (int(length),),
                 device=device)


def copy(dest: array, src: array, dest_offset: int = 0, src_offset: int = 0, count: int = 0, stream=None) -> None:
    """Copy `count` elements (default, or 0: all of `src` after `src_offset`) from the flattened `src`
    starting at `src_offset` into the flattened `dest` starting at `dest_offset`. As in Warp, offsets
    and counts work on contiguous arrays and on 1-D strided views; arrays of other shapes are copied
    whole. Errors are ValueErrors and, as in Warp, RuntimeErrors. With `stream`, the copy is ordered
    on that stream instead of the device's current one."""
    if stream is not None:
        from ..cuda.streams import ScopedStream
        with ScopedStream(stream):
            return copy(dest, src, dest_offset, src_offset, count)
    _check_copy_range(dest_offset, src_offset, count)
    if not count and getattr(src, "size", None) == 0:  # as Warp: copying all of nothing checks nothing more
        return
    if _gathered(dest) or _gathered(src):
        if dest_offset or src_offset or count not in (0, src.size):
            raise ArgumentValueError("wp.copy with offsets or a count is not supported for indexed or Fabric arrays; "
                                     "copy the whole array, or gather it first with .contiguous()")
        if src.shape != dest.shape:
            raise ArgumentValueError(f"wp.copy of an indexed array needs the same shape: destination "
                                     f"shape={dest.shape}, source shape={src.shape}")
        dest.assign(src.numpy() if isinstance(dest, array) or not isinstance(src, array) else src)
        return
    if not isinstance(dest, array) or not isinstance(src, array):
        raise TypeError("wp.copy(dest, src) copies between two wp.array objects")
    if types.type_size_in_bytes(dest.dtype) != types.type_size_in_bytes(src.dtype):
        raise ArgumentTypeError(f"wp.copy needs elements of the same size: destination "
                                  f"dtype={types.type_name(dest.dtype)}, source dtype={types.type_name(src.dtype)}")
    strided = not (dest.is_contiguous and src.is_contiguous)
    if strided and (dest.ndim != 1 or src.ndim != 1):
        if dest_offset or src_offset or count not in (0, src.size) or count and count != dest.size:  # (as Warp)
            raise ArgumentValueError("wp.copy with offsets or a count between non-contiguous arrays is only supported "
                                     "for 1-D arrays; copy whole arrays, or use a.contiguous()")
        if dest.shape != src.shape:
            raise ArgumentValueError(f"wp.copy between non-contiguous arrays needs the same shape: destination "
                                     f"shape={dest.shape}, source shape={src.shape}")
    count = count or (src.size - src_offset)
    if count < 0:  # (count 0, "the rest", from past the end: Warp's error too)
        raise ArgumentValueError(f"wp.copy from source offset {src_offset}, past the end of the source ({src.size} "
                                 "elements)")
    if src_offset + count > src.size:
        raise ArgumentValueError(f"wp.copy of {count} elements from offset {src_offset} exceeds the source size "
                                 f"({src.size})")
    if dest_offset + count > dest.size:
        raise ArgumentValueError(f"wp.copy of {count} elements to offset {dest_offset} exceeds the destination size "
                                 f"({dest.size})")
    if count <= 0:
        return
    if strided and dest.ndim == 1 and src.ndim == 1 and (dest_offset or src_offset or count != src.size
                                                          or count != dest.size):
        # a 1-D window of a strided view is itself a strided view: copied whole
        _copy_windows(dest[dest_offset:dest_offset + count], src[src_offset:src_offset + count])
        if dest.grad is not None and src.grad is not None:  # as Warp: gradients travel with the values
            _copy_windows(dest.grad[dest_offset:dest_offset + count], src.grad[src_offset:src_offset + count])
        _record_copy(dest, src, dest_offset, src_offset, count)
        return
    if recording.capture is not None:  # inside wp.ScopedCapture: replayed by capture_launch
        if strided:
            raise NotImplementedError("a copy between non-contiguous arrays cannot be captured; copy "
                                      "contiguous arrays (a.contiguous()) or run it outside the capture")
        recording.capture.record(recording.Operation(
            "copy", lambda: copy_elements(dest, src, dest_offset, src_offset, count),
            dest=dest, src=src, dest_offset=dest_offset, src_offset=src_offset, count=count))
        return
    copy_elements(dest, src, dest_offset, src_offset, count)
    if dest.grad is not None and src.grad is not None:  # as Warp: gradients travel with the values
        copy_elements(dest.grad, src.grad, dest_offset, src_offset, count)
    _record_copy(dest, src, dest_offset, src_offset, count)


def _gathered(a) -> bool:
    """Indexed and Fabric arrays: copied by gathering and scattering their elements, not as memory."""
    return getattr(a, "_wp_indexedarray_", False) or getattr(a, "_wp_fabric_", False)


def _check_copy_range(dest_offset, src_offset, count) -> None:
    for value in (dest_offset, src_offset, count):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ArgumentValueError(f"wp.copy offsets and count must be integers, got {value!r}")
    if src_offset < 0:
        raise ArgumentValueError(f"Source offset must be non-negative, got {src_offset}")
    if dest_offset < 0:
        raise ArgumentValueError(f"Destination offset must be non-negative, got {dest_offset}")
    if count < 0:
        raise ArgumentValueError(f"wp.copy count must be non-negative (0 copies everything), got {count}")


def _copy_windows(dest: array, src: array) -> None:
    if recording.capture is not None:
        raise NotImplementedError("a copy between non-contiguous arrays cannot be captured; copy "
                                  "contiguous arrays (a.contiguous()) or run it outside the capture")
    copy_elements(dest, src, 0, 0, src.size)


def _record_copy(dest, src, dest_offset, src_offset, count) -> None:
    if recording.tape is not None:
        recording.tape.record_copy(dest, src, dest_offset, src_offset, count)
