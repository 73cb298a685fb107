"""The nodes of a space on a geometry of several environments made by replication
(geometry/replicated.py): environment e's nodes are e*N .. e*N+N-1, N being the nodes of the same space
on the base geometry, so environments share no node. Element nodes map through the base topology."""

from __future__ import annotations

import functools
from typing import Any

import warp_nb as wp

from ..types import NULL_NODE_INDEX
from .topology import SpaceTopology


@functools.cache
def _functions(base_arg, base_node_index):
    arg_struct = wp.struct(type("ReplicatedTopologyArg", (), {"__annotations__": {
        "base": base_arg, "base_node_count": int}}))

    @wp.func
    def element_node_index(cell_arg: Any, topo_arg: Any, element_index: int, node: int):
        local_cell = element_index % cell_arg.base_cell_count
        n = base_node_index(cell_arg.base, topo_arg.base, local_cell, node)
        if n == NULL_NODE_INDEX:
            return n
        return n + (element_index // cell_arg.base_cell_count) * topo_arg.base_node_count

    return arg_struct, element_node_index


class ReplicatedTopology(SpaceTopology):
    """`geometry.environment_count()` copies of `base` (a topology of the base geometry)."""

    def __init__(self, geometry, base: SpaceTopology):
        super().__init__(geometry, base.NODES_PER_ELEMENT)
        self.base = base
        self.TopologyArg, self.element_node_index = _functions(base.TopologyArg, base.element_node_index)

    @property
    def name(self) -> str:
        return f"{self.base.name}_env{self.geometry.environment_count()}"

    def node_count(self) -> int:
        return self.geometry.environment_count() * self.base.node_count()

    def topo_arg_value(self, device):
        arg = self.TopologyArg()
        arg.base = self.base.topo_arg_value(device)
        arg.base_node_count = self.base.node_count()
        return arg
