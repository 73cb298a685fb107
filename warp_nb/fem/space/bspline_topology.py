"""Nodes of B-spline spaces on grids: the control points of the uniform B-splines of the grid's
cells, one lattice of them over the whole grid.

A cell's B-spline shape (shape/bspline_shape_function.py) has NODES_PER_DIM nodes per axis, centred
on the integers -PADDING .. NODES_PER_DIM - 1 - PADDING of the cell's coordinates; cell c's local
node k along an axis is the grid's lattice node c + k, so an axis of n cells has n + NODES_PER_DIM - 1
lattice nodes (padding nodes lie outside the grid, as in Warp, whose node positions are the same).
Nodes are numbered x slowest, the last axis fastest, as the grid numbers its cells."""

from __future__ import annotations

from typing import Any

from ...program.func import func
from ...types import int32, vec2i, vec3i
from ...types.structs import struct
from .topology import SpaceTopology


@struct
class BSplineLatticeArg2D:
    res: vec2i  # cells per axis
    nodes_per_dim: int32


@struct
class BSplineLatticeArg3D:
    res: vec3i
    nodes_per_dim: int32


@func
def _bspline_node_2d(cell_arg: Any, topo_arg: BSplineLatticeArg2D, cell_index: int32, node: int32):
    k = topo_arg.nodes_per_dim
    ny = topo_arg.res[1]
    cx = cell_index // ny
    cy = cell_index - cx * ny
    i = node // k
    j = node - i * k
    return (cx + i) * (ny + k - 1) + cy + j


@func
def _bspline_node_3d(cell_arg: Any, topo_arg: BSplineLatticeArg3D, cell_index: int32, node: int32):
    k = topo_arg.nodes_per_dim
    ny = topo_arg.res[1]
    nz = topo_arg.res[2]
    cx = cell_index // (ny * nz)
    rest = cell_index - cx * ny * nz
    cy = rest // nz
    cz = rest - cy * nz
    i = node // (k * k)
    rest_n = node - i * k * k
    j = rest_n // k
    m = rest_n - j * k
    return ((cx + i) * (ny + k - 1) + cy + j) * (nz + k - 1) + cz + m


class GridBSplineTopology(SpaceTopology):
    """The control-point lattice of a B-spline `shape` on a Grid2D or Grid3D."""

    def __init__(self, geometry, shape):
        self.res = tuple(int(r) for r in geometry.res)
        self.nodes_per_dim = shape.NODES_PER_DIM
        super().__init__(geometry, shape.NODES_PER_ELEMENT)
        if len(self.res) == 2:
            self.TopologyArg, self.element_node_index = BSplineLatticeArg2D, _bspline_node_2d
        else:
            self.TopologyArg, self.element_node_index = BSplineLatticeArg3D, _bspline_node_3d

    def node_count(self) -> int:
        count = 1
        for r in self.res:
            count *= r + self.nodes_per_dim - 1
        return count

    def topo_arg_value(self, device):
        arg = self.TopologyArg()
        arg.res = (vec2i if len(self.res) == 2 else vec3i)(*self.res)
        arg.nodes_per_dim = self.nodes_per_dim
        return arg
