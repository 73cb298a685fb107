"""Pluggable device allocators (Warp's allocator API): an object with `allocate(size_in_bytes) -> ptr`
and `deallocate(ptr, size_in_bytes)` can take over the memory of a CUDA device's arrays
(`wp.set_device_allocator`, `wp.set_cuda_allocator`, `wp.ScopedAllocator`), for example to share
PyTorch's or RMM's memory pool. Each device keeps its built-in allocators as well
(`device.default_allocator`, and `pinned_allocator` on the CPU or `mempool_allocator` on a GPU),
which a custom allocator may delegate to.

An array allocated through an allocator keeps that allocator: it is freed through it (with its
device's context current, `device.context_guard`) even after the device has been given another one.
Host arrays always use host memory: the CPU's allocator cannot be replaced, as in Warp."""

from __future__ import annotations

import weakref
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Allocator(Protocol):
    """What warp_nb asks of an allocator: raw memory of a size, and its return."""

    def allocate(self, size_in_bytes: int) -> int: ...

    def deallocate(self, ptr: int, size_in_bytes: int) -> None: ...


class HostAllocator:
    """Ordinary host memory (numpy buffers, 64-byte aligned), the CPU's default allocator."""

    _ALIGN = 64

    def __init__(self):
        self._buffers: dict[int, np.ndarray] = {}

    def allocate(self, size_in_bytes: int) -> int:
        raw = np.empty(int(size_in_bytes) + self._ALIGN, dtype=np.uint8)
        ptr = raw.ctypes.data + (-raw.ctypes.data) % self._ALIGN
        self._buffers[ptr] = raw
        return ptr

    def deallocate(self, ptr: int, size_in_bytes: int) -> None:
        self._buffers.pop(int(ptr), None)


class PinnedHostAllocator:
    """Page-locked host memory from the GPU backend (the CPU's pinned storage); ordinary host
    memory on a machine without a GPU, where pinning would gain nothing (as `pinned=True` arrays)."""

    def __init__(self):
        self._buffers: dict[int, object] = {}

    def allocate(self, size_in_bytes: int) -> int:
        from .devices import get_device
        storage = get_device("cpu").pinned_storage or get_device("cpu").storage
        buffer = storage.allocate(int(size_in_bytes), False)
        self._buffers[buffer.ptr] = buffer
        return buffer.ptr

    def deallocate(self, ptr: int, size_in_bytes: int) -> None:
        self._buffers.pop(int(ptr), None)


class AllocatedBuffer:
    """The memory of one array allocated through an allocator: returned to that allocator, on the
    array's device, when the last view of it goes."""

    __slots__ = ("ptr", "nbytes", "__weakref__")

    def __init__(self, device, allocator, nbytes: int):
        self.nbytes = int(nbytes)
        self.ptr = int(allocator.allocate(self.nbytes))  # an allocator's failure propagates as it is
        weakref.finalize(self, _deallocate, device, allocator, self.ptr, self.nbytes)


def _deallocate(device, allocator, ptr: int, nbytes: int) -> None:
    try:
        with device.context_guard:
            allocator.deallocate(ptr, nbytes)
    except Exception:  # noqa: BLE001  (at interpreter exit the driver may be gone)
        pass


def _resolve(device):
    from .devices import get_device
    return get_device(device)


def set_device_allocator(device, allocator) -> None:
    """Allocate the arrays of CUDA `device` through `allocator` from now on (None: the built-in one
    again). Arrays already allocated keep the allocator that made them."""
    device = _resolve(device)
    if not device.is_cuda:
        raise RuntimeError(f"set_device_allocator: the allocator of {device} cannot be replaced (host arrays always "
                           "use host memory); give a CUDA device")
    if allocator is not None and not isinstance(allocator, Allocator):
        raise TypeError(f"set_device_allocator: {type(allocator).__name__} has no allocate(size_in_bytes) and "
                        "deallocate(ptr, size_in_bytes) methods")
    device.custom_allocator = allocator


def get_device_allocator(device):
    """The allocator the next array on `device` is allocated with."""
    device = _resolve(device)
    return getattr(device, "custom_allocator", None) or device.default_allocator


def set_cuda_allocator(allocator) -> None:
    """set_device_allocator on every CUDA device."""
    from .devices import get_cuda_devices
    for device in get_cuda_devices():
        set_device_allocator(device, allocator)


class ScopedAllocator:
    """`with wp.ScopedAllocator(device, allocator):` allocates the device's arrays through
    `allocator` inside the block and restores the previous one afterwards, also on an exception."""

    def __init__(self, device, allocator):
        self.device, self.allocator = _resolve(device), allocator

    def __enter__(self):
        self.saved = getattr(self.device, "custom_allocator", None)
        set_device_allocator(self.device, self.allocator)
        return self

    def __exit__(self, *exc):
        self.device.custom_allocator = self.saved
        return False


class AllocatorRmm:
    """RAPIDS Memory Manager's device memory as a warp_nb allocator (needs the `rmm` package:
    ImportError without it, as in Warp)."""

    def __init__(self):
        import rmm  # noqa: F401  (raises ImportError where RMM is not installed)
        self._rmm = rmm
        self._buffers: dict[int, object] = {}

    def allocate(self, size_in_bytes: int) -> int:
        buffer = self._rmm.DeviceBuffer(size=int(size_in_bytes))
        self._buffers[int(buffer.ptr)] = buffer
        return int(buffer.ptr)

    def deallocate(self, ptr: int, size_in_bytes: int) -> None:
        self._buffers.pop(int(ptr), None)
