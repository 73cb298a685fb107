"""wp.config.verify_fp: a store of a NaN or an infinity into an array is reported on standard
output, with the value, the array, the function and the user's line, and the kernel goes on (as in
Warp, whose message differs: warp_nb's own wording); in debug mode it is a failed check instead,
which the launch raises as FloatingPointError (where Warp's debug build asserts). One C++ statement after each array store and
array atomic of a floating-point value (scalars and vectors, matrices, quaternions, transforms of
floats); integer values and structs stored whole are not checked. Knows C++ text and types only."""

from __future__ import annotations

from ... import types as T
from .cpp import cpp_type

_FLOATS = (T.float16, T.bfloat16, T.float32, T.float64)


def _components(t) -> tuple | None:
    """(scalar type, component count) of a floating-point value type; None for anything else."""
    if t in _FLOATS:
        return t, 1
    if T.kind_of(t) is not None and getattr(t, "_wp_scalar_type_", None) in _FLOATS:
        return t._wp_scalar_type_, T.type_length(t)
    return None


def holds_floats(t) -> bool:
    """Whether values of type `t` are checked: floats, or vectors, matrices ... of floats."""
    return _components(t) is not None


def _escape(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ").replace("%", "%%")


def _finite(value: str, t) -> tuple | None:
    """(the C++ condition that every component of `value` is finite, the components); None when
    `t` holds no floats."""
    parts = _components(t)
    if parts is None:
        return None
    scalar, n = parts
    # a composite's components lie contiguous, as its scalar type (native/core: vec, mat, quat, ...)
    base = value if n == 1 else f"((const {cpp_type(scalar)}*)&{value})"
    items = [base] if n == 1 else [f"{base}[{k}]" for k in range(n)]
    return " && ".join(f"wpnb::isfinite({x})" for x in items), items


def check_non_finite(value: str, t, site: int) -> str | None:
    """Debug mode: the C++ statement that fails check `site` (a FloatingPointError after the launch,
    runtime/debug.py) when `value` holds a NaN or an infinity; None when `t` holds no floats."""
    found = _finite(value, t)
    return None if found is None else f"wpnb::debug_check({found[0]}, {site}, -2);"


def report_non_finite(value: str, t, array: str, function: str, loc) -> str | None:
    """The C++ statement that prints a report when `value` (an expression of type `t`, just stored
    into `array`) holds a NaN or an infinity; None when `t` holds no floats."""
    found = _finite(value, t)
    if found is None:
        return None
    finite, items = found
    n = len(items)
    # (half and bfloat16 print through float32)
    shown = ", ".join(f"(double)(wpnb::float32)({x})" for x in items)
    where = f"{_escape(loc.file)}:{loc.line}" if loc is not None else "?"
    text = (f"verify_fp: non-finite value {' '.join(['%g'] * n)} stored in array `{_escape(array)}` "
            f"in `{_escape(function)}` ({where})\\n")
    return f'if (!({finite})) printf("{text}", {shown});'
