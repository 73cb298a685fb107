"""`warp._src.geometry`: the tables of Warp's geometry builders that its tests read."""

from . import surface_nets  # noqa: F401
