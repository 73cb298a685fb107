"""`fem.NodalQuadrature`: the nodes of a function space as quadrature points, each weighted by its
nodal quadrature weight (the shape function's), on the cells of a domain. A point's index is the
node's index in the space, so values written at the points of an interpolation are node values.
Unlike `integrate(..., assembly="nodal")` this assumes nothing about the integrand: it is a
quadrature like the others (exact to the order of the nodes' rule)."""

from __future__ import annotations

from typing import Any

from ...program.func import func
from ...types import int32
from ..domain import GeometryDomain
from ..types import ElementKind
from .quadrature import Quadrature


class NodalQuadrature(Quadrature):
    """The nodes of `space` in each cell of `domain`, with their nodal weights. Its `Arg` is the
    space's topology argument."""

    def __init__(self, domain: GeometryDomain, space=None, basis_space=None, space_partition=None):
        super().__init__(domain)
        if basis_space is not None or space_partition is not None:
            raise NotImplementedError("fem.NodalQuadrature: `basis_space` and `space_partition` are not supported by "
                                      "warp_nb.fem yet; pass the function space as `space`")
        if space is None or not hasattr(space, "node_coords_in_element"):
            raise TypeError(f"fem.NodalQuadrature: `space` must be a fem function space (fem.make_polynomial_space"
                            f"(...)), got {type(space).__name__}")
        if domain.element_kind != ElementKind.CELL:
            raise NotImplementedError(f"fem.NodalQuadrature: only cell domains are supported by warp_nb.fem, got "
                                      f"{domain.name}")
        if space.geometry is not domain.geometry:
            raise ValueError(f"fem.NodalQuadrature: `space` is defined on {space.geometry.name}, `domain` on "
                             f"{domain.geometry.name}")
        self.space = space
        self.Arg = space.SpaceArg
        (self.point_count, self.point_coords, self.point_weight,
         self.point_index) = _node_functions(space)

    @property
    def name(self) -> str:
        return f"{type(self).__name__}_{self.domain.name}_{self.space.name}"

    def max_points_per_element(self) -> int:
        return self.space.NODES_PER_ELEMENT

    def total_point_count(self) -> int:
        return self.space.node_count()

    def evaluation_point_count(self) -> int:
        return self.domain.element_count() * self.space.NODES_PER_ELEMENT

    def arg_value(self, device):
        return self.space.space_arg_value(device)


def _node_functions(space):
    """(point_count, point_coords, point_weight, point_index) device functions for the nodes of
    `space`: made once per shape function and topology (what they read)."""
    shape, topology = space.shape, space.topology
    key = (id(shape), id(topology))
    cached = _NODE_FUNCTIONS.get(key)
    if cached is not None and cached[0] is shape and cached[1] is topology:
        return cached[2]
    nodes = space.NODES_PER_ELEMENT
    node_coords = space.node_coords_in_element
    node_weight = shape.make_node_quadrature_weight()
    node_index = space.element_node_index

    @func
    def point_count(elt_arg: Any, qp_arg: Any, domain_index: int32, element_index: int32):
        return nodes

    @func
    def point_coords(elt_arg: Any, qp_arg: Any, domain_index: int32, element_index: int32, index: int32):
        return node_coords(index)

    @func
    def point_weight(elt_arg: Any, qp_arg: Any, domain_index: int32, element_index: int32, index: int32):
        return node_weight(index)

    @func
    def point_index(elt_arg: Any, qp_arg: Any, domain_index: int32, element_index: int32, index: int32):
        return node_index(elt_arg, qp_arg, element_index, index)

    functions = (point_count, point_coords, point_weight, point_index)
    # the shape and topology are kept alive with their functions, so their ids are not reused
    _NODE_FUNCTIONS[key] = (shape, topology, functions)
    return functions


_NODE_FUNCTIONS: dict = {}
