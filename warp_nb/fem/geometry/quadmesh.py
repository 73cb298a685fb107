"""`warp.fem.Quadmesh2D` / `Quadmesh3D`: unstructured quadrilateral meshes in the plane and in space.

A quad's vertices are listed counter-clockwise and sit at the reference corners (0,0), (1,0), (1,1),
(0,1); positions are bilinear in the cell coordinates (u, v). Sides are edges, numbered by
mesh_topology.build_sides from the local edges (v0 v1), (v1 v2), (v2 v3), (v3 v0); an edge's
coordinate t = coords[0] runs from its first vertex to its second. In the plane an edge is oriented
so that its normal `(F.y, -F.x)` leaves its inner quad; in space it keeps its inner quad's winding
and has no normal. Warp's conventions, checked against warp-lang."""

import functools

import warp_nb as wp

from ..types import Sample
from .element import Element
from .environments import MeshEnvironments
from .geometry import OUTSIDE, Geometry
from .mesh_lookup import MeshLookup, make_cell_lookup, make_newton_coordinates
from .mesh_topology import build_sides, check_mesh_options, check_vertex_indices, mesh_positions, orient_edges_outwards

_QUAD_EDGES = [(0, 1), (1, 2), (2, 3), (3, 0)]


@wp.func
def _quad_corner(k: int):
    # the reference coordinates of local vertex k
    if k == 1:
        return wp.vec2(1.0, 0.0)
    if k == 2:
        return wp.vec2(1.0, 1.0)
    if k == 3:
        return wp.vec2(0.0, 1.0)
    return wp.vec2(0.0, 0.0)


@functools.cache
def quadmesh_device_types(dim: int) -> dict:
    """The argument structs and device functions of a quad mesh in `dim` dimensions."""
    vec = wp.types.vector(dim, wp.float32)

    @wp.struct
    class QuadmeshCellArg:
        quad_vertex_indices: wp.array2d(dtype=int)
        positions: wp.array(dtype=vec)
        bvh: wp.uint64
        cell_env: wp.array(dtype=int)  # empty: one environment

    @wp.struct
    class QuadmeshSideArg:
        cell_arg: QuadmeshCellArg
        edge_vertex_indices: wp.array(dtype=wp.vec2i)
        edge_quad_indices: wp.array(dtype=wp.vec2i)

    @wp.struct
    class QuadmeshSideIndexArg:
        boundary_edge_indices: wp.array(dtype=int)

    @wp.func
    def _vertex(args: QuadmeshCellArg, quad: int, k: int):
        return args.positions[args.quad_vertex_indices[quad, k]]

    @wp.func
    def _local_index(args: QuadmeshCellArg, quad: int, vertex: int):
        local = int(0)
        for k in range(4):
            if args.quad_vertex_indices[quad, k] == vertex:
                local = k
        return local

    @wp.func
    def cell_position(args: QuadmeshCellArg, s: Sample):
        u = s.element_coords[0]
        v = s.element_coords[1]
        i = s.element_index
        return ((1.0 - u) * (1.0 - v) * _vertex(args, i, 0) + u * (1.0 - v) * _vertex(args, i, 1)
                + u * v * _vertex(args, i, 2) + (1.0 - u) * v * _vertex(args, i, 3))

    @wp.func
    def cell_deformation_gradient(args: QuadmeshCellArg, s: Sample):
        u = s.element_coords[0]
        v = s.element_coords[1]
        i = s.element_index
        p0 = _vertex(args, i, 0)
        p1 = _vertex(args, i, 1)
        p2 = _vertex(args, i, 2)
        p3 = _vertex(args, i, 3)
        return wp.matrix_from_cols((1.0 - v) * (p1 - p0) + v * (p2 - p3), (1.0 - u) * (p3 - p0) + u * (p2 - p1))

    closest_coords = make_newton_coordinates(cell_position, cell_deformation_gradient, 2, clamp=True)

    @wp.func
    def cell_closest_point(args: QuadmeshCellArg, cell_index: int, pos: vec):
        s = Sample()
        s.element_index = cell_index
        s.element_coords = closest_coords(args, cell_index, pos)
        return s.element_coords, wp.length_sq(cell_position(args, s) - pos)

    @wp.func
    def cell_count(args: QuadmeshCellArg):
        return args.quad_vertex_indices.shape[0]

    @wp.func
    def side_position(args: QuadmeshSideArg, s: Sample):
        e = args.edge_vertex_indices[s.element_index]
        t = s.element_coords[0]
        return (1.0 - t) * args.cell_arg.positions[e[0]] + t * args.cell_arg.positions[e[1]]

    @wp.func
    def side_deformation_gradient(args: QuadmeshSideArg, s: Sample):
        e = args.edge_vertex_indices[s.element_index]
        return args.cell_arg.positions[e[1]] - args.cell_arg.positions[e[0]]

    @wp.func
    def side_inner_cell_index(args: QuadmeshSideArg, side_index: int):
        return args.edge_quad_indices[side_index][0]

    @wp.func
    def side_outer_cell_index(args: QuadmeshSideArg, side_index: int):
        return args.edge_quad_indices[side_index][1]

    @wp.func
    def _edge_to_quad_coords(args: QuadmeshSideArg, side_index: int, quad: int, side_coords: wp.vec3):
        e = args.edge_vertex_indices[side_index]
        t = side_coords[0]
        uv = (1.0 - t) * _quad_corner(_local_index(args.cell_arg, quad, e[0])) + t * _quad_corner(
            _local_index(args.cell_arg, quad, e[1]))
        return wp.vec3(uv[0], uv[1], 0.0)

    @wp.func
    def side_inner_cell_coords(args: QuadmeshSideArg, side_index: int, side_coords: wp.vec3):
        return _edge_to_quad_coords(args, side_index, args.edge_quad_indices[side_index][0], side_coords)

    @wp.func
    def side_outer_cell_coords(args: QuadmeshSideArg, side_index: int, side_coords: wp.vec3):
        return _edge_to_quad_coords(args, side_index, args.edge_quad_indices[side_index][1], side_coords)

    @wp.func
    def side_from_cell_coords(args: QuadmeshSideArg, side_index: int, element_index: int, element_coords: wp.vec3):
        # the edge coordinate of a quad point, OUTSIDE unless the point is on this edge of that quad
        quads = args.edge_quad_indices[side_index]
        if element_index == quads[0] or element_index == quads[1]:
            e = args.edge_vertex_indices[side_index]
            a = _quad_corner(_local_index(args.cell_arg, element_index, e[0]))
            b = _quad_corner(_local_index(args.cell_arg, element_index, e[1]))
            # the edge keeps one reference coordinate fixed and runs along the other
            fixed = 0
            if a[1] == b[1]:
                fixed = 1
            along = 1 - fixed
            if element_coords[fixed] == a[fixed]:
                t = element_coords[along]
                if a[along] > b[along]:
                    t = 1.0 - t
                return wp.vec3(t, 0.0, 0.0)
        return wp.vec3(OUTSIDE)

    @wp.func
    def side_to_cell_arg(side_arg: QuadmeshSideArg):
        return side_arg.cell_arg

    @wp.func
    def boundary_side_index(args: QuadmeshSideIndexArg, boundary_side_index: int):
        return args.boundary_edge_indices[boundary_side_index]

    return dict(
        CellArg=QuadmeshCellArg, SideArg=QuadmeshSideArg, SideIndexArg=QuadmeshSideIndexArg,
        cell_position=cell_position, cell_deformation_gradient=cell_deformation_gradient,
        cell_closest_point=cell_closest_point,
        cell_coordinates=make_newton_coordinates(cell_position, cell_deformation_gradient, 2, clamp=False),
        cell_lookup=make_cell_lookup(cell_closest_point, cell_count), cell_count_in_args=cell_count,
        side_position=side_position, side_deformation_gradient=side_deformation_gradient,
        side_inner_cell_index=side_inner_cell_index, side_outer_cell_index=side_outer_cell_index,
        side_inner_cell_coords=side_inner_cell_coords, side_outer_cell_coords=side_outer_cell_coords,
        side_from_cell_coords=side_from_cell_coords, side_to_cell_arg=side_to_cell_arg,
        boundary_side_index=boundary_side_index,
    )


class Quadmesh(MeshEnvironments, MeshLookup, Geometry):
    """Quadrilateral mesh geometry (base of Quadmesh2D and Quadmesh3D)."""

    cell_dimension = 2

    def __init__(self, quad_vertex_indices, positions, build_bvh: bool = False, temporary_store=None,
                 cell_env=None, env_count=None):
        name = type(self).__name__
        check_mesh_options(name, temporary_store, cell_env, env_count)
        self.positions = mesh_positions(name, positions, self.dimension)
        quads = check_vertex_indices("quad_vertex_indices", quad_vertex_indices, positions.shape[0], 4)
        device = positions.device
        self.quad_vertex_indices = wp.array(quads, dtype=int, device=device)
        edges, edge_quads, _local, boundary, _of_cell = build_sides(quads, _QUAD_EDGES)
        if self.dimension == 2:
            edges = orient_edges_outwards(edges, edge_quads, quads, positions.numpy())
        self.edge_vertex_indices = wp.array(edges, dtype=wp.vec2i, device=device)
        self.edge_quad_indices = wp.array(edge_quads, dtype=wp.vec2i, device=device)
        self._boundary_edge_indices = wp.array(boundary, dtype=int, device=device)
        self.set_environments(name, cell_env, env_count)
        self._make_default_dependent_implementations()
        if build_bvh:
            self.build_bvh(device)

    def cell_count(self) -> int:
        return self.quad_vertex_indices.shape[0]

    def vertex_count(self) -> int:
        return self.positions.shape[0]

    def side_count(self) -> int:
        return self.edge_vertex_indices.shape[0]

    def boundary_side_count(self) -> int:
        return self._boundary_edge_indices.shape[0]

    def reference_cell(self):
        return Element.SQUARE

    def reference_side(self):
        return Element.LINE_SEGMENT

    def _cell_vertex_array(self):
        return self.quad_vertex_indices

    def fill_cell_arg(self, args, device):
        args.quad_vertex_indices = self.quad_vertex_indices.to(device)
        args.positions = self.positions.to(device)
        args.bvh = wp.uint64(self.bvh_id(device))
        args.cell_env = self.cell_env_arg(device)

    def fill_side_arg(self, args, device):
        args.cell_arg = self.cell_arg_value(device)
        args.edge_vertex_indices = self.edge_vertex_indices.to(device)
        args.edge_quad_indices = self.edge_quad_indices.to(device)

    def fill_side_index_arg(self, args, device):
        args.boundary_edge_indices = self._boundary_edge_indices.to(device)


def _install(cls, dim):
    for name, value in quadmesh_device_types(dim).items():
        setattr(cls, name, value)
    return cls


@functools.partial(_install, dim=2)
class Quadmesh2D(Quadmesh):
    """Two-dimensional quadrilateral mesh geometry.

    Args:
        quad_vertex_indices: (n, 4) array of the vertex indices of each quad, counter-clockwise
        positions: array of the vertices' positions (wp.vec2)
        build_bvh: whether to build the structure cell lookups use
    """

    dimension = 2


@functools.partial(_install, dim=3)
class Quadmesh3D(Quadmesh):
    """Quadrilateral mesh of a surface in 3-D.

    Args:
        quad_vertex_indices: (n, 4) array of the vertex indices of each quad
        positions: array of the vertices' positions (wp.vec3)
        build_bvh: whether to build the structure cell lookups use
    """

    dimension = 3
