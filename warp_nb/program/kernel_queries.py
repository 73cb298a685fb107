"""Warp's questions about one kernel's CUDA build: `wp.get_cuda_kernel_properties` (registers and
local memory per thread), `wp.get_suggested_block_size` (the driver's occupancy suggestion) and
`wp.get_cuda_max_cluster_dim`. The kernel is compiled for the device when it has not been (as a
launch would); nothing is launched. On the CPU they answer as Warp does: properties are refused,
the block size is (1, 1), the cluster size 1. Argument checks come in Warp's order: the kernel,
a generic kernel without its overload, the device, then block_dim."""

from __future__ import annotations

import operator

from ..runtime.devices import get_device
from .kernel import Kernel


def _check_kernel(kernel, what: str) -> None:
    if not isinstance(kernel, Kernel):
        raise TypeError(f"{what}() expected a wp.Kernel (a function decorated with @wp.kernel), got "
                        f"{type(kernel).__name__}")


def _refuse_generic(kernel, what: str) -> None:
    if kernel.is_generic:
        raise RuntimeError(f"{what}() requires a concrete overload of generic kernel `{kernel.key}`; create one with "
                           f"wp.overload(kernel, [types]) and pass the returned kernel")


def _block_dim(value) -> int:
    if isinstance(value, bool):
        raise ValueError(f"block_dim must be a positive integer, got {value!r}")
    try:
        n = operator.index(value)
    except TypeError:
        raise ValueError(f"block_dim must be a positive integer, got {type(value).__name__}: {value!r}") from None
    if n < 1:
        raise ValueError(f"block_dim must be a positive integer, got {n}")
    return n


def _cuda_function(kernel, device):
    """The CUfunction of the kernel's forward entry point on `device` (compiled now if need be)."""
    try:
        compiled = kernel.compiled(device)
    except Exception as e:
        raise RuntimeError(f"Failed to load CUDA kernel '{kernel.key}' on {device}: {e}") from e
    entry = getattr(compiled.loaded, "entry", None)
    if entry is None:
        raise RuntimeError(f"Failed to load forward CUDA kernel '{kernel.key}' on {device}")
    return entry


def get_cuda_kernel_properties(kernel, device=None, block_dim: int | None = None) -> dict[str, int]:
    """{"register_count", "local_memory_size"} of the kernel's forward CUDA entry point on `device`
    (default: the current device): registers per thread and local (spill) memory per thread in
    bytes, as the driver reports them. RuntimeError on the CPU. `block_dim` is checked (a positive
    integer); warp_nb builds one binary for every block size, so it does not change the answer."""
    what = "get_cuda_kernel_properties"
    _check_kernel(kernel, what)
    _refuse_generic(kernel, what)
    dev = get_device(device)
    if not dev.is_cuda:
        raise RuntimeError(f"{what}() requires a CUDA device, got '{dev.alias}'")
    if block_dim is not None:
        _block_dim(block_dim)
    from ..cuda import driver as drv
    function = _cuda_function(kernel, dev)
    try:
        return {"register_count": drv.function_attribute(function, "CU_FUNC_ATTRIBUTE_NUM_REGS"),
                "local_memory_size": drv.function_attribute(function, "CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES")}
    except drv.CUDAError as e:
        raise RuntimeError(f"Failed to query CUDA kernel properties of '{kernel.key}' on {dev.alias}: {e}") from None


def get_suggested_block_size(kernel, device=None) -> tuple[int, int]:
    """(block size, minimum grid size) that the CUDA occupancy calculator suggests for the kernel on
    `device` (default: the current device); (1, 1) on the CPU."""
    what = "get_suggested_block_size"
    _check_kernel(kernel, what)
    dev = get_device(device)
    if not dev.is_cuda:
        return 1, 1
    _refuse_generic(kernel, what)
    from ..cuda import driver as drv
    function = _cuda_function(kernel, dev)
    dev.make_current()
    min_grid, block = drv.call("cuOccupancyMaxPotentialBlockSize", function, None, 0, 0)
    return int(block), int(min_grid)


def get_cuda_max_cluster_dim(kernel, device=None, *, block_dim: int | None = None,
                             dynamic_smem_bytes: int = 0) -> int:
    """The largest `cluster_dim` the kernel can launch with on `device`. warp_nb records a kernel's
    cluster_dim (checked, hashed) but launches CUDA kernels without clusters, on every device, so
    the answer is 1, as Warp's is on the CPU and on GPUs before sm_90. Changes no module option."""
    _check_kernel(kernel, "get_cuda_max_cluster_dim")
    get_device(device)  # (an unknown device is still an error)
    if block_dim is not None:
        _block_dim(block_dim)
    return 1
