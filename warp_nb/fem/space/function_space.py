"""A function space: a topology (which global node each element node is) and a shape function
(the weight of each element node at a point of the element), for values of one dtype (a scalar,
a vector or a matrix, each component a degree of freedom of the node). Device functions the
fields call: `element_node_index` (the topology's), `element_inner_weight` and
`element_inner_weight_gradient` (the shape's, in reference coordinates).

With a dof mapper (space/dof_mapper.py) a node stores `dof_dtype` values (NODE_DOF_COUNT scalars)
that stand for values of `dtype` (VALUE_DOF_COUNT scalars): fields map each node's dofs to a value
with `dof_mapper.dof_to_value`, and interpolation maps values back with `value_to_dof`."""

from __future__ import annotations

import warp_nb as wp

from ... import types as T
from ...types import float32, vector
from ..types import make_free_sample, warp_type


class FunctionSpace:
    """Values of `dtype` interpolated from the nodes of `topology` by `shape`."""

    def __init__(self, topology, shape, dtype=float32, dof_mapper=None):
        dtype = T.float32 if dtype is None else warp_type(dtype)
        if dof_mapper is not None:
            dtype = dof_mapper.value_dtype  # as Warp: the mapper's value type wins
        if T.type_scalar_type(dtype) not in (T.float32, T.float64, T.float16):
            raise TypeError(f"a function space holds float scalars, vectors or matrices; got dtype {dtype!r}")
        self.topology = topology
        self.shape = shape
        topology._space_shape = shape  # a restriction made from the topology alone evaluates with it
        self.dtype = dtype
        self.dof_mapper = dof_mapper
        self.dof_dtype = dtype if dof_mapper is None else dof_mapper.dof_dtype
        self.geometry = topology.geometry
        self.VALUE_DOF_COUNT = _length(dtype)
        self.NODE_DOF_COUNT = _length(self.dof_dtype)
        self.NODES_PER_ELEMENT = topology.NODES_PER_ELEMENT
        self.degree = shape.ORDER
        self.element_node_index = topology.element_node_index
        self.element_inner_weight = shape.make_element_inner_weight()
        self.element_inner_weight_gradient = shape.make_element_inner_weight_gradient()
        self.node_coords_in_element = shape.make_node_coords_in_element()
        self._node_positions_kernel = None

    @property
    def name(self) -> str:
        mapped = "" if self.dof_mapper is None else f"_{self.dof_mapper}"
        return f"{self.topology.name}_{self.shape.name}_{T.type_name(self.dtype)}{mapped}"

    def __str__(self) -> str:
        return self.name

    @property
    def SpaceArg(self):
        return self.topology.TopologyArg

    def space_arg_value(self, device):
        return self.topology.topo_arg_value(device)

    def node_count(self) -> int:
        return self.topology.node_count()

    def make_field(self, space_partition=None):
        """A discrete field of this space, its node values zero."""
        from ..field.fields import DiscreteField
        return DiscreteField(self, space_partition)

    def node_positions(self, out=None, device=None):
        """World positions of the nodes, an array of the geometry's vector type."""
        if getattr(self.shape, "NODES_FROM_ARG", False):  # a point basis: its quadrature's points
            return self.shape.node_positions(self.topology.quadrature, out, device)
        geo = self.geometry
        vec = vector(length=geo.dimension, dtype=geo.scalar_type)
        if out is None:
            out = wp.zeros(shape=(self.node_count(),), dtype=vec, device=device)
        kernel = self._positions_kernel(vec)
        wp.launch(kernel, dim=(geo.cell_count(), self.NODES_PER_ELEMENT), device=out.device,
               inputs=[geo.cell_arg_value(out.device), self.space_arg_value(out.device), out])
        return out

    def _positions_kernel(self, vec):
        if self._node_positions_kernel is None:
            geo, node_index, node_coords = self.geometry, self.element_node_index, self.node_coords_in_element

            def fill_node_positions(cell_arg: geo.CellArg, space_arg: self.SpaceArg, out: wp.array(dtype=vec)):
                cell, n = wp.tid()
                s = make_free_sample(cell, node_coords(n))
                out[node_index(cell_arg, space_arg, cell, n)] = geo.cell_position(cell_arg, s)

            self._node_positions_kernel = wp.kernel(fill_node_positions, key=f"fem_node_positions_{self.name}")
        return self._node_positions_kernel


def _length(dtype) -> int:
    return T.type_length(dtype) if T.type_is_vector(dtype) or T.type_is_matrix(dtype) else 1
