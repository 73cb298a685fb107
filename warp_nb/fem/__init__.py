"""`warp.fem` (finite elements), built one concept per module:

- `types.py`: Sample, coordinates, index types, the Domain / Field annotations;
- `integrand.py`: the `@integrand` decorator and its record;
- `domain.py`: where to integrate (a geometry's cells, sides, boundary sides);
- `quadrature/`: which points of each element (regular rules);
- `space/`: function spaces (node topology + shape functions);
- `field/`: test, trial and discrete fields and how integrands evaluate them;
- `operator.py`: the operators integrands call (`grad`, `div`, `position`, ...);
- `integrate.py`: `integrate` and `interpolate`, which specialise an integrand for the concrete
  fields and domain they are given and generate, build and launch the kernels.

Names of Warp's `warp.fem` that are not here yet raise an error that says so (docs/compat.md)."""

from . import cache  # noqa: F401
from .cache import (  # noqa: F401
    Temporary,
    TemporaryStore,
    borrow_temporary,
    borrow_temporary_like,
    set_default_temporary_store,
)
from .integrand import Integrand, integrand  # noqa: F401
from .types import (  # noqa: F401
    NULL_ELEMENT_INDEX, NULL_NODE_INDEX, NULL_QP_INDEX, OUTSIDE, Coords, Coords_f64, Domain, ElementIndex, ElementKind,
    Field, NodeIndex, QuadraturePointIndex, Sample, Sample_f64, make_free_sample,
)


def __getattr__(name):
    raise AttributeError(f"warp.fem.{name} is not available in warp_nb yet (finite elements are being built; "
                         "see docs/compat.md for what is there)")
