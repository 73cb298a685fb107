"""The native headers that generated code includes: where they are (the installed
`warp_nb.native` package, or `native/` beside the source tree) and a digest of their contents,
which is part of every kernel's cache key. Knows files; knows nothing about kernels."""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path

from . import cache


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
    path = Path(__file__).resolve().parents[2] / "native"
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
