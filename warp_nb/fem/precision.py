"""Double-precision variants of `warp.fem`'s single-precision device code: the one place where a
float64 geometry's scalar type turns into code.

Geometries, spaces, fields and quadratures write their device functions and argument structs once,
for float32 (`wp.vec3`, `wp.mat22`, `float(...)`, `fem.Sample`, ...). A float64 geometry asks for
`retyped(obj, wp.float64)` of each: a struct becomes a twin struct whose float32 fields are float64,
a `@wp.func` becomes a new function compiled from the same source with its globals, closure
variables and annotations rebound to their float64 counterparts (`wp` itself is seen through a view
whose `vec3` is `vec3d` ...), recursively for the functions and structs it names. Names that spell
their precision (`wp.vec3f`) stay float32: that is how code says "single precision in both" (a
Bvh's points). Float literals already take the type of the other operand in warp_nb, so most source
needs no change; a local that must follow the precision is declared `x = float(0.0)`, not `x = 0.0`.
Objects that own device functions (geometries, quadratures, per-domain operators) call
`retype_members` / `retyped` on theirs when their geometry is float64; everything downstream
(samples, coordinates, spaces' shape functions, integrals) then follows from the types.

What is not retyped: functions outside `warp_nb.fem` (a user's, or warp_nb's own library), values
that are not types, structs, functions or float32 vectors/matrices."""

from __future__ import annotations

import inspect
import types as pytypes

import warp_nb as wp

from .. import types as T

_MEMO: dict = {}  # id(original) -> (original, float64 variant): the original is kept so its id stays unique


def retyped(obj, scalar_type=T.float64):
    """`obj` (a type, struct, fem `@wp.func` or value) for `scalar_type`: itself for float32, its
    float64 twin for float64."""
    if scalar_type is not T.float64:
        return obj
    return _f64(obj)


def retype_members(owner, scalar_type) -> None:
    """Rebind, on `owner` itself, each `@wp.func` and struct it has (its class's included) to its
    `scalar_type` variant: what an object owning device functions calls once they are all made."""
    if scalar_type is not T.float64:
        return
    from ..program.func import Function
    names = {n for cls in type(owner).__mro__ for n in vars(cls)} | set(vars(owner))
    for name in sorted(names):
        value = inspect.getattr_static(owner, name, None)
        if isinstance(value, staticmethod):
            value = value.__func__
        if isinstance(value, Function) or getattr(value, "_wp_struct_", False):
            setattr(owner, name, _f64(value))


def _f64(obj):
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    hit = _MEMO.get(id(obj))
    if hit is not None and hit[0] is obj:
        return hit[1]
    out = _convert(obj)
    _MEMO[id(obj)] = (obj, out)
    _MEMO.setdefault(id(out), (out, out))  # a float64 variant is its own
    return out


def _convert(obj):
    from ..program.func import Function
    from ..types.array_type import ArrayType
    from .types import Sample, Sample_f64
    if obj is float or obj is T.float32:
        return T.float64
    if obj is Sample:
        return Sample_f64
    if obj is wp:
        return _WP_F64
    if isinstance(obj, type) and (T.type_is_vector(obj) or T.type_is_matrix(obj)):
        return _composite_type(obj)
    if isinstance(obj, ArrayType):
        dtype = _f64(obj.dtype)
        return obj if dtype is obj.dtype else ArrayType(dtype, obj.ndim)
    if getattr(obj, "_wp_struct_", False) and _is_fem(obj.__module__):
        return _struct(obj)
    if isinstance(obj, Function) and _is_fem(obj.module_name):
        return _function(obj)
    if T.type_is_vector(type(obj)) or T.type_is_matrix(type(obj)):  # a float32 constant
        t = _composite_type(type(obj))
        return obj if t is type(obj) else t(*[float(v) for v in _flat(obj)])
    if isinstance(obj, tuple):
        return tuple(_f64(v) for v in obj)
    return obj


def _is_fem(module_name: str) -> bool:
    return module_name.startswith("warp_nb.fem")


def _flat(value):
    import numpy as np
    return np.asarray(value, dtype=np.float64).reshape(-1).tolist()


def _composite_type(t):
    if T.type_scalar_type(t) is not T.float32:
        return t
    if T.type_is_vector(t):
        return T.vector(length=T.type_length(t), dtype=T.float64)
    return T.matrix(shape=t._shape_, dtype=T.float64)


def _struct(st):
    """A struct whose fields are the float64 versions of `st`'s (`st` itself if none changes)."""
    fields = {name: _f64(t) for name, t in st.fields.items()}
    if all(fields[n] is t for n, t in st.fields.items()):
        return st
    cls = type(st.__name__ + "_f64", (), {"__annotations__": fields, "__module__": st.__module__,
                                          "__qualname__": st.__qualname__ + "_f64", "__doc__": st.__doc__})
    return wp.struct(cls)


def _function(f):
    """A Function with each overload of `f` recompiled against float64 names."""
    from ..program.func import Function
    out = None
    for overload in f.overloads:
        fn = _python_function(overload.fn)
        if out is None:
            out = Function(fn)
            out.module = f.module_name
            out.inline = f.inline
        else:
            out.add_overload(fn)
    return out


def _names(code) -> set:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, pytypes.CodeType):
            names |= _names(const)
    return names


def _python_function(fn):
    # the same code object (so the same source and line numbers for errors) with rebound names
    glob = dict(fn.__globals__)
    for name in _names(fn.__code__):
        if name in glob:
            glob[name] = _f64(glob[name])
    glob["float"] = T.float64  # `float(x)` casts and `x: float` annotations
    cells = tuple(pytypes.CellType(_f64(c.cell_contents)) if _bound(c) else c for c in (fn.__closure__ or ()))
    new = pytypes.FunctionType(fn.__code__, glob, fn.__name__, fn.__defaults__, cells or None)
    new.__qualname__ = fn.__qualname__
    new.__module__ = fn.__module__
    new.__doc__ = fn.__doc__
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__annotations__ = {k: _f64(_annotation(fn, v)) for k, v in fn.__annotations__.items()}
    return new


def _annotation(fn, value):
    """An annotation's value (a postponed one, a string, evaluated where `fn` was defined)."""
    if not isinstance(value, str):
        return value
    closure = {n: c.cell_contents for n, c in zip(fn.__code__.co_freevars, fn.__closure__ or ()) if _bound(c)}
    try:
        return eval(value, fn.__globals__, closure)
    except (NameError, AttributeError, SyntaxError, TypeError):  # left to the compiler, which reports it
        return value


def _bound(cell) -> bool:
    try:
        _ = cell.cell_contents
    except ValueError:
        return False
    return True


class _Float64View(pytypes.ModuleType):
    """`wp` as float64 device code sees it: `wp.vec3` is `vec3d`, `wp.float32` is `float64`; every
    other name is warp_nb's own."""

    def __getattr__(self, name):
        value = getattr(wp, name)
        # names that say their precision (`wp.vec3f`: a Bvh's points) stay float32
        explicit = name.endswith("f") and name[-2].isdigit()
        converted = _f64(value) if not explicit and (value is T.float32 or isinstance(value, type) and (
            T.type_is_vector(value) or T.type_is_matrix(value))) else value
        setattr(self, name, converted)
        return converted


_WP_F64 = _Float64View("warp_nb")
