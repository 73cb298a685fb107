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
                raise TypeError(f"fem.{self.name} is not defined for the field `{arg_name}` ({target.name}): "
                                f"{_why_not(self.name, target)}")
            return fn
        if kind == "domain" and self.domain_fn is not None:
            return domain_function(target, self.domain_fn)
        takes = "a field" if self.field_attr else "the domain"
        raise TypeError(f"fem.{self.name} takes {takes} as its first argument; `{arg_name}` is "
                        f"{'a field' if kind == 'field' else 'the domain'}")


def _why_not(name: str, field) -> str:
    if name == "div":
        return "the divergence is defined for vector-valued fields only"
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
    """`fem.lookup(domain, pos)`, `(domain, pos, guess_sample)` and `(domain, pos, max_dist)`: the
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

    return lookup

grad = Operator("grad", "Gradient of a field with respect to world position.", field_attr="eval_grad_inner")
D = Operator("D", "Symmetric part of the gradient of a vector field.", field_attr="eval_D_inner")
curl = Operator("curl", "Skew part of the gradient of a vector field, as a vector (3-D) or a scalar (2-D): half "
                "the rotational, as Warp's.", field_attr="eval_curl_inner")
div = Operator("div", "Divergence of a vector field.", field_attr="eval_div_inner")
inner = Operator("inner", "Value of a field on the inner side of an element.", field_attr="eval_inner")
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


class TypeOperator(Operator):
    """An operator that names a type (`fem.scalar_type(u)`): the call is replaced by the type itself."""

    def resolve_type(self, target, kind: str):
        if kind == "field":
            dtype = target.space.dtype
            return dtype._wp_scalar_type_ if hasattr(dtype, "_wp_scalar_type_") else dtype
        return getattr(target.geometry, "scalar_type", float)


scalar_type = TypeOperator("scalar_type", "The scalar type of a field's values or of a domain's geometry.")
