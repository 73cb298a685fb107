"""Deterministic mode as an option: `wp.config.deterministic`, the module option "deterministic" (a
wp.DeterministicMode) and "deterministic_max_records". In: a module's options and wp.config. Out:
the checked level a kernel compiles with (CompileOptions.deterministic). The lowering itself (which
atomics are deferred, which kernels run serially, what is refused) is the compiler's
(compiler/deterministic.py); the ordered replay of deferred atomics is the CPU runtime's.

What the levels mean on the CPU: RUN_TO_RUN and GPU_TO_GPU both give bit-identical results whatever
`cpu_threads` is and however the pool scheduled the chunks of a launch (they are the same thing on
one kind of device); NOT_GUARANTEED is the default, parallel float atomics in arrival order."""

from __future__ import annotations

import numbers

from .. import config
from ..config import DeterministicMode


def checked_mode(value, what: str = "deterministic") -> DeterministicMode:
    """`value` if it is a DeterministicMode; else a ValueError naming the option. Booleans, ints and
    strings are refused as Warp refuses them: True does not say which guarantee is meant."""
    if type(value) is not DeterministicMode:
        raise ValueError(f"{what} must be a warp.DeterministicMode value, got {value!r}")
    return value


def checked_max_records(value, what: str = "deterministic_max_records") -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} must be an int, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{what} must not be negative, got {value}")
    return int(value)


def module_mode(module) -> DeterministicMode:
    """The level a kernel of `module` compiles with now: the module's option, else wp.config's when
    the module was made (program/module.py ModuleOptions)."""
    value = module.options["deterministic"] if module is not None else None
    return checked_mode(config.deterministic if value is None else value)


def module_max_records(module) -> int:
    value = module.options["deterministic_max_records"] if module is not None else None
    return checked_max_records(config.deterministic_max_records if value is None else value)
