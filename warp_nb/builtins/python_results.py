"""The result of a builtin called from Python scope (`wp.sin(wp.float64(x))` outside any kernel),
typed as Warp types it: the registry's overload for the arguments' types says the result type, and
a scalar result becomes a value of that type. A float32 result is a Python float and an int32 result
a Python int (rounded or wrapped to those types); any other scalar type gives its warp_nb scalar
(wp.float64, wp.float16, wp.int8 ... wrapping as in C), or a plain float / int with
wp.config.legacy_scalar_return_types. Composite, tuple and other results are left as they are."""

from __future__ import annotations

import numpy as np

from .. import types as T
from ..types.composite import Composite
from ..types.queries import dtype_from_numpy
from ..types.scalars import Scalar


def _arg_type(value, literal):
    """The type a Python-scope argument has for overload resolution (None: one the rules do not cover)."""
    if isinstance(value, np.generic):  # before float: np.float64 is a Python float
        return dtype_from_numpy(value.dtype)
    if isinstance(value, bool):
        return literal("bool", value)
    if isinstance(value, int):
        return literal("int", value)
    if isinstance(value, float):
        return literal("float", value)
    if isinstance(value, (Scalar, Composite)):
        return type(value)
    return None


def typed_result(builtin, args, result):
    """`result` of `builtin(*args)` as the type Warp gives it (see the module docstring)."""
    if not isinstance(result, (float, int, np.generic)) or isinstance(result, Scalar):
        return result
    from . import registry
    types_ = [_arg_type(a, registry.Literal) for a in args]
    if any(t is None for t in types_):
        return result
    resolved = registry.resolve(builtin, types_)
    t = resolved.result if resolved is not None else None
    if not (T.is_scalar_type(t) and t._kind in ("float", "int", "uint")):
        return result
    from .. import config
    value = t(result)  # rounded or wrapped to the type
    if t is T.float32 or config.legacy_scalar_return_types and t._kind == "float":
        return float(value.value)
    if t is T.int32 or config.legacy_scalar_return_types:
        return int(value.value)
    return value
