"""The partition operators integrands call: `fem.element_partition_index(domain, cell_index)` (the
index of a geometry cell in the domain's geometry partition, NULL_ELEMENT_INDEX outside it),
`fem.node_partition_index(field, node_index)` (the index of a space node in the field's space
partition, NULL_NODE_INDEX outside it) and `fem.partition_lookup(domain, pos[, max_dist])` (a lookup
among the partition's cells only). On a whole geometry or a whole space the indices are the identity
and partition_lookup is fem.lookup. They are Operators like the others (operator.py)."""

from __future__ import annotations

import functools
from typing import Any

from ..program.func import func
from ..types import int32
from .operator import Operator, domain_function
from .types import NULL_ELEMENT_INDEX, ElementKind


@func
def _same_index(arg: Any, index: int32):
    return index


@functools.cache
def _domain_partition_index(partition_cell_index):
    @func
    def element_partition_index(domain_arg: Any, cell_index: int32):
        return partition_cell_index(domain_arg.index, cell_index)

    return element_partition_index


@functools.cache
def _field_partition_index(partition_node_index):
    @func
    def node_partition_index(field_arg: Any, node_index: int32):
        return partition_node_index(field_arg.eval.partition_arg, node_index)

    return node_partition_index


def _partition_lookup(filtered_lookup):
    """The lookup overloads over the cells that the filter of `filtered_lookup` keeps."""

    @func
    def partition_lookup(domain_arg: Any, pos: Any):
        return filtered_lookup(domain_arg.geo, pos, 1.0e30, domain_arg.index, 1)

    @func
    def partition_lookup(domain_arg: Any, pos: Any, max_dist: float):  # noqa: F811 (an overload)
        return filtered_lookup(domain_arg.geo, pos, max_dist, domain_arg.index, 1)

    return partition_lookup


class _PartitionOperator(Operator):
    """An operator whose device function depends on the geometry or space partition of its target."""

    def __init__(self, name: str, doc: str, takes: str):
        super().__init__(name, doc)
        self.takes = takes

    def resolve(self, target, kind: str, arg_name: str):
        if kind != self.takes:
            raise TypeError(f"fem.{self.name} takes {'a field' if self.takes == 'field' else 'the domain'} as its "
                            f"first argument; `{arg_name}` is {'a field' if kind == 'field' else 'the domain'}")
        if kind == "field":
            partition = getattr(getattr(target, "field", target), "space_partition", None)
            fn = getattr(partition, "partition_node_index", None)
            return _same_index if fn is None else _field_partition_index(fn)
        if target.element_kind != ElementKind.CELL:
            raise TypeError(f"fem.{self.name} is defined on cell domains only, `{arg_name}` is {target.name}")
        partition = getattr(target, "geometry_partition", None)
        if partition is not None and target.ElementIndexArg is not partition.CellArg:
            raise TypeError(f"fem.{self.name}: `{arg_name}` ({target.name}) is a subset of a partition's cells, "
                            "which warp_nb.fem does not support here yet")
        if self.name == "partition_lookup":
            if partition is None:
                return domain_function(target, "lookup")
            return _lookup_for(target.geometry, partition)
        return _same_index if partition is None else _domain_partition_index(partition.partition_cell_index)


def _lookup_for(geometry, partition):
    key = (geometry, partition.partition_cell_index)
    cached = _LOOKUPS.get(key)
    if cached is None:
        if getattr(geometry, "cell_closest_point", None) is None:
            raise TypeError(f"fem.partition_lookup: {geometry.name} does not support lookups")
        filtered = geometry.make_filtered_cell_lookup(_in_partition(partition.partition_cell_index))
        cached = _LOOKUPS[key] = _partition_lookup(filtered)
    return cached


_LOOKUPS: dict = {}


@functools.cache
def _in_partition(partition_cell_index):
    @func
    def in_partition(part_arg: Any, cell_index: int32):
        return int32(partition_cell_index(part_arg, cell_index) != NULL_ELEMENT_INDEX)

    return in_partition


element_partition_index = _PartitionOperator(
    "element_partition_index", "Index of a cell in the domain's geometry partition (NULL_ELEMENT_INDEX outside it; "
    "the cell's own index on a whole geometry).", takes="domain")
node_partition_index = _PartitionOperator(
    "node_partition_index", "Index of a node in the field's space partition (NULL_NODE_INDEX outside it; the "
    "node's own index on a whole space).", takes="field")
partition_lookup = _PartitionOperator(
    "partition_lookup", "The sample of the domain's partition cells at a world position (fem.lookup restricted to "
    "the geometry partition).", takes="domain")
