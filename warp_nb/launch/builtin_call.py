"""Builtins called from Python scope (`q = wp.quat_rpy(0.1, 0.2, 0.3)` outside any kernel) when
the builtin has no numpy implementation of its own: the call runs in a one-thread CPU kernel, so
Python scope and kernels share one implementation, overloads and all (Warp does the same through
its native library).

One generic kernel per builtin and argument count (`out[0] = wp.<name>(a0, a1, ...)`, parameters
`typing.Any`) is specialised per argument types and cached like any kernel, so a repeated call
costs a launch, not a compile."""

from __future__ import annotations

import linecache
from typing import Any

import numpy as np

from .. import types as T
from ..builtins import registry
from ..builtins.python_results import python_scope_type, scalar_result

_KERNELS: dict = {}  # (builtin name, argument count) -> generic kernel


def _literal(value):
    """A plain Python number as the weakly typed literal the overload resolution adapts."""
    if isinstance(value, bool):
        return registry.Literal("bool", value)
    if isinstance(value, int):
        return registry.Literal("int", value)
    if isinstance(value, float):
        return registry.Literal("float", value)
    return None


def _arg_type(value):
    """Its type for the overload resolution: Warp's Python-scope types (a Python int is an int32 ...)."""
    found = python_scope_type(value)
    return type(value) if found is None else found


def _kernel_for(name: str, nargs: int, nout: int = 0, inout: tuple = ()):
    """The generic one-thread kernel calling wp.<name> with `nargs` arguments; `nout` > 0 for a builtin
    with several results (`axis, angle = wp.quat_to_axis_angle(q)`), one output array each. The
    arguments at `inout` positions (a random state: `wp.randf(state)`) are passed as copies, which
    the call updates and nobody reads: as in Warp's Python scope, the caller's state does not move."""
    found = _KERNELS.get((name, nargs, nout, inout))
    if found is not None:
        return found
    from ..program.kernel import kernel

    params = ", ".join(f"a{i}: Any" for i in range(nargs))
    args = ", ".join(f"v{i}" if i in inout else f"a{i}" for i in range(nargs))
    copies = "".join(f"    v{i} = a{i}\n" for i in inout)
    key = f"builtin_call_{name}_{nargs}" + (f"_{nout}" if nout else "") + "".join(f"_io{i}" for i in inout)
    if nout:
        outs = ", ".join(f"out{k}: Any" for k in range(nout))
        body = copies + f"    {', '.join(f'r{k}' for k in range(nout))} = wp.{name}({args})\n" + "".join(
            f"    out{k}[0] = r{k}\n" for k in range(nout))
    else:
        outs, body = "out: Any", copies + f"    out[0] = wp.{name}({args})\n"
    source = f"def {key}({params}{', ' if nargs else ''}{outs}):\n{body}"
    filename = f"<warp_nb Python-scope call of wp.{name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace = {"wp": _Builtins(), "Any": Any}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102  (text built above from a registry name)
    found = _KERNELS[(name, nargs, nout)] = kernel(namespace[key], module="unique")
    return found


class _Builtins:
    """What `wp.` names in these generated kernels: the registry's builtins (the kernels call
    nothing else, so the public package need not be imported here)."""

    def __getattr__(self, name):
        try:
            return registry.BUILTINS[name]
        except KeyError:
            raise AttributeError(name) from None


def _result(value, result_type):
    """One element read back from the output array as Warp's Python scope returns it: a Python
    number for scalars, a wp vector/matrix/quaternion/transform for composites."""
    if T.is_scalar_type(result_type):
        value = value.item() if hasattr(value, "item") else value
        return scalar_result(result_type, value) if result_type._kind in ("float", "int", "uint") else value
    return result_type._from_numpy(np.asarray(value))


def call(b: registry.Builtin, args: tuple, kwargs: dict):
    """wp.<b.name>(*args, **kwargs) from Python scope, through a one-thread CPU kernel."""
    if b.category == "tile":  # tiles live in kernels only: there is nothing to make one of out here
        raise RuntimeError(f"wp.{b.name}() is a tile builtin: call it inside a @wp.kernel (launched with "
                           "wp.launch_tiled) or a @wp.func it calls")
    if kwargs:
        ordered = b.positional(args, kwargs)
        if ordered is None:
            raise TypeError(f"wp.{b.name}() got unexpected keyword arguments {sorted(kwargs)}")
        args = ordered
    if b.special or b.side_effects or b.atomic or b.iterator_next:
        raise RuntimeError(f"wp.{b.name}() can only be called inside a kernel or @wp.func")
    resolved = registry.resolve(b, [_arg_type(a) for a in args])
    if resolved is None:
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"wp.{b.name} does not accept ({got}); it accepts:\n{registry.describe_overloads(b)}")
    inout = tuple(sorted(b.inout_for(resolved.overload)))
    if resolved.result is None:
        raise RuntimeError(f"wp.{b.name}() can only be called inside a kernel or @wp.func")
    values = [t(a) if _literal(a) is not None or isinstance(a, np.generic) else a
              for a, t in zip(args, resolved.arg_types)]
    from ..arrays.create import empty
    from .launcher import launch

    if resolved.overload.outputs:  # several results: a tuple, as Warp's Python scope returns them
        outs = [empty(1, dtype=t, device="cpu") for t in resolved.result]
        launch(_kernel_for(b.name, len(values), len(outs), inout), dim=1, inputs=[*values, *outs], device="cpu")
        return tuple(_result(o.numpy()[0], t) for o, t in zip(outs, resolved.result))
    out = empty(1, dtype=resolved.result, device="cpu")
    launch(_kernel_for(b.name, len(values), 0, inout), dim=1, inputs=[*values, out], device="cpu")
    return _result(out.numpy()[0], resolved.result)


registry.python_scope_fallback = call
