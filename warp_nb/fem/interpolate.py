"""`fem.interpolate`: an integrand (or a field) evaluated at the points of a quadrature (into an
array, or only for its side effects) or at the nodes of a discrete field (those a domain, a space
restriction or a field restriction reaches), combined per node by Warp's reductions."""

from __future__ import annotations

import warp_nb as wp
import warp_nb.types as T

from .cache import dynamic_kernel
from .domain import Cells, GeometryDomain
from .field.fields import DiscreteField, FieldLike, FieldRestriction
from .integrand import Integrand
from .kernel_builder import QP_LOOP, Setup, launch, make_kernel, node_location
from .quadrature import Quadrature
from .quadrature.quadrature import default_quadrature
from .types import NULL_NODE_INDEX, OUTSIDE, ElementKind, Field, Sample, warp_type


def interpolate(integrand, dest=None, at=None, dest_space=None, dim: int | None = None, fields: dict | None = None,
                values: dict | None = None, reduction: str = "weighted_average", device=None, kernel_options=None,
                temporary_store=None, bsr_options=None):
    """Evaluate `integrand` at the points of a quadrature (`at`), writing each value to `dest[qp index]`
    or, without `dest`, only running it (for its side effects); or at the nodes of a discrete field
    `dest`, setting its node values."""
    device = wp.get_device(device)
    if dim is not None:
        return _interpolate_free(integrand, dest, at, int(dim), fields, values, device, kernel_options)
    from ..sparse import BsrMatrix
    if isinstance(dest, BsrMatrix):  # the Jacobian with respect to the trial field
        from .interpolate_matrix import interpolate_to_matrix
        return interpolate_to_matrix(integrand, dest, at, dest_space, fields, values, device, reduction, bsr_options,
                                     kernel_options)
    if dest_space is not None:
        raise ValueError("fem.interpolate: `dest_space` is for a matrix `dest` (its rows are dest_space's nodes)")
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
        if dest.space_partition is not None and not dest.space_partition.is_identity():
            return _interpolate_partition_nodes(integrand, dest, fields, values, device, reduction, at, kernel_options)
        return _interpolate_nodes(integrand, dest, fields, values, device, reduction, at, kernel_options)
    if isinstance(at, GeometryDomain):  # as Warp: a domain's elements at their centres (the order-0 rule)
        at = default_quadrature(at, 0)
    if not isinstance(at, Quadrature):
        raise TypeError(f"fem.interpolate: `at` must be a fem quadrature when `dest` is "
                        f"{'an array' if dest is not None else 'not given'}, got {type(at).__name__}")
    domain = at.domain
    setup = Setup(integrand, domain, fields, values, device, "interpolate", kernel_options)
    namespace = {"_fem_qp": at, "_fem_domain_index": domain.element_index, "_fem_measure": domain.element_measure,
                 "_fem_t_domain_arg": domain.DomainArg, "_fem_t_qp_arg": at.Arg}
    params = ["_fem_domain_arg: _fem_t_domain_arg", "_fem_qp_arg: _fem_t_qp_arg"] + setup.params_text(namespace)
    inputs = [setup.domain_arg, at.arg_value(device)] + setup.inputs()
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


def _interpolate_free(integrand, dest, at, dim: int, fields, values, device, kernel_options=None):
    """`dim` evaluations of the integrand at no point of the domain (as Warp: element NULL, coordinates
    OUTSIDE, qp_index the thread, weight 1/dim), for integrands that find their own points (lookups)."""
    domain = at.domain if isinstance(at, Quadrature) else at
    if not isinstance(domain, GeometryDomain):
        raise TypeError(f"fem.interpolate: with `dim`, `at` must be a domain, got {type(at).__name__}")
    setup = Setup(integrand, domain, fields, values, device, "interpolate", kernel_options)
    namespace = {"_fem_t_domain_arg": domain.DomainArg, "_fem_coords_t": type(Sample().element_coords)}
    params = ["_fem_domain_arg: _fem_t_domain_arg"] + setup.params_text(namespace)
    inputs = [setup.domain_arg] + setup.inputs()
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


def _interpolate_partition_nodes(integrand, dest: DiscreteField, fields, values, device, reduction, at,
                                 kernel_options=None):
    """A field over a space partition: interpolated at the nodes of the partition's cells (or of
    `at`) in a whole-space field holding its values, whose partition nodes are then copied back."""
    part = dest.space_partition
    nodes = part.space_node_indices().numpy()
    valid = nodes != NULL_NODE_INDEX
    whole = DiscreteField(dest.space)
    full = whole.dof_values.numpy()
    full[nodes[valid]] = dest.dof_values.numpy()[valid]
    whole.dof_values.assign(full)
    if at is None and part.geometry_partition is not None:
        at = Cells(part.geometry_partition)
    _interpolate_nodes(integrand, whole, fields, values, device, reduction, at, kernel_options)
    out = dest.dof_values.numpy()
    out[valid] = whole.dof_values.numpy()[nodes[valid]]
    dest.dof_values.assign(out)
    return dest


def _interpolate_nodes(integrand, dest: DiscreteField, fields, values, device, reduction: str, at=None,
                       kernel_options=None):
    """The integrand at every node of every cell of dest's space, combined per node by `reduction`:
    "sum", "mean" (each cell holding the node counts once), "weighted_average" (each cell weighs its
    measure at the node), "max", "min", or "first" (the value from the cell of smallest index)."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"fem.interpolate: reduction must be one of {', '.join(_REDUCTIONS)}, got {reduction!r}")
    space = dest.space
    scalar = T.type_scalar_type(space.dtype)
    domain = at if at is not None else Cells(space.geometry)
    setup = Setup(integrand, domain, fields, values, device, "interpolate", kernel_options)
    node_index = space.element_node_index
    if domain.element_kind != ElementKind.CELL:
        from .field.evaluation import side_node_index
        node_index = side_node_index(node_index, domain.geometry, space.NODES_PER_ELEMENT, False)
    namespace = {"_fem_t_domain_arg": domain.DomainArg, "_fem_node_index": node_index,
                 "_fem_domain_index": domain.element_index,
                 "_fem_node_coords": space.node_coords_in_element,
                 "_fem_t_dest": wp.array(dtype=space.dof_dtype), "_fem_t_destv": space.dtype,
                 "_fem_t_space_arg": space.SpaceArg, "_fem_t_count": wp.array(dtype=wp.int32),
                 "_fem_t_scalar": scalar, "_fem_t_weight": wp.array(dtype=scalar),
                 "_fem_measure": domain.element_measure}
    params = ["_fem_domain_arg: _fem_t_domain_arg", "_fem_space_arg: _fem_t_space_arg"] + \
        setup.params_text(namespace) + ["_fem_dest: _fem_t_dest", "_fem_count: _fem_t_count",
                                        "_fem_weight: _fem_t_weight"]
    head = ("    _domain_element, _node = wp.tid()\n"
            "    _cell = _fem_domain_index(_fem_domain_arg.index, _domain_element)\n"
            "    _element_index = _cell\n"
            "    _n = _fem_node_index(_fem_domain_arg.geo, _fem_space_arg, _cell, _node)\n"
            "    if _n == NULL_NODE_INDEX:\n        return\n" +  # a point basis's unused slot
            node_location(domain, namespace, space, "_fem_space_arg") +
            "    _s = make_free_sample(_cell, _coords)\n")
    value = _node_dof_text(space, domain, namespace, f"_fem_t_destv({setup.call_text()})")
    nodes = dest.dof_values.shape[0]
    count = wp.zeros(nodes, dtype=wp.int32, device=device)
    weight = wp.zeros(nodes, dtype=scalar, device=device, requires_grad=dest.dof_values.requires_grad)
    dim = (domain.element_count(), space.NODES_PER_ELEMENT)
    inputs = [setup.domain_arg, space.space_arg_value(device)] + setup.inputs()
    # combined into a temporary, then written to the nodes the domain reached (the others keep their values)
    combined = wp.zeros_like(dest.dof_values, requires_grad=dest.dof_values.requires_grad)
    with wp.ScopedDevice(device):
        if reduction in ("weighted_average", "mean", "sum"):
            # weighted_average weighs each element's value by the element's measure at the node (Warp's
            # rule: a large element counts more), mean by 1; the weights' sum divides in the end
            w = "_fem_measure(_fem_domain_arg.geo, _s)" if reduction == "weighted_average" else "1.0"
            body = head + (f"    _wn = _fem_t_scalar({w})\n"
                           f"    wp.atomic_add(_fem_dest, _n, {value} * _wn)\n"
                           "    wp.atomic_add(_fem_weight, _n, _wn)\n    wp.atomic_add(_fem_count, _n, 1)\n")
        elif reduction in ("max", "min"):
            combined.fill_(-3.0e38 if reduction == "max" else 3.0e38)
            body = head + f"    wp.atomic_{reduction}(_fem_dest, _n, {value})\n    wp.atomic_add(_fem_count, _n, 1)\n"
        else:  # first: the smallest element index holding each node, then that element's value
            count.fill_(2 ** 31 - 1)
            first = make_kernel(setup, "interpolate_nodes_first_cell",
                                head + "    wp.atomic_min(_fem_count, _n, _cell)\n",
                                 params, namespace)
            launch(first, dim, inputs + [combined, count, weight])
            body = head + f"    if _fem_count[_n] == _cell:\n        _fem_dest[_n] = {value}\n"
        kernel = make_kernel(setup, f"interpolate_nodes_{reduction}", body, params, namespace)
        launch(kernel, dim, inputs + [combined, count, weight])
    # on the device, so that a Tape differentiates the node values through it (the nodes no cell
    # reached keep their values)
    mode = {"weighted_average": 1, "mean": 1, "first": 2}.get(reduction, 0)
    launch(_finish_kernel(warp_type(space.dof_dtype)), nodes, [combined, count, weight, mode, dest.dof_values])
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


def _finish_kernel(dtype):
    """dest[n] = the combined value of node n (divided by its weights' sum for a mean; mode 1) where a
    cell reached it."""
    scalar = T.type_scalar_type(dtype)

    @dynamic_kernel(suffix=dtype)
    def finish_nodes(combined: wp.array(dtype=dtype), count: wp.array(dtype=wp.int32),
                     weight: wp.array(dtype=scalar), mode: int, dest: wp.array(dtype=dtype)):
        n = wp.tid()
        c = count[n]
        if mode == 2:  # first: count holds the first cell, the largest int32 where none reached
            if c < 2147483647:
                dest[n] = combined[n]
        elif c > 0:
            # a node whose elements all weigh 0 there (a degenerate deformed cell's corner) keeps the zero
            # sum rather than 0 / 0
            if mode == 1 and weight[n] != scalar(0.0):
                dest[n] = combined[n] * (scalar(1.0) / weight[n])
            else:
                dest[n] = combined[n]

    return finish_nodes


@Integrand
def _field_value(s: Sample, u: Field):
    return u(s)
