"""The CUDA backend: devices (`cuda:N`), their memory, streams and events, and the target that
compiles kernels with NVRTC and launches them through the driver API. Importing this package
registers the backend with `runtime.devices` and loads nothing: the driver is first touched
when a CUDA device is asked for."""

from ..runtime.devices import Backend, register_backend


class CudaBackend(Backend):
    prefix = "cuda"
    _pinned = None

    def devices(self) -> list:
        from .devices import enumerate_devices
        return enumerate_devices()

    def driver_version(self) -> int:
        from . import driver
        if not driver.available()[0]:
            return 0
        return int(driver.call("cuDriverGetVersion"))

    def aot_target(self, arch: int | None, use_ptx: bool):
        from .target import AotCudaTarget
        return AotCudaTarget(arch, use_ptx)

    def pinned_storage(self):
        if self._pinned is None:
            from .storage import PinnedStorage
            CudaBackend._pinned = PinnedStorage()
        return self._pinned


register_backend(CudaBackend())
