"""The compiled-code cache: content-keyed shared libraries in a per-user directory. Entries are
written atomically (temporary file, then rename; the metadata file last); two processes asking
for the same entry take a file lock, so one compiles and the other reuses its result; an entry
whose library does not match its recorded checksum is rebuilt. Knows files; knows nothing
about kernels or C++."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import threading
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from .. import config
from ..version import __version__

VERSION = __version__  # entries of another version are never read

#: What the cache did in this process (tests count compilations with these, not timings).
#: "compiled" counts kernels compiled (alone or together); "compiled_together" those of them that
#: were compiled in a translation unit with other kernels (install).
stats = {"compiled": 0, "compiled_together": 0, "disk_hits": 0, "rebuilt_damaged": 0, "runtime_compiled": 0}


#: the folders cache_dir() chose, each written back to config.kernel_cache_dir when chosen: Warp's
#: config shows the resolved, versioned folder once it is initialised (its doc example archives that
#: folder); a config naming one of them (the one now, or one set back, as a test restoring the
#: setting does) is taken as it is, not versioned a second time
_chosen: set = set()


def cache_dir() -> Path:
    """<base>/<version>, where <base> is config.kernel_cache_dir, else $WARP_NB_CACHE_DIR, else
    $XDG_CACHE_HOME/warp_nb, else ~/.cache/warp_nb; the folder is written back to
    config.kernel_cache_dir (use_folder)."""
    base = config.kernel_cache_dir or os.environ.get("WARP_NB_CACHE_DIR")
    if base and base in _chosen:
        path = Path(base)
    else:
        if not base:
            xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
            base = os.path.join(xdg, "warp_nb")
        path = Path(base) / VERSION
        use_folder(str(path))
    path.mkdir(parents=True, exist_ok=True)
    return path


def use_folder(path: str) -> None:
    """Keep compiled kernels in `path` itself (a folder already versioned): config.kernel_cache_dir
    names it from now on."""
    # written past config's __setattr__: where kernels are kept changes no compiled code, so the
    # settings epoch (which remakes every launcher) is not bumped by the first compile's choice
    _chosen.add(path)
    vars(config)["kernel_cache_dir"] = path


_swept: set = set()


def _build_dir() -> Path:
    """cache_dir(), swept of stale build folders once per process: only where a build is about to
    start (reading the folder of thousands of entries would cost every warm start milliseconds)."""
    path = cache_dir()
    if path not in _swept:
        _swept.add(path)
        _sweep_stale_builds(path)
    return path


def _sweep_stale_builds(directory: Path) -> None:
    """Remove the build folders of compiles that were killed (`kill -9` leaves `.build-*` behind):
    those untouched for longer than two compile timeouts, so that no live build is disturbed."""
    limit = time.time() - 2 * max(config.compile_timeout, 60.0)
    with os.scandir(directory) as entries:
        stale = [e.path for e in entries if e.name.startswith(".build-")]
    for path in stale:
        try:
            if os.stat(path).st_mtime < limit:
                shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass


def last_remembered(name: str):
    """The value `remembered(name, ...)` stored last, whatever its stamp, or None."""
    try:
        known = json.loads((cache_dir() / f"{name}.json").read_text())
    except (OSError, ValueError):
        return None
    return next(reversed(known.values()), None) if isinstance(known, dict) else None  # the newest is last


def remembered(name: str, stamp: str, compute: Callable[[], str]) -> str:
    """A value that is slow to compute (a compiler's version line, a digest of many files), kept in
    `<cache dir>/<name>.json` under `stamp` (what it depends on, such as paths, sizes and mtimes)."""
    path = cache_dir() / f"{name}.json"
    try:
        known = json.loads(path.read_text())
    except (OSError, ValueError):
        known = {}
    value = known.get(stamp)
    if value is None:
        value = compute()
        # a few stamps are kept: installations that share the cache folder (two virtual environments,
        # a source tree and a wheel) each find theirs rather than recomputing in turn
        known = {**dict(list(known.items())[-7:]), stamp: value}
        # per thread too: a module's kernels load in parallel threads, which may all find the value missing
        tmp = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(known))
        os.replace(tmp, path)
    return value


def make_key(*parts: str) -> str:
    h = hashlib.blake2b(digest_size=20)
    for p in parts:
        h.update(p.encode())
        h.update(b"\0")
    return h.hexdigest()


def _checksum(path: Path) -> str:
    return hashlib.blake2b(path.read_bytes(), digest_size=16).hexdigest()


def lookup(name: str, key: str, suffix: str = ".so") -> Path | None:
    """The library for (name, key) if a complete, undamaged entry exists."""
    return _lookup(name, key, suffix)[0]


def _lookup(name: str, key: str, suffix: str = ".so") -> tuple[Path | None, bool]:
    """(library or None, whether a damaged entry is in the way)."""
    lib = cache_dir() / f"{name}_{key}{suffix}"
    meta = lib.with_suffix(".json")
    try:
        info = json.loads(meta.read_text())
        st = lib.stat()
        if info.get("key") != key:
            return None, True
        # unchanged since it was written (size and mtime as recorded): no need to read it all
        if info.get("size") == st.st_size and info.get("mtime_ns") == st.st_mtime_ns:
            return lib, False
        if _checksum(lib) == info.get("checksum"):
            return lib, False
        return None, True
    except (OSError, ValueError):
        return None, lib.exists()


@contextmanager
def _locked(path: Path):
    with open(path, "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def get_or_build(name: str, key: str, build: Callable[[Path], None], counter: str = "compiled",
                 suffix: str = ".so") -> tuple[Path, bool]:
    """The cached library (or CUBIN/PTX, by `suffix`) for (name, key), building it with
    `build(tmp_path)` if needed. Returns (path, compiled_now); a build is counted in stats[counter]."""
    found, damaged = _lookup(name, key, suffix)
    if found is not None:
        stats["disk_hits"] += 1
        return found, False
    directory = _build_dir()
    with _locked(directory / f"{name}_{key}.lock"):
        found, damaged_now = _lookup(name, key, suffix)  # another process may have built it while we waited
        if found is not None:
            stats["disk_hits"] += 1
            return found, False
        if damaged or damaged_now:
            stats["rebuilt_damaged"] += 1
        lib = directory / f"{name}_{key}{suffix}"
        with tempfile.TemporaryDirectory(dir=directory, prefix=".build-") as tmp:
            tmp_lib = Path(tmp) / f"{name}{suffix}"
            build(tmp_lib)
            checksum = _checksum(tmp_lib)
            source = tmp_lib.with_suffix(".cpp")
            if source.exists():
                os.replace(source, lib.with_suffix(".cpp"))
            os.replace(tmp_lib, lib)
            st = lib.stat()
            meta_tmp = Path(tmp) / "meta.json"
            meta_tmp.write_text(json.dumps({"key": key, "checksum": checksum, "size": st.st_size,
                                            "mtime_ns": st.st_mtime_ns, "created": time.time()}))
            os.replace(meta_tmp, lib.with_suffix(".json"))  # written last: the entry is complete
        stats[counter] += 1
        return lib, True


def install(name: str, key: str, built: Path, suffix: str = ".so", source: str | None = None) -> Path:
    """Make the already built file `built` the entry for (name, key) (kernels compiled together
    share one library: the entries are hard links to it where the file system allows, else
    copies). An existing complete entry is kept. `source` is kept beside it for reading."""
    directory = _build_dir()
    lib = directory / f"{name}_{key}{suffix}"
    with _locked(directory / f"{name}_{key}.lock"):
        found, _ = _lookup(name, key, suffix)
        if found is not None:
            return found
        with tempfile.TemporaryDirectory(dir=directory, prefix=".build-") as tmp:
            tmp_lib = Path(tmp) / f"{name}{suffix}"
            try:
                os.link(built, tmp_lib)
            except OSError:
                tmp_lib.write_bytes(Path(built).read_bytes())
            if source is not None:
                src_tmp = Path(tmp) / "source"
                src_tmp.write_text(source)
                os.replace(src_tmp, lib.with_suffix(".cpp"))
            os.replace(tmp_lib, lib)
            st = lib.stat()
            meta_tmp = Path(tmp) / "meta.json"
            meta_tmp.write_text(json.dumps({"key": key, "checksum": _checksum(lib), "size": st.st_size,
                                            "mtime_ns": st.st_mtime_ns, "created": time.time()}))
            os.replace(meta_tmp, lib.with_suffix(".json"))
        stats["compiled"] += 1
        stats["compiled_together"] += 1
        return lib


def clear() -> int:
    """Delete every cached entry of this version; returns how many libraries were removed."""
    directory = cache_dir()
    removed = 0
    for p in directory.iterdir():
        if p.suffix in (".so", ".cubin", ".ptx", ".json", ".cpp", ".lock"):
            removed += p.suffix in (".so", ".cubin", ".ptx")
            p.unlink(missing_ok=True)
    return removed


def entries() -> list[dict]:
    """What is in the cache: one dict per library (name, size, created)."""
    out = []
    for lib in sorted(cache_dir().glob("*.so")):
        try:
            info = json.loads(lib.with_suffix(".json").read_text())
        except (OSError, ValueError):
            info = {}
        out.append({"name": lib.stem.rsplit("_", 1)[0], "file": str(lib), "bytes": lib.stat().st_size,
                    "created": info.get("created")})
    return out
