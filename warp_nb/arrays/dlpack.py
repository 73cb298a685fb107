"""Zero-copy exchange with other array libraries through DLPack (numpy, torch, jax, cupy),
both ways, on the CPU and on CUDA devices: `a.__dlpack__()` / `wp.to_dlpack(a)` and
`wp.from_dlpack(x)`. The DLPack structs are declared here with ctypes; capsules follow the
protocol (named "dltensor", renamed "used_dltensor" by the consumer, which then owns the
deleter). The torch and JAX conveniences built on this live in warp_nb/interop/."""

from __future__ import annotations

import ctypes
import weakref

import numpy as np

from .. import types as T
from .array import array
from ..runtime.devices import get_device

_CPU, _CUDA, _CUDA_HOST = 1, 2, 3
_INT, _UINT, _FLOAT, _BFLOAT, _BOOL = 0, 1, 2, 4, 6


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    """DLPack 1.x: adds a version and flags (bit 0: read-only); capsule name "dltensor_versioned"."""


_DeleterV = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                                     ("deleter", _DeleterV), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]

_api = ctypes.pythonapi
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

_exported: dict = {}  # address of a DLManagedTensor -> what keeps it (and the array) alive


@_Deleter
def _release(managed) -> None:
    _exported.pop(ctypes.addressof(managed.contents), None)


@_DeleterV
def _release_versioned(managed) -> None:
    _exported.pop(ctypes.addressof(managed.contents), None)


# raw-pointer versions for the capsule destructor, which runs while the capsule is being freed
# (turning it into a Python object there would resurrect it)
_is_valid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", _api))
_get_pointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))


@ctypes.PYFUNCTYPE(None, ctypes.c_void_p)
def _capsule_destructor(capsule) -> None:
    # an unconsumed capsule still owns its tensor: release it
    for name in (b"dltensor", b"dltensor_versioned"):
        if _is_valid_raw(capsule, name):
            _exported.pop(_get_pointer_raw(capsule, name), None)


def _dl_dtype(scalar) -> DLDataType:
    code = _BFLOAT if scalar is T.bfloat16 else {"float": _FLOAT, "int": _INT, "uint": _UINT, "bool": _BOOL}[scalar._kind]
    return DLDataType(code, 8 * T.type_size_in_bytes(scalar), 1)


def to_dlpack(a: array, versioned: bool = False):
    """A DLPack capsule viewing `a` (vectors and matrices add trailing dimensions); `versioned`
    gives a DLPack 1.0 capsule (writable, which numpy only grants to versioned capsules)."""
    scalar = T.scalar_type_of(a.dtype)
    if scalar is None:
        raise TypeError(f"arrays of {T.type_name(a.dtype)} cannot be exported through DLPack")
    inner = T.numpy_inner_shape(a.dtype)
    itemsize = T.type_size_in_bytes(scalar)
    shape = a.shape + inner
    inner_strides = tuple(int(x) for x in np.cumprod((1,) + inner[::-1])[-2::-1]) if inner else ()
    strides = tuple(s // itemsize for s in a.strides) + inner_strides
    shape_c = (ctypes.c_int64 * len(shape))(*shape)
    strides_c = (ctypes.c_int64 * len(shape))(*strides)
    device = DLDevice(_CUDA, a.device.ordinal) if a.device.is_cuda else DLDevice(_CPU, 0)
    tensor = DLTensor(a.ptr or None, device, len(shape), _dl_dtype(scalar), shape_c, strides_c, 0)
    if versioned:
        managed = DLManagedTensorVersioned(DLPackVersion(1, 0), None, _release_versioned, 0, tensor)
        name = b"dltensor_versioned"
    else:
        managed = DLManagedTensor(tensor, None, _release)
        name = b"dltensor"
    address = ctypes.addressof(managed)
    _exported[address] = (managed, shape_c, strides_c, a)
    return _api.PyCapsule_New(address, name, ctypes.cast(_capsule_destructor, ctypes.c_void_p))


def dlpack_device(a: array) -> tuple[int, int]:
    return (_CUDA, a.device.ordinal) if a.device.is_cuda else (_CPU, 0)


class _Import:
    """Keeps an imported tensor alive and calls its producer's deleter when the array goes."""

    def __init__(self, capsule, managed):
        self.capsule = capsule
        if managed.deleter:
            weakref.finalize(self, managed.deleter, ctypes.pointer(managed))


def from_dlpack(source, dtype=None, device=None) -> array:
    """A wp.array viewing the memory of any object that supports DLPack (or a capsule), without
    a copy. `dtype` may name a vector/matrix type whose shape matches the trailing dimensions, or a
    scalar type of the same size and family (int64 as uint64, bool as int8 or uint8)."""
    if hasattr(source, "__dlpack__"):
        kind, ordinal = source.__dlpack_device__() if hasattr(source, "__dlpack_device__") else (_CPU, 0)
        if int(kind) not in (_CPU, _CUDA, _CUDA_HOST):  # ask before exporting: the producer may not be able to
            raise TypeError(f"Unsupported source device for DLPack: device_type={kind}, device_id={ordinal} "
                            "(warp_nb takes CPU and CUDA memory; copy the tensor to one of them first)")
        kwargs = {"stream": get_device(f"cuda:{int(ordinal)}").stream.cuda_stream} if int(kind) == _CUDA else {}
        try:
            capsule = source.__dlpack__(max_version=(1, 0), **kwargs)
        except TypeError:  # a producer that predates DLPack 1.0
            capsule = source.__dlpack__(**kwargs)
    else:
        capsule = source
    if _is_capsule(capsule, b"dltensor_versioned"):
        managed = DLManagedTensorVersioned.from_address(_api.PyCapsule_GetPointer(capsule, b"dltensor_versioned"))
        _api.PyCapsule_SetName(capsule, b"used_dltensor_versioned")  # we own it now
    elif _is_capsule(capsule, b"dltensor"):
        managed = DLManagedTensor.from_address(_api.PyCapsule_GetPointer(capsule, b"dltensor"))
        _api.PyCapsule_SetName(capsule, b"used_dltensor")
    else:
        raise TypeError(f"Expected a valid DLPack capsule, got {type(capsule).__name__}: from_dlpack takes an "
                        "object with __dlpack__ or an unconsumed DLPack capsule")
    tensor = managed.dl_tensor
    scalar = _scalar_from_dl(tensor.dtype)
    shape = tuple(tensor.shape[k] for k in range(tensor.ndim))
    itemsize = T.type_size_in_bytes(scalar)
    if tensor.strides:
        strides = tuple(tensor.strides[k] * itemsize for k in range(tensor.ndim))
    else:  # NULL strides mean compact row-major
        strides = tuple(int(x) * itemsize for x in np.cumprod((1,) + shape[::-1])[-2::-1]) if shape else ()
    if tensor.device.device_type == _CUDA:
        dev = get_device(f"cuda:{tensor.device.device_id}")
    elif tensor.device.device_type in (_CPU, _CUDA_HOST):
        dev = get_device("cpu")
    else:
        raise TypeError(f"Unsupported source device for DLPack: device_type={tensor.device.device_type}, "
                        f"device_id={tensor.device.device_id}")
    element, shape, strides = view_elements(scalar, shape, strides, dtype, source_name="DLPack")
    keep = _Import(capsule, managed)
    return array(ptr=(tensor.data or 0) + tensor.byte_offset, dtype=element, shape=shape, strides=strides,
                 device=device or dev, owner=keep)


def view_elements(scalar, shape: tuple, strides: tuple, dtype, source_name: str):
    """The element type, shape and strides (bytes) of a warp_nb view of a foreign tensor of `scalar`s:
    `dtype` None keeps the scalar; a vector or matrix type takes the trailing dimensions; a scalar
    type of the same size and family reinterprets the bits. Shared by DLPack and the torch bridge."""
    element = T.canonical_scalar(dtype) if dtype is not None else scalar
    wanted = T.scalar_type_of(element)
    if wanted is not scalar and not _same_bits(wanted, scalar):
        raise RuntimeError(f"Incompatible data types: {source_name} {dl_type_name(scalar)} and Warp "
                           f"{T.type_name(wanted)}; pass dtype=None (or a type built on {T.type_name(scalar)}), "
                           "or convert the tensor first")
    inner = T.numpy_inner_shape(element)
    if inner:
        if shape[len(shape) - len(inner):] != inner:
            raise TypeError(f"a tensor of shape {shape} and {T.type_name(scalar)} cannot be viewed as "
                            f"{T.type_name(element)} elements: its last dimensions must be {inner}")
        tail = zip(inner, strides[len(strides) - len(inner):], _compact(inner, T.type_size_in_bytes(scalar)))
        if any(n > 1 and got != want for n, got, want in tail):
            raise TypeError(f"a tensor of shape {shape} cannot be viewed as {T.type_name(element)} elements: its last "
                            f"dimensions are not contiguous (strides {strides}); make them so (.contiguous())")
        shape, strides = shape[: len(shape) - len(inner)], strides[: len(strides) - len(inner)]
    if not shape:
        shape, strides = (1,), (T.type_size_in_bytes(element),)
    return element, shape, strides


def _compact(shape: tuple, itemsize: int) -> tuple:
    return tuple(int(x) * itemsize for x in np.cumprod((1,) + shape[::-1])[-2::-1])


def _same_bits(a, b) -> bool:
    """Reinterpretation allowed between integers (and bool) of one size, as Warp allows it."""
    return (T.type_size_in_bytes(a) == T.type_size_in_bytes(b) and a._kind in ("int", "uint", "bool")
            and b._kind in ("int", "uint", "bool"))


def dl_type_name(scalar) -> str:
    """DLPack's spelling of a scalar type (bool is 'bool8', as in Warp's messages)."""
    return "bool8" if scalar is T.bool else T.type_name(scalar)


def _is_capsule(obj, name: bytes) -> bool:
    return type(obj).__name__ == "PyCapsule" and bool(_api.PyCapsule_IsValid(obj, name))


def _scalar_from_dl(dt: DLDataType):
    if dt.lanes != 1:
        raise TypeError("DLPack tensors with vector lanes are not supported")
    table = {(_BFLOAT, 16): T.bfloat16, (_FLOAT, 16): T.float16, (_FLOAT, 32): T.float32, (_FLOAT, 64): T.float64,
             (_BOOL, 8): T.bool,
             (_INT, 8): T.int8, (_INT, 16): T.int16, (_INT, 32): T.int32, (_INT, 64): T.int64,
             (_UINT, 8): T.uint8, (_UINT, 16): T.uint16, (_UINT, 32): T.uint32, (_UINT, 64): T.uint64}
    scalar = table.get((dt.code, dt.bits))
    if scalar is None:
        raise TypeError(f"DLPack dtype (code {dt.code}, {dt.bits} bits) has no warp_nb equivalent")
    return scalar
