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
from ..errors import ArgumentIndexError, ArgumentTypeError, ArgumentValueError
from ..runtime import devices
from typing import Any

from ..types.array_annotation import ArrayAnnotation
from ..types.array_type import ArrayType, literal_int
from ..types import scalars
from ..types.native_types import native_info, native_values_from_numpy
from .descriptor import make_descriptor
from . import views
from .values import element_numpy
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
            raise ArgumentValueError(f"arrays have 1 to 4 dimensions, got shape {self.shape}")
        check_dim_lengths(self.shape)
        elem = types.type_size_in_bytes(dtype)
        if strides is None:
            strides = _contiguous_strides(self.shape, elem)
        self.strides = tuple(int(s) for s in strides)
        self.ptr = int(ptr) if ptr else 0
        # Warp's capacity of memory seen through a pointer (an allocation's is set by _init_alloc)
        self._capacity = views.view_capacity(self.ptr, self.shape, self.strides, elem)
        self._owner = owner
        self._update_descriptor()

    def _init_from_data(self, data, dtype, shape, copy):
        if isinstance(data, array):
            src = data.numpy()
            dtype = data.dtype if dtype is types.Any else dtype
        else:
            src = data
        _refuse_scalar_data(src)
        if native_info(dtype) is None and _complex_data(src):  # (numpy cannot read ctypes instances)
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
                    raise ArgumentValueError(f"cannot read data of shape {src_np.shape} as {types.type_name(dtype)} "
                                     f"elements: the last dimensions must be {inner}")
            outer = src_np.shape[: src_np.ndim - len(inner)] if src_np.shape[-len(inner):] == inner else None
        else:
            outer = src_np.shape
        if shape is not None:
            shape = _shape_tuple(shape)
            if shape.count(-1) == 1:  # one length left to the data, as numpy's reshape and Warp's
                known = math.prod(n for n in shape if n != -1)
                elements = src_np.size // max(types.type_length(dtype), 1)
                if known and elements % known == 0:
                    shape = tuple(elements // known if n == -1 else n for n in shape)
            if int(np.prod(shape)) * types.type_length(dtype) != src_np.size:
                raise ArgumentValueError(f"data with {src_np.size} values does not fit shape {shape} of "
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
            self._grad = self._zeros_of_same_layout()
        self._update_descriptor()

    def _zeros_of_same_layout(self) -> array:
        """Zeros with this array's shape and strides: a gradient, which kernels index with the
        array's own strides (one descriptor holds both), so a strided view's gradient is strided too,
        as Warp's."""
        if self.is_contiguous:
            return array(shape=self.shape, dtype=self.dtype, device=self.device)
        if self.size == 0:  # (nothing to hold: the strides alone, where an allocation can take them)
            strides = self.strides if min(self.strides) >= 0 else None
            return array(shape=self.shape, dtype=self.dtype, device=self.device, strides=strides)
        elem = types.type_size_in_bytes(self.dtype)
        low = sum((n - 1) * s for n, s in zip(self.shape, self.strides) if s < 0)  # (Python's negative steps)
        high = sum((n - 1) * s for n, s in zip(self.shape, self.strides) if s > 0) + elem
        span = array(shape=(high - low,), dtype=types.uint8, device=self.device)
        grad = array(ptr=span.ptr - low, dtype=self.dtype, shape=self.shape, strides=self.strides,
                     device=self.device, owner=span)
        grad._capacity = high - low  # (an allocation's, as Warp's allocation with these strides)
        return grad

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

    # --- views (arrays/views.py) -----------------------------------------------------
    def __getitem__(self, key):
        if any(getattr(type(k), "_wp_array_", False) for k in (key if isinstance(key, tuple) else (key,))):
            return self._indexed(key if isinstance(key, tuple) else (key,))
        return views.index(self, key)

    def _indexed(self, key):
        """a[idx] with int32 index arrays (and whole-dimension slices): a wp.indexedarray."""
        from .indexed import indexedarray

        if len(key) > self.ndim:
            raise ArgumentIndexError(f"too many indices ({len(key)}) for an array with {self.ndim} dimensions")
        # integers and slices first (a strided view), then the index arrays on the dimensions left
        is_index = [getattr(type(k), "_wp_array_", False) for k in key]
        base = self[tuple(slice(None) if i else k for k, i in zip(key, is_index))]
        kept = [k for k in key if not isinstance(k, (int, np.integer))]
        kept += [slice(None)] * (base.ndim - len(kept))
        return indexedarray(base, [k if getattr(type(k), "_wp_array_", False) else None for k in kept])

    def __setitem__(self, key, value):
        raise TypeError(views.ELEMENT_ACCESS_MESSAGE.format(what="assigned"))

    def reshape(self, shape) -> array:
        return views.reshape(self, shape)

    def flatten(self) -> array:
        return views.flatten(self)

    def transpose(self, axes=None) -> array:
        return views.transpose(self, axes)

    def contiguous(self) -> array:
        return self if self.is_contiguous else clone(self)

    def view(self, dtype) -> array:
        """The same bytes seen as another element type (as Warp; arrays/views.py)."""
        return views.view(self, dtype)

    def to(self, device) -> array:
        device = devices.get_device(device)
        return self if device == self.device else clone(self, device=device)

    def ipc_handle(self) -> bytes:
        """Warp's IPC handle of the allocation; warp_nb shares no memory between processes (cuda/ipc.py):
        a RuntimeError, as Warp raises for an array it cannot export (on the CPU, 'IPC requires a CUDA device')."""
        if not self.device.is_cuda:
            raise RuntimeError("IPC requires a CUDA device")
        from ..cuda.ipc import refuse
        refuse("wp.array.ipc_handle", self.device)

    # --- filling ------------------------------------------------------------------------
    def fill_(self, value) -> None:
        """Set every element to `value` (a scalar, vector, matrix or struct of the dtype)."""
        if self.size:
            element = element_numpy(self.dtype, value)
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
        """Copy `src` into this array as Warp does, with wp.copy(self, src) (recorded on an active Tape,
        differentiable): data that is not an array (numpy, lists) is first read as values of this
        dtype; an array's elements are copied as bytes (another dtype of the same size is not
        converted). A source with fewer elements fills the first ones, as a copy does."""
        from .create import _gathered, copy

        if src is None:  # (Warp does nothing)
            raise ArgumentTypeError("a.assign(None): nothing to assign; give an array, a numpy array or a list")
        if not (isinstance(src, array) or _gathered(src)):
            _refuse_scalar_data(src)
            values = _as_numpy(src, self.dtype)
            inner, per = types.numpy_inner_shape(self.dtype), types.type_length(self.dtype)
            if values.size % per or values.size > self.size * per:
                raise ArgumentValueError(f"cannot assign {values.size} values to an array of shape {self.shape} of "
                                         f"{types.type_name(self.dtype)} ({self.size * per} values)")
            if native_info(self.dtype) is None:  # read as wp.array(src, dtype) reads it (rows of whole elements)
                if inner and values.shape[values.ndim - len(inner):] != inner:
                    values = as_whole_elements(values, inner, self.dtype)
                if values.ndim - len(inner) > 4:  # (as Warp: more dimensions than an array has, copied flat)
                    values = values.reshape((-1,) + inner)
                if values.size == self.size * per and self.is_contiguous:
                    # the whole array: written now, as a host upload (inside a graph capture too, where a
                    # recorded copy from a temporary array replayed garbage: test_apic's seeded backward)
                    self.storage.upload(self, np.ascontiguousarray(values).reshape(self.shape + inner))
                    return
                src = array(values, dtype=self.dtype, device=self.device)
            else:  # (a C++ type of the user's: its values, flat)
                src = empty_array((values.size // per,), self.dtype, self.device)
                src.storage.upload(src, values.reshape(src.shape + inner))
        copy(self, src)


def _refuse_scalar_data(src) -> None:
    """Array data is a sequence: a number (Python's, numpy's, a wp scalar) is refused, as Warp."""
    if isinstance(src, (int, float, complex, np.generic)) or types.is_scalar_type(type(src)):
        raise ArgumentTypeError(f"Data must be a sequence or array, got scalar {src!r}: wp.full(shape, value) "
                                "makes an array of one value")


def _complex_data(src) -> bool:
    try:
        return bool(np.iscomplexobj(src))
    except (TypeError, ValueError):  # (ragged lists: the conversion says what is wrong)
        return False


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
