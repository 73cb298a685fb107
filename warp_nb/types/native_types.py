"""Value types defined in C++ outside warp_nb (`wp.build_experimental.add_native_type`): a
ctypes.Structure describes the host layout of a C++ type named by its qualified name, with
optionally the data members kernels may read (`fields`, name -> Warp type) and whether kernels may
build it from all of them (`initializer="aggregate"`). The record (`NativeInfo`) is kept on the
ctypes class (`_wp_native_`); two classes with the same record describe the same C++ type (a
reloaded module registers new classes). Knows ctypes layouts; knows nothing about C++ text or kernels."""

from __future__ import annotations

import ctypes
import re
from collections.abc import Mapping
from dataclasses import dataclass

from .scalars import canonical_scalar, is_scalar_type

_CPP_NAME = re.compile(r"(::)?[A-Za-z_]\w*(::[A-Za-z_]\w*)*")
INITIALIZERS = (None, "aggregate")

#: qualified C++ name -> the identity registered under it
_REGISTERED: dict[str, tuple] = {}


@dataclass(frozen=True)
class NativeInfo:
    """A registered native (C++) type: its name, fields and initializer."""

    native_name: str
    fields: tuple  # ((name, Warp type), ...)
    initializer: str | None
    identity: tuple  # what makes two registrations the same C++ type (names, sizes, offsets, field types)

    @property
    def field_types(self) -> dict:
        return dict(self.fields)


def native_info(t) -> NativeInfo | None:
    """The registration of a native value type, None for every other type."""
    return getattr(t, "_wp_native_", None) if isinstance(t, type) else None


def _field_identity(t):
    info = native_info(t)
    return info.identity if info is not None else getattr(t, "__name__", repr(t))


def _storage_matches(wp_type, ctype) -> bool:
    """Whether a Warp field type has the storage of the ctypes field that holds it."""
    if is_scalar_type(wp_type):
        return ctypes.sizeof(wp_type._type_) == ctypes.sizeof(ctype) and (
            wp_type._type_ is ctype or getattr(wp_type._type_, "_type_", 0) == getattr(ctype, "_type_", 1))
    info = native_info(wp_type)
    if info is not None:
        return native_info(ctype) is not None and native_info(ctype).identity == info.identity
    return getattr(wp_type, "_type_", None) is not None and ctypes.sizeof(wp_type) == ctypes.sizeof(ctype)


def add_native_type(ctype, *, native_name: str, fields=None, initializer=None):
    """Register `ctype` as the host layout of C++ type `native_name` (see the module docstring); returns ctype."""
    if not (isinstance(ctype, type) and issubclass(ctype, ctypes.Structure)):
        raise TypeError(f"add_native_type: ctype must be a ctypes.Structure subclass, got {ctype!r}")
    if not isinstance(native_name, str) or not _CPP_NAME.fullmatch(native_name):
        raise ValueError(f"add_native_type({ctype.__name__}): native_name {native_name!r} is not a qualified C++ "
                         "identifier (such as my_ns::MyType)")
    if initializer not in INITIALIZERS:
        raise ValueError(f"add_native_type({ctype.__name__}): initializer must be None or 'aggregate', "
                         f"got {initializer!r}")
    if fields is not None and not isinstance(fields, Mapping):
        raise TypeError(f"add_native_type({ctype.__name__}): fields must be a mapping of field names to Warp types")
    fields = {name: canonical_scalar(t) for name, t in (fields or {}).items()}
    declared = {name: (ct, getattr(ctype, name)) for name, ct, *_ in ctype._fields_}
    for name, t in fields.items():
        if name not in declared:
            raise ValueError(f"add_native_type({ctype.__name__}): field {name!r} is not a ctypes field of "
                             f"{ctype.__name__} (its fields: {', '.join(declared)})")
        if not (is_scalar_type(t) or native_info(t) is not None):
            raise TypeError(f"add_native_type({ctype.__name__}): field {name!r} has type {t!r}; a field is a Warp "
                            "scalar type or another native type")
        if not _storage_matches(t, declared[name][0]):
            raise ValueError(f"add_native_type({ctype.__name__}): field {name!r} is declared "
                             f"{getattr(t, '__name__', t)} but its ctypes storage is {declared[name][0].__name__}")
    if initializer == "aggregate":
        if not fields:
            raise ValueError(f"add_native_type({ctype.__name__}): initializer='aggregate' requires exposed fields")
        if list(fields) != list(declared):
            raise ValueError(f"add_native_type({ctype.__name__}): initializer='aggregate' requires fields to list "
                             f"every ctypes field in declaration order ({', '.join(declared)})")
    layout = tuple((name, ctypes.sizeof(ct), d.offset, _field_identity(ct) if native_info(ct) else getattr(ct, "_type_", ct.__name__))
                   for name, (ct, d) in declared.items())
    identity = (native_name, ctypes.sizeof(ctype), ctypes.alignment(ctype), layout,
                tuple((n, _field_identity(t)) for n, t in fields.items()), initializer)
    known = _REGISTERED.get(native_name)
    if known is not None and known != identity:
        raise RuntimeError(f"add_native_type({ctype.__name__}): {native_name} is already registered with a different "
                           "definition (layout, fields or initializer)")
    _REGISTERED[native_name] = identity
    ctype._wp_native_ = NativeInfo(native_name, tuple(fields.items()), initializer, identity)
    return ctype


# --- arrays of native values (arrays/layout.py, arrays/array.py) ------------------------------------


def native_numpy_dtype(t) -> "np.dtype":
    """The numpy dtype of one element: the ctypes layout for a type with fields (nested types
    nest), raw bytes (`V<size>`) for an opaque one, as Warp gives them."""
    import numpy as np
    if not native_info(t).fields:
        return np.dtype(f"V{ctypes.sizeof(t)}")
    return np.dtype(t)


def native_values_to_numpy(t, src) -> "np.ndarray":
    """The data of an array of native type `t`: a numpy array in its layout, or a sequence of instances."""
    import numpy as np
    np_dtype = native_numpy_dtype(t)
    if isinstance(src, np.ndarray):
        if src.dtype != np_dtype:
            raise RuntimeError(f"Invalid source data type for native array of {t.__name__}, expected {np_dtype}, "
                               f"got {src.dtype}")
        return src
    info = native_info(t)
    items = list(src)
    for v in items:
        if native_info(type(v)) is None or native_info(type(v)).identity != info.identity:
            raise RuntimeError(f"Error while trying to construct an array of {t.__name__} values: expected "
                               f"{t.__name__} instances, got {type(v).__name__}")
    return np.frombuffer(b"".join(bytes(v) for v in items), dtype=np_dtype).copy()


def native_values_from_numpy(t, records) -> list:
    """The elements of an array of native type `t` as instances of its ctypes class."""
    return [t.from_buffer_copy(r.tobytes()) for r in records]
