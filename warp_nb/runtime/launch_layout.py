"""The bytes of native/core/prelude.h `launch_t`, the bounds every entry point takes: shape[4],
ndim, `lead_div | one_lane` (one int32: the leading coordinate's divisor of a one-lane launch, or a
launch in blocks' flags), size. launch/bounds.py packs them; the targets, saved graphs and the
errors of failed checks read them."""

from __future__ import annotations

import struct

LAUNCH_T = struct.Struct("=4qiiq")


def launch_shape(bounds: bytes) -> tuple[tuple, int]:
    """(the four extents, how many of them the launch has)."""
    *shape, ndim, _, _ = LAUNCH_T.unpack_from(bounds)
    return tuple(shape), ndim


def launch_flags(bounds: bytes) -> int:
    """`one_lane` of a launch in blocks (launch/launcher.py _block_flags)."""
    return LAUNCH_T.unpack_from(bounds)[5]
