"""CUDA profiler control (Warp's `wp.cuda_profiler_start`, `wp.cuda_profiler_stop`,
`wp.ScopedCudaProfiler`): mark the range an external profiler collects (Nsight Systems with
`--capture-range=cudaProfilerApi`, Nsight Compute with `--profile-from-start off`), per CUDA context
as the driver's cuProfilerStart/Stop are. A CPU device has no context to profile: a no-op, as in
Warp. Calls are not counted: each maps to one driver call.

Once Warp's runtime object exists (Warp's code asked for `warp._src.context.runtime`), the calls go
through its core's entries `wp_cuda_profiler_start/stop(context)`, which Warp's tests patch."""

from __future__ import annotations

from ..runtime import compat_hooks


def _on_context(context, name: str) -> None:
    """Run driver call `name` (no arguments, on the current context) with `context` current."""
    from . import driver as drv
    drv.call("cuCtxPushCurrent", context)
    try:
        drv.call(name)
    finally:
        drv.call("cuCtxPopCurrent")


def context_start(context) -> None:
    _on_context(context, "cuProfilerStart")


def context_stop(context) -> None:
    _on_context(context, "cuProfilerStop")


def _entry(name: str, default):
    made = compat_hooks.resolve("runtime", "instance", lambda: None)()
    return getattr(made.core, name) if made is not None else default


def _cuda_device(device):
    """The CUDA device `device` names (None: the current device), or None for a CPU device."""
    from ..runtime.devices import get_device
    d = get_device(device)
    return d if d.is_cuda else None


def cuda_profiler_start(device=None) -> None:
    """Begin profiler data collection on the CUDA context of `device` (default: the current
    device); no effect on a CPU device."""
    d = _cuda_device(device)
    if d is not None:
        _entry("wp_cuda_profiler_start", context_start)(d.context)


def cuda_profiler_stop(device=None) -> None:
    """End profiler data collection on the CUDA context of `device`; no effect on a CPU device."""
    d = _cuda_device(device)
    if d is not None:
        _entry("wp_cuda_profiler_stop", context_stop)(d.context)


class ScopedCudaProfiler:
    """`with wp.ScopedCudaProfiler(device):` profiler collection on for the block. The device is
    resolved here, so the same context starts and stops even if the block changes the current
    device. A failure to stop is raised, unless the block itself raised: its exception is the one
    that propagates."""

    def __init__(self, device=None):
        from ..runtime.devices import get_device
        self.device = get_device(device)

    def __enter__(self):
        cuda_profiler_start(self.device)
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            cuda_profiler_stop(self.device)
        except Exception:
            if exc_type is None:
                raise
        return False
