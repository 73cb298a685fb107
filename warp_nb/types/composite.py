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

from .. import config
from . import scalars
from .composite_math import Arithmetic, _quat_mul, _transform_mul  # noqa: F401  (kept importable here)
from .scalars import Scalar, canonical_scalar, is_scalar_type

_TYPE_CACHE: dict = {}

# short suffixes used in type names: vec3f, mat33d, vec4h, vec2i ...
_SUFFIX = {
    scalars.float16: "h", scalars.float32: "f", scalars.float64: "d", scalars.bfloat16: "bf",
    scalars.int8: "b", scalars.uint8: "ub", scalars.int16: "s", scalars.uint16: "us",
    scalars.int32: "i", scalars.uint32: "ui", scalars.int64: "l", scalars.uint64: "ul",
    scalars.bool: "bool",
}


class Composite(Arithmetic):
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
            self._set_flat(_checked(type(self), _transform_values(type(self), args, kwargs)))
            return
        if kwargs:
            raise TypeError(f"{type(self).__name__}() got unexpected keyword arguments {sorted(kwargs)}")
        n = _num_scalars(type(self))
        if not args:
            return
        if len(args) == 1:
            arg = args[0]
            if isinstance(arg, (int, float, Scalar, np.number, bool)):
                self._set_flat(_checked(type(self), [arg]) * n)
                return
            self._set_flat(_checked(type(self), _flatten(arg, type(self))))
            return
        if self._wp_kind_ == "matrix" and len(args) == self._shape_[0]:
            for row in args:  # rows given as sequences must each have `cols` entries
                if not _is_scalar_value(row) and np.size(row) != self._shape_[1]:
                    raise TypeError(f"Invalid argument in matrix constructor, expected row of length "
                                    f"{self._shape_[1]}, got {tuple(row) if isinstance(row, list) else row}")
        self._set_flat(_checked(type(self), _flatten(args, type(self))))

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
            value = np.frombuffer(self, dtype=_storage_np(type(self)), count=_num_scalars(type(self)))[key].item()
            return _element(self._wp_scalar_type_, value)
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
        return _element(self._wp_scalar_type_, value.item())

    def __setitem__(self, key, value):
        key = self._checked_key(key)
        t = self._wp_scalar_type_
        scalar = _is_scalar_value(value)
        sequence = not scalar and (isinstance(value, (Composite, list, tuple)) or hasattr(value, "__array__"))
        bad = not sequence and (not scalar or _float_for_int(t, value))
        if bad and isinstance(key, tuple) and not any(isinstance(k, slice) for k in key):
            # m[i, j] = 'a': the value is refused before the indices are checked, as in Warp
            raise TypeError(f"Expected to assign a `{t.__name__}` value but got `{type(value).__name__}` instead")
        a = self.__array__()
        if np.ndim(a[key]) == 0 or scalar:
            if bad or sequence:
                raise TypeError(f"Expected to assign a `{t.__name__}` value but got `{type(value).__name__}` instead")
            a[key] = t._convert(value)  # integers wrap as in C; a slice, row or block is filled
        else:
            # a torch tensor or JAX array iterates into 0-d arrays: read it through __array__ instead
            items = value._flat().tolist() if isinstance(value, Composite) else list(np.ravel(np.asarray(value))) \
                if isinstance(value, np.ndarray) or hasattr(value, "__array__") else list(value)
            for item in items:
                if not _is_scalar_value(item) or _float_for_int(t, item):
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
            if len(key) != 2:  # m[(0,)] too, as Warp's
                raise KeyError(f"Invalid key, expected one or two indices, got {len(key)}")
            if all(isinstance(k, index) for k in key):
                return key
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
        except (ValueError, TypeError):
            return NotImplemented
        # of the same shape only, as Warp's: a matrix is not equal to its values listed flat
        return theirs.shape == self._shape_ and bool(np.array_equal(self.__array__(), theirs))

    # a value that changes in place (v[0] = 1) cannot be a dict key or set member: unhashable, as in Warp
    __hash__ = None

    def __repr__(self):
        """Warp's form: vec3f([1.0, 2.0, 3.0]); elements other than float32, int32 and bool show
        their type (vec2d([float64(1.0), float64(2.0)]))."""
        t = self._wp_scalar_type_
        native = t in (scalars.float32, scalars.int32, scalars.bool)
        items = [repr(v) if native else f"{t.__name__}({v!r})" for v in self._flat().tolist()]
        return f"{warp_repr(type(self))}([{', '.join(items)}])"

    def __str__(self):
        """As a Python list of the values ([1.0, 2.0, 3.0]; a matrix row by row), as Warp prints."""
        values = self._flat().tolist()
        if self._wp_kind_ != "matrix":
            return str(values)
        cols = self._shape_[1]
        return "[" + ",\n ".join(str(values[r * cols:(r + 1) * cols]) for r in range(self._shape_[0])) + "]"

    def __reduce__(self):
        # rebuilt through its factory: a class such as vec6f is not an attribute of any module
        return (_rebuild, (self._wp_kind_, self._shape_, self._wp_scalar_type_, self._flat()))

    def _wrap(self, a):
        return type(self)._from_numpy(np.asarray(a))


def _rebuild(kind: str, shape: tuple, scalar, values):
    """An unpickled composite (see Composite.__reduce__)."""
    cls = {"vector": lambda: vector(shape[0], scalar), "matrix": lambda: matrix(shape, scalar),
           "quaternion": lambda: quaternion(scalar), "transformation": lambda: transformation(scalar)}[kind]()
    return cls._from_numpy(values)


def _is_scalar_value(o) -> bool:
    return isinstance(o, (int, float, Scalar, np.number)) and not isinstance(o, np.ndarray)


def _value(o):
    return o.value if isinstance(o, Scalar) else o


_PLAIN_ELEMENTS = (scalars.float32, scalars.int32, scalars.bool)


def _element(t, value):
    """A component read in Python scope, as Warp's: a float32, int32 or bool one as a Python number,
    any other as a value of its Warp scalar type (wp.float64, wp.float16, wp.uint8 ...), or a number
    with wp.config.legacy_scalar_return_types."""
    if t in _PLAIN_ELEMENTS or config.legacy_scalar_return_types:
        return value
    return t(value)


def _float_for_int(t, v) -> bool:
    """Whether v is a floating-point value given for an integer component (refused: Warp does not
    truncate it)."""
    return t._kind in ("int", "uint") and (isinstance(v, (float, np.floating)) or
                                          isinstance(v, Scalar) and v._kind == "float")


def _checked(cls, values: list) -> list:
    """The components of a constructor, checked as Warp's constructors check them: numbers (Python,
    numpy or Warp), integers for an integer type; a string or None is refused, not parsed or made nan."""
    t = cls._wp_scalar_type_
    for v in values:
        if type(v) is int or type(v) is float and t._kind == "float":
            continue  # the common case, first
        if not isinstance(v, (int, float, Scalar, np.number, np.bool_)):
            if t._kind == "float":
                raise TypeError(f"must be real number, not {type(v).__name__}")
            raise TypeError(f"'{type(v).__name__}' object cannot be interpreted as an integer")
        if _float_for_int(t, v):
            name = type(v).__name__
            raise TypeError(f"'{'numpy.' + name if isinstance(v, np.generic) else name}' object cannot be "
                            "interpreted as an integer")
    return values


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
        with np.errstate(all="ignore"):  # past float16's range is inf, as in C, without numpy's warning
            return np.asarray(vals, dtype=np.float16).view(np.uint16)
    if t is scalars.bfloat16:
        return scalars.floats_to_bfloat16_bits(vals)
    if t._kind in ("int", "uint"):
        return np.array([t._convert(v) for v in vals], dtype=t._np)  # wrapped into range as in C
    with np.errstate(all="ignore"):
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
    # what an application's subclass (class vec5f(wp.types.vector(5, float))) means in kernels and
    # wp.types.types_equal: this type, as in Warp (scalars.canonical_scalar reads it)
    cls._wp_composite_base_ = cls
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
    self._set_flat(_transform_part(self, p, "p", 3) + self._flat()[3:].tolist())


def _transform_set_q(self, q):
    self._set_flat(self._flat()[:3].tolist() + _transform_part(self, q, "q", 4))


def _transform_part(self, value, name: str, n: int) -> list:
    """The components of t.p = value / t.q = value: a sequence of n numbers (a composite's values, not
    its bits, which np.asarray of a float16 one reads)."""
    if _is_scalar_value(value) or not hasattr(value, "__len__") and not hasattr(value, "__array__"):
        raise TypeError(f"Invalid argument for transformation '{name}': expected a sequence of {n} values, got "
                        f"{type(value).__name__}")
    values = _checked(type(self), _flatten([value], type(self)))
    if len(values) != n:
        raise ValueError(f"Invalid number of arguments for transformation '{name}': expected {n} elements, got "
                         f"{len(values)}")
    return values


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


def warp_repr(cls) -> str:
    """A composite type as Warp's type_repr writes it: by its short name up to 4 components a side
    (vec3f, mat23d, vec1b), else by its shape (vector(length=6, dtype=float32), matrix(shape=(6, 6),
    dtype=float64), whatever the class is called: wp.spatial_vector too)."""
    dtype = cls._wp_scalar_type_.__name__
    if cls._wp_kind_ == "vector" and cls._shape_[0] > 4:
        return f"vector(length={cls._shape_[0]}, dtype={dtype})"
    if cls._wp_kind_ == "matrix" and max(cls._shape_) > 4:
        return f"matrix(shape={tuple(cls._shape_)}, dtype={dtype})"
    return cls.__name__


def is_composite_type(t) -> bool:
    return isinstance(t, type) and issubclass(t, Composite) and hasattr(t, "_length_")


def kind_of(t) -> str | None:
    return t._wp_kind_ if is_composite_type(t) else None
