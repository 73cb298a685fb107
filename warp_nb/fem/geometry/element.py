"""Reference elements of `warp.fem`: the unit segment, square and cube, and the unit triangle and
tetrahedron, with their measures, centres and regular quadrature rules (host lists of `Coords` tuples and
weights summing to 1), plus the device functions that move between element coordinates and reference
displacements. Knows nothing about geometries, cells or shape functions.

Coordinates follow Warp: segment, square and cube use (x, y, z) in [0, 1]^d padded with zeros; the
triangle uses barycentric coordinates (1 - x - y, x, y); the tetrahedron uses Cartesian (x, y, z)."""

from enum import IntEnum

import numpy as np

import warp_nb as wp

from ..polynomial import Polynomial, quadrature_1d

_vec1 = wp.vector(length=1, dtype=wp.float32)


class Element(IntEnum):
    """The kinds of reference element."""

    LINE_SEGMENT = 1
    SQUARE = 2
    CUBE = 3
    TRIANGLE = 4
    TETRAHEDRON = 5

    @property
    def prototype(self) -> type:
        """The reference element's class (`PrototypeElement` subclass)."""
        return PROTOTYPES[self]


def _point_count_from_order(order: int, family: Polynomial) -> int:
    """Points per direction for which `family` integrates polynomials of degree `order` exactly."""
    family = Polynomial(family)
    if family == Polynomial.GAUSS_LEGENDRE:
        return order // 2 + 1
    if family == Polynomial.LOBATTO_GAUSS_LEGENDRE:
        return order // 2 + 2
    if family == Polynomial.EQUISPACED_CLOSED:
        # Newton-Cotes with an odd point count is exact one degree higher, so odd counts are used.
        return max(2, 2 * (order // 2) + 1)
    return 2 * (order // 2) + 1


def _check_order(order) -> int:
    if int(order) != order or order < 0:
        raise ValueError(f"quadrature order must be a non-negative integer, got {order!r}")
    return int(order)


def _tensor_rule(order: int, family, dimension: int):
    """Tensor product of 1-D rules, last axis fastest (Warp's point order)."""
    family = Polynomial.GAUSS_LEGENDRE if family is None else family
    pts, wts = quadrature_1d(_point_count_from_order(order, family), family)
    coords, weights = [], []
    for idx in np.ndindex(*([len(pts)] * dimension)):
        c = [float(pts[i]) for i in idx] + [0.0] * (3 - dimension)
        coords.append(tuple(c))
        weights.append(float(np.prod([wts[i] for i in idx])))
    return coords, weights


def _collapsed_rule(order: int, family, dimension: int):
    """A square / cube rule mapped onto the simplex (Duffy collapse). The Jacobian (1-u)^(d-1) (1-v)^(d-2)
    raises the degree along the collapsed axes, so those get more points (on the triangle both axes get
    order + 1, as Warp does; on the tetrahedron Warp's rule is not exact even for constants, ours is).
    Weights are relative to the simplex's measure (they sum to 1)."""
    extra = (1, 1) if dimension == 2 else (2, 1, 0)
    rules = [quadrature_1d(_point_count_from_order(order + e, family), family) for e in extra]
    coords, weights = [], []
    for idx in np.ndindex(*(len(r[0]) for r in rules)):
        u = [float(rules[a][0][i]) for a, i in enumerate(idx)]
        w = float(np.prod([rules[a][1][i] for a, i in enumerate(idx)]))
        if dimension == 2:
            x, y = u[0], u[1] * (1.0 - u[0])
            coords.append((1.0 - x - y, x, y))
            weights.append(2.0 * w * (1.0 - u[0]))
        else:
            x = u[0]
            y = u[1] * (1.0 - x)
            z = u[2] * (1.0 - x) * (1.0 - u[1])
            coords.append((x, y, z))
            weights.append(6.0 * w * (1.0 - u[0]) ** 2 * (1.0 - u[1]))
    return coords, weights


def _triangle_symmetric_rule(order: int):
    """Small symmetric rules on the triangle (barycentric points) for low orders; None past them."""
    if order <= 1:
        return [(1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0)], [1.0]
    if order == 2:
        a, b = 2.0 / 3.0, 1.0 / 6.0
        return [(a, b, b), (b, a, b), (b, b, a)], [1.0 / 3.0] * 3
    if order <= 6:  # Dunavant's symmetric rules (1985), as Warp uses up to this order
        return _orbits(_DUNAVANT[order])
    return None


#: Dunavant's rules of degree 3 to 6 on the triangle: per orbit, its barycentric generator and the
#: weight of each of its points (weights sum to one over the triangle)
_DUNAVANT = {
    3: [((1.0 / 3.0, 1.0 / 3.0), -27.0 / 48.0), ((0.6, 0.2), 25.0 / 48.0)],
    4: [((0.445948490915965, 0.445948490915965), 0.223381589678011),
        ((0.091576213509771, 0.091576213509771), 0.109951743655322)],
    5: [((1.0 / 3.0, 1.0 / 3.0), 0.225), ((0.470142064105115, 0.470142064105115), 0.132394152788506),
        ((0.101286507323456, 0.101286507323456), 0.125939180544827)],
    6: [((0.249286745170910, 0.249286745170910), 0.116786275726379),
        ((0.063089014491502, 0.063089014491502), 0.050844906370207),
        ((0.053145049844817, 0.310352451033784), 0.082851075618374)],
}


def _orbits(rule):
    """Points and weights of a symmetric triangle rule given by orbit generators (a, b): the distinct
    permutations of the barycentric point (a, b, 1 - a - b)."""
    import itertools
    points, weights = [], []
    for (a, b), w in rule:
        seen = set()
        for p in itertools.permutations((a, b, 1.0 - a - b)):
            key = tuple(round(x, 12) for x in p)
            if key not in seen:
                seen.add(key)
                points.append(p)
                weights.append(w)
    return points, weights


def _tetrahedron_symmetric_rule(order: int):
    """Small symmetric rules on the tetrahedron (Cartesian points) for low orders; None past them."""
    if order <= 1:
        return [(0.25, 0.25, 0.25)], [1.0]
    if order == 2:
        a = (5.0 - np.sqrt(5.0)) / 20.0
        b = 1.0 - 3.0 * a
        return [(a, a, a), (b, a, a), (a, b, a), (a, a, b)], [0.25] * 4
    return None


@wp.func
def _clamp01(v: wp.vec3):
    return wp.vec3(wp.clamp(v[0], 0.0, 1.0), wp.clamp(v[1], 0.0, 1.0), wp.clamp(v[2], 0.0, 1.0))


@wp.func
def _simplex_project4(b: wp.vec4, n: int):
    """Euclidean projection of the first n entries of b onto the probability simplex (sum 1, each >= 0),
    by repeatedly shifting the active entries and dropping those that go negative (Michelot)."""
    active = wp.vec4(1.0, 1.0, 1.0, 1.0)
    for _ in range(n):
        total = 0.0
        count = 0.0
        for i in range(n):
            total += active[i] * b[i]
            count += active[i]
        shift = (total - 1.0) / count
        clipped = 0
        for i in range(n):
            if active[i] > 0.0:
                b[i] = b[i] - shift
                if b[i] < 0.0:
                    b[i] = 0.0
                    active[i] = 0.0
                    clipped += 1
        if clipped == 0:
            return b
    return b


class PrototypeElement:
    """A reference element: dimension, measure, centre and quadrature rules."""

    dimension = 0

    @staticmethod
    def measure() -> float:
        raise NotImplementedError

    @staticmethod
    def instantiate_quadrature(order: int, family: Polynomial):
        raise NotImplementedError

    @classmethod
    def center(cls):
        coords, _ = cls.instantiate_quadrature(order=0, family=None)
        return coords[0]

    @wp.func
    def project(v: wp.vec3):
        """The closest point of the element (clamped to the unit cube by default)."""
        return _clamp01(v)

    @wp.func
    def ref_delta(coord_delta: wp.vec3):
        """A displacement in element coordinates as a displacement of the reference frame."""
        return coord_delta

    @wp.func
    def coord_delta(ref_delta: wp.vec3):
        """A displacement of the reference frame as a displacement in element coordinates."""
        return ref_delta


class LinearEdge(PrototypeElement):
    """The unit segment [0, 1]; coordinates (x, 0, 0)."""

    dimension = 1

    @staticmethod
    def measure() -> float:
        return 1.0

    @staticmethod
    def instantiate_quadrature(order: int, family: Polynomial):
        return _tensor_rule(_check_order(order), family, 1)

    @classmethod
    def center(cls):
        return (0.5, 0.0, 0.0)

    @wp.func
    def ref_delta(coord_delta: wp.vec3):
        return _vec1(coord_delta[0])

    @wp.func
    def coord_delta(ref_delta: _vec1):
        return wp.vec3(ref_delta[0], 0.0, 0.0)


class Square(PrototypeElement):
    """The unit square [0, 1]^2; coordinates (x, y, 0)."""

    dimension = 2

    @staticmethod
    def measure() -> float:
        return 1.0

    @staticmethod
    def instantiate_quadrature(order: int, family: Polynomial):
        return _tensor_rule(_check_order(order), family, 2)

    @classmethod
    def center(cls):
        return (0.5, 0.5, 0.0)

    @wp.func
    def project(v: wp.vec3):
        return wp.vec3(wp.clamp(v[0], 0.0, 1.0), wp.clamp(v[1], 0.0, 1.0), 0.0)

    @wp.func
    def ref_delta(coord_delta: wp.vec3):
        return wp.vec2(coord_delta[0], coord_delta[1])

    @wp.func
    def coord_delta(ref_delta: wp.vec2):
        return wp.vec3(ref_delta[0], ref_delta[1], 0.0)


class Cube(PrototypeElement):
    """The unit cube [0, 1]^3."""

    dimension = 3

    @staticmethod
    def measure() -> float:
        return 1.0

    @staticmethod
    def instantiate_quadrature(order: int, family: Polynomial):
        return _tensor_rule(_check_order(order), family, 3)

    @classmethod
    def center(cls):
        return (0.5, 0.5, 0.5)


class Triangle(PrototypeElement):
    """The unit triangle (0,0), (1,0), (0,1); barycentric coordinates (1 - x - y, x, y)."""

    dimension = 2

    @staticmethod
    def measure() -> float:
        return 0.5

    @staticmethod
    def instantiate_quadrature(order: int, family: Polynomial):
        order = _check_order(order)
        if family is None:
            rule = _triangle_symmetric_rule(order)
            # past the small symmetric rules, a collapsed Gauss-Legendre rule (see docs/compat.md)
            return rule if rule is not None else _collapsed_rule(order, Polynomial.GAUSS_LEGENDRE, 2)
        return _collapsed_rule(order, Polynomial(family), 2)

    @classmethod
    def center(cls):
        return (1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0)

    @wp.func
    def project(v: wp.vec3):
        p = _simplex_project4(wp.vec4(v[0], v[1], v[2], 0.0), 3)
        return wp.vec3(p[0], p[1], p[2])

    @wp.func
    def ref_delta(coord_delta: wp.vec3):
        return wp.vec2(coord_delta[1], coord_delta[2])

    @wp.func
    def coord_delta(ref_delta: wp.vec2):
        return wp.vec3(-ref_delta[0] - ref_delta[1], ref_delta[0], ref_delta[1])


class Tetrahedron(PrototypeElement):
    """The unit tetrahedron (0,0,0), (1,0,0), (0,1,0), (0,0,1); Cartesian coordinates (x, y, z)."""

    dimension = 3

    @staticmethod
    def measure() -> float:
        return 1.0 / 6.0

    @staticmethod
    def instantiate_quadrature(order: int, family: Polynomial):
        order = _check_order(order)
        if family is None:
            rule = _tetrahedron_symmetric_rule(order)
            return rule if rule is not None else _collapsed_rule(order, Polynomial.GAUSS_LEGENDRE, 3)
        return _collapsed_rule(order, Polynomial(family), 3)

    @classmethod
    def center(cls):
        return (0.25, 0.25, 0.25)

    @wp.func
    def project(v: wp.vec3):
        p = _simplex_project4(wp.vec4(1.0 - v[0] - v[1] - v[2], v[0], v[1], v[2]), 4)
        return wp.vec3(p[1], p[2], p[3])


PROTOTYPES = {
    Element.LINE_SEGMENT: LinearEdge,
    Element.SQUARE: Square,
    Element.CUBE: Cube,
    Element.TRIANGLE: Triangle,
    Element.TETRAHEDRON: Tetrahedron,
}
"""The prototype class of each kind of element."""
