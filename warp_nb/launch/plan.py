"""The plan of a launcher's usual launch (issue 21 item 4: a launch under half a microsecond).

Most launches repeat the kernel's last one on the CPU: the same device and block_dim, arguments of
the same kinds. For those, wp.launch makes one native call (`launch_usual`, native/runtime/
launch_plan.cpp) that does what the Python path does, with the same checks, and writes the argument
struct itself; anything it is not sure of goes back to the Python path, which then runs the launch
from the start and raises its errors. A plan says, per parameter, what the native side writes and
where: an array (checked against the parameter's dtype, dimensions and device, as the generated
packer checks it) or a scalar of the common types; a kernel with any other parameter (a vector, a
struct, an indexed array) keeps the native call but packs through the Python packer (`general`).

Only CPU launchers of one-lane code without deterministic replay get a plan: the others run
through their target (launcher.py)."""

from __future__ import annotations

import ctypes

from .. import config, types as T
from ..arrays.array import array
from ..runtime import devices, native, recording
from ..types.array_type import ArrayType
from . import bounds
from .args import argument_layout

_ARRAY, _I32, _U32, _I64, _U64, _F32, _F64, _BOOL = range(1, 9)
_SCALAR_KIND = {T.int32: _I32, T.uint32: _U32, T.int64: _I64, T.uint64: _U64, T.float32: _F32,
                T.float64: _F64, T.bool: _BOOL}
_MAX_STRUCT = 2048  # launch_plan.cpp kMaxStruct: a larger argument struct is packed in Python


def _native():
    """The extension module with the plans set up, or None (no Python headers: the ctypes path)."""
    module = native.extension()
    if module is None or not hasattr(module, "launch_usual"):
        return None
    if not getattr(_native, "ready", False):
        module.setup_plans(vars(config), vars(recording), vars(devices), bounds.bounds_cache, array,
                           devices.cpu_thread_count())
        _native.ready = True
    return module


def make_plan(launcher, types_):
    """The capsule launch_usual reads for `launcher`, or None where its launches take the Python path."""
    if not launcher.direct or launcher.block_dim != 1 or launcher.uses_blocks or launcher.signature is not None:
        return None
    module = _native()
    if module is None:
        return None
    types_ = list(types_)
    layout = argument_layout(types_)
    size = ctypes.sizeof(layout)
    kinds, offsets, ndims, dtypes = bytearray(), [], bytearray(), []
    general = size > _MAX_STRUCT
    for k, t in enumerate(types_):
        offsets.append(getattr(layout, f"f{k}").offset)
        if type(t) is ArrayType and t.kind == "array" and 0 < t.ndim <= 4:
            kinds.append(_ARRAY)
            ndims.append(t.ndim)
            dtypes.append(t.dtype)
        else:
            kind = _SCALAR_KIND.get(t) if T.is_scalar_type(t) else None
            general = general or kind is None
            kinds.append(kind or 0)
            ndims.append(0)
            dtypes.append(None)
    state = launcher.debug_state
    failed = ctypes.addressof(state) if state is not None else 0  # (`failed` is its first field)
    return module.make_plan(launcher.entry, launcher.stats or 0, failed, launcher.epoch, launcher.tid_count, size,
                            launcher.device, launcher.pack, general, bytes(kinds), tuple(offsets), bytes(ndims),
                            tuple(dtypes))


def _not_native(kernel, dim, inputs, device, block_dim):
    return False


def usual_function():
    """launch_usual(kernel, dim, inputs, device, block_dim): runs the launch natively when it is the
    usual one and answers None, or the launch's bounds when it ran and a check failed; False when
    the Python path must run it (always, where the extension module cannot be built)."""
    module = _native()
    return module.launch_usual if module is not None else _not_native
