"""Function spaces of vector-valued shape functions: Nedelec (first kind, H(curl)) and
Raviart-Thomas (H(div)), lowest order, on grids, meshes and deformed geometries.

A node holds one scalar dof (`dof_dtype` is the scalar type); the field's value is a vector of the
cell's dimension (`dtype`). The reference basis function of a node, times the node's orientation
sign (oriented_topology.py), is carried to world space by a Piola map of the cell's deformation
gradient F, which keeps what the dof measures:
- covariant (Nedelec): u = F^-T v, so that circulations along edges are kept;
- contravariant (Raviart-Thomas): u = F v / det F, so that fluxes through sides are kept.
Interpolating a value u at a node gives its dof by the node's reference dual vector D_k (the edge
vector or the side's area-weighted normal): sign * (F D_k) . u, or sign * det F (F^-1 u) . D_k.
The device functions fields evaluate these spaces with are in field/piola_evaluation.py."""

from __future__ import annotations

from typing import Any

import numpy as np

import warp_nb as wp

from ... import types as T
from .function_space import FunctionSpace
from .oriented_topology import OrientedEntityTopology


class _PiolaFunctionSpace(FunctionSpace):
    """A space of a vector shape on an oriented topology (see the module's docstring)."""

    piola: str

    def __init__(self, topology: OrientedEntityTopology, shape, dtype=None):
        geo = topology.geometry
        dim = len(topology.reference.dual[0])
        if geo.dimension != dim:
            raise NotImplementedError(f"make_polynomial_space: Nedelec and Raviart-Thomas spaces on {geo.name}, whose "
                                      f"{dim}-D cells lie in {geo.dimension}-D space, are not supported by warp_nb.fem "
                                      "yet")
        scalar = shape.scalar_type
        if dtype is not None and T.type_is_vector(dtype):
            scalar = T.type_scalar_type(dtype)
        super().__init__(topology, shape, T.vector(length=dim, dtype=scalar))
        self.dof_dtype = scalar
        self.NODE_DOF_COUNT, self.VALUE_DOF_COUNT = 1, dim
        self.element_node_sign = topology.element_node_sign
        dual_t = T.matrix(shape=(shape.NODES_PER_ELEMENT, dim), dtype=scalar)
        vec_t = self.dtype
        DUAL = dual_t(*np.asarray(topology.reference.dual, np.float64).reshape(-1).tolist())

        @wp.func
        def node_dual_vector(node: int):
            v = vec_t()
            for c in range(dim):
                v[c] = DUAL[node, c]
            return v

        self.node_dual_vector = node_dual_vector
        self.node_dof_from_value = self._make_dof_from_value()

    def _make_dof_from_value(self):
        raise NotImplementedError


class CovariantFunctionSpace(_PiolaFunctionSpace):
    """Nedelec (H(curl)): u = F^-T v."""

    piola = "covariant"

    def _make_dof_from_value(self):
        deformation, dual, sign = self.geometry.cell_deformation_gradient, self.node_dual_vector, \
            self.element_node_sign

        @wp.func
        def covariant_dof(cell_arg: Any, space_arg: Any, s: Any, node: int, value: Any):
            edge = deformation(cell_arg, s) * dual(node)
            return sign(space_arg, s.element_index, node) * wp.dot(edge, value)

        return covariant_dof


class ContravariantFunctionSpace(_PiolaFunctionSpace):
    """Raviart-Thomas (H(div)): u = F v / det F."""

    piola = "contravariant"

    def _make_dof_from_value(self):
        geo = self.geometry
        deformation, inverse = geo.cell_deformation_gradient, geo.cell_inverse_deformation_gradient
        dual, sign = self.node_dual_vector, self.element_node_sign

        @wp.func
        def contravariant_dof(cell_arg: Any, space_arg: Any, s: Any, node: int, value: Any):
            ref = inverse(cell_arg, s) * value
            flux = wp.determinant(deformation(cell_arg, s)) * wp.dot(ref, dual(node))
            return sign(space_arg, s.element_index, node) * flux

        return contravariant_dof


def _make_piola_space(basis_space, cls, value, who: str, dtype=None) -> _PiolaFunctionSpace:
    from .basis_space import BasisSpace
    if not isinstance(basis_space, BasisSpace):
        raise TypeError(f"{who}: `basis_space` must be a basis space (make_polynomial_basis_space), got "
                        f"{type(basis_space).__name__}")
    shape = basis_space.shape
    if getattr(shape, "value", None) != value:
        kind = "covariant" if value == type(shape).Value.CovariantVector else "contravariant"
        raise ValueError(f"{kind.capitalize()} function spaces may only be constructed from {kind} vector-valued "
                         f"basis (got {shape.name})")
    if not isinstance(basis_space.topology, OrientedEntityTopology):
        raise NotImplementedError(f"{who}: {shape.name} nodes on a {type(basis_space.topology).__name__} "
                                  "(discontinuous Nedelec / Raviart-Thomas spaces) are not supported by warp_nb.fem "
                                  "yet; their continuous topology is")
    return cls(basis_space.topology, shape, dtype)


def make_covariant_function_space(basis_space, dtype=None) -> CovariantFunctionSpace:
    """The space of covariant vectors (H(curl), u = F^-T v) of a Nedelec basis space."""
    from .shape import ShapeFunction
    return _make_piola_space(basis_space, CovariantFunctionSpace, ShapeFunction.Value.CovariantVector,
                             "make_covariant_function_space", dtype)


def make_contravariant_function_space(basis_space, dtype=None) -> ContravariantFunctionSpace:
    """The space of contravariant vectors (H(div), u = F v / det F) of a Raviart-Thomas basis space."""
    from .shape import ShapeFunction
    return _make_piola_space(basis_space, ContravariantFunctionSpace, ShapeFunction.Value.ContravariantVector,
                             "make_contravariant_function_space", dtype)
