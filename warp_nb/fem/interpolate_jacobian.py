"""`fem.interpolate` into a sparse matrix: the Jacobian of interpolating an integrand that is linear
in a trial field at the nodes of a destination space.

Row block n, column block m holds, for each dof of destination node n and each dof of trial node
m, the destination dof the integrand gives when the trial field is that one basis function (the
value at the node turned into the node's dofs as `interpolate` does: identity, dof mapper or a
vector space's dual functional). A node held by several cells of the domain gets the mean of what
each cell gives (Warp's default "weighted_average" with unit weights, as node interpolation): so
`J @ u` equals interpolating the integrand with the field of dofs `u`."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from .. import types as T
from .domain import GeometryDomain
from .kernel_builder import Setup, launch, make_kernel
from .types import ElementKind


def interpolate_jacobian(integrand, dest, at, dest_space, fields, values, device, reduction, bsr_options):
    from ..sparse import BsrMatrix, bsr_set_from_triplets
    from .interpolate import _node_dof_text
    if not isinstance(dest, BsrMatrix):
        raise TypeError(f"fem.interpolate: `dest` must be a discrete field, a warp array or a sparse matrix (with "
                        f"`dest_space`), got {type(dest).__name__}")
    if dest_space is None or not hasattr(dest_space, "topology"):
        raise ValueError("fem.interpolate: a sparse matrix `dest` needs `dest_space`, the function space of its rows")
    if reduction not in ("weighted_average", "mean"):
        raise NotImplementedError(f"fem.interpolate: reduction {reduction!r} into a sparse matrix is not supported by "
                                  "warp_nb.fem yet (weighted_average and mean are)")
    domain = at.domain if hasattr(at, "space_partition") and hasattr(at, "domain") else at
    if domain is None:
        from .domain import Cells
        domain = Cells(dest_space.geometry)
    if not isinstance(domain, GeometryDomain) or domain.element_kind != ElementKind.CELL:
        raise NotImplementedError("fem.interpolate: a Jacobian is interpolated at the nodes of cells only in "
                                  "warp_nb.fem (give a space restriction or a domain of cells as `at`)")
    setup = Setup(integrand, domain, fields, values, device, "interpolate")
    if setup.trial is None:
        raise ValueError("fem.interpolate: a sparse matrix `dest` needs a trial field among `fields`")
    trial_name, trial = setup.trial
    trial_bound = setup.fields_on_nodes[trial_name]
    rows_dofs, cols_dofs = dest_space.NODE_DOF_COUNT, trial.space.NODE_DOF_COUNT
    if (dest.nrow, dest.ncol) != (dest_space.node_count(), trial.space.node_count()):
        raise ValueError(f"fem.interpolate: `dest` must have {dest_space.node_count()} x {trial.space.node_count()} "
                         f"blocks (destination nodes x trial nodes), got {dest.nrow} x {dest.ncol}")
    block_t = dest.values.dtype
    scalar = T.type_scalar_type(block_t) if T.type_is_matrix(block_t) else block_t
    block_t = T.matrix(shape=(rows_dofs, cols_dofs), dtype=scalar) if rows_dofs * cols_dofs > 1 else scalar
    npe, tnpe = dest_space.NODES_PER_ELEMENT, trial_bound.nodes_per_element
    namespace = {"_fem_t_domain_arg": domain.DomainArg, "_fem_domain_index": domain.element_index,
                 "_fem_node_index": dest_space.element_node_index, "_fem_node_coords": dest_space.node_coords_in_element,
                 "_fem_trial_index": trial_bound.element_node_index, "_fem_t_space_arg": dest_space.SpaceArg,
                 "_fem_t_destv": dest_space.dtype, "_fem_t_block": block_t,
                 "_fem_t_idx": wp.array(dtype=wp.int32), "_fem_t_vals": wp.array(dtype=block_t)}
    params = ["_fem_domain_arg: _fem_t_domain_arg", "_fem_space_arg: _fem_t_space_arg"] + \
        setup.params_text(namespace) + ["_fem_rows: _fem_t_idx", "_fem_cols: _fem_t_idx", "_fem_vals: _fem_t_vals",
                                        "_fem_count: _fem_t_idx"]
    dof = _node_dof_text(dest_space, domain, namespace, f"_fem_t_destv({setup.call_text()})")
    if rows_dofs * cols_dofs == 1:
        store = f"        _block = {dof}\n"
    elif rows_dofs == 1:
        store = f"        _block[0, _c] = {dof}\n"
    else:
        store = f"        _v = {dof}\n        for _r in range({rows_dofs}):\n            _block[_r, _c] = _v[_r]\n"
    body = ("    _domain_element, _node, _j = wp.tid()\n"
            "    _cell = _fem_domain_index(_fem_domain_arg.index, _domain_element)\n"
            "    _element_index = _cell\n"
            "    _coords = _fem_node_coords(_node)\n"
            "    _n = _fem_node_index(_fem_domain_arg.geo, _fem_space_arg, _cell, _node)\n"
            f"    _m = _fem_trial_index(_fem_domain_arg.geo, {trial_name}.eval.space_arg, _cell, _j)\n"
            "    _block = _fem_t_block()\n"
            f"    for _c in range({cols_dofs}):\n"
            "        _s = Sample(_cell, _coords, -1, 0.0, wp.vec2i(-1, -1), wp.vec2i(_j, _c))\n" + store +
            f"    _t = (_domain_element * {npe} + _node) * {tnpe} + _j\n"
            "    _fem_rows[_t] = _n\n    _fem_cols[_t] = _m\n    _fem_vals[_t] = _block\n"
            "    if _j == 0:\n        wp.atomic_add(_fem_count, _n, 1)\n")
    count = domain.element_count() * npe * tnpe
    rows, cols = wp.zeros(count, dtype=wp.int32, device=device), wp.zeros(count, dtype=wp.int32, device=device)
    vals = wp.zeros(count, dtype=block_t, device=device)
    cells_of_node = wp.zeros(dest_space.node_count(), dtype=wp.int32, device=device)
    inputs = [domain.domain_arg_value(device), dest_space.space_arg_value(device)] + setup.inputs() + \
        [rows, cols, vals, cells_of_node]
    with wp.ScopedDevice(device):
        kernel = make_kernel(setup, "interpolate_jacobian", body, params, namespace)
        launch(kernel, (domain.element_count(), npe, tnpe), inputs)
    # the mean over the cells holding each destination node
    r, v = rows.numpy(), vals.numpy()
    scale = 1.0 / np.maximum(cells_of_node.numpy()[r], 1)
    v = v * scale.reshape((-1,) + (1,) * (v.ndim - 1))
    vals = wp.array(v.astype(v.dtype), dtype=block_t, device=device)
    bsr_set_from_triplets(dest, rows, cols, vals, **(bsr_options or {}))
    return dest
