"""Global settings, read at compile and launch time (`wp.config.mode = "debug"`). Names follow
Warp's where Warp has the setting."""

import enum
import os
import sys
import types

from .version import __version__ as version  # noqa: F401  (wp.config.version, as in Warp)

#: "release" (optimised) or "debug" (bounds checks that raise Python errors, asserts, -O0 -g).
#: Release code may still check array and vector indices: see `bounds_check` below.
mode: str = "release"

#: Bounds-checked array access (and runtime vector/matrix component indices) in optimised code:
#: an out-of-bounds index raises IndexError naming kernel, array, index and line instead of
#: touching memory outside the array. On by default (None or True) in notebooks and scripts alike:
#: chunks of threads whose indices are proven in range run an unchecked copy of the kernel, so the
#: measured cost is within noise (docs/compat.md); False turns them off for kernels without their
#: own mode. A kernel's or module's explicit `mode="release"` (`%%kernel --mode release`) turns them
#: off for that kernel; debug mode always checks. $WARP_NB_BOUNDS_CHECK=0/1.
bounds_check: bool | None = {"0": False, "false": False, "off": False, "1": True, "true": True, "on": True}.get(
    os.environ.get("WARP_NB_BOUNDS_CHECK", "").lower())

#: Where compiled kernels are cached; None means $WARP_NB_CACHE_DIR or the per-user cache directory.
kernel_cache_dir: str | None = os.environ.get("WARP_NB_CACHE_DIR") or None

#: Constant-range loops with at most this many iterations are unrolled.
max_unroll: int = 16

#: Threads for CPU launches: 0 means every core; 1 runs serially and deterministically.
cpu_threads: int = 0

#: Vectorised math on the CPU: where glibc's libmvec is found (x86-64 Linux, g++), loops calling
#: sin, cos, exp, log, pow and, with glibc 2.35 or later, tan, the inverse and hyperbolic functions,
#: cbrt, erf, log2 and log10 vectorise into its vector versions: often 5-17x faster, within 4 ulp
#: where glibc's scalar calls are within 2 (docs/compat.md, Vector math). False keeps the scalar calls
#: for kernels compiled from now on; debug builds always do. $WARP_NB_CPU_VECTOR_MATH=0/1.
cpu_vector_math: bool = os.environ.get("WARP_NB_CPU_VECTOR_MATH", "1").lower() not in ("0", "false", "off")

#: Print the typed IR of every kernel as it is compiled (a debug switch for compiler work).
print_ir: bool = False

#: Check the IR's invariants between compiler stages (always on in debug mode; the tests set it).
verify_ir: bool = False

#: Whether kernels can be differentiated (wp.Tape, adjoint launches); `@wp.kernel(enable_backward=...)`
#: overrides it per kernel. With False, a backward launch is refused.
enable_backward: bool = True

#: Extra flags for the C++ compiler (appended; part of the cache key).
cxx_flags: str = os.environ.get("WARP_NB_CXXFLAGS", "")

#: Seconds one C++ compile may take before it is stopped with an error (a hung compiler must not
#: hang the launch, or a notebook cell, forever).
compile_timeout: float = float(os.environ.get("WARP_NB_COMPILE_TIMEOUT", "600"))


class DeterministicMode(enum.IntEnum):
    """Warp's determinism levels for float atomics (`deterministic`, the module option of that name).
    On the CPU, RUN_TO_RUN and GPU_TO_GPU are the same guarantee: bit-identical results whatever
    `cpu_threads` is and however the threads were scheduled (program/deterministic.py)."""

    NOT_GUARANTEED = 0  # float atomics land in whatever order the threads reach them
    RUN_TO_RUN = 1  # bit-identical from run to run on this machine
    GPU_TO_GPU = 2  # Warp: also across GPU architectures; on the CPU the same as RUN_TO_RUN


class LaunchArrayAccessMode(enum.IntEnum):
    """Warp's modes for checking, before a launch, that array arguments are reachable from the launch
    device (`launch_array_access_mode`). Not about indices: bounds checks are `bounds_check` above."""

    RELAXED = 0  # no check (Warp's default)
    CHECKED = 1  # refuse arrays known to be unreachable from the launch device
    STRICT = 2  # every array argument on the launch device


#: Warp's experimental CPU blocks: tile kernels launched on the CPU get blocks of block_dim lanes
#: (run as fibers, native/tiles/block_cpu.h) instead of one lane, so wp.tile(x) gathers block_dim values.
enable_cpu_blocks: bool = False

#: With CPU blocks, the lanes of a block split the statements that write its block-uniform tiles
#: (loads, stores, fills, elementwise arithmetic, tile_matmul, tile moves: each lane its share of
#: the elements, a barrier on each side) as CUDA blocks do, instead of lane 0 computing them alone.
#: Read at each launch. Off by default: the lanes of a CPU block are fibers of one thread, so
#: splitting adds barriers (fiber switches) and no parallelism; it runs CUDA's split code on the CPU.
cpu_split_tiles: bool = False

#: The determinism of float atomics for modules made from now on (a DeterministicMode; a module's
#: "deterministic" option overrides it). Anything else is refused: True would silently mean a level.
deterministic: DeterministicMode = DeterministicMode.NOT_GUARANTEED

#: Warp's cap on deferred atomic records per thread (its CUDA scatter buffers); warp_nb's CPU record
#: buffers grow as needed, so it is resolved into the module options and otherwise not used.
deterministic_max_records: int = 0

#: Warp's `launch_array_access_mode` (a LaunchArrayAccessMode): accepted, not read. warp_nb's launches
#: already refuse an array of another device (STRICT), the one check that matters without peer access.
launch_array_access_mode: LaunchArrayAccessMode = LaunchArrayAccessMode.RELAXED

#: Warp's `wp.config.verify_autograd_array_access`: warn when a kernel overwrites an array whose
#: gradient a Tape needs. Accepted; warp_nb refuses such Tape chains instead (see docs/compat.md).
verify_autograd_array_access: bool = False

# --- Warp settings accepted for compatibility -------------------------------------------------
# Programs written for Warp set these; warp_nb reads none of them (it has no precompiled headers,
# no separate linker, no LLVM backend, no CUDA graphs on the CPU ...). They exist so that such
# programs run unchanged; docs/compat.md lists them.
log_level: int = 30
cache_kernels: bool = True
verify_fp: bool = False
verify_cuda: bool = False
cuda_arch_suffix: str | None = None
cpu_compiler_flags: str | None = None
optimization_level: int | None = None
legacy_cpu_linker: bool = False
enable_vector_component_overwrites: bool = False
default_grid_stride: bool = True
load_module_max_workers: int | None = None
use_precompiled_headers: bool = False
legacy_scalar_return_types: bool = False
ptx_target_arch: int | None = None
llvm_cuda: bool = False
verbose: bool = False
verbose_warnings: bool = False
quiet: bool = False
track_memory: bool = False
print_launches: bool = False
enable_graph_capture_module_load_by_default: bool = True
enable_mathdx_gemm: bool = False


#: Bumped by every assignment to a setting here (and by a redefined @wp.func, struct or constant,
#: program/redefinition.py): a launcher made before it is made again at its next launch, so a
#: changed setting or definition is never served by code compiled under the old one.
epoch: int = 0


class _Settings(types.ModuleType):
    def __setattr__(self, name, value):
        if name == "deterministic" and type(value) is not DeterministicMode:
            raise ValueError(f"warp.config.deterministic must be a warp.DeterministicMode value, got {value!r}")
        # as Warp: only a member of the enum (0, True or "checked" would be taken for one silently)
        if name == "launch_array_access_mode" and not isinstance(value, LaunchArrayAccessMode):
            raise ValueError(f"wp.config.launch_array_access_mode must be a wp.config.LaunchArrayAccessMode "
                             f"(RELAXED, CHECKED or STRICT), got {value!r}")
        super().__setattr__(name, value)
        if name != "epoch":
            super().__setattr__("epoch", self.epoch + 1)
        watcher = _watchers.get(name)
        if watcher is not None:
            watcher(value)


#: setting name -> function called with its new value when it is assigned (see on_change)
_watchers: dict = {}


def on_change(name: str, fn) -> None:
    """Call fn(value) whenever the setting `name` is assigned: how the layer that acts on a setting
    (print_launches: the launch layer) hears of it."""
    _watchers[name] = fn


sys.modules[__name__].__class__ = _Settings
