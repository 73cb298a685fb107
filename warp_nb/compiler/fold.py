"""Constant folding: an operator applied to two literals is evaluated at compile time exactly as
the kernel would evaluate it at run time (C semantics for integer `/` and `%`, IEEE for floats)."""

from __future__ import annotations

import math
import operator

from ..errors import KernelTypeError
from .scope import Lit, classify


def _kernel_div(a, b):
    """`/` as kernels compute it: integers truncate toward zero (x / 0 is 0), floats follow IEEE."""
    if isinstance(a, int) and isinstance(b, int) and not isinstance(a, bool):
        return 0 if b == 0 else (abs(a) // abs(b)) * (1 if (a >= 0) == (b >= 0) else -1)
    if b == 0:
        return math.nan if a == 0 or a != a else math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def _kernel_mod(a, b):
    """`%` as kernels compute it: the remainder takes the dividend's sign (C's % and fmod)."""
    if isinstance(a, int) and isinstance(b, int):
        return 0 if b == 0 else int(math.fmod(a, b))
    return math.nan if b == 0 else math.fmod(a, b)


def fold(op: str, a: Lit, b: Lit, node, typer):
    """Evaluate an operator on two literals at compile time, as the kernel would at run time
    (integer `/` truncates, `%` keeps the dividend's sign, float division by zero is inf)."""
    ops = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": _kernel_div,
           "floordiv": operator.floordiv, "mod": _kernel_mod, "pow": operator.pow, "bit_and": operator.and_,
           "bit_or": operator.or_, "bit_xor": operator.xor, "lshift": operator.lshift, "rshift": operator.rshift,
           "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge, "eq": operator.eq,
           "ne": operator.ne}
    try:
        result = ops[op](a.value, b.value)
    except (ZeroDivisionError, KeyError, TypeError) as e:
        typer.error(KernelTypeError, f"cannot evaluate this constant expression: {e}", node)
    return classify(result)
