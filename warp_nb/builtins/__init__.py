"""Builtin declarations, one module per native header family. Importing this package fills
`registry.BUILTINS`; nothing else happens here."""

from . import (arrays, checks, dense, geometry, geometry_tiled, linalg, mat_decomp, noise, operators, primitives, quat_euler,  # noqa: F401
               random, scalar_math, spatial, special, textures, tiles)
