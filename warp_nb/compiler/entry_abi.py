"""Warp's `entry_point_abi` kernel keyword: how a kernel's entry point is called.

"warp" (the default) gives the entry points wp.launch calls. "external_constant_params" gives one
CUDA entry point, `extern "C" __global__ void <kernel key>()`, for another program to launch (an
OptiX raygen program, a CUDA application of its own): the kernel's one @wp.struct parameter is read
from a `__constant__` buffer named `params` that the launching program fills, and the launch grid
is that program's, so the kernel has no wp.tid(), no backward pass and no block-wide tiles.

This module holds the refusal, on the typed kernel, of what such an entry point cannot have (the
option itself is checked at decoration with Warp's other CUDA options: program/cuda_options.py). The CUDA target writes the entry point
(cuda/entry.py); the CPU target and wp.launch refuse the kernel. Knows typed IR; knows nothing
about C++ text or devices."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import KernelError, KernelTypeError

if TYPE_CHECKING:  # (the option check runs at decoration, before the compiler loads)
    from . import ir

WARP = "warp"
EXTERNAL_CONSTANT_PARAMS = "external_constant_params"


def check_external_entry(fn: ir.Function, deterministic: int) -> None:
    """Refuse what a kernel with an external_constant_params entry point cannot have."""
    from . import ir
    from ..types.tiles import TileType
    where = f"kernel `{fn.name}` (entry_point_abi='external_constant_params')"
    if len(fn.params) != 1 or not getattr(fn.params[0].type, "_wp_struct_", False):
        got = ", ".join(f"{n}" for n in fn.param_names) or "none"
        raise KernelTypeError(f"{where} takes exactly one Warp struct argument, the parameters the launching "
                              f"program puts in constant memory (its parameters: {got})", fn.loc, fn.name)
    if fn.tid_arity:
        raise KernelError(f"{where} cannot use wp.tid(): the launch grid is the launching program's; read the "
                          "thread's index through that program's API (a @wp.func_native)", fn.loc, fn.name)
    if deterministic:
        raise KernelError(f"{where} does not support deterministic lowering (deterministic mode replays float "
                          "atomics after a wp.launch); compile its module with deterministic "
                          "wp.DeterministicMode.NOT_GUARANTEED", fn.loc, fn.name)
    for inst in [None, *ir.called_instances(fn)]:
        body = fn if inst is None else inst.ir
        if any(isinstance(v.type, TileType) and v.type.storage == "shared" for v in (*body.params, *body.locals)):
            raise KernelError(f"{where} cannot use shared-memory tiles (storage=\"shared\"): the launching program "
                              "sets no shared memory aside; use register tiles", fn.loc, fn.name)
