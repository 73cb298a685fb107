"""`wp.print_diagnostics()`: what a bug report needs to know about this installation (versions of
warp_nb, Python, numpy and the compilers, the build settings, the devices), printed and returned as a
dict with Warp's keys. Where warp_nb has no counterpart of a Warp component (LLVM, warp-clang,
MathDx) the value says so; nothing here changes any setting."""

from __future__ import annotations

import importlib.metadata
import platform
import sys

import numpy as np

import warp_nb as wp

from .. import config
from ..geometry import is_cubql_available

def nanovdb_version() -> str:
    """The NanoVDB grid format version warp_nb reads and writes (geometry/nvdb.py), as major.minor.patch
    (NanoVDB packs it as major << 21 | minor << 10 | patch)."""
    from ..geometry.nvdb import _GRID_VERSION as v
    return f"{v >> 21}.{(v >> 10) & 0x7FF}.{v & 0x3FF}"


def host_compiler_version() -> str:
    """The C++ compiler that builds CPU kernels, with its version ("g++ 12.2.0")."""
    import os

    from ..toolchain.cpu_isa import toolchain_version
    from ..toolchain.cxx import find_compiler
    return f"{os.path.basename(find_compiler())} {toolchain_version()}"


def nvrtc_version() -> tuple | None:
    """NVRTC's (major, minor), or None where it is not installed."""
    try:
        from ..toolchain.nvrtc import nvrtc_version as version
        return tuple(version())
    except Exception:  # noqa: BLE001  (any failure to load NVRTC means: not available)
        return None


def _devices() -> list:
    out = []
    for d in wp.get_devices():
        entry = {"alias": d.alias, "name": getattr(d, "name", d.alias), "is_cuda": d.is_cuda}
        if d.is_cuda:
            entry.update({"arch": f"sm_{d.arch}", "sm_count": int(getattr(d, "sm_count", 0)),
                          "memory_gb": float(getattr(d, "total_memory", 0)) / 1024 ** 3,
                          "mempool_enabled": bool(getattr(d, "is_mempool_enabled", False)),
                          "pci_bus_id": str(getattr(d, "pci_bus_id", ""))})
            for key in ("is_cpu_memory_access_from_gpu_supported", "is_gpu_memory_access_from_cpu_supported",
                        "is_cpu_gpu_atomic_supported"):
                entry[key] = bool(getattr(d, key, False))
        out.append(entry)
    return out


def diagnostics() -> dict:
    """The facts print_diagnostics prints, under Warp's keys."""
    nvrtc = nvrtc_version()
    info = {
        "warp_python": config.version,
        "warp_native": config.version,  # warp_nb's native code is compiled from the package itself
        "warp_clang": None,  # no warp-clang: CPU kernels are built by the host C++ compiler
        "llvm": None,
        "numpy": np.__version__,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cuda_enabled": wp.is_cuda_available(),
        "cuda_toolkit": None,
        "cuda_driver": None,
        "nvrtc": None if nvrtc is None else f"{nvrtc[0]}.{nvrtc[1]}",
        "cuda_compatibility": None,
        "mathdx_enabled": False,
        "libmathdx": "",
        "cubql_enabled": bool(is_cubql_available()),
        "nanovdb": nanovdb_version(),
        "host_compiler": host_compiler_version(),
        "debug": config.mode == "debug",
        "verify_fp": bool(config.verify_fp),
        "fast_math": False,
        "devices": _devices(),
    }
    for pkg in ("torch", "jax", "jaxlib"):
        try:
            info[pkg] = importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            pass
    return info


def print_diagnostics() -> dict:
    """Print this installation's versions, settings and devices (what to paste into a bug report);
    return them as a dict with Warp's keys."""
    info = diagnostics()
    print("Software")
    for key in ("warp_python", "python", "numpy", "platform", "host_compiler", "nvrtc", "nanovdb", "torch", "jax"):
        if info.get(key) is not None:
            print(f"  {key}: {info[key]}")
    print("Settings")
    for key in ("debug", "verify_fp", "fast_math", "cuda_enabled", "cubql_enabled"):
        print(f"  {key}: {info[key]}")
    print("Devices")
    for d in info["devices"]:
        line = f"  {d['alias']}: {d['name']}"
        if d["is_cuda"]:
            line += (f" ({d['arch']}, {d['sm_count']} SMs, {d['memory_gb']:.1f} GB; GPU->CPU mem: "
                     f"{d['is_cpu_memory_access_from_gpu_supported']}, CPU->GPU mem: "
                     f"{d['is_gpu_memory_access_from_cpu_supported']}, CPU/GPU atomics: "
                     f"{d['is_cpu_gpu_atomic_supported']})")
        print(line)
    return info
