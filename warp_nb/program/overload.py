"""`wp.overload`: concrete signatures for generic kernels and functions, as in Warp. Either
`wp.overload(generic, [types])` / `wp.overload(generic, {"name": type})`, or a decorated stub whose
annotations are the concrete types (its body, `...`, is never used):

    @wp.overload
    def scale(x: wp.array(dtype=float), s: float): ...
"""

from __future__ import annotations

import sys

from ..compiler.annotations import parameter_names, parameter_types
from .func import Function, FuncOverload, _FUNCS
from .kernel import Kernel
from .module import get_module


def overload(generic, arg_types=None):
    """Register a concrete signature of a generic kernel (returns the specialised kernel, which can
    be launched on its own) or of a generic @wp.func; as a decorator, find the generic of the same
    name and return it."""
    if isinstance(generic, Kernel):
        return generic.add_overload(_required(arg_types, generic.key))
    if isinstance(generic, Function):
        _add_function_overload(generic, _required(arg_types, generic.key))
        return generic
    if callable(generic) and arg_types is None:  # the decorator form: a stub with concrete annotations
        target = _generic_named(generic)
        if isinstance(target, Kernel) and getattr(generic, "__annotations__", {}).get("return") not in (
                None, type(None), "None", "types.NoneType"):
            raise TypeError(f"Return annotations are not allowed on @wp.overload stubs of kernels "
                            f"({generic.__qualname__}): a kernel returns nothing")
        types_ = parameter_types(generic, "function", sys._getframe(1).f_locals)
        if isinstance(target, Kernel):
            target.add_overload(types_)
        else:
            _add_function_overload(target, types_, generic)
        return target
    raise TypeError(f"wp.overload expects a @wp.kernel or @wp.func, got {type(generic).__name__}")


def _required(arg_types, key):
    if arg_types is None:
        raise TypeError(f"wp.overload({key}, arg_types): give the concrete types, as a list or a dict by name")
    return arg_types


def _generic_named(stub):
    """The generic kernel or function a decorated stub specialises: same module, same qualified
    name (a kernel registered under several custom keys is ambiguous)."""
    module = get_module(stub.__module__)
    kernels = [k for k in module.kernels if k.func.__qualname__ == stub.__qualname__]
    if len({k.key for k in kernels}) > 1:
        raise RuntimeError(f"Ambiguous kernel lookup for @wp.overload of {stub.__qualname__}: it is registered as "
                           f"{', '.join(sorted(k.key for k in kernels))}; use wp.overload(kernel, types)")
    if kernels:
        return kernels[-1]
    func = _FUNCS.get((stub.__module__, stub.__qualname__))
    if func is None:
        raise RuntimeError(f"@wp.overload: no generic @wp.kernel or @wp.func named {stub.__qualname__} in "
                           f"{stub.__module__} (define the generic one first)")
    return func


def _add_function_overload(func: Function, arg_types, stub=None) -> None:
    if isinstance(arg_types, dict):
        names = parameter_names(func.overloads[0].fn)
        arg_types = [arg_types.get(n) for n in names]
    generic = next((o for o in reversed(func.overloads) if o.is_generic), None)
    if generic is None:
        raise TypeError(f"wp.overload: @wp.func {func.key} has no generic definition to specialise")
    ret = generic.return_type
    if stub is not None and stub.__annotations__.get("return") is not None:
        from ..compiler.annotations import resolve_annotation
        ret = resolve_annotation(stub.__annotations__["return"], stub, "return", "function")
    new = FuncOverload(generic.fn, generic.parsed, list(arg_types), ret, generic.scope, generic.custom_grad,
                       generic.custom_replay)
    func.overloads = [o for o in func.overloads if o.params != new.params] + [new]
