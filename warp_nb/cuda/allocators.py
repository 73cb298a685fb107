"""The built-in allocators of a CUDA device (runtime/allocators.py has the protocol and how arrays
use them): plain device memory (cuMemAlloc), the device's stream-ordered pool (cuMemAllocAsync on
its current stream, what arrays use by default where the device has pools) and managed memory
(cuMemAllocManaged, in the context current when it allocates)."""

from __future__ import annotations

from . import driver as drv


class CudaDefaultAllocator:
    def __init__(self, device):
        self.device = device

    def allocate(self, size_in_bytes: int) -> int:
        self.device.make_current()
        return drv.to_int(drv.call("cuMemAlloc", int(size_in_bytes)))

    def deallocate(self, ptr: int, size_in_bytes: int) -> None:
        self.device.make_current()
        drv.call("cuMemFree", int(ptr))


class CudaMempoolAllocator:
    def __init__(self, device):
        self.device = device

    def allocate(self, size_in_bytes: int) -> int:
        self.device.make_current()
        return drv.to_int(drv.call("cuMemAllocAsync", int(size_in_bytes), self.device.stream.handle))

    def deallocate(self, ptr: int, size_in_bytes: int) -> None:
        self.device.make_current()
        drv.call("cuMemFreeAsync", int(ptr), self.device.stream.handle)


class CudaManagedAllocator:
    """Managed (unified) memory, reachable from the host and every device, in the current context."""

    def allocate(self, size_in_bytes: int) -> int:
        d = drv._driver()
        try:
            return drv.to_int(drv.call("cuMemAllocManaged", int(size_in_bytes),
                                       int(d.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL)))
        except (drv.CUDAError, drv.CUDAOutOfMemoryError) as e:
            raise RuntimeError(f"Failed to allocate {int(size_in_bytes)} bytes with CudaManagedAllocator: {e}") from None

    def deallocate(self, ptr: int, size_in_bytes: int) -> None:
        drv.call("cuMemFree", int(ptr))


class ContextGuard:
    """`with device.context_guard:` runs the block with the device's context current."""

    def __init__(self, device):
        self.device = device

    def __enter__(self):
        self.device.make_current()
        return self

    def __exit__(self, *exc):
        return False
