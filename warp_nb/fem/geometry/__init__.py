"""`warp.fem` geometries (built by the geometry part); element.py holds the reference elements."""
