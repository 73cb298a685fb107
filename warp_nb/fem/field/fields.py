"""The fields an integrand receives: `TestField` and `TrialField` (the basis functions of a space,
one node at a time: what makes `integrate` assemble a vector or a matrix) and `DiscreteField`
(node values of a space, interpolated), on `GeometryField`, Warp's base of fields over a geometry's
elements. Each has an `EvalArg` struct, `eval_arg_value(device)`
and the device functions its operators become (field/evaluation.py)."""

from __future__ import annotations

import warp_nb as wp

from ...types.structs import struct
from ..domain import Cells, GeometryDomain
from ..geometry.geometry import geometry_labels
from ..types import ElementKind
from .evaluation import combine, discrete_functions, node_functions, node_queries, on_side, side_node_index
from .node_weights import NAMES as NODE_WEIGHT_NAMES
from .node_weights import node_weight_functions


def bound_field_struct(element_arg, eval_arg):
    """{geo, eval}: a field's own argument beside the element arguments of the domain it is evaluated on."""
    key = (element_arg, eval_arg)
    cached = _BOUND.get(key)
    if cached is None:
        cls = type("BoundFieldArg", (), {"__annotations__": {"geo": element_arg, "eval": eval_arg},
                                         "__doc__": "A field bound to a domain's elements."})
        cached = _BOUND[key] = struct(cls)
    return cached


_BOUND: dict = {}


class BoundField:
    """A field as seen from the elements of one domain: its kernel argument struct (`Arg`), the
    host value of it, and the device functions its operators become (`eval_inner`, `eval_outer`,
    `eval_jump`, `eval_average` and the same for grad_, div_, D_, curl_; `element_node_index` and
    `nodes_per_element` for test and trial fields; the node weights of a space's fields, made on first
    use: node_weights.py). On cells these are the field's own (outer and
    average are the value, jump zero is not provided); on sides they evaluate on the side's inner and
    outer cells, and a test or trial field on a domain of all or interior sides has the nodes of both."""

    def __init__(self, field, domain: GeometryDomain):
        from ..domain import BoundarySides
        self.field = field
        self.domain = domain
        self.name = field.name
        self.space = getattr(field, "space", None)
        self.Arg = bound_field_struct(domain.ElementArg, field.EvalArg)
        slot = getattr(field, "SLOT", None)
        if hasattr(field, "functions_on"):  # a field defined on positions: the same on cells and sides
            functions = field.functions_on(domain)
            for base in _BASES:
                fn = functions.get(f"eval_{base}inner")
                for where in _WHERE:
                    setattr(self, f"eval_{base}{where}", fn)
        elif domain.element_kind == ElementKind.CELL:
            for base in _BASES:
                fn = getattr(field, f"eval_{base}inner", None)
                for where in ("inner", "outer", "average"):
                    setattr(self, f"eval_{base}{where}", fn)
                setattr(self, f"eval_{base}jump", None)
            if self.space is not None:
                self.element_node_index = self.space.element_node_index
                self.nodes_per_element = self.space.NODES_PER_ELEMENT
                self.__dict__.update(node_queries(self.space, slot))
        else:
            geo = domain.geometry
            npe = self.space.NODES_PER_ELEMENT
            two_sided = slot is not None and not isinstance(domain, BoundarySides)
            cell_struct = bound_field_struct(geo.CellArg, field.EvalArg)
            for base in _BASES:
                fn = getattr(field, f"eval_{base}inner", None)
                if fn is None:
                    for where in _WHERE:
                        setattr(self, f"eval_{base}{where}", None)
                    continue
                inner = on_side(fn, geo, cell_struct, False, slot, npe)
                outer = on_side(fn, geo, cell_struct, True, slot, npe) if (two_sided or slot is None) else inner
                setattr(self, f"eval_{base}inner", inner)
                setattr(self, f"eval_{base}outer", outer)
                setattr(self, f"eval_{base}jump", combine(inner, outer, "jump"))
                setattr(self, f"eval_{base}average", combine(inner, outer, "average"))
            self.nodes_per_element = npe * (2 if two_sided else 1)
            self.element_node_index = side_node_index(self.space.element_node_index, geo, npe, two_sided)

    def __getattr__(self, name):
        # node_inner_weight and the like: made on first use, since few integrands call them
        if name in NODE_WEIGHT_NAMES and self.__dict__.get("space") is not None and \
                not hasattr(self.field, "functions_on"):
            self.__dict__.update(node_weight_functions(self))
            return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    def arg_value(self, device, element_arg=None):
        """The host value of `Arg`; `element_arg`: the domain's element arguments when the caller has them."""
        value = self.Arg()
        value.geo = self.domain.element_arg_value(device) if element_arg is None else element_arg
        value.eval = self.field.eval_arg_value(device)
        return value


def bound_field(field, domain: GeometryDomain) -> BoundField:
    """`BoundField(field, domain)`, made once per field and domain (equal domains share it) and kept on the
    field, keyed also by the field's `cache_key` (what its device functions depend on): what a BoundField
    holds (structs and device functions) depends only on those, never on the field's values, which
    `arg_value` reads each call."""
    try:
        cache = field._fem_bound_fields
    except AttributeError:
        cache = {}
        try:
            field._fem_bound_fields = cache
        except AttributeError:  # a field type that takes no attributes: no cache
            return BoundField(field, domain)
    key = (domain, field.cache_key)
    bound = cache.get(key)
    if bound is None:
        bound = cache[key] = BoundField(field, domain)
    return bound


_BASES = ("", "grad_", "div_", "D_", "curl_")
_WHERE = ("inner", "outer", "jump", "average")


#: the device functions a field may provide, one per operator (field/evaluation.py)
OPERATOR_FUNCTIONS = ("eval_inner", "eval_grad_inner", "eval_div_inner", "eval_D_inner", "eval_curl_inner")


class FieldLike:
    """What integrands take as a `fem.Field`."""

    name = "field"

    def eval_arg_value(self, device):
        raise NotImplementedError

    def trace(self):
        """The field as seen from sides (Warp's trace): the same field here, since a field is bound
        to the domain it is integrated over when an integrand is specialised."""
        return self

    def make_deformed_geometry(self, relative: bool = True):
        """The field's geometry moved by the field (a displacement when `relative`, else the new
        positions): a `fem.geometry.DeformedGeometry`. Discrete and implicit vector fields."""
        from ..geometry.deformed_geometry import DeformedGeometry

        return DeformedGeometry(self, relative=relative)


class GeometryField(FieldLike):
    """Warp's base of the fields defined over the elements of a geometry: discrete, test and trial fields,
    implicit, uniform and non-conforming fields. Each gives its `geometry`, the `element_kind` of the
    elements it is defined on (cells, or sides for a field over a domain of sides), its value `dtype`
    and polynomial `degree`; on this base they are not defined."""

    @property
    def geometry(self):
        raise NotImplementedError(f"{type(self).__name__} does not say its geometry")

    @property
    def element_kind(self):
        raise NotImplementedError(f"{type(self).__name__} does not say its element kind")


def _space_arg_struct(space_arg):
    cached = _NODE_ARGS.get(space_arg)
    if cached is None:
        cls = type("NodeFieldArg", (), {"__annotations__": {"space_arg": space_arg},
                                        "__doc__": "A test or trial field's kernel argument: its space's."})
        cached = _NODE_ARGS[space_arg] = struct(cls)
    return cached


_NODE_ARGS: dict = {}


class _NodeField(GeometryField):
    """A test (slot 0) or trial (slot 1) field: the basis function of one element node."""

    SLOT = 0

    def __init__(self, space, space_restriction=None, space_partition=None, domain: GeometryDomain | None = None):
        if not hasattr(space, "topology"):
            raise TypeError(f"a {type(self).__name__} needs a fem function space, got {type(space).__name__}")
        if space_restriction is not None:
            if domain is not None and domain != space_restriction.domain:
                raise ValueError(f"{type(self).__name__}: `domain` differs from the space restriction's domain")
            domain = space_restriction.domain
            space_partition = space_partition or space_restriction.space_partition
        self.space = space
        if domain is None:  # the cells of the partition's geometry partition, else all cells
            domain = Cells(getattr(space_partition, "geometry_partition", None) or space.geometry)
        self.domain = domain
        if self.domain.geometry is not space.geometry:
            on_domain, on_space = geometry_labels(self.domain.geometry, space.geometry)
            raise ValueError(f"{type(self).__name__}: the domain's geometry ({on_domain}) is not the space's "
                             f"({on_space})")
        self.EvalArg = _space_arg_struct(space.SpaceArg)
        self.__dict__.update(node_functions(space, self.SLOT))
        self._space_restriction = space_restriction
        self.space_partition = space_partition
        self.node_dof_count = space.NODE_DOF_COUNT
        self.value_dof_count = space.VALUE_DOF_COUNT

    @property
    def space_restriction(self):
        """The nodes the field's domain reaches (made on first use, as Warp's test fields have one)."""
        if self._space_restriction is None:
            from ..space.partition import make_space_restriction
            self._space_restriction = make_space_restriction(space_topology=self.space.topology, domain=self.domain)
        return self._space_restriction

    @property
    def name(self) -> str:
        return f"{type(self).__name__}_{self.space.name}"

    @property
    def cache_key(self):
        """What the device functions of this field depend on (fields of one key share kernels)."""
        return (type(self), self.space, self.domain)

    @property
    def geometry(self):
        return self.space.geometry

    @property
    def element_kind(self):
        return self.domain.element_kind

    @property
    def dtype(self):
        return self.space.dtype

    @property
    def degree(self) -> int:
        return self.space.degree

    def eval_arg_value(self, device):
        arg = self.EvalArg()
        arg.space_arg = self.space.space_arg_value(device)
        return arg


class TestField(_NodeField):
    """The test functions of a space: `integrate` gives a vector (one entry per node dof) or, with a
    trial field, a matrix."""

    SLOT = 0


class TrialField(_NodeField):
    """The trial functions of a space: with a test field, `integrate` gives a matrix."""

    SLOT = 1


def make_test(space, space_restriction=None, space_partition=None, domain=None, device=None) -> TestField:
    """The test field of `space` over `domain` (the space's cells by default)."""
    return TestField(space, space_restriction, space_partition, domain)


def make_trial(space, space_restriction=None, space_partition=None, domain=None) -> TrialField:
    """The trial field of `space` over `domain` (the space's cells by default)."""
    return TrialField(space, space_restriction, space_partition, domain)


def _discrete_arg_struct(space_arg, dtype, partition_arg=None):
    key = (space_arg, dtype, partition_arg)
    cached = _DISCRETE_ARGS.get(key)
    if cached is None:
        fields = {"space_arg": space_arg, "dof_values": wp.array(dtype=dtype)}
        if partition_arg is not None:  # dof_values hold the partition's nodes only
            fields["partition_arg"] = partition_arg
        cls = type("DiscreteFieldArg", (), {"__annotations__": fields,
                                            "__doc__": "A discrete field's kernel argument: its space's and its "
                                                       "node values."})
        cached = _DISCRETE_ARGS[key] = struct(cls)
    return cached


_DISCRETE_ARGS: dict = {}


class DiscreteField(GeometryField):
    """Values at the nodes of a space (`dof_values`, of the space's dof_dtype), interpolated inside
    elements by its shape."""

    def __init__(self, space, space_partition=None, device=None):
        if space_partition is not None and space_partition.space_topology is not space.topology:
            raise ValueError("DiscreteField: `space_partition` is a partition of another space topology")
        self.space = space
        self.space_partition = space_partition
        self.dtype = space.dtype
        self.dof_values = wp.zeros(self._node_count(), dtype=space.dof_dtype, device=device)
        # a partition that lists every node in order is the whole space: the plain field
        partitioned = space_partition is not None and not space_partition.is_identity()
        self.EvalArg = _discrete_arg_struct(space.SpaceArg, space.dof_dtype,
                                            space_partition.PartitionArg if partitioned else None)
        self.__dict__.update(discrete_functions(space, space_partition.partition_node_index if partitioned else None))

    def _node_count(self) -> int:
        part = self.space_partition
        return self.space.node_count() if part is None or part.is_identity() else part.node_count()

    @property
    def name(self) -> str:
        return f"DiscreteField_{self.space.name}"

    @property
    def cache_key(self):
        return (DiscreteField, self.space, self.EvalArg)

    @property
    def geometry(self):
        return self.space.geometry

    @property
    def element_kind(self):
        """Cells: a discrete field is defined on its space's cells (and read on sides through them)."""
        return ElementKind.CELL

    @property
    def dof_values(self):
        return self._dof_values

    @dof_values.setter
    def dof_values(self, values):
        if not isinstance(values, wp.array):
            values = wp.array(values, dtype=self.space.dof_dtype)
        if values.shape != (self._node_count(),):
            raise ValueError(f"dof_values of a field of {self._node_count()} nodes must have shape "
                             f"({self._node_count()},), got {values.shape}")
        self._dof_values = values

    def eval_arg_value(self, device):
        arg = self.EvalArg()
        arg.space_arg = self.space.space_arg_value(device)
        arg.dof_values = self._dof_values
        if hasattr(arg, "partition_arg"):
            arg.partition_arg = self.space_partition.partition_arg_value(device)
        return arg

    @property
    def degree(self) -> int:
        return self.space.degree


def make_discrete_field(space, space_partition=None) -> DiscreteField:
    """A discrete field of `space`, its node values zero."""
    return DiscreteField(space, space_partition)


class FieldRestriction:
    """A discrete field restricted to the nodes a domain reaches (Warp's make_restriction): what
    `fem.interpolate(..., dest=restriction)` writes, leaving the field's other nodes as they are."""

    def __init__(self, field: DiscreteField, space_restriction=None, domain: GeometryDomain | None = None):
        if not isinstance(field, DiscreteField):
            raise TypeError(f"make_restriction: `field` must be a discrete field, got {type(field).__name__}")
        if space_restriction is not None:
            domain = space_restriction.domain
        if domain is None:  # as Warp: the cells of the field's geometry
            domain = Cells(field.space.geometry)
        self.field, self.domain, self._space_restriction = field, domain, space_restriction

    @property
    def space_restriction(self):
        if self._space_restriction is None:
            from ..space.partition import make_space_restriction
            self._space_restriction = make_space_restriction(space_topology=self.field.space.topology,
                                                             domain=self.domain)
        return self._space_restriction

    @property
    def space(self):
        return self.field.space


def make_restriction(field: DiscreteField, space_restriction=None, domain: GeometryDomain | None = None,
                     device=None) -> FieldRestriction:
    """`field` restricted to the nodes of `domain` (or of `space_restriction`)."""
    return FieldRestriction(field, space_restriction, domain)
