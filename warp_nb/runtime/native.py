"""The native CPU runtime (native/runtime/cpu_runtime.cpp): built once per machine into the
cache like a kernel, loaded with ctypes, and used by every CPU launch (its thread pool)."""

from __future__ import annotations

import ctypes
import importlib.machinery
import importlib.util
import os
import sys
from functools import lru_cache
from pathlib import Path


class KernelStats(ctypes.Structure):
    _fields_ = [("ns_per_item", ctypes.c_double), ("launches", ctypes.c_int64),
                ("parallel_launches", ctypes.c_int64)]


@lru_cache(maxsize=1)
def library():
    """The loaded runtime library (compiled on first use, then from the cache)."""
    from ..toolchain import cache, cxx  # (subprocess, hashlib: loaded on first use, not with warp_nb)
    from ..toolchain.headers import native_dir
    source_path = native_dir() / "runtime" / "cpu_runtime.cpp"
    source = source_path.read_text()
    flags = "-O2 -pthread"
    key = cache.make_key(source, cxx.identity_key(), flags, cache.VERSION)

    def compile_runtime(out: Path) -> None:
        cxx.compile_library(source, out, native_dir(), "release", "-pthread", libraries=("-pthread",))

    path, _ = cache.get_or_build("wpnb_cpu_runtime", key, compile_runtime, counter="runtime_compiled")
    lib = ctypes.CDLL(str(path))
    lib.wpnb_launch.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                ctypes.c_void_p]
    lib.wpnb_launch.restype = ctypes.c_int
    return lib


@lru_cache(maxsize=1)
def extension():
    """The runtime built as a CPython extension module (native/runtime/launch_module.cpp): its
    `launch` is the fast path of every CPU launch. None where it cannot be built (no Python.h):
    then launches call the runtime through ctypes. $WARP_NB_CTYPES_LAUNCH=1 forces that path."""
    if os.environ.get("WARP_NB_CTYPES_LAUNCH") == "1":
        return None
    from ..toolchain import cache, cxx
    from ..toolchain.headers import native_dir
    # (sysconfig, which finds Python.h, is read only to build: its data module costs milliseconds
    # of every warm start otherwise; the interpreter's prefix and version key the build instead)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0] if importlib.machinery.EXTENSION_SUFFIXES else ".so"
    source = (native_dir() / "runtime" / "launch_module.cpp").read_text()
    runtime = (native_dir() / "runtime" / "cpu_runtime.cpp").read_text()
    plans = (native_dir() / "runtime" / "launch_plan.cpp").read_text()
    key = cache.make_key(source, runtime, plans, cxx.identity_key(), sys.base_prefix, sys.exec_prefix, suffix,
                         sys.version, cache.VERSION)

    def compile_module(out: Path) -> None:
        import sysconfig
        include = sysconfig.get_paths().get("include")
        if not include or not (Path(include) / "Python.h").exists():
            raise FileNotFoundError("Python.h is not installed (the ctypes path runs launches instead)")
        cxx.compile_library(source, out, native_dir(), "release", "-pthread", libraries=("-pthread",),
                            include_dirs=(include,))

    try:
        path, _ = cache.get_or_build("wpnb_runtime_module", key, compile_module, suffix=suffix,
                                     counter="runtime_compiled")
        spec = importlib.util.spec_from_file_location("_wpnb_runtime", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    except Exception:  # noqa: BLE001  (any failure: the ctypes path works everywhere)
        return None


def parallel_address() -> int:
    """The address of the pool's parallel-for (wpnb_parallel_chunks, a C function) in the runtime that
    launches use (the extension module, else the ctypes library): the geometry builders run their
    loops on it, so the process has one pool."""
    module = extension()
    if module is not None:
        return int(module.parallel_address())
    return int(ctypes.cast(library().wpnb_parallel_chunks, ctypes.c_void_p).value)


def interrupt_address() -> int:
    """The address of the interrupt flag of the runtime that launches use (its SIGINT handler sets
    it; the kernels it launches read it: runtime/interrupts.py)."""
    module = extension()
    if module is not None:
        return int(module.interrupt_address())
    lib = library()
    lib.wpnb_interrupt_flag_address.restype = ctypes.c_void_p
    return int(lib.wpnb_interrupt_flag_address())


def watch_interrupts() -> bool:
    """Put that runtime's SIGINT handler in front of the process's (it chains to it); True when it
    was not there."""
    module = extension()
    return bool(module.watch_interrupts() if module is not None else library().wpnb_watch_interrupts())


def launch(entry, packed, bounds, threads, stats) -> None:  # noqa: F811
    """Run a kernel through the runtime's thread pool (built and loaded on first use; then this
    name is the extension module's function, or the ctypes function, itself, so a launch costs
    one call)."""
    global launch
    module = extension()
    launch = module.launch if module is not None else library().wpnb_launch
    launch(entry, packed, bounds, threads, stats)
