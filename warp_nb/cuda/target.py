"""The CUDA target: the generated C++ with CUDA's prelude and entry points (cuda/entry.py:
grid-stride __global__ functions), turned by NVRTC into a CUBIN for the device's exact
architecture (a CUBIN loads on any driver of the same major CUDA version, while PTX from a newer
NVRTC than the driver is refused, so PTX is only the fallback for architectures this NVRTC does
not know), cached like CPU code under a key that adds the architecture and the NVRTC version,
loaded as a driver module and launched on the device's current stream.

`AotCudaTarget` is the same compiler without a device: it builds PTX or CUBIN for a chosen
architecture (ahead-of-time compilation, and the CI check that every kernel compiles for CUDA)
and names its ahead-of-time artifacts (`<identifier>.sm<arch>.ptx|cubin`, the source beside them
as `<identifier>.cu`)."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from pathlib import Path

from ..toolchain.modes import has_checks
from ..runtime.debug import DebugState, debug_error
from ..runtime.target import Target
from ..errors import KernelCompileError
from ..toolchain import external as external_files
from ..toolchain.headers import native_dir
from .arch_support import CLUSTER_MIN_ARCH, validate_device_arch
from ..toolchain.nvrtc import compile_cuda, nvrtc_version, supported_archs
from . import checks
from . import driver as drv
from . import entry as entries
from . import memory as mem
from ..runtime.launch_layout import launch_flags

BLOCK = 256
SHARED_FRAME_BYTES = 16384  # a frame up to this size is in static shared memory (native/tiles/block.h)
BLOCKS_PER_SM = 8  # grid-stride launches: enough blocks to fill the GPU, each looping over the rest


@dataclass
class LoadedCudaKernel:
    module: object
    entry: object  # CUfunction of the forward kernel
    adjoint_entry: object | None
    debug_state: int | None  # device address of wpnb_debug_state (debug mode)
    path: Path
    stats_address: int = 0
    immediate_checks: bool = False  # debug mode: a launch reads its check state at once
    frame_bytes: int = 0  # the forward body's frame of block-uniform tiles (native/tiles/block.h)
    frame_shared_bytes: int = 0  # dynamic shared memory a forward launch gives that frame
    #: device address of the global a backward launch writes value parameters' given adjoints into
    #: (compiler/emit/adjoint.py seeded_params), or None: the kernel prints no such adjoint
    adjoint_seeds: int | None = None


def arch_for(device_arch: int) -> tuple[int, bool]:
    """(architecture, use_ptx) for a device: a CUBIN for its own architecture when NVRTC knows it,
    else PTX for the newest architecture NVRTC knows below it (the driver JIT-compiles it)."""
    archs = supported_archs()
    if device_arch in archs:
        return device_arch, False
    lower = [a for a in archs if a <= device_arch]
    if not lower:
        raise RuntimeError(f"NVRTC {'.'.join(map(str, nvrtc_version()))} cannot compile for sm_{device_arch}; "
                           f"it supports sm_{min(archs)} to sm_{max(archs)}")
    return max(lower), True


class AotCudaTarget(Target):
    """NVRTC for one architecture, without a device: builds, never loads or runs (`arch` None: a
    target that only writes code, ModuleBuilder.codegen's)."""

    name = "cuda"
    prelude = ("#define WPNB_CUDA 1", '#include "core/prelude.h"')

    def __init__(self, arch: int, use_ptx: bool):
        self.arch, self.use_ptx = arch, use_ptx

    @property
    def suffix(self) -> str:
        return ".ptx" if self.use_ptx else ".cubin"

    def entry_name(self, entry) -> str:
        return entries.entry_name(entry)

    def entry_point(self, entry) -> str:
        return entries.entry_point(entry)

    def build_preamble(self, build_options) -> str:
        return build_options.extra_cuda_preamble

    def refuse_cluster_dim(self, kernel_key: str, cluster_dim: int) -> None:
        # a binary for an architecture without clusters would run the kernel unclustered: refused, as Warp does
        if cluster_dim > 1 and self.arch is not None and self.arch < CLUSTER_MIN_ARCH:
            raise RuntimeError(f"kernel `{kernel_key}` declares cluster_dim={cluster_dim}, but thread block clusters "
                               f"need sm_{CLUSTER_MIN_ARCH} or newer and this build is for sm_{self.arch}; compile "
                               f"for arch >= {CLUSTER_MIN_ARCH}, or leave cluster_dim out")

    def key_parts(self, options) -> tuple[str, ...]:
        return "cuda", str(self.arch), self.suffix, ".".join(map(str, nvrtc_version()))

    def build(self, unit, out_path: Path, options) -> None:
        linked = external_files.libraries_for(unit.headers)
        if linked:  # a host library's functions cannot run on the device
            raise KernelCompileError(f"kernel `{unit.function}` calls an external builtin defined in "
                                     f"{', '.join(linked)} (wp.build_experimental.add_builtin(libraries=...)): a host "
                                     "library cannot be linked into CUDA code; launch the kernel on the CPU, or give "
                                     "the function's definition in its header (inline, CUDA_CALLABLE)")
        dirs = unit.build_options.include_dirs("cuda") if unit.build_options is not None else ()
        out_path.write_bytes(compile_cuda(unit.source, self.arch, native_dir(), self.use_ptx, options.mode == "debug",
                                          function=unit.function, include_dirs=dirs))

    def load(self, path: Path, unit, options) -> Path:
        return path

    def artifact_name(self, identifier: str) -> str:
        return f"{identifier}.sm{self.arch}{self.suffix}"

    def source_path(self, artifact: Path) -> Path:
        return artifact.with_name(artifact.name.split(".sm")[0] + ".cu")  # as Warp writes it


def _launch_failure(error, launcher, grid: int, block: int) -> Exception:
    """The driver's refusal of a launch, with what the kernel asks of each thread: a launch that
    is out of resources or memory almost always has too many registers or too much local memory
    (tiles are held per thread, see docs/compat.md) for its block size."""
    text = str(error)
    if "OUT_OF_RESOURCES" not in text and "OUT_OF_MEMORY" not in text:
        return error
    try:
        local = drv.function_attribute(launcher.entry, "CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES")
        regs = drv.function_attribute(launcher.entry, "CU_FUNC_ATTRIBUTE_NUM_REGS")
        asks = f"each thread uses {regs} registers and {local} bytes of local memory"
    except Exception:  # noqa: BLE001  (the explanation is a bonus; the driver's error stands)
        asks = "its registers or local memory per thread are too many"
    message = (f"{text}: kernel `{launcher.kernel.key}` cannot run in blocks of {block} threads ({grid} blocks): "
               f"{asks}; launch it with a smaller block_dim")
    return type(error)(message)


def _refuse_frame_without_room(launcher, loaded, flags: int, device) -> None:
    """A frame of block-uniform tiles past the static shared budget lives in dynamic shared memory
    only (native/tiles/block.h block_frame_t): refuse a launch where it cannot, before it starts."""
    kib = (loaded.frame_bytes + 1023) // 1024
    where = f"launch of kernel `{launcher.kernel.key}` on {device.alias}: its block-uniform tiles take {kib} KiB"
    if loaded.frame_shared_bytes == 0:
        room = device.max_shared_memory_per_block_optin // 1024
        raise RuntimeError(f"{where}, more shared memory than {device.alias} gives a block beside the kernel's "
                           f"other shared memory ({room} KiB in all); use smaller tiles (Warp's launch fails "
                           f"the same way)")
    if not flags & 2:
        raise RuntimeError(f"{where}, which the lanes of a block can share only where every wp.tid() component "
                           f"but the last one unpacked is the block's (the trailing extents from that one on "
                           f"whole multiples of block_dim={launcher.block_dim}); launch it with "
                           f"wp.launch_tiled, or use tiles of {SHARED_FRAME_BYTES // 1024} KiB in all at most")


class CudaTarget(AotCudaTarget):
    """NVRTC for one device's architecture, loaded into the device's context and run there."""

    def __init__(self, device):
        self.device = device
        self._arch = None

    @property
    def arch(self) -> int:
        return self._resolve()[0]

    @property
    def use_ptx(self) -> bool:
        return self._resolve()[1]

    def _resolve(self) -> tuple[int, bool]:
        if self._arch is None:  # asked of NVRTC once, when the first kernel is compiled for this device
            validate_device_arch(self.device.arch, nvrtc_version(), self.device.alias)
            self._arch = arch_for(self.device.arch)
        return self._arch

    def aot_target(self, use_ptx: bool | None = None, arch: int | None = None) -> AotCudaTarget:
        own_arch, ptx = arch_for(self.device.arch)
        return AotCudaTarget(own_arch if arch is None else int(arch), ptx if use_ptx is None else use_ptx)

    def _module(self, path: Path):
        """The driver module of the artifact at `path`, loaded into the device's context once."""
        device = self.device
        module = device.modules.get(path)
        if module is None:
            device.make_current()
            module = drv.call("cuModuleLoadData", path.read_bytes())
            device.modules[path] = module
        return module

    def read_string(self, path: Path, symbol: str) -> bytes:
        return self._global_bytes(self._module(path), symbol).split(b"\0", 1)[0]

    def _global_bytes(self, module, symbol: str) -> bytes:
        """The bytes of a module's global variable, copied from the device."""
        self.device.make_current()
        address, size = drv.call("cuModuleGetGlobal", module, symbol.encode())
        buffer = ctypes.create_string_buffer(int(size))
        mem.device_to_host(self.device, ctypes.addressof(buffer), drv.to_int(address), int(size))
        return buffer.raw

    def load(self, path: Path, unit, options) -> LoadedCudaKernel:
        module = self._module(path)
        forward = drv.call("cuModuleGetFunction", module, unit.entry.encode())
        backward = None
        if unit.backward_entry:
            backward = drv.call("cuModuleGetFunction", module, unit.backward_entry.encode())
        debug = None
        if has_checks(options.mode):
            debug, _size = drv.call("cuModuleGetGlobal", module, b"wpnb_debug_state")
            debug = drv.to_int(debug)
        frame = int.from_bytes(self._global_bytes(module, unit.frame_global)[:8], "little") if unit.frame_global else 0
        seeds = None
        if unit.seeds_global and backward is not None:
            seeds = drv.to_int(drv.call("cuModuleGetGlobal", module, unit.seeds_global.encode())[0])
        return LoadedCudaKernel(module, forward, backward, debug, path, immediate_checks=options.mode == "debug",
                                frame_bytes=frame, frame_shared_bytes=self._frame_shared_bytes(forward, frame),
                                adjoint_seeds=seeds)

    def write_adjoint_seeds(self, loaded, data: bytes, clear: int = 0) -> None:
        # on the device's stream, so ordered with the launch; a copy from pageable memory has
        # taken `data` when it returns
        if clear:
            mem.memset(self.device, loaded.adjoint_seeds, 0, clear)
        else:
            buffer = ctypes.create_string_buffer(data, len(data))
            mem.host_to_device(self.device, loaded.adjoint_seeds, ctypes.addressof(buffer), len(data))

    def _frame_shared_bytes(self, function, frame: int) -> int:
        """The dynamic shared memory to launch `function` with: its frame of block-uniform tiles
        when that is past the static budget (native/tiles/block.h WPNB_SHARED_FRAME_BYTES) and fits
        beside the kernel's static shared memory in what the device lets a block opt in to; else 0
        (a frame within the budget is static; `run` refuses a launch whose frame has no room)."""
        if frame <= SHARED_FRAME_BYTES:
            return 0
        static = drv.function_attribute(function, "CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES")
        if static + frame > self.device.max_shared_memory_per_block_optin:
            return 0
        drv.set_function_attribute(function, "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", frame)
        return frame

    def run(self, launcher, packed: bytes, bounds: bytes, size: int) -> None:
        """Launch on the device's current stream. Asynchronous: a failed check of checked code is
        raised at the next synchronisation (cuda/checks.py); in debug mode the launch is waited for
        so that it raises here."""
        if size == 0:
            return
        device = self.device
        grid, block = min((size + BLOCK - 1) // BLOCK, device.sm_count * BLOCKS_PER_SM), BLOCK
        if launcher.block_dim > 1:  # a tile kernel in blocks of several lanes: `size` counts blocks
            grid, block = size, launcher.block_dim
        stream = device.stream
        state_ptr = launcher.debug_state if launcher.compiled.loaded.immediate_checks else None
        if state_ptr is not None:
            mem.memset(device, state_ptr, 0, ctypes.sizeof(DebugState), stream)
        device.make_current()
        loaded = launcher.compiled.loaded
        shared = 0
        if launcher.entry is loaded.entry and loaded.frame_bytes > SHARED_FRAME_BYTES:  # (a backward has no frame)
            shared = loaded.frame_shared_bytes
            _refuse_frame_without_room(launcher, loaded, launch_flags(bounds), device)
        try:
            drv.launch(launcher.entry, grid, block, stream.handle, packed, bounds, shared)
        except (drv.CUDAError, drv.CUDAOutOfMemoryError) as e:
            raise _launch_failure(e, launcher, grid, block) from None
        if launcher.debug_state is not None and state_ptr is None:
            checks.note(device, launcher, bounds)
        elif state_ptr is not None:
            state = DebugState()
            mem.device_to_host(device, ctypes.addressof(state), state_ptr, ctypes.sizeof(state), stream)
            if state.failed:
                raise debug_error(launcher.kernel.key, launcher.compiled.unit.debug_sites, state, bounds)
