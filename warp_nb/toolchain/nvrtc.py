"""C++ text -> PTX or CUBIN with NVRTC (from NVIDIA's cuda-bindings and the nvidia-cuda-nvrtc
wheel; no CUDA toolkit needed). Needs no GPU and no driver: the CUDA driver is never touched
here. NVRTC errors are mapped to the user's Python line like C++ compiler errors.

(program/aot.py and the CUDA target call it.)"""

from __future__ import annotations

import re
from pathlib import Path

from .. import config
from ..errors import KernelCompileError, Loc


class NVRTCUnavailableError(RuntimeError):
    """NVRTC cannot be loaded (cuda-bindings or the nvidia-cuda-nvrtc wheel is missing)."""


_NVRTC = None


def _nvrtc():
    """The cuda.bindings.nvrtc module, imported on first use (the CPU path never needs it)."""
    global _NVRTC
    if _NVRTC is None:
        try:
            from cuda.bindings import nvrtc
            nvrtc.nvrtcVersion()
        except Exception as e:  # ImportError, or the shared library is missing
            raise NVRTCUnavailableError(
                "NVRTC is not available: install it with `pip install cuda-bindings nvidia-cuda-nvrtc` "
                f"({type(e).__name__}: {e})") from None
        _NVRTC = nvrtc
    return _NVRTC


def nvrtc_version() -> tuple[int, int]:
    err, major, minor = _nvrtc().nvrtcVersion()
    return int(major), int(minor)


def supported_archs() -> list[int]:
    nvrtc = _nvrtc()
    err, count = nvrtc.nvrtcGetNumSupportedArchs()
    err, archs = nvrtc.nvrtcGetSupportedArchs()
    return [int(a) for a in archs]


def _ok(result, what: str):
    err = result[0]
    if int(err) != 0:
        name = _nvrtc().nvrtcGetErrorString(err)[1]
        raise RuntimeError(f"{what} failed: {name.decode() if isinstance(name, bytes) else name}")
    return result[1:]


def compile_cuda(source: str, arch: int, include_dir: Path, use_ptx: bool = True, debug: bool = False,
                 name: str = "wpnb_kernel.cu", function: str | None = None, include_dirs: tuple = ()) -> bytes:
    """Compile `source` for compute capability `arch` (e.g. 90): PTX text, or a CUBIN for that
    exact architecture. Raises KernelCompileError (at the user's line when the source says which)."""
    nvrtc = _nvrtc()
    archs = supported_archs()
    if arch not in archs:
        raise ValueError(f"NVRTC {'.'.join(map(str, nvrtc_version()))} cannot compile for sm_{arch}; it supports "
                         f"{', '.join(f'sm_{a}' for a in archs)}")
    target = f"compute_{arch}" if use_ptx else f"sm_{arch}"
    options = [f"--gpu-architecture={target}", "--std=c++17", f"-I{include_dir}", *(f"-I{d}" for d in include_dirs),
               "-default-device", "--diag-suppress=177,550,549,186"]
    if debug:
        options += ["-G", "-lineinfo"]
    (program,) = _ok(nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], []), "nvrtcCreateProgram")
    try:
        result = nvrtc.nvrtcCompileProgram(program, len(options), [o.encode() for o in options])
        if int(result[0]) != 0:
            (size,) = _ok(nvrtc.nvrtcGetProgramLogSize(program), "nvrtcGetProgramLogSize")
            log = b" " * size
            _ok(nvrtc.nvrtcGetProgramLog(program, log), "nvrtcGetProgramLog")
            raise map_nvrtc_error(log.decode(errors="replace"), source, function)
        if config.log_level <= 10:  # wp.LOG_DEBUG: the diagnostics of a build that succeeded (its warnings)
            (size,) = _ok(nvrtc.nvrtcGetProgramLogSize(program), "nvrtcGetProgramLogSize")
            log = b" " * size
            _ok(nvrtc.nvrtcGetProgramLog(program, log), "nvrtcGetProgramLog")
            text = log.rstrip(b"\0 ").decode(errors="replace").strip()
            if text:
                print(f"Warp DEBUG: NVRTC log of {name}:\n{text}", flush=True)
        if use_ptx:
            (size,) = _ok(nvrtc.nvrtcGetPTXSize(program), "nvrtcGetPTXSize")
            out = b" " * size
            _ok(nvrtc.nvrtcGetPTX(program, out), "nvrtcGetPTX")
        else:
            (size,) = _ok(nvrtc.nvrtcGetCUBINSize(program), "nvrtcGetCUBINSize")
            out = b" " * size
            _ok(nvrtc.nvrtcGetCUBIN(program, out), "nvrtcGetCUBIN")
        return out.rstrip(b"\0") if use_ptx else out
    finally:
        nvrtc.nvrtcDestroyProgram(program)


def map_nvrtc_error(log: str, source: str, function: str | None) -> KernelCompileError:
    """The first NVRTC error, at the user's line when the generated code records it."""
    lines = source.splitlines()
    m = re.search(r"\((\d+)\): (?:catastrophic )?error: (.*)", log)
    if not m:
        return KernelCompileError(f"NVRTC failed:\n{log[-2000:]}", None, function)
    line_no, message = int(m.group(1)), m.group(2)
    loc = None
    for k in range(min(line_no, len(lines)) - 1, -1, -1):
        marker = re.match(r"\s*// @line (\d+): (.*)", lines[k])
        if marker:
            header = next((lines[j] for j in range(k, -1, -1) if lines[j].startswith("// @wp.")), "")
            file_match = re.search(r"\((.+):\d+\)$", header)
            loc = Loc(file_match.group(1) if file_match else "<kernel>", int(marker.group(1)), 0, None,
                      marker.group(2))
            break
    return KernelCompileError(f"NVRTC rejected the CUDA code generated for this line: {message}\n(this is a bug in "
                              "warp_nb's code generation or a native header; please report it with the kernel)",
                              loc, function)
