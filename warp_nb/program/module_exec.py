"""Warp's `ModuleExec`: a module loaded on one device for one block size, what `Module.load`
returns and `Module.execs` holds by (CUDA context, or None for the CPU; block dim). warp_nb compiles
and loads each kernel on its own (program/kernel.py), so a ModuleExec holds no binary: it names the
device and block dim, and gives each kernel's entry points (`get_kernel_hooks`), by the kernel's
key and definition, so a kernel defined again identically gets the same hooks."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KernelHooks:
    """A kernel's entry points on one device: the addresses of its forward and backward functions
    (backward None until a backward pass was compiled)."""

    forward: int | None
    backward: int | None = None


class ModuleExec:
    """A module loaded on `device` for blocks of `block_dim` lanes."""

    def __init__(self, module, device, block_dim: int):
        self.module = module
        self.device = device
        self.block_dim = int(block_dim)
        self.kernel_hooks: dict = {}  # (kernel key, its definition's hash) -> KernelHooks

    def __repr__(self):
        return f"<ModuleExec {self.module.name} on {self.device.alias}, block_dim={self.block_dim}>"

    def get_kernel_hooks(self, kernel) -> KernelHooks:
        """The entry points of `kernel` (one of the module's, compiled for this device on first ask)."""
        key = (kernel.key, kernel.hash)
        hooks = self.kernel_hooks.get(key)
        if hooks is None:
            if kernel.is_generic:
                raise RuntimeError(f"kernel `{kernel.key}` is generic: ask for the hooks of one of its overloads")
            loaded = kernel.compiled(self.device).loaded
            hooks = self.kernel_hooks[key] = KernelHooks(getattr(loaded, "entry", None),
                                                         getattr(loaded, "adjoint_entry", None))
        return hooks


def exec_key(device, block_dim: int) -> tuple:
    """The key of `Module.execs`: Warp's (CUDA context, block dim), None as the CPU's context."""
    context = device.context
    try:
        hash(context)
    except TypeError:  # a driver handle that cannot be a key: the device's alias stands for it
        context = device.alias
    return (context, int(block_dim))
