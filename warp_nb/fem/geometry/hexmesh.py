"""`warp.fem.Hexmesh`: unstructured hexahedral meshes.

A hex's local vertices sit at the reference corners (0,0,0), (1,0,0), (1,1,0), (0,1,0), then the
same four at z = 1; positions are trilinear in the cell coordinates. Sides are the quadrilateral
faces, bilinear in their coordinates (u, v) from their vertices at (0,0), (1,0), (1,1), (0,1),
numbered by mesh_topology.build_sides from the local faces x = 0, x = 1, y = 0, y = 1, z = 0, z = 1
(each listed with an outward normal `F[:, 0] x F[:, 1]`), starting at their smallest vertex.
A face's point in a hex is found from where its four vertices sit in that hex, so no per-face
orientation code is stored. Edges are numbered the same way from the local edges of the bottom
square, the top square, then the four verticals. Warp's conventions, checked against warp-lang."""


import warp_nb as wp

from ..types import Sample
from .element import Element
from .environments import MeshEnvironments
from .geometry import OUTSIDE, Geometry
from .mesh_lookup import MeshLookup, make_cell_lookup, make_newton_coordinates
from .mesh_topology import build_sides, check_mesh_options, check_vertex_indices, mesh_positions
from .tetmesh import start_at_smallest_vertex

_HEX_FACES = [(0, 4, 7, 3), (1, 2, 6, 5), (0, 1, 5, 4), (3, 7, 6, 2), (0, 3, 2, 1), (4, 5, 6, 7)]
_HEX_EDGES = [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (1, 5), (2, 6), (3, 7)]


@wp.struct
class HexmeshCellArg:
    hex_vertex_indices: wp.array2d(dtype=int)
    positions: wp.array(dtype=wp.vec3)
    bvh: wp.uint64
    cell_env: wp.array(dtype=int)  # empty: one environment


@wp.struct
class HexmeshSideArg:
    cell_arg: HexmeshCellArg
    face_vertex_indices: wp.array(dtype=wp.vec4i)
    face_hex_indices: wp.array(dtype=wp.vec2i)


@wp.struct
class HexmeshSideIndexArg:
    boundary_face_indices: wp.array(dtype=int)


@wp.func
def _hex_corner(k: int):
    # the reference coordinates of local vertex k
    x = 0.0
    if k == 1 or k == 2 or k == 5 or k == 6:
        x = 1.0
    y = 0.0
    if k == 2 or k == 3 or k == 6 or k == 7:
        y = 1.0
    z = 0.0
    if k >= 4:
        z = 1.0
    return wp.vec3(x, y, z)


@wp.func
def _hex_local_index(args: HexmeshCellArg, cell: int, vertex: int):
    local = int(0)
    for k in range(8):
        if args.hex_vertex_indices[cell, k] == vertex:
            local = k
    return local


@wp.func
def _hex_point(args: HexmeshCellArg, cell: int, c: wp.vec3):
    p = wp.vec3(0.0)
    for k in range(8):
        w = _hex_corner(k)
        weight = (w[0] * c[0] + (1.0 - w[0]) * (1.0 - c[0])) * (w[1] * c[1] + (1.0 - w[1]) * (1.0 - c[1])) * (
            w[2] * c[2] + (1.0 - w[2]) * (1.0 - c[2]))
        p += weight * args.positions[args.hex_vertex_indices[cell, k]]
    return p


@wp.func
def _hex_gradient(args: HexmeshCellArg, cell: int, c: wp.vec3):
    # d position / d coords, column by column, from the trilinear weights' derivatives
    F = wp.mat33(0.0)
    for k in range(8):
        w = _hex_corner(k)
        f = wp.vec3(w[0] * c[0] + (1.0 - w[0]) * (1.0 - c[0]), w[1] * c[1] + (1.0 - w[1]) * (1.0 - c[1]),
                    w[2] * c[2] + (1.0 - w[2]) * (1.0 - c[2]))
        d = wp.vec3(2.0 * w[0] - 1.0, 2.0 * w[1] - 1.0, 2.0 * w[2] - 1.0)
        p = args.positions[args.hex_vertex_indices[cell, k]]
        F += wp.outer(p, wp.vec3(d[0] * f[1] * f[2], f[0] * d[1] * f[2], f[0] * f[1] * d[2]))
    return F


def _device_functions(parallelepiped: bool) -> dict:
    """Hexmesh's device functions; with `parallelepiped` a cell is the affine map of its origin
    corner's gradient (exact for parallelepipeds, cheaper), as Warp's assume_parallelepiped_cells."""

    @wp.func
    def cell_position(args: HexmeshCellArg, s: Sample):
        if wp.static(parallelepiped):
            p0 = args.positions[args.hex_vertex_indices[s.element_index, 0]]
            return p0 + _hex_gradient(args, s.element_index, wp.vec3(0.0)) @ s.element_coords
        return _hex_point(args, s.element_index, s.element_coords)

    @wp.func
    def cell_deformation_gradient(args: HexmeshCellArg, s: Sample):
        if wp.static(parallelepiped):
            return _hex_gradient(args, s.element_index, wp.vec3(0.0))
        return _hex_gradient(args, s.element_index, s.element_coords)

    closest_coords = make_newton_coordinates(cell_position, cell_deformation_gradient, 3, clamp=True)

    @wp.func
    def cell_closest_point(args: HexmeshCellArg, cell_index: int, pos: wp.vec3):
        s = Sample()
        s.element_index = cell_index
        s.element_coords = closest_coords(args, cell_index, pos)
        return s.element_coords, wp.length_sq(cell_position(args, s) - pos)

    @wp.func
    def cell_count(args: HexmeshCellArg):
        return args.hex_vertex_indices.shape[0]

    @wp.func
    def side_position(args: HexmeshSideArg, s: Sample):
        f = args.face_vertex_indices[s.element_index]
        u = s.element_coords[0]
        v = s.element_coords[1]
        P = args.cell_arg.positions
        return (1.0 - u) * (1.0 - v) * P[f[0]] + u * (1.0 - v) * P[f[1]] + u * v * P[f[2]] + (1.0 - u) * v * P[f[3]]

    @wp.func
    def side_deformation_gradient(args: HexmeshSideArg, s: Sample):
        f = args.face_vertex_indices[s.element_index]
        u = s.element_coords[0]
        v = s.element_coords[1]
        P = args.cell_arg.positions
        return wp.matrix_from_cols((1.0 - v) * (P[f[1]] - P[f[0]]) + v * (P[f[2]] - P[f[3]]),
                                   (1.0 - u) * (P[f[3]] - P[f[0]]) + u * (P[f[2]] - P[f[1]]))

    @wp.func
    def side_inner_cell_index(args: HexmeshSideArg, side_index: int):
        return args.face_hex_indices[side_index][0]

    @wp.func
    def side_outer_cell_index(args: HexmeshSideArg, side_index: int):
        return args.face_hex_indices[side_index][1]

    @wp.func
    def face_to_hex_coords(args: HexmeshSideArg, side_index: int, cell: int, side_coords: wp.vec3):
        f = args.face_vertex_indices[side_index]
        u = side_coords[0]
        v = side_coords[1]
        c0 = _hex_corner(_hex_local_index(args.cell_arg, cell, f[0]))
        c1 = _hex_corner(_hex_local_index(args.cell_arg, cell, f[1]))
        c3 = _hex_corner(_hex_local_index(args.cell_arg, cell, f[3]))
        return c0 + u * (c1 - c0) + v * (c3 - c0)

    @wp.func
    def side_inner_cell_coords(args: HexmeshSideArg, side_index: int, side_coords: wp.vec3):
        return face_to_hex_coords(args, side_index, args.face_hex_indices[side_index][0], side_coords)

    @wp.func
    def side_outer_cell_coords(args: HexmeshSideArg, side_index: int, side_coords: wp.vec3):
        return face_to_hex_coords(args, side_index, args.face_hex_indices[side_index][1], side_coords)

    @wp.func
    def side_from_cell_coords(args: HexmeshSideArg, side_index: int, element_index: int, element_coords: wp.vec3):
        # the face coordinates of a hex point, OUTSIDE unless the point is on this face of that hex
        hexes = args.face_hex_indices[side_index]
        if element_index == hexes[0] or element_index == hexes[1]:
            f = args.face_vertex_indices[side_index]
            c0 = _hex_corner(_hex_local_index(args.cell_arg, element_index, f[0]))
            du = _hex_corner(_hex_local_index(args.cell_arg, element_index, f[1])) - c0
            dv = _hex_corner(_hex_local_index(args.cell_arg, element_index, f[3])) - c0
            normal = wp.cross(du, dv)  # the face's fixed axis, as a signed unit vector
            if wp.dot(normal, element_coords - c0) == 0.0:
                return wp.vec3(wp.dot(du, element_coords - c0), wp.dot(dv, element_coords - c0), 0.0)
        return wp.vec3(OUTSIDE)

    @wp.func
    def side_to_cell_arg(side_arg: HexmeshSideArg):
        return side_arg.cell_arg

    @wp.func
    def boundary_side_index(args: HexmeshSideIndexArg, boundary_side_index: int):
        return args.boundary_face_indices[boundary_side_index]

    return dict(
        cell_position=cell_position, cell_deformation_gradient=cell_deformation_gradient,
        cell_closest_point=cell_closest_point,
        cell_coordinates=make_newton_coordinates(cell_position, cell_deformation_gradient, 3, clamp=False),
        cell_lookup=make_cell_lookup(cell_closest_point, cell_count), cell_count_in_args=cell_count,
        side_position=side_position, side_deformation_gradient=side_deformation_gradient,
        side_inner_cell_index=side_inner_cell_index, side_outer_cell_index=side_outer_cell_index,
        face_to_hex_coords=face_to_hex_coords,
        side_inner_cell_coords=side_inner_cell_coords, side_outer_cell_coords=side_outer_cell_coords,
        side_from_cell_coords=side_from_cell_coords, side_to_cell_arg=side_to_cell_arg,
        boundary_side_index=boundary_side_index,
    )


_GENERAL = _device_functions(False)
_PARALLELEPIPED = dict(_GENERAL, **{k: v for k, v in _device_functions(True).items()
                                    if k.startswith("cell_")})


class Hexmesh(MeshEnvironments, MeshLookup, Geometry):
    """Hexahedral mesh geometry.

    Args:
        hex_vertex_indices: (n, 8) array of the vertex indices of each hexahedron: the bottom face
            counter-clockwise, then the top face above it
        positions: array of the vertices' positions (wp.vec3)
        assume_parallelepiped_cells: whether every cell is a parallelepiped (constant gradient)
        build_bvh: whether to build the structure cell lookups use
    """

    dimension = 3
    cell_dimension = 3
    CellArg = HexmeshCellArg
    SideArg = HexmeshSideArg
    SideIndexArg = HexmeshSideIndexArg

    def __init__(self, hex_vertex_indices, positions, assume_parallelepiped_cells=False, build_bvh: bool = False,
                 temporary_store=None, cell_env=None, env_count=None):
        check_mesh_options("Hexmesh", temporary_store, cell_env, env_count)
        self.positions = mesh_positions("Hexmesh", positions, 3)
        hexes = check_vertex_indices("hex_vertex_indices", hex_vertex_indices, positions.shape[0], 8)
        device = positions.device
        self.parallelepiped_cells = bool(assume_parallelepiped_cells)
        self.__dict__.update(_PARALLELEPIPED if self.parallelepiped_cells else _GENERAL)
        self._hexes = hexes
        self.hex_vertex_indices = wp.array(hexes, dtype=int, device=device)
        faces, face_hexes, _local, boundary, _of_hex = build_sides(hexes, _HEX_FACES)
        self.face_vertex_indices = wp.array(start_at_smallest_vertex(faces), dtype=wp.vec4i, device=device)
        self.face_hex_indices = wp.array(face_hexes, dtype=wp.vec2i, device=device)
        self._boundary_face_indices = wp.array(boundary, dtype=int, device=device)
        self._hex_edge_indices = None
        self.set_environments("Hexmesh", cell_env, env_count)
        self._make_default_dependent_implementations()
        if build_bvh:
            self.build_bvh(device)

    def _edges(self):
        if self._hex_edge_indices is None:
            edges = build_sides(self._hexes, _HEX_EDGES, manifold=False)
            self._edge_count = len(edges.vertices)
            self._hex_edge_indices = wp.array(edges.of_cell, dtype=int, device=self.positions.device)
        return self._hex_edge_indices

    @property
    def hex_edge_indices(self):
        """(n, 12) array: the edge index of each hex's local edges (bottom square, top square, verticals)."""
        return self._edges()

    def edge_count(self) -> int:
        self._edges()
        return self._edge_count

    def cell_count(self) -> int:
        return self.hex_vertex_indices.shape[0]

    def vertex_count(self) -> int:
        return self.positions.shape[0]

    def side_count(self) -> int:
        return self.face_vertex_indices.shape[0]

    def boundary_side_count(self) -> int:
        return self._boundary_face_indices.shape[0]

    def reference_cell(self):
        return Element.CUBE

    def reference_side(self):
        return Element.SQUARE

    def _cell_vertex_array(self):
        return self.hex_vertex_indices

    def fill_cell_arg(self, args, device):
        args.hex_vertex_indices = self.hex_vertex_indices.to(device)
        args.positions = self.positions.to(device)
        args.bvh = wp.uint64(self.bvh_id(device))
        args.cell_env = self.cell_env_arg(device)

    def fill_side_arg(self, args, device):
        args.cell_arg = self.cell_arg_value(device)
        args.face_vertex_indices = self.face_vertex_indices.to(device)
        args.face_hex_indices = self.face_hex_indices.to(device)

    def fill_side_index_arg(self, args, device):
        args.boundary_face_indices = self._boundary_face_indices.to(device)


for _name, _f in _GENERAL.items():
    setattr(Hexmesh, _name, _f)
