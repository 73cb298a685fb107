"""`warp._src.context`: the few runtime names Warp's tests reach for."""

from __future__ import annotations

import ctypes
import inspect  # noqa: F401  (Warp's tests patch warp._src.context.inspect.getmodule and .sys._getframe)
import sys  # noqa: F401

from ..builtins.registry import BUILTINS as builtin_functions  # noqa: F401
from ..cuda.arch_support import validate_device_arch as _validate_cuda_device_arch  # noqa: F401
from ..launch.launcher import Launch  # noqa: F401  (wp.Launch: Warp's tests import it from here)
from ..program.module import _MODULES as user_modules  # noqa: F401
from ..types import type_name as type_str  # noqa: F401
from ..runtime.allocators import Allocator  # noqa: F401  (Warp's tests check allocators against it)
from .logger import log_warning  # noqa: F401  (the tape's copy adjoint warns through this name)
from .module_hashing import ModuleBuilder, ModuleHasher  # noqa: F401


def machine_architecture() -> str:
    """The CPU architecture name (x86_64, aarch64 ...), as Warp's context reports it."""
    import platform
    return platform.machine()


def _get_cpu_feature_set() -> frozenset:
    from ..toolchain.cpu_isa import feature_set
    return feature_set()


def _get_cpu_toolchain_version() -> str:
    """The version of the CPU compiler (Warp's LLVM; here the C++ compiler, g++ or clang++)."""
    from ..toolchain.cpu_isa import toolchain_version
    return toolchain_version()


def _get_cpu_target_triple() -> str:
    from ..toolchain.cpu_isa import target_triple
    return target_triple()


def get_cpu_kernel_cache_key(cpu_compiler_flags: str | None = None) -> str:
    """Warp's key of CPU kernel binaries: the version, operating system, CPU architecture and the
    target the flags choose (-march/-mcpu/-mtune; None: wp.config.cpu_compiler_flags, whose
    default is -march=native); its last part is the target hash of _get_compile_output_name.
    Other flags (-mllvm ...) do not change it, as in Warp."""
    import platform

    from .. import config
    if _get_runtime(init=True).llvm is None:
        raise RuntimeError("no CPU compiler is available (Warp compiles CPU kernels with LLVM, warp_nb with the "
                           "machine's C++ compiler: install g++ or set CXX)")
    from ..toolchain.cpu_isa import current_target_hash
    target = current_target_hash(None, cpu_compiler_flags, probes=sys.modules[__name__])
    return f"{config.version}-{platform.system()}-{machine_architecture()}-{target}"


def _get_runtime(init: bool = False):
    """Warp's `runtime`: None until warp_nb is initialised, as in Warp (wp.init(), or its devices
    enumerated: what Warp's init does first; `init`: enumerate them now), then one object
    (runtime_object.py)."""
    from . import runtime_object as warp_runtime
    if warp_runtime.instance() is None:
        from ..program import module
        from ..runtime import devices
        if init or devices._cuda_probed or module._warmed:
            warp_runtime.current()
    return warp_runtime.instance()


def get_warp_version() -> str:
    """The version of Warp's native library. warp_nb's native code (its CPU runtime, the kernels) is
    compiled from the package's own sources on the machine, for the package's version and cached
    under it, so the version is the package's (wp.config.version)."""
    from .. import config
    return config.version


def get_warp_clang_version() -> str:
    """The version of Warp's CPU compiler library (warp-clang); warp_nb compiles CPU kernels with the
    machine's C++ compiler, driven by the package itself: the package's version, as above."""
    return get_warp_version()


def alloc_tracker_report_text(sort_order: int = 0, max_items: int = 10) -> str:
    """The allocation tracker's report (runtime/memory_tracker.py)."""
    from ..runtime.memory_tracker import report_text
    return report_text(sort_order, max_items)


def get_nanovdb_version() -> str:
    from ..utils.diagnostics import nanovdb_version
    return nanovdb_version()


def get_host_compiler_version() -> str:
    from ..utils.diagnostics import host_compiler_version
    return host_compiler_version()


def get_nvrtc_version():
    from ..utils.diagnostics import nvrtc_version
    return nvrtc_version()


def get_libmathdx_version() -> str:
    """Empty: warp_nb has no MathDx."""
    return ""


def _verify_library_version(lib, name: str, symbol: str, expected: str) -> None:
    """Check that the loaded library `lib` (named `name` in messages) reports `expected` through its
    version function `symbol` (returning bytes), as Warp checks its native libraries when it loads
    them; RuntimeError otherwise. Only a real mismatch names the expected version."""
    fn = getattr(lib, symbol, None)
    if fn is None:
        raise RuntimeError(f"The {name} library does not export {symbol}(); it is not the library this package "
                           "was built with")
    try:
        raw = fn()
        found = raw.decode() if raw is not None else None
    except Exception as e:
        raise RuntimeError(f"Failed to read the version of the {name} library through {symbol}(): {e}") from e
    if not found:
        raise RuntimeError(f"The {name} library reported an empty version through {symbol}()")
    if found != expected:
        raise RuntimeError(f"Version mismatch: the {name} library is version {found}, the Python package "
                           f"{expected}; multiple Warp installations may be mixed (reinstall the package)")


def init() -> None:
    from ..program.module import warm_up
    warm_up()


from ..launch.capture import capture_pause, capture_resume  # noqa: E402,F401  (Warp's are here, not public)


def _is_graph_capture_allocation_supported(device) -> bool:
    """Whether arrays can be allocated inside a graph capture on `device` (always on the CPU)."""
    from ..runtime.devices import get_device
    d = get_device(device)
    return d.is_cpu or d.is_mempool_supported


def _is_graph_capture_allocation_enabled(device) -> bool:
    """Whether arrays allocated inside a graph capture on `device` are allowed now: always on the CPU
    (host memory, kept for the graph's replays), on a GPU while its memory pool is enabled."""
    from ..runtime.devices import get_device
    d = get_device(device)
    return d.is_cpu or d.is_mempool_enabled


def _get_caller_module_name(stack_level: int = 2) -> str:
    from ..program.module import _caller_module
    return _caller_module(stack_level + 1)


def __getattr__(name):
    """`runtime` (made when first asked for after initialisation); any other name of Warp's
    implementation: a stand-in that raises when used (see _internal.py)."""
    if name == "runtime":
        return _get_runtime()
    if name.startswith("__"):
        raise AttributeError(name)
    from ._internal import internal as _stand_in
    return _stand_in(f"warp._src.context.{name}")


# Warp's tests patch this module's logger and CPU probes, and the runtime object's entry points: the
# library's own code consults them from now on (runtime/compat_hooks.py)
from ..runtime import compat_hooks as _hooks  # noqa: E402
from . import runtime_object as _runtime_object  # noqa: E402

_hooks.register("context", sys.modules[__name__])
_hooks.register("runtime", _runtime_object)


def pack_arg(kernel, arg_type, arg_name, value, device, adjoint=False):
    """Warp's packing of one launch argument: the value's C form for a parameter of `arg_type`,
    checked as a launch checks it (an application's subclass of a Warp array is its native family;
    the adjoint of any array parameter is a regular array of the same dtype and ndim). Errors are
    RuntimeErrors naming `arg_name`, as Warp's."""
    from ..launch.args import convert_argument
    from ..runtime.devices import get_device
    from ..types.array_type import ArrayType
    from ..types.fabric_type import FabricArrayType
    if adjoint and isinstance(arg_type, ArrayType) and not isinstance(arg_type, FabricArrayType):
        arg_type = ArrayType(arg_type.dtype, arg_type.ndim)
    where = f"kernel `{getattr(kernel, 'key', kernel)}`: {'adjoint ' if adjoint else ''}argument '{arg_name}'"
    converted = convert_argument(getattr(kernel, "key", str(kernel)), arg_name, arg_type, value, get_device(device),
                                 where)
    if hasattr(converted, "__ctype__"):
        return converted.__ctype__()
    desc = getattr(converted, "_desc", None)
    if desc is not None:  # an indexed or Fabric array, or a None: its descriptor's 64-bit words
        return (ctypes.c_int64 * len(desc))(*desc)
    return converted


def _resolve_launch_block_dim(device, block_dim) -> int:
    """The lanes of a block of a launch on `device` asking for `block_dim` (runtime/block_dim.py)."""
    from ..runtime.block_dim import resolve_block_dim
    from ..runtime.devices import get_device
    return int(resolve_block_dim(get_device(device), block_dim))
