"""wp.tile_arange(stop) / (start, stop) / (start, stop, step): the bounds are compile-time numbers
(they fix the tile's length), so the whole range is planned here, before any C++ is written.

The bounds are first rounded to the output type, and the length is counted from the rounded
values (their quotient rounded to the output type too): that is the range the native fill
(start + k * step in the output type) produces, so a float32 range of (0, 3.0000001, 0.99999999)
is (0, 3, 1) with three elements, not four. Integer
bounds are rounded straight to a float type (once, to nearest-even), never through a double.
Every refusal names the bound and says why, as Warp's do (its tests match the words)."""

from __future__ import annotations

import math

import numpy as np

from . import ir
from .. import types as T
from ..errors import KernelTypeError, KernelValueError
from ..types.tiles import TileType

_UINT64_MAX = 2 ** 64 - 1
_INT64_MIN = -2 ** 63
# significand bits (with the implicit one) and largest finite value of each float type
_FLOATS = {"float16": (11, 65504.0), "bfloat16": (8, 3.3895313892515355e38),
           "float32": (24, 3.4028234663852886e38), "float64": (53, 1.7976931348623157e308)}


class ArangeError(ValueError):
    """A range tile_arange cannot build; `kind` picks the Python error class at the user's line."""

    def __init__(self, message: str, kind=KernelValueError):
        super().__init__(message)
        self.kind = kind


def round_int_to_float(v: int, bits: int) -> int:
    """The integer v rounded to `bits` significand bits, to nearest with ties to even (what a
    direct integer-to-float conversion does; going through a double would round twice)."""
    mag = abs(v)
    shift = mag.bit_length() - bits
    if shift <= 0:
        return v
    q, r = divmod(mag, 1 << shift)
    half = 1 << (shift - 1)
    if r > half or (r == half and q & 1):
        q += 1
    return (q << shift) * (1 if v >= 0 else -1)


def _show(v) -> str:
    return repr(v) if isinstance(v, float) else str(v)


def quantize(name: str, v, dtype):
    """Bound `name` = v as a value of dtype (a Python int or float), or ArangeError."""
    tn = T.type_name(dtype)
    if isinstance(v, float) and not math.isfinite(v):
        raise ArangeError(f"tile_arange() {name}={_show(v)} is not finite; the bounds of a range must be finite "
                          "numbers")
    if isinstance(v, int) and not _INT64_MIN <= v <= _UINT64_MAX:
        raise ArangeError(f"tile_arange() {name}={v} is too wide to use as an integer bound (no Warp integer type "
                          f"holds it, and {tn} is not the limit here); write the bound as a float, "
                          f"{name}={float(v)!r}, to build the same range")
    if T.is_float_type(dtype):
        bits, biggest = _FLOATS[tn]
        with np.errstate(all="ignore"):  # an overflow is reported below, in words
            q = float(round_int_to_float(v, bits)) if isinstance(v, int) else dtype._convert(v)
        if not math.isfinite(q) or abs(q) > biggest:
            raise ArangeError(f"tile_arange() {name}={_show(v)} is out of range for {tn} (at most {biggest!r} in "
                              "magnitude)")
        return float(q)
    if isinstance(v, float):
        if not v.is_integer():
            raise ArangeError(f"tile_arange() {name}={_show(v)} has a fractional part; a {tn} range needs integer "
                              "bounds (or pass a float dtype)")
        v = int(v)
    info = np.iinfo(dtype._np)
    lo, hi = int(info.min), int(info.max)
    if not lo <= v <= hi:
        raise ArangeError(f"tile_arange() {name}={v} is out of range for {tn} ([{lo}, {hi}]); pass a wider dtype")
    return v


def plan(values: list, dtype) -> tuple:
    """(length, first, step) of tile_arange over the given 1 to 3 bounds, as values of dtype."""
    names = ("stop",) if len(values) == 1 else ("start", "stop", "step")
    given = dict(zip(names, values))
    bounds = {k: quantize(k, given[k], dtype) if k in given else (0 if k == "start" else 1)
              for k in ("start", "stop", "step")}
    start, stop, step = (bounds[k] for k in ("start", "stop", "step"))
    if step == 0:
        raise ArangeError("tile_arange() step cannot be zero" + (f" (step={_show(given['step'])} rounds to 0 in "
                          f"{T.type_name(dtype)})" if given.get("step", 0) != 0 else ""))
    if not T.is_float_type(dtype):
        return len(range(start, stop, step)), start, step  # exact: a float count is wrong past 2**53
    try:
        # the span over the step in double precision, rounded to the output type: the count the
        # output type sees (float32's (0, 0.3, 0.1) holds 3 elements, as numpy's double one does)
        raw = (stop - start) / step
        with np.errstate(all="ignore"):
            q = dtype._convert(raw)
    except OverflowError:
        raw = q = math.inf
    if not math.isfinite(q):
        raise ArangeError(f"tile_arange() ({_show(start)}, {_show(stop)}, {_show(step)}) spans more elements than can "
                          "be counted")
    n = max(0, math.ceil(q))
    if n == 0 and raw > 0:
        n = 1  # a quotient that underflowed: the range still holds its start
    return n, start, step


class ArangeForm:
    """wp.tile_arange's typing rule, a mixin of FunctionTyper (over TileArguments' helpers)."""

    def form_tile_arange(self, node):
        self.tile_name = "tile_arange"
        kw = dict(node.kwargs)
        if not 1 <= len(node.args) <= 3:
            self.error(KernelTypeError, f"tile_arange() accepts at most 3 positional arguments, got {len(node.args)} "
                                        "((stop), (start, stop) or (start, stop, step))", node)
        names = ("stop",) if len(node.args) == 1 else ("start", "stop", "step")
        values = []
        for name, arg in zip(names, node.args):
            v = self.const_number(arg)
            if v is None:
                self.error(KernelTypeError, f"tile_arange() arguments must be compile time constants, but {name} is "
                                            "not (they fix the tile's length)", node)
            values.append(int(v) if isinstance(v, bool) else v)
        is_float = any(isinstance(x, float) for x in values)
        dtype = self.tile_dtype(kw.get("dtype"), node, T.float32 if is_float else T.int32)
        if not T.is_scalar_type(dtype) or dtype is T.bool:
            self.error(KernelTypeError, "tile_arange() requires a numeric scalar dtype (an integer or float type), "
                                        f"got {T.type_name(dtype)}", node)
        try:
            n, start, step = plan(values, dtype)
        except ArangeError as e:
            self.error(e.kind, str(e), node)
        if n == 0:
            self.error(KernelValueError, f"tile_arange() needs a non-empty range; {tuple(values)} is a zero-length "
                                         "tile", node)
        result = TileType(dtype, self.const_shape_of((n,), node), self.tile_storage(kw, node))
        self.check_shared_arena(result, node)
        first = self.let(ir.Const(dtype._convert(start), dtype), dtype, node.loc)
        delta = self.let(ir.Const(dtype._convert(step), dtype), dtype, node.loc)
        return self.tile_call("tile_arange", "wpnb::tile_arange<{T}, {R}>", result, node, (first, delta), T=dtype,
                              R=n)
