"""The values every part of `warp.fem` exchanges: the `Sample` an integrand receives, coordinates,
index types and their null values, element kinds, and the `Domain` / `Field` markers integrands
are annotated with. Nothing here knows about geometries, spaces or kernels."""

from __future__ import annotations

from enum import IntEnum

from ..program.func import func
from ..types import bool as bool_
from ..types import float32, float64, int32, vec2i, vec3, vec3d
from ..types.structs import struct

ElementIndex = int
QuadraturePointIndex = int
NodeIndex = int
#: a degree of freedom of an element as (node index in the element, component of the node's value)
DofIndex = vec2i
Coords = vec3
Coords_f64 = vec3d

NULL_ELEMENT_INDEX = -1
NULL_QP_INDEX = -1
NULL_NODE_INDEX = (1 << 31) - 1  # the largest int32: sorts after every real node
NULL_DOF_INDEX = vec2i(-1, -1)
#: the coordinate value of a point outside every element (what a failed lookup returns)
OUTSIDE = -1.0e8


class ElementKind(IntEnum):
    """What a domain's elements are: the geometry's cells, or its sides."""

    CELL = 0
    SIDE = 1


class Domain:
    """Annotation of an integrand parameter that receives the integration domain."""


class Field:
    """Annotation of an integrand parameter that receives a field (test, trial or discrete)."""


@struct
class Sample:
    """A point of an element where an integrand is evaluated: the element, its local coordinates,
    the quadrature point and its weight, and the test and trial degrees of freedom."""

    element_index: int32
    element_coords: vec3
    qp_index: int32
    qp_weight: float32
    test_dof: vec2i
    trial_dof: vec2i


@struct
class Sample_f64:
    """`Sample` of a double-precision geometry."""

    element_index: int32
    element_coords: vec3d
    qp_index: int32
    qp_weight: float64
    test_dof: vec2i
    trial_dof: vec2i


@struct
class NodeElementIndex:
    """A node seen from one of the elements that hold it."""

    domain_element_index: int32
    node_index_in_element: int32


#: Python scalar annotations (`x: float`) as the Warp types kernels give them
_PYTHON_SCALARS = {float: float32, int: int32, bool: bool_}


def warp_type(annotation):
    """`annotation` with a Python scalar type (float, int, bool) replaced by its Warp type."""
    return _PYTHON_SCALARS.get(annotation, annotation)


_SAMPLE_TYPES = {float32: Sample, float64: Sample_f64}
_COORDS_TYPES = {float32: Coords, float64: Coords_f64}


def cached_sample_type(scalar_type):
    """The Sample struct of a scalar type (float32 or float64)."""
    return _SAMPLE_TYPES[scalar_type]


def cached_coords_type(scalar_type):
    """The coordinates type of a scalar type (float32 or float64)."""
    return _COORDS_TYPES[scalar_type]


@func
def make_free_sample(element_index: int32, element_coords: vec3):
    """A sample at `element_coords` of `element_index` that belongs to no quadrature point and no dof."""
    return Sample(element_index, element_coords, NULL_QP_INDEX, 0.0, vec2i(-1, -1), vec2i(-1, -1))


@func
def make_free_sample(element_index: int32, element_coords: vec3d):  # noqa: F811 (an overload)
    return Sample_f64(element_index, element_coords, NULL_QP_INDEX, float64(0.0), vec2i(-1, -1), vec2i(-1, -1))


@func
def get_node_index_in_element(dof_idx: vec2i):
    return dof_idx[0]


@func
def get_node_coord(dof_idx: vec2i):
    return dof_idx[1]


@func
def make_coords(a: float32, b: float32, c: float32):
    return vec3(a, b, c)
