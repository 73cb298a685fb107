"""Which nodes of a space a computation covers: a space partition (the nodes one process owns;
warp_nb partitions nothing, so a partition is the whole space) and a space restriction (the nodes
the elements of a domain reach: every node for cells, the boundary nodes for boundary sides). A
test or trial field made with a restriction is a field over the restriction's domain."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from ..integrand import Integrand
from ..types import Sample


class SpacePartition:
    """All nodes of a space topology (Warp's whole-space partition)."""

    def __init__(self, space_topology, geometry_partition=None):
        self.space_topology = space_topology
        self.geometry_partition = geometry_partition

    @property
    def name(self) -> str:
        return f"WholeSpacePartition_{self.space_topology.name}"

    def node_count(self) -> int:
        return self.space_topology.node_count()

    def owned_node_count(self) -> int:
        return self.node_count()

    def interior_node_count(self) -> int:
        return self.node_count()

    def space_node_indices(self):
        return wp.array(np.arange(self.node_count(), dtype=np.int32), dtype=int)

    def rebuild(self, device=None, temporary_store=None) -> None:
        """Nothing to rebuild: the whole space does not depend on a geometry partition."""


def make_space_partition(space_topology, geometry_partition=None, with_halo: bool = True, max_node_count: int = -1,
                         environment_first: bool = False, *, device=None, temporary_store=None) -> SpacePartition:
    """The partition of `space_topology`'s nodes that a geometry partition selects: the whole space
    (geometry partitions other than the whole geometry are not supported by warp_nb.fem yet)."""
    if not hasattr(space_topology, "node_count"):
        raise TypeError(f"make_space_partition: `space_topology` must be a space topology (space.topology), got "
                        f"{type(space_topology).__name__}")
    if geometry_partition is not None and geometry_partition.cell_count() != geometry_partition.geometry.cell_count():
        raise NotImplementedError("make_space_partition: partitions of part of a geometry are not supported by "
                                  "warp_nb.fem yet")
    return SpacePartition(space_topology, geometry_partition)


class SpaceRestriction:
    """The nodes of a space partition that the elements of `domain` reach."""

    def __init__(self, space_partition: SpacePartition, domain):
        self.space_partition = space_partition
        self.space_topology = space_partition.space_topology
        self.domain = domain
        self.rebuild()

    def rebuild(self, device=None, temporary_store=None) -> None:
        from ..field.fields import DiscreteField
        from ..interpolate import interpolate
        from .function_space import FunctionSpace
        topology = self.space_topology
        space = FunctionSpace(topology, getattr(topology, "shape", None) or self._shape(), wp.float32)
        reached = DiscreteField(space)
        interpolate(_one, dest=reached, at=self.domain, reduction="sum")
        counts = reached.dof_values.numpy()
        self._nodes = np.nonzero(counts > 0)[0].astype(np.int32)
        self._node_element_count = int(np.rint(counts.sum()))

    def _shape(self):
        shape = getattr(self.space_topology, "_space_shape", None)
        if shape is None:
            raise TypeError("make_space_restriction: this topology does not know its shape functions (make it from a "
                            "function space: space.topology)")
        return shape

    def node_count(self) -> int:
        return len(self._nodes)

    def dof_node_indices(self):
        return wp.array(self._nodes, dtype=int)

    def total_node_element_count(self) -> int:
        return self._node_element_count


def make_space_restriction(space_partition: SpacePartition | None = None, domain=None, space_topology=None,
                           device=None, temporary_store=None) -> SpaceRestriction:
    """The nodes of `space_partition` (or of the whole `space_topology`) that `domain` reaches."""
    if space_partition is None and space_topology is None:
        raise ValueError("One of `space_partition` or `space_topology` must be provided")
    if space_partition is None:
        space_partition = make_space_partition(space_topology)
    if domain is None:
        raise ValueError("make_space_restriction: `domain` must be given (the elements whose nodes it keeps)")
    return SpaceRestriction(space_partition, domain)


@Integrand
def _one(s: Sample):
    return 1.0
