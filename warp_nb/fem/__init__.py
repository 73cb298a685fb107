"""`warp.fem` (finite elements), being built one piece at a time. What is here: the `Sample` struct
an integrand receives (sample.py) and the `@integrand` decorator with its `Integrand` record
(integrand.py). Domains, geometries, function spaces, fields, quadratures and the `integrate` /
`interpolate` drivers are not here yet: asking for one raises an error that says so (see
docs/compat.md)."""

from .geometry import (Geometry, Grid2D, Grid3D, Hexmesh, Quadmesh, Quadmesh2D, Quadmesh3D, Tetmesh,  # noqa: F401
                       Trimesh, Trimesh2D, Trimesh3D)
from .integrand import Integrand, integrand  # noqa: F401
from .sample import Coords, DofIndex, ElementIndex, QuadraturePointIndex, Sample  # noqa: F401


def __getattr__(name):
    raise AttributeError(f"warp.fem.{name} is not available in warp_nb yet: only Sample, integrand and Integrand "
                         "are (finite elements are planned; see docs/compat.md)")
