"""Python-scope arithmetic on arrays (`a + b`, `2.0 * a`, `-a`, `a.grad *= 2.0`), as Warp offers
it (the operators are declared on wp.array, arrays/arithmetic.py; this module computes them): each operator is an element-wise kernel launched on the arrays' device, so it runs on a GPU
without a host round trip and is recorded on an active wp.Tape like any launch.

The operands are flattened (contiguous copies where needed) so one generic kernel per operator
serves every shape; a Python number becomes the array's scalar type, as Warp converts it."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from .. import types
from ..arrays import arithmetic
from ..arrays.array import array
from ..arrays.create import empty
from ..launch.launcher import launch
from ..program.func import func
from ..program.kernel import kernel
from ..types.array_family import native_family


@func
def _add(a: Any, b: Any):
    return a + b


@func
def _sub(a: Any, b: Any):
    return a - b


@func
def _mul(a: Any, b: Any):
    return a * b


@func
def _div(a: Any, b: Any):
    return a / b


@func
def _floordiv(a: Any, b: Any):
    return a // b


@func
def _mod(a: Any, b: Any):
    return a % b


@func
def _pow(a: Any, b: Any):
    return a ** b


@kernel(module="unique")
def _negate(a: Any, out: Any):
    i = tid()  # noqa: F821 (a builtin inside kernels)
    out[i] = -a[i]


def _kernels(fn):
    """The three launch shapes of one binary operator: array-array, array-scalar, scalar-array."""

    @kernel(module="unique")
    def array_array(a: Any, b: Any, out: Any):
        i = tid()  # noqa: F821 (a builtin inside kernels)
        out[i] = fn(a[i], b[i])

    @kernel(module="unique")
    def array_scalar(a: Any, b: Any, out: Any):
        i = tid()  # noqa: F821
        out[i] = fn(a[i], b)

    @kernel(module="unique")
    def scalar_array(a: Any, b: Any, out: Any):
        i = tid()  # noqa: F821
        out[i] = fn(a, b[i])

    return array_array, array_scalar, scalar_array


_OPERATORS = {name: _kernels(fn) for name, fn in (
    ("add", _add), ("sub", _sub), ("mul", _mul), ("truediv", _div), ("floordiv", _floordiv), ("mod", _mod),
    ("pow", _pow))}
_SYMBOLS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**"}


def _is_array(x) -> bool:
    return not isinstance(x, type) and native_family(x) is not None


def _flat(a):
    """`a` as a 1-D operand: a regular array flattened (a contiguous copy where needed); an indexed
    or Fabric array of one dimension as it is (the kernels follow its indices)."""
    if native_family(a) is not array:
        if a.ndim != 1:
            raise TypeError(f"array operators on a {type(a).__name__} need one dimension, it has {a.ndim}; "
                            "gather it first (wp.clone)")
        return a
    a = a.contiguous() if not getattr(a, "is_contiguous", False) else a
    return a.reshape(a.size) if a.ndim > 1 else a


def _scalar_for(value, like):
    """`value` (a Python number, a wp scalar or a composite) as the array `like`'s kernels expect."""
    if types.is_composite_type(type(value)) or not isinstance(value, (int, float, np.number, types.scalars.Scalar)):
        return value
    scalar = like.dtype if types.is_scalar_type(like.dtype) else like.dtype._wp_scalar_type_
    return scalar(getattr(value, "value", value))


def binary(name: str, a, b, out=None):
    """`a <op> b` for arrays and scalars; `out` (an array) makes it in place."""
    first = a if _is_array(a) else b
    if _is_array(a) and _is_array(b):
        if a.shape != b.shape:
            raise ValueError(f"array operator {_SYMBOLS[name]}: shapes {a.shape} and {b.shape} differ")
        kernel_, args = _OPERATORS[name][0], (_flat(a), _flat(b))
    elif _is_array(a):
        kernel_, args = _OPERATORS[name][1], (_flat(a), _scalar_for(b, a))
    else:
        kernel_, args = _OPERATORS[name][2], (_scalar_for(a, b), _flat(b))
    # written directly: a contiguous array, or a 1-D indexed or Fabric one (each element through its index)
    in_place = out is not None and (out.is_contiguous or native_family(out) is not array)
    result = out if in_place else _like(first, a, b)
    launch(kernel_, dim=first.size, inputs=[*args, _flat(result)], device=first.device)
    if out is not None and not in_place:
        out.assign(result)  # a strided view: computed apart, then written back
        return out
    return result


def negate(a):
    result = _like(a)
    launch(_negate, dim=a.size, inputs=[_flat(a), _flat(result)], device=a.device)
    return result


def _like(a, *operands):
    return empty(a.shape, a.dtype, a.device, requires_grad=_needs_grad(a, *operands))


def _needs_grad(a, *operands) -> bool:
    """As Warp: a result needs gradients when an operand does and its type is a float type (an
    integer array's result never does)."""
    floats = types.scalar_type_of(a.dtype) in (types.float16, types.float32, types.float64)
    return floats and any(bool(getattr(x, "requires_grad", False)) for x in (a, *operands) if _is_array(x))


def positive(a):
    """`+a`: a copy (contiguous), as Warp's."""
    return a.contiguous() if a.is_contiguous is False else _copy(a)


def _copy(a):
    from ..arrays.array import clone

    return clone(a, requires_grad=_needs_grad(a))


arithmetic.provide(sys.modules[__name__])  # wp.array's operators (arrays/arithmetic.py) run these
