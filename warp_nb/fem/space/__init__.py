"""`warp.fem.space`: function spaces (the lead's part) and their shape functions (shape/)."""
