"""Stand-in for `fem.Element` until helper fem-shape's `element.py` lands: the enum of reference
elements with the one property the geometries need (`prototype.measure()` / `.dimension`).
Removed when element.py is merged."""

from enum import IntEnum


class _Prototype:
    def __init__(self, dimension: int, measure: float):
        self.dimension = dimension
        self._measure = measure

    def measure(self) -> float:
        return self._measure


class Element(IntEnum):
    LINE_SEGMENT = 1
    SQUARE = 2
    CUBE = 3
    TRIANGLE = 4
    TETRAHEDRON = 5

    @property
    def prototype(self) -> _Prototype:
        dim, measure = {1: (1, 1.0), 2: (2, 1.0), 3: (3, 1.0), 4: (2, 0.5), 5: (3, 1.0 / 6.0)}[int(self)]
        return _Prototype(dim, measure)
