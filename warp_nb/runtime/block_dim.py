"""A launch's `block_dim` as the lanes a block has on a device (Warp's rule). In: the device and the
block_dim a launch, a load or a recorded command asked for (None: not asked). Out: the lanes. On
the CPU a block has one lane unless wp.config.enable_cpu_blocks is set, and asks for more than one;
on CUDA it has block_dim threads (256 when not asked). Knows nothing about kernels or launches."""

from __future__ import annotations

from .. import config

#: the most lanes a CPU block may have (as on CUDA), refused whether CPU blocks are enabled or not,
#: so a program does not start failing when they are
CPU_MAX_BLOCK_DIM = 1024


class ResolvedBlockDim(int):
    """A block dim already resolved for its device: taken as it is. A Tape's backward pass and a
    recorded command replay with the lanes their forward launch ran with, whatever
    wp.config.enable_cpu_blocks says by then."""


def resolve_block_dim(device, block_dim) -> ResolvedBlockDim:
    """The lanes of a block of a launch on `device` asking for `block_dim` (see the module docstring).
    ValueError for more than 1024."""
    if isinstance(block_dim, ResolvedBlockDim):
        return block_dim
    requested = None if block_dim is None else int(block_dim)
    if device.is_cpu:
        if requested is not None and requested > CPU_MAX_BLOCK_DIM:
            raise ValueError(f"block_dim must be at most {CPU_MAX_BLOCK_DIM} on CPU, got {block_dim}")
        if requested is None or requested < 1 or not config.enable_cpu_blocks:
            return ResolvedBlockDim(1)
        return ResolvedBlockDim(requested)
    lanes = 256 if requested is None or requested <= 0 else requested
    if lanes > 1024:
        raise ValueError(f"block_dim must be at most 1024 (the threads of a CUDA block), got {block_dim}")
    return ResolvedBlockDim(lanes)
