"""The operators integrands call on their fields and domain (`fem.grad(u, s)`,
`fem.position(domain, s)`, ...). An operator is not a device function itself: when `integrate` or
`interpolate` specialises an integrand (integrand_specialize.py), each call `op(x, ...)` whose first
argument is a field or the domain is replaced by the device function that `op` names for that
field or domain. Called from Python, an operator says so."""

from __future__ import annotations

from typing import Any

import warp_nb as wp

from .precision import retyped
from .types import Sample


class Operator:
    """An integrand operator: `name`, and what it becomes for a field (`field_attr`: the field's
    device function of that name) or for a domain (`domain_fn`: a factory taking the domain)."""

    def __init__(self, name: str, doc: str, field_attr: str | None = None, domain_fn=None):
        self.name = name
        self.__doc__ = doc
        self.field_attr = field_attr
        self.domain_fn = domain_fn

    def __repr__(self) -> str:
        return f"<fem operator {self.name}>"

    def __call__(self, *args, **kwargs):
        raise TypeError(f"fem.{self.name} is evaluated inside integrands (@fem.integrand functions passed to "
                        "fem.integrate or fem.interpolate), not called from Python")

    def check_call(self, target, kind: str, arg_name: str, arg_count: int) -> None:
        """Refuse (TypeError) a call of this operator with `arg_count` arguments on `target`; any by default."""

    def resolve(self, target, kind: str, arg_name: str):
        """The device function this operator becomes for `target` (a field or a domain)."""
        if kind == "field" and self.field_attr is not None:
            fn = getattr(target, self.field_attr, None)
            if fn is None:
                raise TypeError(f"Operator `{self.name}` is not defined for the field `{arg_name}` ({target.name}): "
                                f"{_why_not(self.name, target)}")
            return fn
        if kind == "domain" and self.domain_fn is not None:
            return domain_function(target, self.domain_fn)
        takes = "a field" if self.field_attr else "the domain"
        raise TypeError(f"fem.{self.name} takes {takes} as its first argument; `{arg_name}` is "
                        f"{'a field' if kind == 'field' else 'the domain'}")


def _why_not(name: str, field) -> str:
    if name.startswith("node_") and "weight" in name:
        return "node weights are those of the fields of a function space (discrete, test and trial fields)"
    if hasattr(getattr(field, "field", None), "func"):
        return f"an implicit field has a {name} only when it is given a {name}_func"
    if name == "div":
        return "the divergence is defined for vector- and tensor-valued fields"
    if name in ("jump", "outer", "grad_jump", "grad_outer", "div_outer"):
        return "it is defined on sides (fem.Sides, fem.BoundarySides domains)"
    return "this field kind does not provide it in warp_nb yet"


def domain_function(domain, which: str):
    """The device function (domain_arg, s) -> value for operator `which` of this domain."""
    key = (type(domain), domain.element_kind, domain.geometry, which)  # (subdomains of cells and sides share a type)
    cached = _DOMAIN_FUNCS.get(key)
    if cached is not None:
        return cached
    if which == "lookup":
        cached = _DOMAIN_FUNCS[key] = _lookup_functions(domain)
        return cached
    if which == "element_index":  # the domain's own index map (a partition's, a subdomain's list): not in `key`
        return _element_index_function(domain)
    if which in _QUERIES:
        cached = _DOMAIN_FUNCS[key] = _QUERIES[which](domain)
        return cached
    geo_fn = getattr(domain, "element_" + which)

    @wp.func
    def apply(domain_arg: Any, s: Any):
        return geo_fn(domain_arg.geo, s)

    _DOMAIN_FUNCS[key] = apply
    return apply


_DOMAIN_FUNCS: dict = {}


def _element_index_function(domain):
    """fem.element_index(domain, i): the domain's index map applied to its index argument."""
    index = domain.element_index
    cached = _INDEX_FUNCS.get(index)
    if cached is None:
        @wp.func
        def element_index(domain_arg: Any, domain_element_index: int):
            return index(domain_arg.index, domain_element_index)

        cached = _INDEX_FUNCS[index] = element_index
    return cached


_INDEX_FUNCS: dict = {}


def _is_side(domain) -> bool:
    from .types import ElementKind
    return domain.element_kind == ElementKind.SIDE


def _element_query(name: str):
    """element_coordinates / element_closest_point: the geometry's cell_ or side_ query of that name."""
    def make(domain):
        query = getattr(domain.geometry, ("side_" if _is_side(domain) else "cell_") + name, None)
        if query is None:
            raise TypeError(f"fem.element_{name}: {domain.geometry.name} does not provide it")

        @wp.func
        def element_query(domain_arg: Any, element_index: int, pos: Any):
            return query(domain_arg.geo, element_index, pos)

        return element_query
    return make


def _to_cell(outer: bool):
    """to_inner_cell / to_outer_cell: a side sample as a sample of its inner (outer) cell."""
    def make(domain):
        if not _is_side(domain):
            raise TypeError(f"fem.to_{'outer' if outer else 'inner'}_cell takes a domain of sides, got {domain.name}")
        geo = domain.geometry
        index = geo.side_outer_cell_index if outer else geo.side_inner_cell_index
        coords = geo.side_outer_cell_coords if outer else geo.side_inner_cell_coords

        @wp.func
        def to_cell(domain_arg: Any, s: Sample):
            cell_coords = coords(domain_arg.geo, s.element_index, s.element_coords)
            return Sample(index(domain_arg.geo, s.element_index), cell_coords,
                          s.qp_index, s.qp_weight, s.test_dof, s.trial_dof)

        return retyped(to_cell, geo.scalar_type)
    return make


def _to_cell_side(domain):
    """to_cell_side(domain, cell_sample, side_index): a cell sample as a sample of one of its sides."""
    if not _is_side(domain):
        raise TypeError(f"fem.to_cell_side takes a domain of sides, got {domain.name}")
    from_cell = domain.geometry.side_from_cell_coords

    @wp.func
    def to_cell_side(domain_arg: Any, cell_s: Sample, side_index: int):
        return Sample(side_index, from_cell(domain_arg.geo, side_index, cell_s.element_index, cell_s.element_coords),
                      cell_s.qp_index, cell_s.qp_weight, cell_s.test_dof, cell_s.trial_dof)

    return retyped(to_cell_side, domain.geometry.scalar_type)


def _cells_of(domain):
    """fem.cells(domain): the domain argument of the geometry's cells, from a domain of cells or sides."""
    from .domain import Cells
    cells = Cells(domain.geometry)
    if not _is_side(domain):
        @wp.func
        def same(domain_arg: Any):
            return domain_arg

        return same, cells
    to_cell_arg, cells_arg = domain.geometry.side_to_cell_arg, cells.DomainArg

    @wp.func
    def cells_from_sides(domain_arg: Any):
        arg = cells_arg()
        arg.geo = to_cell_arg(domain_arg.geo)
        return arg

    return cells_from_sides, cells


def _field_cells_of(bound):
    """fem.cells(field): a field bound to sides, as the same field bound to the geometry's cells
    (what evaluates it at a cell sample, one from fem.lookup say)."""
    from .domain import Cells
    from .field.fields import BoundField
    cells = BoundField(bound.field, Cells(bound.domain.geometry))
    if not _is_side(bound.domain):
        @wp.func
        def same(field_arg: Any):
            return field_arg

        return same, cells
    to_cell_arg, cell_arg_struct = bound.domain.geometry.side_to_cell_arg, cells.Arg

    @wp.func
    def field_on_cells(field_arg: Any):
        arg = cell_arg_struct()
        arg.geo = to_cell_arg(field_arg.geo)
        arg.eval = field_arg.eval
        return arg

    return field_on_cells, cells


_QUERIES = {"coordinates": _element_query("coordinates"), "closest_point": _element_query("closest_point"),
            "to_inner_cell": _to_cell(False), "to_outer_cell": _to_cell(True), "to_cell_side": _to_cell_side}


def _lookup_functions(domain):
    """`fem.lookup(domain, pos)`, `(domain, pos, guess_sample)`, `(domain, pos, max_dist)` and
    `(domain, pos, max_dist, filter_array, filter_target)`: the sample of the domain's cells at a
    world position. Like Warp's, it carries no test or trial dof (even with a guess), so test and
    trial functions vanish there."""
    from .types import ElementKind
    if domain.element_kind != ElementKind.CELL or getattr(domain.geometry, "cell_lookup", None) is None:
        raise TypeError(f"fem.lookup: {domain.name} does not support lookups (cells of a geometry with cell_lookup "
                        "do)")
    if domain.geometry.environment_count() > 1:  # a position alone is ambiguous: the environment is named
        from .environment_operators import environment_lookup_functions
        return environment_lookup_functions(domain.geometry)
    cell_lookup = domain.geometry.cell_lookup
    filtered_lookup = domain.geometry.make_filtered_cell_lookup()

    @wp.func
    def no_dofs(found: Any):
        found.test_dof = wp.vec2i(-1)
        found.trial_dof = wp.vec2i(-1)
        return found

    @wp.func
    def lookup(domain_arg: Any, pos: Any):
        return no_dofs(cell_lookup(domain_arg.geo, pos, type(pos[0])(1.0e30)))

    @wp.func
    def lookup(domain_arg: Any, pos: Any, max_dist: float):  # noqa: F811 (an overload)
        return no_dofs(cell_lookup(domain_arg.geo, pos, max_dist))

    # A guess only speeds a search up in Warp; it never changes the cell found (checked on grids, where a
    # position on a cell boundary is found in the same cell with or without one).
    @wp.func
    def lookup(domain_arg: Any, pos: Any, guess: Sample):  # noqa: F811 (an overload)
        return no_dofs(cell_lookup(domain_arg.geo, pos, type(pos[0])(1.0e30)))

    @wp.func
    def lookup(domain_arg: Any, pos: Any, max_dist: float, filter_array: Any, filter_target: Any):  # noqa: F811
        # only the cells whose filter_array[cell] equals filter_target
        return no_dofs(filtered_lookup(domain_arg.geo, pos, max_dist, filter_array, filter_target))

    return retyped(lookup, domain.geometry.scalar_type)

grad = Operator("grad", "Gradient of a field with respect to world position.", field_attr="eval_grad_inner")
D = Operator("D", "Symmetric part of the gradient of a vector field.", field_attr="eval_D_inner")
curl = Operator("curl", "Skew part of the gradient of a vector field, as a vector (3-D) or a scalar (2-D): half "
                "the rotational, as Warp's.", field_attr="eval_curl_inner")
div = Operator("div", "Divergence of a vector field.", field_attr="eval_div_inner")
inner = Operator("inner", "Value of a field on the inner cell of a side.", field_attr="eval_inner")
outer = Operator("outer", "Value of a field on the outer cell of a side.", field_attr="eval_outer")
jump = Operator("jump", "Jump of a field across a side: inner minus outer value.", field_attr="eval_jump")
average = Operator("average", "Average of a field's inner and outer values on a side.", field_attr="eval_average")
grad_outer = Operator("grad_outer", "Gradient of a field on the outer cell of a side.", field_attr="eval_grad_outer")
grad_jump = Operator("grad_jump", "Jump of a field's gradient across a side.", field_attr="eval_grad_jump")
grad_average = Operator("grad_average", "Average of a field's gradient on a side.", field_attr="eval_grad_average")
div_outer = Operator("div_outer", "Divergence of a field on the outer cell of a side.", field_attr="eval_div_outer")
position = Operator("position", "World position of a sample of the domain.", domain_fn="position")
measure = Operator("measure", "Measure (length, area, volume) ratio of the element at a sample.",
                   domain_fn="measure")
normal = Operator("normal", "Unit normal of a side (or of a cell of a manifold) at a sample.", domain_fn="normal")
deformation_gradient = Operator("deformation_gradient", "Gradient of world position with respect to reference "
                                "coordinates at a sample.", domain_fn="deformation_gradient")
node_count = Operator("node_count", "Number of nodes of the element of a sample, for a field.",
                      field_attr="eval_node_count")
at_node = Operator("at_node", "The sample moved to the node of the field's test or trial dof (or to node k).",
                   field_attr="eval_at_node")
node_index = Operator("node_index", "Global index of the node of the field's test or trial dof (or of node k).",
                      field_attr="eval_node_index")
element_coordinates = Operator("element_coordinates", "Coordinates of a world position in an element of the "
                               "domain (not clamped to it).", domain_fn="coordinates")
element_closest_point = Operator("element_closest_point", "Coordinates of the point of an element of the domain "
                                 "closest to a world position, and its squared distance.", domain_fn="closest_point")
to_inner_cell = Operator("to_inner_cell", "A side sample as a sample of the side's inner cell.",
                         domain_fn="to_inner_cell")
to_outer_cell = Operator("to_outer_cell", "A side sample as a sample of the side's outer cell.",
                         domain_fn="to_outer_cell")
to_cell_side = Operator("to_cell_side", "A cell sample as a sample of one of the cell's sides.",
                        domain_fn="to_cell_side")
cells = Operator("cells", "The domain of the geometry's cells (from a domain of its sides): call it with a cell "
                 "sample for the position.", domain_fn="cells")
lookup = Operator("lookup", "The sample of the domain's cells at a world position.", domain_fn="lookup")
measure_ratio = Operator("measure_ratio", "Ratio of a side's measure to its cell's.", domain_fn="measure_ratio")
element_index = Operator("element_index", "The geometry's index of the domain's `domain_element_index`-th element "
                         "(`fem.element_index(domain, i)`).", domain_fn="element_index")


class NodeWeightOperator(Operator):
    """`fem.node_inner_weight(f, s, k)` and the like: a discrete field names the element-local node k; a
    test or trial field must not, its node being the one whose dof is evaluated (field/node_weights.py)."""

    def check_call(self, target, kind: str, arg_name: str, arg_count: int) -> None:
        if kind != "field":
            return
        node_field = getattr(target.field, "SLOT", None) is not None
        if node_field and arg_count != 2:
            raise TypeError(f"fem.{self.name}({arg_name}, s): `{arg_name}` is a test or trial field, whose node is the "
                            "one being evaluated; node_index_in_elt must not be given")
        if not node_field and arg_count != 3:
            raise TypeError(f"fem.{self.name}({arg_name}, s, node_index_in_elt): `{arg_name}` is not a test or trial "
                            "field; node_index_in_elt is required")


_WEIGHT_DOC = ("the {where} element's shape weight of a local node of a field's space at a sample{what} (a discrete "
               "field names the node: f, s, node_index_in_elt; a test or trial field uses its current node: f, s)")
node_inner_weight = NodeWeightOperator("node_inner_weight", _WEIGHT_DOC.format(where="inner", what=""),
                                       field_attr="eval_node_inner_weight")
node_inner_weight_gradient = NodeWeightOperator("node_inner_weight_gradient", _WEIGHT_DOC.format(
    where="inner", what=", its gradient in world coordinates"), field_attr="eval_node_inner_weight_gradient")
node_outer_weight = NodeWeightOperator("node_outer_weight", _WEIGHT_DOC.format(where="outer", what=""),
                                       field_attr="eval_node_outer_weight")
node_outer_weight_gradient = NodeWeightOperator("node_outer_weight_gradient", _WEIGHT_DOC.format(
    where="outer", what=", its gradient in world coordinates"), field_attr="eval_node_outer_weight_gradient")

#: what calling a field or the domain itself means (`u(s)`, `domain(s)`)
CALL_FIELD = "eval_inner"
CALL_DOMAIN = "position"


class ConstantOperator(Operator):
    """An operator whose value is known when the integrand is specialised (`fem.scalar_type(u)`,
    `fem.degree(u)`): the call is replaced by that value (a type or a number)."""

    def __init__(self, name: str, doc: str, of_field, of_domain=None):
        super().__init__(name, doc)
        self.of_field, self.of_domain = of_field, of_domain

    def resolve_constant(self, target, kind: str, arg_name: str):
        fn = self.of_field if kind == "field" else self.of_domain
        if fn is None:
            raise TypeError(f"fem.{self.name} takes a field; `{arg_name}` is the domain")
        return fn(target)


def _scalar_type_of_field(bound):
    dtype = bound.field.dtype if hasattr(bound.field, "dtype") else bound.space.dtype
    return getattr(dtype, "_wp_scalar_type_", dtype)


def _degree_of_field(bound):
    degree = getattr(bound.field, "degree", None)
    return int(degree if degree is not None else bound.space.degree)


scalar_type = ConstantOperator("scalar_type", "The scalar type of a field's values or of a domain's geometry.",
                               _scalar_type_of_field, lambda domain: getattr(domain.geometry, "scalar_type", float))
degree = ConstantOperator("degree", "The polynomial degree of a field.", _degree_of_field)
