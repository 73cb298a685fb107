"""`warp._src.fem.geometry`: re-exports of warp_nb.fem.geometry for Warp's tests."""
