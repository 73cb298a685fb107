"""Parameter annotations -> kernel types: what `@wp.kernel` and `@wp.func` read from a Python
function's signature before anything is compiled. Knows types; knows nothing about bodies."""

from __future__ import annotations

import inspect
import re
import types
import typing
from typing import TypeVar

from .. import types as T
from ..errors import KernelError, KernelTypeError, Loc
from ..types.array_annotation import ArrayAnnotationBase
from ..types.array_type import ArrayType
from ..types.function_value import FUNCTION_PARAM
from ..types.reference import Reference
from ..types.tiles import StackType, TileType
from ..builtins.registry import OpaqueType
from ..types.native_types import native_info
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
    if typing.get_origin(t) in (typing.Union, types.UnionType):  # `wp.array[float] | float`, `int | float`
        raise KernelTypeError(f"parameter `{name}` of {what} `{fn.__qualname__}` is annotated {t}: Union type "
                              "annotations are only supported at Python scope; a kernel or function parameter has "
                              "one type (use typing.Any for a parameter typed per call)")
    t = canonical_scalar(t)
    if t is ScalarBase:  # wp.Scalar in an annotation: Warp's type variable for any scalar
        t = generic.Scalar
    if isinstance(t, ArrayAnnotationBase):  # wp.array[float]: the compiler sees the plain array type
        t = t.plain()
    if isinstance(t, type) and getattr(t, "_wp_array_", False):  # a bare `wp.array` annotation
        t = ArrayType(typing.Any, getattr(t, "_default_ndim", 1))
    if isinstance(t, ArrayType) and not _element_type(t.dtype):
        shown = getattr(t.dtype, "__name__", repr(t.dtype))
        raise KernelTypeError(f"parameter `{name}` of {what} `{fn.__qualname__}` is an array of {shown}, which arrays "
                              "cannot hold; use a scalar, vector, matrix or @wp.struct dtype")
    if T.is_scalar_type(t) or T.is_composite_type(t) or isinstance(t, ArrayType) or getattr(t, "_wp_struct_", False) \
            or isinstance(t, (OpaqueType, TileType, StackType)):  # a query (wp.BvhQuery ...) or a tile (generic: any shape)
        return t
    if native_info(t) is not None:  # a C++ type of the user's (wp.build_experimental.add_native_type)
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
    if what == "function" and isinstance(t, type) and getattr(t, "_wp_func_", False):  # `g: wp.Function`
        return FUNCTION_PARAM
    if what == "function" and isinstance(t, Reference):  # wp.ref[T]: accepted here, refused when called
        return t
    shown = getattr(t, "__name__", repr(t))
    raise KernelTypeError(f"parameter `{name}` of {what} `{fn.__qualname__}` has type {shown}, which kernels do not "
                          "accept; use a scalar (float, int, wp.float64 ...), a vector or matrix type, "
                          "wp.array(dtype=...) or a @wp.struct")


def _element_type(dtype) -> bool:
    """Whether an array annotation's dtype is one arrays can hold (or a generic placeholder)."""
    return (dtype is typing.Any or isinstance(dtype, Generic) or T.is_scalar_type(dtype) or T.is_composite_type(dtype)
            or getattr(dtype, "_wp_struct_", False) or hasattr(dtype, "numpy_dtype") or isinstance(dtype, TypeVar)
            or isinstance(dtype, OpaqueType) or native_info(dtype) is not None)


def parameter_names(fn) -> list[str]:
    code = fn.__code__
    return list(code.co_varnames[:code.co_argcount])


def parameter_types(fn, what: str, local_names: dict | None = None, loc=None) -> list:
    """One type per parameter of `fn` (None for a generic parameter of a function). A kernel
    parameter without an annotation is an error; a function's is generic."""
    hints = getattr(fn, "__annotations__", {})
    if fn.__code__.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        raise KernelTypeError(f"{what} `{fn.__qualname__}` takes *args or **kwargs; give each parameter a name "
                              "and a type", loc or parameter_loc(fn, "*"), fn.__name__)
    if what == "kernel" and "return" in hints and not _means_none(hints["return"], fn, local_names):
        raise KernelTypeError(KERNEL_RETURN_ERROR, loc or parameter_loc(fn, "->"), fn.__name__)
    out = []
    for name in parameter_names(fn):
        if name not in hints:
            if what == "function":
                out.append(None)
                continue
            raise KernelTypeError(f"parameter `{name}` of kernel `{fn.__qualname__}` needs a type annotation, "
                                  f"e.g. `{name}: float` or `{name}: wp.array(dtype=float)`",
                                  loc or parameter_loc(fn, name), fn.__name__)
        try:
            out.append(resolve_annotation(hints[name], fn, name, what, local_names))
        except KernelError as e:
            if e.loc is not None:
                raise
            raise type(e)(e.message, loc or parameter_loc(fn, name), fn.__name__) from None
        except TypeError as e:  # a type that cannot be built (no C++ type, a vector of length 0 ...)
            raise KernelTypeError(f"the annotation of parameter `{name}`: {e}", loc or parameter_loc(fn, name),
                                  fn.__name__) from None
    return out


def parameter_loc(fn, name: str) -> Loc | None:
    """Where parameter `name` of `fn` is written (its line in a signature over several lines), or
    the `def` line; None when the source cannot be read."""
    try:
        lines, first = inspect.getsourcelines(fn)
        file = inspect.getsourcefile(fn) or fn.__code__.co_filename
    except (OSError, TypeError):
        return None
    def_index = next((k for k, line in enumerate(lines) if line.lstrip().startswith(("def ", "async def "))), 0)
    # the name as a whole word followed by what may follow a parameter (`a: float`, `a,`, `a)`)
    word = rf"(?<![\w.]){re.escape(name)}\s*(?=[:,)=])"
    pattern = re.compile(r"\*" if name == "*" else "->" if name == "->" else word)
    for k in range(def_index, len(lines)):
        line = lines[k]
        start = line.find("(") + 1 if k == def_index else 0
        match = pattern.search(line, start)
        if match:
            return Loc(file, first + k, match.start(), match.start() + len(name), line.rstrip("\n"))
        if line.split("#")[0].rstrip().endswith(":"):  # the end of the signature
            break
    line = lines[def_index]
    return Loc(file, first + def_index, 0, None, line.rstrip("\n"))


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
