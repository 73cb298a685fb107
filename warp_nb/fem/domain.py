"""Where to integrate: a geometry's cells, its sides, its boundary sides (or frontier sides, none
without partitions; a subset of any of these: subdomain.py), of the whole geometry or of a
geometry partition (geometry/partition.py: then the partition's cells, the sides they own, ...,
and the index map is the partition's). A domain numbers its
own elements 0..element_count()-1 and maps each to the geometry's element index
(`element_index`); every other device function forwards to the geometry's cell or side function,
so an integrand written against a domain runs on cells and sides alike. The struct a kernel gets
is `DomainArg`: the geometry's element arguments (`geo`) and the index map's (`index`)."""

from __future__ import annotations

from ..program.func import func
from ..types import int32
from ..types.structs import struct
from .types import ElementKind


class GeometryDomain:
    """A set of elements of one kind (cells or sides) of a geometry."""

    element_kind: ElementKind = ElementKind.CELL

    def __init__(self, geometry):
        if not hasattr(geometry, "cell_count"):
            raise TypeError(f"a fem domain needs a fem.Geometry or a geometry partition, got "
                            f"{type(geometry).__name__} {geometry!r}")
        # a partition's elements are numbered by the partition; its geometry holds their arguments
        self.geometry_partition = geometry if _is_partition(geometry) else None
        self.geometry = geometry.geometry if self.geometry_partition is not None else geometry
        self._domain_arg_struct = None

    # --- what the drivers read on the host ----------------------------------------------------
    @property
    def name(self) -> str:
        return f"{(self.geometry_partition or self.geometry).name}_{type(self).__name__}"

    def __str__(self) -> str:
        return self.name

    @property
    def dimension(self) -> int:
        """Dimension of the elements: the geometry's cell dimension for cells, one less for sides."""
        return self.geometry.cell_dimension - (1 if self.element_kind == ElementKind.SIDE else 0)

    def element_count(self) -> int:
        raise NotImplementedError

    def geometry_element_count(self) -> int:
        return self.geometry.cell_count() if self.element_kind == ElementKind.CELL else self.geometry.side_count()

    def reference_element(self):
        return self.geometry.reference_cell() if self.element_kind == ElementKind.CELL else \
            self.geometry.reference_side()

    @property
    def ElementArg(self):
        return self.geometry.CellArg if self.element_kind == ElementKind.CELL else self.geometry.SideArg

    def element_arg_value(self, device):
        return self.geometry.cell_arg_value(device) if self.element_kind == ElementKind.CELL else \
            self.geometry.side_arg_value(device)

    @property
    def DomainArg(self):
        """The struct kernels receive: {geo: ElementArg, index: ElementIndexArg}, made once per domain type."""
        if self._domain_arg_struct is None:
            self._domain_arg_struct = _domain_arg_struct(self.ElementArg, self.ElementIndexArg)
        return self._domain_arg_struct

    def domain_arg_value(self, device):
        """The `DomainArg` value for `device` (not to be modified: it may be kept). Kept while the
        geometry and index map hand back the very argument structs it was made from (they keep theirs
        while nothing they depend on changes, see Geometry.ARGS_FROM_ATTRIBUTES)."""
        geo, index = self.element_arg_value(device), self.element_index_arg_value(device)
        kept = self.__dict__.get("_fem_domain_arg")
        if kept is not None and kept[0] is geo and kept[1] is index:
            return kept[2]
        arg = self.DomainArg()
        arg.geo = geo
        arg.index = index
        self._fem_domain_arg = (geo, index, arg)
        return arg

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self.geometry is other.geometry and \
            self.geometry_partition is other.geometry_partition

    def __hash__(self) -> int:
        return hash((type(self), id(self.geometry), id(self.geometry_partition)))

    # --- device functions, forwarded to the geometry's cell or side functions -----------------
    def _geo_fn(self, name: str):
        prefix = "cell_" if self.element_kind == ElementKind.CELL else "side_"
        return getattr(self.geometry, prefix + name)

    @property
    def element_position(self):
        return self._geo_fn("position")

    @property
    def element_deformation_gradient(self):
        return self._geo_fn("deformation_gradient")

    @property
    def element_measure(self):
        return self._geo_fn("measure")

    @property
    def element_measure_ratio(self):
        return self._geo_fn("measure_ratio")

    @property
    def element_normal(self):
        return self._geo_fn("normal")

    @property
    def element_inverse_deformation_gradient(self):
        if self.element_kind == ElementKind.CELL:
            return self.geometry.cell_inverse_deformation_gradient
        return self.geometry.side_inner_inverse_deformation_gradient


@struct
class _NoIndexArg:
    """A domain whose elements are the geometry's own needs no index map."""

    unused: int32


_NO_INDEX = _NoIndexArg()  # (one value for all: it holds nothing, so it is never changed)


class _IndexedDomain(GeometryDomain):
    """A domain whose elements are listed by the geometry (or by its partition): `_COUNT` names the
    count method, `_INDEX` the geometry's index function (None: its own elements, no map) and
    `_PART_INDEX` the partition's."""

    _COUNT = "cell_count"
    _INDEX: str | None = None
    _PART_INDEX = "cell_index"

    def _index_owner(self):
        return self.geometry_partition if self.geometry_partition is not None else self.geometry

    def element_count(self) -> int:
        return getattr(self._index_owner(), self._COUNT)()

    @property
    def ElementIndexArg(self):
        if self.geometry_partition is not None:
            part = self.geometry_partition
            return part.CellArg if self.element_kind == ElementKind.CELL else part.SideArg
        return self.geometry.SideIndexArg if self._INDEX else _NoIndexArg

    def element_index_arg_value(self, device):
        if self.geometry_partition is not None:
            part = self.geometry_partition
            return part.cell_arg_value(device) if self.element_kind == ElementKind.CELL else \
                part.side_arg_value(device)
        return self.geometry.side_index_arg_value(device) if self._INDEX else _NO_INDEX

    @property
    def element_index(self):
        if self.geometry_partition is not None:
            return getattr(self.geometry_partition, self._PART_INDEX)
        return getattr(self.geometry, self._INDEX) if self._INDEX else _own_index


class Cells(_IndexedDomain):
    """All cells of a geometry (of a partition)."""

    element_kind = ElementKind.CELL
    _COUNT = "cell_count"


class Sides(_IndexedDomain):
    """All sides of a geometry, interior and boundary (the sides a partition owns)."""

    element_kind = ElementKind.SIDE
    _COUNT = "side_count"
    _PART_INDEX = "side_index"


class BoundarySides(_IndexedDomain):
    """The sides of a geometry (of a partition) that have a single neighbouring cell."""

    element_kind = ElementKind.SIDE
    _COUNT = "boundary_side_count"
    _INDEX = _PART_INDEX = "boundary_side_index"


class FrontierSides(_IndexedDomain):
    """The sides between a geometry partition and the rest of the geometry: none for a whole geometry."""

    element_kind = ElementKind.SIDE
    _COUNT = "frontier_side_count"
    _INDEX = "frontier_side_index"

    def element_count(self) -> int:
        return 0 if self.geometry_partition is None else self.geometry_partition.frontier_side_count()

    @property
    def ElementIndexArg(self):
        return _NoIndexArg if self.geometry_partition is None else self.geometry_partition.SideArg

    def element_index_arg_value(self, device):
        return _NO_INDEX if self.geometry_partition is None else self.geometry_partition.side_arg_value(device)

    @property
    def element_index(self):
        return _own_index if self.geometry_partition is None else self.geometry_partition.frontier_side_index


@func
def _own_index(arg: _NoIndexArg, index: int32):
    return index


def _is_partition(obj) -> bool:
    from .geometry.partition import GeometryPartition
    return isinstance(obj, GeometryPartition)


def _domain_arg_struct(element_arg, index_arg):
    """A struct {geo, index} for these two argument types (one per pair: a geometry type's domains share it)."""
    key = (element_arg, index_arg)
    cached = _DOMAIN_ARGS.get(key)
    if cached is None:
        cls = type("DomainArg", (), {"__annotations__": {"geo": element_arg, "index": index_arg},
                                      "__doc__": "A fem domain's kernel argument: its geometry's element "
                                                 "arguments and its element index map's."})
        cached = _DOMAIN_ARGS[key] = struct(cls)
    return cached


_DOMAIN_ARGS: dict = {}
