"""`warp.fem.Sample`: the struct an integrand receives for the point it is evaluated at, and the
index types its fields use. Nothing here knows about domains, quadratures or kernels."""

from ..types import float32, int32, vec3
from ..types.structs import struct

ElementIndex = int32
QuadraturePointIndex = int32
DofIndex = int32
Coords = vec3


@struct
class Sample:
    """A point of an element where an integrand is evaluated: the element, its local coordinates,
    the quadrature point and its weight, and the test and trial degrees of freedom."""

    element_index: int32
    element_coords: vec3
    qp_index: int32
    qp_weight: float32
    test_dof: int32
    trial_dof: int32
