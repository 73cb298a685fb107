"""Device memory for CUDA arrays: allocations (from the device's stream-ordered memory pool
where supported), pinned host memory, and the copies and fills between host and device and
between devices, each ordered on a stream."""

from __future__ import annotations

import ctypes
import weakref

from . import driver as drv


class DeviceBuffer:
    """`nbytes` of memory on a CUDA device, freed (stream-ordered) when the last reference goes."""

    def __init__(self, device, nbytes: int):
        self.device = device
        self.nbytes = int(nbytes)
        self.ptr = 0
        if self.nbytes == 0:
            return
        device.make_current()
        stream = device.stream.handle
        if device.mempool_supported:
            ptr = drv.call("cuMemAllocAsync", self.nbytes, stream)
        else:
            ptr = drv.call("cuMemAlloc", self.nbytes)
        self.ptr = drv.to_int(ptr)
        weakref.finalize(self, _free, device, ptr, device.mempool_supported, stream)


def _free(device, ptr, pooled: bool, stream) -> None:
    try:
        device.make_current()
        if pooled:
            drv.call("cuMemFreeAsync", ptr, stream)
        else:
            drv.call("cuMemFree", ptr)
    except Exception:  # the driver may already be gone at interpreter exit
        pass


class PinnedBuffer:
    """Page-locked host memory (faster, truly asynchronous copies to and from devices)."""

    def __init__(self, nbytes: int):
        self.nbytes = int(nbytes)
        ptr = drv.call("cuMemAllocHost", max(self.nbytes, 1))
        self.ptr = drv.to_int(ptr)
        self.ctype = (ctypes.c_ubyte * max(self.nbytes, 1)).from_address(self.ptr)
        weakref.finalize(self, _free_host, ptr)


def _free_host(ptr) -> None:
    try:
        drv.call("cuMemFreeHost", ptr)
    except Exception:
        pass


def host_to_device(device, dst: int, src: int, nbytes: int, stream=None) -> None:
    if nbytes:
        device.make_current()
        drv.call("cuMemcpyHtoDAsync", dst, src, nbytes, (stream or device.stream).handle)


def device_to_host(device, dst: int, src: int, nbytes: int, stream=None, synchronize: bool = True) -> None:
    """Copy to host memory; with `synchronize` the data is there when this returns (what
    .numpy() needs), otherwise only after the stream has reached the copy."""
    if nbytes:
        device.make_current()
        s = stream or device.stream
        drv.call("cuMemcpyDtoHAsync", dst, src, nbytes, s.handle)
        if synchronize:
            s.synchronize()  # also raises a failed check of the launches before (cuda/checks.py)


def device_to_device(dst_device, dst: int, src_device, src: int, nbytes: int, stream=None) -> None:
    """Copy between two device buffers, on the same device or between two (peer copy)."""
    if not nbytes:
        return
    s = stream or dst_device.stream
    dst_device.make_current()
    if dst_device is src_device:
        drv.call("cuMemcpyDtoDAsync", dst, src, nbytes, s.handle)
    else:
        drv.call("cuMemcpyPeerAsync", dst, dst_device.context, src, src_device.context, nbytes, s.handle)


def memset(device, dst: int, byte: int, nbytes: int, stream=None) -> None:
    """Set `nbytes` bytes to `byte`."""
    if nbytes:
        device.make_current()
        drv.call("cuMemsetD8Async", dst, byte, nbytes, (stream or device.stream).handle)


def memset32(device, dst: int, pattern: int, count: int, stream=None) -> None:
    """Set `count` 32-bit words to `pattern` (fills float32/int32 arrays with one value)."""
    if count:
        device.make_current()
        drv.call("cuMemsetD32Async", dst, pattern, count, (stream or device.stream).handle)
