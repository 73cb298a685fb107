"""`warp._src.fem.operator`: Warp's integrand operators, as Warp's fem tests import them from there."""

from warp_nb.fem.operator import (  # noqa: F401
    D,
    Operator,
    curl,
    deformation_gradient,
    div,
    grad,
    inner,
    lookup,
    measure,
    measure_ratio,
    normal,
    position,
    scalar_type,
)
from warp_nb.fem.partition_operators import element_partition_index, node_partition_index, partition_lookup  # noqa: F401
