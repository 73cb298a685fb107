"""`warp.fem.Trimesh2D` / `Trimesh3D`: unstructured triangle meshes in the plane and in space.

Cells are triangles in barycentric coordinates (`position = c0 p0 + c1 p1 + c2 p2`), with
`F = [p1 - p0, p2 - p0]`. Sides are edges, numbered by mesh_topology.build_sides from the local edges
(v0 v1), (v1 v2), (v2 v0); an edge's coordinate t = coords[0] runs from its first vertex to its
second (`position = (1 - t) a + t b`). In the plane an edge is oriented so that its normal
`(F.y, -F.x)` leaves its inner triangle; in space it keeps its inner triangle's winding and has no
normal. All of this is Warp's convention, checked against warp-lang."""

import functools

import warp_nb as wp

from ..types import Sample
from .closest_point import project_on_tri_at_origin
from .element import Element
from .environments import MeshEnvironments
from .geometry import OUTSIDE, Geometry, _element_inverse
from .mesh_lookup import MeshLookup, make_cell_lookup
from .mesh_topology import build_sides, check_mesh_options, check_vertex_indices, mesh_positions, orient_edges_outwards

_TRI_EDGES = [(0, 1), (1, 2), (2, 0)]


@functools.cache
def trimesh_device_types(dim: int) -> dict:
    """The argument structs and device functions of a triangle mesh in `dim` dimensions (shared by
    every mesh of that dimension: the instance's data is in the arguments)."""
    vec = wp.types.vector(dim, wp.float32)

    @wp.struct
    class TrimeshCellArg:
        tri_vertex_indices: wp.array2d(dtype=int)
        positions: wp.array(dtype=vec)
        bvh: wp.uint64
        cell_env: wp.array(dtype=int)  # empty: one environment

    @wp.struct
    class TrimeshSideArg:
        cell_arg: TrimeshCellArg
        edge_vertex_indices: wp.array(dtype=wp.vec2i)
        edge_tri_indices: wp.array(dtype=wp.vec2i)

    @wp.struct
    class TrimeshSideIndexArg:
        boundary_edge_indices: wp.array(dtype=int)

    @wp.func
    def _vertex(args: TrimeshCellArg, tri: int, k: int):
        return args.positions[args.tri_vertex_indices[tri, k]]

    @wp.func
    def _local_index(args: TrimeshCellArg, tri: int, vertex: int):
        # the position of `vertex` in triangle `tri` (3 if it is not one of its vertices)
        local = int(3)
        for k in range(3):
            if args.tri_vertex_indices[tri, k] == vertex:
                local = k
        return local

    @wp.func
    def cell_position(args: TrimeshCellArg, s: Sample):
        c = s.element_coords
        i = s.element_index
        return c[0] * _vertex(args, i, 0) + c[1] * _vertex(args, i, 1) + c[2] * _vertex(args, i, 2)

    @wp.func
    def cell_deformation_gradient(args: TrimeshCellArg, s: Sample):
        p0 = _vertex(args, s.element_index, 0)
        return wp.matrix_from_cols(_vertex(args, s.element_index, 1) - p0, _vertex(args, s.element_index, 2) - p0)

    @wp.func
    def cell_closest_point(args: TrimeshCellArg, tri_index: int, pos: vec):
        p0 = _vertex(args, tri_index, 0)
        d, bary = project_on_tri_at_origin(pos - p0, _vertex(args, tri_index, 1) - p0, _vertex(args, tri_index, 2) - p0)
        return bary, d

    @wp.func
    def cell_coordinates(args: TrimeshCellArg, element_index: int, pos: vec):
        # barycentric coordinates, not clamped (of the projection on the plane for a surface)
        p0 = _vertex(args, element_index, 0)
        F = wp.matrix_from_cols(_vertex(args, element_index, 1) - p0, _vertex(args, element_index, 2) - p0)
        vw = _element_inverse(F) @ (pos - p0)
        return wp.vec3(1.0 - vw[0] - vw[1], vw[0], vw[1])

    @wp.func
    def cell_count(args: TrimeshCellArg):
        return args.tri_vertex_indices.shape[0]

    @wp.func
    def side_position(args: TrimeshSideArg, s: Sample):
        e = args.edge_vertex_indices[s.element_index]
        t = s.element_coords[0]
        return (1.0 - t) * args.cell_arg.positions[e[0]] + t * args.cell_arg.positions[e[1]]

    @wp.func
    def side_deformation_gradient(args: TrimeshSideArg, s: Sample):
        e = args.edge_vertex_indices[s.element_index]
        return args.cell_arg.positions[e[1]] - args.cell_arg.positions[e[0]]

    @wp.func
    def side_inner_cell_index(args: TrimeshSideArg, side_index: int):
        return args.edge_tri_indices[side_index][0]

    @wp.func
    def side_outer_cell_index(args: TrimeshSideArg, side_index: int):
        return args.edge_tri_indices[side_index][1]

    @wp.func
    def _edge_to_tri_coords(args: TrimeshSideArg, side_index: int, tri: int, side_coords: wp.vec3):
        e = args.edge_vertex_indices[side_index]
        c = wp.vec3(0.0)
        c[_local_index(args.cell_arg, tri, e[0])] = 1.0 - side_coords[0]
        c[_local_index(args.cell_arg, tri, e[1])] = side_coords[0]
        return c

    @wp.func
    def side_inner_cell_coords(args: TrimeshSideArg, side_index: int, side_coords: wp.vec3):
        return _edge_to_tri_coords(args, side_index, args.edge_tri_indices[side_index][0], side_coords)

    @wp.func
    def side_outer_cell_coords(args: TrimeshSideArg, side_index: int, side_coords: wp.vec3):
        return _edge_to_tri_coords(args, side_index, args.edge_tri_indices[side_index][1], side_coords)

    @wp.func
    def side_from_cell_coords(args: TrimeshSideArg, side_index: int, element_index: int, element_coords: wp.vec3):
        # the edge coordinate of a triangle point, OUTSIDE unless the point is on this edge of that triangle
        tris = args.edge_tri_indices[side_index]
        if element_index == tris[0] or element_index == tris[1]:
            e = args.edge_vertex_indices[side_index]
            a = _local_index(args.cell_arg, element_index, e[0])
            b = _local_index(args.cell_arg, element_index, e[1])
            if element_coords[3 - a - b] == 0.0:
                return wp.vec3(element_coords[b], 0.0, 0.0)
        return wp.vec3(OUTSIDE)

    @wp.func
    def side_to_cell_arg(side_arg: TrimeshSideArg):
        return side_arg.cell_arg

    @wp.func
    def boundary_side_index(args: TrimeshSideIndexArg, boundary_side_index: int):
        return args.boundary_edge_indices[boundary_side_index]

    return dict(
        CellArg=TrimeshCellArg, SideArg=TrimeshSideArg, SideIndexArg=TrimeshSideIndexArg,
        cell_position=cell_position, cell_deformation_gradient=cell_deformation_gradient,
        cell_closest_point=cell_closest_point, cell_coordinates=cell_coordinates,
        cell_lookup=make_cell_lookup(cell_closest_point, cell_count), cell_count_in_args=cell_count,
        side_position=side_position, side_deformation_gradient=side_deformation_gradient,
        side_inner_cell_index=side_inner_cell_index, side_outer_cell_index=side_outer_cell_index,
        side_inner_cell_coords=side_inner_cell_coords, side_outer_cell_coords=side_outer_cell_coords,
        side_from_cell_coords=side_from_cell_coords, side_to_cell_arg=side_to_cell_arg,
        boundary_side_index=boundary_side_index,
    )


class Trimesh(MeshEnvironments, MeshLookup, Geometry):
    """Triangle mesh geometry (base of Trimesh2D and Trimesh3D)."""

    cell_dimension = 2

    def __init__(self, tri_vertex_indices, positions, build_bvh: bool = False, temporary_store=None,
                 cell_env=None, env_count=None):
        name = type(self).__name__
        check_mesh_options(name, temporary_store, cell_env, env_count)
        self.positions = mesh_positions(name, positions, self.dimension)
        tris = check_vertex_indices("tri_vertex_indices", tri_vertex_indices, positions.shape[0], 3)
        device = positions.device
        self.tri_vertex_indices = wp.array(tris, dtype=int, device=device)
        edges, edge_tris, _local, boundary, _of_cell = build_sides(tris, _TRI_EDGES)
        if self.dimension == 2:
            edges = orient_edges_outwards(edges, edge_tris, tris, positions.numpy())
        self.edge_vertex_indices = wp.array(edges, dtype=wp.vec2i, device=device)
        self.edge_tri_indices = wp.array(edge_tris, dtype=wp.vec2i, device=device)
        self._boundary_edge_indices = wp.array(boundary, dtype=int, device=device)
        self.set_environments(name, cell_env, env_count)
        self._make_default_dependent_implementations()
        if build_bvh:
            self.build_bvh(device)

    def cell_count(self) -> int:
        return self.tri_vertex_indices.shape[0]

    def vertex_count(self) -> int:
        return self.positions.shape[0]

    def side_count(self) -> int:
        return self.edge_vertex_indices.shape[0]

    def boundary_side_count(self) -> int:
        return self._boundary_edge_indices.shape[0]

    def reference_cell(self):
        return Element.TRIANGLE

    def reference_side(self):
        return Element.LINE_SEGMENT

    def _cell_vertex_array(self):
        return self.tri_vertex_indices

    def fill_cell_arg(self, args, device):
        args.tri_vertex_indices = self.tri_vertex_indices.to(device)
        args.positions = self.positions.to(device)
        args.bvh = wp.uint64(self.bvh_id(device))
        args.cell_env = self.cell_env_arg(device)

    def fill_side_arg(self, args, device):
        args.cell_arg = self.cell_arg_value(device)
        args.edge_vertex_indices = self.edge_vertex_indices.to(device)
        args.edge_tri_indices = self.edge_tri_indices.to(device)

    def fill_side_index_arg(self, args, device):
        args.boundary_edge_indices = self._boundary_edge_indices.to(device)


def _install(cls, dim):
    for name, value in trimesh_device_types(dim).items():
        setattr(cls, name, value)
    return cls


@functools.partial(_install, dim=2)
class Trimesh2D(Trimesh):
    """Two-dimensional triangular mesh geometry.

    Args:
        tri_vertex_indices: (n, 3) array of the vertex indices of each triangle
        positions: array of the vertices' positions (wp.vec2)
        build_bvh: whether to build the structure cell lookups use
    """

    dimension = 2


@functools.partial(_install, dim=3)
class Trimesh3D(Trimesh):
    """Triangular mesh of a surface in 3-D.

    Args:
        tri_vertex_indices: (n, 3) array of the vertex indices of each triangle
        positions: array of the vertices' positions (wp.vec3)
        build_bvh: whether to build the structure cell lookups use
    """

    dimension = 3
