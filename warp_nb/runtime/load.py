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
    """A kernel's shared library loaded on the CPU, with its entry points."""

    library: ctypes.CDLL
    path: Path
    entry: int | None  # address of the CPU forward entry point (None: a backward launch's library)
    adjoint_entry: int | None
    debug_state: DebugState | None
    stats: KernelStats = field(default_factory=KernelStats)
    #: deterministic mode's replays of logged float atomics (forward, backward), called after a
    #: launch of an entry point that defers them (runtime/cpu_entry.py deferring)
    replay: object = None
    adjoint_replay: object = None
    #: address of the module global a backward launch writes value parameters' given adjoints into
    #: (compiler/emit/adjoint.py seeded_params), or None: the kernel prints no such adjoint
    adjoint_seeds: int | None = None

    @property
    def stats_address(self) -> int:
        return ctypes.addressof(self.stats)


def load_kernel(path: Path, entry: str | None, adjoint_entry: str | None, debug: bool,
                seeds_global: str | None = None) -> LoadedKernel:
    lib = ctypes.CDLL(str(path))
    address = ctypes.cast(getattr(lib, entry), ctypes.c_void_p).value if entry else None
    adjoint = ctypes.cast(getattr(lib, adjoint_entry), ctypes.c_void_p).value if adjoint_entry else None
    state = DebugState.in_dll(lib, "wpnb_debug_state") if debug else None
    loaded = LoadedKernel(lib, path, address, adjoint, state)
    loaded.replay = _optional(lib, f"{entry}_replay") if entry else None
    loaded.adjoint_replay = _optional(lib, f"{adjoint_entry}_replay") if adjoint_entry else None
    if seeds_global and adjoint_entry:
        loaded.adjoint_seeds = ctypes.addressof(ctypes.c_char.in_dll(lib, seeds_global))
    _give_interrupt_flag(lib)
    return loaded


def _give_interrupt_flag(lib) -> None:
    """Point the kernel's wpnb_interrupt_flag at the launching runtime's flag, so its while loops
    leave on an interrupt (runtime/interrupts.py)."""
    from . import interrupts
    try:
        pointer = ctypes.c_void_p.in_dll(lib, "wpnb_interrupt_flag")
    except ValueError:  # a library built without warp_nb's prelude
        return
    pointer.value = interrupts.flag_address()
    interrupts.watch()


def _optional(lib, symbol: str):
    try:
        return getattr(lib, symbol)
    except AttributeError:
        return None
