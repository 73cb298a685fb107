"""Basis spaces: where a function space's nodes are and what weight each has in an element, without a
value type (Warp's `BasisSpace`). `ShapeBasisSpace` is the one made of a topology (which global node
each element node is: topology.py, element_topology.py) and a shape function of the reference element
(shape/): what `make_polynomial_basis_space` gives, and what `make_collocated_function_space` (scalar
shapes) or `make_covariant_function_space` / `make_contravariant_function_space` (Nedelec / Raviart-Thomas
shapes, vector_space.py) turn into function spaces. `PointBasisSpace` (point_basis.py) is the other kind."""

from __future__ import annotations

from .function_space import FunctionSpace


class BasisSpace:
    """A topology and the shape function of its nodes (warp_nb's basis spaces all have both)."""

    def __init__(self, topology, shape):
        self.topology, self.shape = topology, shape
        self.geometry = topology.geometry

    @property
    def name(self) -> str:
        return f"{self.topology.name}_{self.shape.name}"

    @property
    def value(self):
        """The shape's value kind (ShapeFunction.Value: scalar, covariant or contravariant vector)."""
        return self.shape.value

    @property
    def degree(self) -> int:
        return self.shape.ORDER

    def node_count(self) -> int:
        return self.topology.node_count()

    def node_positions(self, out=None):
        return FunctionSpace(self.topology, self.shape, self.geometry.scalar_type).node_positions(out)

    # the shape's device functions, as Warp's basis spaces give them (reference coordinates)
    def make_element_inner_weight(self):
        return self.shape.make_element_inner_weight()

    def make_element_inner_weight_gradient(self):
        return self.shape.make_element_inner_weight_gradient()

    def make_element_outer_weight(self):
        return self.shape.make_element_outer_weight()

    def make_element_outer_weight_gradient(self):
        return self.shape.make_element_outer_weight_gradient()

    def make_node_coords_in_element(self):
        return self.shape.make_node_coords_in_element()

    def make_node_quadrature_weight(self):
        return self.shape.make_node_quadrature_weight()


class ShapeBasisSpace(BasisSpace):
    """The basis space of `shape` on the nodes of `topology` (`ShapeBasisSpace(topology, shape)`). Unlike
    Warp, which takes any pair, the topology must number as many nodes per element as the shape has:
    another pair would read shape weights of nodes that are not there."""

    def __init__(self, topology, shape):
        from .shape import ShapeFunction
        from .topology import SpaceTopology
        if not isinstance(topology, SpaceTopology):
            raise TypeError(f"ShapeBasisSpace: `topology` must be a fem space topology, got {type(topology).__name__}")
        if not isinstance(shape, ShapeFunction):
            raise TypeError(f"ShapeBasisSpace: `shape` must be a fem shape function, got {type(shape).__name__}")
        if topology.NODES_PER_ELEMENT != shape.NODES_PER_ELEMENT:
            raise ValueError(f"ShapeBasisSpace: the topology {topology.name} has {topology.NODES_PER_ELEMENT} nodes "
                             f"per element, the shape {shape.name} {shape.NODES_PER_ELEMENT}")
        super().__init__(topology, shape)
