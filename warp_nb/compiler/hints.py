"""What to suggest when kernel code names something it cannot use: the closest name for a typo,
the wp builtin for a numpy or math function, @wp.func for a plain Python helper. The type checker
appends these to its errors; they never change what is accepted."""

from __future__ import annotations

import difflib
import inspect

from ..builtins.registry import BUILTINS

#: modules whose functions have wp builtins of the same name (np.sin -> wp.sin)
_MATH_MODULES = ("numpy", "math", "cmath")


def did_you_mean(name: str, candidates, prefix: str = "") -> str:
    """' Did you mean `x`?' for the candidate closest to `name`, or ''."""
    names = [c for c in candidates if isinstance(c, str) and c.isidentifier() and c != name]
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.75)
    return f" Did you mean `{prefix}{close[0]}`?" if close else ""


def builtin_names() -> list[str]:
    return [n for n, b in BUILTINS.items() if b.export]


def uncallable(obj, shown: str) -> str:
    """The error for calling `obj` (shown as `shown`) inside a kernel, with what to use instead."""
    name = getattr(obj, "__name__", None)
    module = (getattr(obj, "__module__", None) or getattr(type(obj), "__module__", "") or "").split(".")[0]
    if name and module in _MATH_MODULES:
        if name in BUILTINS and BUILTINS[name].export:
            return (f"{shown} is {module}'s `{name}`, which runs in Python, not in kernels: use `wp.{name}` "
                    f"(the same function, compiled into the kernel)")
        return f"{shown} is {module}'s `{name}`, which runs in Python, not in kernels; wp has no builtin of that name"
    if module == "warp_nb":
        return f"{shown} is part of warp_nb's Python API and cannot be called inside a kernel"
    if inspect.isfunction(obj):
        return (f"{shown} is a plain Python function; to call it from kernels, decorate it with @wp.func "
                f"(and give its parameters types)")
    return f"{shown} cannot be called inside a kernel"
