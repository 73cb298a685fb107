"""`fem.integrate` and `fem.interpolate`: specialise an integrand for the fields, domain and
quadrature given (integrand_specialize.py), generate the kernel that evaluates it (the kernel's
text is made here, from the kinds of result: a number, a vector over a test space's dofs, a
matrix over test x trial dofs, values at quadrature points or at a field's nodes), build it once
per specialisation (cached on the Integrand) and launch it.

Accumulation is in `accumulate_dtype` (float64 by default, as Warp) and converted to the output
type at the end; a matrix is assembled as triplets (one per element and test/trial node pair)
summed by `warp.sparse`'s `bsr_set_from_triplets`."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

import warp_nb as wp

from .. import types as T
from .codegen import define
from .domain import Cells, GeometryDomain
from .field.fields import BoundField, DiscreteField, FieldLike, FieldRestriction, TestField, TrialField
from .integrand import Integrand
from .integrand_specialize import DOMAIN, FIELD, SAMPLE, parameter_kinds, specialize
from .quadrature import Quadrature, RegularQuadrature
from .types import NULL_QP_INDEX, ElementKind, Field, Sample, make_free_sample


def _return_type(function, arg_types) -> Any:
    """The type the specialised integrand returns for these argument types."""
    from ..compiler.typecheck import Context, typecheck_function
    overload = function.overloads[0]
    return typecheck_function(function, overload.fdef, list(arg_types), overload.scope, Context("release")).return_type


def _scalar_of(t):
    return T.type_scalar_type(t) if (T.type_is_vector(t) or T.type_is_matrix(t)) else t


def _with_scalar(t, scalar):
    """Type `t` (a scalar, vector or matrix type) with its scalar type replaced."""
    if T.type_is_vector(t):
        return T.vector(length=T.type_length(t), dtype=scalar)
    if T.type_is_matrix(t):
        return T.matrix(shape=t._shape_, dtype=scalar)
    return scalar


#: Python scalar annotations of integrand values, as the Warp types kernels give them
_PYTHON_SCALARS = {float: T.float32, int: T.int32, bool: T.bool}


class _Setup:
    """What one call of integrate / interpolate resolved: kinds, targets, kernel parameter types
    and host values, the specialised integrand."""

    def __init__(self, integrand, domain: GeometryDomain, fields: dict, values: dict, device, what: str):
        if not isinstance(integrand, Integrand):
            raise TypeError(f"fem.{what}: the first argument must be an @fem.integrand function, got "
                            f"{type(integrand).__name__} {integrand!r}")
        self.integrand = integrand
        self.kinds = parameter_kinds(integrand)
        self.domain = domain
        self.device = device
        fields, values = dict(fields or {}), dict(values or {})
        for name in itertools.chain(fields, values):
            if name not in self.kinds:
                raise ValueError(f"fem.{what}: the integrand {integrand.name} has no parameter `{name}` "
                                 f"(its parameters: {', '.join(self.kinds)})")
        self.targets, self.concrete, self.host_values = {}, {}, {}
        self.test = self.trial = None
        self.fields_on_nodes: dict = {}  # test / trial fields by name, bound to the domain
        for name, (kind, annotation) in self.kinds.items():
            if kind == SAMPLE:
                self.concrete[name] = Sample
            elif kind == DOMAIN:
                self.targets[name] = domain
                self.concrete[name] = domain.DomainArg
                self.host_values[name] = domain.domain_arg_value(device)
            elif kind == FIELD:
                field = fields.get(name)
                if not isinstance(field, FieldLike):
                    raise ValueError(f"fem.{what}: the integrand {integrand.name} needs a field for `{name}` in "
                                     f"fields={{...}}, got {type(field).__name__ if name in fields else 'nothing'}")
                geometry = field.space.geometry if hasattr(field, "space") else field.geometry
                if geometry is not domain.geometry:
                    raise ValueError(f"fem.{what}: field `{name}` is defined on {geometry.name}, the "
                                     f"domain on {domain.geometry.name}")
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
                bound = BoundField(field, domain)
                if isinstance(field, (TestField, TrialField)):
                    self.fields_on_nodes[name] = bound
                self.targets[name], self.concrete[name], self.host_values[name] = bound, bound.Arg, \
                    bound.arg_value(device)
            else:
                if name not in values:
                    raise ValueError(f"fem.{what}: the integrand {integrand.name} needs a value for `{name}` in "
                                     "values={...}")
                self.concrete[name] = _PYTHON_SCALARS.get(annotation, annotation)
                self.host_values[name] = values[name]
        if self.trial is not None and self.test is None:
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
        return _return_type(self.specialised(), [self.concrete[n] for n in self.kinds])

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


def _make_kernel(setup: _Setup, kind: str, body: str, params: list, namespace: dict):
    """Build (once per specialisation and kind) the kernel `body` with `params`."""
    # everything the kernel's text names: types by their text, functions and quadratures by identity
    # (the cache keeps them alive, so an identity is never reused while its entry exists)
    key = (kind, body) + setup.key + tuple(sorted(namespace.items(), key=lambda kv: kv[0]))
    namespace = dict(namespace)  # the kernel's globals: one per kernel
    cached = setup.integrand.cached_kernels.get(key)
    if cached is not None:
        return cached
    function = setup.specialised()
    name = f"{kind}_{setup.integrand.func.__name__}"
    namespace.update({"wp": wp, "_fem_integrand": function, "Sample": Sample, "make_free_sample": make_free_sample,
                      "NULL_QP_INDEX": NULL_QP_INDEX})
    python_function = define(name, f"def {name}({', '.join(params)}):\n" + body, namespace)
    options = dict(setup.integrand.kernel_options)
    kernel = wp.Kernel(python_function, key=f"{name}_{abs(hash(key)) % (1 << 32):08x}",
                       module=setup.integrand.module, options=options)
    setup.integrand.cached_kernels[key] = kernel
    return kernel


def _domain_of_fields(fields):
    """The domain of the test field, else of the trial field, else None."""
    for kind in (TestField, TrialField):
        for field in (fields or {}).values():
            if isinstance(field, kind):
                return field.domain
    return None


def _quadrature_for(domain, quadrature, setup_fields) -> Quadrature:
    if quadrature is not None:
        if not isinstance(quadrature, Quadrature):
            raise TypeError(f"quadrature must be a fem quadrature (fem.RegularQuadrature, ...), got "
                            f"{type(quadrature).__name__}")
        return quadrature
    order = 0
    for field in setup_fields:
        order += getattr(field, "degree", None) or getattr(getattr(field, "space", None), "degree", 0)
    return RegularQuadrature(domain, order=max(order, 1))


_QP_LOOP = """\
    _element_index = _fem_domain_index(_fem_domain_arg.index, _domain_element)
    _qp_count = _fem_qp.point_count(_fem_domain_arg.geo, _fem_qp_arg, _domain_element, _element_index)
    for _k in range(_qp_count):
        _coords = _fem_qp.point_coords(_fem_domain_arg.geo, _fem_qp_arg, _domain_element, _element_index, _k)
        _w = _fem_qp.point_weight(_fem_domain_arg.geo, _fem_qp_arg, _domain_element, _element_index, _k)
        _qp_index = _fem_qp.point_index(_fem_domain_arg.geo, _fem_qp_arg, _domain_element, _element_index, _k)
        _s0 = Sample(_element_index, _coords, _qp_index, _w, wp.vec2i(-1, -1), wp.vec2i(-1, -1))
        _dw = _w * _fem_measure(_fem_domain_arg.geo, _s0)
"""


def integrate(integrand: Integrand, domain: GeometryDomain | None = None, quadrature: Quadrature | None = None,
              fields: dict | None = None, values: dict | None = None, accumulate_dtype=T.float64,
              output_dtype=None, output=None, device=None, temporary_store=None, kernel_options=None,
              assembly: str | None = None, add: bool = False, bsr_options: dict | None = None):
    """Integrate `integrand` over `domain` with `quadrature`: a number (or vector, matrix) without
    test field, a vector over the test space's dofs with one, a `warp.sparse` matrix over test x
    trial dofs with both."""
    if quadrature is not None and domain is None:
        domain = quadrature.domain
    if domain is None:
        domain = _domain_of_fields(fields)
    if domain is None:
        raise ValueError("fem.integrate needs a domain, a quadrature, or a test or trial field (whose domain is used)")
    if not isinstance(domain, GeometryDomain):
        raise TypeError(f"fem.integrate: `domain` must be a fem domain (fem.Cells(geo), ...), got "
                        f"{type(domain).__name__}")
    if assembly not in (None, "generic", "nodal", "dispatch"):
        raise ValueError(f"fem.integrate: assembly must be None, 'generic', 'dispatch' or 'nodal', got {assembly!r}")
    device = wp.get_device(device)
    setup = _Setup(integrand, domain, fields, values, device, "integrate")
    quadrature = _quadrature_for(domain, quadrature, (f for f in (fields or {}).values()))
    if quadrature.domain != domain:
        raise ValueError("fem.integrate: the quadrature is defined on another domain than `domain`")
    namespace = {"_fem_qp": quadrature, "_fem_domain_index": domain.element_index,
                 "_fem_measure": domain.element_measure, "_fem_t_domain_arg": domain.DomainArg,
                 "_fem_t_qp_arg": quadrature.Arg}
    params = ["_fem_domain_arg: _fem_t_domain_arg", "_fem_qp_arg: _fem_t_qp_arg"] + setup.params_text(namespace)
    inputs = [domain.domain_arg_value(device), quadrature.arg_value(device)] + setup.inputs()
    with wp.ScopedDevice(device):
        if assembly == "nodal" and setup.test is not None:
            return _integrate_nodal(setup, namespace, params, inputs, domain, accumulate_dtype, output_dtype, output,
                                    add, bsr_options)
        if setup.test is None:
            return _integrate_value(setup, namespace, params, inputs, domain, accumulate_dtype, output_dtype, output,
                                    add)
        if setup.trial is None:
            return _integrate_linear(setup, namespace, params, inputs, domain, accumulate_dtype, output_dtype, output,
                                     add)
        return _integrate_bilinear(setup, namespace, params, inputs, domain, accumulate_dtype, output_dtype, output,
                                   add, bsr_options)


def _node_accumulator(dtype, out_t, dofs: int, accumulate_dtype):
    """(accumulator type, kernel text indexing its dof `_c`) of a node's values of `dtype` written as
    `out_t`: a flat vector of the node's dofs when the output is a vector of that length (Warp's
    output for tensor-valued spaces), else the value type itself (a matrix indexed by row and column)."""
    if dofs == 1:
        return accumulate_dtype, ""
    if T.type_is_vector(out_t) and T.type_length(out_t) == dofs:
        return T.vector(length=dofs, dtype=accumulate_dtype), "_c"
    if T.type_is_matrix(dtype):
        cols = dtype._shape_[1]
        return _with_scalar(dtype, accumulate_dtype), f"_c // {cols}, _c % {cols}"
    return _with_scalar(dtype, accumulate_dtype), "_c"


def _launch(kernel, dim, inputs):
    wp.launch(kernel, dim=dim, inputs=inputs)


def _integrate_value(setup, namespace, params, inputs, domain, accumulate_dtype, output_dtype, output, add):
    """The integral as a number (vector, matrix). Into `output[0]` (atomically, in its dtype, so that a
    Tape differentiates through it) when given; else accumulated in `accumulate_dtype` and returned."""
    value_type = setup.return_type()
    if value_type is None:
        raise TypeError(f"fem.integrate: the integrand {setup.integrand.name} returns nothing; an integrand "
                        "integrated to a value must return a scalar, vector or matrix")
    if output is not None:
        if not isinstance(output, wp.array) or output.size < 1:
            raise TypeError(f"fem.integrate: `output` of an integral to a value must be a warp array with at least "
                            f"one entry, got {output!r}")
        acc_t = output.dtype
    else:
        acc_t = _with_scalar(value_type, accumulate_dtype)
    namespace["_fem_t_acc"], namespace["_fem_t_out"] = acc_t, wp.array(dtype=acc_t)
    body = "    _domain_element = wp.tid()\n" + _QP_LOOP + (
        "        _s = _s0\n"
        f"        wp.atomic_add(_fem_out, 0, _fem_t_acc({setup.call_text()} * _dw))\n")
    kernel = _make_kernel(setup, "integrate_value", body, params + ["_fem_out: _fem_t_out"], namespace)
    if output is not None:
        if not add:
            output.zero_()
        _launch(kernel, domain.element_count(), inputs + [output.flatten() if output.ndim > 1 else output])
        return output
    acc = wp.zeros(1, dtype=acc_t)
    _launch(kernel, domain.element_count(), inputs + [acc])
    result = acc.numpy()[0]
    out_t = output_dtype or _with_scalar(value_type, _scalar_of(value_type))
    if T.type_is_vector(out_t) or T.type_is_matrix(out_t):
        return out_t(*np.asarray(result, dtype=np.float64).flatten().tolist())
    return float(result) if T.type_is_float(out_t) else int(result)


def _integrate_linear(setup, namespace, params, inputs, domain, accumulate_dtype, output_dtype, output, add):
    test_name, test = setup.test
    space = test.space
    dofs = space.NODE_DOF_COUNT
    out_t = output_dtype or space.dtype
    if output is not None:
        out_t = output.dtype
    vector_out = dofs > 1
    acc_t, component = _node_accumulator(space.dtype, out_t, dofs, accumulate_dtype)
    namespace.update({"_fem_t_acc": acc_t, "_fem_t_accs": accumulate_dtype, "_fem_t_outv": out_t,
                      "_fem_t_out": wp.array(dtype=out_t),
                      "_fem_node_index": setup.fields_on_nodes[test_name].element_node_index})
    add_line = (f"                _acc[{component}] += _fem_t_accs({{call}} * _dw)\n" if vector_out else
                "                _acc += _fem_t_acc({call} * _dw)\n").format(call=setup.call_text())
    body = ("    _domain_element, _node = wp.tid()\n    _acc = _fem_t_acc()\n" + _QP_LOOP +
            f"        for _c in range({dofs}):\n"
            "            if True:\n"
            "                _s = Sample(_element_index, _coords, _qp_index, _w, wp.vec2i(_node, _c), "
            "wp.vec2i(-1, -1))\n" + add_line +
            f"    _n = _fem_node_index(_fem_domain_arg.geo, {test_name}.eval.space_arg, _element_index, _node)\n"
            "    wp.atomic_add(_fem_out, _n, _fem_t_outv(_acc))\n")
    kernel = _make_kernel(setup, "integrate_linear", body, params + ["_fem_out: _fem_t_out"], namespace)
    if output is None:
        output = wp.zeros(space.node_count(), dtype=out_t)
    elif output.shape != (space.node_count(),):
        raise ValueError(f"fem.integrate: `output` must have shape ({space.node_count()},), got {output.shape}")
    elif not add:
        output.zero_()
    _launch(kernel, (domain.element_count(), setup.fields_on_nodes[test_name].nodes_per_element), inputs + [output])
    return output


def _integrate_bilinear(setup, namespace, params, inputs, domain, accumulate_dtype, output_dtype, output, add,
                        bsr_options):
    (test_name, test), (trial_name, trial) = setup.test, setup.trial
    tdofs, rdofs = test.space.NODE_DOF_COUNT, trial.space.NODE_DOF_COUNT
    scalar_out = output_dtype or (output.scalar_type if output is not None else T.float32)
    scalar_out = _scalar_of(scalar_out)
    blocked = tdofs > 1 or rdofs > 1
    block_t = T.matrix(shape=(tdofs, rdofs), dtype=scalar_out) if blocked else scalar_out
    acc_t = T.matrix(shape=(tdofs, rdofs), dtype=accumulate_dtype) if blocked else accumulate_dtype
    npt = setup.fields_on_nodes[test_name].nodes_per_element
    npr = setup.fields_on_nodes[trial_name].nodes_per_element
    namespace.update({"_fem_t_acc": acc_t, "_fem_t_accs": accumulate_dtype, "_fem_t_block": block_t,
                      "_fem_t_vals": wp.array(dtype=block_t), "_fem_t_idx": wp.array(dtype=wp.int32),
                      "_fem_test_index": setup.fields_on_nodes[test_name].element_node_index,
                      "_fem_trial_index": setup.fields_on_nodes[trial_name].element_node_index})
    add_line = ("                    _acc[_c, _d] += _fem_t_accs({call} * _dw)\n" if blocked else
                "                    _acc += _fem_t_acc({call} * _dw)\n").format(call=setup.call_text())
    body = ("    _domain_element, _i, _j = wp.tid()\n    _acc = _fem_t_acc()\n" + _QP_LOOP +
            f"        for _c in range({tdofs}):\n"
            f"            for _d in range({rdofs}):\n"
            "                if True:\n"
            "                    _s = Sample(_element_index, _coords, _qp_index, _w, wp.vec2i(_i, _c), "
            "wp.vec2i(_j, _d))\n" + add_line +
            f"    _t = (_domain_element * {npt} + _i) * {npr} + _j\n"
            f"    _fem_rows[_t] = _fem_test_index(_fem_domain_arg.geo, {test_name}.eval.space_arg, _element_index, _i)\n"
            f"    _fem_cols[_t] = _fem_trial_index(_fem_domain_arg.geo, {trial_name}.eval.space_arg, _element_index, "
            "_j)\n"
            "    _fem_vals[_t] = _fem_t_block(_acc)\n")
    kernel = _make_kernel(setup, "integrate_bilinear", body, params + [
        "_fem_rows: _fem_t_idx", "_fem_cols: _fem_t_idx", "_fem_vals: _fem_t_vals"], namespace)
    count = domain.element_count() * npt * npr
    rows, cols = wp.empty(count, dtype=wp.int32), wp.empty(count, dtype=wp.int32)
    vals = wp.empty(count, dtype=block_t)
    _launch(kernel, (domain.element_count(), npt, npr), inputs + [rows, cols, vals])
    return _assemble(rows, cols, vals, (test.space.node_count(), trial.space.node_count()), block_t, output, add,
                     bsr_options)


def _assemble(rows, cols, vals, shape, block_t, output, add, bsr_options):
    """The matrix of the triplets (duplicates summed), new, or into `output` (added with `add`)."""
    from ..sparse import bsr_axpy, bsr_set_from_triplets, bsr_zeros
    prune = bool((bsr_options or {}).get("prune_numerical_zeros", False))
    if output is None or add:
        result = bsr_zeros(*shape, block_type=block_t)
        bsr_set_from_triplets(result, rows, cols, vals, prune_numerical_zeros=prune)
        if output is None:
            return result
        bsr_axpy(result, output)
        return output
    if (output.nrow, output.ncol) != shape:
        raise ValueError(f"fem.integrate: `output` must have {shape[0]} x {shape[1]} blocks, got "
                         f"{output.nrow} x {output.ncol}")
    bsr_set_from_triplets(output, rows, cols, vals, prune_numerical_zeros=prune)
    return output


def _node_location(domain, namespace) -> str:
    """Kernel text giving `_coords`, the element coordinates of node `_node` of element
    `_element_index` of `domain`: the node's own on cells; on sides, the side coordinates of the
    inner cell's node, the thread returning when that node is not on the side."""
    from .types import ElementKind
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


def _integrate_nodal(setup, namespace, params, inputs, domain, accumulate_dtype, output_dtype, output, add,
                     bsr_options):
    """assembly="nodal": the integrand at the nodes only, each weighted by its nodal quadrature weight
    (on sides: its trace weight, for the nodes of the inner cell that lie on the side), test and trial
    at the same node: a vector, or a block-diagonal matrix. This is what Dirichlet projectors use."""
    from .types import ElementKind
    test_name, test = setup.test
    space = test.space
    if setup.trial is not None and setup.trial[1].space is not space:
        raise ValueError("fem.integrate: assembly='nodal' needs the test and trial fields of one space")
    tdofs = space.NODE_DOF_COUNT
    rdofs = space.NODE_DOF_COUNT if setup.trial is not None else 1
    npe = space.NODES_PER_ELEMENT
    on_sides = domain.element_kind == ElementKind.SIDE
    shape = space.shape
    namespace.update({"_fem_node_coords": space.node_coords_in_element, "_fem_t_accs": accumulate_dtype,
                      "_fem_node_weight": shape.make_trace_node_quadrature_weight() if on_sides
                      else shape.make_node_quadrature_weight(),
                      "_fem_node_index": setup.fields_on_nodes[test_name].element_node_index,
                      "_fem_t_idx": wp.array(dtype=wp.int32)})
    where = _node_location(domain, namespace)
    trial = "wp.vec2i(_node, _d)" if setup.trial is not None else "wp.vec2i(-1, -1)"
    matrix = setup.trial is not None
    if matrix:
        scalar_out = _scalar_of(output_dtype or (output.scalar_type if output is not None else T.float32))
        blocked = tdofs > 1
        out_t = T.matrix(shape=(tdofs, rdofs), dtype=scalar_out) if blocked else scalar_out
        acc_t = T.matrix(shape=(tdofs, rdofs), dtype=accumulate_dtype) if blocked else accumulate_dtype
        add_line = "_acc[_c, _d] += " if blocked else "_acc += "
    else:
        out_t = output_dtype or (output.dtype if output is not None else space.dtype)
        blocked = tdofs > 1
        acc_t, component = _node_accumulator(space.dtype, out_t, tdofs, accumulate_dtype)
        add_line = f"_acc[{component}] += " if blocked else "_acc += "
    namespace.update({"_fem_t_acc": acc_t, "_fem_t_outv": out_t, "_fem_t_out": wp.array(dtype=out_t)})
    body = ("    _domain_element, _node = wp.tid()\n"
            f"    _t = _domain_element * {npe} + _node\n"
            "    _element_index = _fem_domain_index(_fem_domain_arg.index, _domain_element)\n" + where +
            "    _w = _fem_node_weight(_node)\n"
            # as in Warp, a nodal sample's quadrature point index is its node's index
            f"    _n = _fem_node_index(_fem_domain_arg.geo, {test_name}.eval.space_arg, _element_index, _node)\n"
            "    _s0 = Sample(_element_index, _coords, _n, _w, wp.vec2i(-1, -1), wp.vec2i(-1, -1))\n"
            "    _dw = _w * _fem_measure(_fem_domain_arg.geo, _s0)\n"
            "    _acc = _fem_t_acc()\n"
            f"    for _c in range({tdofs}):\n"
            f"        for _d in range({rdofs}):\n"
            f"            _s = Sample(_element_index, _coords, _n, _w, wp.vec2i(_node, _c), {trial})\n"
            f"            {add_line}_fem_t_accs({setup.call_text()} * _dw)\n")
    count = domain.element_count() * npe
    if matrix:
        body += ("    _fem_rows[_t] = _n\n    _fem_cols[_t] = _n\n    _fem_vals[_t] = _fem_t_outv(_acc)\n")
        kernel = _make_kernel(setup, "integrate_nodal_matrix", body, params + [
            "_fem_rows: _fem_t_idx", "_fem_cols: _fem_t_idx", "_fem_vals: _fem_t_out"], namespace)
        # a node off the side leaves its slot: -1 rows are outside the shape, dropped by the assembly
        rows, cols = wp.full(count, -1, dtype=wp.int32), wp.full(count, -1, dtype=wp.int32)
        vals = wp.zeros(count, dtype=out_t)
        _launch(kernel, (domain.element_count(), npe), inputs + [rows, cols, vals])
        # zero blocks (nodes where the integrand vanishes) are left out, as Warp's nodal assembly does
        options = {"prune_numerical_zeros": True, **(bsr_options or {})}
        return _assemble(rows, cols, vals, (space.node_count(), space.node_count()), out_t, output, add, options)
    body += "    wp.atomic_add(_fem_out, _n, _fem_t_outv(_acc))\n"
    kernel = _make_kernel(setup, "integrate_nodal_vector", body, params + ["_fem_out: _fem_t_out"], namespace)
    if output is None:
        output = wp.zeros(space.node_count(), dtype=out_t)
    elif not add:
        output.zero_()
    _launch(kernel, (domain.element_count(), npe), inputs + [output])
    return output


def interpolate(integrand, dest=None, at=None, dest_space=None, dim: int | None = None, fields: dict | None = None,
                values: dict | None = None, reduction: str = "weighted_average", device=None, kernel_options=None,
                temporary_store=None, bsr_options=None):
    """Evaluate `integrand` at the points of a quadrature (`at`), writing each value to `dest[qp index]`
    or, without `dest`, only running it (for its side effects); or at the nodes of a discrete field
    `dest`, setting its node values."""
    if dest_space is not None or dim is not None:
        raise NotImplementedError("fem.interpolate: `dest_space` and `dim` are not supported by warp_nb.fem yet")
    device = wp.get_device(device)
    if isinstance(dest, FieldRestriction):  # the nodes of its domain only
        if at is not None:
            raise ValueError("fem.interpolate: `at` cannot be given with a field restriction (it has its domain)")
        dest, at = dest.field, dest.domain
    if isinstance(dest, DiscreteField):
        if hasattr(at, "space_partition") and hasattr(at, "domain"):  # a space restriction: its domain's nodes
            at = at.domain
        if at is not None and not isinstance(at, GeometryDomain):
            raise NotImplementedError("fem.interpolate to a field at a quadrature is not supported by warp_nb.fem yet")
        if at is not None and at.geometry is not dest.space.geometry:
            raise ValueError(f"fem.interpolate: `at` ({at.name}) is not a domain of the destination field's geometry")
        if isinstance(integrand, FieldLike):  # a field itself, evaluated at dest's nodes
            fields, integrand = {"u": integrand}, _field_value
        return _interpolate_nodes(integrand, dest, fields, values, device, reduction, at)
    if isinstance(at, GeometryDomain):  # as Warp: a domain's elements at their centres (the order-0 rule)
        at = RegularQuadrature(at, order=0)
    if not isinstance(at, Quadrature):
        raise TypeError(f"fem.interpolate: `at` must be a fem quadrature when `dest` is "
                        f"{'an array' if dest is not None else 'not given'}, got {type(at).__name__}")
    domain = at.domain
    setup = _Setup(integrand, domain, fields, values, device, "interpolate")
    namespace = {"_fem_qp": at, "_fem_domain_index": domain.element_index, "_fem_measure": domain.element_measure,
                 "_fem_t_domain_arg": domain.DomainArg, "_fem_t_qp_arg": at.Arg}
    params = ["_fem_domain_arg: _fem_t_domain_arg", "_fem_qp_arg: _fem_t_qp_arg"] + setup.params_text(namespace)
    inputs = [domain.domain_arg_value(device), at.arg_value(device)] + setup.inputs()
    if dest is None:
        tail, kind = f"        _s = _s0\n        {setup.call_text()}\n", "interpolate_effects"
    else:
        if not isinstance(dest, wp.array):
            raise TypeError(f"fem.interpolate: `dest` must be a warp array or a discrete field, got {type(dest).__name__}")
        if dest.shape[0] < at.total_point_count():
            raise ValueError(f"fem.interpolate: `dest` needs one entry per quadrature point ({at.total_point_count()}), "
                             f"has {dest.shape[0]}")
        namespace["_fem_t_dest"], namespace["_fem_t_destv"] = wp.array(dtype=dest.dtype), dest.dtype
        params = params + ["_fem_dest: _fem_t_dest"]
        inputs = inputs + [dest]
        tail, kind = f"        _s = _s0\n        _fem_dest[_qp_index] = _fem_t_destv({setup.call_text()})\n", \
            "interpolate_qp"
    with wp.ScopedDevice(device):
        kernel = _make_kernel(setup, kind, "    _domain_element = wp.tid()\n" + _QP_LOOP + tail, params, namespace)
        _launch(kernel, domain.element_count(), inputs)
    return dest


_REDUCTIONS = ("weighted_average", "mean", "sum", "max", "min", "first")


def _interpolate_nodes(integrand, dest: DiscreteField, fields, values, device, reduction: str, at=None):
    """The integrand at every node of every cell of dest's space, combined per node by `reduction`:
    "sum", "mean" / "weighted_average" (unit weights: each cell holding the node counts once), "max",
    "min", or "first" (the value from the cell of smallest index)."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"fem.interpolate: reduction must be one of {', '.join(_REDUCTIONS)}, got {reduction!r}")
    space = dest.space
    domain = at if at is not None else Cells(space.geometry)
    setup = _Setup(integrand, domain, fields, values, device, "interpolate")
    node_index = space.element_node_index
    if domain.element_kind != ElementKind.CELL:
        from .field.evaluation import side_node_index
        node_index = side_node_index(node_index, domain.geometry, space.NODES_PER_ELEMENT, False)
    namespace = {"_fem_t_domain_arg": domain.DomainArg, "_fem_node_index": node_index,
                 "_fem_domain_index": domain.element_index,
                 "_fem_node_coords": space.node_coords_in_element,
                 "_fem_t_dest": wp.array(dtype=space.dtype), "_fem_t_destv": space.dtype,
                 "_fem_t_space_arg": space.SpaceArg, "_fem_t_count": wp.array(dtype=wp.int32)}
    params = ["_fem_domain_arg: _fem_t_domain_arg", "_fem_space_arg: _fem_t_space_arg"] + \
        setup.params_text(namespace) + ["_fem_dest: _fem_t_dest", "_fem_count: _fem_t_count"]
    head = ("    _domain_element, _node = wp.tid()\n"
            "    _cell = _fem_domain_index(_fem_domain_arg.index, _domain_element)\n"
            "    _element_index = _cell\n" + _node_location(domain, namespace) +
            "    _s = make_free_sample(_cell, _coords)\n"
            "    _n = _fem_node_index(_fem_domain_arg.geo, _fem_space_arg, _cell, _node)\n")
    value = f"_fem_t_destv({setup.call_text()})"
    nodes = dest.dof_values.shape[0]
    count = wp.zeros(nodes, dtype=wp.int32, device=device)
    dim = (domain.element_count(), space.NODES_PER_ELEMENT)
    inputs = [domain.domain_arg_value(device), space.space_arg_value(device)] + setup.inputs()
    # combined into a temporary, then written to the nodes the domain reached (the others keep their values)
    combined = wp.zeros_like(dest.dof_values)
    with wp.ScopedDevice(device):
        if reduction in ("weighted_average", "mean", "sum"):
            body = head + f"    wp.atomic_add(_fem_dest, _n, {value})\n    wp.atomic_add(_fem_count, _n, 1)\n"
        elif reduction in ("max", "min"):
            combined.fill_(-3.0e38 if reduction == "max" else 3.0e38)
            body = head + f"    wp.atomic_{reduction}(_fem_dest, _n, {value})\n    wp.atomic_add(_fem_count, _n, 1)\n"
        else:  # first: the smallest element index holding each node, then that element's value
            count.fill_(2 ** 31 - 1)
            first = _make_kernel(setup, "interpolate_nodes_first_cell", head + "    wp.atomic_min(_fem_count, _n, _cell)\n",
                                 params, namespace)
            _launch(first, dim, inputs + [combined, count])
            body = head + f"    if _fem_count[_n] == _cell:\n        _fem_dest[_n] = {value}\n"
        kernel = _make_kernel(setup, f"interpolate_nodes_{reduction}", body, params, namespace)
        _launch(kernel, dim, inputs + [combined, count])
    counts = count.numpy()
    reached = counts < 2 ** 31 - 1 if reduction == "first" else counts > 0
    result, values_ = combined.numpy(), dest.dof_values.numpy()
    if reduction in ("weighted_average", "mean"):
        result = result / np.maximum(counts, 1).reshape((-1,) + (1,) * (result.ndim - 1))
    values_[reached] = result[reached]
    dest.dof_values.assign(values_)
    return dest


@Integrand
def _field_value(s: Sample, u: Field):
    return u(s)
