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
    scalars.float16: "h", scalars.float32: "f", scalars.float64: "d", scalars.bfloat16: "bf",
    scalars.int8: "b", scalars.uint8: "ub", scalars.int16: "s", scalars.uint16: "us",
    scalars.int32: "i", scalars.uint32: "ui", scalars.int64: "l", scalars.uint64: "ul",
    scalars.bool: "bool",
}


class Composite:
    """Mixin for the ctypes array classes made below. Class attributes set by the factories:
    `_wp_kind_` ('vector' | 'matrix' | 'quaternion' | 'transformation'), `_wp_scalar_type_`,
    `_shape_` (a tuple), `_length_` (the number of scalars, as Warp's; see _make for matrices)."""

    _wp_kind_ = "vector"
    _wp_scalar_type_ = scalars.float32
    _shape_ = (3,)

    # --- construction -------------------------------------------------------------------
    def __init__(self, *args, **kwargs):
        super().__init__()
        if self._wp_kind_ == "transformation":
            self._set_flat(_transform_values(type(self), args, kwargs))
            return
        if kwargs:
            raise TypeError(f"{type(self).__name__}() got unexpected keyword arguments {sorted(kwargs)}")
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
        if self._wp_kind_ == "matrix" and len(args) == self._shape_[0]:
            for row in args:  # rows given as sequences must each have `cols` entries
                if not _is_scalar_value(row) and np.size(row) != self._shape_[1]:
                    raise TypeError(f"Invalid argument in matrix constructor, expected row of length "
                                    f"{self._shape_[1]}, got {tuple(row) if isinstance(row, list) else row}")
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
            what = "matrix" if self._wp_kind_ == "matrix" else "vector"  # Warp's message
            raise ValueError(f"Invalid number of arguments in {what} constructor, expected {n} elements, "
                             f"got {len(values)}")
        raw = np.frombuffer(self, dtype=_storage_np(type(self)), count=n)
        raw[:] = _encode(type(self), values)

    def _flat(self) -> np.ndarray:
        """The scalars as a numpy array of the element dtype (a copy)."""
        n = _num_scalars(type(self))
        raw = np.frombuffer(self, dtype=_storage_np(type(self)), count=n)
        if self._wp_scalar_type_ is scalars.float16:
            return raw.view(np.float16).copy()
        if self._wp_scalar_type_ is scalars.bfloat16:
            return scalars.bfloat16_bits_to_floats(raw)
        return raw.copy()

    def __array__(self, dtype=None, copy=None):
        a = self._flat().reshape(self._shape_)
        return a if dtype is None else a.astype(dtype)

    # --- element access -----------------------------------------------------------------
    def __getitem__(self, key):
        if type(key) is int and self._wp_kind_ != "matrix" and self._wp_scalar_type_ not in _PACKED_SCALARS:
            # v[i] of a vector: one scalar read from the buffer (the common case in host code that
            # fills argument structs; a copy of the whole value per read made it 10 us)
            return np.frombuffer(self, dtype=_storage_np(type(self)), count=_num_scalars(type(self)))[key].item()
        key = self._checked_key(key)
        a = self.__array__()
        if self._wp_kind_ == "matrix" and isinstance(key, (int, np.integer)):
            return vector(self._shape_[1], self._wp_scalar_type_)._from_numpy(a[key])
        value = a[key]
        if isinstance(value, np.ndarray):  # a slice: a vector or matrix of its shape, as Warp's
            if value.ndim == 1:
                return vector(len(value), self._wp_scalar_type_)._from_numpy(value)
            shape = value.shape if value.size else (0, 0)  # an empty matrix slice is mat00, as Warp's
            return matrix(shape, self._wp_scalar_type_)._from_numpy(value.reshape(shape))
        return value.item()

    def __setitem__(self, key, value):
        key = self._checked_key(key)
        a = self.__array__()
        t = self._wp_scalar_type_
        if np.ndim(a[key]) == 0:
            if not _is_scalar_value(value):
                raise TypeError(f"Expected to assign a `{t.__name__}` value but got `{type(value).__name__}` instead")
            a[key] = t._convert(value)  # integers wrap as in C
        elif _is_scalar_value(value):
            a[key] = t._convert(value)
        else:
            # a torch tensor or JAX array iterates into 0-d arrays: read it through __array__ instead
            items = value._flat().tolist() if isinstance(value, Composite) else list(np.ravel(np.asarray(value))) \
                if isinstance(value, np.ndarray) or hasattr(value, "__array__") else list(value)
            for item in items:
                if not _is_scalar_value(item):
                    raise TypeError(f"Expected to assign a slice from a sequence of `{t.__name__}` values but got "
                                    f"`{type(item).__name__}` instead")
            if len(items) != a[key].size:
                raise ValueError("Can only assign sequence of same size")
            a[key] = np.asarray([t._convert(v) for v in items], dtype=a.dtype).reshape(a[key].shape)
        self._set_flat(a.reshape(-1))

    def _checked_key(self, key):
        """The key of v[key] / m[key], refused as Warp does when it is not an index, slice or (for
        matrices) a pair of them."""
        index = (int, np.integer, slice)
        if self._wp_kind_ != "matrix":
            if not isinstance(key, index):
                raise KeyError(f"Invalid key {key}, expected int or slice")
            return key
        if isinstance(key, tuple):
            if len(key) not in (1, 2):
                raise KeyError(f"Invalid key, expected one or two indices, got {len(key)}")
            if all(isinstance(k, index) for k in key):
                return key if len(key) == 2 else key[0]
        elif isinstance(key, index):
            return key
        raise KeyError(f"Invalid key {key}, expected int or pair of ints")

    @classmethod
    def from_ptr(cls, ptr: int):
        """The value stored at address `ptr` (a copy)."""
        if not ptr:
            raise RuntimeError("NULL pointer exception")
        return cls.from_buffer_copy(ctypes.string_at(ptr, ctypes.sizeof(cls)))

    def get_row(self, index: int):
        if self._wp_kind_ != "matrix" or not -self._shape_[0] <= index < self._shape_[0]:
            raise IndexError("Invalid row index")
        return self[index]

    def get_col(self, index: int):
        if self._wp_kind_ != "matrix" or not -self._shape_[1] <= index < self._shape_[1]:
            raise IndexError("Invalid column index")
        return vector(self._shape_[0], self._wp_scalar_type_)._from_numpy(self.__array__()[:, index])

    def set_col(self, index: int, value):
        if self._wp_kind_ != "matrix" or not -self._shape_[1] <= index < self._shape_[1]:
            raise IndexError("Invalid column index")
        self[:, index] = value

    def set_row(self, index: int, value):
        if self._wp_kind_ != "matrix" or not -self._shape_[0] <= index < self._shape_[0]:
            raise IndexError("Invalid row index")
        self[index] = value

    def __len__(self):
        return self._shape_[0]

    def __setattr__(self, name, value):
        # a swizzle (`v.xy = ...`) or a component this type lacks (`v2.z = ...`) would otherwise become a
        # plain attribute that silently changes nothing: refused, as Warp does; other names stay free
        if name and set(name) <= set("xyzw") and not isinstance(getattr(type(self), name, None), property):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        super().__setattr__(name, value)

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __eq__(self, other):
        try:
            # another composite by its values: np.asarray of a float16/bfloat16 one is its bits
            theirs = other.__array__() if isinstance(other, Composite) else np.asarray(other)
            return bool(np.array_equal(self.__array__(), theirs.reshape(self._shape_)))
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

    def __mod__(self, o):
        # the kernel's %: C's remainder (sign of the dividend), componentwise
        a, b = self.__array__(), _operand(o, self)
        if self._wp_scalar_type_._kind in ("int", "uint"):
            with np.errstate(divide="ignore", invalid="ignore"):
                return self._wrap(np.where(b == 0, 0, np.fmod(a, np.where(b == 0, 1, b))))
        return self._wrap(np.fmod(a, b))

    def __neg__(self):
        return self._wrap(-self.__array__())

    def __pos__(self):
        return self

    def __mul__(self, o):
        if _is_scalar_value(o):
            return self._wrap(self.__array__() * _value(o))
        if isinstance(o, Composite) and o._wp_scalar_type_ is not self._wp_scalar_type_:
            from ..errors import ArgumentTypeError  # Warp's message, whole (its tests match it to the end)
            raise ArgumentTypeError(f"Couldn't find a function 'mul' compatible with the arguments "
                                    f"'{type(self).__name__}, {type(o).__name__}'")
        if self._wp_kind_ == "quaternion" and getattr(o, "_wp_kind_", None) == "quaternion":
            return self._wrap(_quat_mul(self.__array__(), o.__array__()))
        if self._wp_kind_ == "transformation" and getattr(o, "_wp_kind_", None) == "transformation":
            return self._wrap(_transform_mul(self.__array__(), o.__array__()))
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


def _transform_mul(a, b):
    # Warp's transform_multiply: (a.p + rotate(a.q, b.p), a.q b.q), rotate by the formula
    # v (2w^2 - 1) + 2w (u x v) + 2u (u . v) (q v q^-1 for a unit q; as is for any other)
    u, w, v = a[3:6], a[6], b[:3]
    p = a[:3] + v * (2 * w * w - 1) + 2 * w * np.cross(u, v) + 2 * u * u.dot(v)
    return np.array([*p, *_quat_mul(a[3:], b[3:])])


_PACKED_SCALARS = (scalars.float16, scalars.bfloat16)  # stored as 16-bit integers, decoded on reads


def _num_scalars(cls) -> int:
    n = cls.__dict__.get("_wp_num_scalars_")
    if n is None:  # per class, once: np.prod on every element read was most of its cost
        n = int(np.prod(cls._shape_))
        type.__setattr__(cls, "_wp_num_scalars_", n)
    return n


def _storage_np(cls):
    t = cls._wp_scalar_type_
    return np.uint16 if t is scalars.float16 else t._np


def _encode(cls, values):
    t = cls._wp_scalar_type_
    vals = [_value(v) for v in values]
    if t is scalars.float16:
        return np.asarray(vals, dtype=np.float16).view(np.uint16)
    if t is scalars.bfloat16:
        return scalars.floats_to_bfloat16_bits(vals)
    if t._kind in ("int", "uint"):
        return np.array([t._convert(v) for v in vals], dtype=t._np)  # wrapped into range as in C
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
        attrs.update(_type_=vector(shape[1], dtype), _length_=shape[0])  # the ctypes layout, see below
    else:
        attrs.update(_type_=ctype, _length_=shape[0])
    if kind == "transformation":
        attrs.update(p=property(_transform_p, _transform_set_p), q=property(_transform_q, _transform_set_q))
    elif kind in ("vector", "quaternion"):
        for i, axis in enumerate("xyzw"[: min(shape[0], 4)]):
            attrs[axis] = property(_component_getter(i), _component_setter(i))
    cls = type(name, (Composite, ctypes.Array), attrs)
    if kind == "matrix":
        # A matrix is laid out as an array of row vectors, so numpy sees its shape (np.array(m) is
        # rows x cols); ctypes reads _length_ (rows) and _type_ (a row) only when the class is made,
        # so they can then say what Warp's say: the number of scalars and the scalar's ctype (code
        # sizes buffers and computes strides with them).
        cls._length_ = shape[0] * shape[1]
        cls._type_ = ctype
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


def _transform_values(cls, args: tuple, kwargs: dict) -> list:
    """The seven components of a transform built as Warp builds one in Python: () the identity,
    (s) every component s, (t) a copy, (p) p with the identity rotation, (p, q), seven values, or
    p= and q= by name (a part left out is the identity's); anything else names the culprit."""
    for key in kwargs:
        if key not in ("p", "q"):
            raise TypeError(f"got an unexpected keyword argument '{key}'")
        if len(args) > ("p", "q").index(key):
            raise TypeError(f"multiple values for argument '{key}'")
    identity = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    if len(args) == 1 and not kwargs:
        a = args[0]
        if _is_scalar_value(a) or isinstance(a, np.bool_):
            return [a] * 7
        if not isinstance(a, (Composite, list, tuple, np.ndarray)):
            raise TypeError(f"Invalid argument in transformation constructor: expected a scalar value, got "
                            f"{type(a).__name__}")
        values = _flatten([a], cls)
        return values + identity[3:] if len(values) == 3 else values
    if len(args) > 2:
        return _flatten(args, cls)
    parts = dict(zip(("p", "q"), args), **kwargs)
    if not parts:
        return identity
    for name in ("p", "q"):
        if name in parts and hasattr(parts[name], "__array__") and not isinstance(parts[name], Composite):
            parts[name] = np.asarray(parts[name])  # a torch tensor or JAX array, as Warp takes them
        if name in parts and not isinstance(parts[name], (Composite, list, tuple, np.ndarray)):
            raise TypeError(f"Invalid argument '{name}' in transformation constructor: expected a sequence, got "
                            f"{type(parts[name]).__name__}")
    p = _flatten([parts["p"]], cls) if "p" in parts else identity[:3]
    q = _flatten([parts["q"]], cls) if "q" in parts else identity[3:]
    return p + q


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
    shape = tuple(shape)
    if len(shape) != 2:
        raise ValueError(f"Matrix shape must have exactly two dimensions, got {len(shape)} "
                         f"dimension{'' if len(shape) == 1 else 's'} in shape {shape}")
    generic = _generic("matrix", shape, dtype)
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
