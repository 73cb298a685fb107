"""Kernels with Warp's entry_point_abi='external_constant_params': a CUDA entry point that another
program launches (OptiX's raygen programs, say), which reads its one struct argument from constant
memory and has no launch grid. The front half refuses, with Warp's reasons, what such a kernel
cannot do (take other arguments, read wp.tid(), use shared-memory tiles, run in deterministic
mode); then it refuses the kernel itself: the CPU has no such entry point, and warp_nb does not
generate the CUDA one. Knows the typed IR; nothing about C++ or devices."""

from __future__ import annotations

from ..errors import KernelError, KernelTypeError
from ..types.tiles import TileType

ABI = "external_constant_params"


def is_external(kernel) -> bool:
    return getattr(kernel, "options", {}).get("entry_point_abi") == ABI


def check_signature(kernel, signature: list) -> None:
    """Before typing: exactly one parameter, a @wp.struct."""
    if len(signature) != 1 or not getattr(signature[0], "_wp_struct_", False):
        got = ", ".join(getattr(t, "__name__", str(t)) for t in signature) or "none"
        raise KernelTypeError(f"kernel `{kernel.key}` uses entry_point_abi='{ABI}', which takes exactly one Warp struct "
                              f"argument (its parameters, read from constant memory); got {got}", None, kernel.key)


def check_body(kernel, typed, deterministic: int) -> None:
    """After typing: no launch grid to read, no shared tiles, no deterministic lowering; then the
    refusal of the kernel itself."""
    what = f"kernel `{kernel.key}` uses entry_point_abi='{ABI}', which"
    if typed.tid_count:
        raise KernelError(f"{what} cannot use wp.tid(): other programs launch it without Warp's launch grid", None,
                          kernel.key)
    if any(isinstance(v.type, TileType) and v.type.storage == "shared" for v in typed.locals):
        raise KernelError(f"{what} cannot use shared-memory tiles (storage='shared')", None, kernel.key)
    # (the module's own setting counts too: a build that only hashes or prints the code runs without it)
    if deterministic or getattr(getattr(kernel, "module", None), "options", {}).get("deterministic"):
        raise KernelError(f"{what} does not support deterministic lowering (wp.DeterministicMode): leave the module's "
                          "deterministic option off", None, kernel.key)
    raise KernelError(f"{what} is not supported by the CPU backend; warp_nb does not generate that CUDA entry point "
                      "either (the option is checked, recorded and hashed: docs/compat.md)", None, kernel.key)
