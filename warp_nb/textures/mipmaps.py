"""Mip chains: how many levels a texture may have, each level's size, and the levels themselves
(each texel the mean of the 2, 4 or 8 texels it covers one level up). Works on numpy arrays
shaped (depth, height, width, channels) or the user's own layout; knows nothing about devices."""

from __future__ import annotations

import numpy as np

MAX_LEVELS = 16  # the descriptor's storage table (native/textures/texture.h)


def max_levels(sizes: tuple) -> int:
    """Levels of a full chain down to 1 texel on the longest axis: floor(log2(max size)) + 1."""
    return int(max(sizes)).bit_length()


def level_count(sizes: tuple, requested: int) -> int:
    """`num_mip_levels` made concrete: 0 asks for the full chain; otherwise 1 .. max_levels(sizes)."""
    if isinstance(requested, bool) or not isinstance(requested, (int, np.integer)):
        raise TypeError(f"num_mip_levels must be an int, got {type(requested).__name__}")
    limit = min(max_levels(sizes), MAX_LEVELS)
    if requested == 0:
        return limit
    if requested < 0 or requested > limit:
        raise ValueError(f"num_mip_levels ({requested}) must be between 0 (the full chain) and {limit}, the maximum "
                         f"for base size {tuple(sizes)}")
    return int(requested)


def level_sizes(sizes: tuple, levels: int) -> list[tuple]:
    """Each level's size per axis: max(1, size >> level)."""
    return [tuple(max(1, int(n) >> k) for n in sizes) for k in range(levels)]


def downsample(level: np.ndarray, spatial_axes: tuple) -> np.ndarray:
    """The next level of `level` (float64): along each spatial axis longer than 1, the mean of texel
    pairs (2i, 2i + 1); an odd last texel is dropped, as the level is half the size, rounded down."""
    out = level
    for axis in spatial_axes:
        n = out.shape[axis]
        if n == 1:
            continue
        half = n // 2
        even = np.take(out, np.arange(0, 2 * half, 2), axis=axis)
        odd = np.take(out, np.arange(1, 2 * half, 2), axis=axis)
        out = 0.5 * even + 0.5 * odd  # halves first: values near float32's limit do not overflow a sum
    return out


def chain(base: np.ndarray, ndim: int, levels: int) -> list[np.ndarray]:
    """`levels` arrays, the base first, in base's dtype; means are taken in float64 (integers rounded
    to the nearest value), so constants, subnormals and values near the limits stay exact."""
    out = [base]
    current = base.astype(np.float64)
    for _ in range(1, levels):
        current = downsample(current, tuple(range(ndim)))
        if np.issubdtype(base.dtype, np.integer):
            info = np.iinfo(base.dtype)
            out.append(np.clip(np.rint(current), info.min, info.max).astype(base.dtype))
        else:
            out.append(current.astype(base.dtype))
    return out
