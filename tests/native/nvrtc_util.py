"""Compile CUDA C++ source to PTX with NVRTC (from cuda-bindings), for tests.

Needs no GPU: NVRTC is a host library. Typical use in a test::

    nvrtc = pytest.importorskip(...)  # or call nvrtc_available() and skip
    ok, ptx_or_log = compile_to_ptx(source, include_dirs=[NATIVE_DIR])
    assert ok, ptx_or_log
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
NATIVE_DIR = REPO_ROOT / "native"


def _import_nvrtc():
    """Return the cuda.bindings nvrtc module, or raise ImportError with the reason."""
    try:
        from cuda.bindings import nvrtc  # cuda-bindings >= 12.6
    except ImportError:
        try:
            from cuda import nvrtc  # older cuda-python layout
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(
                "NVRTC bindings not importable (pip install nvidia-cuda-nvrtc cuda-bindings): " + str(exc)
            ) from exc
    return nvrtc


def nvrtc_unavailable_reason() -> str | None:
    """None when NVRTC can be loaded and queried, otherwise a sentence saying why not."""
    try:
        nvrtc = _import_nvrtc()
    except ImportError as exc:
        return str(exc)
    try:
        err, major, minor = nvrtc.nvrtcVersion()
    except Exception as exc:  # the shared library itself may be missing
        return f"NVRTC library could not be loaded: {exc}"
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        return f"nvrtcVersion failed: {err}"
    return None


def nvrtc_version() -> tuple[int, int]:
    nvrtc = _import_nvrtc()
    _, major, minor = nvrtc.nvrtcVersion()
    return int(major), int(minor)


def _check(nvrtc, result, what: str):
    err = result[0] if isinstance(result, tuple) else result
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"{what} failed: {err}")
    return result[1:] if isinstance(result, tuple) else ()


def compile_to_ptx(
    source: str,
    name: str = "wpnb_test.cu",
    include_dirs: list[str | os.PathLike] | None = None,
    arch: str = "compute_90",
    extra_options: list[str] | None = None,
) -> tuple[bool, str]:
    """Compile `source` with NVRTC for `arch`.

    Returns (True, ptx) on success and (False, log) when compilation fails; raises
    ImportError when NVRTC is missing and RuntimeError for API errors other than a
    compile failure.
    """
    nvrtc = _import_nvrtc()
    dirs = [NATIVE_DIR] if include_dirs is None else include_dirs
    options = [f"--gpu-architecture={arch}", "--std=c++17"]
    options += [f"-I{Path(d)}" for d in dirs]
    options += list(extra_options or [])
    (prog,) = _check(nvrtc, nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], []), "nvrtcCreateProgram")
    try:
        (compile_err,) = nvrtc.nvrtcCompileProgram(prog, len(options), [o.encode() for o in options])
        (log_size,) = _check(nvrtc, nvrtc.nvrtcGetProgramLogSize(prog), "nvrtcGetProgramLogSize")
        log = b" " * log_size
        _check(nvrtc, nvrtc.nvrtcGetProgramLog(prog, log), "nvrtcGetProgramLog")
        log_text = log.decode(errors="replace").rstrip("\x00 ")
        if compile_err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            return False, f"NVRTC options: {' '.join(options)}\n{log_text}"
        (ptx_size,) = _check(nvrtc, nvrtc.nvrtcGetPTXSize(prog), "nvrtcGetPTXSize")
        ptx = b" " * ptx_size
        _check(nvrtc, nvrtc.nvrtcGetPTX(prog, ptx), "nvrtcGetPTX")
        return True, ptx.decode(errors="replace").rstrip("\x00")
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
