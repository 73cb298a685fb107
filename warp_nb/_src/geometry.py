"""`warp._src.geometry`: what Warp's geometry tests import from it. `surface_nets` is an attribute (the
tests only `from warp._src.geometry import surface_nets`), so this stays one module."""

from . import geometry_surface_nets as surface_nets  # noqa: F401
