"""Zero-copy exchange with other array libraries through DLPack (numpy, torch, jax, cupy),
both ways, on the CPU and on CUDA devices: `a.__dlpack__()` / `wp.from_dlpack(x)`, and the
conveniences `wp.from_torch`, `wp.to_torch`, `wp.from_jax`, `wp.to_jax`. The DLPack structs are
declared here with ctypes; capsules follow the protocol (named "dltensor", renamed
"used_dltensor" by the consumer, which then owns the deleter)."""

from __future__ import annotations

import ctypes
import weakref

import numpy as np

from .. import types as T
from .array import array
from ..runtime.devices import get_device

_CPU, _CUDA, _CUDA_HOST = 1, 2, 3
_INT, _UINT, _FLOAT, _BOOL = 0, 1, 2, 6


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
    code = {"float": _FLOAT, "int": _INT, "uint": _UINT, "bool": _BOOL}[scalar._kind]
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
    a copy. `dtype` may name a vector/matrix type whose shape matches the trailing dimensions."""
    if hasattr(source, "__dlpack__"):
        kind, ordinal = source.__dlpack_device__() if hasattr(source, "__dlpack_device__") else (_CPU, 0)
        kwargs = {"stream": get_device(f"cuda:{int(ordinal)}").stream.cuda_stream} if int(kind) == _CUDA else {}
        try:
            capsule = source.__dlpack__(max_version=(1, 0), **kwargs)
        except TypeError:  # a producer that predates DLPack 1.0
            capsule = source.__dlpack__(**kwargs)
    else:
        capsule = source
    if _api.PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        managed = DLManagedTensorVersioned.from_address(_api.PyCapsule_GetPointer(capsule, b"dltensor_versioned"))
        _api.PyCapsule_SetName(capsule, b"used_dltensor_versioned")  # we own it now
    elif _api.PyCapsule_IsValid(capsule, b"dltensor"):
        managed = DLManagedTensor.from_address(_api.PyCapsule_GetPointer(capsule, b"dltensor"))
        _api.PyCapsule_SetName(capsule, b"used_dltensor")
    else:
        raise TypeError("from_dlpack expects an object with __dlpack__ or an unconsumed DLPack capsule")
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
        raise TypeError(f"DLPack device type {tensor.device.device_type} is not supported (CPU and CUDA are)")
    element = T.canonical_scalar(dtype) if dtype is not None else scalar
    inner = T.numpy_inner_shape(element)
    if inner:
        if shape[len(shape) - len(inner):] != inner or T.scalar_type_of(element) is not scalar:
            raise TypeError(f"a tensor of shape {shape} and {T.type_name(scalar)} cannot be viewed as "
                            f"{T.type_name(element)} elements")
        shape, strides = shape[: len(shape) - len(inner)], strides[: len(strides) - len(inner)]
    if not shape:
        shape, strides = (1,), (T.type_size_in_bytes(element),)
    keep = _Import(capsule, managed)
    return array(ptr=(tensor.data or 0) + tensor.byte_offset, dtype=element, shape=shape, strides=strides,
                 device=device or dev, owner=keep)


def _scalar_from_dl(dt: DLDataType):
    if dt.lanes != 1:
        raise TypeError("DLPack tensors with vector lanes are not supported")
    table = {(_FLOAT, 16): T.float16, (_FLOAT, 32): T.float32, (_FLOAT, 64): T.float64, (_BOOL, 8): T.bool,
             (_INT, 8): T.int8, (_INT, 16): T.int16, (_INT, 32): T.int32, (_INT, 64): T.int64,
             (_UINT, 8): T.uint8, (_UINT, 16): T.uint16, (_UINT, 32): T.uint32, (_UINT, 64): T.uint64}
    scalar = table.get((dt.code, dt.bits))
    if scalar is None:
        raise TypeError(f"DLPack dtype (code {dt.code}, {dt.bits} bits) has no warp_nb equivalent")
    return scalar


# --- framework conveniences (Warp's names) ---------------------------------------------------

def from_torch(t, dtype=None, requires_grad=None) -> array:
    """A wp.array sharing a torch tensor's memory (its .grad too, when it has one)."""
    a = from_dlpack(t.detach(), dtype=dtype)
    if requires_grad if requires_grad is not None else t.requires_grad:
        import torch
        if t.grad is None:
            t.grad = torch.zeros_like(t)
        a.grad = from_dlpack(t.grad, dtype=dtype)
    return a


def to_torch(a: array, requires_grad=None):
    import torch
    t = torch.from_dlpack(a)
    if requires_grad if requires_grad is not None else a.requires_grad:
        t.requires_grad_(True)
        if a.grad is not None:
            t.grad = torch.from_dlpack(a.grad)
    return t


def from_jax(x, dtype=None) -> array:
    return from_dlpack(x, dtype=dtype)


def to_jax(a: array):
    import jax.dlpack
    return jax.dlpack.from_dlpack(a)
