"""What a name in kernel source means: the function's globals, closure and Python's builtins,
classified into the values the typechecker handles (a weakly typed literal, a constant of a
wp type, or a Python object such as a module, builtin, function or type). Knows types and the
registry; knows nothing about C++."""

from __future__ import annotations

import builtins as py_builtins
from typing import Any

import numpy as np

from .records import record
from .. import types as T
from ..types.composite import Composite
from ..types.scalars import Scalar


@record(frozen=True)
class Lit:
    """A Python number known at compile time; it takes its type from where it is used."""

    value: Any
    kind: str  # "int" | "float" | "bool"


@record(frozen=True)
class ConstValue:
    """A compile-time constant of a definite wp type (a wp.vec3 global, a numpy scalar ...)."""

    value: Any
    type: Any


@record(frozen=True)
class PyObj:
    """A Python object used by name: module, builtin, function, kernel, type, string."""

    obj: Any


_MISSING = object()


def classify(obj):
    """A Python value as the typechecker sees it."""
    if isinstance(obj, bool):
        return Lit(obj, "bool")
    if isinstance(obj, int):
        return Lit(obj, "int")
    if isinstance(obj, float):
        return Lit(obj, "float")
    if isinstance(obj, np.generic) and not isinstance(obj, np.void):
        t = T.scalar_from_numpy(obj.dtype)
        if t is not None:
            return ConstValue(obj.item(), t)
    if isinstance(obj, Scalar):
        return ConstValue(obj.value, type(obj))
    if isinstance(obj, Composite):
        return ConstValue(obj, type(obj))
    return PyObj(obj)


class Scope:
    """Name lookup for one Python function: locals are the typechecker's; this covers the
    closure, the module globals and Python's builtins, in that order."""

    def __init__(self, fn):
        self.globals = getattr(fn, "__globals__", {})
        code = getattr(fn, "__code__", None)
        closure = getattr(fn, "__closure__", None) or ()
        # cells, read at lookup time: a closure variable may be assigned after the decorator ran
        # (a recursive or later-defined function)
        self.cells = dict(zip(code.co_freevars, closure)) if code is not None else {}
        # wp.static(...) values computed when the function was declared, by static_eval.static_key of the call
        # (compiler/static_eval.py)
        self.static_values: dict = {}

    def lookup(self, name: str):
        """The Python object bound to `name`, or _MISSING."""
        cell = self.cells.get(name)
        if cell is not None:
            try:
                return cell.cell_contents
            except ValueError:  # declared in the enclosing scope but not assigned (yet)
                pass
        value = self.globals.get(name, _MISSING)
        if value is not _MISSING:
            return value
        return getattr(py_builtins, name, _MISSING)

    def captured_values(self, names) -> dict:
        """The current values of the given global/closure names (for dependency tracking)."""
        out = {}
        for name in names:
            value = self.lookup(name)
            if value is not _MISSING:
                out[name] = value
        return out


MISSING = _MISSING


class GradOf:
    """wp.grad(f) inside a kernel or function: a function giving the gradient of f's scalar result
    with respect to each of its arguments (one value, or a tuple for several). f is a @wp.func or a
    differentiable wp builtin; the compiler types each call (compiler/typecheck_calls.py)."""

    _wp_grad_of_ = True

    def __init__(self, func):
        self.func = func

    def __eq__(self, other):
        return isinstance(other, GradOf) and other.func is self.func

    def __hash__(self):
        return hash(("wp.grad", id(self.func)))

    def __call__(self, *args):
        raise RuntimeError("wp.grad(f)(...) can only be called inside a kernel or a @wp.func")

    def __repr__(self):
        return f"wp.grad({getattr(self.func, 'key', getattr(self.func, 'name', self.func))})"


def grad(f) -> GradOf:
    """wp.grad(f): the gradient of f, to call inside kernels: `dx = wp.grad(square)(x)`."""
    return GradOf(f)
