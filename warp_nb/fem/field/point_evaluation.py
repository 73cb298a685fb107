"""How a field of a point-basis space (space/point_basis.py) is evaluated at a sample of a cell:
evaluation.py's device functions for shapes whose nodes differ per element. Their weights and
gradients take (element arguments, space argument, sample, node) and their gradients are already
in world coordinates; a node slot past the element's point count weighs nothing (test and trial
fields) or is skipped (discrete fields, whose node index there is NULL_NODE_INDEX)."""

from __future__ import annotations

from typing import Any

import warp_nb as wp

from ... import types as T
from ..types import NULL_NODE_INDEX
from .evaluation import _derived, _kind, _unit


def point_node_functions(space, dof_slot: int) -> dict:
    """A test (dof_slot 0) or trial (1) dof's basis function, as evaluation.node_functions."""
    key = (space, dof_slot)
    cached = _NODE_FUNCS.get(key)
    if cached is not None:
        return cached
    weight, weight_grad = space.element_inner_weight, space.element_inner_weight_gradient
    kind = _kind(space.dtype)

    # as evaluation.node_functions: a sample without a dof of this slot (node -1) gets 0, the node
    # clamped so that the kernel reads a real point
    @wp.func
    def dof_of(s: Any):
        d = s.test_dof if wp.static(dof_slot == 0) else s.trial_dof
        return wp.vec2i(wp.max(d[0], 0), wp.max(d[1], 0))

    @wp.func
    def live(s: Any):
        d = s.test_dof if wp.static(dof_slot == 0) else s.trial_dof
        return wp.where(d[0] < 0, 0.0, 1.0)

    @wp.func
    def node_weight(field_arg: Any, s: Any, n: int):
        return weight(field_arg.geo, field_arg.eval.space_arg, s, n) * live(s)

    @wp.func
    def node_grad(field_arg: Any, s: Any, n: int):
        return weight_grad(field_arg.geo, field_arg.eval.space_arg, s, n) * live(s)

    funcs = {"eval_grad_inner": None, "eval_div_inner": None}
    if kind == "scalar":
        @wp.func
        def value(field_arg: Any, s: Any):
            return node_weight(field_arg, s, dof_of(s)[0])

        @wp.func
        def grad(field_arg: Any, s: Any):
            return node_grad(field_arg, s, dof_of(s)[0])

        funcs["eval_grad_inner"] = grad
    else:
        unit = _unit(space.dtype)

        @wp.func
        def value(field_arg: Any, s: Any):
            d = dof_of(s)
            return node_weight(field_arg, s, d[0]) * unit(d[1])

        if kind == "vector":
            @wp.func
            def grad(field_arg: Any, s: Any):
                d = dof_of(s)
                return wp.outer(unit(d[1]), node_grad(field_arg, s, d[0]))

            @wp.func
            def div(field_arg: Any, s: Any):
                d = dof_of(s)
                return node_grad(field_arg, s, d[0])[d[1]]

            funcs["eval_grad_inner"] = grad
        else:
            cols = space.dtype._shape_[1]
            col_unit = _unit(T.vector(length=cols, dtype=T.type_scalar_type(space.dtype)))

            @wp.func
            def div(field_arg: Any, s: Any):
                d = dof_of(s)
                return node_grad(field_arg, s, d[0])[d[1] // cols] * col_unit(d[1] % cols)

        funcs["eval_div_inner"] = div
    funcs["eval_inner"] = value
    cached = _NODE_FUNCS[key] = _derived(funcs, kind, space.geometry.dimension)
    return cached


def point_discrete_functions(space) -> dict:
    """A discrete field's value, gradient and divergence, as evaluation.discrete_functions."""
    cached = _DISCRETE_FUNCS.get(space)
    if cached is not None:
        return cached
    weight, weight_grad, node_index = space.element_inner_weight, space.element_inner_weight_gradient, \
        space.element_node_index
    nodes, dtype, kind = space.NODES_PER_ELEMENT, space.dtype, _kind(space.dtype)
    grad_t = T.vector(length=space.geometry.dimension, dtype=T.float32)
    zero_value = _zero(dtype)

    @wp.func
    def value(field_arg: Any, s: Any):
        v = zero_value()
        for n in range(wp.static(nodes)):
            i = node_index(field_arg.geo, field_arg.eval.space_arg, s.element_index, n)
            if i != NULL_NODE_INDEX:
                v += field_arg.eval.dof_values[i] * weight(field_arg.geo, field_arg.eval.space_arg, s, n)
        return v

    # f(s, n): the contribution of the element's node n alone
    @wp.func
    def value(field_arg: Any, s: Any, n: int):  # noqa: F811 (an overload)
        v = zero_value()
        i = node_index(field_arg.geo, field_arg.eval.space_arg, s.element_index, n)
        if i != NULL_NODE_INDEX:
            v = field_arg.eval.dof_values[i] * weight(field_arg.geo, field_arg.eval.space_arg, s, n)
        return v

    funcs = {"eval_inner": value, "eval_grad_inner": None, "eval_div_inner": None}
    if kind == "scalar":
        @wp.func
        def grad(field_arg: Any, s: Any):
            g = grad_t()
            for n in range(wp.static(nodes)):
                i = node_index(field_arg.geo, field_arg.eval.space_arg, s.element_index, n)
                if i != NULL_NODE_INDEX:
                    g += weight_grad(field_arg.geo, field_arg.eval.space_arg, s, n) * field_arg.eval.dof_values[i]
            return g

        funcs["eval_grad_inner"] = grad
    elif kind == "vector":
        grad_m = T.matrix(shape=(T.type_length(dtype), space.geometry.dimension), dtype=T.float32)

        @wp.func
        def grad(field_arg: Any, s: Any):
            g = grad_m()
            for n in range(wp.static(nodes)):
                i = node_index(field_arg.geo, field_arg.eval.space_arg, s.element_index, n)
                if i != NULL_NODE_INDEX:
                    g += wp.outer(field_arg.eval.dof_values[i], weight_grad(field_arg.geo, field_arg.eval.space_arg,
                                                                            s, n))
            return g

        @wp.func
        def div(field_arg: Any, s: Any):
            return wp.trace(grad(field_arg, s))

        funcs["eval_grad_inner"], funcs["eval_div_inner"] = grad, div
    cached = _DISCRETE_FUNCS[space] = _derived(funcs, kind, space.geometry.dimension)
    return cached


def _zero(dtype):
    if T.type_is_vector(dtype) or T.type_is_matrix(dtype):
        return dtype

    @wp.func
    def zero_scalar():
        return dtype(0.0)

    return zero_scalar


_NODE_FUNCS: dict = {}
_DISCRETE_FUNCS: dict = {}
