"""`@wp.kernel`: a Python function that runs once per thread of a launch. A Kernel holds its
definition (parsed at decoration), its parameter types, and what it became on each device it
ran on: compiled code (from `compiler.pipeline.compile_kernel`), or the error that stopped it,
and the launchers `wp.launch` uses. It belongs to a `Module` (its Python module or notebook
cell), which compiles the kernels that are loaded together in parallel."""

from __future__ import annotations

import sys

from .. import config
from ..compiler.annotations import parameter_names, parameter_types
from ..compiler.parse import parse_definition
from ..compiler.pipeline import CompiledKernel, CompileOptions, compile_kernel
from ..compiler.scope import Scope
from ..errors import KernelError
from ..launcher import Launcher
from .module import get_module
from ..runtime.devices import Device, get_device


class Kernel:
    """What `@wp.kernel` returns. Launch it with wp.launch(kernel, dim, inputs=[...])."""

    _wp_kernel_ = True

    def __init__(self, fn, key: str | None = None, module: str | None = None, enable_backward=None,
                 local_names: dict | None = None):
        self.func = fn
        self.key = key or fn.__qualname__
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self.enable_backward = enable_backward
        self.mode: str | None = None  # "debug" or "release" for this kernel alone; None follows wp.config.mode
        self.syntax = parse_definition(fn)  # errors in the body surface here, at the user's line
        self.param_names = parameter_names(fn)
        self.param_types = parameter_types(fn, "kernel", local_names, self.syntax.loc)
        self.scope = Scope(fn)
        self._compiled: dict = {}  # (device alias, CompileOptions) -> CompiledKernel
        self._failures: dict = {}  # (device alias, CompileOptions) -> KernelError
        #: launchers by device name (read by wp.launch, made by `launcher`)
        self.launchers: dict = {}
        self.module = get_module(module or fn.__module__)
        self.module.add(self)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"kernel `{self.key}` cannot be called directly; launch it with "
                        f"wp.launch({self.__name__}, dim=..., inputs=[...])")

    def __repr__(self):
        return f"<wp.kernel {self.key}>"

    # --- compiling ------------------------------------------------------------------------
    def options(self, backward: bool = False) -> CompileOptions:
        """The compile options in effect now: this kernel's mode or wp.config's, and its flags."""
        if backward and not self.backward_enabled:
            raise KernelError(f"kernel `{self.key}` has no backward pass: it was defined with enable_backward=False "
                              "(or wp.config.enable_backward is False)", None, self.key)
        return CompileOptions(self.mode or config.mode, backward, config.cxx_flags)

    @property
    def backward_enabled(self) -> bool:
        return config.enable_backward if self.enable_backward is None else bool(self.enable_backward)

    def is_ready(self, device: Device, backward: bool = False) -> bool:
        """Whether compiling for `device` has been tried with the current options."""
        key = (device.alias, self.options(backward))
        return key in self._compiled or key in self._failures

    def compile(self, device: Device, backward: bool = False) -> None:
        """Compile for `device` now, keeping the result or the error (for this kernel's launches:
        one bad kernel does not stop the others of its module)."""
        options = self.options(backward)
        key = (device.alias, options)
        try:
            self._compiled[key] = compile_kernel(self, self.param_types, device.target, options)
            self._failures.pop(key, None)
        except KernelError as e:
            self._failures[key] = e

    def compiled(self, device=None, backward: bool = False) -> CompiledKernel:
        """This kernel compiled for `device` with the current options: forward code compiles with
        the rest of its module; `backward` adds the adjoint (compiled on first need)."""
        device = get_device(device)
        key = (device.alias, self.options(backward))
        hit = self._compiled.get(key)
        if hit is not None:
            return hit
        if not backward:
            self.module.load(device)
        if key not in self._compiled and key not in self._failures:
            # a backward pass, or a kernel made by a factory function and since replaced in its
            # module by a newer kernel of the same name: it compiles on its own
            self.compile(device, backward)
        hit = self._compiled.get(key)
        if hit is None:
            raise self._failures[key].with_traceback(None)
        return hit

    def invalidate(self) -> None:
        """Forget this kernel's compiled code and launchers (for example after a @wp.func it uses was
        redefined in a notebook); the next launch compiles it again, from the cache when its
        generated code did not change."""
        self._compiled.clear()
        self._failures.clear()
        self.launchers.clear()

    @property
    def has_compiled_code(self) -> bool:
        return bool(self._compiled)

    def compiled_options(self, device_alias: str) -> list:
        """The CompileOptions this kernel has been compiled with on a device (for tools that
        recompile the same variants for another target)."""
        return [options for alias, options in self._compiled if alias == device_alias]

    # --- launching ------------------------------------------------------------------------
    def launcher(self, device, backward: bool = False) -> Launcher:
        """The launcher of this kernel on `device` (a Device or a name), made on first use and kept
        under the name it was asked by and the device's own name."""
        dev = get_device(device)
        launcher = Launcher(self, self.compiled(dev, backward), dev, config.mode, backward)
        if backward:
            self.launchers[("backward", dev.alias)] = launcher
        else:
            if isinstance(device, str):
                self.launchers[device] = launcher
            self.launchers[dev.alias] = launcher
        return launcher


def kernel(fn=None, *, enable_backward=None, module=None, key=None):
    """Decorator: a kernel, launched over a grid of threads with wp.launch."""
    if fn is None:
        return lambda f: kernel(f, enable_backward=enable_backward, module=module, key=key)
    # the defining scope's locals, for string annotations of kernels defined inside functions
    caller = sys._getframe(1)
    if caller.f_code.co_name == "<lambda>":
        caller = caller.f_back
    return Kernel(fn, key=key, module=module, enable_backward=enable_backward, local_names=caller.f_locals)
