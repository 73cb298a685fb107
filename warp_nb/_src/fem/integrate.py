"""`warp._src.fem.integrate`: what Warp's fem tests import from there. `_fem_bsr_triplet_maps` is
the table Warp keeps of the triplet maps of matrices assembled with mapped assembly; warp_nb.fem
assembles generically (no such maps), so it stays empty."""

import weakref

from warp_nb.fem.integrate import integrate  # noqa: F401
from warp_nb.fem.interpolate import interpolate  # noqa: F401

_fem_bsr_triplet_maps = weakref.WeakKeyDictionary()
