"""C++ text -> shared library, with the machine's C++ compiler (found through CXX or PATH).
A compiler error is mapped back to the user's Python line through the `// @line` comments that
emit writes. Knows compilers and flags; knows nothing about IR or caching."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from .errors import CompilerNotFoundError, KernelCompileError, Loc

_FLAGS = {
    # -fno-math-errno / -fno-trapping-math let sqrt and friends vectorise without changing results
    "release": ["-O3", "-march=native", "-fno-math-errno", "-fno-trapping-math"],
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


def compiler_flags(mode: str, extra: str = "") -> list[str]:
    flags = _COMMON + _FLAGS["debug" if mode == "debug" else "release"]
    return flags + extra.split() if extra else flags


def compiler_identity(cxx: str) -> str:
    """What identifies the compiler's output: its version line and the CPU it targets with
    -march=native. Remembered per process (a subprocess costs milliseconds)."""
    key = (cxx, _mtime(cxx))
    cached = _IDENTITY.get(key)
    if cached is None:
        try:
            version = subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError) as e:
            raise CompilerNotFoundError(f"the C++ compiler {cxx} does not run: {e}") from None
        cached = f"{version.splitlines()[0] if version else cxx}|{_cpu_signature()}"
        _IDENTITY[key] = cached
    return cached


_IDENTITY: dict = {}


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def _cpu_signature() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read(8192)
        model = re.search(r"model name\s*:\s*(.*)", text)
        flags = re.search(r"flags\s*:\s*(.*)", text)
        return f"{model.group(1) if model else ''}|{hash(flags.group(1)) if flags else ''}"
    except OSError:
        return "unknown-cpu"


def compile_library(source: str, out_path: Path, include_dir: Path, mode: str, extra_flags: str = "",
                    function: str | None = None, libraries: tuple = ()) -> None:
    """Compile `source` into the shared library `out_path`. Raises KernelCompileError with the
    user's line when the compiler refuses it."""
    cxx = find_compiler()
    src_path = out_path.with_suffix(".cpp")
    src_path.write_text(source)
    cmd = [cxx, *compiler_flags(mode, extra_flags), f"-I{include_dir}", str(src_path), "-o", str(out_path),
           *libraries]
    proc = subprocess.run(cmd, capture_output=True, text=True)
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
