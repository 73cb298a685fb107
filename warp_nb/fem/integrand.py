"""`warp.fem.integrand`: the decorator that marks a Python function as an integrand, and the
`Integrand` record it returns. An integrand is not compiled when it is declared: `integrate` and
`interpolate` specialise it for the concrete fields and domain they are given and generate the
kernel then. This module only holds what those drivers need from the declaration (the function,
its argument specification, the Warp module it belongs to, the kernel options) and the caches they
fill (`cached_kernels`, `cached_funcs`, `operators`). It knows nothing about fields, domains or
code generation."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ..program.module import get_module


class Integrand:
    """A function to be integrated or interpolated over a domain, as declared by `@fem.integrand`.

    `func` is the original Python function and `name` its qualified name; `argspec` its full
    argument specification with the annotations as written (`fem.Sample`, `fem.Field`, ...);
    `module` the Warp module of the function's Python module, so that kernels generated from it
    are built, cached and reloaded with that module's options. Like Warp's, an Integrand is not
    callable from Python: it is evaluated inside the kernels that integrate it."""

    def __init__(self, func: Callable, kernel_options: dict[str, Any] | None = None):
        if not inspect.isfunction(func):
            raise TypeError(f"fem.integrand: `func` must be a Python function, got {type(func).__name__} {func!r}")
        if kernel_options is not None and not isinstance(kernel_options, dict):
            raise TypeError(f"fem.integrand: `kernel_options` must be a dict of kernel options, got "
                            f"{type(kernel_options).__name__}")
        self.func = func
        self.name = func.__qualname__
        self.module = get_module(func.__module__)
        self.argspec = inspect.getfullargspec(func)
        self.kernel_options = dict(kernel_options or {})
        self.operators: dict[str, set] | None = None  # the field operators each argument uses, found at first use
        self.cached_kernels: dict[Any, Any] = {}  # specialization key -> generated kernel (and what it needs)
        self.cached_funcs: dict[Any, Any] = {}  # specialization key -> generated wp.func
        self.cached_return_types: dict[Any, Any] = {}  # specialization key -> the specialised func's return type
        # the function's own name and docstring, for help() and error messages (its signature is `argspec`)
        self.__name__, self.__qualname__, self.__module__ = func.__name__, func.__qualname__, func.__module__
        self.__doc__ = func.__doc__

    def __repr__(self) -> str:
        return f"<fem.Integrand {self.name}{inspect.signature(self.func)}>"


def integrand(func: Callable | None = None, kernel_options: dict[str, Any] | None = None):
    """Decorator marking `func` as an integrand for `fem.integrate` / `fem.interpolate`. Used bare
    (`@fem.integrand`) or with options (`@fem.integrand(kernel_options={"enable_backward": False})`),
    which are passed to the kernels generated from it."""
    if func is None:
        return lambda f: Integrand(f, kernel_options)
    return Integrand(func, kernel_options)
