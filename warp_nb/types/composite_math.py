"""Python-scope operators of vectors, matrices, quaternions and transforms (the `Arithmetic` mixin
of composite.Composite), computed with numpy.

Which operands an operator takes follows Warp, whose Python scope calls the kernels' builtins: the
other value is a composite of the same kind, shape and scalar type, or a scalar of the composite's
own type; anything else (vec3f + vec3d, vec3d - wp.int64(2), quat + vec4, vec * vec, a bool) is
refused with Warp's ArgumentTypeError, which is a RuntimeError as Warp's error is. warp_nb takes
more than Warp where the meaning is plain: a Python int for any composite and a Python float for a
float one (Warp takes only int32 and float32 values), numpy numbers, lists and arrays of the
composite's shape, composites of any length and integer matrices (Warp exports its operators for
some types only). A float is refused for an integer composite rather than truncated. Floating-point
results follow C (x / 0 is inf, fmod for %) without numpy's warnings; integer ones wrap, divide
toward zero and give 0 for a division by zero (where warp-lang's process dies of SIGFPE)."""

from __future__ import annotations

import numpy as np

from .scalars import Scalar


def _label(o) -> str:
    return type(o).__name__


def refuse(name: str, a, b, hint: str = ""):
    from ..errors import ArgumentTypeError  # Warp's message, whole (its tests match it to the end)
    raise ArgumentTypeError(f"Couldn't find a function '{name}' compatible with the arguments "
                            f"'{_label(a)}, {_label(b)}'{hint}")


def _same_type(a, b) -> bool:
    return type(a) is type(b) or a._wp_scalar_type_ is b._wp_scalar_type_ and a._shape_ == b._shape_


def operand(self, o, name: str, shape=True):
    """o's values for `self <op> o` (an array, or a number), None when o is nothing an operator takes
    (the operator then returns NotImplemented); refused as Warp refuses mixed types."""
    t = self._wp_scalar_type_
    is_int = t._kind in ("int", "uint")
    if hasattr(type(o), "_wp_kind_") and hasattr(type(o), "_shape_"):  # a composite
        if o._wp_scalar_type_ is not t or (shape and (o._wp_kind_ != self._wp_kind_ or o._shape_ != self._shape_)):
            refuse(name, self, o)
        return o.__array__()
    if isinstance(o, Scalar):
        if type(o) is not t:
            refuse(name, self, o)
        return o.value
    if isinstance(o, (bool, np.bool_)):
        refuse(name, self, o)
    dtype = self.__array__().dtype
    if isinstance(o, (int, np.integer)):  # wrapped into the type as in C
        return np.asarray(t._convert(o) if is_int else o, dtype=dtype)
    if isinstance(o, (float, np.floating)):
        if is_int:
            refuse(name, self, o)
        with np.errstate(all="ignore"):
            return np.asarray(o, dtype=dtype)  # past the type's range: inf, as Warp's float32 argument
    if isinstance(o, (list, tuple, np.ndarray)):
        a = np.asarray(o)
        if a.dtype.kind not in "iuf" or (shape and a.shape != self._shape_) or (is_int and a.dtype.kind == "f"):
            refuse(name, self, o)
        with np.errstate(all="ignore"):
            return a.astype(dtype)
    return None


def _int_div(a, b):
    """C's integer division, componentwise: toward zero; 0 where b is 0."""
    a, b = np.asarray(a), np.asarray(b)
    safe = np.where(b == 0, 1, b)
    q = np.abs(a) // np.abs(safe)
    q = np.where((a < 0) != (safe < 0), -q, q)
    return np.where(b == 0, 0, q)


def _int_mod(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.where(b == 0, 0, np.fmod(a, np.where(b == 0, 1, b)))


class Arithmetic:
    """The operators; the class also defines __array__, _wrap, _wp_kind_, _shape_, _wp_scalar_type_."""

    def _binary(self, o, name, f, reverse=False):
        b = operand(self, o, name)
        if b is None:
            return NotImplemented
        a = self.__array__()
        with np.errstate(all="ignore"):
            return self._wrap(f(b, a) if reverse else f(a, b))

    def __add__(self, o):
        return self._binary(o, "add", np.add)

    def __radd__(self, o):
        return self._binary(o, "add", np.add, True)

    def __sub__(self, o):
        return self._binary(o, "sub", np.subtract)

    def __rsub__(self, o):
        return self._binary(o, "sub", np.subtract, True)

    def _divide(self, a, b):
        return _int_div(a, b) if self._wp_scalar_type_._kind in ("int", "uint") else np.true_divide(a, b)

    def _remainder(self, a, b):
        # the kernel's %: C's remainder (the dividend's sign), fmod for floats
        return _int_mod(a, b) if self._wp_scalar_type_._kind in ("int", "uint") else np.fmod(a, b)

    def __mod__(self, o):
        return self._binary(o, "mod", self._remainder)

    def __rmod__(self, o):
        return self._binary(o, "mod", self._remainder, True)

    def __truediv__(self, o):
        if isinstance(o, Arithmetic):  # no componentwise division of two composites
            refuse("div", self, o, "; use wp.cw_div for a componentwise division" if _same_type(self, o) else "")
        return self._binary(o, "div", self._divide)

    def __rtruediv__(self, o):
        return self._binary(o, "div", self._divide, True)

    def __neg__(self):
        with np.errstate(all="ignore"):
            return self._wrap(-self.__array__())

    def __pos__(self):
        return self._wrap(self.__array__())  # a new value, as Warp's

    def __mul__(self, o):
        if not isinstance(o, Arithmetic):
            return self._binary(o, "mul", np.multiply)
        if self._wp_kind_ == "matrix":
            return self.__matmul__(o)
        if o._wp_kind_ == "matrix":
            return o.__rmatmul__(self)
        if o._wp_scalar_type_ is self._wp_scalar_type_ and o._wp_kind_ == self._wp_kind_:
            if self._wp_kind_ == "quaternion":
                return self._wrap(_quat_mul(self.__array__(), o.__array__()))
            if self._wp_kind_ == "transformation":
                return self._wrap(_transform_mul(self.__array__(), o.__array__()))
        # vec * vec, quat * vec3, mixed types
        refuse("mul", self, o, "; use wp.cw_mul for a componentwise product" if _same_type(self, o) else "")

    def __rmul__(self, o):
        return self._binary(o, "mul", np.multiply, True)

    def __matmul__(self, o):
        if self._wp_kind_ != "matrix":
            return NotImplemented  # vector @ matrix is the matrix's __rmatmul__; Warp has no other @
        b = operand(self, o, "mul", shape=False)
        if b is None:
            return NotImplemented
        kind = getattr(o, "_wp_kind_", "vector")
        if kind not in ("vector", "matrix") or np.ndim(b) not in (1, 2) or np.shape(b)[0] != self._shape_[1]:
            refuse("mul", self, o)
        with np.errstate(all="ignore"):
            return _composite(self, self.__array__() @ b)

    def __rmatmul__(self, o):
        if self._wp_kind_ != "matrix":
            return NotImplemented
        a = operand(self, o, "mul", shape=False)
        if a is None:
            return NotImplemented
        kind = getattr(o, "_wp_kind_", "vector")
        if kind != "vector" or np.ndim(a) != 1 or np.shape(a)[0] != self._shape_[0]:
            refuse("mul", o, self)
        with np.errstate(all="ignore"):
            return _composite(self, a @ self.__array__())


def _composite(like, r):
    """The vector or matrix of r's shape with like's scalar type."""
    from .composite import matrix, vector
    t = like._wp_scalar_type_
    return (matrix(r.shape, t) if r.ndim == 2 else vector(r.shape[0], t))._from_numpy(r)


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
