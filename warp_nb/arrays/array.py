"""`wp.array`: a typed, strided view of memory on a device, plus the `wp.array(dtype=...)`
annotation used in kernel signatures. CPU memory is a numpy buffer, so `np.asarray(a)` and
`a.numpy()` share it. Element access from Python is refused (kernels do that); slicing
returns strided views. Knows nothing about kernels or C++."""

from __future__ import annotations

import ctypes

import math
import weakref

import numpy as np

from ..runtime import memory_tracker, recording
from .. import types
from .arithmetic import ArrayArithmetic
from .read_tracking import ReadTracking
from ..errors import ArgumentValueError
from ..runtime import devices
from typing import Any

from ..types.array_annotation import ArrayAnnotation
from ..types.array_type import ArrayType, literal_int
from ..types import scalars
from ..types.native_types import native_info, native_values_from_numpy
from ..types.scalars import canonical_scalar
from .descriptor import make_descriptor
from .family import ArrayFamily
from .layout import (_as_numpy, as_whole_elements, check_dim_lengths, _can_alias, _check_alloc_strides, _contiguous_strides,
                     _resolve_dtype, _shape_tuple)


def _array_subscript(cls, key):  # wp.array[float], wp.array[float, 2], wp.array[float, Literal[2]]
    if isinstance(key, tuple):
        if cls is not array:  # wp.array1d ... wp.array4d: the ndim is in the name
            raise TypeError(f"wp.{cls.__name__}[...] takes a single type parameter, the dtype; "
                            "use wp.array[dtype, ndim] to give both")
        dtype, ndim = key
        return ArrayAnnotation(dtype, ndim if ndim is Any else literal_int(ndim, "an array's ndim"))
    return ArrayAnnotation(key, getattr(cls, "_default_ndim", 1))


_ELEMENT_ACCESS_MESSAGE = (
    "wp.array elements cannot be {what} from Python: kernels do that. To set values use "
    "wp.full(shape, value) or a.fill_(value) for a constant, a.assign(values) to copy from an array, "
    "list or numpy array, or edit a.numpy() (a view of CPU memory) with numpy; to read, use a.numpy() "
    "or a.list().")


class array(ArrayArithmetic, ReadTracking, ArrayFamily):
    #: in a kernel, wp.array(ptr=..., shape=..., dtype=...) views memory at an address (compiler/typecheck_subscript)
    _wp_kernel_form_ = "array_from_ptr"

    """An n-dimensional (1 to 4) array of scalars, vectors, matrices or structs on a device."""

    _wp_array_ = True  # how modules that cannot import this one (struct fields) recognise arrays
    _wp_family_root_ = True  # a native array family (arrays/family.py: native_family)
    _wp_subscriptable_ = True  # wp.array[float] (not a user's subclass: arrays/family.py)
    _subscript_type = classmethod(_array_subscript)
    _default_ndim = 1
    deleter = None  # Warp's deleter(ptr, size) of external memory; None when warp_nb owns it

    def __new__(cls, data=None, dtype=types.Any, shape=None, strides=None, ptr=None, capacity=None,
                device=None, requires_grad=False, copy=True, ndim=None, pinned=False, owner=None,
                length=None, grad=None, deleter=None, retain_grad=False, **subclass_kwargs):
        # (subclass_kwargs: what an application's subclass constructor takes for itself, e.g. a tag;
        # array.__init__ still refuses unknown keywords)
        if data is None and shape is None and ptr is None and length is None and "_wp_subscriptable_" in cls.__dict__:
            # used as an annotation: wp.array(dtype=float, ndim=2) (an application's subclass is no annotation)
            return ArrayType(dtype, ndim or cls._default_ndim)
        return super().__new__(cls)

    def __init__(self, data=None, dtype=types.Any, shape=None, strides=None, ptr=None, capacity=None,
                 device=None, requires_grad=False, copy=True, ndim=None, pinned=False, owner=None,
                 length=None, grad=None, deleter=None, retain_grad=False):
        self.device = devices.get_device(device)
        self._choose_storage(pinned)
        if length is not None and shape is None:
            shape = (int(length),)
        if data is None and (dtype is types.Any or dtype is None):
            # as in Warp: an array made from a shape or a pointer names its element type (wp.zeros defaults)
            raise TypeError("A concrete type is required: wp.array(shape=..., dtype=...) needs a dtype "
                            "(wp.float32, wp.vec3, ...); wp.zeros / wp.empty default to float32")
        if data is not None:
            self._init_from_data(data, dtype, shape, copy)
        elif ptr is not None:
            dtype = _resolve_dtype(dtype)
            self._init_view(ptr, dtype, _shape_tuple(shape), strides, owner)
            if capacity is not None:  # a view of foreign memory may know how much lies beyond its elements
                self._capacity = int(capacity)
        else:
            dtype = _resolve_dtype(dtype)
            self._init_alloc(dtype, _shape_tuple(shape), zero=True, strides=strides)
        # Warp's deleter(ptr, size): frees external memory when the array goes (None: warp_nb owns it)
        self.deleter = deleter
        if deleter is not None and ptr is not None and data is None:
            weakref.finalize(self, deleter, self.ptr, self.capacity)
        self._grad = None
        if grad is not None:
            self._grad = grad
        self.requires_grad = requires_grad
        self.retain_grad = bool(retain_grad)  # keep .grad through tape.backward() (Warp's retain_grad)

    # --- construction -------------------------------------------------------------------
    def _choose_storage(self, pinned: bool) -> None:
        """The device's memory, or page-locked host memory for a pinned CPU array (as in Warp,
        `pinned` is ignored where there is no GPU to copy to)."""
        pinned_storage = getattr(self.device, "pinned_storage", None) if pinned else None
        self.pinned = pinned_storage is not None
        self.storage = pinned_storage or self.device.storage

    def _init_alloc(self, dtype, shape, zero: bool, strides=None):
        check_dim_lengths(shape)
        # Python integers: np.prod wraps around in int64 (shape (2**33, 2**33) would give 0 bytes)
        nbytes = math.prod(int(s) for s in shape) * types.type_size_in_bytes(dtype)
        if strides is not None:  # wp.zeros(shape, strides=...): the span from the first element to the last
            strides = _check_alloc_strides(shape, strides)
            nbytes = 0 if nbytes == 0 else sum((int(n) - 1) * s for n, s in zip(shape, strides)) + \
                types.type_size_in_bytes(dtype)
        if nbytes >= 2 ** 63:
            raise MemoryError(f"an array of shape {tuple(shape)} and dtype {types.type_name(dtype)} would take "
                              f"{nbytes:.3g} bytes, more than any machine can address")
        buf = self.storage.allocate(nbytes, zero)
        if memory_tracker.enabled():  # wp.ScopedMemoryTracker
            where = self.device.alias + (" (pinned)" if self.pinned else "")
            label = f"array[{types.type_name(dtype)}, {'x'.join(str(int(s)) for s in shape)}]"
            memory_tracker.record(getattr(buf, "bytes", buf), nbytes, label, where)
        self._init_view(buf.ptr, dtype, shape, strides, buf)
        if strides is not None:
            self._capacity = nbytes
        if nbytes == 0:
            # as in Warp, an allocation of no bytes has no address: `ptr` is None (the kernel
            # argument's data pointer is 0); a view's ptr stays what it was given
            self.ptr = None
            self._update_descriptor()

    def _init_view(self, ptr, dtype, shape, strides, owner):
        self.dtype = dtype
        self.shape = tuple(int(s) for s in shape)
        if len(self.shape) > 4:  # a RuntimeError in Warp, a ValueError here before: both
            raise ArgumentValueError(f"Failed to create array with shape {self.shape}, the maximum number of "
                                     "dimensions is 4")
        if not self.shape:
            raise ValueError(f"arrays have 1 to 4 dimensions, got shape {self.shape}")
        check_dim_lengths(self.shape)
        elem = types.type_size_in_bytes(dtype)
        if strides is None:
            strides = _contiguous_strides(self.shape, elem)
        self.strides = tuple(int(s) for s in strides)
        self.ptr = int(ptr) if ptr else 0
        self._owner = owner
        self._update_descriptor()

    def _init_from_data(self, data, dtype, shape, copy):
        if isinstance(data, array):
            src = data.numpy()
            dtype = data.dtype if dtype is types.Any else dtype
        else:
            src = data
        if native_info(dtype) is None and np.iscomplexobj(src):  # (numpy cannot read ctypes instances)
            # numpy would drop the imaginary part with only a warning
            raise TypeError("warp_nb arrays hold no complex numbers: pass the real and imaginary parts as two "
                            "arrays, or as a vec2 array (np.stack([z.real, z.imag], axis=-1))")
        if isinstance(src, np.ndarray) and src.dtype == object and any(v is None for v in src.flat):  # numpy: NaN
            raise TypeError("cannot make an array from data holding None: fill in the missing values first")
        dtype = _resolve_dtype(dtype, src)
        src_np = _as_numpy(src, dtype)
        inner = types.numpy_inner_shape(dtype)
        if inner and shape is None and src_np.shape[src_np.ndim - len(inner):] != inner:
            src_np = as_whole_elements(src_np, inner, dtype)
        if inner:
            if src_np.shape[len(src_np.shape) - len(inner):] != inner:
                if src_np.size % int(np.prod(inner)) or shape is None:
                    raise ValueError(f"cannot read data of shape {src_np.shape} as {types.type_name(dtype)} "
                                     f"elements: the last dimensions must be {inner}")
            outer = src_np.shape[: src_np.ndim - len(inner)] if src_np.shape[-len(inner):] == inner else None
        else:
            outer = src_np.shape
        if shape is not None:
            shape = _shape_tuple(shape)
            if int(np.prod(shape)) * types.type_length(dtype) != src_np.size:
                raise ValueError(f"data with {src_np.size} values does not fit shape {shape} of "
                                 f"{types.type_name(dtype)}")
            src_np = src_np.reshape(shape + inner)
        else:
            shape = tuple(outer) if outer else (src_np.size // max(types.type_length(dtype), 1),)
            if src_np.ndim == 0:
                src_np = src_np.reshape(1)
                shape = (1,)
        if not copy and self.storage is self.device.storage and self.storage.host_accessible \
                and _can_alias(src_np, dtype):
            strides = src_np.strides[: len(shape)]
            self._init_view(src_np.ctypes.data, dtype, shape, strides, src_np)
            return
        self._init_alloc(dtype, shape, zero=False)
        self.storage.upload(self, src_np.reshape(self.shape + types.numpy_inner_shape(dtype)))

    def _update_descriptor(self):
        # what a kernel argument of this array packs: data, grad, shape[N], strides[N]
        grad = getattr(self, "_grad", None)
        self._desc = (self.ptr or 0, (grad.ptr or 0) if grad is not None else 0) + self.shape + self.strides

    # --- properties ---------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @ndim.setter
    def ndim(self, value) -> None:
        """The rank is the shape's: setting it is accepted where it agrees (or before there is a shape,
        on an instance made with __new__ alone), as Warp's attribute."""
        shape = self.__dict__.get("shape")
        if shape is not None and int(value) != len(shape):
            raise AttributeError(f"an array's ndim is its shape's length ({len(shape)}); set its shape instead")

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def memory_kind(self):
        """Warp's `wp.MemoryKind` of the memory this array points into (HOST, PINNED, CUDA_DEVICE ...)."""
        return self.storage.memory_kind

    @property
    def capacity(self) -> int:
        return getattr(self, "_capacity", None) or self.size * types.type_size_in_bytes(self.dtype)

    @property
    def is_contiguous(self) -> bool:
        return self.strides == _contiguous_strides(self.shape, types.type_size_in_bytes(self.dtype))

    @property
    def type(self) -> ArrayType:
        return ArrayType(self.dtype, self.ndim)

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None and (not isinstance(value, array) or value.shape != self.shape):
            raise ValueError(f"a gradient must be a wp.array of shape {self.shape}")
        self._grad = value
        self._update_descriptor()

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool):
        if value and native_info(self.dtype) is not None:
            raise ValueError(f"an array of the native type {self.dtype.__name__} cannot take part in automatic "
                             "differentiation (requires_grad=True): its C++ type has no gradient")
        self._requires_grad = bool(value)
        if not self._requires_grad:
            self._retain_grad = False  # as Warp: nothing left to retain
        if self._requires_grad and self._grad is None:
            self._grad = array(shape=self.shape, dtype=self.dtype, device=self.device)
        self._update_descriptor()

    def __ctype__(self):
        """The array's kernel descriptor (data, grad, shape, strides) as a ctypes structure (Warp's
        name), which a recorded launch takes back with set_param_at_index_from_ctype. The same object
        until the descriptor changes (a new grad), as Warp's (arrays/descriptor.py)."""
        cached = self.__dict__.get("_ctype")
        if cached is None or cached[0] != self._desc:
            cached = self._ctype = (self._desc, make_descriptor(self, self._desc))
        return cached[1]

    @property
    def retain_grad(self) -> bool:
        """Keep .grad through tape.backward() (Warp's retain_grad); needs requires_grad."""
        return getattr(self, "_retain_grad", False)

    @retain_grad.setter
    def retain_grad(self, value: bool):
        if value and not self.requires_grad:
            raise ValueError("retain_grad=True needs requires_grad=True (there is no gradient to retain)")
        self._retain_grad = bool(value)

    def __len__(self):
        return self.shape[0]

    # --- numpy --------------------------------------------------------------------------
    @property
    def __array_interface__(self):
        if not self.storage.host_accessible:
            raise AttributeError("a CUDA array has no __array_interface__ (its memory is on the GPU); use "
                                 "a.numpy() for a host copy, or __cuda_array_interface__ / DLPack for zero-copy GPU use")
        dtype = types.numpy_dtype(self.dtype)
        inner = types.numpy_inner_shape(self.dtype)
        inner_strides = _contiguous_strides(inner, dtype.itemsize) if inner else ()
        if dtype.fields:  # structs export raw records; numpy() views them with the struct dtype
            dtype = np.dtype(f"V{dtype.itemsize}")
        return {"version": 3, "shape": self.shape + inner, "typestr": dtype.str, "descr": [("", dtype.str)],
                "data": (self.ptr or _EMPTY_ADDR, False), "strides": self.strides + inner_strides}

    @property
    def __cuda_array_interface__(self):
        return self.storage.cuda_array_interface(self)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        from .dlpack import to_dlpack
        self.storage.before_export(self, stream)
        return to_dlpack(self, versioned=bool(max_version) and max_version[0] >= 1)

    def __dlpack_device__(self):
        from .dlpack import dlpack_device
        return dlpack_device(self)

    def __array__(self, dtype=None, copy=None):
        if not self.storage.host_accessible:  # as Warp: a device-to-host copy is asked for by name
            raise TypeError(f"an array on {self.device} has no implicit NumPy conversion (it would copy it from "
                            "the device and wait for it); call array.numpy() for a host copy")
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def numpy(self) -> np.ndarray:
        """The data as numpy: a view of host memory (shared, not copied); for a CUDA array, a host
        copy made after the device's stream has finished its earlier work. bfloat16 elements are
        ml_dtypes.bfloat16 where ml_dtypes is installed, else their bits as uint16 (as in Warp)."""
        out = self.storage.to_numpy(self)
        if types.scalar_type_of(self.dtype) is types.bfloat16:
            bf16 = scalars.ml_dtypes_bfloat16()
            if bf16 is not None:
                out = out.view(bf16)
        return out

    def cptr(self):
        """A ctypes pointer to the first element of a contiguous array in host memory, indexed by the
        flat element number (`a.cptr()[i].field` for an array of structs), as Warp's. It aliases
        the array's memory: keep the array alive while using it."""
        if not self.storage.host_accessible:
            raise RuntimeError("a.cptr() needs an array in host memory; copy it first with a.to('cpu')")
        if not self.is_contiguous:
            raise RuntimeError("a.cptr() needs a contiguous array; copy it first with wp.clone(a)")
        from ..types.structs import field_ctype
        return ctypes.cast(self.ptr or _EMPTY_ADDR, ctypes.POINTER(field_ctype(self.dtype)))

    def list(self) -> list:
        """The elements as a Python list (vectors and matrices as wp types, structs as instances)."""
        a = self.storage.to_numpy(self)
        if types.scalar_type_of(self.dtype) is types.bfloat16:
            a = scalars.bfloat16_bits_to_floats(a)  # values, not the bits
        if types.is_composite_type(self.dtype):
            flat = a.reshape((-1,) + types.numpy_inner_shape(self.dtype))
            return [self.dtype._from_numpy(v) for v in flat]
        if native_info(self.dtype) is not None:  # instances of the ctypes class (wp.build_experimental)
            return native_values_from_numpy(self.dtype, a.reshape(-1))
        from_numpy = getattr(self.dtype, "from_numpy_record", None)
        if from_numpy is not None:
            return [from_numpy(r) for r in a.reshape(-1)]
        return a.reshape(-1).tolist()

    def __str__(self):
        return str(self.numpy())

    def __repr__(self):
        return (f"wp.array(shape={self.shape}, dtype={types.type_name(self.dtype)}, "
                f"device={self.device.alias!r})")

    # --- views --------------------------------------------------------------------------
    def __getitem__(self, key):
        key = key if isinstance(key, tuple) else (key,)
        if len(key) > self.ndim:
            raise IndexError(f"too many indices ({len(key)}) for an array with {self.ndim} dimensions")
        if len(key) == self.ndim and all(isinstance(k, (int, np.integer)) for k in key):
            raise TypeError(_ELEMENT_ACCESS_MESSAGE.format(what="read one at a time"))
        if any(getattr(type(k), "_wp_array_", False) for k in key):
            return self._indexed(key)
        ptr, shape, strides = self.ptr or 0, [], []
        for axis, k in enumerate(key + (slice(None),) * (self.ndim - len(key))):
            n, stride = self.shape[axis], self.strides[axis]
            if isinstance(k, (int, np.integer)):
                k = int(k) + (n if k < 0 else 0)
                if not 0 <= k < n:
                    raise IndexError(f"index {k} is out of bounds for axis {axis} with size {n}")
                ptr += k * stride
            elif isinstance(k, slice):
                start, stop, step = k.indices(n)
                count = len(range(start, stop, step))
                ptr += start * stride if count else 0
                shape.append(count)
                strides.append(stride * step)
            else:
                raise TypeError(f"arrays are indexed with integers and slices, got {type(k).__name__}")
        view = array(ptr=ptr, dtype=self.dtype, shape=tuple(shape), strides=tuple(strides), device=self.device,
                     owner=self)
        if self._grad is not None:
            view.grad = self._grad[key]
        return view

    def _indexed(self, key):
        """a[idx] with int32 index arrays (and whole-dimension slices): a wp.indexedarray."""
        from .indexed import indexedarray

        # integers and slices first (a strided view), then the index arrays on the dimensions left
        is_index = [getattr(type(k), "_wp_array_", False) for k in key]
        base = self[tuple(slice(None) if i else k for k, i in zip(key, is_index))]
        kept = [k for k in key if not isinstance(k, (int, np.integer))]
        kept += [slice(None)] * (base.ndim - len(kept))
        return indexedarray(base, [k if getattr(type(k), "_wp_array_", False) else None for k in kept])

    def __setitem__(self, key, value):
        raise TypeError(_ELEMENT_ACCESS_MESSAGE.format(what="assigned"))

    def reshape(self, shape) -> array:
        shape = _shape_tuple(shape)
        if -1 in shape:
            known = int(np.prod([s for s in shape if s != -1]))
            shape = tuple(self.size // known if s == -1 else s for s in shape)
        if int(np.prod(shape)) != self.size:
            raise ArgumentValueError(f"cannot reshape array of shape {self.shape} (size {self.size}) into shape "
                                     f"{shape} (size {int(np.prod(shape))})")
        src = self if self.is_contiguous else self.contiguous()
        out = array(ptr=src.ptr, dtype=self.dtype, shape=shape, device=self.device, owner=src)
        if src._grad is not None:
            out.grad = src._grad.reshape(shape)
        return out

    def flatten(self) -> array:
        return self.reshape((self.size,))

    def transpose(self, axes=None) -> array:
        axes = tuple(reversed(range(self.ndim))) if axes is None else tuple(axes)
        out = array(ptr=self.ptr, dtype=self.dtype, shape=tuple(self.shape[a] for a in axes),
                    strides=tuple(self.strides[a] for a in axes), device=self.device, owner=self)
        if self._grad is not None:
            out.grad = self._grad.transpose(axes)
        return out

    def contiguous(self) -> array:
        return self if self.is_contiguous else clone(self)

    def view(self, dtype) -> array:
        """The same bytes seen as another element type (as Warp): of the same size with the same shape;
        a vector or matrix array as its scalars (the components become the last dimensions); scalars
        as vectors or matrices (the last dimensions, contiguous, become the components)."""
        dtype = canonical_scalar(dtype)
        src, size, new_size = self.dtype, types.type_size_in_bytes(self.dtype), types.type_size_in_bytes(dtype)
        src_scalar, dst_scalar = types.is_scalar_type(src), types.is_scalar_type(dtype)
        shape, strides = self.shape, self.strides
        what = (f"cannot create an array view with dtype {types.type_repr(dtype)} from source dtype "
                f"{types.type_repr(src)}")
        if size == new_size and (src_scalar == dst_scalar or types.type_length(src) == types.type_length(dtype) == 1):
            pass  # same size, same shape (a float64 array as mat11d and back, as Warp)
        elif not src_scalar and dst_scalar and hasattr(src, "_shape_"):  # vec4f -> float32: components last
            scalar = src._wp_scalar_type_
            if types.type_size_in_bytes(scalar) != new_size:
                raise TypeError(f"{what}: source scalar dtype {types.type_repr(scalar)} has size "
                                f"{types.type_size_in_bytes(scalar)} bytes, but target dtype has size {new_size} bytes")
            inner = tuple(src._shape_)
            shape, strides = shape + inner, strides + _contiguous_strides(inner, new_size)
        elif src_scalar and not dst_scalar and hasattr(dtype, "_shape_"):  # float32 -> vec4f: last dims
            scalar, inner = dtype._wp_scalar_type_, tuple(dtype._shape_)
            if types.type_size_in_bytes(scalar) != size:
                raise TypeError(f"{what}: source dtype has size {size} bytes, but target scalar dtype "
                                f"{types.type_repr(scalar)} has size {types.type_size_in_bytes(scalar)} bytes")
            if shape[len(shape) - len(inner):] != inner or strides[len(shape) - len(inner):] != \
                    _contiguous_strides(inner, size):
                raise TypeError(f"{what}: the last dimensions {shape[len(shape) - len(inner):]} must be the "
                                f"contiguous components {inner}")
            shape, strides = shape[:len(shape) - len(inner)], strides[:len(shape) - len(inner)]
            if not shape:  # no 0-d arrays: one element
                shape, strides = (1,), (types.type_size_in_bytes(dtype),)
        else:
            raise TypeError(f"{what}: source dtype has size {size} bytes, but target dtype has size {new_size} bytes")
        out = array(ptr=self.ptr, dtype=dtype, shape=shape, strides=strides, device=self.device, owner=self)
        if self._grad is not None:  # the gradient seen the same way, as Warp (optimisers step on such views)
            out.grad = self._grad.view(dtype)
        return out

    def to(self, device) -> array:
        device = devices.get_device(device)
        return self if device == self.device else clone(self, device=device)

    # --- filling ------------------------------------------------------------------------
    def fill_(self, value) -> None:
        """Set every element to `value` (a scalar, vector, matrix or struct of the dtype)."""
        if self.size:
            element = _element_numpy(self.dtype, value)
            self._run_or_capture(lambda: self.storage.fill(self, element), "fill_",
                                 value=np.asarray(element).tobytes())

    def zero_(self) -> None:
        if self.size:
            self._run_or_capture(lambda: self.storage.zero(self), "zero_")

    def _run_or_capture(self, operation, what: str, **fields) -> None:
        """Run a fill now, or record it into an open wp.ScopedCapture (replayed by capture_launch)."""
        if recording.capture is None:
            operation()
        elif not self.is_contiguous:
            raise NotImplementedError(f"{what}() on a non-contiguous array cannot be captured; use a contiguous "
                                      "array or run it outside the capture")
        else:
            kind = "fill" if fields else "zero"
            recording.capture.record(recording.Operation(kind, operation, array=self, **fields))

    # --- read flags (wp.config.verify_autograd_array_access; set by recorded launches) -------
    def assign(self, src) -> None:
        """Copy values from an array, numpy array or sequence of the same shape into this array
        (from an array, recorded on an active Tape as a wp.copy is)."""
        if isinstance(src, array) and recording.tape is not None and src.shape == self.shape \
                and types.type_size_in_bytes(src.dtype) == types.type_size_in_bytes(self.dtype):
            from .create import copy  # differentiable, with the copy's adjoint
            copy(self, src)
            return
        if isinstance(src, array) and src.shape == self.shape and src.is_contiguous and self.is_contiguous \
                and not (src.storage.host_accessible and self.storage.host_accessible):
            copy_elements(self, src, 0, 0, self.size)  # between devices: no host round trip
            return
        values = src.storage.to_numpy(src) if isinstance(src, array) else _as_numpy(src, self.dtype)
        count = self.size * types.type_length(self.dtype)
        if values.size != count:
            raise ValueError(f"cannot assign {values.size} values to an array of shape {self.shape} "
                             f"({count} values)")
        self.storage.upload(self, values.reshape(self.shape + types.numpy_inner_shape(self.dtype)))


_EMPTY_ADDR = np.zeros(1, np.uint8).ctypes.data  # numpy refuses a null pointer, even for empty arrays


def _make_fixed_ndim(ndim: int):
    class _ArrayN(array):
        _default_ndim = ndim
        _wp_subscriptable_ = True

        def __new__(cls, data=None, dtype=types.Any, shape=None, *args, **kwargs):
            if data is None and shape is None and kwargs.get("ptr") is None:
                return ArrayType(dtype, ndim)
            return array(data, dtype, shape, *args, **kwargs)

    _ArrayN.__name__ = f"array{ndim}d"
    return _ArrayN


array1d, array2d, array3d, array4d = (_make_fixed_ndim(n) for n in (1, 2, 3, 4))


def empty_array(shape, dtype, device, requires_grad=False, pinned=False, retain_grad=False, strides=None) -> array:
    """An array whose memory is not initialised (what wp.empty and copies start from)."""
    a = array.__new__(array, shape=shape)
    a.device = devices.get_device(device)
    a._choose_storage(pinned)
    a._init_alloc(_resolve_dtype(dtype), _shape_tuple(shape), zero=False, strides=strides)
    a._grad = None
    a.requires_grad = requires_grad
    a.retain_grad = bool(retain_grad)
    return a


def clone(src: array, device=None, requires_grad=None, pinned=None) -> array:
    """A contiguous copy of `src` (on `device`, default: the same device)."""
    rg = src.requires_grad if requires_grad is None else requires_grad
    out = empty_array(src.shape, src.dtype, device or src.device, rg, bool(pinned))
    if getattr(src, "_wp_indexedarray_", False) or getattr(src, "_wp_fabric_", False):
        out.assign(src.numpy())
    elif src.is_contiguous:
        copy_elements(out, src, 0, 0, src.size)
        if recording.tape is not None:  # differentiable, as a wp.copy is
            recording.tape.record_copy(out, src, 0, 0, src.size)
    else:
        out.assign(src.numpy())  # a strided view: gathered on the host
        if recording.tape is not None:
            recording.tape.record_copy(out, src, 0, 0, src.size)
    return out


def copy_elements(dest: array, src: array, dest_offset: int, src_offset: int, count: int) -> None:
    """Move `count` flattened elements: the destination's storage moves them, or the source's
    when the destination is host memory (so a device's storage handles every transfer that
    touches it)."""
    engine = src.storage if dest.storage.host_accessible else dest.storage
    engine.copy(dest, src, dest_offset, src_offset, count)


def _element_numpy(dtype, value) -> np.ndarray:
    """One element of `dtype` holding `value`, in the dtype's numpy layout."""
    np_dtype = types.numpy_dtype(dtype)
    if hasattr(dtype, "numpy_value"):
        return np.array(dtype.numpy_value(value), dtype=np_dtype)
    inner = types.numpy_inner_shape(dtype)
    if types.is_composite_type(type(value)):
        value = value.__array__()  # not np.asarray: a float16 composite's buffer holds the bits
    if types.scalar_type_of(dtype) is types.bfloat16:
        floats = np.asarray(getattr(value, "value", value), dtype=np.float32)
        value = np.asarray(scalars.floats_to_bfloat16_bits(floats)).reshape(floats.shape)  # a scalar stays 0-d
    values = np.asarray(getattr(value, "value", value), dtype=np_dtype)
    if values.ndim == 1 and len(inner) == 2 and values.size == int(np.prod(inner)):
        values = values.reshape(inner)  # a matrix given flat
    return np.broadcast_to(values, inner).copy()
