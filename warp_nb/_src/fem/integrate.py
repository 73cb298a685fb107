"""`warp._src.fem.integrate`: what Warp's fem tests import from there. `_fem_bsr_triplet_maps` is
Warp's private name for the table of the triplet maps (`warp.sparse.BsrTripletMap`) of matrices
assembled with bsr_options construction "mapped" / "mapped_atomic": warp_nb.fem keeps the same table
(`warp_nb.fem.bsr_assembly.triplet_maps`, matrix -> the map of its last mapped assembly)."""

from warp_nb.fem.bsr_assembly import triplet_maps as _fem_bsr_triplet_maps  # noqa: F401
from warp_nb.fem.integrate import integrate  # noqa: F401
from warp_nb.fem.interpolate import interpolate  # noqa: F401
