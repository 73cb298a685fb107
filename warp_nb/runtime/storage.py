"""Where array memory lives and how bytes move: one `Storage` object per kind of memory, held by
the device (`device.storage`). `wp.array` asks its storage for everything that depends on the
memory kind (allocation, host views, uploads, fills, copies, the CUDA array interface), so the
array code has no per-device branches. Host memory is here; device memory is
`warp_nb.cuda.storage`. Knows numpy and the type layouts; knows nothing about kernels."""

from __future__ import annotations

import numpy as np

from .. import types as T
from ..types.memory_kind import MemoryKind

_ALIGN = 64  # bytes: enough for any vector load the C++ compiler may emit


class Storage:
    """The operations `wp.array` needs from one kind of memory. `a` is always a wp.array."""

    host_accessible = False  # its memory can be read by numpy in place
    memory_kind = MemoryKind.UNKNOWN

    def allocate(self, nbytes: int, zero: bool):
        """An owner of `nbytes` of memory (kept alive by the array), with its address as `.ptr`."""
        raise NotImplementedError

    def to_numpy(self, a) -> np.ndarray:
        """The array's elements as numpy (a view where the memory allows, else a copy)."""
        raise NotImplementedError

    def upload(self, a, values: np.ndarray) -> None:
        """Write host `values`, already in the array's numpy layout and shape."""
        raise NotImplementedError

    def fill(self, a, element: np.ndarray) -> None:
        """Set every element to `element` (one element in the dtype's numpy layout)."""
        self.upload(a, np.broadcast_to(element, a.shape + T.numpy_inner_shape(a.dtype)))

    def zero(self, a) -> None:
        """Set every byte of every element to zero."""
        raise NotImplementedError

    def copy(self, dest, src, dest_offset: int, src_offset: int, count: int) -> None:
        """wp.copy of `count` flattened elements; asked of the destination's storage, or of the
        source's when the destination is host memory."""
        raise NotImplementedError

    def cuda_array_interface(self, a) -> dict:
        raise AttributeError("a CPU array has no __cuda_array_interface__; use __array_interface__ or numpy()")

    def before_export(self, a, stream) -> None:
        """Called before a consumer on `stream` reads the array through DLPack. Host memory has no
        streams: DLPack allows only None or -1 ("no synchronization") for it."""
        if stream is not None and not (isinstance(stream, int) and stream == -1):
            raise TypeError(f"DLPack stream must be None or -1 for CPU device, got {stream!r}")


class _Buffer:
    """Aligned host memory inside a numpy byte array."""

    __slots__ = ("bytes", "ptr")

    def __init__(self, nbytes: int, zero: bool):
        self.bytes = (np.zeros if zero else np.empty)(nbytes + _ALIGN, dtype=np.uint8)
        self.ptr = self.bytes.ctypes.data + (-self.bytes.ctypes.data) % _ALIGN


class _Interface:
    """Only the array interface of a host array, so numpy builds a view (not a copy through
    __array__); the view keeps the array alive through this object."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, a):
        self.__array_interface__ = a.__array_interface__
        self.owner = a


_NOWHERE = np.zeros(_ALIGN, np.uint8)  # an address for arrays without memory (numpy refuses a null pointer)


def _elements(a) -> np.ndarray:
    """A host array's elements as numpy void items of the element's size, in place."""
    interface = {"version": 3, "shape": a.shape, "typestr": f"|V{T.type_size_in_bytes(a.dtype)}",
                 "data": (a.ptr or _NOWHERE.ctypes.data, False), "strides": a.strides}
    return np.asarray(_Raw(interface, a))


class _Raw:
    __slots__ = ("__array_interface__", "owner")

    def __init__(self, interface: dict, owner):
        self.__array_interface__ = interface
        self.owner = owner


class CpuStorage(Storage):
    """Ordinary host memory: numpy views share it, copies are numpy assignments."""

    host_accessible = True
    memory_kind = MemoryKind.HOST

    def allocate(self, nbytes: int, zero: bool):
        return _Buffer(nbytes, zero)

    def to_numpy(self, a) -> np.ndarray:
        out = np.asarray(_Interface(a))
        if out.dtype.kind == "V" and not out.dtype.fields:
            out = out.view(T.numpy_dtype(a.dtype))
        return out

    def upload(self, a, values: np.ndarray) -> None:
        target = self.to_numpy(a)
        target[...] = values.reshape(target.shape)

    def fill(self, a, element: np.ndarray) -> None:
        self.to_numpy(a)[...] = element

    def zero(self, a) -> None:
        self.to_numpy(a)[...] = 0

    def copy(self, dest, src, dest_offset: int, src_offset: int, count: int) -> None:
        # elements as opaque bytes: element types of one size but other layouts (mat22h into int64,
        # vec2d into mat22f) are copied as they are, as Warp's memcpy does
        s, d = _elements(src), _elements(dest)
        if dest.is_contiguous:
            d.reshape(-1)[dest_offset: dest_offset + count] = s.reshape(-1)[src_offset: src_offset + count]
        elif src.shape == dest.shape and count == src.size and not (src_offset or dest_offset):
            d[...] = s
        else:
            raise ValueError("wp.copy with offsets or a count needs a contiguous destination; "
                             "use a.contiguous() or copy whole arrays of the same shape")
