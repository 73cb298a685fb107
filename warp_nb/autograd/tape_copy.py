"""The adjoint of a recorded `wp.copy` (and of `wp.clone` and `array.assign`, which record one).

Forward, `count` elements of the flattened source, from `src_offset`, overwrite the flattened
destination from `dest_offset`. Backward, as for a kernel that stores them:

- the destination's gradient over the copied window is added to the source's gradient over its
  window (accumulated: the source may be read elsewhere too), and
- the destination's gradient over the window is consumed (zeroed): the values written before the
  copy are dead, so whatever wrote them must get no gradient from these elements (unless the
  destination was made with retain_grad=True, as for kernels).

Windows are in logical element order, so strided views and offsets land in exactly the copied
elements. Where that accounting does not hold, the gradient is copied back as bytes over the
source's window and the destination keeps its gradient (with a warning, once): windows of one
buffer that overlap, and element types without float arithmetic (structs, booleans, integers,
or two different types of one size reinterpreted)."""

from __future__ import annotations

import warnings

import numpy as np

from .. import types as T
from ..arrays.array import array, copy_elements
from ..runtime import compat_hooks


def copy_adjoint(dest: array, src: array, dest_offset: int, src_offset: int, count: int) -> None:
    dest_grad, src_grad = dest.grad, src.grad
    if dest_grad is None or src_grad is None or count <= 0:
        return
    problem = _untracked(dest, src, dest_offset, src_offset, count)
    if problem is not None:
        _log_warning(f"wp.copy() adjoint: {problem} cannot yet be fully tracked; the destination's gradient is "
                     "copied back into the source's gradient as bytes and is not consumed",
                     category=UserWarning, stacklevel=5, once=True)
        copy_elements(src_grad, dest_grad, src_offset, dest_offset, count)
        return
    d, d_index = _window(dest_grad, dest_offset, count)
    s, s_index = _window(src_grad, src_offset, count)
    s[s_index] += d[d_index]
    if not dest.retain_grad:
        d[d_index] = 0
    _write_back(src_grad, s)
    _write_back(dest_grad, d)


def _untracked(dest, src, dest_offset, src_offset, count) -> str | None:
    """Why this copy's adjoint cannot accumulate and consume, or None when it can."""
    scalar = T.scalar_type_of(src.dtype)
    if not T.types_equal(dest.dtype, src.dtype) or scalar is None or scalar._kind != "float":
        return (f"a copy between unsupported gradient dtypes ({T.type_name(src.dtype)} to "
                f"{T.type_name(dest.dtype)})")
    if dest.device != src.device:
        return None if dest.grad.is_contiguous and src.grad.is_contiguous else "a non-contiguous copy between devices"
    if _overlaps(_extent(dest, dest_offset, count), _extent(src, src_offset, count)):
        return "an overlapping copy (source and destination share memory)"
    return None


def _extent(a: array, offset: int, count: int) -> tuple[int, int]:
    """The byte range [first, last) the window's elements occupy."""
    index = np.unravel_index(np.arange(offset, offset + count), a.shape)
    addresses = (a.ptr or 0) + sum(np.asarray(i, dtype=np.int64) * stride for i, stride in zip(index, a.strides))
    return int(addresses.min()), int(addresses.max()) + T.type_size_in_bytes(a.dtype)


def _overlaps(x: tuple, y: tuple) -> bool:
    return x[0] < y[1] and y[0] < x[1]


def _window(grad: array, offset: int, count: int):
    """The gradient's values as numpy (a view of CPU memory, else a host copy) and the index of the
    window's elements (in logical, row-major order)."""
    values = grad.numpy()
    return values, np.unravel_index(np.arange(offset, offset + count), grad.shape)


def _write_back(grad: array, values: np.ndarray) -> None:
    """Device memory: numpy() gave a copy, so upload the result."""
    if not grad.storage.host_accessible:
        grad.assign(values)


_warned: set = set()


def _log_warning(message: str, category=UserWarning, stacklevel: int = 2, once: bool = False) -> None:
    """Warn (once per message). Warp's tests count these warnings by patching
    warp._src.context.log_warning, so when that module is loaded the call goes through it
    (runtime/compat_hooks.py)."""
    log = compat_hooks.resolve("context", "log_warning", None)
    if log is not None:
        log(message, category=category, stacklevel=stacklevel, once=once)
        return
    if once and message in _warned:
        return
    _warned.add(message)
    warnings.warn(message, category, stacklevel=stacklevel + 1)
