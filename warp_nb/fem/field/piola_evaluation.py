"""How fields of Nedelec and Raviart-Thomas spaces (space/vector_space.py) are evaluated: the
reference basis functions, times each node's orientation sign, summed in reference space and then
carried to world space by the space's Piola map (F the cell's deformation gradient at the sample):

- covariant: u = F^-T v, grad u = F^-T (grad_ref v) F^-1;
- contravariant: u = F v / det F, grad u = F (grad_ref v) F^-1 / det F.
The gradients leave out the derivative of F itself (zero on affine cells); the divergence of a
contravariant field and the curl of a covariant one do not depend on it (trace(F G F^-1) = trace G,
and the skew part of F^-T G F^-1 is F^-T skew(G) F^-1), so those are exact on every cell. D and
curl come from the gradient as for other vector fields (evaluation._derived)."""

from __future__ import annotations

from typing import Any

import warp_nb as wp

from .evaluation import _derived


def _maps(space):
    """(to_world(field_arg, s, v), grad_to_world(field_arg, s, G)) of the space's Piola map."""
    geo = space.geometry
    deformation, inverse = geo.cell_deformation_gradient, geo.cell_inverse_deformation_gradient
    if space.piola == "covariant":
        @wp.func
        def to_world(field_arg: Any, s: Any, v: Any):
            return v * inverse(field_arg.geo, s)

        @wp.func
        def grad_to_world(field_arg: Any, s: Any, g: Any):
            f_inv = inverse(field_arg.geo, s)
            return wp.transpose(f_inv) * g * f_inv
    else:
        @wp.func
        def to_world(field_arg: Any, s: Any, v: Any):
            f = deformation(field_arg.geo, s)
            return (f * v) / wp.determinant(f)

        @wp.func
        def grad_to_world(field_arg: Any, s: Any, g: Any):
            f = deformation(field_arg.geo, s)
            return (f * g * inverse(field_arg.geo, s)) / wp.determinant(f)
    return to_world, grad_to_world


def piola_node_functions(space, dof_slot: int) -> dict:
    """value, grad, div, D, curl of the basis function of the test (dof_slot 0) or trial (1) dof."""
    key = (space, dof_slot)
    cached = _NODE_FUNCS.get(key)
    if cached is not None:
        return cached
    weight, weight_grad, sign = space.element_inner_weight, space.element_inner_weight_gradient, \
        space.element_node_sign
    to_world, grad_to_world = _maps(space)

    @wp.func
    def node_of(s: Any):
        return s.test_dof[0] if wp.static(dof_slot == 0) else s.trial_dof[0]

    # a sample without a dof (node -1: a lookup's, a free sample) sees a zero basis function, as in Warp
    @wp.func
    def signed(field_arg: Any, s: Any, n: int):
        if n < 0:
            return float(0.0)
        return sign(field_arg.eval.space_arg, s.element_index, n)

    @wp.func
    def value(field_arg: Any, s: Any):
        n = node_of(s)
        v = weight(s.element_coords, wp.max(n, 0)) * signed(field_arg, s, n)
        return to_world(field_arg, s, v)

    @wp.func
    def grad(field_arg: Any, s: Any):
        n = node_of(s)
        g = weight_grad(s.element_coords, wp.max(n, 0)) * signed(field_arg, s, n)
        return grad_to_world(field_arg, s, g)

    @wp.func
    def div(field_arg: Any, s: Any):
        return wp.trace(grad(field_arg, s))

    funcs = {"eval_inner": value, "eval_grad_inner": grad, "eval_div_inner": div}
    cached = _NODE_FUNCS[key] = _derived(funcs, "vector", space.geometry.dimension)
    return cached


def piola_discrete_functions(space) -> dict:
    """value, grad, div, D, curl of a discrete field of the space (EvalArg {space_arg, dof_values})."""
    cached = _DISCRETE_FUNCS.get(space)
    if cached is not None:
        return cached
    weight, weight_grad, sign = space.element_inner_weight, space.element_inner_weight_gradient, \
        space.element_node_sign
    node_index, nodes = space.element_node_index, space.NODES_PER_ELEMENT
    to_world, grad_to_world = _maps(space)

    @wp.func
    def coefficient(field_arg: Any, s: Any, n: int):
        space_arg = field_arg.eval.space_arg
        dof = field_arg.eval.dof_values[node_index(field_arg.geo, space_arg, s.element_index, n)]
        return dof * sign(space_arg, s.element_index, n)

    @wp.func
    def value(field_arg: Any, s: Any):
        v = weight(s.element_coords, 0) * coefficient(field_arg, s, 0)
        for n in range(1, wp.static(nodes)):
            v += weight(s.element_coords, n) * coefficient(field_arg, s, n)
        return to_world(field_arg, s, v)

    @wp.func
    def grad(field_arg: Any, s: Any):
        g = weight_grad(s.element_coords, 0) * coefficient(field_arg, s, 0)
        for n in range(1, wp.static(nodes)):
            g += weight_grad(s.element_coords, n) * coefficient(field_arg, s, n)
        return grad_to_world(field_arg, s, g)

    @wp.func
    def div(field_arg: Any, s: Any):
        return wp.trace(grad(field_arg, s))

    funcs = {"eval_inner": value, "eval_grad_inner": grad, "eval_div_inner": div}
    cached = _DISCRETE_FUNCS[space] = _derived(funcs, "vector", space.geometry.dimension)
    return cached


_NODE_FUNCS: dict = {}
_DISCRETE_FUNCS: dict = {}
