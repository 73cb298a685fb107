"""The partition-index operators integrands call, `fem.element_partition_index(domain, cell_index)`
and `fem.node_partition_index(field, node_index)`: the index of a cell in the domain's geometry
partition, of a node in the field's space partition. warp_nb.fem partitions neither geometries nor
spaces (every domain covers its whole geometry, every field its whole space), so both are the
identity; they are Operators like the others (operator.py) so that Warp's integrands using them run."""

from __future__ import annotations

from typing import Any

from ..program.func import func
from ..types import int32
from .operator import Operator
from .types import ElementKind


@func
def _same_index(arg: Any, index: int32):
    return index


class _IdentityIndexOperator(Operator):
    """An operator `op(target, index)` that is `index` for an unpartitioned `target`."""

    def __init__(self, name: str, doc: str, takes: str):
        super().__init__(name, doc)
        self.takes = takes

    def resolve(self, target, kind: str, arg_name: str):
        if kind != self.takes:
            raise TypeError(f"fem.{self.name} takes {'a field' if self.takes == 'field' else 'the domain'} as its "
                            f"first argument; `{arg_name}` is {'a field' if kind == 'field' else 'the domain'}")
        if kind == "domain" and target.element_kind != ElementKind.CELL:
            raise TypeError(f"fem.{self.name} is defined on cell domains only, `{arg_name}` is {target.name}")
        if kind == "field" and getattr(getattr(target, "field", target), "space_partition", None) is not None:
            raise TypeError(f"fem.{self.name}: the field `{arg_name}` has a space partition, which warp_nb.fem does "
                            "not support yet")
        return _same_index


element_partition_index = _IdentityIndexOperator(
    "element_partition_index", "Index of a cell in the domain's geometry partition (the cell's own index: "
    "warp_nb.fem domains cover their whole geometry).", takes="domain")
node_partition_index = _IdentityIndexOperator(
    "node_partition_index", "Index of a node in the field's space partition (the node's own index: warp_nb.fem "
    "fields cover their whole space).", takes="field")
