"""Scalar types: the classes `wp.float32`, `wp.int32`, ... used both as type annotations in
kernels and as values in Python scope. Knows ctypes and numpy layouts; knows nothing about
vectors, arrays or C++."""

from __future__ import annotations

import builtins
import ctypes
import functools
import importlib.util
import math

import numpy as np


class Scalar:
    """Base of every scalar type. An instance holds one value of that type in `.value`;
    arithmetic between instances of the same type keeps the type (wrapping for integers,
    rounding for floats), as a kernel would compute it."""

    _type_: type = ctypes.c_float  # ctypes storage
    _np: np.dtype = np.dtype(np.float32)
    _kind: str = "float"  # "float" | "int" | "uint" | "bool"
    _length_ = 1  # the number of scalars of a value, as Warp's scalar types say (vectors: their length)

    # _whole: a float value made from an integer, which shows as Warp shows it, without `.0` (float32(-1))
    __slots__ = ("_whole", "value")

    def __init__(self, x=0):
        self.value = self._convert(x)
        self._whole = isinstance(x, builtins.int) or isinstance(x, Scalar) and x._kind != "float"

    @classmethod
    def _convert(cls, x):
        if isinstance(x, Scalar):
            x = x.value
        if cls._kind == "bool":
            return builtins.bool(x)
        if cls._kind == "float":
            if cls._type_ is ctypes.c_float:  # C's rounding: inf past the range, as Warp's, with no numpy warning
                return ctypes.c_float(builtins.float(x)).value
            with np.errstate(all="ignore"):  # past the type's range: inf, as C's conversion, without numpy's warning
                return builtins.float(cls._np.type(x))
        # integers wrap like their C counterparts (ctypes does the wrapping)
        return cls._type_(builtins.int(x)).value

    def __float__(self):
        return builtins.float(self.value)

    def __int__(self):
        return builtins.int(self.value)

    def __index__(self):
        if self._kind == "float":
            raise TypeError(f"{type(self).__name__} cannot be used as an index")
        return builtins.int(self.value)

    def __bool__(self):
        return builtins.bool(self.value)

    def __repr__(self):
        return f"{type(self).__name__}({self})"

    def __str__(self):
        """The value alone, as Warp writes scalars: a float made from an integer without its `.0`
        (`float32(-1)`), any other as Python writes it (`float64(1.0)`, a vector's component)."""
        text = repr(self.value)
        return text[:-2] if self._kind == "float" and self._whole and text.endswith(".0") else text

    def __eq__(self, other):
        return self.value == self._comparable(other)

    def __ne__(self, other):
        return not self == other

    def __lt__(self, other):
        return self.value < self._comparable(other)

    def __le__(self, other):
        return self.value <= self._comparable(other)

    def __gt__(self, other):
        return self.value > self._comparable(other)

    def __ge__(self, other):
        return self.value >= self._comparable(other)

    def _comparable(self, other):
        # a float compares as a float, as in Warp: an integer too large for a double raises OverflowError
        other = _value(other)
        if self._kind == "float" and isinstance(other, builtins.int) and not isinstance(other, builtins.bool):
            return builtins.float(other)
        return other

    def __hash__(self):
        return hash(self.value)

    def _binary(self, other, op, reverse=False):
        if isinstance(other, Scalar) and type(other) is not type(self):
            return NotImplemented
        if not isinstance(other, (Scalar, int, float, np.number)):
            return NotImplemented  # a vector, matrix or array: its reflected operator
        a, b = self.value, _value(other)
        if reverse:
            a, b = b, a
        if self._kind != "float" and op is _truediv:
            op = _c_intdiv
        return type(self)(op(a, b))

    def __add__(self, o):
        return self._binary(o, lambda a, b: a + b)

    def __radd__(self, o):
        return self._binary(o, lambda a, b: a + b, True)

    def __sub__(self, o):
        return self._binary(o, lambda a, b: a - b)

    def __rsub__(self, o):
        return self._binary(o, lambda a, b: a - b, True)

    def __mul__(self, o):
        return self._binary(o, lambda a, b: a * b)

    def __rmul__(self, o):
        return self._binary(o, lambda a, b: a * b, True)

    def __truediv__(self, o):
        return self._binary(o, _truediv)

    def __rtruediv__(self, o):
        return self._binary(o, _truediv, True)

    def __mod__(self, o):
        return self._binary(o, _c_mod)

    def __rmod__(self, o):
        return self._binary(o, _c_mod, True)

    def __floordiv__(self, o):
        return self._binary(o, _floordiv)

    def __rfloordiv__(self, o):
        return self._binary(o, _floordiv, True)

    def __pow__(self, o):  # floats only, as in Warp (integers raise TypeError)
        return self._binary(o, _pow) if self._kind == "float" else NotImplemented

    def __rpow__(self, o):
        return self._binary(o, _pow, True) if self._kind == "float" else NotImplemented

    def __neg__(self):
        return type(self)(-self.value)

    def __pos__(self):
        return self

    def __abs__(self):
        return type(self)(abs(self.value))


def _value(x):
    return x.value if isinstance(x, Scalar) else x


def _truediv(a, b):
    return a / b


def _c_mod(a, b):
    # the kernel's `%`: C fmod for floats (sign of a; nan for b == 0), truncated remainder for
    # integers (0 for b == 0)
    if isinstance(a, builtins.float) or isinstance(b, builtins.float):
        return math.fmod(a, b) if b != 0 else math.nan
    return a - _c_intdiv(a, b) * b if b != 0 else 0


def _floordiv(a, b):
    # the kernel's `//`: floor(a / b) for floats, Python's floor division for integers (0 for b == 0)
    if isinstance(a, builtins.float) or isinstance(b, builtins.float):
        return math.floor(a / b) if b != 0 and math.isfinite(a / b) else (a / b if b != 0 else math.nan)
    return a // b if b != 0 else 0


def _pow(a, b):
    try:
        return builtins.float(a) ** builtins.float(b)
    except (OverflowError, ZeroDivisionError):
        return math.inf
    except ValueError:
        return math.nan


def _c_intdiv(a, b):
    # C semantics: truncate toward zero (what the kernel computes for integer `/`)
    if b == 0:
        return 0
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _scalar(name: str, ctype, np_type, kind: str) -> type:
    # __numpy_dtype__: NumPy >= 2.4 resolves np.dtype(wp.float32) and dtype=wp.float32 through it (as Warp)
    cls = type(name, (Scalar,), {"__slots__": (), "_type_": ctype, "_np": np.dtype(np_type), "_kind": kind,
                                 "__module__": "warp_nb.types", "__numpy_dtype__": np.dtype(np_type)})
    return cls


bool = _scalar("bool", ctypes.c_bool, np.bool_, "bool")  # noqa: A001 (Warp's name)
int8 = _scalar("int8", ctypes.c_int8, np.int8, "int")
uint8 = _scalar("uint8", ctypes.c_uint8, np.uint8, "uint")
int16 = _scalar("int16", ctypes.c_int16, np.int16, "int")
uint16 = _scalar("uint16", ctypes.c_uint16, np.uint16, "uint")
int32 = _scalar("int32", ctypes.c_int32, np.int32, "int")
uint32 = _scalar("uint32", ctypes.c_uint32, np.uint32, "uint")
int64 = _scalar("int64", ctypes.c_int64, np.int64, "int")
uint64 = _scalar("uint64", ctypes.c_uint64, np.uint64, "uint")
# ctypes has no half type: float16 is stored as its 16 bits
float16 = _scalar("float16", ctypes.c_uint16, np.float16, "float")
float32 = _scalar("float32", ctypes.c_float, np.float32, "float")
float64 = _scalar("float64", ctypes.c_double, np.float64, "float")

half = float16
float_ = float32
# Warp's type of object ids (wp.Mesh.id ...): a subtype of uint64, as in Warp. Everything that
# compiles, stores or packs values sees uint64 (canonical_scalar maps it there); the annotation itself
# says that a kernel parameter holds an object id, which a saved graph checks (launch/apic_save.py).
handle = type("handle", (uint64,), {"__slots__": (), "__module__": "warp_nb.types"})


class _BFloat16(Scalar):
    """bfloat16: float32's exponent with an 8-bit mantissa, stored as its upper 16 bits. numpy sees
    the bits as uint16 (as Warp does without ml_dtypes); kernels compute it in float32."""

    __slots__ = ()
    _type_ = ctypes.c_uint16
    _np = np.dtype(np.uint16)
    _kind = "float"

    @classmethod
    def _convert(cls, x):
        if isinstance(x, Scalar):
            x = x.value
        return bfloat16_bits_to_float(float_to_bfloat16_bits(builtins.float(x)))


@functools.lru_cache(maxsize=None)
def ml_dtypes_bfloat16():
    """ml_dtypes' numpy bfloat16 type when ml_dtypes is installed (JAX brings it), else None: Warp's
    `.numpy()` of a bfloat16 array has that dtype where it can, the raw bits as uint16 otherwise."""
    if importlib.util.find_spec("ml_dtypes") is None:
        return None
    import ml_dtypes
    return np.dtype(ml_dtypes.bfloat16)


def float_to_bfloat16_bits(value) -> int:
    """float32 -> bfloat16 bits, rounded to nearest even (nan stays nan)."""
    return builtins.int(floats_to_bfloat16_bits(np.array([value]))[0])


def bfloat16_bits_to_float(bits: int) -> builtins.float:
    return builtins.float(bfloat16_bits_to_floats(np.array([bits]))[0])


def floats_to_bfloat16_bits(values) -> np.ndarray:
    """Any array of numbers -> bfloat16 bits (uint16) of the same shape: through float32, rounded to
    nearest even, as native/core/prelude.h does. A nan keeps a quiet nan's bits even when its payload
    lies only in the dropped low bits (0x7f800001 would truncate to inf)."""
    bits = np.ascontiguousarray(np.asarray(values, dtype=np.float32)).view(np.uint32)
    rounded = ((bits.astype(np.uint64) + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    quiet_nan = ((bits >> 16) | 0x40).astype(np.uint16)
    return np.where((bits & 0x7FFFFFFF) > 0x7F800000, quiet_nan, rounded)


def bfloat16_bits_to_floats(bits) -> np.ndarray:
    """bfloat16 bits (any integer array) -> float32 values (exact)."""
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32)


bfloat16 = type("bfloat16", (_BFloat16,), {"__slots__": (), "__module__": "warp_nb.types"})

INT_TYPES = (int8, uint8, int16, uint16, int32, uint32, int64, uint64)
FLOAT_TYPES = (float16, float32, float64)
SCALAR_TYPES = (bool,) + INT_TYPES + FLOAT_TYPES

_FROM_NUMPY = {t._np: t for t in SCALAR_TYPES}


def is_scalar_type(t) -> builtins.bool:
    return isinstance(t, type) and issubclass(t, Scalar) and t is not Scalar


def is_float_type(t) -> builtins.bool:
    return is_scalar_type(t) and t._kind == "float"


def is_int_type(t) -> builtins.bool:
    return is_scalar_type(t) and t._kind in ("int", "uint")


def scalar_from_numpy(dtype) -> type | None:
    """The scalar type with this numpy dtype, or None."""
    return _FROM_NUMPY.get(np.dtype(dtype))


def canonical_scalar(t):
    """Python's `float`, `int` and `bool` mean float32, int32 and bool in kernels, as in Warp;
    numpy scalar types map to ours; a resource class that kernels take by value (wp.Texture2D) means
    its kernel type (`_wp_kernel_type_`); a subclass of a vector or matrix type means that type.
    Anything else is returned unchanged."""
    if t is builtins.float:
        return float32
    if t is builtins.int:
        return int32
    if t is builtins.bool:
        return bool
    if t is handle:
        return uint64
    if isinstance(t, type) and issubclass(t, np.generic):
        return scalar_from_numpy(t) or t
    if isinstance(t, type) and "_wp_kernel_type_" in t.__dict__:
        return t._wp_kernel_type_
    # an application's subclass of a vector or matrix type is that type (inherited from the type made
    # by composite._make); Warp compares composites by kind, shape and element type
    return getattr(t, "_wp_composite_base_", t) if isinstance(t, type) else t


def half_bits_to_float(bits: int) -> builtins.float:
    return builtins.float(np.array([bits], dtype=np.uint16).view(np.float16)[0])


def float_to_half_bits(value) -> int:
    return builtins.int(np.array([value], dtype=np.float16).view(np.uint16)[0])
