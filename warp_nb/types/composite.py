"""Vector, matrix, quaternion and transform types (`wp.vec3`, `wp.mat33`, `wp.quat`,
`wp.transform`, and the generic `vector(length, dtype)` / `matrix(shape, dtype)`).

Each type is a ctypes array class, so an instance has the exact byte layout the native
headers use (`vec_t<N,T>`, row-major `mat_t<R,C,T>`, `quat_t` x,y,z,w, `transform_t` p,q) and
numpy can view it. Python-scope arithmetic goes through numpy; it is for convenience, not
speed. Knows nothing about kernels or C++."""

from __future__ import annotations

import ctypes
import typing

import numpy as np

from . import scalars
from .scalars import Scalar, canonical_scalar, is_scalar_type

_TYPE_CACHE: dict = {}

# short suffixes used in type names: vec3f, mat33d, vec4h, vec2i ...
_SUFFIX = {
    scalars.float16: "h", scalars.float32: "f", scalars.float64: "d",
    scalars.int8: "b", scalars.uint8: "ub", scalars.int16: "s", scalars.uint16: "us",
    scalars.int32: "i", scalars.uint32: "ui", scalars.int64: "l", scalars.uint64: "ul",
    scalars.bool: "bool",
}


class Composite:
    """Mixin for the ctypes array classes made below. Class attributes set by the factories:
    `_wp_kind_` ('vector' | 'matrix' | 'quaternion' | 'transformation'), `_wp_scalar_type_`,
    `_shape_` (a tuple), `_length_` (number of scalars for 1-D kinds, rows for matrices)."""

    _wp_kind_ = "vector"
    _wp_scalar_type_ = scalars.float32
    _shape_ = (3,)

    # --- construction -------------------------------------------------------------------
    def __init__(self, *args, **kwargs):
        super().__init__()
        if kwargs:
            args = _keyword_parts(type(self), args, kwargs)
        n = _num_scalars(type(self))
        if not args:
            return
        if len(args) == 1:
            arg = args[0]
            if isinstance(arg, (int, float, Scalar, np.number, bool)):
                self._set_flat([arg] * n)
                return
            self._set_flat(_flatten(arg, type(self)))
            return
        self._set_flat(_flatten(args, type(self)))

    @classmethod
    def _from_numpy(cls, values):
        obj = cls()
        obj._set_flat(np.asarray(values).reshape(-1))
        return obj

    def _set_flat(self, values):
        n = _num_scalars(type(self))
        values = list(values)
        if len(values) != n:
            raise ValueError(f"{type(self).__name__} takes {n} scalars, got {len(values)}")
        raw = np.frombuffer(self, dtype=_storage_np(type(self)), count=n)
        raw[:] = _encode(type(self), values)

    def _flat(self) -> np.ndarray:
        """The scalars as a numpy array of the element dtype (a copy)."""
        n = _num_scalars(type(self))
        raw = np.frombuffer(self, dtype=_storage_np(type(self)), count=n)
        if self._wp_scalar_type_ is scalars.float16:
            return raw.view(np.float16).copy()
        return raw.copy()

    def __array__(self, dtype=None, copy=None):
        a = self._flat().reshape(self._shape_)
        return a if dtype is None else a.astype(dtype)

    # --- element access -----------------------------------------------------------------
    def __getitem__(self, key):
        a = self.__array__()
        if self._wp_kind_ == "matrix" and isinstance(key, int):
            return vector(self._shape_[1], self._wp_scalar_type_)._from_numpy(a[key])
        value = a[key]
        if isinstance(value, np.ndarray):
            return value.tolist()
        return value.item()

    def __setitem__(self, key, value):
        a = self.__array__()
        a[key] = np.asarray(value, dtype=a.dtype) if not np.isscalar(value) else value
        self._set_flat(a.reshape(-1))

    def __len__(self):
        return self._shape_[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __eq__(self, other):
        try:
            return bool(np.array_equal(self.__array__(), np.asarray(other).reshape(self._shape_)))
        except (ValueError, TypeError):
            return NotImplemented

    def __hash__(self):
        return hash((type(self), tuple(self._flat().tolist())))

    def __repr__(self):
        """Warp's form: vec3f([1.0, 2.0, 3.0]); elements other than float32, int32 and bool show
        their type (vec2d([float64(1.0), float64(2.0)]))."""
        t = self._wp_scalar_type_
        native = t in (scalars.float32, scalars.int32, scalars.bool)
        items = [repr(v) if native else f"{t.__name__}({v!r})" for v in self._flat().tolist()]
        return f"{type(self).__name__}([{', '.join(items)}])"

    def __str__(self):
        """As a Python list of the values ([1.0, 2.0, 3.0]; a matrix row by row), as Warp prints."""
        values = self._flat().tolist()
        if self._wp_kind_ != "matrix":
            return str(values)
        cols = self._shape_[1]
        return "[" + ",\n ".join(str(values[r * cols:(r + 1) * cols]) for r in range(self._shape_[0])) + "]"

    def __reduce__(self):
        return (type(self)._from_numpy, (self._flat(),))

    # --- arithmetic (Python scope, via numpy) -------------------------------------------
    def _wrap(self, a):
        return type(self)._from_numpy(np.asarray(a))

    def __add__(self, o):
        return self._wrap(self.__array__() + _operand(o, self))

    __radd__ = __add__

    def __sub__(self, o):
        return self._wrap(self.__array__() - _operand(o, self))

    def __rsub__(self, o):
        return self._wrap(_operand(o, self) - self.__array__())

    def __neg__(self):
        return self._wrap(-self.__array__())

    def __pos__(self):
        return self

    def __mul__(self, o):
        if _is_scalar_value(o):
            return self._wrap(self.__array__() * _value(o))
        if self._wp_kind_ == "quaternion" and getattr(o, "_wp_kind_", None) == "quaternion":
            return self._wrap(_quat_mul(self.__array__(), o.__array__()))
        if self._wp_kind_ == "matrix" or getattr(o, "_wp_kind_", None) == "matrix":
            return self @ o
        raise TypeError(f"cannot multiply {type(self).__name__} by {type(o).__name__}; use wp.cw_mul for a"
                        " componentwise product")

    def __rmul__(self, o):
        if _is_scalar_value(o):
            return self._wrap(self.__array__() * _value(o))
        return NotImplemented

    def __truediv__(self, o):
        if _is_scalar_value(o):
            return self._wrap(self.__array__() / _value(o))
        raise TypeError(f"cannot divide {type(self).__name__} by {type(o).__name__}; use wp.cw_div")

    def __rtruediv__(self, o):
        if _is_scalar_value(o):
            return self._wrap(_value(o) / self.__array__())
        return NotImplemented

    def __matmul__(self, o):
        a, b = self.__array__(), (o.__array__() if isinstance(o, Composite) else np.asarray(o))
        r = a @ b
        if r.ndim == 2:
            return matrix(r.shape, self._wp_scalar_type_)._from_numpy(r)
        return vector(r.shape[0], self._wp_scalar_type_)._from_numpy(r)

    def __rmatmul__(self, o):
        r = np.asarray(o) @ self.__array__()
        return vector(r.shape[0], self._wp_scalar_type_)._from_numpy(r)


def _is_scalar_value(o) -> bool:
    return isinstance(o, (int, float, Scalar, np.number)) and not isinstance(o, np.ndarray)


def _value(o):
    return o.value if isinstance(o, Scalar) else o


def _operand(o, like):
    # a composite's own values (np.asarray would read a float16 composite's raw bits through the
    # buffer protocol)
    a = o.__array__() if isinstance(o, Composite) else np.asarray(_value(o))
    if a.ndim and a.shape != like._shape_:
        raise TypeError(f"shape mismatch between {type(like).__name__} and {type(o).__name__}")
    return a


def _quat_mul(a, b):
    # Hamilton product with (x, y, z, w) storage, w real
    av, aw, bv, bw = a[:3], a[3], b[:3], b[3]
    v = aw * bv + bw * av + np.cross(av, bv)
    return np.array([*v, aw * bw - av.dot(bv)])


def _num_scalars(cls) -> int:
    return int(np.prod(cls._shape_))


def _storage_np(cls):
    t = cls._wp_scalar_type_
    return np.uint16 if t is scalars.float16 else t._np


def _encode(cls, values):
    t = cls._wp_scalar_type_
    vals = [_value(v) for v in values]
    if t is scalars.float16:
        return np.asarray(vals, dtype=np.float16).view(np.uint16)
    if t._kind in ("int", "uint"):
        return np.asarray([int(v) for v in vals]).astype(t._np)
    return np.asarray(vals, dtype=t._np)


def _flatten(args, cls):
    """Scalars from a mix of numbers, sequences, numpy arrays and composites."""
    out = []
    for a in args:
        if isinstance(a, (int, float, Scalar, np.number, bool)):
            out.append(a)
        elif isinstance(a, Composite):
            out.extend(a._flat().tolist())
        else:
            out.extend(np.asarray(a).reshape(-1).tolist())
    if cls._wp_kind_ == "transformation" and len(args) == 2 and len(out) == 7:
        return out  # transform(p, q)
    return out


def _make(kind: str, shape: tuple, dtype, name: str):
    dtype = canonical_scalar(dtype)
    if not is_scalar_type(dtype):
        raise TypeError(f"the element type of a {kind} must be a scalar type such as wp.float32, got {dtype!r}")
    key = (kind, shape, dtype)
    cls = _TYPE_CACHE.get(key)
    if cls is not None:
        return cls
    ctype = dtype._type_
    attrs = {"_wp_kind_": kind, "_wp_scalar_type_": dtype, "_shape_": shape, "__module__": "warp_nb.types",
             # Warp's name of the C++ template, which its tests read to tell vectors from matrices
             "_wp_generic_type_str_": {"vector": "vec_t", "matrix": "mat_t", "quaternion": "quat_t",
                                       "transformation": "transform_t"}[kind]}
    if kind == "matrix":
        attrs.update(_type_=vector(shape[1], dtype), _length_=shape[0])
    else:
        attrs.update(_type_=ctype, _length_=shape[0])
    if kind == "transformation":
        attrs.update(p=property(_transform_p, _transform_set_p), q=property(_transform_q, _transform_set_q))
    elif kind in ("vector", "quaternion"):
        for i, axis in enumerate("xyzw"[: min(shape[0], 4)]):
            attrs[axis] = property(_component_getter(i), _component_setter(i))
    cls = type(name, (Composite, ctypes.Array), attrs)
    _TYPE_CACHE[key] = cls
    return cls


def _component_getter(i):
    return lambda self: self[i]


def _component_setter(i):
    def setter(self, value):
        self[i] = value

    return setter


def _transform_p(self):
    return vector(3, self._wp_scalar_type_)._from_numpy(self._flat()[:3])


def _transform_q(self):
    return quaternion(self._wp_scalar_type_)._from_numpy(self._flat()[3:])


def _transform_set_p(self, p):
    flat = self._flat()
    flat[:3] = np.asarray(p).reshape(3)
    self._set_flat(flat)


def _transform_set_q(self, q):
    flat = self._flat()
    flat[3:] = np.asarray(q).reshape(4)
    self._set_flat(flat)


def _keyword_parts(cls, args: tuple, kwargs: dict) -> tuple:
    """A transform's parts by name, as Warp accepts them: `wp.transformf(p=(1, 2, 3), q=quat)`
    (an omitted part is the identity's)."""
    parts = ("p", "q")
    if cls._wp_kind_ != "transformation" or set(kwargs) - set(parts[len(args):]):
        raise TypeError(f"{cls.__name__}() got unexpected keyword arguments {sorted(kwargs)}")
    defaults = {"p": (0.0, 0.0, 0.0), "q": (0.0, 0.0, 0.0, 1.0)}
    return tuple(args) + tuple(kwargs.get(name, defaults[name]) for name in parts[len(args):])


def _generic(kind: str, shape: tuple, dtype):
    """A generic composite when the shape or the element type is Any or a type variable, else None."""
    from .generic import GenericComposite, is_generic
    if any(s is typing.Any for s in shape) or is_generic(dtype):
        return GenericComposite(kind, shape, dtype)
    return None


def _suffix(dtype, kind: str) -> str:
    """The name suffix of a scalar type (f, d, i ...), or a clear error for anything else."""
    suffix = _SUFFIX.get(canonical_scalar(dtype))
    if suffix is None:
        raise TypeError(f"a {kind} holds scalars (wp.float32, wp.float64, wp.int32 ...), not {getattr(dtype, '__name__', dtype)!r}")
    return suffix


def _length(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"a vector or matrix dimension must be a non-negative int, got {n!r}")
    return int(n)


def vector(length: int, dtype=scalars.float32):
    """The vector type of `length` elements of `dtype` (one class per combination); with Any for
    either, a generic vector type (for parameters of generic kernels and functions)."""
    generic = _generic("vector", (length,), dtype)
    if generic is not None:
        return generic
    return _make("vector", (int(length),), dtype, f"vec{_length(length)}{_suffix(dtype, 'vector')}")


def matrix(shape, dtype=scalars.float32):
    """The row-major matrix type of `shape` = (rows, cols) with elements of `dtype` (generic with Any)."""
    generic = _generic("matrix", tuple(shape), dtype)
    if generic is not None:
        return generic
    rows, cols = (int(s) for s in shape)
    return _make("matrix", (rows, cols), dtype, f"mat{_length(rows)}{_length(cols)}{_suffix(dtype, 'matrix')}")


def quaternion(dtype=scalars.float32):
    """The quaternion type (x, y, z, w; w is the real part)."""
    generic = _generic("quaternion", (4,), dtype)
    if generic is not None:
        return generic
    return _make("quaternion", (4,), dtype, f"quat{_suffix(dtype, 'quaternion')}")


def transformation(dtype=scalars.float32):
    """The rigid transform type: translation p (vec3) followed by rotation q (quat)."""
    generic = _generic("transformation", (7,), dtype)
    if generic is not None:
        return generic
    return _make("transformation", (7,), dtype, f"transform{_suffix(dtype, 'transformation')}")


def is_composite_type(t) -> bool:
    return isinstance(t, type) and issubclass(t, Composite) and hasattr(t, "_length_")


def kind_of(t) -> str | None:
    return t._wp_kind_ if is_composite_type(t) else None
