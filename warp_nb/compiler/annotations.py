"""Parameter annotations -> kernel types: what `@wp.kernel` and `@wp.func` read from a Python
function's signature before anything is compiled. Knows types; knows nothing about bodies."""

from __future__ import annotations

import typing

from .. import types as T
from ..errors import KernelTypeError
from ..types.array_type import ArrayType
from ..builtins.registry import OpaqueType
from ..types import generic
from ..types.generic import Generic
from ..types.scalars import Scalar as ScalarBase
from ..types.scalars import canonical_scalar


def resolve_annotation(t, fn, name: str, what: str, local_names: dict | None = None):
    """A parameter annotation as a kernel type, or a clear error at the function's line.
    String annotations (from __future__ import annotations) are evaluated in the function's
    globals and the locals of the scope that defined it. Generic annotations (types/generic.py)
    are kept as they are, except a function's plain `typing.Any`, which is None (typed per call)."""
    if isinstance(t, str):
        try:
            t = eval(t, fn.__globals__, {**_closure_values(fn), **(local_names or {})})
        except Exception as e:  # an annotation that does not evaluate
            raise KernelTypeError(f"the annotation of `{name}` ({t!r}) does not evaluate: {e}") from None
    t = canonical_scalar(t)
    if t is ScalarBase:  # wp.Scalar in an annotation: Warp's type variable for any scalar
        t = generic.Scalar
    if isinstance(t, type) and getattr(t, "_wp_array_", False):  # a bare `wp.array` annotation
        t = ArrayType(typing.Any, getattr(t, "_default_ndim", 1))
    if T.is_scalar_type(t) or T.is_composite_type(t) or isinstance(t, ArrayType) or getattr(t, "_wp_struct_", False) \
            or isinstance(t, OpaqueType):  # a query or query result (wp.BvhQuery ...) passed to a function
        return t
    if t is typing.Any:
        return None if what == "function" else t
    if what == "function" and (t is tuple or typing.get_origin(t) is tuple):
        items = typing.get_args(t)
        if not items or Ellipsis in items or any(x is typing.Any for x in items):
            return None  # tuple, tuple[int, ...]: typed per call, from the tuple passed
        from .ir import TupleType  # the type of a tuple value (a function's multiple return, or a parameter)
        return TupleType(tuple(resolve_annotation(x, fn, name, what, local_names) for x in items))
    if isinstance(t, Generic):
        return t
    shown = getattr(t, "__name__", repr(t))
    raise KernelTypeError(f"parameter `{name}` of {what} `{fn.__qualname__}` has type {shown}, which kernels do not "
                          "accept; use a scalar (float, int, wp.float64 ...), a vector or matrix type, "
                          "wp.array(dtype=...) or a @wp.struct")


def parameter_names(fn) -> list[str]:
    code = fn.__code__
    return list(code.co_varnames[:code.co_argcount])


def parameter_types(fn, what: str, local_names: dict | None = None, loc=None) -> list:
    """One type per parameter of `fn` (None for a generic parameter of a function). A kernel
    parameter without an annotation is an error; a function's is generic."""
    hints = getattr(fn, "__annotations__", {})
    if what == "kernel" and "return" in hints and not _means_none(hints["return"], fn, local_names):
        raise KernelTypeError(KERNEL_RETURN_ERROR, loc, fn.__name__)
    out = []
    for name in parameter_names(fn):
        if name not in hints:
            if what == "function":
                out.append(None)
                continue
            raise KernelTypeError(f"parameter `{name}` of kernel `{fn.__qualname__}` needs a type annotation, "
                                  f"e.g. `{name}: float` or `{name}: wp.array(dtype=float)`", loc, fn.__name__)
        out.append(resolve_annotation(hints[name], fn, name, what, local_names))
    return out


def _closure_values(fn) -> dict:
    """The values of the function's closure variables (a factory's `dtype`), for string annotations."""
    out = {}
    for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
        try:
            out[name] = cell.cell_contents
        except ValueError:  # not bound yet
            pass
    return out


#: Warp's words, which its tests match
KERNEL_RETURN_ERROR = ("Warp kernels cannot return values. Write results to output arguments, and omit the return "
                       "annotation or use `-> None`.")


def _means_none(annotation, fn, local_names) -> bool:
    """Whether a kernel's return annotation says it returns nothing (None, NoneType, "None")."""
    if isinstance(annotation, str):
        try:
            annotation = eval(annotation, fn.__globals__, local_names or {})
        except Exception:
            return False
    return annotation is None or annotation is type(None)
