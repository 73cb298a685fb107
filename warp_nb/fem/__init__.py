"""`warp.fem` (finite elements) is not part of warp_nb yet. This module holds the one piece other
code already reaches for, the `Sample` struct; anything else raises an error that says so (see
docs/compat.md)."""

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


def __getattr__(name):
    raise AttributeError(f"warp.fem.{name} is not available in warp_nb yet: only Sample is "
                         "(finite elements are planned; see docs/compat.md)")
