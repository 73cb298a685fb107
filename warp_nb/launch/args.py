"""The arguments of a launch: each compiled kernel gets a packing function generated for its
signature (one `struct.pack` call with identity checks in front) that turns the Python values of
a launch into the bytes of the kernel's argument struct. Anything unusual falls to a slow path
that converts what it can and otherwise raises a TypeError naming the parameter."""

from __future__ import annotations

import ctypes
import numbers
import struct
import warnings

import numpy as np

from .. import types as T
from ..arrays.array import array
from ..arrays.dlpack import from_dlpack
from ..arrays.indexed import indexedarray
from ..errors import ArgumentTypeError
from ..runtime.devices import Device
from ..types.array_family import native_family, subclass_descriptor
from ..types.array_type import ArrayType, IndexedArrayType
from ..types.fabric_type import FabricArrayType, pack_format
from ..types.structs import StructInstance, field_ctype

_SCALAR_FORMAT = {T.bool: "?", T.int8: "b", T.uint8: "B", T.int16: "h", T.uint16: "H", T.int32: "i", T.uint32: "I",
                  T.int64: "q", T.uint64: "Q", T.float16: "e", T.float32: "f", T.float64: "d",
                  T.bfloat16: "H"}  # bfloat16: its bits, which only the slow path makes

def make_packer(kernel, device: Device, types_=None):
    """A function(*values) -> bytes for this kernel's argument struct, generated for its signature
    (`types_`: a generic kernel's concrete signature)."""
    names, types_ = kernel.param_names, list(types_ if types_ is not None else kernel.param_types)
    layout = argument_layout(types_)
    fmt, offset, lines, pieces = ["="], 0, [], []
    env = {"_array": array, "_type": type, "_slow": _slow_argument, "_kernel": _Signature(kernel.key, names, types_),
           "_device": device, "_struct": struct}
    for k, t in enumerate(types_):
        field_offset = getattr(layout, f"f{k}").offset
        if field_offset > offset:
            fmt.append(f"{field_offset - offset}x")
        size = ctypes.sizeof(field_ctype(t))
        v = f"v{k}"
        env[f"_T{k}"] = t
        if isinstance(t, FabricArrayType):  # bucket table, bucket count, shape (+ index pointer, shape)
            fmt.append(pack_format(t))
            lines.append(f"    {v} = _slow(_kernel, {k}, {v}, _device)")
            pieces.append(f"*{v}._desc")
        elif isinstance(t, IndexedArrayType):  # the array's descriptor, N index pointers, the N-d shape
            fmt.append(f"QQ{t.ndim}q{t.ndim}q{t.ndim}Q{t.ndim}q")
            lines.append(f"    {v} = _slow(_kernel, {k}, {v}, _device)")
            pieces.append(f"*{v}._desc")
        elif isinstance(t, ArrayType):
            env[f"_D{k}"] = t.dtype
            fmt.append(f"QQ{t.ndim}q{t.ndim}q")
            # type(), not .__class__: an object that only claims to be an array (a mock, a proxy, an
            # interface provider with a __class__ property) must take the slow path, as must subclasses
            lines.append(f"    if _type({v}) is not _array or {v}.dtype is not _D{k} or len({v}.shape) != {t.ndim} "
                         f"or {v}.device is not _device: {v} = _slow(_kernel, {k}, {v}, _device)")
            pieces.append(f"*{v}._desc")
        elif T.is_scalar_type(t):
            fmt.append(_SCALAR_FORMAT[t])
            if t is T.bfloat16:
                lines.append(f"    {v} = _slow(_kernel, {k}, {v}, _device)")
            elif t is T.bool:  # struct packs any object as a bool (its truth): only bools go straight in
                lines.append(f"    if {v}.__class__ is not bool: {v} = _slow(_kernel, {k}, {v}, _device)")
            pieces.append(v)
        else:  # vectors, matrices, quaternions, transforms, structs: their bytes
            fmt.append(f"{size}s")
            lines.append(f"    if {v}.__class__ is not _T{k}: {v} = _slow(_kernel, {k}, {v}, _device)")
            pieces.append(f"bytes({v})")
        offset = field_offset + size
    total = ctypes.sizeof(layout)
    if total > offset:
        fmt.append(f"{total - offset}x")
    env["_S"] = struct.Struct("".join(fmt))
    params = ", ".join(f"v{k}" for k in range(len(types_)))
    source = (f"def pack({params}):\n" + "\n".join(lines) + ("\n" if lines else "") +
              f"    try:\n        return _S.pack({', '.join(pieces)})\n"
              f"    except (_struct.error, TypeError, OverflowError):\n"
              f"        return _S.pack({', '.join(pieces_slow(types_))})\n")
    code = _PACKER_CODE.get(source)
    if code is None:  # kernels with the same signature share the compiled packer code
        code = _PACKER_CODE[source] = compile(source, "<warp_nb argument packer>", "exec")
    exec(code, env)
    del names
    return env["pack"]


_PACKER_CODE: dict = {}


def argument_layout(types_):
    """The kernel's argument struct as a ctypes Structure (fields f0, f1, ...): its offsets and size
    are the native struct's (the packer and the native launch plan, plan.py, both write it)."""
    fields = [(f"f{k}", field_ctype(t)) for k, t in enumerate(types_)] or [("unused", ctypes.c_char)]
    return type("args", (ctypes.Structure,), {"_fields_": fields})


def pieces_slow(types_) -> list[str]:
    """The second try: every scalar goes through the slow path first (which raises with a clear message)."""
    out = []
    for k, t in enumerate(types_):
        if isinstance(t, ArrayType):
            out.append(f"*v{k}._desc")
        elif T.is_scalar_type(t) and t is not T.bfloat16:  # (bfloat16 went through it already)
            out.append(f"_slow(_kernel, {k}, v{k}, _device)")
        elif t is T.bfloat16:
            out.append(f"v{k}")
        else:
            out.append(f"bytes(v{k})")
    return out


def convert_argument(kernel_key: str, name: str, t, value, device: Device, where: str):
    """One argument for a parameter of type `t`, converted or refused as a launch does (the value to
    pack: the array itself, a converted scalar, a struct's bytes); errors begin with `where`."""
    return _slow_argument(_Signature(kernel_key, [name], [t]), 0, value, device, where)


class _Signature:
    """What the slow path needs of a kernel: its key and the concrete parameter names and types."""

    __slots__ = ("key", "param_names", "param_types")

    def __init__(self, key, names, types_):
        self.key, self.param_names, self.param_types = key, names, types_


def _slow_argument(kernel, index: int, value, device: Device, where: str | None = None):
    """Convert or refuse one argument, naming it in the error (`where`: how to name it)."""
    name, t = kernel.param_names[index], kernel.param_types[index]
    where = where or f"launch of kernel `{kernel.key}`: argument `{name}` (position {index + 1})"
    if isinstance(t, FabricArrayType):
        return _fabric_argument(where, t, value, device)
    if isinstance(t, IndexedArrayType):
        if value is None:
            return _NullArray(t.ndim, indexed=True)
        family = _family(where, value)
        if family is not indexedarray:
            raise ArgumentTypeError(f"{where} expects an array of type {t.type_name()}, but passed value has type "
                                    f"{type(value).__name__}")
        if value.dtype is not t.dtype or value.ndim != t.ndim:
            raise ArgumentTypeError(f"{where} expects {t.type_name()}, got {value.type.type_name()}"
                                    + _conversion_hint(value, t))
        if value.device != device:
            raise TypeError(f"{where} is an array on {value.device.alias} but the launch is on {device.alias}")
        return _own_descriptor(where, t, value, family)
    if isinstance(t, ArrayType):
        if value is None:
            return _NullArray(t.ndim)
        family = _family(where, value)
        if family is array:  # an application's subclass of wp.array: its own descriptor, checked below
            return _checked_array(where, t, value, device)
        if family is None and isinstance(getattr(value, "_wp_value", None), array):
            value = value._wp_value  # a descriptor from a.__ctype__(): the array it was read from
        elif family is None and device.is_cpu and not isinstance(value, np.ndarray) and hasattr(
                value, "__array_interface__"):  # an object exposing numpy's interface (and only it): a view
            try:
                value = np.asarray(value)
            except (TypeError, ValueError) as e:
                raise ArgumentTypeError(f"{where} expects an array of type array(ndim={t.ndim}, dtype="
                                        f"{T.type_name(t.dtype)}), but passed value has type {type(value).__name__} "
                                        f"(its __array_interface__ is not usable: {e})") from None
        if isinstance(value, np.ndarray) and device.is_cpu:  # as Warp: a numpy array is used in place
            try:
                value = array(value, dtype=t.dtype, device=device, copy=False)
            except (TypeError, ValueError) as e:
                raise TypeError(f"{where} expects {t.type_name()}; the numpy array does not fit it ({e})") from None
        if not isinstance(value, array) and hasattr(value, "__dlpack__") and not isinstance(value, np.ndarray):
            # a torch tensor, JAX or cupy array, passed directly as Warp accepts it: a view, no copy
            try:
                value = from_dlpack(value, dtype=t.dtype)
            except (TypeError, RuntimeError, BufferError) as e:
                raise TypeError(f"{where} expects {t.type_name()}; the {type(value).__name__} does not fit it "
                                f"({e})") from None
        if native_family(value) is not array:  # (what only claims to be one, a mock, is refused too)
            hint = " (wrap it with wp.array(...))" if hasattr(value, "__array_interface__") or isinstance(
                value, (list, tuple)) else ""
            # Warp's wording (its tests match it), a RuntimeError as in Warp and a TypeError as well
            raise ArgumentTypeError(f"{where} expects an array of type array(ndim={t.ndim}, dtype="
                                    f"{T.type_name(t.dtype)}), but passed value has type {type(value).__name__}{hint}")
        return _checked_array(where, t, value, device)
    if T.is_scalar_type(t):
        raw = getattr(value, "value", value)
        if isinstance(value, T.Scalar) and type(value) is not t:
            raise TypeError(f"{where} expects {T.type_name(t)}, got {type(value).__name__}")
        if not isinstance(raw, (numbers.Real, np.number, np.bool_)):  # "2.0", None, [1.0]: refused, as Warp does
            raise ArgumentTypeError(f"{where} expects {T.type_name(t)}, got {type(value).__name__} {value!r}: "
                                    "pass a number" + (" (not its text)" if isinstance(value, str) else ""))
        if T.is_int_type(t) and isinstance(raw, float):
            raise TypeError(f"{where} expects {T.type_name(t)}, got float {raw!r}; pass an int")
        try:
            converted = t._convert(raw)
        except (TypeError, ValueError):
            raise TypeError(f"{where} expects {T.type_name(t)}, got {type(value).__name__}") from None
        if T.is_int_type(t) and converted != raw:
            raise TypeError(f"{where}: {raw} does not fit in {T.type_name(t)}")
        return T.scalars.float_to_bfloat16_bits(converted) if t is T.bfloat16 else converted
    if getattr(t, "_wp_struct_", False):
        if value is None:
            raise ArgumentTypeError(f"launch of kernel `{kernel.key}`: argument '{name}' expects {t.__name__} but "
                                      "got None")
        if not isinstance(value, StructInstance) or value._struct is not t:
            raise TypeError(f"{where} expects a {t.__name__} instance, got {type(value).__name__}")
        return _Bytes(value.to_bytes())
    info = getattr(t, "_wp_native_", None)
    if info is not None:  # a native value type (wp.build_experimental): the bytes of its ctypes instance
        if getattr(type(value), "_wp_native_", None) is None or type(value)._wp_native_.identity != info.identity:
            raise TypeError(f"{where} expects a {t.__name__} instance, got {type(value).__name__}")
        return _Bytes(bytes(value))
    if hasattr(t, "descriptor"):  # a resource passed by value (wp.Texture2D): its descriptor's bytes
        if value is None:
            raise ArgumentTypeError(f"{where} expects a wp.{t.name} but got None")
        return _Bytes(bytes(t.descriptor(value, where)))
    if value is None:
        raise ValueError(f"Failed to convert argument for param {name} to {T.type_repr(t)}: got None")
    value = composite_from_single_value(kernel.key, name, t, value)
    try:
        return t(value) if not isinstance(value, (list, tuple)) else t(*value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{where} expects {T.type_name(t)}, got {type(value).__name__} ({e})") from None


def _family(where: str, value):
    """The native array family of a launch argument (None: not a Warp array); a class deriving
    from two families is refused, naming the parameter."""
    try:
        return native_family(value)
    except TypeError as e:
        raise ArgumentTypeError(f"{where}: {e}") from None


def _checked_array(where: str, t: ArrayType, value, device: Device):
    """A wp.array (or an application's subclass of it, used as it is) whose dtype, ndim and device
    fit the parameter."""
    if value.dtype is not t.dtype or value.ndim != t.ndim:
        raise ArgumentTypeError(f"{where} expects {t.type_name()}, got {value.type.type_name()}"
                                + _conversion_hint(value, t))
    if value.device != device:
        raise TypeError(f"{where} is an array on {value.device.alias} but the launch is on {device.alias}; "
                        f"copy it with a.to('{device.alias}')")
    return _own_descriptor(where, t, value, array)


def _own_descriptor(where: str, t, value, family: type):
    """An array of family `family` as a launch packs it: the array itself, or for an application's
    subclass the descriptor its own `__ctype__()` gives (which may point elsewhere), checked."""
    if type(value) is family:
        return value
    try:
        raw = subclass_descriptor(value, family)
    except TypeError as e:
        raise ArgumentTypeError(f"{where}: {e}") from None
    fmt = pack_format(t) if isinstance(t, FabricArrayType) else (
        f"QQ{t.ndim}q{t.ndim}q{t.ndim}Q{t.ndim}q" if isinstance(t, IndexedArrayType) else f"QQ{t.ndim}q{t.ndim}q")
    return _SubclassDescriptor(value, struct.unpack("=" + fmt, raw), raw, family)


class _SubclassDescriptor:
    """What a launch packs for an application's array subclass: its own descriptor's words; the
    instance itself stays referenced (by the launch's argument list, as any argument)."""

    __slots__ = ("_desc", "family", "raw", "value")

    def __init__(self, value, desc: tuple, raw: bytes, family: type):
        self.value, self._desc, self.raw, self.family = value, desc, raw, family

    def __ctype__(self):
        """The descriptor as the family's own ctypes class (what Warp's pack_arg returns)."""
        return type(self.family.__ctype__(self.value)).from_buffer_copy(self.raw)


def composite_from_single_value(kernel_key: str, name: str, t, value):
    """A single number given for a vector, matrix, quaternion or transform parameter. As Warp 1.19: a
    Python or Warp number is refused (it was usually a mistake), a numpy number or a bool still fills
    every component, with a deprecation warning. Anything else is returned unchanged."""
    if not (T.is_composite_type(t) and isinstance(value, (numbers.Number, np.generic, T.Scalar))):
        return value
    shown = T.type_repr(t)
    if isinstance(value, (bool, np.generic)) or getattr(value, "_kind", None) == "bool":
        warnings.warn(f"Passing a value of type `{type(value).__name__}` for the `{shown}` kernel parameter "
                      f"'{name}' of kernel `{kernel_key}` sets every component to it; this promotion is deprecated, "
                      f"pass a {shown}", DeprecationWarning, stacklevel=4)
        return t(value.item() if isinstance(value, np.generic) else value)
    raise ArgumentTypeError(f"launch of kernel `{kernel_key}`: argument '{name}' expects {shown} but got a single "
                              f"value ({value!r}); pass a {shown}, or a tuple or list of its components")


def _conversion_hint(value, t) -> str:
    """How to get from the array passed to the one the parameter wants."""
    if value.ndim != t.ndim:
        return (f"; reshape it (a.reshape(...)) to {t.ndim} dimension{'s' if t.ndim > 1 else ''}, or declare the "
                f"parameter wp.array(dtype=..., ndim={value.ndim})")
    want = T.type_name(t.dtype)
    if T.type_length(value.dtype) == T.type_length(t.dtype) and T.is_scalar_type(t.dtype) == T.is_scalar_type(value.dtype):
        convert = f"wp.array(a.numpy(), dtype=wp.{want})"
    else:
        convert = "an array of the parameter's dtype"
    return (f"; convert it ({convert}, a copy), or declare the parameter wp.array(dtype=wp.{T.type_name(value.dtype)}) "
            f"or wp.array(dtype=typing.Any) to take either")


def _fabric_argument(where: str, t: FabricArrayType, value, device: Device):
    """A wp.fabricarray / wp.indexedfabricarray argument (None: an empty one), checked."""
    if value is None:
        return _NullFabric(t)
    indexed = t.kind == "indexedfabricarray"
    _family(where, value)  # a class deriving from two families is refused
    cls = type(value)
    if not getattr(cls, "_wp_fabric_", False) or getattr(cls, "_wp_indexed_fabric_", False) != indexed:
        # Warp's wording (its tests match it)
        raise ArgumentTypeError(f"{where} expects an array of type {t.type_name()}, but passed value has type "
                                f"{cls.__name__}")
    if value.dtype is not t.dtype or value.ndim != t.ndim:
        raise ArgumentTypeError(f"{where} expects {t.type_name()}, got {value.type.type_name()}")
    if value.device != device:
        raise TypeError(f"{where} is a Fabric array on {value.device.alias} but the launch is on {device.alias}")
    return _own_descriptor(where, t, value, native_family(value))


class _NullFabric:
    """A None passed for a Fabric array: no buckets, size 0."""

    def __init__(self, t: FabricArrayType):
        fields = 2 + t.ndim
        if t.kind == "indexedfabricarray":
            fields += 1 + t.ndim
        self._desc = (0,) * fields


class _NullArray:
    """A None passed for an array: a descriptor of zeros (data == nullptr)."""

    def __init__(self, ndim: int, indexed: bool = False):
        self._desc = (0, 0) + (0,) * ((4 if indexed else 2) * ndim)


class _Bytes(bytes):
    pass
