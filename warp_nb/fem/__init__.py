"""`warp.fem` (finite elements), being built one piece at a time. What is here: the `Sample` struct
an integrand receives (sample.py) and the `@integrand` decorator with its `Integrand` record
(integrand.py). Domains, geometries, function spaces, fields, quadratures and the `integrate` /
`interpolate` drivers are not here yet: asking for one raises an error that says so (see
docs/compat.md)."""

from . import cache  # noqa: F401
from .cache import (  # noqa: F401
    Temporary,
    TemporaryStore,
    borrow_temporary,
    borrow_temporary_like,
    set_default_temporary_store,
)
from .geometry.element import Element  # noqa: F401
from .integrand import Integrand, integrand  # noqa: F401
from .polynomial import Polynomial  # noqa: F401
from .sample import Coords, DofIndex, ElementIndex, QuadraturePointIndex, Sample  # noqa: F401
from .space.shape import ElementBasis, ShapeFunction  # noqa: F401


def __getattr__(name):
    raise AttributeError(f"warp.fem.{name} is not available in warp_nb yet: only Sample, integrand and Integrand "
                         "are (finite elements are planned; see docs/compat.md)")
