"""Compiling, loading and launching kernels on a CUDA device. The C++ is the same text the CPU
compiles; NVRTC turns it into a CUBIN for the device's exact architecture (a CUBIN loads on any
driver of the same major CUDA version, while PTX from a newer NVRTC than the driver is refused,
so PTX is only the fallback for architectures this NVRTC does not know), cached like CPU code
under a key that adds the architecture and the NVRTC version."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from pathlib import Path

from . import cache, config
from . import cuda_driver as drv
from . import cuda_memory as mem
from .load import DebugState
from .nvrtc import compile_cuda, nvrtc_version, supported_archs
from .runtime import native_dir

BLOCK = 256
BLOCKS_PER_SM = 8  # grid-stride launches: enough blocks to fill the GPU, each looping over the rest


@dataclass
class LoadedCudaKernel:
    module: object
    entry: object  # CUfunction of the forward kernel
    adjoint_entry: object | None
    debug_state: int | None  # device address of wpnb_debug_state (debug mode)
    path: Path
    stats_address: int = 0


def target_for(device) -> tuple[int, bool]:
    """(architecture, use_ptx): a CUBIN for the device's own architecture when NVRTC knows it,
    else PTX for the newest architecture NVRTC knows below it (the driver JIT-compiles it)."""
    archs = supported_archs()
    if device.arch in archs:
        return device.arch, False
    lower = [a for a in archs if a <= device.arch]
    if not lower:
        raise RuntimeError(f"NVRTC {'.'.join(map(str, nvrtc_version()))} cannot compile for {device.alias} "
                           f"(sm_{device.arch}); it supports sm_{min(archs)} to sm_{max(archs)}")
    return max(lower), True


def build_and_load(prepared, device) -> LoadedCudaKernel:
    """NVRTC (cached) -> module loaded on the device -> kernel functions."""
    arch, use_ptx = target_for(device)
    version = ".".join(map(str, nvrtc_version()))
    key = cache.make_key(prepared.cache_key, "cuda", str(arch), "ptx" if use_ptx else "cubin", version)
    name = f"k_{prepared.kernel.syntax.name}"

    def compile_into(out_path: Path) -> None:
        data = compile_cuda(prepared.unit.source, arch, native_dir(), use_ptx, prepared.mode == "debug",
                            function=prepared.kernel.key)
        out_path.write_bytes(data)

    path, _ = cache.get_or_build(name, key, compile_into, suffix=".ptx" if use_ptx else ".cubin")
    module = device.modules.get(key)
    if module is None:
        device.make_current()
        module = drv.call("cuModuleLoadData", path.read_bytes())
        device.modules[key] = module
    forward = drv.call("cuModuleGetFunction", module, prepared.unit.cuda_entry.encode())
    backward = None
    if prepared.unit.cuda_backward_entry:
        backward = drv.call("cuModuleGetFunction", module, prepared.unit.cuda_backward_entry.encode())
    debug = None
    if prepared.mode == "debug":
        debug, _size = drv.call("cuModuleGetGlobal", module, b"wpnb_debug_state")
        debug = drv.to_int(debug)
    return LoadedCudaKernel(module, forward, backward, debug, path)


def run(launcher, packed: bytes, bounds: bytes, size: int) -> None:
    """Launch on the device's current stream. Asynchronous, except in debug mode, where the
    launch is waited for so a failed check raises here."""
    if size == 0:
        return
    device = launcher.device
    grid = min((size + BLOCK - 1) // BLOCK, device.sm_count * BLOCKS_PER_SM)
    stream = device.stream
    state_ptr = launcher.debug_state
    if state_ptr is not None:
        mem.memset(device, state_ptr, 0, ctypes.sizeof(DebugState), stream)
    device.make_current()
    drv.launch(launcher.entry, grid, BLOCK, stream.handle, packed, bounds)
    if state_ptr is not None:
        state = DebugState()
        mem.device_to_host(device, ctypes.addressof(state), state_ptr, ctypes.sizeof(state), stream)
        if state.failed:
            from .launcher import _debug_error
            raise _debug_error(launcher, state)


def load_module(kernels, device) -> None:
    """Compile and load every kernel of a module on a CUDA device (errors stay with their kernel)."""
    from .errors import KernelError
    from .pipeline import CompiledKernel, prepare
    for k in kernels:
        okey = k.options_key(device)
        if okey in k._compiled:
            continue
        try:
            p = prepare(k, config.mode)
            loaded = build_and_load(p, device)
            k._compiled[okey] = CompiledKernel(p.cache_key, p.typed, p.unit, loaded, 0.0, True)
            k._failure.pop(okey, None)
        except KernelError as e:
            k._failure[okey] = e
