"""Which nodes of a space a computation covers: a space partition (the nodes of the cells of a
geometry partition, with or without the halo across its frontier; or the whole space) and a space
restriction (the nodes the elements of a domain reach: every node for cells, the boundary nodes for
boundary sides). A partition numbers its nodes: the owned ones in ascending space order, then the
halo's (or, `environment_first`, grouped by environment, `env_offsets` giving each group's start).
The node lists are computed with numpy from the topology's element-node table; kernels map a space
node to its partition index with `partition_node_index(PartitionArg, node)`. A test or trial field
made with a restriction is a field over the restriction's domain."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from ..integrand import Integrand
from ..types import NULL_ELEMENT_INDEX, NULL_NODE_INDEX, Sample


@wp.struct
class PartitionArg:
    """A partition's map from space nodes to partition nodes (NULL_NODE_INDEX outside it)."""

    space_to_partition: wp.array(dtype=int)


@wp.func
def _partition_node_index(args: PartitionArg, space_node_index: int):
    return args.space_to_partition[space_node_index]


class SpacePartition:
    """The nodes of `space_topology` that the cells of `geometry_partition` touch (all of them for
    None), with the halo nodes of the cells across its frontier when `with_halo`. `max_node_count`
    fixes the list size (truncated, or padded with NULL_NODE_INDEX, as Warp's capacities)."""

    PartitionArg = PartitionArg
    partition_node_index = _partition_node_index

    def __init__(self, space_topology, geometry_partition=None, with_halo: bool = True, max_node_count: int = -1,
                 environment_first: bool = False, device=None):
        self.space_topology = space_topology
        self.geometry_partition = geometry_partition
        self._with_halo = with_halo and geometry_partition is not None
        self._max_node_count = max_node_count
        self._environment_first = environment_first
        self._device = device
        self.env_offsets = None
        self.rebuild(device)

    @property
    def name(self) -> str:
        part = self.geometry_partition
        return f"NodePartition_{self.space_topology.name}_{part.name}" if part is not None else \
            f"WholeSpacePartition_{self.space_topology.name}"

    def node_count(self) -> int:
        return self._node_indices.shape[0]

    def owned_node_count(self) -> int:
        return min(self._owned_count, self.node_count())

    def interior_node_count(self) -> int:
        return min(self._interior_count, self.node_count())

    def space_node_indices(self):
        return self._node_indices

    def is_identity(self) -> bool:
        """Whether partition node i is space node i for every node (the whole space, in order)."""
        return self._identity

    def partition_arg_value(self, device):
        arg = PartitionArg()
        arg.space_to_partition = self._space_to_partition.to(device)
        return arg

    def rebuild(self, device=None, temporary_store=None) -> None:
        """Recompute the node lists (after the geometry partition was rebuilt)."""
        device = self._device if device is None else device
        topology = self.space_topology
        node_total = topology.node_count()
        part = self.geometry_partition
        geo = topology.geometry
        if part is None and not self._environment_first and self._max_node_count < 0:
            self._whole(node_total, device)  # every node in order: no element-node table needed
            return
        element_nodes = topology.element_node_indices(device).numpy()
        if part is None:
            owned_cells = np.ones(geo.cell_count(), dtype=bool)
        else:
            owned_cells = _owned_cell_mask(part)
        touched = np.zeros(node_total, dtype=bool)
        touched[_valid(element_nodes[owned_cells])] = True
        if part is None:
            owned = np.arange(node_total)  # the whole space, nodes outside every cell included
        else:
            owned = np.flatnonzero(touched)
        outside = np.zeros(node_total, dtype=bool)  # nodes of cells outside the partition
        outside[_valid(element_nodes[~owned_cells])] = True
        self._owned_count = len(owned)
        self._interior_count = int(np.count_nonzero(touched & ~outside)) if self._with_halo else len(owned)
        nodes = owned
        if self._with_halo:
            halo_cells = _halo_cell_mask(part, owned_cells)
            halo = np.zeros(node_total, dtype=bool)
            halo[_valid(element_nodes[halo_cells])] = True
            nodes = np.concatenate([owned, np.flatnonzero(halo & ~touched)])
        if self._environment_first:
            nodes, offsets = _environment_order(geo, element_nodes, nodes, node_total)
        if self._max_node_count >= 0:
            padded = np.full(self._max_node_count, NULL_NODE_INDEX, dtype=np.int64)
            padded[:min(len(nodes), self._max_node_count)] = nodes[:self._max_node_count]
            nodes = padded
        if self._environment_first:
            limit = self._max_node_count if self._max_node_count >= 0 else len(nodes)
            self.env_offsets = wp.array(np.minimum(offsets, limit).astype(np.int32), dtype=int, device=device)
        space_to_partition = np.full(node_total, NULL_NODE_INDEX, dtype=np.int64)
        valid = nodes != NULL_NODE_INDEX
        space_to_partition[nodes[valid]] = np.flatnonzero(valid)
        self._identity = len(nodes) == node_total and bool(np.all(nodes == np.arange(node_total)))
        self._node_indices = wp.array(nodes.astype(np.int32), dtype=int, device=device)
        self._space_to_partition = wp.array(space_to_partition.astype(np.int32), dtype=int, device=device)


    def _whole(self, node_total: int, device) -> None:
        self._owned_count = self._interior_count = node_total
        self._identity = True
        nodes = np.arange(node_total, dtype=np.int32)
        self._node_indices = wp.array(nodes, dtype=int, device=device)
        self._space_to_partition = wp.array(nodes, dtype=int, device=device)


def _valid(nodes: np.ndarray) -> np.ndarray:
    nodes = nodes.ravel()
    return nodes[nodes != NULL_NODE_INDEX]


def _owned_cell_mask(part) -> np.ndarray:
    """Bool per geometry cell: the cells of the geometry partition."""
    return part.partition_cell_indices_numpy() != NULL_ELEMENT_INDEX


def _halo_cell_mask(part, owned_cells: np.ndarray) -> np.ndarray:
    """The cells across the partition's frontier sides (the other cell of each)."""
    from ..geometry.partition import side_cells
    cells = side_cells(part.geometry)[part._frontier_side_indices.numpy()]
    halo = np.zeros_like(owned_cells)
    halo[cells.ravel()] = True
    return halo & ~owned_cells


def _environment_order(geo, element_nodes, nodes, node_total):
    """`nodes` grouped by environment (stable), and the start of each group: a node's environment is
    its cells' (the lowest); nodes of no cell come last, outside every group."""
    env_count = geo.environment_count()
    cell_env = geo.cell_env.numpy() if geo.cell_env is not None else np.zeros(geo.cell_count(), dtype=np.int64)
    node_env = np.full(node_total, env_count, dtype=np.int64)
    per_cell = np.broadcast_to(cell_env[:, None], element_nodes.shape)
    keep = element_nodes != NULL_NODE_INDEX
    np.minimum.at(node_env, element_nodes[keep], per_cell[keep])
    order = np.argsort(node_env[nodes], kind="stable")
    nodes = nodes[order]
    counts = np.bincount(node_env[nodes], minlength=env_count + 1)[:env_count]
    return nodes, np.concatenate([[0], np.cumsum(counts)])


def make_space_partition(space_topology, geometry_partition=None, with_halo: bool = True, max_node_count: int = -1,
                         environment_first: bool = False, *, device=None, temporary_store=None) -> SpacePartition:
    """The partition of `space_topology`'s nodes that a geometry partition selects (the whole space
    for None or for a partition covering the whole geometry)."""
    if not hasattr(space_topology, "node_count"):
        raise TypeError(f"make_space_partition: `space_topology` must be a space topology (space.topology), got "
                        f"{type(space_topology).__name__}")
    if geometry_partition is not None and geometry_partition.geometry is not space_topology.geometry:
        raise ValueError(f"make_space_partition: `geometry_partition` is a partition of "
                         f"{geometry_partition.geometry.name}, the topology's geometry is {space_topology.geometry.name}")
    if geometry_partition is not None and environment_first and with_halo:
        raise ValueError("make_space_partition: `environment_first` on a geometry partition needs with_halo=False "
                         "(with_halo=True would mix halo nodes into the environment groups)")
    return SpacePartition(space_topology, geometry_partition, with_halo, max_node_count, environment_first, device)


@wp.struct
class RestrictionNodeArg:
    """A restriction's nodes, as indices in its space partition."""

    dof_partition_indices: wp.array(dtype=int)


class SpaceRestriction:
    """The nodes of a space partition that the elements of `domain` reach. They are listed on the
    host, but `node_count()` is Warp's host-side upper bound (what sizes storage that must not
    depend on a device readback, such as a matrix's row compression) until `node_count_sync()`
    has been called; it is exact from then until the next rebuild, as in Warp."""

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
        in_partition = self.space_partition._space_to_partition.numpy()
        nodes = np.nonzero((counts > 0) & (in_partition != NULL_NODE_INDEX))[0]
        self._nodes = nodes.astype(np.int32)
        self._node_element_count = int(np.rint(counts[nodes].sum()))
        device = self.space_partition._node_indices.device if device is None else device
        self._dof_partition_indices = wp.array(in_partition[nodes].astype(np.int32), dtype=int, device=device)
        self._node_arg = None  # made again from the new lists
        local = np.full(len(counts), -1, dtype=np.int32)
        local[nodes] = np.arange(len(nodes), dtype=np.int32)
        self._restriction_indices = wp.array(local, dtype=int, device=device)
        self._synced = False  # node_count() is the bound until node_count_sync()

    def node_partition_indices(self):
        """The partition index of each node of the restriction."""
        return self._dof_partition_indices

    def restriction_node_indices(self, device=None):
        """For each node of the space topology, its index in the restriction (-1 outside it)."""
        return self._restriction_indices if device is None else self._restriction_indices.to(device)

    def node_arg_value(self, device):
        """The restriction's kernel argument: the partition indices of its nodes."""
        if self._node_arg is None:
            self._node_arg = RestrictionNodeArg()
            self._node_arg.dof_partition_indices = self._dof_partition_indices.to(device)
        return self._node_arg

    def _shape(self):
        shape = getattr(self.space_topology, "_space_shape", None)
        if shape is None:
            raise TypeError("make_space_restriction: this topology does not know its shape functions (make it from a "
                            "function space: space.topology)")
        return shape

    def node_count(self) -> int:
        """An upper bound of the node count; exact once node_count_sync() has been called (until the
        next rebuild)."""
        return len(self._nodes) if self._synced else self.node_count_bound()

    def node_count_bound(self) -> int:
        """What the host knows without the node lists: at most the partition's nodes, and at most
        the nodes of the domain's elements (a side reaches the nodes of its two cells)."""
        from ..types import ElementKind
        per_element = int(getattr(self.space_topology, "MAX_NODES_PER_ELEMENT", 0) or
                          getattr(self.space_topology, "NODES_PER_ELEMENT", 0))
        if self.domain.element_kind == ElementKind.SIDE:
            per_element *= 2
        bound = min(self.space_partition.node_count(), self.domain.element_count() * per_element)
        return max(bound, len(self._nodes))

    def node_count_sync(self) -> int:
        """The exact node count (Warp reads it back from the device; ours is on the host), which
        node_count() returns from now on, until the next rebuild."""
        self._synced = True
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
