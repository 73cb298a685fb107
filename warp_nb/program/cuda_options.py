"""Warp's CUDA-only kernel options, checked as Warp checks them: `cluster_dim` (CTAs per thread
block cluster, 1 to 16), `cuda_max_registers` (a register cap per thread, not with `launch_bounds`),
`enable_cuda_smem_spilling` (a bool), `grid_stride`, and `entry_point_abi` ('warp', or
'external_constant_params': a CUDA entry point other programs launch). They change a CUDA binary,
never the CPU's, so warp_nb records them in `Kernel.options`, where they enter the module hash
(module_build.content_hash), and the generated C++ does not read them. A bad value is refused when
the kernel is defined (a module-level `cluster_dim` when the kernel is launched), naming the option.
Knows nothing about compiling or launching."""

from __future__ import annotations

#: the largest cluster CUDA allows with the non-portable cluster size enabled (Hopper and later)
MAX_CLUSTER_DIM = 16
ENTRY_POINT_ABIS = ("warp", "external_constant_params")


def check_cluster_dim(value) -> int:
    """`value` as a cluster size: an int from 1 to MAX_CLUSTER_DIM (a 1-D count of blocks; Warp's
    launch grid is 1-D, so there are no cluster shapes)."""
    if isinstance(value, bool):
        raise TypeError(f"cluster_dim must be an int count of blocks per cluster, got bool {value!r}")
    if not isinstance(value, int):
        raise TypeError(f"cluster_dim must be an int count of blocks per cluster (Warp's launch grid is 1-D, so "
                        f"there are no cluster shapes), got {type(value).__name__}: {value!r}")
    if value < 1:
        raise ValueError(f"cluster_dim must be >= 1, got {value}")
    if value > MAX_CLUSTER_DIM:
        raise ValueError(f"cluster_dim must be <= {MAX_CLUSTER_DIM} (the largest cluster CUDA allows), got {value}")
    return value


def check_max_registers(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"cuda_max_registers must be a positive int, got {type(value).__name__}: {value!r}")
    if value < 1:
        raise ValueError(f"cuda_max_registers must be >= 1, got {value}")
    return value


#: the keywords of @wp.kernel that only matter on CUDA (besides launch_bounds)
KERNEL_CUDA_OPTIONS = ("grid_stride", "cluster_dim", "cuda_max_registers", "enable_cuda_smem_spilling", "entry_point_abi")


def kernel_cuda_options(warp_only: dict, launch_bounds, enable_backward) -> dict:
    """The CUDA-only options of `@wp.kernel(**warp_only)`, checked, as Kernel.options holds them
    (an option left at its default is left out, so the kernel hashes as one without it)."""
    unknown = sorted(set(warp_only) - set(KERNEL_CUDA_OPTIONS))
    if unknown:
        hint = ""
        if "mode" in unknown:
            hint = (" (a kernel's mode comes from its module: module_options={'mode': 'debug'} with module='unique', "
                    "or wp.set_module_options)")
        raise TypeError(f"wp.kernel() got an unexpected keyword argument {unknown[0]!r}{hint}")
    options = {}
    if warp_only.get("grid_stride") is not None:
        options["grid_stride"] = bool(warp_only["grid_stride"])
    if warp_only.get("cluster_dim") is not None:
        options["cluster_dim"] = check_cluster_dim(warp_only["cluster_dim"])
    if warp_only.get("cuda_max_registers") is not None:
        options["cuda_max_registers"] = check_max_registers(warp_only["cuda_max_registers"])
        if launch_bounds is not None:  # both set the registers a thread may use: CUDA takes one
            raise ValueError("cuda_max_registers and launch_bounds cannot be specified together (both limit the "
                             "registers per thread); give one of them")
    spilling = warp_only.get("enable_cuda_smem_spilling")
    if spilling is not None and not isinstance(spilling, bool):
        raise TypeError(f"enable_cuda_smem_spilling must be a bool, got {type(spilling).__name__}: {spilling!r}")
    if spilling:  # False is the default: the same kernel as leaving it out
        options["enable_cuda_smem_spilling"] = True
    abi = warp_only.get("entry_point_abi")
    if abi is not None and abi not in ENTRY_POINT_ABIS:
        raise ValueError(f"entry_point_abi must be 'warp' or 'external_constant_params', got {abi!r}")
    if abi == "external_constant_params":
        if enable_backward is not False:
            raise ValueError("entry_point_abi='external_constant_params' requires enable_backward=False")
        options["entry_point_abi"] = abi
    return options


def module_cluster_dim(module):
    """The module's `cluster_dim` option, checked (None when not set): read when a kernel of it is
    launched, as Warp reads module options."""
    value = dict.get(module.options, "cluster_dim")
    return None if value is None else check_cluster_dim(value)


def cluster_dim_of(kernel):
    """The cluster size a kernel's CUDA build uses: its own option, else its module's (None: none)."""
    own = kernel.options.get("cluster_dim")
    return own if own is not None else module_cluster_dim(kernel.module)

