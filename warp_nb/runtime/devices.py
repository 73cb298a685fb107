"""Devices by name: `cpu`, `cuda`, `cuda:N`; the default device and its scoped override;
synchronisation. Each device carries the two objects that make it a kind of device: its
`target` (how kernels are built, loaded and run there) and its `storage` (how array memory is
allocated and moved). Device kinds other than the CPU come from backends that register here
(`warp_nb.cuda`); a backend is asked for its devices only when one is first named, so the CPU
path never touches a GPU driver. Knows nothing about kernels."""

from __future__ import annotations

import contextlib
import os
import platform
import threading
import typing

from .storage import CpuStorage
from .target import CpuTarget


class DeviceError(RuntimeError, ValueError):
    """A device was named that this machine does not have, or cannot be used for this. A ValueError
    too: Warp raises ValueError("Invalid device identifier") for a name it cannot resolve ("cuda:0"
    without a GPU, "bogus") and RuntimeError for "cuda" without one; code catching either catches it."""


class Device:
    """One place where arrays live and kernels run. Compared and hashed by alias. A device kind
    sets `target` and `storage`."""

    target = None  # runtime.target.Target
    storage = None  # runtime.storage.Storage

    def __init__(self, alias: str, ordinal: int = -1, name: str = ""):
        self.alias = alias
        self.ordinal = ordinal
        self.name = name or alias

    @property
    def is_cpu(self) -> bool:
        return self.alias == "cpu"

    @property
    def is_cuda(self) -> bool:
        return self.alias.startswith("cuda")

    @property
    def arch(self) -> int:
        return 0

    # Warp's device attributes; a CUDA device overrides what differs
    is_mempool_supported = False
    is_mempool_enabled = False
    is_uva = False
    is_cubin_supported = False
    is_primary = False
    has_context = False
    has_stream = False
    context = None  # Warp's CUDA context handle (a CUDA device sets its own); None on the CPU
    sm_count = 0
    max_shared_memory_per_block = 0
    # Warp's unified-memory capabilities: none without a GPU; warp_nb's CUDA devices claim none either
    # (they copy between host and device, never dereference the other side's pointers)
    custom_allocator = None  # set by wp.set_device_allocator (runtime/allocators.py)
    context_guard = contextlib.nullcontext()  # `with device.context_guard:` (a CUDA device's makes it current)
    is_cpu_memory_access_from_gpu_supported = False
    is_gpu_memory_access_from_cpu_supported = False
    is_cpu_gpu_atomic_supported = False
    is_managed_memory_supported = False
    is_concurrent_managed_access_supported = False

    @property
    def is_capturing(self) -> bool:
        """Whether a graph capture (wp.ScopedCapture, capture_begin) is recording on this device now
        (not while capture_pause has suspended it)."""
        from . import recording
        return recording.capture is not None and recording.capture.device == self

    def can_access(self, other) -> bool:
        """Whether kernels on this device may dereference memory of device `other` (itself; the
        host where the GPU reads host memory; a peer GPU with peer access enabled)."""
        other = get_device(other)
        if other == self:
            return True
        if other.is_cpu:
            return self.is_cuda and self.is_cpu_memory_access_from_gpu_supported
        return self.is_cuda and is_peer_access_enabled(other, self)

    def get_cuda_device(self):
        raise DeviceError(f"{self.alias} is not a CUDA device")

    def properties(self) -> dict:
        """What a device picker shows: a few facts about this device."""
        return {"alias": self.alias, "name": self.name, "threads": cpu_thread_count()}

    def __str__(self):
        return self.alias

    def __repr__(self):
        return f'Device("{self.alias}")'

    def __eq__(self, other):
        if isinstance(other, str):
            try:
                other = get_device(other)
            except DeviceError:
                return False
        return isinstance(other, Device) and other.alias == self.alias

    def __hash__(self):
        return hash(self.alias)

    def __enter__(self):
        self._scope = ScopedDevice(self)
        return self._scope.__enter__()

    def __exit__(self, *exc):
        self._scope.__exit__(*exc)


#: what a `device=` argument takes (Warp's wp.DeviceLike, for annotations): a Device, its alias
#: ("cpu", "cuda:0", "cuda"), or None for the current default
DeviceLike = typing.Union[Device, str, None]


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "CPU"


def cpu_thread_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class CpuDevice(Device):
    """The host: kernels compiled by the C++ compiler, arrays in ordinary (or pinned) memory."""

    def __init__(self):
        super().__init__("cpu", -1, _cpu_name())
        self.target = CpuTarget()
        self.storage = CpuStorage()

    @property
    def default_allocator(self):
        from .allocators import HostAllocator
        if self._host_allocator is None:
            CpuDevice._host_allocator = HostAllocator()
        return self._host_allocator

    @property
    def pinned_allocator(self):
        from .allocators import PinnedHostAllocator
        if self._pinned_allocator is None:
            CpuDevice._pinned_allocator = PinnedHostAllocator()
        return self._pinned_allocator

    _host_allocator = _pinned_allocator = None

    @property
    def stream(self):
        """Streams belong to CUDA devices: the CPU runs its work synchronously, so it has none."""
        raise DeviceError("cpu is not a CUDA device: it has no stream (work on the CPU runs synchronously)")

    @stream.setter
    def stream(self, stream) -> None:
        raise DeviceError("cpu is not a CUDA device: it cannot be given a stream (work on the CPU runs synchronously)")

    @property
    def pinned_storage(self):
        """Page-locked host memory for fast GPU copies, from the first backend with devices
        (None on a machine without a GPU)."""
        for backend in _backends:
            if backend.devices():
                return backend.pinned_storage()
        return None


class Backend:
    """What a device kind other than the CPU gives this module: its devices, found on first
    ask (never raising: a broken driver means none), and its pinned host memory."""

    prefix = ""  # its device aliases: "<prefix>" and "<prefix>:N"

    def devices(self) -> list[Device]:
        raise NotImplementedError

    def pinned_storage(self):
        return None

    def driver_version(self) -> int:
        return 0

    def aot_target(self, arch: int | None, use_ptx: bool):
        """A target that builds for architecture `arch` of this kind without a device (ahead-of-time
        builds for an architecture, not for a device; None: one that only writes code)."""
        raise NotImplementedError(f"{self.prefix} devices have no ahead-of-time target")


_backends: list[Backend] = []


def register_backend(backend: Backend) -> None:
    if all(type(b) is not type(backend) for b in _backends):
        _backends.append(backend)


def aot_target(kind: str, arch: int | None = None, use_ptx: bool = True):
    """A target for `kind` devices ("cpu", or a backend's prefix: "cuda") without a device: it
    builds for architecture `arch` (None: it only writes code, as ModuleBuilder.codegen asks)."""
    if kind == "cpu":
        return CPU.target
    for backend in _backends:
        if backend.prefix == kind:
            return backend.aot_target(arch, use_ptx)
    raise ValueError(f"no backend for {kind!r} devices")


CPU = CpuDevice()
_state = threading.local()
_default_device: Device | None = None
_scopes_open = 0  # ScopedDevice blocks open in any thread
_scopes_lock = threading.Lock()
_cuda_probed = False  # whether this process has looked for CUDA devices yet


def _cuda_devices() -> list[Device]:
    """The CUDA devices of this machine (empty when there is no driver or no GPU)."""
    global _cuda_probed
    _cuda_probed = True
    return [d for b in _backends if b.prefix == "cuda" for d in b.devices()]


def is_cuda_available() -> bool:
    return bool(_cuda_devices())


def get_cuda_device_count() -> int:
    return len(_cuda_devices())


def get_cuda_devices() -> list[Device]:
    return list(_cuda_devices())


def get_cuda_device(ordinal=None) -> Device:
    """The CUDA device of this ordinal (None: the current CUDA device), as Warp's wp.get_cuda_device."""
    return get_device("cuda" if ordinal is None else f"cuda:{int(ordinal)}")


def get_devices() -> list[Device]:
    return [CPU] + _cuda_devices()


def is_device_available(device) -> bool:
    try:
        get_device(device)
    except DeviceError:
        return False
    return True


def get_preferred_device() -> Device:
    cuda = _cuda_devices()
    return cuda[0] if cuda else CPU


def _lookup(ident: str) -> Device:
    if ident == "cpu":
        return CPU
    if ident == "cuda" or ident.startswith("cuda:"):
        cuda = _cuda_devices()
        if not cuda:
            raise DeviceError(f"device '{ident}' is not available: this machine has no NVIDIA GPU with a working "
                              "driver. Use device='cpu' (wp.get_devices() lists what is here).")
        if ident == "cuda":
            return cuda[0]
        try:
            ordinal = int(ident[5:])
        except ValueError:
            raise DeviceError(f"'{ident}' is not a device name; use 'cpu', 'cuda' or 'cuda:N'") from None
        if not 0 <= ordinal < len(cuda):
            raise DeviceError(f"device '{ident}' does not exist: this machine has {len(cuda)} CUDA device(s), "
                              f"cuda:0 to cuda:{len(cuda) - 1}")
        return cuda[ordinal]
    raise DeviceError(f"'{ident}' is not a device name; use 'cpu', 'cuda' or 'cuda:N' "
                      f"(available: {', '.join(d.alias for d in get_devices())})")


def current_device() -> Device:
    """The default device of this thread: the innermost ScopedDevice, else the one set with
    set_device, else the preferred device. On every launch without a device: kept cheap (the
    thread-local stack is only looked at while some thread has a scope open)."""
    if _scopes_open:
        scoped = getattr(_state, "stack", None)
        if scoped:
            return scoped[-1]
    return _default_device or _first_default()


def _first_default() -> Device:
    global _default_device
    _default_device = get_preferred_device()
    return _default_device


def get_device(ident=None) -> Device:
    """The device named by `ident` (a Device, 'cpu', 'cuda', 'cuda:N'), or the current
    default device when `ident` is None."""
    if ident is None:
        return current_device()
    if isinstance(ident, Device):
        return ident
    if isinstance(ident, str):
        return _lookup(ident)
    raise DeviceError(f"a device is named by a string such as 'cpu' or 'cuda:0', or a wp.Device; got {ident!r}")


def set_device(ident) -> None:
    """Make `ident` the default device for arrays and launches."""
    global _default_device
    _default_device = get_device(ident)


def get_default_device() -> Device:
    return get_device(None)


class ScopedDevice:
    """`with wp.ScopedDevice("cpu"):` makes a device the default inside the block."""

    def __init__(self, device):
        self.device = get_device(device) if device is not None else get_device(None)

    def __enter__(self):
        global _scopes_open
        stack = getattr(_state, "stack", None)
        if stack is None:
            stack = _state.stack = []
        stack.append(self.device)
        with _scopes_lock:
            _scopes_open += 1
        return self.device

    def __exit__(self, *exc):
        global _scopes_open
        _state.stack.pop()
        with _scopes_lock:
            _scopes_open -= 1


def synchronize() -> None:
    """Wait for all work on all devices. CPU launches are synchronous, so this only waits for GPUs
    (and never loads the CUDA driver in a process that has not used a GPU)."""
    if not _cuda_probed:
        return
    for device in _cuda_devices():
        synchronize_device(device)


def synchronize_device(device=None) -> None:
    device = get_device(device)
    if device.is_cuda:
        device.synchronize()


def map_cuda_device(alias: str, context=None) -> "Device":
    """Warp's alias for an external CUDA context (one another library made). warp_nb's CUDA devices
    are the driver's primary contexts, which it retains itself; an external context is not
    adopted: a RuntimeError that says so (without CUDA, Warp's fails as well)."""
    raise RuntimeError(f"wp.map_cuda_device({alias!r}): warp_nb runs on the CUDA driver's primary contexts and does "
                       "not adopt an external CUDA context; use the device itself (wp.get_device('cuda:N'))")


def unmap_cuda_device(alias: str) -> None:
    """Warp's counterpart of map_cuda_device, which gives an alias to an external CUDA context.
    warp_nb maps no external contexts, so there is never one to unmap: a RuntimeError, as Warp
    raises for an alias it does not know."""
    known = alias in {d.alias for d in get_devices()}
    raise RuntimeError(f"cannot unmap {alias!r}: " + ("it is one of this machine's own devices, not a mapped external "
                                                     "context" if known else "no CUDA device of that name is mapped"))


# --- Warp's device queries ------------------------------------------------------------------
# Answered for every machine: without a GPU the CUDA ones say False (or 0) rather than fail, as
# Warp's do, so programs that probe the machine run anywhere.


def is_cpu_available() -> bool:
    """Whether kernels can run on the CPU (always: warp_nb compiles them with the C++ compiler)."""
    return True


def get_cuda_driver_version() -> int:
    """The CUDA driver's version as an int (e.g. 13000), 0 without a driver."""
    return max((b.driver_version() for b in _backends if b.prefix == "cuda"), default=0)


def get_cuda_toolkit_version() -> tuple[int, int] | None:
    """The CUDA version CUDA code is compiled with, (major, minor): for warp_nb, NVRTC's, which
    needs no GPU; None when NVRTC is not installed (Warp: the toolkit its native library was
    built with, None without CUDA support)."""
    try:
        from ..toolchain.nvrtc import nvrtc_version
        return tuple(nvrtc_version())
    except Exception:  # NVRTC missing: no CUDA support
        return None


def get_cuda_supported_archs() -> list[int]:
    """The GPU architectures NVRTC can compile for (empty when NVRTC is not installed)."""
    try:
        from ..toolchain.nvrtc import supported_archs
        return list(supported_archs())
    except Exception:  # NVRTC missing: nothing to compile for
        return []


def _pair(target, peer):
    a, b = get_device(target), get_device(peer)
    return (a, b) if a.is_cuda and b.is_cuda else (None, None)


def is_peer_access_supported(target_device, peer_device) -> bool:
    a, b = _pair(target_device, peer_device)
    return bool(a is not None and a.can_access_peer(b))


def is_peer_access_enabled(target_device, peer_device) -> bool:
    return is_peer_access_supported(target_device, peer_device)


def set_peer_access_enabled(target_device, peer_device, enable: bool) -> None:
    if enable and not is_peer_access_supported(target_device, peer_device):
        raise DeviceError(f"peer access from {target_device} to {peer_device} is not supported on this machine")


def is_mempool_supported(device) -> bool:
    return bool(getattr(get_device(device), "mempool_supported", False))


def is_mempool_enabled(device) -> bool:
    return is_mempool_supported(device)


def set_mempool_enabled(device, enable: bool) -> None:
    """Turn the device's stream-ordered memory pool on or off. Only on or off as it is: warp_nb's
    CUDA arrays use the pool wherever the device has one. ValueError for a CPU device (off is fine),
    RuntimeError for a CUDA device without pools."""
    if enable and not is_mempool_supported(device):
        _pool_device(device)  # (raises, naming why)


def _pool_device(device):
    """The CUDA device with a memory pool that `device` names (ValueError: not CUDA; RuntimeError: no pool)."""
    d = get_device(device)
    if not d.is_cuda:
        raise ValueError(f"memory pools are only supported on CUDA devices, got {d.alias}")
    if not d.is_mempool_supported:
        raise DeviceError(f"{d.alias} has no stream-ordered memory pool")
    return d


def get_mempool_release_threshold(device=None) -> int:
    """The bytes the device's memory pool keeps reserved before it returns memory to the system."""
    return _pool_device(device).mempool_attribute("RELEASE_THRESHOLD")


def set_mempool_release_threshold(device, threshold: int | float) -> None:
    """Set the bytes the device's memory pool keeps reserved: `threshold` an int count of bytes, or a
    float between 0 and 1, a fraction of the device's memory (a larger float: bytes)."""
    d = _pool_device(device)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise TypeError(f"threshold must be a number of bytes or a fraction between 0 and 1, got "
                        f"{type(threshold).__name__}")
    if threshold < 0:
        raise ValueError(f"threshold must be >= 0, got {threshold}")
    if isinstance(threshold, float) and threshold <= 1.0:
        threshold = threshold * d.total_memory
    d.set_mempool_attribute("RELEASE_THRESHOLD", int(threshold))


def get_mempool_used_mem_current(device=None) -> int:
    """The bytes the device's memory pool has handed out now."""
    return _pool_device(device).mempool_attribute("USED_MEM_CURRENT")


def get_mempool_used_mem_high(device=None) -> int:
    """The most bytes the device's memory pool has handed out at once (its high-water mark)."""
    return _pool_device(device).mempool_attribute("USED_MEM_HIGH")


def is_mempool_access_supported(target_device, peer_device) -> bool:
    a, b = _pair(target_device, peer_device)
    return bool(a is not None and a is b and a.mempool_supported)


def is_mempool_access_enabled(target_device, peer_device) -> bool:
    return is_mempool_access_supported(target_device, peer_device)


def set_mempool_access_enabled(target_device, peer_device, enable: bool) -> None:
    if enable and not (get_device(target_device).is_cuda and get_device(peer_device).is_cuda):
        raise ValueError(f"memory pool access is only supported between CUDA devices, got {target_device} and "
                         f"{peer_device}")
    if enable and not is_mempool_access_supported(target_device, peer_device):
        raise DeviceError(f"memory pool access from {target_device} to {peer_device} is not supported here")


class ScopedMempool:
    """`with wp.ScopedMempool(device, enable):` the device's stream-ordered memory pool on or off
    inside the block, as before after it (Warp's). Where a device has none, off is what it already
    is and on raises, as set_mempool_enabled does."""

    def __init__(self, device, enable: bool):
        self.device, self.enable = get_device(device), bool(enable)

    def __enter__(self):
        self._saved = is_mempool_enabled(self.device)
        set_mempool_enabled(self.device, self.enable)

    def __exit__(self, *exc):
        set_mempool_enabled(self.device, self._saved)


class ScopedMempoolAccess:
    """`with wp.ScopedMempoolAccess(target, peer, enable):` access from `target` to `peer`'s memory
    pool on or off inside the block (Warp's)."""

    def __init__(self, target_device, peer_device, enable: bool):
        self.target, self.peer, self.enable = get_device(target_device), get_device(peer_device), bool(enable)

    def __enter__(self):
        self._saved = is_mempool_access_enabled(self.target, self.peer)
        set_mempool_access_enabled(self.target, self.peer, self.enable)

    def __exit__(self, *exc):
        set_mempool_access_enabled(self.target, self.peer, self._saved)


class ScopedPeerAccess:
    """`with wp.ScopedPeerAccess(target, peer, enable):` peer access from `peer` to all of
    `target`'s memory on or off inside the block, restored after it (Warp's)."""

    def __init__(self, target_device, peer_device, enable: bool):
        self.target, self.peer, self.enable = get_device(target_device), get_device(peer_device), bool(enable)

    def __enter__(self):
        self._saved = is_peer_access_enabled(self.target, self.peer)
        set_peer_access_enabled(self.target, self.peer, self.enable)
        return self

    def __exit__(self, *exc):
        set_peer_access_enabled(self.target, self.peer, self._saved)
