"""The result of a builtin called from Python scope (`wp.sin(wp.float64(x))` outside any kernel),
typed as Warp types it: the registry's overload for the arguments' types says the result type, and
a scalar result becomes a value of that type. A float32 result is a Python float and an int32 result
a Python int (rounded or wrapped to those types); any other scalar type gives its warp_nb scalar
(wp.float64, wp.float16, wp.int8 ... wrapping as in C), or a plain float / int with
wp.config.legacy_scalar_return_types. Composite, tuple and other results are left as they are.

Before the call, `refuse_unmatched` picks the overload as Warp's Python scope does: a Python int is
an int32, a float a float32 and a bool a bool, exactly (in kernels they are weakly typed literals
that take the other operand's type; at Python scope Warp refuses `wp.mul(wp.int8(3), 3)`)."""

from __future__ import annotations

import numpy as np

from .. import types as T
from ..types.composite import Composite
from ..types.queries import dtype_from_numpy
from ..types.scalars import Scalar


def python_scope_type(value):
    """The type Warp gives a Python-scope argument when choosing an overload (None: an argument
    these rules do not cover, an array or a struct, which the builtin's own code checks)."""
    if isinstance(value, np.generic):  # before float: np.float64 is a Python float
        return dtype_from_numpy(value.dtype)
    if isinstance(value, bool):
        return T.bool
    if isinstance(value, int):
        return T.int32
    if isinstance(value, float):
        return T.float32
    if isinstance(value, (Scalar, Composite)):
        return type(value)
    return None


def type_name_of(value) -> str:
    """An argument's type as Warp's message spells it: `int`, `float`, `int8` (numpy's or Warp's)."""
    if isinstance(value, (Scalar, Composite)):
        return T.type_name(type(value))
    return type(value).__name__


def refuse_unmatched(builtin, args) -> None:
    """Raise Warp's RuntimeError when no overload of `builtin` takes `args` typed as Warp's Python
    scope types them (see the module docstring); arguments of other kinds leave the check to the
    builtin's own code."""
    from . import registry
    types_ = [python_scope_type(a) for a in args]
    if any(t is None for t in types_) or registry.resolve(builtin, types_) is not None:
        return
    raise RuntimeError(f"Couldn't find a function '{builtin.name}' compatible with the arguments "
                       f"'{', '.join(type_name_of(a) for a in args)}'")


def typed_result(builtin, args, result):
    """`result` of `builtin(*args)` as the type Warp gives it (see the module docstring)."""
    if not isinstance(result, (float, int, np.generic)) or isinstance(result, Scalar):
        return result
    from . import registry
    types_ = [python_scope_type(a) for a in args]
    if any(t is None for t in types_):
        return result
    resolved = registry.resolve(builtin, types_)
    t = resolved.result if resolved is not None else None
    if not (T.is_scalar_type(t) and t._kind in ("float", "int", "uint")):
        return result
    return scalar_result(t, result)


def scalar_result(t, result):
    """A numeric result of scalar type `t` as Warp's Python scope returns it (the module docstring)."""
    from .. import config
    value = t(result)  # rounded or wrapped to the type
    if t is T.float32 or config.legacy_scalar_return_types and t._kind == "float":
        return float(value.value)
    if t is T.int32 or config.legacy_scalar_return_types:
        return int(value.value)
    return value
