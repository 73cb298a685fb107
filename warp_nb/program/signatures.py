"""The concrete types of a generic kernel's (or function's) parameters, read off the values of a
call: an array's dtype and ndim, a Python float as float32 and an int as int32 (as in Warp), a
vector, matrix or struct value as its type. Used by launches and by Python-scope calls of
functions; knows nothing about launching."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .. import types as T
from ..arrays.array import array
from ..types.array_family import native_family
from ..errors import ArgumentTypeError
from ..types.array_type import ArrayType
from ..types.generic import is_generic, matches
from ..types.structs import StructInstance


def concrete_signature(kernel, args) -> tuple:
    """A generic kernel's parameter types made concrete by the arguments of a launch: an array's
    dtype and ndim, a Python float as float32 and an int as int32 (as in Warp), a vector, matrix or
    struct value as its type."""
    out = []
    for name, pattern, value in zip(kernel.param_names, kernel.param_types, args):
        if not is_generic(pattern):
            out.append(pattern)
            continue
        t = type_of_value(value)
        if t is None or not matches(pattern, t):
            shown = T.type_name(t) if t is not None else type(value).__name__
            raise ArgumentTypeError(f"launch of kernel `{kernel.key}`: argument `{name}` is declared "
                                    f"{T.type_name(pattern) if pattern is not Any else 'Any'}; got {shown} (type mismatch)")
        out.append(t)
    return tuple(out)


def type_of_value(value):
    """The kernel type of a Python value passed for a generic parameter (None if it has none)."""
    family = native_family(value)  # through an application's subclasses; two families: TypeError
    if family is array:
        return ArrayType(value.dtype, value.ndim)
    if family is not None:
        return value.type
    if isinstance(value, bool):
        return T.bool
    if isinstance(value, numbers.Integral) and not isinstance(value, np.integer):
        return T.int32
    if isinstance(value, float):
        return T.float32
    if isinstance(value, np.generic):
        return T.scalar_from_numpy(value.dtype)
    if isinstance(value, StructInstance):
        return value._struct
    t = type(value)
    return t if T.is_scalar_type(t) or T.is_composite_type(t) else None
