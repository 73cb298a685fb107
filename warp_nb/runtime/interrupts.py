"""Interrupting CPU kernels: Ctrl-C in a script, Interrupt in a notebook. A kernel that never ends
(a `while` whose condition stays true) would otherwise hold the process until it is killed, and a
student would lose the notebook's state with it.

The runtime that launches kernels has a SIGINT handler that sets its interrupt flag and then runs
the handler it was put in front of (Python's, which raises KeyboardInterrupt once the launch
returns): with the flag set a launch takes no further chunk of threads, and every `while` loop of a
CPU kernel leaves at its next iteration (native/core/prelude_cpu.h). Each loaded kernel is given the
flag's address. Python puts its own handler back whenever `signal.signal(SIGINT, ...)` is called, as
IPython's kernel does before each cell, so in IPython the handler is put in front again before each
cell runs (a `pre_run_cell` callback); elsewhere when a kernel is loaded."""

from __future__ import annotations

import sys
from functools import lru_cache

from . import native

_hooked: set = set()  # the IPython shells (by id) given the pre_run_cell callback


@lru_cache(maxsize=1)
def flag_address() -> int:
    """The address of the flag kernels read (the launching runtime's)."""
    return native.interrupt_address()


def watch() -> None:
    """Make sure an interrupt reaches running kernels (cheap: two sigaction calls)."""
    native.watch_interrupts()
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    if shell is not None and id(shell) not in _hooked and hasattr(shell, "events"):
        shell.events.register("pre_run_cell", _before_cell)
        _hooked.add(id(shell))


def _before_cell(*_info) -> None:
    native.watch_interrupts()
