"""The device functions of `fem.node_inner_weight`, `node_outer_weight` and their `_gradient`s: the
shape weight of one element node of a field's space at a sample (its basis function before any
value type, dof mapper or Piola map: a scalar, or the reference vector of a Nedelec / Raviart-Thomas
node, with the node's orientation sign), and that weight's gradient in world coordinates
(`ref_grad * F^-1`, F the cell's deformation gradient; for a vector weight the gradient is the matrix
of its components' gradients).

Which node: a discrete field names it (`node_inner_weight(f, s, k)`); a test or trial field uses the
node of its dof in the sample (`node_inner_weight(v, s)`), as its value does, and weighs nothing at a
sample without one. Built per space and domain, with the numbering warp-lang uses (probed):
- on cells, inner and outer are the same;
- on sides, an element has the nodes of its inner cell (0..npe-1) then those of its outer cell
  (npe..2 npe-1): the inner weight of an outer-cell node is zero, and the reverse. A boundary side's
  outer cell is its inner cell. Test and trial fields on a domain of boundary sides have the inner
  cell's nodes only (as fields.BoundField numbers them), whose inner and outer weights are the same.
A node index past the element's nodes weighs zero (warp-lang reads past its tables there)."""

from __future__ import annotations

from typing import Any

import warp_nb as wp

from ..types import ElementKind
from .evaluation import on_side

#: the BoundField attribute of each operator (operator.py names them)
NAMES = ("eval_node_inner_weight", "eval_node_inner_weight_gradient", "eval_node_outer_weight",
         "eval_node_outer_weight_gradient")


def _cell_weights(space):
    """(weight, world gradient) as functions (field_arg bound to cells, s, node)."""
    key = ("cell", space)
    cached = _FUNCS.get(key)
    if cached is not None:
        return cached
    weight, weight_grad = space.element_inner_weight, space.element_inner_weight_gradient
    scalar = space.geometry.scalar_type
    if getattr(space.shape, "NODES_FROM_ARG", False):  # a point basis: its own arguments, gradients in world space
        count = space.topology.element_node_count

        @wp.func
        def live_node(field_arg: Any, s: Any, n: int):
            return n >= 0 and n < count(field_arg.geo, field_arg.eval.space_arg, s.element_index)

        # (node_index_in_elt: Warp's keyword for the node)
        @wp.func
        def cell_weight(field_arg: Any, s: Any, node_index_in_elt: int):
            live = live_node(field_arg, s, node_index_in_elt)
            w = weight(field_arg.geo, field_arg.eval.space_arg, s, wp.where(live, node_index_in_elt, 0))
            return w * wp.where(live, scalar(1.0), scalar(0.0))

        @wp.func
        def cell_weight_grad(field_arg: Any, s: Any, node_index_in_elt: int):
            live = live_node(field_arg, s, node_index_in_elt)
            g = weight_grad(field_arg.geo, field_arg.eval.space_arg, s, wp.where(live, node_index_in_elt, 0))
            return g * wp.where(live, scalar(1.0), scalar(0.0))
    else:
        nodes, inv_grad = space.NODES_PER_ELEMENT, space.geometry.cell_inverse_deformation_gradient
        # a Nedelec / Raviart-Thomas node's weight is its basis function as the cell sees the node's global
        # direction: the reference vector times the (cell, node) orientation sign (warp-lang's, probed on meshes)
        sign = getattr(space, "element_node_sign", None)
        oriented = sign is not None
        if not oriented:
            sign = _no_sign

        @wp.func
        def factor(field_arg: Any, s: Any, n: int):
            live = n >= 0 and n < wp.static(nodes)
            f = wp.where(live, scalar(1.0), scalar(0.0))
            if wp.static(oriented):
                f = f * scalar(sign(field_arg.eval.space_arg, s.element_index, wp.where(live, n, 0)))
            return f

        @wp.func
        def cell_weight(field_arg: Any, s: Any, node_index_in_elt: int):
            n = node_index_in_elt
            return weight(s.element_coords, wp.clamp(n, 0, wp.static(nodes) - 1)) * factor(field_arg, s, n)

        @wp.func
        def cell_weight_grad(field_arg: Any, s: Any, node_index_in_elt: int):
            n = node_index_in_elt
            g = weight_grad(s.element_coords, wp.clamp(n, 0, wp.static(nodes) - 1)) * inv_grad(field_arg.geo, s)
            return g * factor(field_arg, s, n)

    cached = _FUNCS[key] = (cell_weight, cell_weight_grad)
    return cached


@wp.func
def _no_sign(space_arg: Any, element_index: int, node: int):
    return 1.0


def _own_node(cell_fn, slot: int):
    """cell_fn at the node of the sample's test (slot 0) or trial (1) dof: (field_arg, s)."""
    key = ("own", cell_fn, slot)
    cached = _FUNCS.get(key)
    if cached is None:
        @wp.func
        def own(field_arg: Any, s: Any):
            return cell_fn(field_arg, s, s.test_dof[0] if wp.static(slot == 0) else s.trial_dof[0])

        cached = _FUNCS[key] = own
    return cached


def _on_side_node(cell_fn, geometry, cell_struct, outer: bool, npe: int):
    """cell_fn(field_arg, s, k) of a discrete field bound to sides: node k < npe of the inner cell,
    npe <= k < 2 npe of the outer cell; the other cell's nodes weigh zero."""
    key = ("side", cell_fn, geometry, cell_struct, outer, npe)
    cached = _FUNCS.get(key)
    if cached is not None:
        return cached
    if outer:
        cell_index, cell_coords = geometry.side_outer_cell_index, geometry.side_outer_cell_coords
    else:
        cell_index, cell_coords = geometry.side_inner_cell_index, geometry.side_inner_cell_coords
    to_cell_arg, Sample, scalar = geometry.side_to_cell_arg, geometry.sample_type, geometry.scalar_type
    first = npe if outer else 0

    @wp.func
    def side_fn(field_arg: Any, s: Any, node_index_in_elt: int):
        local = node_index_in_elt - wp.static(first)
        live = local >= 0 and local < wp.static(npe)
        side_arg = field_arg.geo
        cell_s = Sample(cell_index(side_arg, s.element_index), cell_coords(side_arg, s.element_index, s.element_coords),
                        s.qp_index, s.qp_weight, s.test_dof, s.trial_dof)
        cell_field = cell_struct()
        cell_field.geo = to_cell_arg(side_arg)
        cell_field.eval = field_arg.eval
        return cell_fn(cell_field, cell_s, wp.where(live, local, 0)) * wp.where(live, scalar(1.0), scalar(0.0))

    cached = _FUNCS[key] = side_fn
    return cached


def node_weight_functions(bound) -> dict:
    """The four operators' device functions for a field of a space bound to a domain (fields.BoundField):
    (field_arg, s, k) for a discrete field, (field_arg, s) for a test or trial field."""
    from .fields import bound_field_struct
    space, domain, field = bound.space, bound.domain, bound.field
    slot = getattr(field, "SLOT", None)
    weight, weight_grad = _cell_weights(space)
    if domain.element_kind == ElementKind.CELL:
        if slot is not None:
            weight, weight_grad = _own_node(weight, slot), _own_node(weight_grad, slot)
        return dict(zip(NAMES, (weight, weight_grad, weight, weight_grad)))
    if getattr(space.shape, "NODES_FROM_ARG", False):
        raise NotImplementedError("the nodes of a fem.PointBasisSpace lie in cells; their weights on sides are not "
                                  "supported by warp_nb.fem")
    from ..domain import BoundarySides
    geo, npe = domain.geometry, space.NODES_PER_ELEMENT
    cell_struct = bound_field_struct(geo.CellArg, field.EvalArg)
    functions = {}
    for name, fn in (("eval_node_{}_weight", weight), ("eval_node_{}_weight_gradient", weight_grad)):
        if slot is None:
            inner = _on_side_node(fn, geo, cell_struct, False, npe)
            outer = _on_side_node(fn, geo, cell_struct, True, npe)
        else:  # on_side renumbers the dof's node into the cell it belongs to, as for the field's value
            own = _own_node(fn, slot)
            inner = on_side(own, geo, cell_struct, False, slot, npe)
            two_sided = not isinstance(domain, BoundarySides)
            outer = on_side(own, geo, cell_struct, True, slot, npe) if two_sided else inner
        functions[name.format("inner")], functions[name.format("outer")] = inner, outer
    return functions


_FUNCS: dict = {}
