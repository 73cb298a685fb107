"""The only module that calls the CUDA driver (through NVIDIA's cuda-bindings), imported
lazily: without a driver every driver call raises rather than returning an error code, so the
CPU path and CI never reach this module unless a CUDA device is asked for. Everything else
uses the small functions here, which turn driver errors into Python exceptions that say what
failed."""

from __future__ import annotations

import ctypes
from functools import lru_cache


class CUDAError(RuntimeError):
    """A CUDA driver call failed."""


class CUDAOutOfMemoryError(MemoryError):
    """A device allocation failed for lack of memory."""


@lru_cache(maxsize=1)
def _driver():
    from cuda.bindings import driver  # may raise ImportError; callers decide what that means
    return driver


@lru_cache(maxsize=1)
def available() -> tuple[bool, str]:
    """(True, "") when a driver and at least one GPU are usable, else (False, why)."""
    try:
        d = _driver()
    except ImportError as e:
        return False, f"cuda-bindings is not installed ({e})"
    try:
        (err,) = d.cuInit(0)
        if int(err) != 0:
            return False, f"cuInit failed with {_name(err)}"
        err, count = d.cuDeviceGetCount()
        if int(err) != 0 or count == 0:
            return False, "no CUDA device"
    except Exception as e:  # no libcuda: cuda-bindings raises instead of returning an error
        return False, f"no NVIDIA driver ({type(e).__name__}: {str(e)[:120]})"
    return True, ""


def _name(err) -> str:
    try:
        return _driver().cuGetErrorName(err)[1].decode()
    except Exception:
        return str(err)


def call(name: str, *args):
    """Call driver function `name`; return its outputs (none, one value, or a tuple); raise on error."""
    d = _driver()
    result = getattr(d, name)(*args)
    err = result[0]
    if int(err) != 0:
        code = _name(err)
        if code == "CUDA_ERROR_OUT_OF_MEMORY":
            raise CUDAOutOfMemoryError(f"{name}: the device is out of memory ({code})")
        raise CUDAError(f"{name} failed: {code}")
    rest = result[1:]
    return None if not rest else rest[0] if len(rest) == 1 else rest


def attribute(device_handle, name: str) -> int:
    d = _driver()
    return int(call("cuDeviceGetAttribute", getattr(d.CUdevice_attribute, name), device_handle))


def function_attribute(function, name: str) -> int:
    d = _driver()
    return int(call("cuFuncGetAttribute", getattr(d.CUfunction_attribute, name), function))


def set_function_attribute(function, name: str, value: int) -> None:
    d = _driver()
    call("cuFuncSetAttribute", function, getattr(d.CUfunction_attribute, name), int(value))


def to_int(handle) -> int:
    """A driver handle or device pointer as a plain integer: its value. (cuda-bindings' getPtr()
    is the address where the object keeps that value, not the value: never use it here.)"""
    return int(handle)


def launch(function, grid: int, block: int, stream, args_bytes: bytes, launch_bytes: bytes,
           shared_bytes: int = 0) -> None:
    """Launch a kernel taking (args struct, launch bounds) by value, with `shared_bytes` of dynamic
    shared memory. The parameter values are passed as an array of pointers to their bytes, as
    cuLaunchKernel expects."""
    args_buf = ctypes.create_string_buffer(args_bytes, len(args_bytes) or 1)
    launch_buf = ctypes.create_string_buffer(launch_bytes, len(launch_bytes))
    params = (ctypes.c_void_p * 2)(ctypes.addressof(args_buf), ctypes.addressof(launch_buf))
    call("cuLaunchKernel", function, grid, 1, 1, block, 1, 1, int(shared_bytes), stream, ctypes.addressof(params), 0)
