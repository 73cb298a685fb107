"""How a field of a function space is evaluated at a sample of a cell: the device functions a
field's operators become. Each takes (field_arg, s), field_arg being the field bound to a domain
(`{geo: the domain's element arguments, eval: the field's own EvalArg}`), and is made once per space, by
closing over the space's shape and topology functions, and per value kind (scalar or vector):

- a node's own value (test and trial fields): the node's shape weight at the sample, times the
  unit vector of the dof's component for vector spaces;
- a discrete field's value: the sum over the element's nodes of weight times node value.
Gradients are taken in reference coordinates by the shape, then carried to world coordinates by
the geometry's inverse deformation gradient (`ref_grad * F^-1`)."""

from __future__ import annotations

from typing import Any

import warp_nb as wp

from ... import types as T


def _unit(dtype):
    """A device function returning the unit `dtype` vector along component c."""
    length = T.type_length(dtype)

    @wp.func
    def unit_vec(c: int):
        v = dtype()
        for k in range(length):
            if k == c:
                v[k] = 1.0
        return v

    return unit_vec


def _is_vector(dtype) -> bool:
    return T.type_is_vector(dtype)


def node_functions(space, dof_slot: int):
    """(value, grad, div) of the element node a test (dof_slot 0) or trial (1) dof designates."""
    key = (space, dof_slot)
    cached = _NODE_FUNCS.get(key)
    if cached is not None:
        return cached
    weight, weight_grad, geo = space.element_inner_weight, space.element_inner_weight_gradient, space.geometry
    inv_grad = geo.cell_inverse_deformation_gradient

    if not _is_vector(space.dtype):
        @wp.func
        def value(field_arg: Any, s: Any):
            dof = wp.static(dof_slot)
            n = s.test_dof[0] if dof == 0 else s.trial_dof[0]
            return weight(s.element_coords, n)

        @wp.func
        def grad(field_arg: Any, s: Any):
            dof = wp.static(dof_slot)
            n = s.test_dof[0] if dof == 0 else s.trial_dof[0]
            return weight_grad(s.element_coords, n) * inv_grad(field_arg.geo, s)

        div = None
    else:
        unit = _unit(space.dtype)

        @wp.func
        def value(field_arg: Any, s: Any):
            dof = wp.static(dof_slot)
            d = s.test_dof if dof == 0 else s.trial_dof
            return weight(s.element_coords, d[0]) * unit(d[1])

        @wp.func
        def grad(field_arg: Any, s: Any):
            dof = wp.static(dof_slot)
            d = s.test_dof if dof == 0 else s.trial_dof
            return wp.outer(unit(d[1]), weight_grad(s.element_coords, d[0]) * inv_grad(field_arg.geo, s))

        @wp.func
        def div(field_arg: Any, s: Any):
            dof = wp.static(dof_slot)
            d = s.test_dof if dof == 0 else s.trial_dof
            g = weight_grad(s.element_coords, d[0]) * inv_grad(field_arg.geo, s)
            return g[d[1]]

    cached = _NODE_FUNCS[key] = (value, grad, div)
    return cached


def discrete_functions(space):
    """(value, grad, div) of a discrete field of `space` (its field_arg: {space_arg, dof_values})."""
    cached = _DISCRETE_FUNCS.get(space)
    if cached is not None:
        return cached
    weight, weight_grad, geo = space.element_inner_weight, space.element_inner_weight_gradient, space.geometry
    node_index, inv_grad, nodes = space.element_node_index, geo.cell_inverse_deformation_gradient, \
        space.NODES_PER_ELEMENT

    @wp.func
    def value(field_arg: Any, s: Any):
        cell_arg = field_arg.geo
        v = field_arg.eval.dof_values[node_index(cell_arg, field_arg.eval.space_arg, s.element_index, 0)] * \
            weight(s.element_coords, 0)
        for n in range(1, wp.static(nodes)):
            v += field_arg.eval.dof_values[node_index(cell_arg, field_arg.eval.space_arg, s.element_index, n)] * \
                weight(s.element_coords, n)
        return v

    if not _is_vector(space.dtype):
        @wp.func
        def grad(field_arg: Any, s: Any):
            cell_arg = field_arg.geo
            g = weight_grad(s.element_coords, 0) * field_arg.eval.dof_values[
                node_index(cell_arg, field_arg.eval.space_arg, s.element_index, 0)]
            for n in range(1, wp.static(nodes)):
                g += weight_grad(s.element_coords, n) * field_arg.eval.dof_values[
                    node_index(cell_arg, field_arg.eval.space_arg, s.element_index, n)]
            return g * inv_grad(cell_arg, s)

        div = None
    else:
        @wp.func
        def grad(field_arg: Any, s: Any):
            cell_arg = field_arg.geo
            g = wp.outer(field_arg.eval.dof_values[node_index(cell_arg, field_arg.eval.space_arg, s.element_index, 0)],
                         weight_grad(s.element_coords, 0))
            for n in range(1, wp.static(nodes)):
                g += wp.outer(field_arg.eval.dof_values[node_index(cell_arg, field_arg.eval.space_arg, s.element_index, n)],
                              weight_grad(s.element_coords, n))
            return g * inv_grad(cell_arg, s)

        @wp.func
        def div(field_arg: Any, s: Any):
            return wp.trace(grad(field_arg, s))

    cached = _DISCRETE_FUNCS[space] = (value, grad, div)
    return cached


_NODE_FUNCS: dict = {}
_DISCRETE_FUNCS: dict = {}


def on_inner_cell(cell_fn, geometry, bound_cell_struct):
    """`cell_fn` (field_arg bound to cells, s) as a function of a field bound to sides: the side
    sample is carried to the side's inner cell (index, coordinates, cell arguments) first. A
    boundary side's inner cell is its only cell."""
    key = (cell_fn, geometry, bound_cell_struct)
    cached = _SIDE_FUNCS.get(key)
    if cached is not None:
        return cached
    from ..types import Sample
    inner_index, inner_coords, to_cell_arg = geometry.side_inner_cell_index, geometry.side_inner_cell_coords, \
        geometry.side_to_cell_arg

    @wp.func
    def on_side(field_arg: Any, s: Any):
        side_arg = field_arg.geo
        cell_s = Sample(inner_index(side_arg, s.element_index),
                        inner_coords(side_arg, s.element_index, s.element_coords),
                        s.qp_index, s.qp_weight, s.test_dof, s.trial_dof)
        cell_field = bound_cell_struct()
        cell_field.geo = to_cell_arg(side_arg)
        cell_field.eval = field_arg.eval
        return cell_fn(cell_field, cell_s)

    cached = _SIDE_FUNCS[key] = on_side
    return cached


def side_node_index(node_index, geometry):
    """A space's element_node_index(cell_arg, space_arg, cell, node) as a function of a side: the
    nodes of a side are those of its inner cell."""
    key = (node_index, geometry)
    cached = _SIDE_FUNCS.get(key)
    if cached is not None:
        return cached
    inner_index, to_cell_arg = geometry.side_inner_cell_index, geometry.side_to_cell_arg

    @wp.func
    def side_node(side_arg: Any, space_arg: Any, side_index: int, node: int):
        return node_index(to_cell_arg(side_arg), space_arg, inner_index(side_arg, side_index), node)

    cached = _SIDE_FUNCS[key] = side_node
    return cached


_SIDE_FUNCS: dict = {}
