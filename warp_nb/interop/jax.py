"""JAX <-> warp_nb without copies, with Warp's names: `from_jax`, `to_jax` (DLPack both ways)
and the dtype and device conversions. jax is imported lazily. Calling kernels from inside
`jax.jit` is warp_nb/jax_experimental/ (it builds on these)."""

from __future__ import annotations

import numpy as np

from .. import types as T
from ..arrays.array import array
from ..arrays.dlpack import from_dlpack


def _jax():
    try:
        import jax
    except ImportError:
        raise ImportError("this needs JAX: pip install jax (the CPU build is the default)") from None
    return jax


def _public():
    # Warp's tests replace wp.get_device / wp.get_cuda_device with mocks: look them up on the
    # public module at call time, as Warp does, so such code sees its stand-ins
    import warp_nb
    return warp_nb


_SCALARS = (T.float16, T.bfloat16, T.float32, T.float64, T.int8, T.int16, T.int32, T.int64, T.uint8, T.uint16,
            T.uint32, T.uint64, T.bool)


def dtype_to_jax(warp_dtype):
    """The jax.numpy dtype of a warp_nb scalar type (wp.float32 -> jnp.float32)."""
    import jax.numpy as jnp
    scalar = T.canonical_scalar(warp_dtype)
    if scalar is T.bfloat16:
        return jnp.bfloat16
    if scalar not in _SCALARS:
        raise TypeError(f"cannot convert Warp type {T.type_name(warp_dtype)} to a JAX dtype")
    return jnp.dtype(scalar._np).type


def dtype_from_jax(jax_dtype):
    """The warp_nb scalar type of a JAX dtype (a jnp scalar type or a numpy dtype)."""
    import jax.numpy as jnp
    dt = jnp.dtype(jax_dtype)
    if dt == jnp.dtype(jnp.bfloat16):
        return T.bfloat16
    for scalar in _SCALARS:
        if scalar is not T.bfloat16 and np.dtype(scalar._np) == dt:
            return scalar
    raise TypeError(f"cannot convert JAX dtype {dt} to a Warp type")


def get_jax_device():
    """The JAX device new JAX arrays go to (jax.default_device, else the first device)."""
    jax = _jax()
    device = jax.config.jax_default_device
    if isinstance(device, str):  # a platform name
        device = jax.devices(device)[0]
    return device if device is not None else jax.local_devices()[0]


def device_to_jax(warp_device):
    """The JAX device of this process that is the warp_nb device (by process-local ordinal)."""
    jax = _jax()
    dev = _public().get_device(warp_device)
    if not dev.is_cuda:
        return jax.local_devices(backend="cpu")[0]
    try:
        local = jax.local_devices(backend="cuda")
    except RuntimeError:
        local = []
    for candidate in local:
        if getattr(candidate, "local_hardware_id", None) == dev.ordinal:
            return candidate
    raise RuntimeError(f"Warp device {dev} is not available to JAX in this process (a CPU-only JAX, or "
                       "CUDA_VISIBLE_DEVICES hides it); use the 'cpu' device")


def device_from_jax(jax_device):
    """The warp_nb device of a JAX device of this process."""
    jax = _jax()
    wp = _public()
    if jax_device.platform == "cpu":
        return wp.get_device("cpu")
    if jax_device.platform in ("gpu", "cuda"):
        owner = getattr(jax_device, "process_index", jax.process_index())
        if owner != jax.process_index():
            raise RuntimeError(f"JAX device {jax_device} belongs to process {owner}, not to this one "
                               f"({jax.process_index()}): each process can only use its own devices")
        ordinal = getattr(jax_device, "local_hardware_id", None)
        return wp.get_cuda_device(ordinal if ordinal is not None else jax_device.id)
    raise RuntimeError(f"JAX device platform '{jax_device.platform}' has no Warp equivalent (cpu and cuda do)")


def from_jax(jax_array, dtype=None) -> array:
    """A wp.array sharing the memory of a JAX array (DLPack, no copy). JAX arrays are immutable:
    write through the result only to buffers JAX no longer reads."""
    return from_dlpack(jax_array, dtype=dtype)


def to_jax(warp_array: array):
    """A JAX array sharing the memory of `warp_array` (DLPack, no copy when JAX accepts its
    alignment and layout; JAX copies otherwise, as it does for Warp)."""
    if not isinstance(warp_array, array):
        raise TypeError(f"to_jax expects a wp.array, got {type(warp_array).__name__}")
    import jax.dlpack
    return jax.dlpack.from_dlpack(warp_array)
