"""How a field of a function space is evaluated at a sample of a cell: the device functions a
field's operators become. Each takes (field_arg, s), field_arg being the field bound to a domain
(`{geo: the domain's element arguments, eval: the field's own EvalArg}`), and is made once per
space, by closing over the space's shape and topology functions, and per value kind (scalar,
vector or tensor):

- a node's own value (test and trial fields): the node's shape weight at the sample, times the
  unit vector of the dof's component for vector spaces (mapped by the space's dof mapper if any);
- a discrete field's value: the sum over the element's nodes of weight times node value.
Gradients are taken in reference coordinates by the shape, then carried to world coordinates by
the geometry's inverse deformation gradient (`ref_grad * F^-1`). Spaces of vector-valued shape
functions (Nedelec, Raviart-Thomas) have their own Piola maps: piola_evaluation.py."""

from __future__ import annotations

from typing import Any

import warp_nb as wp

from ... import types as T
from ..types import NULL_NODE_INDEX


def _unit(dtype):
    """A device function returning the unit `dtype` value (vector or matrix) of flat component c."""
    cached = _UNITS.get(dtype)
    if cached is not None:
        return cached
    length = T.type_length(dtype)
    if T.type_is_matrix(dtype):
        cols = dtype._shape_[1]

        @wp.func
        def unit(c: int):
            v = dtype()
            v[c // cols, c % cols] = type(v[0, 0])(1.0)
            return v
    else:
        @wp.func
        def unit(c: int):
            v = dtype()
            for k in range(length):
                if k == c:
                    v[k] = type(v[0])(1.0)
            return v

    _UNITS[dtype] = unit
    return unit


_UNITS: dict = {}


def _value_unit(space):
    """Device function c -> the value of the unit dof c of a node (the mapped unit with a dof mapper)."""
    mapper = space.dof_mapper
    if mapper is None:
        return _unit(space.dtype)
    to_value, dof_t = mapper.dof_to_value, space.dof_dtype
    if not T.type_is_vector(dof_t):
        @wp.func
        def mapped_scalar_unit(c: int):
            return to_value(dof_t(1.0))

        return mapped_scalar_unit
    dof_unit = _unit(dof_t)

    @wp.func
    def mapped_unit(c: int):
        return to_value(dof_unit(c))

    return mapped_unit


def _dof_to_value(space):
    """Device function: a node's stored dofs -> its value (the identity without a dof mapper)."""
    if space.dof_mapper is not None:
        return space.dof_mapper.dof_to_value
    return _identity


@wp.func
def _identity(x: Any):
    return x


def _kind(dtype) -> str:
    return "matrix" if T.type_is_matrix(dtype) else "vector" if T.type_is_vector(dtype) else "scalar"


def _derived(functions: dict, kind: str, dimension: int) -> dict:
    """D (symmetric part of the gradient) and curl (half the rotational, as Warp) from a vector field's gradient."""
    grad = functions["eval_grad_inner"]
    if kind != "vector" or grad is None:
        return functions

    @wp.func
    def sym_grad(field_arg: Any, s: Any):
        g = grad(field_arg, s)
        return type(g[0, 0])(0.5) * (g + wp.transpose(g))

    functions["eval_D_inner"] = sym_grad
    if dimension == 3:
        @wp.func
        def curl(field_arg: Any, s: Any):
            g = grad(field_arg, s)
            h = type(g[0, 0])(0.5)
            return type(g[0])(h * (g[2, 1] - g[1, 2]), h * (g[0, 2] - g[2, 0]), h * (g[1, 0] - g[0, 1]))

        functions["eval_curl_inner"] = curl
    elif dimension == 2:
        @wp.func
        def curl_2d(field_arg: Any, s: Any):
            g = grad(field_arg, s)
            return type(g[0, 0])(0.5) * (g[1, 0] - g[0, 1])

        functions["eval_curl_inner"] = curl_2d
    return functions


def node_functions(space, dof_slot: int) -> dict:
    """The operators' device functions for the element node a test (dof_slot 0) or trial (1) dof
    designates: its basis function (times the unit value of the dof's component)."""
    if getattr(space, "piola", None) is not None:  # H(curl) / H(div) spaces: their own maps
        from .piola_evaluation import piola_node_functions
        return piola_node_functions(space, dof_slot)
    if getattr(space.shape, "NODES_FROM_ARG", False):  # a point basis: nodes differ per element
        from .point_evaluation import point_node_functions
        return point_node_functions(space, dof_slot)
    key = (space, dof_slot)
    cached = _NODE_FUNCS.get(key)
    if cached is not None:
        return cached
    weight, weight_grad, geo = space.element_inner_weight, space.element_inner_weight_gradient, space.geometry
    inv_grad = geo.cell_inverse_deformation_gradient
    kind = _kind(space.dtype)
    scalar = T.type_scalar_type(space.dtype)

    # A sample that carries no dof of this slot (from `lookup`, `make_free_sample`, or `at_node` of
    # another field) has node -1: the test or trial function vanishes there, as in Warp. The node is
    # clamped so that the basis function is evaluated at a real node, and the result scaled by 0.
    @wp.func
    def dof_of(s: Any):
        d = s.test_dof if wp.static(dof_slot == 0) else s.trial_dof
        return wp.vec2i(wp.max(d[0], 0), wp.max(d[1], 0))

    @wp.func
    def live(s: Any):
        d = s.test_dof if wp.static(dof_slot == 0) else s.trial_dof
        return wp.where(d[0] < 0, scalar(0.0), scalar(1.0))

    @wp.func
    def world_grad(field_arg: Any, s: Any, n: int):
        return weight_grad(s.element_coords, n) * inv_grad(field_arg.geo, s)

    funcs = {"eval_grad_inner": None, "eval_div_inner": None}
    if kind == "scalar":
        @wp.func
        def value(field_arg: Any, s: Any):
            return weight(s.element_coords, dof_of(s)[0]) * live(s)

        @wp.func
        def grad(field_arg: Any, s: Any):
            return world_grad(field_arg, s, dof_of(s)[0]) * live(s)

        funcs["eval_grad_inner"] = grad
    else:
        unit = _value_unit(space)

        @wp.func
        def value(field_arg: Any, s: Any):
            d = dof_of(s)
            return weight(s.element_coords, d[0]) * unit(d[1]) * live(s)

        if kind == "vector":
            @wp.func
            def grad(field_arg: Any, s: Any):
                d = dof_of(s)
                return wp.outer(unit(d[1]), world_grad(field_arg, s, d[0])) * live(s)

            @wp.func
            def div(field_arg: Any, s: Any):
                d = dof_of(s)
                return world_grad(field_arg, s, d[0])[d[1]] * live(s)

            funcs["eval_grad_inner"] = grad
        else:
            # Warp's divergence of a tensor contracts its first index: div(tau)_j = sum_i d tau_ij / dx_i
            @wp.func
            def div(field_arg: Any, s: Any):
                d = dof_of(s)
                return world_grad(field_arg, s, d[0]) * unit(d[1]) * live(s)

        funcs["eval_div_inner"] = div
    funcs["eval_inner"] = value
    cached = _NODE_FUNCS[key] = _derived(funcs, kind, geo.dimension)
    return cached


def discrete_functions(space, partition_node_index=None) -> dict:
    """The operators' device functions of a discrete field of `space` (its EvalArg: {space_arg,
    dof_values}, and partition_arg with a space partition, whose `partition_node_index` maps a space
    node to its entry of dof_values; nodes outside the partition read zero): sums over the element's
    nodes of node value times basis function."""
    if getattr(space, "piola", None) is not None:
        if partition_node_index is not None:
            raise NotImplementedError("fields of Nedelec / Raviart-Thomas spaces over a space partition are not "
                                      "supported by warp_nb.fem yet")
        from .piola_evaluation import piola_discrete_functions
        return piola_discrete_functions(space)
    if getattr(space.shape, "NODES_FROM_ARG", False):  # a point basis: nodes differ per element
        if partition_node_index is not None:
            raise NotImplementedError("discrete fields of a fem.PointBasisSpace over a space partition are not "
                                      "supported by warp_nb.fem yet")
        from .point_evaluation import point_discrete_functions
        return point_discrete_functions(space)
    key = space if partition_node_index is None else (space, partition_node_index)
    cached = _DISCRETE_FUNCS.get(key)
    if cached is not None:
        return cached
    weight, weight_grad, geo = space.element_inner_weight, space.element_inner_weight_gradient, space.geometry
    node_index, inv_grad, nodes = space.element_node_index, geo.cell_inverse_deformation_gradient, \
        space.NODES_PER_ELEMENT
    kind = _kind(space.dtype)

    to_value = _dof_to_value(space)
    if partition_node_index is None:
        @wp.func
        def node_value(field_arg: Any, s: Any, n: int):
            return to_value(field_arg.eval.dof_values[node_index(field_arg.geo, field_arg.eval.space_arg,
                                                                 s.element_index, n)])
    else:
        dof_t = space.dof_dtype

        @wp.func
        def node_value(field_arg: Any, s: Any, n: int):
            node = node_index(field_arg.geo, field_arg.eval.space_arg, s.element_index, n)
            i = partition_node_index(field_arg.eval.partition_arg, node)
            if i == NULL_NODE_INDEX:
                return to_value(dof_t(0.0))
            return to_value(field_arg.eval.dof_values[i])

    @wp.func
    def value(field_arg: Any, s: Any):
        v = node_value(field_arg, s, 0) * weight(s.element_coords, 0)
        for n in range(1, wp.static(nodes)):
            v += node_value(field_arg, s, n) * weight(s.element_coords, n)
        return v

    # f(s, n): the contribution of the element's node n alone (its value times its basis function)
    @wp.func
    def value(field_arg: Any, s: Any, n: int):  # noqa: F811 (an overload)
        return node_value(field_arg, s, n) * weight(s.element_coords, n)

    funcs = {"eval_inner": value, "eval_grad_inner": None, "eval_div_inner": None}
    if kind == "scalar":
        @wp.func
        def grad(field_arg: Any, s: Any):
            g = weight_grad(s.element_coords, 0) * node_value(field_arg, s, 0)
            for n in range(1, wp.static(nodes)):
                g += weight_grad(s.element_coords, n) * node_value(field_arg, s, n)
            return g * inv_grad(field_arg.geo, s)

        funcs["eval_grad_inner"] = grad
    elif kind == "vector":
        @wp.func
        def grad(field_arg: Any, s: Any):
            g = wp.outer(node_value(field_arg, s, 0), weight_grad(s.element_coords, 0))
            for n in range(1, wp.static(nodes)):
                g += wp.outer(node_value(field_arg, s, n), weight_grad(s.element_coords, n))
            return g * inv_grad(field_arg.geo, s)

        @wp.func
        def div(field_arg: Any, s: Any):
            return wp.trace(grad(field_arg, s))

        funcs["eval_grad_inner"], funcs["eval_div_inner"] = grad, div
    else:
        @wp.func
        def div(field_arg: Any, s: Any):
            f = inv_grad(field_arg.geo, s)
            d = (weight_grad(s.element_coords, 0) * f) * node_value(field_arg, s, 0)
            for n in range(1, wp.static(nodes)):
                d += (weight_grad(s.element_coords, n) * f) * node_value(field_arg, s, n)
            return d

        funcs["eval_div_inner"] = div
    cached = _DISCRETE_FUNCS[key] = _derived(funcs, kind, geo.dimension)
    return cached


_NODE_FUNCS: dict = {}
_DISCRETE_FUNCS: dict = {}


def node_queries(space, dof_slot: int | None) -> dict:
    """node_count, at_node and node_index of a field of `space` on cells: the element's node count;
    the sample moved to the node of the test (slot 0) or trial (1) dof, or to node k; that node's
    global index."""
    key = (space, dof_slot)
    cached = _NODE_QUERIES.get(key)
    if cached is not None:
        return cached
    Sample = space.geometry.sample_type
    node_index = space.element_node_index
    slot = 0 if dof_slot is None else dof_slot
    if getattr(space.shape, "NODES_FROM_ARG", False):  # a point basis: each element's own points
        point_coords, count = space.node_coords_in_element, space.topology.element_node_count

        @wp.func
        def node_count(field_arg: Any, s: Any):
            return count(field_arg.geo, field_arg.eval.space_arg, s.element_index)

        @wp.func
        def node_coords(field_arg: Any, s: Any, k: int):
            return point_coords(field_arg.geo, field_arg.eval.space_arg, s.element_index, k)
    else:
        nodes, coords = space.NODES_PER_ELEMENT, space.node_coords_in_element

        @wp.func
        def node_count(field_arg: Any, s: Any):
            return wp.static(nodes)

        @wp.func
        def node_coords(field_arg: Any, s: Any, k: int):
            return coords(k)

    @wp.func
    def own_node(s: Any):
        return s.test_dof[0] if wp.static(slot == 0) else s.trial_dof[0]

    @wp.func
    def at_node(field_arg: Any, s: Any):
        c = node_coords(field_arg, s, own_node(s))
        return Sample(s.element_index, c, s.qp_index, s.qp_weight, s.test_dof, s.trial_dof)

    # Node k of a discrete field is no test or trial node: the sample there carries no dof, so test
    # and trial functions vanish at it (Warp's documented rule).
    keep_dofs = dof_slot is not None

    @wp.func
    def at_node(field_arg: Any, s: Any, k: int):  # noqa: F811 (an overload)
        c = node_coords(field_arg, s, k)
        if wp.static(keep_dofs):
            return Sample(s.element_index, c, s.qp_index, s.qp_weight, s.test_dof, s.trial_dof)
        return Sample(s.element_index, c, s.qp_index, s.qp_weight, wp.vec2i(-1), wp.vec2i(-1))

    @wp.func
    def node_index_of(field_arg: Any, s: Any):
        return node_index(field_arg.geo, field_arg.eval.space_arg, s.element_index, own_node(s))

    @wp.func
    def node_index_of(field_arg: Any, s: Any, k: int):  # noqa: F811 (an overload)
        return node_index(field_arg.geo, field_arg.eval.space_arg, s.element_index, k)

    cached = _NODE_QUERIES[key] = {"eval_node_count": node_count, "eval_at_node": at_node,
                                   "eval_node_index": node_index_of}
    return cached


_NODE_QUERIES: dict = {}


def on_side(cell_fn, geometry, bound_cell_struct, outer: bool, slot: int | None, npe: int):
    """`cell_fn` (field_arg bound to cells, s) as a function of a field bound to sides: the side
    sample is carried to the side's inner (or `outer`) cell first (index, coordinates, cell
    arguments). For a test (`slot` 0) or trial (1) field, the side's nodes are the inner cell's
    (0..npe-1) then the outer cell's (npe..2 npe-1): a node of the other cell weighs nothing. A
    boundary side's outer cell is its inner cell."""
    key = (cell_fn, geometry, bound_cell_struct, outer, slot, npe)
    cached = _SIDE_FUNCS.get(key)
    if cached is not None:
        return cached
    Sample = geometry.sample_type
    scalar = geometry.scalar_type
    if outer:
        cell_index, cell_coords = geometry.side_outer_cell_index, geometry.side_outer_cell_coords
    else:
        cell_index, cell_coords = geometry.side_inner_cell_index, geometry.side_inner_cell_coords
    to_cell_arg = geometry.side_to_cell_arg
    node_field = slot is not None
    first = npe if outer else 0

    @wp.func
    def side_value(field_arg: Any, s: Any):
        side_arg = field_arg.geo
        test_dof = s.test_dof
        trial_dof = s.trial_dof
        scale = scalar(1.0)
        if wp.static(node_field):
            d = test_dof if wp.static(slot == 0) else trial_dof
            local = d[0] - wp.static(first)
            if local < 0 or local >= wp.static(npe):
                scale = scalar(0.0)
                local = 0
            if wp.static(slot == 0):
                test_dof = wp.vec2i(local, d[1])
            else:
                trial_dof = wp.vec2i(local, d[1])
        cell_s = Sample(cell_index(side_arg, s.element_index), cell_coords(side_arg, s.element_index, s.element_coords),
                        s.qp_index, s.qp_weight, test_dof, trial_dof)
        cell_field = bound_cell_struct()
        cell_field.geo = to_cell_arg(side_arg)
        cell_field.eval = field_arg.eval
        return cell_fn(cell_field, cell_s) * scale

    cached = _SIDE_FUNCS[key] = side_value
    return cached


def combine(inner_fn, outer_fn, how: str):
    """jump (inner - outer) or average of two side functions."""
    key = (inner_fn, outer_fn, how)
    cached = _SIDE_FUNCS.get(key)
    if cached is not None:
        return cached
    if how == "jump":
        @wp.func
        def combined(field_arg: Any, s: Any):
            return inner_fn(field_arg, s) - outer_fn(field_arg, s)
    else:
        @wp.func
        def combined(field_arg: Any, s: Any):
            return 0.5 * (inner_fn(field_arg, s) + outer_fn(field_arg, s))
    cached = _SIDE_FUNCS[key] = combined
    return cached


def side_node_index(node_index, geometry, npe: int, two_sided: bool):
    """A space's element_node_index(cell_arg, space_arg, cell, node) as a function of a side: its
    nodes are its inner cell's, then (two-sided) its outer cell's."""
    key = (node_index, geometry, npe, two_sided)
    cached = _SIDE_FUNCS.get(key)
    if cached is not None:
        return cached
    inner_index, outer_index, to_cell_arg = geometry.side_inner_cell_index, geometry.side_outer_cell_index, \
        geometry.side_to_cell_arg

    @wp.func
    def side_node(side_arg: Any, space_arg: Any, side_index: int, node: int):
        if wp.static(two_sided) and node >= wp.static(npe):
            outer_cell = outer_index(side_arg, side_index)
            return node_index(to_cell_arg(side_arg), space_arg, outer_cell, node - wp.static(npe))
        return node_index(to_cell_arg(side_arg), space_arg, inner_index(side_arg, side_index), node)

    cached = _SIDE_FUNCS[key] = side_node
    return cached


_SIDE_FUNCS: dict = {}
