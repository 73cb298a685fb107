"""`@wp.kernel(module="unique", module_options={...})`: a module of the kernel's own, as Warp makes
it. In: the kernel's function, its per-kernel options and the module options. Out: the module's
name (the qualified name plus a fingerprint of everything that changes the code: source, closure
values, referenced global constants, options), the options checked, and the kernel already made
for an identical definition (so a factory called in a loop returns one kernel object). Knows
nothing about compiling."""

from __future__ import annotations

import inspect
import numbers

import numpy as np

from .deterministic import checked_max_records

#: Warp's module options (set_module_options, module_options=): the keys accepted
VALID_MODULE_OPTIONS = frozenset((
    "max_unroll", "enable_backward", "fast_math", "fuse_fp", "lineinfo", "cuda_output", "mode", "block_dim",
    "compile_time_trace", "strip_hash", "optimization_level", "deterministic", "deterministic_max_records",
    "cpu_compiler_flags", "enable_mathdx_gemm", "enable_mathdx_solver", "enable_mathdx_fft", "extra_build_options",
))


def check_module_options(module, module_options) -> dict | None:
    """Refuse module_options as Warp does: only with module="unique", only a dict of known keys."""
    if module_options is None:
        return None
    if not isinstance(module_options, dict):
        raise TypeError(f"module_options must be a dict, got {type(module_options).__name__}")
    if module != "unique":
        raise ValueError('module_options can only be given with module="unique" (a module of the kernel\'s own); '
                         "for a shared module use wp.set_module_options(options, module)")
    unknown = sorted(set(module_options) - VALID_MODULE_OPTIONS)
    if unknown:
        raise ValueError(f"unknown module option {unknown[0]!r}. Valid options: "
                         f"{', '.join(sorted(VALID_MODULE_OPTIONS))}")
    if module_options.get("deterministic_max_records") is not None:
        checked_max_records(module_options["deterministic_max_records"])
    return dict(module_options)


def unique_module_name(func, kernel_options: dict, launch_bounds, module_options: dict | None) -> str:
    """The Python module and qualified name, and a fingerprint of what changes the code."""
    import hashlib  # (OpenSSL: loaded on first need, not with warp_nb)
    h = hashlib.sha256()
    try:
        h.update(inspect.getsource(func).encode())
    except (OSError, TypeError):
        h.update(func.__code__.co_code)
    for name, cell in zip(func.__code__.co_freevars, func.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # a cell not yet bound
            value = None
        h.update(f"{name}={fingerprint(value)};".encode())
    # annotations are evaluated where the function is defined: a factory's `dtype` parameter that
    # only appears in them (x: wp.array(dtype=dtype)) is no closure variable, yet changes the code
    for name, annotation in sorted(getattr(func, "__annotations__", {}).items()):
        h.update(f"annotation {name}={_annotation_fingerprint(annotation)};".encode())
    for name in func.__code__.co_names:  # global constants the body reads (not modules, functions, types)
        value = func.__globals__.get(name)
        if isinstance(value, (numbers.Number, str, bytes, tuple, list)):
            h.update(f"{name}={fingerprint(value)};".encode())
    options = {k: v for k, v in sorted(kernel_options.items()) if v is not None}
    h.update(repr((options, launch_bounds, sorted((module_options or {}).items(), key=str))).encode())
    return f"{func.__module__}.{func.__qualname__}_{h.hexdigest()[:8]}"  # no line: a copy elsewhere is the same


def _annotation_fingerprint(annotation) -> str:
    """Equal for equal array types (wp.array(dtype=float) makes a new object each time), by identity
    for other types, as text for string annotations."""
    dtype, ndim = getattr(annotation, "dtype", None), getattr(annotation, "ndim", None)
    if dtype is not None and ndim is not None:
        return f"{type(annotation).__name__}({fingerprint(dtype)},{ndim})"
    return fingerprint(annotation)


def fingerprint(value) -> str:
    """Text that is equal for equal constants and distinct for distinct objects (functions, kernels, types:
    by identity; the kernel made from them keeps them alive, so an identity is never reused meanwhile)."""
    if value is None or isinstance(value, (bool, numbers.Number, str, bytes)):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return type(value).__name__ + "(" + ",".join(fingerprint(v) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ",".join(f"{fingerprint(k)}:{fingerprint(v)}" for k, v in value.items()) + "}"
    if isinstance(value, np.ndarray):
        import hashlib
        return f"ndarray{value.shape}{value.dtype}:{hashlib.sha256(value.tobytes()).hexdigest()[:16]}"
    return f"{type(value).__name__}@{id(value):x}"
