"""Where to integrate: a geometry's cells, its sides, its boundary sides (or frontier sides, none
without partitions; a subset of any of these: subdomain.py). A domain numbers its
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
            raise TypeError(f"a fem domain needs a fem.Geometry, got {type(geometry).__name__} {geometry!r}")
        self.geometry = geometry
        self._domain_arg_struct = None

    # --- what the drivers read on the host ----------------------------------------------------
    @property
    def name(self) -> str:
        return f"{self.geometry.name}_{type(self).__name__}"

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
        arg = self.DomainArg()
        arg.geo = self.element_arg_value(device)
        arg.index = self.element_index_arg_value(device)
        return arg

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and self.geometry is other.geometry

    def __hash__(self) -> int:
        return hash((type(self), id(self.geometry)))

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


class Cells(GeometryDomain):
    """All cells of a geometry."""

    element_kind = ElementKind.CELL
    ElementIndexArg = _NoIndexArg

    def element_count(self) -> int:
        return self.geometry.cell_count()

    def element_index_arg_value(self, device):
        return _NoIndexArg()


class Sides(GeometryDomain):
    """All sides of a geometry, interior and boundary."""

    element_kind = ElementKind.SIDE
    ElementIndexArg = _NoIndexArg

    def element_count(self) -> int:
        return self.geometry.side_count()

    def element_index_arg_value(self, device):
        return _NoIndexArg()


class BoundarySides(GeometryDomain):
    """The sides of a geometry that have a single neighbouring cell."""

    element_kind = ElementKind.SIDE

    @property
    def ElementIndexArg(self):
        return self.geometry.SideIndexArg

    def element_count(self) -> int:
        return self.geometry.boundary_side_count()

    def element_index_arg_value(self, device):
        return self.geometry.side_index_arg_value(device)

    @property
    def element_index(self):
        return self.geometry.boundary_side_index


class FrontierSides(GeometryDomain):
    """The sides between a geometry partition and the rest of the geometry. warp_nb.fem does not
    partition geometries, so a whole geometry has no frontier: this domain is empty."""

    element_kind = ElementKind.SIDE
    ElementIndexArg = _NoIndexArg

    def element_count(self) -> int:
        return 0

    def element_index_arg_value(self, device):
        return _NoIndexArg()


@func
def _own_index(arg: _NoIndexArg, index: int32):
    return index


Cells.element_index = Sides.element_index = FrontierSides.element_index = _own_index


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
