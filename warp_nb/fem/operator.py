"""The operators integrands call on their fields and domain (`fem.grad(u, s)`,
`fem.position(domain, s)`, ...). An operator is not a device function itself: when `integrate` or
`interpolate` specialises an integrand (integrand_specialize.py), each call `op(x, ...)` whose first
argument is a field or the domain is replaced by the device function that `op` names for that
field or domain. Called from Python, an operator says so."""

from __future__ import annotations

from typing import Any

import warp_nb as wp

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
    if hasattr(getattr(field, "field", None), "func"):
        return f"an implicit field has a {name} only when it is given a {name}_func"
    if name == "div":
        return "the divergence is defined for vector- and tensor-valued fields"
    if name in ("jump", "outer", "grad_jump", "grad_outer", "div_outer"):
        return "it is defined on sides (fem.Sides, fem.BoundarySides domains)"
    return "this field kind does not provide it in warp_nb yet"


def domain_function(domain, which: str):
    """The device function (domain_arg, s) -> value for operator `which` of this domain."""
    key = (type(domain), domain.geometry, which)
    cached = _DOMAIN_FUNCS.get(key)
    if cached is not None:
        return cached
    if which == "lookup":
        cached = _DOMAIN_FUNCS[key] = _lookup_functions(domain)
        return cached
    geo_fn = getattr(domain, "element_" + which)

    @wp.func
    def apply(domain_arg: Any, s: Any):
        return geo_fn(domain_arg.geo, s)

    _DOMAIN_FUNCS[key] = apply
    return apply


_DOMAIN_FUNCS: dict = {}


def _lookup_functions(domain):
    """`fem.lookup(domain, pos)`, `(domain, pos, guess_sample)`, `(domain, pos, max_dist)` and
    `(domain, pos, max_dist, filter_array, filter_target)`: the
    sample of the domain's cells at a world position (the guess's dofs are kept, so that a field
    evaluated there stays the field of the guess's test or trial node)."""
    from .types import ElementKind
    if domain.element_kind != ElementKind.CELL or getattr(domain.geometry, "cell_lookup", None) is None:
        raise TypeError(f"fem.lookup: {domain.name} does not support lookups (cells of a geometry with cell_lookup "
                        "do)")
    cell_lookup = domain.geometry.cell_lookup

    @wp.func
    def lookup(domain_arg: Any, pos: Any):
        return cell_lookup(domain_arg.geo, pos, type(pos[0])(1.0e30))

    @wp.func
    def lookup(domain_arg: Any, pos: Any, max_dist: float):  # noqa: F811 (an overload)
        return cell_lookup(domain_arg.geo, pos, max_dist)

    @wp.func
    def lookup(domain_arg: Any, pos: Any, guess: Sample):  # noqa: F811 (an overload)
        found = cell_lookup(domain_arg.geo, pos, type(pos[0])(1.0e30))
        found.test_dof = guess.test_dof
        found.trial_dof = guess.trial_dof
        return found

    filtered_lookup = domain.geometry.make_filtered_cell_lookup()

    @wp.func
    def lookup(domain_arg: Any, pos: Any, max_dist: float, filter_data: Any, filter_target: Any):  # noqa: F811
        # only the cells whose filter_data[cell] equals filter_target
        return filtered_lookup(domain_arg.geo, pos, max_dist, filter_data, filter_target)

    return lookup

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
lookup = Operator("lookup", "The sample of the domain's cells at a world position.", domain_fn="lookup")
measure_ratio = Operator("measure_ratio", "Ratio of a side's measure to its cell's.", domain_fn="measure_ratio")

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
