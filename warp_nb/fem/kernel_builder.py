"""What the generated integration and interpolation kernels share: the resolution of one call
(`Setup`: each integrand parameter's kind, the field or domain it receives, its kernel type and host
value, the specialised integrand), building a kernel once per specialisation and kind
(`make_kernel`: Python source made here, see codegen.py), the quadrature loop's text and where a
node of an element lies (`node_location`)."""

from __future__ import annotations

import itertools
from typing import Any

import warp_nb as wp

from .. import types as T
from .codegen import define
from .domain import GeometryDomain
from .geometry.geometry import geometry_labels
from .field.fields import BoundField, FieldLike, TestField, TrialField, bound_field
from .integrand import Integrand
from .integrand_specialize import DOMAIN, FIELD, SAMPLE, parameter_kinds, specialize
from .quadrature import Quadrature
from .quadrature.quadrature import default_quadrature
from .types import NULL_NODE_INDEX, NULL_QP_INDEX, make_free_sample, warp_type


def return_type_of(function, arg_types) -> Any:
    """The type the specialised integrand returns for these argument types."""
    from ..compiler.typecheck import Context, typecheck_function
    overload = function.overloads[0]
    return typecheck_function(function, overload.fdef, list(arg_types), overload.scope, Context("release")).return_type


def scalar_of(t):
    return T.type_scalar_type(t) if (T.type_is_vector(t) or T.type_is_matrix(t)) else t


def with_scalar(t, scalar):
    """Type `t` (a scalar, vector or matrix type) with its scalar type replaced (found once per pair:
    every integrate call asks)."""
    key = (t, scalar)
    found = _WITH_SCALAR.get(key)
    if found is None:
        if T.type_is_vector(t):
            found = T.vector(length=T.type_length(t), dtype=scalar)
        elif T.type_is_matrix(t):
            found = T.matrix(shape=t._shape_, dtype=scalar)
        else:
            found = scalar
        _WITH_SCALAR[key] = found
    return found


_WITH_SCALAR: dict = {}


_MISSING = object()


class Setup:
    """What one call of integrate / interpolate resolved: kinds, targets, kernel parameter types
    and host values, the specialised integrand."""

    def __init__(self, integrand, domain: GeometryDomain, fields: dict, values: dict, device, what: str,
                 kernel_options: dict | None = None):
        if not isinstance(integrand, Integrand):
            raise TypeError(f"fem.{what}: the first argument must be an @fem.integrand function, got "
                            f"{type(integrand).__name__} {integrand!r}")
        if kernel_options is not None and not isinstance(kernel_options, dict):
            raise TypeError(f"fem.{what}: `kernel_options` must be a dict of kernel options, got "
                            f"{type(kernel_options).__name__}")
        self.integrand = integrand
        # the call's kernel options, over the integrand's own (@fem.integrand(kernel_options=...)), as in Warp
        self.kernel_options = {**integrand.kernel_options, **(kernel_options or {})}
        self.kinds = parameter_kinds(integrand)
        self.domain = domain
        self.device = device
        fields, values = dict(fields or {}), dict(values or {})
        for name in itertools.chain(fields, values):
            if name not in self.kinds:
                raise ValueError(f"fem.{what}: the integrand {integrand.name} has no parameter `{name}` "
                                 f"(its parameters: {', '.join(self.kinds)})")
        self.targets, self.concrete, self.host_values = {}, {}, {}
        # made once per call and shared by the kernel's domain argument and every field bound to the domain
        self.domain_arg = domain.domain_arg_value(device)
        self.test = self.trial = None
        self.fields_on_nodes: dict = {}  # test / trial fields by name, bound to the domain
        for name, (kind, annotation) in self.kinds.items():
            if kind == SAMPLE:
                self.concrete[name] = domain.geometry.sample_type
            elif kind == DOMAIN:
                self.targets[name] = domain
                self.concrete[name] = domain.DomainArg
                self.host_values[name] = self.domain_arg
            elif kind == FIELD:
                field = fields.get(name)
                if not isinstance(field, FieldLike):
                    raise ValueError(f"fem.{what}: the integrand {integrand.name} needs a field for `{name}` in "
                                     f"fields={{...}}, got {type(field).__name__ if name in fields else 'nothing'}")
                geometry = field.space.geometry if hasattr(field, "space") else field.geometry
                if geometry is not domain.geometry:
                    on_field, on_domain = geometry_labels(geometry, domain.geometry)
                    raise ValueError(f"fem.{what}: field `{name}` is defined on {on_field}, the domain on "
                                     f"{on_domain}: they must be the same geometry object")
                if isinstance(field, (TestField, TrialField)) and field.domain != domain:
                    raise ValueError(f"fem.{what}: the {type(field).__name__.replace('Field', '').lower()} field "
                                     f"`{name}` is defined over {field.domain.name}, not over the integration "
                                     f"domain {domain.name}; make it with domain=... of that domain")
                if isinstance(field, TestField):
                    if self.test is not None:
                        raise ValueError(f"fem.{what}: more than one test field (`{self.test[0]}`, `{name}`)")
                    self.test = (name, field)
                elif isinstance(field, TrialField):
                    if self.trial is not None:
                        raise ValueError(f"fem.{what}: more than one trial field (`{self.trial[0]}`, `{name}`)")
                    self.trial = (name, field)
                bound = bound_field(field, domain)
                if isinstance(field, (TestField, TrialField)):
                    self.fields_on_nodes[name] = bound
                self.targets[name], self.concrete[name], self.host_values[name] = bound, bound.Arg, \
                    bound.arg_value(device, self.domain_arg.geo)
            else:
                if name not in values:
                    raise ValueError(f"fem.{what}: the integrand {integrand.name} needs a value for `{name}` in "
                                     "values={...}")
                self.concrete[name] = warp_type(annotation)
                self.host_values[name] = values[name]
        if self.trial is not None and self.test is None and what == "integrate":
            raise ValueError(f"fem.{what}: a trial field (`{self.trial[0]}`) needs a test field beside it")
        # what makes two specialisations the same: the domain, each field's evaluation (its cache_key)
        # and the concrete types (by identity: two structs of one name are different types)
        self.key = (what, domain, tuple((n, t.field.cache_key if isinstance(t, BoundField) else t)
                                        for n, t in self.targets.items()),
                    tuple(self.concrete.items()))
        self.function = None

    def specialised(self):
        cached = self.integrand.cached_funcs.get(self.key)
        if cached is None:
            cached = self.integrand.cached_funcs[self.key] = specialize(self.integrand, self.kinds, self.targets,
                                                                        self.concrete)
        self.function = cached
        return cached

    def return_type(self):
        # typechecking the specialised integrand is costly: once per specialisation
        cached = self.integrand.cached_return_types.get(self.key, _MISSING)
        if cached is _MISSING:
            cached = self.integrand.cached_return_types[self.key] = return_type_of(
                self.specialised(), [self.concrete[n] for n in self.kinds])
        return cached

    def call_text(self, sample: str = "_s") -> str:
        """`_fem_integrand(<args>)` with the sample variable in the sample parameter's place."""
        args = [sample if kind == SAMPLE else name for name, (kind, _) in self.kinds.items()]
        return f"_fem_integrand({', '.join(args)})"

    def params_text(self, namespace: dict) -> list:
        """Kernel parameters for the integrand's non-sample parameters (types put in `namespace`)."""
        out = []
        for name, (kind, _) in self.kinds.items():
            if kind == SAMPLE:
                continue
            type_name = f"_fem_t_{name}"
            namespace[type_name] = self.concrete[name]
            out.append(f"{name}: {type_name}")
        return out

    def inputs(self) -> list:
        return [self.host_values[name] for name, (kind, _) in self.kinds.items() if kind != SAMPLE]


def make_kernel(setup: Setup, kind: str, body: str, params: list, namespace: dict):
    """Build (once per specialisation and kind) the kernel `body` with `params`."""
    # everything the kernel's text names: types by their text, functions and quadratures by identity
    # (the cache keeps them alive, so an identity is never reused while its entry exists)
    key = (kind, body) + setup.key + tuple(sorted(((name, getattr(value, "kernel_key", value))
                                                  for name, value in namespace.items()), key=lambda kv: kv[0]))
    key += tuple(sorted((k, repr(v)) for k, v in setup.kernel_options.items()))
    namespace = dict(namespace)  # the kernel's globals: one per kernel
    cached = setup.integrand.cached_kernels.get(key)
    if cached is not None:
        return cached
    function = setup.specialised()
    name = f"{kind}_{setup.integrand.func.__name__}"
    namespace.update({"wp": wp, "_fem_integrand": function, "Sample": setup.domain.geometry.sample_type,
                      "make_free_sample": make_free_sample, "NULL_QP_INDEX": NULL_QP_INDEX,
                      "NULL_NODE_INDEX": NULL_NODE_INDEX})
    python_function = define(name, f"def {name}({', '.join(params)}):\n" + body, namespace)
    options = dict(setup.kernel_options)
    kernel = wp.Kernel(python_function, key=f"{name}_{abs(hash(key)) % (1 << 32):08x}",
                       module=setup.integrand.module, options=options)
    setup.integrand.cached_kernels[key] = kernel
    return kernel


def domain_of_fields(fields):
    """The domain of the test field, else of the trial field, else None."""
    for kind in (TestField, TrialField):
        for field in (fields or {}).values():
            if isinstance(field, kind):
                return field.domain
    return None


def quadrature_for(domain, quadrature, setup_fields) -> Quadrature:
    if quadrature is not None:
        if not isinstance(quadrature, Quadrature):
            raise TypeError(f"quadrature must be a fem quadrature (fem.RegularQuadrature, ...), got "
                            f"{type(quadrature).__name__}")
        return quadrature
    order = 0
    for field in setup_fields:
        order += getattr(field, "degree", None) or getattr(getattr(field, "space", None), "degree", 0)
    return default_quadrature(domain, max(order, 1))


QP_LOOP = """\
    _element_index = _fem_domain_index(_fem_domain_arg.index, _domain_element)
    _qp_count = _fem_qp.point_count(_fem_domain_arg.geo, _fem_qp_arg, _domain_element, _element_index)
    for _k in range(_qp_count):
        _coords = _fem_qp.point_coords(_fem_domain_arg.geo, _fem_qp_arg, _domain_element, _element_index, _k)
        _w = _fem_qp.point_weight(_fem_domain_arg.geo, _fem_qp_arg, _domain_element, _element_index, _k)
        _qp_index = _fem_qp.point_index(_fem_domain_arg.geo, _fem_qp_arg, _domain_element, _element_index, _k)
        _s0 = Sample(_element_index, _coords, _qp_index, _w, wp.vec2i(-1, -1), wp.vec2i(-1, -1))
        _dw = _w * _fem_measure(_fem_domain_arg.geo, _s0)
"""


def launch(kernel, dim, inputs):
    wp.launch(kernel, dim=dim, inputs=inputs)


def node_location(domain, namespace, space=None, space_arg: str = "") -> str:
    """Kernel text giving `_coords`, the element coordinates of node `_node` of element
    `_element_index` of `domain`: the node's own on cells; on sides, the side coordinates of the
    inner cell's node, the thread returning when that node is not on the side. A point basis's
    nodes (`space` whose shape has NODES_FROM_ARG) are read from its argument, `space_arg`."""
    from .types import ElementKind
    if getattr(getattr(space, "shape", None), "NODES_FROM_ARG", False):
        if domain.element_kind == ElementKind.SIDE:
            raise NotImplementedError("the nodes of a fem.PointBasisSpace lie in cells; evaluating them on sides is "
                                      "not supported by warp_nb.fem yet")
        return f"    _coords = _fem_node_coords(_fem_domain_arg.geo, {space_arg}, _element_index, _node)\n"
    if domain.element_kind != ElementKind.SIDE:
        return "    _coords = _fem_node_coords(_node)\n"
    geo = domain.geometry
    namespace.update({"_fem_inner_cell": geo.side_inner_cell_index, "_fem_from_cell": geo.side_from_cell_coords,
                      "_fem_inner_coords": geo.side_inner_cell_coords})
    return ("    _cc = _fem_node_coords(_node)\n"
            "    _coords = _fem_from_cell(_fem_domain_arg.geo, _element_index, "
            "_fem_inner_cell(_fem_domain_arg.geo, _element_index), _cc)\n"
            "    if wp.length_sq(_fem_inner_coords(_fem_domain_arg.geo, _element_index, _coords) - _cc) > 1.0e-8:\n"
            "        return\n")
