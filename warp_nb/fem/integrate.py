"""`fem.integrate`: an integrand over a domain with a quadrature, to a number (vector, matrix), to a
vector over a test space's dofs, or to a `warp.sparse` matrix over test x trial dofs. The integrand
is specialised for the fields and domain given and a kernel generated per kind of result
(kernel_builder.py). Accumulation is in `accumulate_dtype` (float64 by default, as Warp) and
converted to the output type at the end; a matrix is assembled as triplets (one per element and
test/trial node pair) summed by `warp.sparse`'s `bsr_set_from_triplets`, or through the triplet map of
an earlier call (mapped assembly: bsr_assembly.py); nodal assembly evaluates at the nodes only (what
Dirichlet projectors use)."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from .. import types as T
from .bsr_assembly import ATOMIC_PARAMS, ATOMIC_STORE, BsrPlan, assemble_mapped, atomic_inputs, check_shape, \
    forget, read_bsr_options
from .cache import cached_mat_type, cached_vec_type
from .domain import GeometryDomain
from .integrand import Integrand
from .kernel_builder import (
    QP_LOOP, Setup, domain_of_fields, launch, make_kernel, node_location, quadrature_for, scalar_of, with_scalar,
)
from .partition_assembly import field_partition, gather_partition_rows, partition_triplets
from .quadrature import Quadrature


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
        domain = domain_of_fields(fields)
    if domain is None:
        raise ValueError("fem.integrate needs a domain, a quadrature, or a test or trial field (whose domain is used)")
    if not isinstance(domain, GeometryDomain):
        raise TypeError(f"fem.integrate: `domain` must be a fem domain (fem.Cells(geo), ...), got "
                        f"{type(domain).__name__}")
    if assembly not in (None, "generic", "nodal", "dispatch"):
        raise ValueError(f"fem.integrate: assembly must be None, 'generic', 'dispatch' or 'nodal', got {assembly!r}")
    device = wp.get_device(device)
    setup = Setup(integrand, domain, fields, values, device, "integrate", kernel_options)
    if setup.test is not None and setup.trial is not None:  # a matrix: its bsr_options, checked before any launch
        bsr_options = read_bsr_options(bsr_options, output, add, "fem.integrate()")
    quadrature = quadrature_for(domain, quadrature, (f for f in (fields or {}).values()))
    if quadrature.domain != domain:
        raise ValueError("fem.integrate: the quadrature is defined on another domain than `domain`")
    namespace = {"_fem_qp": quadrature, "_fem_domain_index": domain.element_index,
                 "_fem_measure": domain.element_measure, "_fem_t_domain_arg": domain.DomainArg,
                 "_fem_t_qp_arg": quadrature.Arg}
    params = ["_fem_domain_arg: _fem_t_domain_arg", "_fem_qp_arg: _fem_t_qp_arg"] + setup.params_text(namespace)
    inputs = [setup.domain_arg, quadrature.arg_value(device)] + setup.inputs()
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
        return cached_vec_type(dofs, accumulate_dtype), "_c"
    if T.type_is_matrix(dtype):
        cols = dtype._shape_[1]
        return with_scalar(dtype, accumulate_dtype), f"_c // {cols}, _c % {cols}"
    return with_scalar(dtype, accumulate_dtype), "_c"


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
        acc_t = with_scalar(value_type, accumulate_dtype)
    namespace["_fem_t_acc"], namespace["_fem_t_out"] = acc_t, wp.array(dtype=acc_t)
    body = "    _domain_element = wp.tid()\n" + QP_LOOP + (
        "        _s = _s0\n"
        f"        wp.atomic_add(_fem_out, 0, _fem_t_acc({setup.call_text()} * _dw))\n")
    kernel = make_kernel(setup, "integrate_value", body, params + ["_fem_out: _fem_t_out"], namespace)
    if output is not None:
        if not add:
            output.zero_()
        launch(kernel, domain.element_count(), inputs + [output.flatten() if output.ndim > 1 else output])
        return output
    acc = wp.zeros(1, dtype=acc_t)
    launch(kernel, domain.element_count(), inputs + [acc])
    result = acc.numpy()[0]
    out_t = output_dtype or with_scalar(value_type, scalar_of(value_type))
    if T.type_is_vector(out_t) or T.type_is_matrix(out_t):
        return out_t(*np.asarray(result, dtype=np.float64).flatten().tolist())
    return float(result) if T.type_is_float(out_t) else int(result)


def _integrate_linear(setup, namespace, params, inputs, domain, accumulate_dtype, output_dtype, output, add):
    test_name, test = setup.test
    space = test.space
    dofs = space.NODE_DOF_COUNT
    out_t = output_dtype or with_scalar(space.dof_dtype, domain.geometry.scalar_type)  # (Warp's default)
    if output is not None:
        out_t = output.dtype
        if dofs > 1 and T.type_is_scalar(out_t):  # a scalar array holding the nodes' dofs in order
            out_t = cached_vec_type(dofs, out_t)
    vector_out = dofs > 1
    acc_t, component = _node_accumulator(space.dof_dtype, out_t, dofs, accumulate_dtype)
    namespace.update({"_fem_t_acc": acc_t, "_fem_t_accs": accumulate_dtype, "_fem_t_outv": out_t,
                      "_fem_t_out": wp.array(dtype=out_t),
                      "_fem_node_index": setup.fields_on_nodes[test_name].element_node_index})
    add_line = (f"                _acc[{component}] += _fem_t_accs({{call}} * _dw)\n" if vector_out else
                "                _acc += _fem_t_acc({call} * _dw)\n").format(call=setup.call_text())
    body = ("    _domain_element, _node = wp.tid()\n    _acc = _fem_t_acc()\n" + QP_LOOP +
            f"        for _c in range({dofs}):\n"
            "            if True:\n"
            "                _s = Sample(_element_index, _coords, _qp_index, _w, wp.vec2i(_node, _c), "
            "wp.vec2i(-1, -1))\n" + add_line +
            f"    _n = _fem_node_index(_fem_domain_arg.geo, {test_name}.eval.space_arg, _element_index, _node)\n"
            "    if _n != NULL_NODE_INDEX:  # a point basis's unused slot\n"
            "        wp.atomic_add(_fem_out, _n, _fem_t_outv(_acc))\n")
    kernel = make_kernel(setup, "integrate_linear", body, params + ["_fem_out: _fem_t_out"], namespace)
    partition = field_partition(test)
    if partition is not None:  # assembled over the whole space, then the partition's rows kept
        full = wp.zeros(space.node_count(), dtype=out_t)
        launch(kernel, (domain.element_count(), setup.fields_on_nodes[test_name].nodes_per_element), inputs + [full])
        return gather_partition_rows(full, partition, output, add)
    if output is None:
        output = target = wp.zeros(space.node_count(), dtype=out_t)
    else:
        target = _node_values_view(output, space.node_count(), dofs)
        if not add:
            output.zero_()
    launch(kernel, (domain.element_count(), setup.fields_on_nodes[test_name].nodes_per_element), inputs + [target])
    return output


def _node_values_view(output, nodes: int, dofs: int):
    """`output` as one value per node. Like Warp, a scalar array stands for a multi-dof space's node
    values when it holds them in order: flat (at least nodes * dofs entries, contiguous) or
    (nodes, dofs); it is then written through a vector view of the same memory."""
    if dofs > 1 and T.type_is_scalar(output.dtype):
        if output.ndim > 2:
            raise RuntimeError(f"fem.integrate: a scalar `output` for a space of {dofs} dofs per node must be one- "
                               f"or two-dimensional, got shape {output.shape}")
        if output.ndim == 2 and output.shape[1] != dofs:
            raise RuntimeError(f"fem.integrate: the `output` array's last dimension must be of size {dofs} (the "
                               f"space's dofs per node), got shape {output.shape}")
        if not output.is_contiguous:
            raise RuntimeError("fem.integrate: a scalar `output` must be contiguous (it is read as the nodes' "
                               "values in order)")
        if output.size < nodes * dofs:
            raise RuntimeError(f"fem.integrate: a scalar `output` must have at least {nodes * dofs} entries "
                               f"({nodes} nodes of {dofs} dofs), got {output.size}")
        flat = output.flatten() if output.ndim == 2 else output
        return flat[: nodes * dofs].reshape((nodes, dofs)).view(T.vector(length=dofs, dtype=output.dtype))
    if output.shape != (nodes,):
        raise ValueError(f"fem.integrate: `output` must have shape ({nodes},), got {output.shape}")
    return output


def _integrate_bilinear(setup, namespace, params, inputs, domain, accumulate_dtype, output_dtype, output, add,
                        bsr_options):
    (test_name, test), (trial_name, trial) = setup.test, setup.trial
    tdofs, rdofs = test.space.NODE_DOF_COUNT, trial.space.NODE_DOF_COUNT
    # by default the geometry's scalar type, whatever the spaces' (as Warp)
    scalar_out = output_dtype or (output.scalar_type if output is not None else domain.geometry.scalar_type)
    scalar_out = scalar_of(scalar_out)
    blocked = tdofs > 1 or rdofs > 1
    block_t = cached_mat_type((tdofs, rdofs), scalar_out) if blocked else scalar_out
    acc_t = cached_mat_type((tdofs, rdofs), accumulate_dtype) if blocked else accumulate_dtype
    npt = setup.fields_on_nodes[test_name].nodes_per_element
    npr = setup.fields_on_nodes[trial_name].nodes_per_element
    namespace.update({"_fem_t_acc": acc_t, "_fem_t_accs": accumulate_dtype, "_fem_t_block": block_t,
                      "_fem_t_vals": wp.array(dtype=block_t), "_fem_t_idx": wp.array(dtype=wp.int32),
                      "_fem_test_index": setup.fields_on_nodes[test_name].element_node_index,
                      "_fem_trial_index": setup.fields_on_nodes[trial_name].element_node_index})
    add_line = ("                    _acc[_c, _d] += _fem_t_accs({call} * _dw)\n" if blocked else
                "                    _acc += _fem_t_acc({call} * _dw)\n").format(call=setup.call_text())
    body = ("    _domain_element, _i, _j = wp.tid()\n    _acc = _fem_t_acc()\n" + QP_LOOP +
            f"        for _c in range({tdofs}):\n"
            f"            for _d in range({rdofs}):\n"
            "                if True:\n"
            "                    _s = Sample(_element_index, _coords, _qp_index, _w, wp.vec2i(_i, _c), "
            "wp.vec2i(_j, _d))\n" + add_line +
            f"    _t = (_domain_element * {npt} + _i) * {npr} + _j\n"
            f"    _fem_rows[_t] = _fem_test_index(_fem_domain_arg.geo, {test_name}.eval.space_arg, _element_index, "
            "_i)\n"
            f"    _fem_cols[_t] = _fem_trial_index(_fem_domain_arg.geo, {trial_name}.eval.space_arg, _element_index, "
            "_j)\n"
            "    _fem_vals[_t] = _fem_t_block(_acc)\n")
    store_params = ["_fem_rows: _fem_t_idx", "_fem_cols: _fem_t_idx", "_fem_vals: _fem_t_vals"]
    shape = (test.space.node_count(), trial.space.node_count())
    dim = (domain.element_count(), npt, npr)
    if bsr_options.fused_atomic:  # each value added into its block through the map: no triplets stored
        check_shape(output, _partitioned_shape(shape, test, trial), "fem.integrate")
        body = body[: body.index("    _fem_rows[_t]")] + ATOMIC_STORE.format(value="_fem_t_block(_acc)")
        kernel = make_kernel(setup, "integrate_bilinear_atomic", body, params + ATOMIC_PARAMS, namespace)
        launch(kernel, dim, inputs + atomic_inputs(output))
        return output
    kernel = make_kernel(setup, "integrate_bilinear", body, params + store_params, namespace)
    count = domain.element_count() * npt * npr
    rows, cols = wp.empty(count, dtype=wp.int32), wp.empty(count, dtype=wp.int32)
    vals = wp.empty(count, dtype=block_t)
    launch(kernel, dim, inputs + [rows, cols, vals])
    if field_partition(test) is not None or field_partition(trial) is not None:
        rows, cols, shape = partition_triplets(rows, cols, shape, field_partition(test), field_partition(trial))
    return _assemble(rows, cols, vals, shape, block_t, output, add, bsr_options)


def _partitioned_shape(shape, test, trial):
    """The matrix shape in the test and trial partitions' numbering (the spaces' without partitions)."""
    parts = (field_partition(test), field_partition(trial))
    return tuple(n if p is None else p.node_count() for n, p in zip(shape, parts))


def _assemble(rows, cols, vals, shape, block_t, output, add, plan: BsrPlan):
    """The matrix of the triplets (duplicates summed), new, or into `output` (added with `add`)."""
    from ..sparse import bsr_axpy, bsr_set_from_triplets, bsr_zeros
    if plan.mapped:
        return assemble_mapped(rows, cols, vals, shape, block_t, output, plan)
    forget(output)  # the matrix's topology is rewritten: a triplet map it had is stale
    # zero blocks are dropped by default, as Warp's assembly does (a point basis's pairs of distinct
    # points, whose Dirac kernels never overlap, leave none)
    prune = plan.prune
    if add and output is not None:
        result = bsr_zeros(*shape, block_type=block_t)
        bsr_set_from_triplets(result, rows, cols, vals, prune_numerical_zeros=prune)
        bsr_axpy(result, output)
        return output
    if output is None:
        output = bsr_zeros(*shape, block_type=block_t)
    check_shape(output, shape, "fem.integrate")
    topology = plan.topology
    if topology == "padded":
        _reserve_candidate_rows(output, rows, cols)
    bsr_set_from_triplets(output, rows, cols, vals, prune_numerical_zeros=prune, topology=topology)
    return output


def _reserve_candidate_rows(matrix, rows, cols) -> None:
    """topology="padded": each row of `matrix` gets one slot per triplet aimed at it (inside the
    shape), as Warp's FEM padded output does; the summed, pruned blocks then fill the first slots of
    their row. The storage grows only when it is too small for them."""
    from ..sparse import bsr_set_zero
    r, c = rows.numpy(), cols.numpy()
    inside = (r >= 0) & (r < matrix.nrow) & (c >= 0) & (c < matrix.ncol)
    counts = np.bincount(r[inside], minlength=matrix.nrow).astype(np.int32)
    bsr_set_zero(matrix, topology="padded", row_capacity=wp.array(counts, dtype=int, device=matrix.device))


def _one_triplet_per_node(rows, vals, prune: bool):
    """The nodal triplets summed per node (one per node reached, zero blocks dropped when `prune`):
    the matrix then holds exactly one value per stored block, as Warp's nodal matrices do (code
    reading `matrix.values` as one entry per node, like Warp's fluid examples, relies on it)."""
    r, v = rows.numpy(), vals.numpy()
    keep = r >= 0
    nodes, inverse = np.unique(r[keep], return_inverse=True)
    summed = np.zeros((len(nodes),) + v.shape[1:], dtype=v.dtype)
    np.add.at(summed, inverse, v[keep])
    if prune:
        nonzero = np.abs(summed.reshape(len(nodes), -1)).max(axis=1, initial=0.0) > 0
        nodes, summed = nodes[nonzero], summed[nonzero]
    rows = wp.array(nodes.astype(np.int32), dtype=wp.int32, device=rows.device)
    values = wp.array(summed, dtype=vals.dtype, device=vals.device)
    return rows, wp.clone(rows), values


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
    space_arg = f"{test_name}.eval.space_arg"
    where = node_location(domain, namespace, space, space_arg)
    point_nodes = getattr(shape, "NODES_FROM_ARG", False)
    node_weight = f"_fem_node_weight(_fem_domain_arg.geo, {space_arg}, _element_index, _node)" if point_nodes \
        else "_fem_node_weight(_node)"
    trial = "wp.vec2i(_node, _d)" if setup.trial is not None else "wp.vec2i(-1, -1)"
    matrix = setup.trial is not None
    if matrix:
        scalar_out = scalar_of(output_dtype or (output.scalar_type if output is not None else
                                                domain.geometry.scalar_type))
        blocked = tdofs > 1
        out_t = cached_mat_type((tdofs, rdofs), scalar_out) if blocked else scalar_out
        acc_t = cached_mat_type((tdofs, rdofs), accumulate_dtype) if blocked else accumulate_dtype
        add_line = "_acc[_c, _d] += " if blocked else "_acc += "
    else:
        out_t = output_dtype or (output.dtype if output is not None else
                                 with_scalar(space.dof_dtype, domain.geometry.scalar_type))
        blocked = tdofs > 1
        acc_t, component = _node_accumulator(space.dof_dtype, out_t, tdofs, accumulate_dtype)
        add_line = f"_acc[{component}] += " if blocked else "_acc += "
    namespace.update({"_fem_t_acc": acc_t, "_fem_t_outv": out_t, "_fem_t_out": wp.array(dtype=out_t)})
    body = ("    _domain_element, _node = wp.tid()\n"
            f"    _t = _domain_element * {npe} + _node\n"
            "    _element_index = _fem_domain_index(_fem_domain_arg.index, _domain_element)\n"
            # as in Warp, a nodal sample's quadrature point index is its node's index
            f"    _n = _fem_node_index(_fem_domain_arg.geo, {space_arg}, _element_index, _node)\n"
            "    if _n == NULL_NODE_INDEX:\n        return\n" + where +  # a point basis's unused slot
            f"    _w = {node_weight}\n"
            "    _s0 = Sample(_element_index, _coords, _n, _w, wp.vec2i(-1, -1), wp.vec2i(-1, -1))\n"
            "    _dw = _w * _fem_measure(_fem_domain_arg.geo, _s0)\n"
            "    _acc = _fem_t_acc()\n"
            f"    for _c in range({tdofs}):\n"
            f"        for _d in range({rdofs}):\n"
            f"            _s = Sample(_element_index, _coords, _n, _w, wp.vec2i(_node, _c), {trial})\n"
            f"            {add_line}_fem_t_accs({setup.call_text()} * _dw)\n")
    count = domain.element_count() * npe
    if matrix:
        shape = (space.node_count(), space.node_count())
        if bsr_options.fused_atomic:  # each value added into its block through the map
            check_shape(output, shape, "fem.integrate")
            namespace["_fem_t_vals"] = namespace["_fem_t_out"]
            kernel = make_kernel(setup, "integrate_nodal_matrix_atomic",
                                 body + ATOMIC_STORE.format(value="_fem_t_outv(_acc)"), params + ATOMIC_PARAMS,
                                 namespace)
            launch(kernel, (domain.element_count(), npe), inputs + atomic_inputs(output))
            return output
        body += ("    _fem_rows[_t] = _n\n    _fem_cols[_t] = _n\n    _fem_vals[_t] = _fem_t_outv(_acc)\n")
        kernel = make_kernel(setup, "integrate_nodal_matrix", body, params + [
            "_fem_rows: _fem_t_idx", "_fem_cols: _fem_t_idx", "_fem_vals: _fem_t_out"], namespace)
        # a node off the side leaves its slot: -1 rows are outside the shape, dropped by the assembly
        rows, cols = wp.full(count, -1, dtype=wp.int32), wp.full(count, -1, dtype=wp.int32)
        vals = wp.zeros(count, dtype=out_t)
        launch(kernel, (domain.element_count(), npe), inputs + [rows, cols, vals])
        if not bsr_options.mapped:
            # zero blocks (nodes where the integrand vanishes) are left out, as Warp's nodal assembly
            # does; a mapped assembly maps every slot (its map cannot depend on values) and sums them
            rows, cols, vals = _one_triplet_per_node(rows, vals, bsr_options.prune)
        return _assemble(rows, cols, vals, shape, out_t, output, add, bsr_options)
    body += "    wp.atomic_add(_fem_out, _n, _fem_t_outv(_acc))\n"
    kernel = make_kernel(setup, "integrate_nodal_vector", body, params + ["_fem_out: _fem_t_out"], namespace)
    if output is None:
        output = wp.zeros(space.node_count(), dtype=out_t)
    elif not add:
        output.zero_()
    launch(kernel, (domain.element_count(), npe), inputs + [output])
    return output
