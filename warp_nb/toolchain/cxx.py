"""C++ text -> shared library, with the machine's C++ compiler (found through CXX or PATH).
A compiler error is mapped back to the user's Python line through the `// @line` comments that
emit writes. Knows compilers and flags; knows nothing about IR or caching."""

from __future__ import annotations

import hashlib
from functools import lru_cache
import os
import re
import shutil
from pathlib import Path

from . import cache
from . import vector_math as _vector_math
from .. import config
from ..errors import CompilerNotFoundError, KernelCompileError, Loc

_FLAGS = {
    # -fno-math-errno / -fno-trapping-math let sqrt and friends vectorise without changing results;
    # -ffp-contract=off keeps a*b+c as two roundings (no FMA), so results match numpy and Warp
    "release": ["-O3", "-march=native", "-fno-math-errno", "-fno-trapping-math", "-ffp-contract=off"],
    "debug": ["-O0", "-g"],
}
_COMMON = ["-std=c++17", "-fPIC", "-shared", "-fvisibility=hidden", "-fno-exceptions", "-fno-rtti", "-pipe", "-w"]
_compiler: str | None = None


def find_compiler() -> str:
    """The C++ compiler to use: $CXX, else g++, c++ or clang++ on PATH."""
    global _compiler
    if _compiler is not None:
        return _compiler
    candidates = [os.environ["CXX"]] if os.environ.get("CXX") else ["g++", "c++", "clang++"]
    for c in candidates:
        path = shutil.which(c)
        if path:
            _compiler = path
            return path
    raise CompilerNotFoundError(
        "warp_nb compiles kernels for the CPU with a C++ compiler, and none was found "
        f"(looked for {', '.join(candidates)}). Install one (Debian/Ubuntu: `apt-get install g++`; "
        "Fedora: `dnf install gcc-c++`; macOS: `xcode-select --install`) or set the CXX environment variable.")


def compiler_flags(mode: str, extra: str = "", vector_math: bool = False) -> list[str]:
    """The flags of a build in `mode`; with `vector_math`, libm calls may vectorise (not in debug
    builds, which keep the scalar, nearly correctly rounded calls)."""
    flags = _COMMON + _FLAGS["debug" if mode == "debug" else "release"]
    if vector_math and mode != "debug":
        flags = flags + _vector_math.flags(identity_key())
    return flags + extra.split() if extra else flags


def compiler_identity(cxx: str, remember=None) -> str:
    """What identifies the compiler's output: its version line and the CPU it targets with
    -march=native. Asking the compiler costs a subprocess (milliseconds), so the answer is kept
    per process and, through `remember(stamp, compute)`, across processes under a stamp of the
    compiler's path, size and mtime."""
    try:
        st = os.stat(cxx)
        stamp = f"{cxx}|{st.st_size}|{st.st_mtime_ns}|{_cpu_signature()}"
    except OSError:
        stamp = f"{cxx}|?|?|{_cpu_signature()}"
    cached = _IDENTITY.get(stamp)
    if cached is None:
        def ask() -> str:
            import subprocess  # (loaded with the first compile: a warm start asks no compiler)

            try:
                version = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=30).stdout
            except (OSError, subprocess.SubprocessError) as e:
                raise CompilerNotFoundError(f"the C++ compiler {cxx} does not run: {e}") from None
            return f"{version.splitlines()[0] if version else cxx}|{_cpu_signature()}"
        cached = remember(stamp, ask) if remember is not None else ask()
        _IDENTITY[stamp] = cached
    return cached


_IDENTITY: dict = {}
_CPU: list = []


def _cpu_signature() -> str:
    """The CPU model and a digest of its feature flags (code built with -march=native depends on them)."""
    if _CPU:
        return _CPU[0]
    try:  # the kernel's compact list of CPU features (cheaper to read than /proc/cpuinfo)
        with open("/sys/devices/system/cpu/modalias") as f:
            _CPU.append(hashlib.blake2b(f.read().encode(), digest_size=12).hexdigest())
            return _CPU[0]
    except OSError:
        pass
    model, flags = "", ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and not model:
                    model = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    flags = line.split(":", 1)[1].strip()
                if model and flags:
                    break
    except OSError:
        model = "unknown-cpu"
    # a stable digest (Python's hash() of a str changes from process to process)
    _CPU.append(f"{model}|{hashlib.blake2b(flags.encode(), digest_size=8).hexdigest()}")
    return _CPU[0]


def compile_library(source: str, out_path: Path, include_dir: Path, mode: str, extra_flags: str = "",
                    function: str | None = None, libraries: tuple = (), include_dirs: tuple = (),
                    vector_math: bool = False) -> None:
    """Compile `source` into the shared library `out_path`. Raises KernelCompileError with the
    user's line when the compiler refuses it."""
    cxx = find_compiler()
    src_path = out_path.with_suffix(".cpp")
    src_path.write_text(source)
    flags = compiler_flags(mode, extra_flags, vector_math)
    cmd = [cxx, *flags, f"-I{include_dir}", *(f"-I{d}" for d in include_dirs),
           str(src_path), "-o", str(out_path),
           *libraries, *_vector_math.libraries(flags)]
    import subprocess

    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=config.compile_timeout)
    except subprocess.TimeoutExpired:
        raise KernelCompileError(f"the C++ compiler ({cxx}) did not finish within {config.compile_timeout:g} s and was "
                                 "stopped; nothing was cached. If the machine is busy, raise "
                                 "wp.config.compile_timeout (or $WARP_NB_COMPILE_TIMEOUT) and launch again.",
                                 None, function) from None
    if proc.returncode != 0:
        raise map_compiler_error(proc.stderr, source, function)


def map_compiler_error(stderr: str, source: str, function: str | None) -> KernelCompileError:
    """The first compiler error, placed at the user's line when the generated code says which."""
    lines = source.splitlines()
    for m in re.finditer(r"^(.*?):(\d+):(\d+): (?:fatal )?error: (.*)$", stderr, re.MULTILINE):
        line_no = int(m.group(2))
        loc = None
        for k in range(min(line_no, len(lines)) - 1, -1, -1):
            marker = re.match(r"\s*// @line (\d+): (.*)", lines[k])
            if marker:
                file_match = re.search(r"\((.+):\d+\)$", _header_of(lines, k) or "")
                loc = Loc(file_match.group(1) if file_match else "<kernel>", int(marker.group(1)), 0, None,
                          marker.group(2))
                break
        return KernelCompileError(f"the C++ compiler rejected the code generated for this line: {m.group(4)}\n"
                                  "(this is a bug in warp_nb's code generation or a native header; please report it "
                                  "with the kernel)", loc, function)
    return KernelCompileError(f"the C++ compiler failed:\n{stderr[-2000:]}", None, function)


def _header_of(lines: list[str], k: int) -> str | None:
    """The `// @wp.kernel name (file:line)` comment above line k."""
    for j in range(k, -1, -1):
        if lines[j].startswith("// @wp."):
            return lines[j]
    return None


@lru_cache(maxsize=1)
def identity_key() -> str:
    """The identity of the C++ compiler in use (version and target CPU): part of each cache key.
    Without a compiler on this machine, the identity of the last one that built kernels for this
    CPU: what is cached still runs (a build still raises CompilerNotFoundError, saying what to install)."""
    try:
        cxx = find_compiler()
    except CompilerNotFoundError:
        last = cache.last_remembered("toolchain")
        if isinstance(last, str) and last.endswith("|" + _cpu_signature()):
            return last
        raise
    return compiler_identity(cxx, lambda stamp, ask: cache.remembered("toolchain", stamp, ask))
