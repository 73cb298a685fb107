"""`fem.ExplicitQuadrature`: points and weights given per element, as two 2-d arrays of shape
(elements, points per element). The rows are the domain's elements, or the whole geometry's
(cells or sides) when there are that many rows, as Warp's; a point's index is row * points per
element + its rank in the row."""

from __future__ import annotations

from typing import Any

from ...arrays.array import array, array2d
from ...program.func import func
from ...runtime.devices import get_device
from ...types import float32, int32
from ...types.structs import struct
from ..domain import GeometryDomain
from ..precision import retype_members
from ..types import Coords, cached_coords_type
from .quadrature import Quadrature


@struct
class ExplicitQuadratureArg:
    """The points (reference coordinates) and weights of every row (element)."""

    points: array2d(dtype=Coords)
    weights: array2d(dtype=float32)


class ExplicitQuadrature(Quadrature):
    """Quadrature whose `points` (wp.array2d of Coords) and `weights` (wp.array2d of float) are given
    for each element of `domain`, or of its geometry."""

    Arg = ExplicitQuadratureArg

    def __init__(self, domain: GeometryDomain, points: array, weights: array):
        super().__init__(domain)
        scalar = domain.geometry.scalar_type  # a float64 geometry takes vec3d points and float64 weights
        for name, a, dtype in (("points", points, cached_coords_type(scalar)), ("weights", weights, scalar)):
            if not isinstance(a, array) or a.ndim != 2 or a.dtype is not dtype:
                got = type(a).__name__ if not isinstance(a, array) else f"an array of {a.dtype.__name__} with " \
                                                                          f"{a.ndim} dims"
                raise TypeError(f"fem.ExplicitQuadrature: `{name}` must be a wp.array2d of {dtype.__name__}, got {got}")
        if points.shape != weights.shape:
            raise ValueError(f"fem.ExplicitQuadrature: `points` and `weights` must have the same shape, got "
                             f"{points.shape} and {weights.shape}")
        rows = points.shape[0]
        if rows == domain.element_count():
            # rows are the domain's elements (also when the domain is the whole geometry)
            self.point_coords, self.point_weight, self.point_index = _by_domain_element
        elif rows == domain.geometry_element_count():
            self.point_coords, self.point_weight, self.point_index = _by_geometry_element
        else:
            raise ValueError(f"fem.ExplicitQuadrature: `points` needs one row per element of {domain.name} "
                             f"({domain.element_count()}) or of its geometry ({domain.geometry_element_count()}), "
                             f"has {rows}")
        self._points, self._weights = points, weights
        self._args: dict = {}
        retype_members(self, scalar)

    @property
    def name(self) -> str:
        return f"{type(self).__name__}_{self._points.shape[1]}"

    def max_points_per_element(self) -> int:
        return self._points.shape[1]

    def total_point_count(self) -> int:
        return self._points.shape[0] * self._points.shape[1]

    def evaluation_point_count(self) -> int:
        return self.domain.element_count() * self._points.shape[1]

    def arg_value(self, device):
        device = get_device(device)
        arg = self._args.get(str(device))
        if arg is None:
            arg = self._args[str(device)] = self.Arg()
            arg.points = self._points.to(device)
            arg.weights = self._weights.to(device)
        return arg

    @func
    def point_count(elt_arg: Any, qp_arg: ExplicitQuadratureArg, domain_index: int32, element_index: int32):
        return qp_arg.points.shape[1]


@func
def _coords_by_domain(elt_arg: Any, qp_arg: ExplicitQuadratureArg, domain_index: int32, element_index: int32,
                      index: int32):
    return qp_arg.points[domain_index, index]


@func
def _weight_by_domain(elt_arg: Any, qp_arg: ExplicitQuadratureArg, domain_index: int32, element_index: int32,
                      index: int32):
    return qp_arg.weights[domain_index, index]


@func
def _index_by_domain(elt_arg: Any, qp_arg: ExplicitQuadratureArg, domain_index: int32, element_index: int32,
                     index: int32):
    return domain_index * qp_arg.points.shape[1] + index


@func
def _coords_by_geometry(elt_arg: Any, qp_arg: ExplicitQuadratureArg, domain_index: int32, element_index: int32,
                        index: int32):
    return qp_arg.points[element_index, index]


@func
def _weight_by_geometry(elt_arg: Any, qp_arg: ExplicitQuadratureArg, domain_index: int32, element_index: int32,
                        index: int32):
    return qp_arg.weights[element_index, index]


@func
def _index_by_geometry(elt_arg: Any, qp_arg: ExplicitQuadratureArg, domain_index: int32, element_index: int32,
                       index: int32):
    return element_index * qp_arg.points.shape[1] + index


_by_domain_element = (_coords_by_domain, _weight_by_domain, _index_by_domain)
_by_geometry_element = (_coords_by_geometry, _weight_by_geometry, _index_by_geometry)
