"""`fem.interpolate`: an integrand (or a field) evaluated at the points of a quadrature (into an
array, or only for its side effects) or at the nodes of a discrete field (those a domain, a space
restriction or a field restriction reaches), combined per node by Warp's reductions."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from .domain import Cells, GeometryDomain
from .field.fields import DiscreteField, FieldLike, FieldRestriction
from .integrand import Integrand
from .kernel_builder import QP_LOOP, Setup, launch, make_kernel, node_location
from .quadrature import Quadrature, RegularQuadrature
from .types import OUTSIDE, ElementKind, Field, Sample


def interpolate(integrand, dest=None, at=None, dest_space=None, dim: int | None = None, fields: dict | None = None,
                values: dict | None = None, reduction: str = "weighted_average", device=None, kernel_options=None,
                temporary_store=None, bsr_options=None):
    """Evaluate `integrand` at the points of a quadrature (`at`), writing each value to `dest[qp index]`
    or, without `dest`, only running it (for its side effects); or at the nodes of a discrete field
    `dest`, setting its node values."""
    device = wp.get_device(device)
    if dim is not None:
        return _interpolate_free(integrand, dest, at, int(dim), fields, values, device)
    if dest_space is not None or not (dest is None or isinstance(dest, (wp.array, DiscreteField, FieldRestriction))):
        from .interpolate_jacobian import interpolate_jacobian
        return interpolate_jacobian(integrand, dest, at, dest_space, fields, values, device, reduction, bsr_options)
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
    setup = Setup(integrand, domain, fields, values, device, "interpolate")
    namespace = {"_fem_qp": at, "_fem_domain_index": domain.element_index, "_fem_measure": domain.element_measure,
                 "_fem_t_domain_arg": domain.DomainArg, "_fem_t_qp_arg": at.Arg}
    params = ["_fem_domain_arg: _fem_t_domain_arg", "_fem_qp_arg: _fem_t_qp_arg"] + setup.params_text(namespace)
    inputs = [domain.domain_arg_value(device), at.arg_value(device)] + setup.inputs()
    if dest is None:
        tail, kind = f"        _s = _s0\n        {setup.call_text()}\n", "interpolate_effects"
    else:
        if not isinstance(dest, wp.array):
            raise TypeError(f"fem.interpolate: `dest` must be a warp array or a discrete field, got "
                            f"{type(dest).__name__}")
        if dest.shape[0] < at.total_point_count():
            raise ValueError(f"fem.interpolate: `dest` needs one entry per quadrature point "
                             f"({at.total_point_count()}), "
                             f"has {dest.shape[0]}")
        namespace["_fem_t_dest"], namespace["_fem_t_destv"] = wp.array(dtype=dest.dtype), dest.dtype
        params = params + ["_fem_dest: _fem_t_dest"]
        inputs = inputs + [dest]
        tail, kind = f"        _s = _s0\n        _fem_dest[_qp_index] = _fem_t_destv({setup.call_text()})\n", \
            "interpolate_qp"
    with wp.ScopedDevice(device):
        kernel = make_kernel(setup, kind, "    _domain_element = wp.tid()\n" + QP_LOOP + tail, params, namespace)
        launch(kernel, domain.element_count(), inputs)
    return dest


def _interpolate_free(integrand, dest, at, dim: int, fields, values, device):
    """`dim` evaluations of the integrand at no point of the domain (as Warp: element NULL, coordinates
    OUTSIDE, qp_index the thread, weight 1/dim), for integrands that find their own points (lookups)."""
    domain = at.domain if isinstance(at, Quadrature) else at
    if not isinstance(domain, GeometryDomain):
        raise TypeError(f"fem.interpolate: with `dim`, `at` must be a domain, got {type(at).__name__}")
    setup = Setup(integrand, domain, fields, values, device, "interpolate")
    namespace = {"_fem_t_domain_arg": domain.DomainArg, "_fem_coords_t": type(Sample().element_coords)}
    params = ["_fem_domain_arg: _fem_t_domain_arg"] + setup.params_text(namespace)
    inputs = [domain.domain_arg_value(device)] + setup.inputs()
    body = (f"    _qp = wp.tid()\n"
            f"    _s = Sample(-1, _fem_coords_t({OUTSIDE}, {OUTSIDE}, {OUTSIDE}), _qp, {1.0 / max(dim, 1)!r}, "
            "wp.vec2i(-1, -1), wp.vec2i(-1, -1))\n")
    if dest is None:
        body += f"    {setup.call_text()}\n"
    else:
        if not isinstance(dest, wp.array):
            raise TypeError(f"fem.interpolate: with `dim`, `dest` must be a warp array or None, got {type(dest).__name__}")
        namespace["_fem_t_dest"], namespace["_fem_t_destv"] = wp.array(dtype=dest.dtype), dest.dtype
        params, inputs = params + ["_fem_dest: _fem_t_dest"], inputs + [dest]
        body += f"    _fem_dest[_qp] = _fem_t_destv({setup.call_text()})\n"
    with wp.ScopedDevice(device):
        launch(make_kernel(setup, "interpolate_free", body, params, namespace), dim, inputs)
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
    setup = Setup(integrand, domain, fields, values, device, "interpolate")
    node_index = space.element_node_index
    if domain.element_kind != ElementKind.CELL:
        from .field.evaluation import side_node_index
        node_index = side_node_index(node_index, domain.geometry, space.NODES_PER_ELEMENT, False)
    namespace = {"_fem_t_domain_arg": domain.DomainArg, "_fem_node_index": node_index,
                 "_fem_domain_index": domain.element_index,
                 "_fem_node_coords": space.node_coords_in_element,
                 "_fem_t_dest": wp.array(dtype=space.dof_dtype), "_fem_t_destv": space.dtype,
                 "_fem_t_space_arg": space.SpaceArg, "_fem_t_count": wp.array(dtype=wp.int32)}
    params = ["_fem_domain_arg: _fem_t_domain_arg", "_fem_space_arg: _fem_t_space_arg"] + \
        setup.params_text(namespace) + ["_fem_dest: _fem_t_dest", "_fem_count: _fem_t_count"]
    head = ("    _domain_element, _node = wp.tid()\n"
            "    _cell = _fem_domain_index(_fem_domain_arg.index, _domain_element)\n"
            "    _element_index = _cell\n" + node_location(domain, namespace) +
            "    _s = make_free_sample(_cell, _coords)\n"
            "    _n = _fem_node_index(_fem_domain_arg.geo, _fem_space_arg, _cell, _node)\n")
    value = _node_dof_text(space, domain, namespace, f"_fem_t_destv({setup.call_text()})")
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
            first = make_kernel(setup, "interpolate_nodes_first_cell",
                                head + "    wp.atomic_min(_fem_count, _n, _cell)\n",
                                 params, namespace)
            launch(first, dim, inputs + [combined, count])
            body = head + f"    if _fem_count[_n] == _cell:\n        _fem_dest[_n] = {value}\n"
        kernel = make_kernel(setup, f"interpolate_nodes_{reduction}", body, params, namespace)
        launch(kernel, dim, inputs + [combined, count])
    counts = count.numpy()
    reached = counts < 2 ** 31 - 1 if reduction == "first" else counts > 0
    result, values_ = combined.numpy(), dest.dof_values.numpy()
    if reduction in ("weighted_average", "mean"):
        result = result / np.maximum(counts, 1).reshape((-1,) + (1,) * (result.ndim - 1))
    values_[reached] = result[reached]
    dest.dof_values.assign(values_)
    return dest


def _node_dof_text(space, domain, namespace: dict, value: str) -> str:
    """Kernel text turning `value` (of the space's dtype) at node `_node` into the node's dofs: the
    value itself, its dof mapper's dofs, or a vector space's dof (its dual functional, which needs the
    node's cell: on sides, the inner cell the node was found in)."""
    if space.dof_mapper is not None:
        namespace["_fem_to_dof"] = space.dof_mapper.value_to_dof
        return f"_fem_to_dof({value})"
    to_dof = getattr(space, "node_dof_from_value", None)
    if to_dof is None:
        return value
    namespace["_fem_to_dof"] = to_dof
    if domain.element_kind == ElementKind.CELL:
        return f"_fem_to_dof(_fem_domain_arg.geo, _fem_space_arg, _s, _node, {value})"
    namespace["_fem_to_cell_arg"] = domain.geometry.side_to_cell_arg
    return ("_fem_to_dof(_fem_to_cell_arg(_fem_domain_arg.geo), _fem_space_arg, make_free_sample("
            f"_fem_inner_cell(_fem_domain_arg.geo, _element_index), _cc), _node, {value})")


@Integrand
def _field_value(s: Sample, u: Field):
    return u(s)
