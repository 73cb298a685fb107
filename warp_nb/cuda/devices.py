"""CUDA devices: `cuda:N` as Device objects holding the device's primary context, its current
stream, its memory allocator and the kernels loaded on it. Found through the driver only when
a CUDA device is first asked for (see the backend in cuda/__init__.py)."""

from __future__ import annotations

from functools import cached_property, lru_cache

from . import checks
from . import driver as drv
from ..runtime.devices import Device


class CudaDevice(Device):
    def __init__(self, ordinal: int):
        handle = drv.call("cuDeviceGet", ordinal)
        name = drv.call("cuDeviceGetName", 256, handle)
        name = name.split(b"\0", 1)[0].decode() if isinstance(name, bytes) else str(name)
        super().__init__(f"cuda:{ordinal}", ordinal, name)
        self.handle = handle
        self.context = drv.call("cuDevicePrimaryCtxRetain", handle)
        self.major = drv.attribute(handle, "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR")
        self.minor = drv.attribute(handle, "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR")
        self.sm_count = drv.attribute(handle, "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT")
        self.mempool_supported = bool(drv.attribute(handle, "CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED"))
        self.total_memory = int(drv.call("cuDeviceTotalMem", handle))
        self.modules: dict = {}  # cache key -> loaded module (kept alive with the device)
        from .storage import CudaStorage
        from .target import CudaTarget
        self.storage = CudaStorage(self)
        self.target = CudaTarget(self)
        self._stream = None
        self._peers: dict = {}
        from .allocators import ContextGuard, CudaDefaultAllocator, CudaMempoolAllocator
        self.context_guard = ContextGuard(self)  # (Warp's tests replace it to watch deallocations)
        self._plain_allocator = CudaDefaultAllocator(self)
        self.mempool_allocator = CudaMempoolAllocator(self) if self.mempool_supported else None

    is_uva = True
    is_cubin_supported = True

    @property
    def max_shared_memory_per_block(self) -> int:
        return drv.attribute(self.handle, "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK")

    @cached_property
    def max_shared_memory_per_block_optin(self) -> int:
        """The shared memory a block may have in all (static and dynamic) once a kernel opts in
        (cuFuncSetAttribute): 227 KiB on sm_90."""
        return drv.attribute(self.handle, "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN")
    is_primary = True
    has_context = True
    has_stream = True

    @property
    def is_mempool_supported(self) -> bool:
        return self.mempool_supported

    is_mempool_enabled = is_mempool_supported

    def get_cuda_device(self):
        return self

    @property
    def default_allocator(self):
        """The built-in allocator arrays use: the stream-ordered pool where the device has one."""
        return self.mempool_allocator or self._plain_allocator

    def get_cuda_compile_arch(self) -> int:
        """The architecture kernels for this device are compiled for (its own, or the newest below
        it that this NVRTC knows, as PTX)."""
        return self.target.arch

    @property
    def pci_bus_id(self) -> str:
        """'domain:bus:device' in hexadecimal, as Warp reports it (e.g. '0000:1B:00')."""
        ids = [drv.attribute(self.handle, f"CU_DEVICE_ATTRIBUTE_PCI_{part}_ID") for part in ("DOMAIN", "BUS", "DEVICE")]
        return "{:04X}:{:02X}:{:02X}".format(*ids)

    @property
    def free_memory(self) -> int:
        return self.memory_info()[0]

    @property
    def arch(self) -> int:
        return self.major * 10 + self.minor

    def make_current(self) -> None:
        drv.call("cuCtxSetCurrent", self.context)

    @property
    def stream(self):
        """The device's current stream (launches and copies on this device go to it)."""
        if self._stream is None:
            from .streams import Stream
            self._stream = Stream(self)
        return self._stream

    @stream.setter
    def stream(self, stream) -> None:
        if stream.device is not self:
            raise ValueError(f"stream of {stream.device} cannot be the current stream of {self}")
        self._stream = stream

    def synchronize(self) -> None:
        self.make_current()
        drv.call("cuCtxSynchronize")
        checks.raise_failures(self)

    def properties(self) -> dict:
        free, total = self.memory_info()
        return {"alias": self.alias, "name": self.name, "arch": f"sm_{self.arch}", "SMs": self.sm_count,
                "memory": f"{total / 2**30:.1f} GiB ({free / 2**30:.1f} GiB free)",
                "memory pool": self.mempool_supported}

    def memory_info(self) -> tuple[int, int]:
        self.make_current()
        free, total = drv.call("cuMemGetInfo")
        return int(free), int(total)

    def mempool_attribute(self, name: str) -> int:
        """A byte count of the device's default memory pool: CU_MEMPOOL_ATTR_<name> (RELEASE_THRESHOLD,
        USED_MEM_CURRENT, USED_MEM_HIGH)."""
        d = drv._driver()
        pool = drv.call("cuDeviceGetDefaultMemPool", self.handle)
        return int(drv.call("cuMemPoolGetAttribute", pool, getattr(d.CUmemPool_attribute, f"CU_MEMPOOL_ATTR_{name}")))

    def set_mempool_attribute(self, name: str, value: int) -> None:
        d = drv._driver()
        pool = drv.call("cuDeviceGetDefaultMemPool", self.handle)
        drv.call("cuMemPoolSetAttribute", pool, getattr(d.CUmemPool_attribute, f"CU_MEMPOOL_ATTR_{name}"),
                 d.cuuint64_t(int(value)))

    def can_access_peer(self, other: "CudaDevice") -> bool:
        if other is self:
            return True
        hit = self._peers.get(other.ordinal)
        if hit is None:
            hit = bool(drv.call("cuDeviceCanAccessPeer", self.handle, other.handle))
            if hit:
                self.make_current()
                try:
                    drv.call("cuCtxEnablePeerAccess", other.context, 0)
                except drv.CUDAError as e:  # already enabled is fine
                    if "ALREADY_ENABLED" not in str(e):
                        raise
            self._peers[other.ordinal] = hit
        return hit


@lru_cache(maxsize=1)
def _devices() -> tuple:
    ok, _ = drv.available()
    if not ok:
        return ()
    count = int(drv.call("cuDeviceGetCount"))
    return tuple(CudaDevice(i) for i in range(count))


def enumerate_devices() -> list:
    """The CUDA devices of this machine; empty without a driver or GPU (never raises)."""
    try:
        return list(_devices())
    except Exception:  # a broken driver counts as no GPU for the CPU path
        return []


def unavailable_reason() -> str:
    return drv.available()[1] or ""

