"""`warp._src.fem`: the private paths of Warp's finite-element library that its tests import, as thin
re-exports of warp_nb.fem."""
