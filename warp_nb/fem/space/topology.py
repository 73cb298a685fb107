"""Space topologies: which global node each node of an element is. A topology has a
`TopologyArg` struct, `topo_arg_value(device)`, `node_count()`, `NODES_PER_ELEMENT` and the
device function `element_node_index(cell_arg, topo_arg, element_index, node_index_in_element)`.
The numbering is ours (Warp's is another valid one); for degree 1 both number a grid's or a
mesh's vertices as its geometry does.

- `GridLatticeTopology`: continuous nodes of degree p on a 2-D or 3-D grid are the points of the
  lattice refined p times; node (i, j[, k]) of the lattice is i*(ny*p+1)+j (and so on in 3-D),
  so degree 1 gives the grid's own vertex numbering.
- (meshes: mesh_topology.py, nodes keyed by the mesh entity they lie on)
- `DiscontinuousTopology`: every element owns its nodes (element * NODES_PER_ELEMENT + n)."""

from __future__ import annotations

from typing import Any

from ...program.func import func
from ...types import int32, vec2i, vec3i
from ...types.structs import struct


class SpaceTopology:
    """Base: the geometry and the nodes per element; subclasses give the numbering."""

    def __init__(self, geometry, nodes_per_element: int):
        self.geometry = geometry
        self.NODES_PER_ELEMENT = nodes_per_element

    @property
    def MAX_NODES_PER_ELEMENT(self) -> int:
        """Warp's name for the node slots of an element (a point basis's elements may use fewer)."""
        return self.NODES_PER_ELEMENT

    def node_count(self) -> int:
        raise NotImplementedError

    def topo_arg_value(self, device):
        raise NotImplementedError

    @property
    def name(self) -> str:
        return f"{type(self).__name__}_{self.NODES_PER_ELEMENT}"

    def rebuild(self):
        """Renumber the nodes after the geometry's topology was rebuilt (a rebuildable Nanogrid's);
        topologies that read their geometry's counts when asked have nothing to redo."""

    def element_node_indices(self, device=None):
        """(cell_count, NODES_PER_ELEMENT) int array: the global node of each node of each cell (what
        space partitions read on the host)."""
        from .element_nodes import element_node_indices
        return element_node_indices(self, device)


@struct
class GridLatticeArg2D:
    res: vec2i  # cells per axis
    degree: int32


@struct
class GridLatticeArg3D:
    res: vec3i
    degree: int32


@func
def _lattice_node_2d(cell_arg: Any, topo_arg: GridLatticeArg2D, cell_index: int32, node: int32):
    p = topo_arg.degree
    ny = topo_arg.res[1]
    cx = cell_index // ny
    cy = cell_index - cx * ny
    i = node // (p + 1)
    j = node - i * (p + 1)
    return (cx * p + i) * (ny * p + 1) + cy * p + j


@func
def _lattice_node_3d(cell_arg: Any, topo_arg: GridLatticeArg3D, cell_index: int32, node: int32):
    p = topo_arg.degree
    ny = topo_arg.res[1]
    nz = topo_arg.res[2]
    cx = cell_index // (ny * nz)
    rest = cell_index - cx * ny * nz
    cy = rest // nz
    cz = rest - cy * nz
    i = node // ((p + 1) * (p + 1))
    rest_n = node - i * (p + 1) * (p + 1)
    j = rest_n // (p + 1)
    k = rest_n - j * (p + 1)
    return ((cx * p + i) * (ny * p + 1) + cy * p + j) * (nz * p + 1) + cz * p + k


class GridLatticeTopology(SpaceTopology):
    """Continuous nodes of degree `degree` on a Grid2D or Grid3D (lexicographic nodes per cell,
    the last axis fastest, as the grid numbers its cells and vertices)."""

    def __init__(self, geometry, degree: int):
        self.res = tuple(int(r) for r in geometry.res)
        self.degree = degree
        super().__init__(geometry, (degree + 1) ** len(self.res))
        if len(self.res) == 2:
            self.TopologyArg, self.element_node_index = GridLatticeArg2D, _lattice_node_2d
        else:
            self.TopologyArg, self.element_node_index = GridLatticeArg3D, _lattice_node_3d

    def node_count(self) -> int:
        count = 1
        for r in self.res:
            count *= r * self.degree + 1
        return count

    def topo_arg_value(self, device):
        arg = self.TopologyArg()
        arg.res = (vec2i if len(self.res) == 2 else vec3i)(*self.res)
        arg.degree = self.degree
        return arg


class DiscontinuousTopology(SpaceTopology):
    """Every element owns its nodes: node n of element e is e * NODES_PER_ELEMENT + n."""

    @struct
    class TopologyArg:
        nodes_per_element: int32

    def node_count(self) -> int:
        return self.geometry.cell_count() * self.NODES_PER_ELEMENT

    def topo_arg_value(self, device):
        arg = self.TopologyArg()
        arg.nodes_per_element = self.NODES_PER_ELEMENT
        return arg

    @property
    def element_node_index(self):
        return _discontinuous_node_index


@func
def _discontinuous_node_index(cell_arg: Any, topo_arg: Any, element_index: int32, node: int32):
    return element_index * topo_arg.nodes_per_element + node
