"""The native CPU runtime (native/runtime/cpu_runtime.cpp): built once per machine into the
cache like a kernel, loaded with ctypes, and used by every CPU launch (its thread pool)."""

from __future__ import annotations

import ctypes
from functools import lru_cache
from pathlib import Path

from ..toolchain import cache, cxx
from ..toolchain.headers import native_dir


class KernelStats(ctypes.Structure):
    _fields_ = [("ns_per_item", ctypes.c_double), ("launches", ctypes.c_int64),
                ("parallel_launches", ctypes.c_int64)]


@lru_cache(maxsize=1)
def library():
    """The loaded runtime library (compiled on first use, then from the cache)."""
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


def launch(entry, packed, bounds, threads, stats) -> None:  # noqa: F811
    """Run a kernel through the runtime's thread pool (the library loads on first use; then this
    name is the ctypes function itself, so a launch costs one foreign call)."""
    global launch  # noqa: F811
    launch = library().wpnb_launch
    launch(entry, packed, bounds, threads, stats)
