"""The native CPU runtime (native/runtime/cpu_runtime.cpp): built once per machine into the
cache like a kernel, loaded with ctypes, and used by every CPU launch. Also finds the native
headers, from an editable install or a built wheel."""

from __future__ import annotations

import ctypes
import hashlib
import os
from functools import lru_cache
from pathlib import Path

from . import build, cache


@lru_cache(maxsize=1)
def native_dir() -> Path:
    """The folder of native headers: the installed `warp_nb.native` package, or `native/` next to
    the source tree."""
    try:
        import warp_nb.native as native_pkg  # package data in a wheel; the mapped folder in an editable install
        path = Path(next(iter(native_pkg.__path__)))
        if (path / "prelude.h").exists():
            return path
    except (ImportError, StopIteration):
        pass
    path = Path(__file__).resolve().parent.parent / "native"
    if (path / "prelude.h").exists():
        return path
    raise RuntimeError("cannot find warp_nb's native headers (prelude.h); reinstall warp_nb")


@lru_cache(maxsize=1)
def headers_digest() -> str:
    """A hash of the contents of every native header: part of each kernel's cache key. Reading
    and hashing them costs about a millisecond, so the digest is remembered in the cache
    directory under the headers' names, sizes and modification times."""
    with os.scandir(native_dir()) as entries:  # one directory read; stat results come with it
        found = sorted((e.name, e.stat()) for e in entries if e.name.endswith(".h"))
    headers = [native_dir() / name for name, _ in found]
    stamp = "|".join(f"{name}:{st.st_size}:{st.st_mtime_ns}" for name, st in found)

    def digest() -> str:
        h = hashlib.blake2b(digest_size=16)
        for p in headers:
            h.update(p.name.encode())
            h.update(p.read_bytes())
        return h.hexdigest()
    return cache.remembered("headers", stamp, digest)


@lru_cache(maxsize=1)
def compiler_identity_key() -> str:
    """The identity of the C++ compiler in use (version and target CPU): part of each cache key."""
    return build.compiler_identity(build.find_compiler(), lambda stamp, ask: cache.remembered("toolchain", stamp, ask))


class LaunchBounds(ctypes.Structure):
    _fields_ = [("shape", ctypes.c_int64 * 4), ("ndim", ctypes.c_int32), ("pad", ctypes.c_int32),
                ("size", ctypes.c_int64)]


class KernelStats(ctypes.Structure):
    _fields_ = [("ns_per_item", ctypes.c_double), ("launches", ctypes.c_int64),
                ("parallel_launches", ctypes.c_int64)]


@lru_cache(maxsize=1)
def library():
    """The loaded runtime library (compiled on first use, then from the cache)."""
    source_path = native_dir() / "runtime" / "cpu_runtime.cpp"
    source = source_path.read_text()
    flags = "-O2 -pthread"
    key = cache.make_key(source, compiler_identity_key(), flags, cache.VERSION)

    def compile_runtime(out: Path) -> None:
        build.compile_library(source, out, native_dir(), "release", "-pthread", libraries=("-pthread",))

    path, _ = cache.get_or_build("wpnb_cpu_runtime", key, compile_runtime, counter="runtime_compiled")
    lib = ctypes.CDLL(str(path))
    lib.wpnb_launch.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                ctypes.c_void_p]
    lib.wpnb_launch.restype = ctypes.c_int
    return lib
