"""Shared library -> callable kernel: loads a compiled kernel with ctypes and finds its entry
point and, in debug mode, its debug state. Knows ctypes; knows nothing about compiling."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from pathlib import Path

from .debug import DebugState
from .native import KernelStats


@dataclass
class LoadedKernel:
    library: ctypes.CDLL
    path: Path
    entry: int  # address of the CPU forward entry point
    adjoint_entry: int | None
    debug_state: DebugState | None
    stats: KernelStats = field(default_factory=KernelStats)

    @property
    def stats_address(self) -> int:
        return ctypes.addressof(self.stats)


def load_kernel(path: Path, entry: str, adjoint_entry: str | None, debug: bool) -> LoadedKernel:
    lib = ctypes.CDLL(str(path))
    address = ctypes.cast(getattr(lib, entry), ctypes.c_void_p).value
    adjoint = ctypes.cast(getattr(lib, adjoint_entry), ctypes.c_void_p).value if adjoint_entry else None
    state = DebugState.in_dll(lib, "wpnb_debug_state") if debug else None
    return LoadedKernel(lib, path, address, adjoint, state)
