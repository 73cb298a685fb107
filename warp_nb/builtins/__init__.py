"""Builtin declarations, one module per native header family. Importing this package fills
`registry.BUILTINS`; nothing else happens here."""

from . import arrays, checks, geometry, linalg, operators, primitives, random, scalar_math, special  # noqa: F401
