"""`warp.fem.cache`: kernels, functions and structs specialised by a suffix, and a pool of temporary
arrays.

`dynamic_kernel(suffix)` / `dynamic_func(suffix)` / `dynamic_struct(suffix)` turn a definition
made inside a factory (a closure over a geometry, a degree, a dtype) into one compiled object per
(module, qualified name, suffix, options): the first definition made for a key is kept and returned
again for later definitions with that key, as in Warp, so a factory called twice with the same
suffix compiles once. The suffix, not the closure, is the identity: two different closures given
the same suffix share the first one's object.

`TemporaryStore` keeps freed buffers per (scalar type, type length, pinned, device) so that
`borrow_temporary` can hand one back instead of allocating. A borrowed array is a plain `wp.array`
(Warp's `Temporary` is `wp.array` itself) with two methods of its own: `release()` gives its buffer
back to the pool (twice is harmless), `detach()` takes it out of the pool's keeping for good.
While a graph is being captured the pool is bypassed: a captured launch refers to its buffers by
address, so a released buffer must not be lent again (Warp does the same).

This module knows nothing about fields, geometries or integrands."""

from __future__ import annotations

import bisect
import functools
import hashlib
import sys
from collections.abc import Callable
from typing import Any

import warp_nb as wp

from .. import types as T
from ..arrays.array import array
from ..program.func import Function
from ..program.kernel import Kernel
from ..program.module import get_module
from ..runtime import recording

#: Warp's name for a borrowed array's type: a borrowed temporary is a wp.array.
Temporary = array

_kernel_cache: dict = {}
_func_cache: dict = {}
_struct_cache: dict = {}


# --- suffix-keyed definitions ---------------------------------------------------------------------

def _suffix_digest(suffix: Any) -> str:
    """Eight hex digits naming a suffix: the compiled object's key is `<name>_<digest>`."""
    return hashlib.sha256(str(suffix).encode()).hexdigest()[:8]


def _options_key(options: dict | None) -> tuple:
    return tuple(sorted((options or {}).items(), key=lambda kv: kv[0]))


def _argument_types_key(fn) -> tuple:
    """With allow_overloads, the annotations are part of the key: one definition per signature."""
    annotations = getattr(fn, "__annotations__", {})
    return tuple((name, repr(t)) for name, t in annotations.items())


def _cache_key(fn, suffix: Any, options: dict | None, allow_overloads: bool) -> tuple:
    key = (fn.__module__, fn.__qualname__, suffix, _options_key(options))
    return key + (_argument_types_key(fn),) if allow_overloads else key


def get_kernel(func: Callable, suffix: Any, kernel_options: dict[str, Any] | None = None,
               allow_overloads: bool = False, local_names: dict | None = None) -> Kernel:
    """The kernel of `func` specialised for `suffix` (made on first request, then cached).
    `local_names`: the defining scope's locals, for string annotations (`from __future__ import
    annotations` in a file that defines kernels inside functions)."""
    cache_key = _cache_key(func, suffix, kernel_options, allow_overloads)
    found = _kernel_cache.get(cache_key)
    if found is None:
        key = f"{func.__name__}_{_suffix_digest(suffix)}"
        # a module of its own, as Warp does: adding one specialisation never invalidates another
        module = get_module(f"{func.__module__}.dyn.{key}")
        found = _kernel_cache[cache_key] = Kernel(func, key=key, module=module, options=dict(kernel_options or {}),
                                                  local_names=local_names)
    return found


def get_func(func: Callable, suffix: Any, code_transformers=None, allow_overloads: bool = False) -> Function:
    """The wp.func of `func` specialised for `suffix` (made on first request, then cached)."""
    if code_transformers:
        raise NotImplementedError("fem.cache.dynamic_func: code_transformers (rewriting a function's syntax tree "
                                  "before code generation) are not supported by warp_nb")
    cache_key = _cache_key(func, suffix, None, allow_overloads)
    found = _func_cache.get(cache_key)
    if found is None:
        found = wp.func(func)
        found.key = f"{func.__name__}_{_suffix_digest(suffix)}"
        _func_cache[cache_key] = found
    return found


def get_struct(struct: type, suffix: Any):
    """The wp.struct of class `struct` specialised for `suffix` (made on first request, then cached)."""
    cache_key = (struct.__module__, struct.__qualname__, suffix)
    found = _struct_cache.get(cache_key)
    if found is None:
        found = _struct_cache[cache_key] = wp.struct(struct)
        found.key = f"{struct.__name__}_{_suffix_digest(suffix)}"
    return found


def dynamic_kernel(suffix: Any, kernel_options: dict[str, Any] | None = None, allow_overloads=False):
    """Decorator: a kernel cached under (its module, qualified name, `suffix`, `kernel_options`)."""
    if kernel_options is not None and not isinstance(kernel_options, dict):
        raise TypeError(f"dynamic_kernel: kernel_options must be a dict, got {type(kernel_options).__name__}")

    def decorate(func):
        return get_kernel(func, suffix, kernel_options, allow_overloads, local_names=sys._getframe(1).f_locals)

    return decorate


def dynamic_func(suffix: Any, code_transformers=None, allow_overloads=False):
    """Decorator: a wp.func cached under (its module, qualified name, `suffix`)."""
    return lambda func: get_func(func, suffix, code_transformers, allow_overloads)


def dynamic_struct(suffix: Any):
    """Decorator: a wp.struct cached under (its module, qualified name, `suffix`)."""
    return lambda struct: get_struct(struct, suffix)


def cached_arg_value(func: Callable):
    """Decorator for a method `arg_value(self, device)` that assembles an argument struct: its value
    is computed once per device and kept for the object's lifetime (in `self._<name>_cache`)."""
    attribute = f"_{func.__name__}_cache"

    @functools.wraps(func)
    def get_arg(self, device):
        cache = self.__dict__.setdefault(attribute, {})
        device = wp.get_device(device)
        ordinal = -1 if device.is_cpu else device.ordinal
        if ordinal not in cache:
            cache[ordinal] = func(self, device)
        return cache[ordinal]

    return get_arg


def cached_vec_type(length: int, dtype):
    """wp.types.vector(length, dtype), made once per (length, dtype)."""
    return _cached_type(("vec", int(length), dtype), lambda: T.vector(length=length, dtype=dtype))


def cached_mat_type(shape, dtype):
    """wp.types.matrix(shape, dtype), made once per (shape, dtype)."""
    shape = tuple(int(s) for s in shape)
    return _cached_type(("mat", shape, dtype), lambda: T.matrix(shape=shape, dtype=dtype))


_type_cache: dict = {}


def _cached_type(key, make):
    found = _type_cache.get(key)
    if found is None:
        found = _type_cache[key] = make()
    return found


# --- temporary arrays ----------------------------------------------------------------------------

class TemporaryStore:
    """Pools of buffers that borrowed temporaries go back to when released, one pool per (scalar
    type, type length, pinned, device). `clear()` drops the free buffers (borrowed ones stay valid)."""

    _default_store: TemporaryStore | None = None

    class Pool:
        """Free buffers of one kind, sorted by size: a borrow takes the smallest one large enough."""

        def __init__(self, dtype, device, pinned: bool):
            self.dtype = dtype
            self.device = device
            self.pinned = pinned
            self._pool: list = []  # free byte buffers (wp.array of uint8), by increasing capacity
            self._pool_capacities: list = []

        def borrow(self, shape, dtype, requires_grad: bool) -> array:
            nbytes = _byte_count(shape, dtype)
            at = bisect.bisect_left(self._pool_capacities, nbytes)
            if at < len(self._pool):
                buffer = self._pool.pop(at)
                self._pool_capacities.pop(at)
            else:
                buffer = wp.empty(shape=(max(nbytes, 1),), dtype=wp.uint8, device=self.device, pinned=self.pinned)
            return _lend(buffer, shape, dtype, requires_grad, self)

        def redeem(self, buffer) -> None:
            at = bisect.bisect_left(self._pool_capacities, buffer.shape[0])
            self._pool.insert(at, buffer)
            self._pool_capacities.insert(at, buffer.shape[0])

    def __init__(self):
        self.clear()

    def clear(self) -> None:
        self._temporaries: dict = {}

    def borrow(self, shape, dtype, pinned: bool = False, device=None, requires_grad: bool = False) -> array:
        device = wp.get_device(device)
        shape = _shape_tuple(shape)
        dtype = T.canonical_scalar(dtype)  # float: wp.float32, int: wp.int32
        if recording.capture is not None:  # see the module docstring: nothing is lent again under capture
            return _plain_temporary(shape, dtype, pinned, device, requires_grad)
        key = (T.type_scalar_type(dtype), T.type_length(dtype), bool(pinned) and device.is_cpu,
               -1 if device.is_cpu else device.ordinal)
        pool = self._temporaries.get(key)
        if pool is None:
            pool = self._temporaries[key] = TemporaryStore.Pool(dtype, device, bool(pinned) and device.is_cpu)
        return pool.borrow(shape, dtype, requires_grad)


def _shape_tuple(shape) -> tuple:
    if isinstance(shape, int):
        return (shape,)
    return tuple(int(s) for s in shape)


def _byte_count(shape, dtype) -> int:
    count = 1
    for s in shape:
        count *= int(s)
    return count * T.type_size_in_bytes(dtype)


def _lend(buffer, shape, dtype, requires_grad: bool, pool) -> array:
    """A view of `buffer` as an array of `shape` and `dtype`, whose release() gives it back to `pool`."""
    lent = array(ptr=buffer.ptr, dtype=dtype, shape=shape, device=buffer.device, owner=buffer,
                 capacity=buffer.shape[0], pinned=buffer.pinned, requires_grad=requires_grad)
    state = {"buffer": buffer}

    def release() -> None:
        held = state.pop("buffer", None)
        if held is not None and pool is not None:
            pool.redeem(held)

    def detach() -> array:
        state.pop("buffer", None)  # the view keeps its buffer alive; the pool never sees it again
        return lent

    lent.release = release
    lent.detach = detach
    return lent


def _plain_temporary(shape, dtype, pinned: bool, device, requires_grad: bool) -> array:
    """A temporary of no pool: release() and detach() are there, and release() does nothing."""
    buffer = wp.empty(shape=(max(_byte_count(shape, dtype), 1),), dtype=wp.uint8, device=device, pinned=pinned)
    return _lend(buffer, shape, dtype, requires_grad, None)


def set_default_temporary_store(temporary_store: TemporaryStore | None) -> None:
    """The store `borrow_temporary(None, ...)` borrows from (None: a fresh allocation each time)."""
    if temporary_store is not None and not isinstance(temporary_store, TemporaryStore):
        raise TypeError(f"set_default_temporary_store: temporary_store must be a TemporaryStore or None, got "
                        f"{type(temporary_store).__name__}")
    TemporaryStore._default_store = temporary_store


def borrow_temporary(temporary_store: TemporaryStore | None, shape: int | tuple[int], dtype: type,
                     pinned: bool = False, requires_grad: bool = False, device=None) -> array:
    """An uninitialised array of `shape` and `dtype` lent by `temporary_store` (the default store when
    None, or a fresh allocation when there is none). Give it back with `.release()`."""
    if temporary_store is None:
        temporary_store = TemporaryStore._default_store
    if temporary_store is None:
        return _plain_temporary(_shape_tuple(shape), T.canonical_scalar(dtype), pinned, wp.get_device(device), requires_grad)
    if not isinstance(temporary_store, TemporaryStore):
        raise TypeError(f"borrow_temporary: temporary_store must be a TemporaryStore or None, got "
                        f"{type(temporary_store).__name__}")
    return temporary_store.borrow(shape=shape, dtype=dtype, pinned=pinned, device=device,
                                  requires_grad=requires_grad)


def borrow_temporary_like(array: array, temporary_store: TemporaryStore | None) -> array:
    """A temporary of the shape, dtype, device, pinning and requires_grad of `array`."""
    return borrow_temporary(temporary_store, shape=array.shape, dtype=array.dtype, pinned=array.pinned,
                            device=array.device, requires_grad=array.requires_grad)

