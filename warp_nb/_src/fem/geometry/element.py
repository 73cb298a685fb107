"""`warp._src.fem.geometry.element`: the reference elements (and `Polynomial`) Warp's tests import."""

from ....fem.geometry.element import (  # noqa: F401
    Cube,
    Element,
    LinearEdge,
    PrototypeElement,
    Square,
    Tetrahedron,
    Triangle,
)
from ....fem.polynomial import Polynomial  # noqa: F401
