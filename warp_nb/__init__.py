"""warp_nb: a notebook-first, Warp-compatible kernel language.

    import warp_nb as wp

    @wp.kernel
    def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = a * x[i] + y[i]

    wp.launch(saxpy, dim=n, inputs=[2.0, x, y])
"""

import math as _math

from . import builtins as _builtins  # noqa: F401  (fills the registry)
from . import config, types  # noqa: F401
from . import cuda as _cuda  # noqa: F401  (registers the CUDA backend; loads no driver)
from .launch.capture import (  # noqa
    CaptureMode, Graph, ScopedCapture, capture_begin, capture_debug_dot_print, capture_end, capture_if, capture_launch,
    capture_while, is_conditional_graph_supported,
)
from .arrays.array import array, array1d, array2d, array3d, array4d, clone  # noqa: F401
from .types.array_type import fixedarray  # noqa: F401
from .arrays.create import copy, empty, empty_like, from_numpy, from_ptr, full, full_like, ones, ones_like, zeros, zeros_like  # noqa
from .arrays.indexed import indexedarray, indexedarray1d, indexedarray2d, indexedarray3d, indexedarray4d  # noqa
from .arrays.fabric import fabricarray, fabricarrayarray, indexedfabricarray, indexedfabricarrayarray  # noqa: F401
from .arrays.dlpack import from_dlpack, to_dlpack  # noqa: F401
from .interop.torch import (  # noqa: F401
    device_from_torch, device_to_torch, dtype_from_torch, dtype_to_torch, from_torch, stream_from_torch,
    stream_to_torch, to_torch,
)
from .interop.paddle import (  # noqa: F401
    device_from_paddle, device_to_paddle, dtype_from_paddle, dtype_to_paddle, from_paddle, stream_from_paddle,
    stream_to_paddle, to_paddle,
)
from .interop.jax import device_from_jax, device_to_jax, dtype_from_jax, dtype_to_jax, from_jax, to_jax  # noqa: F401
from .builtins.geometry import BvhQuery, HashGridQuery, MeshQueryAABB, MeshQueryPoint, MeshQueryRay  # noqa
from .builtins.geometry_tiled import BvhQueryTiled, MeshQueryAABBTiled  # noqa
from .builtins.registry import BUILTINS as _BUILTINS
from .cuda.streams import (  # noqa: F401
    Event, ScopedStream, Stream, get_event_elapsed_time, get_stream, record_event, set_stream, synchronize_event,
    synchronize_stream, wait_event, wait_stream,
)
from .errors import (  # noqa: F401
    CompilerNotFoundError, KernelCompileError, KernelError, KernelNameError, KernelSyntaxError, KernelTypeError,
    KernelValueError, WarpCodegenAttributeError, WarpCodegenError, WarpCodegenIndexError, WarpCodegenKeyError,
    WarpCodegenTypeError, WarpCodegenValueError, WarpDeterminismError,
)
from .program.func import Function, adjoint, func, func_grad, func_native, func_replay  # noqa: F401
from .compiler.scope import grad  # noqa: F401  (wp.grad(f)(x) in kernels)
from .program.kernel import Kernel, kernel  # noqa: F401
from .launch.launcher import Launch, launch, launch_tiled  # noqa: F401
from .program.module import Module, force_load, get_module, get_module_options, load_module, set_module_options  # noqa
from .program.overload import overload  # noqa: F401
from .compiler.build_options import ModuleBuildOptions  # noqa: F401
from .program import build_experimental  # noqa: F401
from .launch import builtin_call as _builtin_call  # noqa: F401 (installs Python-scope calls of builtins)
from .runtime.memory_access import can_access  # noqa: F401
from .runtime.allocators import (  # noqa: F401
    Allocator, ScopedAllocator, get_device_allocator, set_cuda_allocator, set_device_allocator,
)
from .cuda.allocators import CudaManagedAllocator  # noqa: F401
from .cuda.ipc import event_from_ipc_handle, from_ipc_handle  # noqa: F401
from .cuda.profiler import ScopedCudaProfiler, cuda_profiler_start, cuda_profiler_stop  # noqa: F401
from .types.memory_kind import MemoryKind  # noqa: F401
from .runtime.devices import (  # noqa: F401
    Device, DeviceError, DeviceLike, ScopedDevice, ScopedMempool, ScopedMempoolAccess, ScopedPeerAccess,
    get_cuda_device, get_cuda_device_count, get_cuda_devices, get_cuda_driver_version, get_cuda_toolkit_version,
    map_cuda_device,
    get_cuda_supported_archs, get_device, get_devices, get_preferred_device, is_cpu_available, is_cuda_available,
    is_device_available, is_mempool_access_enabled, is_mempool_access_supported, is_mempool_enabled,
    is_mempool_supported, is_peer_access_enabled, is_peer_access_supported, set_device, set_mempool_access_enabled,
    set_mempool_enabled, set_peer_access_enabled, synchronize, synchronize_device, unmap_cuda_device,
    get_mempool_release_threshold, set_mempool_release_threshold, get_mempool_used_mem_current,
    get_mempool_used_mem_high,
)
from .autograd.tape import Tape  # noqa: F401
from .types import *  # noqa: F401,F403
from .types import bool, float16, handle, float32, float64, int8, int16, int32, int64, uint8, uint16, uint32, uint64  # noqa
from .types import matrix, quaternion, transformation, vector  # noqa: F401
from .types.generic import Float, Int  # noqa: F401  (type variables; wp.Scalar is one too, in annotations)
from .types.structs import struct  # noqa: F401
from .utils.timing import ScopedTimer, constant  # noqa: F401
from .version import __version__  # noqa: F401

# wp.utils, Warp's timing API and geometry helpers (geometry-utils branch)
from . import utils  # noqa: F401,E402
from .builtins.geometry import MeshQuery  # noqa: F401,E402
from .types.reference import ref  # noqa: F401,E402
from .errors import Logger, ScopedLogger, get_logger, set_logger  # noqa: F401,E402
from .runtime.memory_tracker import ScopedMemoryTracker, print_memory_report  # noqa: F401,E402

from .utils.timing import (  # noqa: F401,E402
    TIMING_ALL, TIMING_GRAPH, TIMING_KERNEL, TIMING_KERNEL_BUILTIN, TIMING_MEMCPY, TIMING_MEMSET, TimingResult,
    timing_begin, timing_end, timing_print,
)

# Names a first cell rarely needs, imported on first use (PEP 562): `import warp_nb` stays quick.
_LAZY_SUBPACKAGES = ("geometry", "textures", "jax_experimental")
_LAZY = {
    "compile_aot_module": ".program.aot", "load_aot_module": ".program.aot",
    "capture_save": ".launch.apic_save",
    "get_cuda_kernel_properties": ".program.kernel_queries", "get_suggested_block_size": ".program.kernel_queries",
    "get_cuda_max_cluster_dim": ".program.kernel_queries",
    "capture_load": ".launch.apic_load", "capture_load_from_bytes": ".launch.apic_load",
    "JaxCallableGraphMode": ".jax_experimental", "JaxModulePreloadMode": ".jax_experimental",
    "jax_callable": ".jax_experimental", "jax_kernel": ".jax_experimental",
    "clear_jax_callable_graph_cache": ".jax_experimental",
    "Bvh": ".geometry", "HashGrid": ".geometry", "Mesh": ".geometry", "Volume": ".geometry",
    "is_cubql_available": ".geometry",
    "Texture": ".textures", "Texture1D": ".textures", "Texture2D": ".textures", "Texture3D": ".textures",
    "TextureAddressMode": ".textures", "TextureFilterMode": ".textures",
    "print_diagnostics": ".utils.diagnostics",
    "ScopedLogLevel": ".utils.functions", "transform_expand": ".utils.functions",
    "map": ".utils.map",  # Warp's wp.map (shadows Python's map in this module only)
}


for _name, _builtin in _BUILTINS.items():
    if _builtin.export and _name not in globals() and _name not in _LAZY:
        globals()[_name] = _builtin

pi = _math.pi
half_pi = _math.pi / 2
tau = 2 * _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan
phi = (1 + 5 ** 0.5) / 2
PI, HALF_PI, TAU, E, INF, NAN, PHI = pi, half_pi, tau, e, inf, nan, phi  # Warp's upper-case names
LOG_DEBUG, LOG_INFO, LOG_WARNING, LOG_ERROR = 10, 20, 30, 40  # levels for wp.config.log_level (as logging's)


DeterministicMode = config.DeterministicMode  # honoured on the CPU whatever cpu_threads is (program/deterministic.py)
ln2, ln10, log2e, log10e = _math.log(2), _math.log(10), 1 / _math.log(2), 1 / _math.log(10)
LN2, LN10, LOG2E, LOG10E = ln2, ln10, log2e, log10e  # Warp's upper-case names


def __getattr__(name):
    if name in _LAZY_SUBPACKAGES:  # wp.geometry.marching_cubes(...), as when they loaded with the package
        import importlib
        return importlib.import_module("." + name, __name__)
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value  # once: later lookups are ordinary
        return value
    if name == "MarchingCubes":  # deprecated alias of wp.geometry.IsoSurfaceMarchingCubes (geometry-utils)
        from .geometry.iso_surface import deprecated_marching_cubes
        return deprecated_marching_cubes()
    if name in ("float", "int"):  # Warp's module exposes Python's float and int (wp.float(x) converts to float32)
        import builtins
        return getattr(builtins, name)
    if name == "_src":  # Warp's implementation namespace: a few tables its tests reach for (docs/compat.md)
        import importlib
        return importlib.import_module("._src", __name__)
    builtin = _BUILTINS.get(name)  # registered after import (wp.build_experimental.add_builtin)
    if builtin is not None and builtin.export:
        return builtin
    raise AttributeError(f"module 'warp_nb' has no attribute {name!r}")


def _make_mesh_on_first_use(points, indices, winding):
    """live_handles.make_mesh until geometry/mesh.py loads and installs its own: a saved graph
    loaded in a fresh process rebuilds its meshes before anything else asked for wp.Mesh."""
    from .geometry import mesh  # noqa: F401  (installs live_handles.make_mesh)
    from .runtime import live_handles
    return live_handles.make_mesh(points, indices, winding)


from .runtime import live_handles as _live_handles  # noqa: E402
if _live_handles.make_mesh is None:
    _live_handles.make_mesh = _make_mesh_on_first_use


def _load_array_operators():
    """wp.array's operators (`a + b`) are element-wise kernels, defined when utils/array_ops.py
    loads (it hands itself to arrays/arithmetic.py): on the first operator, not on import."""
    from .utils import array_ops  # noqa: F401


from .arrays import arithmetic as _arithmetic  # noqa: E402
_arithmetic.provide_on_first_use(_load_array_operators)


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_LAZY_SUBPACKAGES))


def get_cpu_kernel_cache_key(cpu_compiler_flags: str | None = None) -> str:
    """Warp's key of CPU kernel binaries (version, operating system, CPU architecture, and the target
    the compiler flags choose); defined with Warp's other runtime names in warp_nb._src.context."""
    from ._src.context import get_cpu_kernel_cache_key as key
    return key(cpu_compiler_flags)


def clear_kernel_cache() -> None:
    """Empty the compiled-kernel cache on disk (Warp's name); kernels already loaded keep working
    and later compiles fill it again."""
    from .toolchain import cache
    cache.clear()


def clear_lto_cache() -> None:
    """Warp's link-time-optimisation cache: warp_nb has none, so there is nothing to clear."""


def init():
    """Initialise now rather than at the first launch (as wp.init() does in Warp): load the CPU
    runtime, identify the compiler and the native headers, and run the compiler front end once
    on a tiny kernel. Calling it is optional; it is idempotent."""
    from .program.module import warm_up
    warm_up()


def load_ipython_extension(ipython):
    """`%load_ext warp_nb`: the notebook magics."""
    from .magics import load_ipython_extension as load
    load(ipython)

