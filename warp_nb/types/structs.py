"""`@wp.struct`: user-defined value types with scalar, vector, matrix, array and nested struct
fields. The layout is a ctypes Structure, so Python writes exactly the bytes the emitted C++
struct reads, and numpy sees arrays of structs as structured arrays. Knows nothing about
kernels or C++."""

from __future__ import annotations

import ctypes
import warnings
import weakref
from typing import Any

import numpy as np

from .. import types as T
from .array_family import native_family, refuse_instance_annotations, subclass_descriptor
from .array_type import ArrayType
from .fabric_type import DESCRIPTOR_STUBS, fabric_array_ctype
from .scalars import canonical_scalar

_ARRAY_CTYPES: dict = {}


def array_ctype(ndim: int):
    """The ctypes layout of a kernel-side array descriptor: data, grad, shape[ndim], strides[ndim]."""
    ct = _ARRAY_CTYPES.get(ndim)
    if ct is None:
        ct = type(f"array{ndim}d_desc", (ctypes.Structure,), {"_fields_": [
            ("data", ctypes.c_uint64), ("grad", ctypes.c_uint64),
            ("shape", ctypes.c_int64 * ndim), ("strides", ctypes.c_int64 * ndim)]})
        _ARRAY_CTYPES[ndim] = ct
    return ct


def indexed_array_ctype(ndim: int):
    """The ctypes layout of a kernel-side indexed array: the array descriptor, index pointers, shape."""
    key = ("indexed", ndim)
    ct = _ARRAY_CTYPES.get(key)
    if ct is None:
        ct = type(f"indexedarray{ndim}d_desc", (ctypes.Structure,), {"_fields_": [
            ("arr", array_ctype(ndim)), ("indices", ctypes.c_uint64 * ndim), ("shape", ctypes.c_int64 * ndim)]})
        _ARRAY_CTYPES[key] = ct
    return ct


def field_ctype(t):
    if isinstance(t, ArrayType):
        if t.kind in ("fabricarray", "indexedfabricarray"):
            return fabric_array_ctype(t.ndim, t.kind == "indexedfabricarray")
        return indexed_array_ctype(t.ndim) if t.kind == "indexedarray" else array_ctype(t.ndim)
    if isinstance(t, StructType):
        return t.ctype
    if T.is_scalar_type(t):
        return t._type_
    if T.kind_of(t) == "matrix":
        # plain nested arrays of the same layout: numpy reads a field's _length_, and a matrix class
        # says Warp's (the number of scalars, not rows); StructInstance views the bytes as `t`
        return (t._type_ * t._shape_[1]) * t._shape_[0]
    if T.is_composite_type(t):
        return t
    if hasattr(t, "descriptor"):  # a resource held by value (wp.Texture2D): its descriptor
        return t.ctype
    if getattr(t, "_wp_native_", None) is not None:  # a native value type: its ctypes class is its layout
        return t
    raise TypeError(f"{T.type_name(t)} cannot be a struct field; use scalars, vectors, matrices, "
                    "quaternions, transforms, wp.array or another @wp.struct")


class StructType:
    """What `@wp.struct` returns: call it to make an instance; use it as a type annotation or
    as an array dtype."""

    _wp_struct_ = True

    def __init__(self, cls):
        self.cls = cls
        self.key = f"{cls.__module__}.{cls.__qualname__}"
        self.__name__ = cls.__name__
        self.__qualname__ = cls.__qualname__
        self.__module__ = cls.__module__
        self.__doc__ = cls.__doc__
        annotations = cls.__dict__.get("__annotations__", {})
        self.fields = {name: self._field_type(name, t) for name, t in annotations.items()}
        # an empty struct has one byte in C++, so it has one here too (emit writes the same `_empty`)
        self.ctype = type(cls.__name__, (ctypes.Structure,), {
            "_fields_": [(name, field_ctype(t)) for name, t in self.fields.items()] or [("_empty", ctypes.c_uint8)]})
        self.instance_class = _instance_class(cls, self.fields)

    @property
    def vars(self) -> dict:
        """Warp's Struct.vars: each field by name, as an object with its `label` (the name) and `type`."""
        from types import SimpleNamespace
        return {name: SimpleNamespace(label=name, type=t) for name, t in self.fields.items()}

    def _field_type(self, name, t):
        if isinstance(t, str):
            import sys
            t = eval(t, vars(sys.modules[self.cls.__module__]))  # postponed annotations
        t = canonical_scalar(t)
        try:
            field_ctype(t)  # validates
        except TypeError as e:
            raise TypeError(f"field `{name}` of struct `{self.__qualname__}`: {e}{_field_place(self.cls, name)}") from None
        return t

    def __call__(self, *args, **values):
        """An instance; fields by position (declaration order) or by name, the rest zero."""
        if len(args) > len(self.fields):
            raise TypeError(f"{self.__name__}() takes at most {len(self.fields)} positional arguments "
                            f"(its fields {', '.join(self.fields)}), got {len(args)}")
        inst = self.instance_class(self)
        for name, value in list(zip(self.fields, args)) + list(values.items()):
            setattr(inst, name, value)
        return inst

    def type_name(self) -> str:
        return self.__name__

    def __mro_entries__(self, bases):
        """`class Child(Parent)` with Parent a struct: the class derives from Parent's class, and
        `@wp.struct` then refuses it, as Warp does."""
        return (self.cls,)

    def __repr__(self):
        return f"<wp.struct {self.__qualname__}>"

    def numpy_dtype(self) -> dict:
        """The record layout as Warp gives it: a dict of names, formats, offsets and itemsize, which
        np.dtype() accepts."""
        # (the layout `a.numpy()` of a struct array has, which Warp's tests compare it with: float16
        # fields as their bits, '<u2', where Warp's own text says '<f2')
        dt = np.dtype(self.ctype)
        return {"names": list(dt.names), "formats": [dt.fields[n][0] for n in dt.names],
                "offsets": [dt.fields[n][1] for n in dt.names], "itemsize": dt.itemsize}

    def numpy_value(self, inst) -> np.void:
        """An instance as one record of this struct's numpy dtype."""
        if not isinstance(inst, StructInstance) or inst._struct is not self:
            raise TypeError(f"expected an instance of {self.__name__}, got {type(inst).__name__}")
        return np.frombuffer(inst.to_bytes(), dtype=np.dtype(self.ctype))[0]

    def from_numpy_record(self, record) -> StructInstance:
        """One element read back from an array of this struct (array.list()); its array fields are
        Warp's data-less arrays of the field's type (see StructInstance._detach_arrays)."""
        inst = self.instance_class(self)
        inst._load(np.asarray(record).tobytes())
        inst._detach_arrays()
        return inst


class StructInstance:
    """One value of a struct type. Fields read and write like attributes; array fields keep a
    reference to the wp.array so its memory stays alive."""

    __slots__ = ("_struct", "_ctype", "_arrays", "_values")

    def __init__(self, struct: StructType):
        object.__setattr__(self, "_struct", struct)
        object.__setattr__(self, "_ctype", struct.ctype())
        object.__setattr__(self, "_arrays", {})
        # scalar fields last set from a Python or numpy number: that number, which reads give back as Warp's do
        object.__setattr__(self, "_values", {})
        for name, t in struct.fields.items():
            if isinstance(t, StructType):
                self._arrays[name] = t()  # nested instance owns its own fields

    def numpy_value(self):
        """This value as one record of its struct's numpy_dtype(): what Warp's tests fill a struct
        array's numpy() expectation with (Warp gives a tuple of the fields' Python values, whose
        float16 fields its f2 layout reads; warp_nb's layout keeps their bits)."""
        return self._struct.numpy_value(self)

    def assign(self, other: StructInstance) -> None:
        """Every field set from `other`, an instance of the same struct (Warp's Struct.assign)."""
        if not isinstance(other, StructInstance) or other._struct is not self._struct:
            raise TypeError(f"expected an instance of {self._struct.__name__}, got {type(other).__name__}")
        for name in self._struct.fields:
            setattr(self, name, getattr(other, name))

    def __copy__(self) -> StructInstance:
        """A shallow copy, as Warp's: it shares this value's storage (a field set on either is seen in
        both), while the numbers last assigned to scalar fields, which reads return, are its own."""
        out = object.__new__(type(self))
        for slot, value in (("_struct", self._struct), ("_ctype", self._ctype), ("_arrays", dict(self._arrays)),
                            ("_values", dict(self._values))):
            object.__setattr__(out, slot, value)
        return out

    def __deepcopy__(self, memo) -> StructInstance:
        """An independent copy: its own storage, nested structs copied too; array fields keep their arrays."""
        import copy
        out = self._struct.instance_class(self._struct)
        ctypes.memmove(ctypes.addressof(out._ctype), ctypes.addressof(self._ctype), ctypes.sizeof(self._struct.ctype))
        out._values.update(copy.deepcopy(self._values, memo))
        for name, t in self._struct.fields.items():
            value = self._arrays.get(name)
            out._arrays[name] = copy.deepcopy(value, memo) if isinstance(t, StructType) else value
        return out

    def __getattr__(self, name):
        if name.startswith("_"):  # a slot not yet set (copy and pickle make instances without __init__)
            raise AttributeError(name)
        struct = self._struct
        t = struct.fields.get(name)
        if t is None:
            raise AttributeError(f"struct {struct.__name__} has no field {name!r}")
        return self._field(name, t)

    def _field(self, name, t):
        if isinstance(t, ArrayType):
            return self._arrays.get(name)
        if isinstance(t, StructType) or hasattr(t, "descriptor"):
            # the nested instance is the source of truth (see to_bytes); a texture field, the texture
            return self._arrays.get(name)
        if T.kind_of(t) == "matrix":  # a view of the field's bytes (see field_ctype)
            return t.from_buffer(self._ctype, getattr(type(self._ctype), name).offset)
        if T.is_scalar_type(t):
            # as Warp: the number last assigned (a Python or numpy one, as given), else a Warp scalar
            if name in self._values:
                # (a bool field reads a bool: `wp.static(s).flag` then types as the field, where an
                # int read back would be an int literal a kernel cannot store in a bool; Warp: the int)
                return bool(self._values[name]) if t is T.bool else self._values[name]
            value = _stored_scalar(self, name, t)
            # zero as Warp's default shows it (float32(0)), any other value as stored
            return t(0 if value == 0 and str(value)[0] != "-" else value)
        return getattr(self._ctype, name)  # a vector's view of this struct's memory: `s.v[0] = 1.0` writes the field

    def __setattr__(self, name, value):
        struct = self._struct
        t = struct.fields.get(name)
        if t is None:
            raise AttributeError(f"struct {struct.__name__} has no field {name!r}")
        if isinstance(t, ArrayType):
            family = _check_array_field(struct, name, t, value)
            ctype = field_ctype(t)
            if family is not None and type(value) is not family:  # an application's subclass: its own descriptor
                try:
                    raw = subclass_descriptor(value, family)
                except TypeError as e:
                    raise TypeError(f"Struct field '{name}': {e}") from None
                if len(raw) != ctypes.sizeof(ctype):
                    raise TypeError(f"Struct field '{name}': the descriptor of {type(value).__name__} has "
                                    f"{len(raw)} bytes, the field {ctypes.sizeof(ctype)}")
                setattr(self._ctype, name, ctype.from_buffer_copy(raw))
                self._arrays[name] = value
                return
            self._arrays[name] = value
            if value is None:
                desc = ctype()
            elif t.kind == "fabricarray":
                desc = ctype(value._desc[0], value._desc[1], value._desc[2:])
            elif t.kind == "indexedfabricarray":
                n = 2 + value.ndim
                fa = value._desc[:n]
                desc = ctype(fabric_array_ctype(t.ndim)(fa[0], fa[1], fa[2:]), value._desc[n], value._desc[n + 1:])
            elif t.kind == "indexedarray":
                d = value.data
                desc = ctype(array_ctype(t.ndim)(*(d._desc[:2]), d.shape, d.strides), value._desc[2 + 2 * t.ndim:
                             3 * t.ndim + 2], value.shape)
            else:
                desc = ctype(*(value._desc[:2]), value.shape, value.strides)
            setattr(self._ctype, name, desc)
        elif isinstance(t, StructType):
            if not isinstance(value, StructInstance) or value._struct is not t:
                from ..errors import ArgumentTypeError  # a TypeError, and the RuntimeError Warp raises
                raise ArgumentTypeError(f"field {name!r} of {struct.__name__} expects a {t.__name__} instance, "
                                        f"got {type(value).__name__}")
            import copy
            value = copy.deepcopy(value)  # a copy, as Warp's: changing `value` later leaves this field alone
            self._arrays[name] = value
            setattr(self._ctype, name, value._ctype)
        elif hasattr(t, "descriptor"):  # the object stays referenced: the descriptor points into its storage
            setattr(self._ctype, name, t.descriptor(value, f"field {name!r} of {struct.__name__}"))
            self._arrays[name] = value
        elif T.is_scalar_type(t):
            _check_scalar(t, value)
            v = 0 if value is None else getattr(value, "value", value)  # None: zero, as Warp
            setattr(self._ctype, name, _scalar_storage(t, v))
            if value is None or isinstance(value, T.Scalar):
                self._values.pop(name, None)
            else:
                self._values[name] = value
        elif T.kind_of(t) == "matrix":
            value = _composite_value(struct, name, t, value)
            ctypes.memmove(ctypes.addressof(self._ctype) + getattr(type(self._ctype), name).offset,
                           ctypes.addressof(value), ctypes.sizeof(t))
        else:
            setattr(self._ctype, name, _composite_value(struct, name, t, value))

    def __repr__(self):
        """Warp's form: the struct's name, then one field a line, tab-indented (`S()` for no fields)."""
        parts = "".join(f"\n\t{n}={getattr(self, n)!r}," for n in self._struct.fields)
        return f"{self._struct.__name__}({parts}\n)" if parts else f"{self._struct.__name__}()"

    def __ctype__(self):
        """The C layout of this value as a ctypes object (Warp's name), which a recorded launch takes
        back with set_param_at_index_from_ctype."""
        raw = self.to_bytes()
        value = (ctypes.c_char * len(raw)).from_buffer_copy(raw)
        value._wp_value = self
        return value

    def to_bytes(self) -> bytes:
        """The C layout of this value; nested struct instances are written through first."""
        for name, t in self._struct.fields.items():
            if isinstance(t, StructType):
                nested = self._arrays[name]
                ctypes.memmove(ctypes.addressof(getattr(self._ctype, name)), nested.to_bytes(), ctypes.sizeof(t.ctype))
        return bytes(self._ctype)

    def _load(self, raw: bytes) -> None:
        """Set every field from C-layout bytes (array fields become raw descriptors; a Fabric field, as
        in Warp, an object of its type over no storage)."""
        ctypes.memmove(ctypes.addressof(self._ctype), raw, ctypes.sizeof(self._struct.ctype))
        self._values.clear()  # every field now reads what the bytes hold
        for name, t in self._struct.fields.items():
            if isinstance(t, StructType):
                self._arrays[name]._load(bytes(getattr(self._ctype, name)))
            elif isinstance(t, ArrayType) and t.kind in DESCRIPTOR_STUBS:
                self._arrays[name] = DESCRIPTOR_STUBS[t.kind](t)

    def _detach_arrays(self) -> None:
        """Array fields of a value read back from memory, as Warp gives them: a data-less array of the
        field's type (its annotation: dtype and ndim, no memory), the descriptor zeroed, since a copy
        read from memory does not keep the arrays it pointed at alive (a kernel must not read them)."""
        for name, t in self._struct.fields.items():
            if isinstance(t, StructType):
                self._arrays[name]._detach_arrays()
            elif isinstance(t, ArrayType) and t.kind not in DESCRIPTOR_STUBS:
                ctypes.memset(ctypes.addressof(getattr(self._ctype, name)), 0, ctypes.sizeof(field_ctype(t)))
                self._arrays[name] = t

    def to(self, device) -> StructInstance:
        """This value with its array fields on `device` (Warp's Struct.to): arrays already there are
        kept, others copied; a Fabric array cannot move (its buckets belong to Fabric)."""
        out = self._struct.instance_class(self._struct)
        out._load(self.to_bytes())
        out._values.update(self._values)
        for name, t in self._struct.fields.items():
            value = self._arrays.get(name)
            if isinstance(t, StructType):
                value = value.to(device)
            # (a Device compares equal to its name, so `device` may be either; a stub is on none)
            elif isinstance(t, ArrayType) and getattr(value, "device", None) not in (None, device):
                if t.kind in ("fabricarray", "indexedfabricarray"):
                    raise ValueError(f"Cannot move struct field '{name}' containing {_FIELD_WHAT[t.kind]} to "
                                     f"{getattr(device, 'alias', device)}; Fabric arrays stay on their device")
                value = value.to(device)
            if isinstance(t, (ArrayType, StructType)):
                setattr(out, name, value)
        return out


def _instance_class(cls, fields: dict) -> type:
    """The class of a struct's instances: StructInstance and the user's class (so that
    isinstance(s, Foo.cls) holds, as in Warp), with a property per field so that a class
    attribute of the same name (a default value) does not hide the instance's value."""
    namespace = {"__slots__": (), "__module__": cls.__module__, "__qualname__": cls.__qualname__}
    for name in fields:
        namespace[name] = property(lambda self, _n=name: StructInstance._field(self, _n, self._struct.fields[_n]))
    try:
        return type(cls.__name__, (StructInstance, cls), namespace)
    except TypeError:  # a user class that cannot be combined (its own __slots__, a metaclass)
        return type(cls.__name__, (StructInstance,), namespace)


def _check_array_field(struct: StructType, name: str, t: ArrayType, value):
    """Warp's checks (and messages) for a value assigned to an array field (None clears it); returns
    the value's native family (an application's subclass of wp.array is a wp.array)."""
    if value is None:
        return None
    what = _FIELD_WHAT.get(t.kind, "a Warp array")
    try:
        family = native_family(value)  # through an application's subclasses
    except TypeError as e:
        raise TypeError(f"Struct field '{name}': {e}") from None
    if family is None or family.__name__ != t.kind:
        raise TypeError(f"Struct field '{name}' expects {what}, got {type(value).__name__} "
                        f"(field of {struct.__name__}; pass a wp.{t.kind} of {T.type_name(t.dtype)})")
    if value.dtype is not t.dtype:
        raise TypeError(f"Struct field '{name}' expects dtype {T.type_name(t.dtype)}, got {T.type_name(value.dtype)}")
    if t.ndim is not Any and value.ndim != t.ndim:
        raise TypeError(f"Struct field '{name}' expects an array with {t.ndim} dimension(s), got {value.ndim} "
                        "dimension(s)")
    return family


_FIELD_WHAT = {"indexedarray": "a Warp indexed array", "fabricarray": "a Warp Fabric array",
               "indexedfabricarray": "a Warp indexed Fabric array"}


def _composite_value(struct: StructType, name: str, t, value):
    """What a vector / matrix / quaternion / transform field stores for `value`: the value itself, a
    conversion of a sequence or numpy array, zeros for None. A plain or Warp number is refused (as
    Warp: filling every component was a silent trap); a numpy number or a bool still fills every
    component, with Warp's deprecation warning."""
    if isinstance(value, t):
        return value
    if value is None:
        return t()
    is_bool = isinstance(value, (bool, np.bool_)) or type(value).__name__ == "bool"
    if is_bool or isinstance(value, np.number):
        warnings.warn(f"Assigning a value of type `{type(value).__name__}` to the `{T.type_name(t)}` struct field "
                      f"'{name}' of {struct.__name__} fills every component; this is deprecated, assign a "
                      f"{T.type_name(t)} instead", DeprecationWarning, stacklevel=3)
        return t._from_numpy(np.full(t._shape_, float(getattr(value, "value", value))))
    if isinstance(value, (int, float)) or T.is_scalar_type(type(value)):
        raise TypeError(f"Struct field '{name}' expects {T.type_name(t)} but got a single value "
                        f"({value!r}); assign a {T.type_name(t)}, e.g. {T.type_name(t)}(...)")
    return t(value)


def _field_place(cls, name: str) -> str:
    """' (file, line N)' of the line that declares field `name` of `cls`, or '' when the source is not readable."""
    import inspect
    try:
        lines, first = inspect.getsourcelines(cls)
        file = inspect.getsourcefile(cls)
    except (OSError, TypeError):
        return ""
    for k, line in enumerate(lines):
        if line.strip().startswith(f"{name}:"):
            from ..errors import source_label
            return f" ({source_label(file)}, line {first + k})"
    return ""


#: Called as listener(module, qualname, struct_type) for every @wp.struct made: the program layer counts
#: redefinitions this way (program/redefinition.py), so the types know nothing of kernels.
definition_listeners: list = []


def struct(cls) -> StructType:
    """Decorator: turn an annotated class into a struct type usable in kernels."""
    parents = [b.__qualname__ for b in cls.__mro__[1:] if b in _STRUCT_CLASSES]
    if parents:
        raise RuntimeError(f"struct {cls.__qualname__} derives from the struct {parents[0]}; declare all its fields "
                           "in one class: Warp structs must be defined as base classes")
    refuse_instance_annotations(cls.__dict__.get("__annotations__", {}), f"struct {cls.__qualname__}")
    st = StructType(cls)
    for listener in definition_listeners:
        listener(cls.__module__, cls.__qualname__, st)
    _STRUCT_CLASSES.add(cls)
    return st


_STRUCT_CLASSES: weakref.WeakSet = weakref.WeakSet()  # the classes @wp.struct has turned into structs


def _check_scalar(t, value) -> None:
    """A value for a scalar field checked as Warp checks it: a number (Python, numpy or Warp) or None;
    for an integer field an integer (a float is refused, not truncated)."""
    if value is None or isinstance(value, (int, np.integer, np.bool_)):
        return
    is_int = t._kind in ("int", "uint")
    if isinstance(value, (float, np.floating)) or isinstance(value, T.Scalar) and value._kind == "float":
        if not is_int:
            return
    elif isinstance(value, T.Scalar):
        return
    elif not is_int:
        raise TypeError(f"must be real number, not {type(value).__name__}")
    name = type(value).__name__
    raise TypeError(f"'{'numpy.' + name if isinstance(value, np.generic) else name}' object cannot be interpreted "
                    "as an integer")


def _stored_scalar(inst, name: str, t):
    """A scalar field's value as its storage holds it (16-bit floats decoded)."""
    value = getattr(inst._ctype, name)
    if t is T.float16:
        return T.scalars.half_bits_to_float(value)
    if t is T.bfloat16:
        return T.scalars.bfloat16_bits_to_float(value)
    return value


def _scalar_storage(t, value):
    """What a struct's ctypes field of scalar type `t` stores for `value` (the bits of 16-bit floats)."""
    if t is T.float16:
        with np.errstate(all="ignore"):  # past float16's range is inf, without numpy's warning
            return T.scalars.float_to_half_bits(value)
    if t is T.bfloat16:
        return T.scalars.float_to_bfloat16_bits(value)
    return t._convert(value)
