"""The quadrature protocol the integration kernels call, and `RegularQuadrature`: the same rule
(points in reference coordinates and weights) on every element of a domain, taken from the
domain's reference element. Device functions take the domain's element arguments, the
quadrature's own `Arg`, the element's index in the domain and in the geometry, as Warp's do."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..domain import GeometryDomain
from ..precision import retype_members
from ..types import Coords, cached_coords_type
from ...arrays.array import array
from ...program.func import func
from ...types import float32, int32
from ...types.structs import struct


class Quadrature:
    """Interface of a quadrature over a domain: `Arg`, `arg_value(device)`, `point_count`,
    `point_coords`, `point_weight`, `point_index` (device functions), `total_point_count()`."""

    def __init__(self, domain: GeometryDomain):
        if not isinstance(domain, GeometryDomain):
            raise TypeError(f"a quadrature needs a fem domain (fem.Cells(geo), fem.Sides(geo), ...), got "
                            f"{type(domain).__name__} {domain!r}")
        self._domain = domain

    @property
    def domain(self) -> GeometryDomain:
        return self._domain

    @property
    def kernel_key(self):
        """What the kernels calling this quadrature's device functions depend on: the quadrature
        itself, unless (as a regular rule's, which reads its points from its argument struct) its
        functions are its class's."""
        return self

    def total_point_count(self) -> int:
        raise NotImplementedError

    def max_points_per_element(self) -> int:
        raise NotImplementedError


def _prototype(element):
    """The reference element class of an `Element` kind (or the element itself if it is one)."""
    from ..geometry.element import PROTOTYPES
    return PROTOTYPES.get(element, element)


_RULES: dict = {}


def _reference_rule(prototype, order: int, family) -> tuple:
    """(points padded to 3 coordinates, weights) of the reference element's rule, as tuples of floats:
    computed once per (element, order, family), since the Newton iterations behind Gauss points cost more
    than a small integral."""
    try:
        key = (prototype, order, family)
        cached = _RULES.get(key)
    except TypeError:  # an element that cannot be a key: computed every time
        key, cached = None, None
    if cached is None:
        points, weights = prototype.instantiate_quadrature(order, family)
        cached = (tuple(tuple(float(c) for c in p) + (0.0,) * (3 - len(p)) for p in points),
                  tuple(float(w) for w in weights))
        if key is not None:
            _RULES[key] = cached
    return cached


def default_quadrature(domain: GeometryDomain, order: int) -> "RegularQuadrature":
    """The Gauss rule of `order` on `domain` that integrate and interpolate use when given none: one
    object per domain and order, kept on the domain, so that its point arrays are made once rather than
    at every call (the rule depends only on the domain's reference element; counts are read live)."""
    try:
        rules = domain._fem_default_quadratures
    except AttributeError:
        rules = domain._fem_default_quadratures = {}
    rule = rules.get(order)
    if rule is None:
        rule = rules[order] = RegularQuadrature(domain, order=order)
    return rule


@struct
class RegularQuadratureArg:
    """The points (reference coordinates) and weights of a regular rule."""

    points: array(dtype=Coords)
    weights: array(dtype=float32)


class RegularQuadrature(Quadrature):
    """The reference element's rule of `order` (exact for polynomials of that degree) in `family`
    (Warp's `fem.Polynomial`; Gauss-Legendre by default) on every element of `domain`."""

    Arg = RegularQuadratureArg

    def __init__(self, domain: GeometryDomain, order: int, family=None):
        super().__init__(domain)
        if not isinstance(order, (int, np.integer)) or order < 0:
            raise ValueError(f"RegularQuadrature: `order` must be a non-negative integer, got {order!r}")
        self.order = int(order)
        self.family = family  # None: the element's default rules (symmetric tables on simplices, as Warp)
        element = domain.reference_element()
        prototype = getattr(element, "prototype", None) or _prototype(element)
        points, weights = _reference_rule(prototype, self.order, family)
        self.points, self.weights = list(points), list(weights)  # (lists, as before the rules were cached)
        self._args: dict = {}
        retype_members(self, domain.geometry.scalar_type)

    @property
    def name(self) -> str:
        return f"{type(self).__name__}_{self.order}_{self.family}"

    @property
    def kernel_key(self):
        return RegularQuadrature  # (a new rule per integrate call would otherwise build new kernels)

    def max_points_per_element(self) -> int:
        return len(self.weights)

    def total_point_count(self) -> int:
        return len(self.weights) * self.domain.element_count()

    def arg_value(self, device):
        arg = self._args.get(str(device))
        if arg is None:
            arg = self._args[str(device)] = self.Arg()
            scalar = self.domain.geometry.scalar_type
            arg.points = array(np.array(self.points).reshape(-1, 3), dtype=cached_coords_type(scalar), device=device)
            arg.weights = array(np.array(self.weights), dtype=scalar, device=device)
        return arg

    @func
    def point_count(elt_arg: Any, qp_arg: RegularQuadratureArg, domain_index: int32,
                    element_index: int32):
        return qp_arg.points.shape[0]

    @func
    def point_coords(elt_arg: Any, qp_arg: RegularQuadratureArg, domain_index: int32,
                     element_index: int32, index: int32):
        return qp_arg.points[index]

    @func
    def point_weight(elt_arg: Any, qp_arg: RegularQuadratureArg, domain_index: int32,
                     element_index: int32, index: int32):
        return qp_arg.weights[index]

    @func
    def point_index(elt_arg: Any, qp_arg: RegularQuadratureArg, domain_index: int32,
                    element_index: int32, index: int32):
        return domain_index * qp_arg.points.shape[0] + index
