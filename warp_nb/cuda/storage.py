"""Array memory on CUDA devices (`CudaStorage`, one per device) and page-locked host memory
(`PinnedStorage`): allocation, upload, download (`.numpy()` copies and waits, as in Warp), fills,
copies between devices, and the `__cuda_array_interface__`. Strided views move the bytes they
span and are reassembled on the host (copies with one too); contiguous arrays move exactly their bytes."""

from __future__ import annotations

import ctypes

import numpy as np

from . import memory as mem
from .. import types as T
from ..runtime.storage import CpuStorage, MemoryKind, Storage


def _span(a) -> tuple[int, int]:
    """(byte offset of the first byte, byte length) that a strided view touches, from a.ptr."""
    elem = T.type_size_in_bytes(a.dtype)
    if a.size == 0:
        return 0, 0
    low = sum(min(0, (n - 1) * s) for n, s in zip(a.shape, a.strides))
    high = sum(max(0, (n - 1) * s) for n, s in zip(a.shape, a.strides)) + elem
    return low, high - low


def _host_view(a, raw: np.ndarray, low: int) -> np.ndarray:
    """A numpy view of `raw` (the bytes of the span) with the array's shape and strides."""
    dtype = T.numpy_dtype(a.dtype)
    inner = T.numpy_inner_shape(a.dtype)
    inner_strides = tuple(np.cumprod((1,) + inner[::-1])[-2::-1] * dtype.itemsize) if inner else ()
    return np.ndarray(a.shape + inner, dtype=dtype, buffer=raw, offset=-low,
                      strides=a.strides + tuple(int(s) for s in inner_strides))


class CudaStorage(Storage):
    """Memory of one CUDA device; every transfer is ordered on the device's current stream."""

    @property
    def memory_kind(self) -> MemoryKind:  # allocate() takes from the stream-ordered pool where there is one
        return MemoryKind.CUDA_MEMPOOL if self.device.mempool_supported else MemoryKind.CUDA_DEVICE

    def __init__(self, device):
        self.device = device

    def allocate(self, nbytes: int, zero: bool):
        custom = self.device.custom_allocator  # wp.set_device_allocator (runtime/allocators.py)
        if custom is not None and nbytes:
            from ..runtime.allocators import AllocatedBuffer
            self.device.make_current()
            buf = AllocatedBuffer(self.device, custom, nbytes)
        else:
            buf = mem.DeviceBuffer(self.device, nbytes)
        if zero:
            mem.memset(self.device, buf.ptr, 0, nbytes)
        return buf

    def to_numpy(self, a, synchronize: bool = True) -> np.ndarray:
        """A host copy (waits for the device's stream by default)."""
        low, length = _span(a)
        raw = np.empty(max(length, 1), dtype=np.uint8)
        mem.device_to_host(a.device, raw.ctypes.data, (a.ptr or 0) + low, length, synchronize=synchronize)
        out = _host_view(a, raw, low).copy() if not a.is_contiguous else _host_view(a, raw, low)
        if out.dtype.kind == "V" and not out.dtype.fields:
            out = out.view(T.numpy_dtype(a.dtype))
        return out

    def upload(self, a, values: np.ndarray) -> None:
        if a.is_contiguous:
            host = np.ascontiguousarray(values, dtype=T.numpy_dtype(a.dtype))
            mem.host_to_device(a.device, a.ptr or 0, host.ctypes.data, host.nbytes)
            a.device.stream.synchronize()  # the host buffer may be freed as soon as we return
            return
        low, length = _span(a)  # a strided view: read the span, patch it, write it back
        raw = np.empty(length, dtype=np.uint8)
        mem.device_to_host(a.device, raw.ctypes.data, (a.ptr or 0) + low, length)
        _host_view(a, raw, low)[...] = values
        mem.host_to_device(a.device, (a.ptr or 0) + low, raw.ctypes.data, length)
        a.device.stream.synchronize()

    def fill(self, a, element: np.ndarray) -> None:
        raw = np.ascontiguousarray(element).view(np.uint8).reshape(-1)
        if a.is_contiguous and not raw.any():
            mem.memset(a.device, a.ptr or 0, 0, a.size * T.type_size_in_bytes(a.dtype))
            return
        if a.is_contiguous and raw.size == 4:
            mem.memset32(a.device, a.ptr or 0, int(raw.view(np.uint32)[0]), a.size)
            return
        super().fill(a, element)

    def zero(self, a) -> None:
        # one element of zeros in the dtype's numpy layout (a strided view is filled element-wise)
        self.fill(a, np.zeros(T.numpy_inner_shape(a.dtype), dtype=T.numpy_dtype(a.dtype)))

    def copy(self, dest, src, dest_offset: int, src_offset: int, count: int) -> None:
        """Ordered on the destination's stream (the source's for device-to-host). A device-to-host
        copy into pageable memory is complete on return; one into pinned memory needs
        wp.synchronize(), as in Warp."""
        if not (dest.is_contiguous and src.is_contiguous):
            _copy_strided(dest, src, dest_offset, src_offset, count)
            return
        elem = T.type_size_in_bytes(src.dtype)
        nbytes = count * elem
        dst_ptr, src_ptr = (dest.ptr or 0) + dest_offset * elem, (src.ptr or 0) + src_offset * elem
        if dest.storage is self and src.storage.host_accessible:
            mem.host_to_device(dest.device, dst_ptr, src_ptr, nbytes)
            dest.device.stream.synchronize()  # pageable host memory may change right after
        elif dest.storage is self:
            if dest.device is not src.device:
                dest.device.can_access_peer(src.device)
            mem.device_to_device(dest.device, dst_ptr, src.device, src_ptr, nbytes)
        else:
            pinned = isinstance(dest.storage, PinnedStorage)
            mem.device_to_host(src.device, dst_ptr, src_ptr, nbytes, synchronize=not pinned)

    def cuda_array_interface(self, a) -> dict:
        dtype = T.numpy_dtype(a.dtype)
        inner = T.numpy_inner_shape(a.dtype)
        inner_strides = tuple(int(s) for s in np.cumprod((1,) + inner[::-1])[-2::-1] * dtype.itemsize) if inner else ()
        return {"version": 3, "shape": a.shape + inner, "typestr": dtype.str, "descr": [("", dtype.str)],
                "data": (a.ptr or 0, False), "strides": a.strides + inner_strides,
                "stream": a.device.stream.cuda_stream}

    def before_export(self, a, stream) -> None:
        if stream is not None and (not isinstance(stream, int) or stream < -1):
            raise TypeError(f"DLPack stream must None or an integer >= -1, got {stream!r}")  # Warp's wording
        if stream not in (None, -1):
            a.device.stream.synchronize()  # simple and safe: the consumer's stream sees our results


def _copy_strided(dest, src, dest_offset: int, src_offset: int, count: int) -> None:
    """wp.copy with a strided view on either side: elements [src_offset, src_offset + count) of
    `src` in row-major order into the same run of `dest`, through the host (each side's span is
    read once; a CUDA destination's span is patched and written back). Synchronous."""
    inner = T.numpy_inner_shape(src.dtype)
    values = np.asarray(src.numpy()).reshape((-1,) + inner)[src_offset:src_offset + count]
    to, to_inner = T.numpy_dtype(dest.dtype), T.numpy_inner_shape(dest.dtype)
    if values.dtype != to or inner != to_inner:  # another element type of the same size: its bytes, as Warp
        values = np.ascontiguousarray(values).view(np.uint8).reshape(count, -1).view(to).reshape((count,) + to_inner)
    where = np.unravel_index(np.arange(dest_offset, dest_offset + count), dest.shape)
    if dest.storage.host_accessible:
        dest.numpy()[where] = values  # a view of host memory: written in place
        return
    current = np.array(dest.numpy())
    current[where] = values
    dest.storage.upload(dest, current)


class PinnedStorage(CpuStorage):
    """Page-locked host memory: numpy views as for ordinary host memory, faster and truly
    asynchronous copies to and from devices."""

    memory_kind = MemoryKind.PINNED

    def allocate(self, nbytes: int, zero: bool) -> mem.PinnedBuffer:
        buf = mem.PinnedBuffer(nbytes)
        if zero:
            ctypes.memset(buf.ptr, 0, nbytes)
        return buf
