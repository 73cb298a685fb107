"""`warp._src.dlpack`: the name Warp's tests call to import a capsule (`_from_dlpack`)."""

from ..arrays.dlpack import from_dlpack as _from_dlpack  # noqa: F401
