"""`fem.interpolate` into a `warp.sparse` matrix: the Jacobian of an integrand that is linear in
its trial field, one block row per interpolation point (a quadrature point, or a node of
`dest_space`) and one block column per trial node. A block's column d is the integrand's value
for the trial dof (node, d); its rows are the value's components.

At nodes, the values of the elements holding a node are combined by the reduction, as values
are (`interpolate.py`): summed, averaged (each element's weight its measure for
weighted_average, 1 for mean; the weights are summed on the device and the triplets scaled by
them), or taken from the first element (of smallest index) only."""

from __future__ import annotations

import warp_nb as wp
import warp_nb.types as T

from .bsr_assembly import read_bsr_options
from .domain import Cells, GeometryDomain
from .kernel_builder import QP_LOOP, Setup, launch, make_kernel, node_location
from .quadrature import Quadrature

_REDUCTIONS = ("weighted_average", "mean", "sum", "first")


def interpolate_to_matrix(integrand, dest, at, dest_space, fields, values, device, reduction, bsr_options,
                          kernel_options=None):
    from .integrate import _assemble
    plan = read_bsr_options(bsr_options, dest, False, "fem.interpolate()", mapped_allowed=False)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"fem.interpolate to a matrix: reduction must be one of {', '.join(_REDUCTIONS)}, got "
                         f"{reduction!r}")
    if dest_space is None:
        if not isinstance(at, Quadrature):
            raise ValueError("fem.interpolate to a matrix: give `at` a quadrature (one row per point), or "
                             "`dest_space` (one row per node of it)")
        domain = at.domain
    else:
        domain = at.domain if hasattr(at, "domain") and not isinstance(at, GeometryDomain) else at
        domain = Cells(dest_space.geometry) if domain is None else domain
        if not isinstance(domain, GeometryDomain) or domain.element_kind != Cells(dest_space.geometry).element_kind:
            raise NotImplementedError("fem.interpolate to a matrix at nodes: `at` must be cells of dest_space's "
                                      "geometry, or a space restriction to them, in warp_nb.fem")
    setup = Setup(integrand, domain, fields, values, device, "interpolate", kernel_options)
    if setup.trial is None or setup.test is not None:
        raise ValueError(f"fem.interpolate to a matrix: the integrand {integrand.name} must take one trial field "
                         "(the matrix's columns) and no test field")
    trial_name, trial = setup.trial
    value_type = setup.return_type()
    rdofs, npr = trial.space.NODE_DOF_COUNT, setup.fields_on_nodes[trial_name].nodes_per_element
    block_t = dest.dtype
    # at the nodes of a space whose dofs are not its values (a dof mapper, a Nedelec / Raviart-Thomas
    # space), a value becomes the node's dofs as `interpolate` makes them
    to_dofs = dest_space is not None and (dest_space.dof_mapper is not None or
                                          getattr(dest_space, "node_dof_from_value", None) is not None)
    if to_dofs:
        value_type = T.vector(length=dest_space.NODE_DOF_COUNT, dtype=T.type_scalar_type(dest_space.dtype)) \
            if dest_space.NODE_DOF_COUNT > 1 else T.type_scalar_type(dest_space.dtype)
    rows_per_block = T.type_length(value_type) if T.type_is_vector(value_type) else 1
    expected = (rows_per_block, rdofs)
    if tuple(dest.block_shape) != expected:
        raise ValueError(f"fem.interpolate: the destination matrix's blocks must be of shape {expected} (the "
                         f"integrand's value has {rows_per_block} components, the trial field {rdofs} dofs per "
                         f"node), got {tuple(dest.block_shape)}")
    if T.type_is_vector(value_type):
        set_column = "            for _r in range({m}):\n                _blk[_r, _d] = _fem_t_bs(_v[_r])\n".format(
            m=rows_per_block)
    elif T.type_is_matrix(block_t):
        set_column = "            _blk[0, _d] = _fem_t_bs(_v)\n"
    else:
        set_column = "            _blk = _fem_t_block(_v)\n"
    zero_block = "_fem_t_block()" if T.type_is_matrix(block_t) else "_fem_t_block(0.0)"
    namespace = {"_fem_domain_index": domain.element_index, "_fem_measure": domain.element_measure,
                 "_fem_t_domain_arg": domain.DomainArg, "_fem_t_block": block_t,
                 "_fem_t_bs": T.type_scalar_type(block_t), "_fem_t_vals": wp.array(dtype=block_t),
                 "_fem_t_idx": wp.array(dtype=wp.int32),
                 "_fem_trial_index": setup.fields_on_nodes[trial_name].element_node_index}
    params = ["_fem_domain_arg: _fem_t_domain_arg"]
    inputs = [setup.domain_arg]
    call = setup.call_text()
    if to_dofs:
        from .interpolate import _node_dof_text
        namespace["_fem_t_destv"] = dest_space.dtype
        call = _node_dof_text(dest_space, domain, namespace, f"_fem_t_destv({call})")
    columns = (f"        for _d in range({rdofs}):\n"
               "            _s = Sample(_element_index, _coords, _qp_index, _w, wp.vec2i(-1, -1), wp.vec2i(_j, _d))\n"
               f"            _v = {call}\n" + set_column +
               f"        _fem_cols[_t] = _fem_trial_index(_fem_domain_arg.geo, {trial_name}.eval.space_arg, "
               "_element_index, _j)\n")
    if dest_space is None:
        namespace.update({"_fem_qp": at, "_fem_t_qp_arg": at.Arg})
        params += ["_fem_qp_arg: _fem_t_qp_arg"]
        inputs += [at.arg_value(device)]
        per = at.max_points_per_element()
        body = ("    _domain_element, _j = wp.tid()\n" + QP_LOOP +
                f"        _t = (_domain_element * {per} + _k) * {npr} + _j\n"
                f"        _blk = {zero_block}\n" + columns +
                "        _fem_rows[_t] = _qp_index\n        _fem_vals[_t] = _blk\n")
        count, dim, shape = domain.element_count() * per * npr, (domain.element_count(), npr), \
            (at.total_point_count(), trial.space.node_count())
        weights = None
    else:
        npe = dest_space.NODES_PER_ELEMENT
        namespace.update({"_fem_node_coords": dest_space.node_coords_in_element,
                          "_fem_node_index": dest_space.element_node_index,
                          "_fem_t_space_arg": dest_space.SpaceArg,
                          "_fem_t_weights": wp.array(dtype=T.type_scalar_type(block_t))})
        params += ["_fem_space_arg: _fem_t_space_arg", "_fem_weights: _fem_t_weights"]
        weights = wp.zeros(dest_space.node_count(), dtype=T.type_scalar_type(block_t), device=device)
        first_cells = wp.full(dest_space.node_count(), 2 ** 31 - 1, dtype=wp.int32, device=device)
        inputs += [dest_space.space_arg_value(device), weights]
        head = ("    _domain_element, _node, _j = wp.tid()\n"
                "    _element_index = _fem_domain_index(_fem_domain_arg.index, _domain_element)\n"
                "    _n = _fem_node_index(_fem_domain_arg.geo, _fem_space_arg, _element_index, _node)\n"
                "    if _n == NULL_NODE_INDEX:\n        return\n" +  # a point basis's unused slot
                node_location(domain, namespace, dest_space, "_fem_space_arg"))
        weight = {"weighted_average": "_fem_measure(_fem_domain_arg.geo, make_free_sample(_element_index, _coords))",
                  "mean": "1.0"}.get(reduction)
        # the node's weight, added once per element (by its first trial node's thread)
        body = head + (f"    if _j == 0:\n        wp.atomic_add(_fem_weights, _n, _fem_t_bs({weight}))\n"
                       if weight else "")
        if reduction == "first":
            namespace["_fem_t_first"] = wp.array(dtype=wp.int32)
            params += ["_fem_first: _fem_t_first"]
            inputs += [first_cells]
            body += "    if _fem_first[_n] != _element_index:\n        return\n"
        slot = f"(_domain_element * {npe} + _node) * {npr} + _j"
        count = domain.element_count() * npe * npr
        if reduction == "first" and getattr(at, "space_topology", None) is dest_space.topology:
            # at a restriction, one trial stencil per restriction node (one element writes a node):
            # storage within the restriction's node-count bound times the stencil, as Warp's
            namespace["_fem_t_local"] = wp.array(dtype=wp.int32)
            params += ["_fem_local: _fem_t_local"]
            inputs += [at.restriction_node_indices(device)]
            slot, count = f"_fem_local[_n] * {npr} + _j", at.node_count() * npr
        body += (f"    _t = {slot}\n"
                 # as Warp's, the sample's point index is the destination node's (probed on warp-lang)
                 "    _qp_index = _n\n    _w = _fem_t_bs(0.0)\n"
                 f"    if True:\n        _blk = {zero_block}\n" + columns +
                 "        _fem_rows[_t] = _n\n"
                 f"        _fem_vals[_t] = _blk * _fem_t_bs({weight or '1.0'})\n")
        dim, shape = (domain.element_count(), npe, npr), (dest_space.node_count(), trial.space.node_count())
        if reduction == "first":
            # the first element that has a sample of the trial field: an element where a point
            # basis has no point (every trial slot null) is passed over, as in Warp
            eligible = (f"    if _fem_trial_index(_fem_domain_arg.geo, {trial_name}.eval.space_arg, _element_index, "
                        "_j) == NULL_NODE_INDEX:\n        return\n")
            first = make_kernel(setup, "interpolate_matrix_first_cell",
                                head + eligible + "    wp.atomic_min(_fem_first, _n, _element_index)\n",
                                params + setup.params_text(namespace), namespace)
            launch(first, dim, inputs + setup.inputs())
    params = params + setup.params_text(namespace) + ["_fem_rows: _fem_t_idx", "_fem_cols: _fem_t_idx",
                                                      "_fem_vals: _fem_t_vals"]
    kernel = make_kernel(setup, f"interpolate_matrix_{reduction if dest_space is not None else 'qp'}", body, params,
                         namespace)
    # unused slots (points an element does not have) keep row -1, which the assembly drops
    rows, cols = wp.full(count, -1, dtype=wp.int32, device=device), wp.full(count, -1, dtype=wp.int32, device=device)
    vals = wp.zeros(count, dtype=block_t, device=device, requires_grad=dest.values.requires_grad)
    with wp.ScopedDevice(device):
        launch(kernel, dim, inputs + setup.inputs() + [rows, cols, vals])
        if weights is not None and reduction in ("weighted_average", "mean"):
            launch(_scale_kernel(block_t), count, [rows, weights, vals])
    # blocks that are zero (a trial node whose basis function vanishes at the point) are left out, as Warp does
    return _assemble(rows, cols, vals, shape, block_t, dest, False, plan)


_SCALE_KERNELS: dict = {}


def _scale_kernel(block_t):
    """vals[t] /= weights[rows[t]] (the average of the elements' blocks of a node)."""
    kernel = _SCALE_KERNELS.get(block_t)
    if kernel is None:
        scalar = T.type_scalar_type(block_t)

        def scale_by_node_weight(rows: wp.array(dtype=wp.int32), weights: wp.array(dtype=scalar),
                                 vals: wp.array(dtype=block_t)):
            t = wp.tid()
            r = rows[t]
            if r >= 0:
                vals[t] = vals[t] * (scalar(1.0) / weights[r])

        kernel = _SCALE_KERNELS[block_t] = wp.kernel(scale_by_node_weight,
                                                     key=f"fem_scale_by_node_weight_{T.type_name(block_t)}")
    return kernel
