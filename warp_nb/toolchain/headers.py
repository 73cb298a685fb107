"""The native headers that generated code includes: where they are (the installed
`warp_nb.native` package, or `native/` beside the source tree) and a digest of their contents,
which is part of every kernel's cache key. The folder is the one include root: headers sit in
folders by family and are named by their path below it (`core/prelude.h`, `tiles/tile.h`), in
`#include` lines and in the builtin registry alike. Knows files; knows nothing about kernels."""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path

from . import cache

#: the header every other one includes: finding it tells a folder of native headers
PRELUDE = "core/prelude.h"


@lru_cache(maxsize=1)
def native_dir() -> Path:
    """The folder of native headers (the include root): the installed `warp_nb.native` package, or
    `native/` next to the source tree."""
    try:
        import warp_nb.native as native_pkg  # package data in a wheel; the mapped folder in an editable install
        path = Path(next(iter(native_pkg.__path__)))
        if (path / PRELUDE).exists():
            return path
    except (ImportError, StopIteration):
        pass
    path = Path(__file__).resolve().parents[2] / "native"
    if (path / PRELUDE).exists():
        return path
    raise RuntimeError(f"cannot find warp_nb's native headers ({PRELUDE}); reinstall warp_nb")


def _header_entries(folder: str, rel: str = "") -> list:
    """(path below the include root, stat) of every header in `folder` and the folders inside it;
    one directory read per folder, the stat results come with it."""
    found = []
    with os.scandir(folder) as entries:
        for e in entries:
            if e.is_dir():
                found += _header_entries(e.path, f"{rel}{e.name}/")
            elif e.name.endswith(".h"):
                found.append((f"{rel}{e.name}", e.stat()))
    return found


@lru_cache(maxsize=1)
def headers_digest() -> str:
    """A hash of the contents of every native header: part of each kernel's cache key. Reading
    and hashing them costs about a millisecond, so the digest is remembered in the cache
    directory under the headers' paths, sizes and modification times."""
    found = sorted(_header_entries(str(native_dir())))
    stamp = "|".join(f"{name}:{st.st_size}:{st.st_mtime_ns}" for name, st in found)

    def digest() -> str:
        h = hashlib.blake2b(digest_size=16)
        for name, _ in found:
            h.update(name.encode())
            h.update((native_dir() / name).read_bytes())
        return h.hexdigest()
    return cache.remembered("headers", stamp, digest)
