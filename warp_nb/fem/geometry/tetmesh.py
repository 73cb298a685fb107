"""`warp.fem.Tetmesh`: unstructured tetrahedral meshes.

Cell coordinates are those of the reference tetrahedron: local vertex 0 at the origin, vertex k at
the k-th unit vector, `position = p0 + c0 (p1 - p0) + c1 (p2 - p0) + c2 (p3 - p0)`. Sides are the
triangular faces, in barycentric coordinates (`position = c0 a + c1 b + c2 c`), numbered by
mesh_topology.build_sides from the local faces (0 1 2), (1 2 3), (2 3 0), (3 0 1); each face starts
at its smallest vertex, and its other two are ordered so that the normal `(b - a) x (c - a)`
leaves its inner tetrahedron. Edges (for the spaces that put
nodes on them) are numbered the same way from the local edges (0 1), (1 2), (2 0), (0 3), (1 3),
(2 3). Warp's conventions, checked against warp-lang."""

import numpy as np

import warp_nb as wp

from ..types import Sample
from .closest_point import project_on_tet_at_origin
from .element import Element
from .environments import MeshEnvironments
from .geometry import OUTSIDE, Geometry
from .mesh_lookup import MeshLookup, make_cell_lookup
from .mesh_topology import build_sides, check_mesh_options, check_vertex_indices, mesh_positions

_TET_FACES = [(0, 1, 2), (1, 2, 3), (2, 3, 0), (3, 0, 1)]
_TET_EDGES = [(0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3)]


@wp.struct
class TetmeshCellArg:
    tet_vertex_indices: wp.array2d(dtype=int)
    positions: wp.array(dtype=wp.vec3)
    bvh: wp.uint64
    cell_env: wp.array(dtype=int)  # empty: one environment


@wp.struct
class TetmeshSideArg:
    cell_arg: TetmeshCellArg
    face_vertex_indices: wp.array(dtype=wp.vec3i)
    face_tet_indices: wp.array(dtype=wp.vec2i)


@wp.struct
class TetmeshSideIndexArg:
    boundary_face_indices: wp.array(dtype=int)


@wp.func
def _tet_vertex(args: TetmeshCellArg, tet: int, k: int):
    return args.positions[args.tet_vertex_indices[tet, k]]


@wp.func
def _tet_local_index(args: TetmeshCellArg, tet: int, vertex: int):
    local = int(0)
    for k in range(4):
        if args.tet_vertex_indices[tet, k] == vertex:
            local = k
    return local


@wp.func
def _tet_corner(k: int):
    # the reference coordinates of local vertex k
    c = wp.vec3(0.0)
    if k > 0:
        c[k - 1] = 1.0
    return c


@wp.func
def _tet_weight(coords: wp.vec3, k: int):
    # the barycentric weight of local vertex k at `coords`
    if k == 0:
        return 1.0 - coords[0] - coords[1] - coords[2]
    return coords[k - 1]


def _device_functions() -> dict:
    """Tetmesh's device functions: class attributes, as they depend on no instance."""

    @wp.func
    def cell_position(args: TetmeshCellArg, s: Sample):
        c = s.element_coords
        i = s.element_index
        p0 = _tet_vertex(args, i, 0)
        return (p0 + c[0] * (_tet_vertex(args, i, 1) - p0) + c[1] * (_tet_vertex(args, i, 2) - p0)
                + c[2] * (_tet_vertex(args, i, 3) - p0))

    @wp.func
    def cell_deformation_gradient(args: TetmeshCellArg, s: Sample):
        i = s.element_index
        p0 = _tet_vertex(args, i, 0)
        return wp.matrix_from_cols(_tet_vertex(args, i, 1) - p0, _tet_vertex(args, i, 2) - p0, _tet_vertex(args, i, 3) - p0)

    @wp.func
    def cell_closest_point(args: TetmeshCellArg, tet_index: int, pos: wp.vec3):
        p0 = _tet_vertex(args, tet_index, 0)
        d, c = project_on_tet_at_origin(pos - p0, _tet_vertex(args, tet_index, 1) - p0,
                                        _tet_vertex(args, tet_index, 2) - p0, _tet_vertex(args, tet_index, 3) - p0)
        return c, d

    @wp.func
    def cell_coordinates(args: TetmeshCellArg, element_index: int, pos: wp.vec3):
        s = Sample()
        s.element_index = element_index
        return wp.inverse(cell_deformation_gradient(args, s)) @ (pos - _tet_vertex(args, element_index, 0))

    @wp.func
    def cell_count(args: TetmeshCellArg):
        return args.tet_vertex_indices.shape[0]

    @wp.func
    def side_position(args: TetmeshSideArg, s: Sample):
        f = args.face_vertex_indices[s.element_index]
        c = s.element_coords
        P = args.cell_arg.positions
        return c[0] * P[f[0]] + c[1] * P[f[1]] + c[2] * P[f[2]]

    @wp.func
    def side_deformation_gradient(args: TetmeshSideArg, s: Sample):
        f = args.face_vertex_indices[s.element_index]
        P = args.cell_arg.positions
        return wp.matrix_from_cols(P[f[1]] - P[f[0]], P[f[2]] - P[f[0]])

    @wp.func
    def side_inner_cell_index(args: TetmeshSideArg, side_index: int):
        return args.face_tet_indices[side_index][0]

    @wp.func
    def side_outer_cell_index(args: TetmeshSideArg, side_index: int):
        return args.face_tet_indices[side_index][1]

    @wp.func
    def face_to_tet_coords(args: TetmeshSideArg, side_index: int, tet: int, side_coords: wp.vec3):
        f = args.face_vertex_indices[side_index]
        c = wp.vec3(0.0)
        for k in range(3):
            c += side_coords[k] * _tet_corner(_tet_local_index(args.cell_arg, tet, f[k]))
        return c

    @wp.func
    def side_inner_cell_coords(args: TetmeshSideArg, side_index: int, side_coords: wp.vec3):
        return face_to_tet_coords(args, side_index, args.face_tet_indices[side_index][0], side_coords)

    @wp.func
    def side_outer_cell_coords(args: TetmeshSideArg, side_index: int, side_coords: wp.vec3):
        return face_to_tet_coords(args, side_index, args.face_tet_indices[side_index][1], side_coords)

    @wp.func
    def side_from_cell_coords(args: TetmeshSideArg, side_index: int, element_index: int, element_coords: wp.vec3):
        # the face coordinates of a tet point, OUTSIDE unless the point is on this face of that tet
        tets = args.face_tet_indices[side_index]
        if element_index == tets[0] or element_index == tets[1]:
            f = args.face_vertex_indices[side_index]
            a = _tet_local_index(args.cell_arg, element_index, f[0])
            b = _tet_local_index(args.cell_arg, element_index, f[1])
            c = _tet_local_index(args.cell_arg, element_index, f[2])
            # the weight of the fourth vertex is 1 - (sum of coords): zero up to rounding on the face
            if wp.abs(_tet_weight(element_coords, 6 - a - b - c)) <= 1.0e-6:
                return wp.vec3(_tet_weight(element_coords, a), _tet_weight(element_coords, b),
                               _tet_weight(element_coords, c))
        return wp.vec3(OUTSIDE)

    @wp.func
    def side_to_cell_arg(side_arg: TetmeshSideArg):
        return side_arg.cell_arg

    @wp.func
    def boundary_side_index(args: TetmeshSideIndexArg, boundary_side_index: int):
        return args.boundary_face_indices[boundary_side_index]

    return dict(
        cell_position=cell_position, cell_deformation_gradient=cell_deformation_gradient,
        cell_closest_point=cell_closest_point, cell_coordinates=cell_coordinates,
        cell_lookup=make_cell_lookup(cell_closest_point, cell_count), cell_count_in_args=cell_count,
        side_position=side_position, side_deformation_gradient=side_deformation_gradient,
        side_inner_cell_index=side_inner_cell_index, side_outer_cell_index=side_outer_cell_index,
        face_to_tet_coords=face_to_tet_coords,
        side_inner_cell_coords=side_inner_cell_coords, side_outer_cell_coords=side_outer_cell_coords,
        side_from_cell_coords=side_from_cell_coords, side_to_cell_arg=side_to_cell_arg,
        boundary_side_index=boundary_side_index,
    )


def start_at_smallest_vertex(faces: np.ndarray) -> np.ndarray:
    """Each face's vertices turned cyclically (orientation kept) to start at its smallest one."""
    shift = np.argmin(faces, axis=1)
    cols = (np.arange(faces.shape[1])[None, :] + shift[:, None]) % faces.shape[1]
    return np.take_along_axis(faces, cols, axis=1)


class Tetmesh(MeshEnvironments, MeshLookup, Geometry):
    """Tetrahedral mesh geometry.

    Args:
        tet_vertex_indices: (n, 4) array of the vertex indices of each tetrahedron
        positions: array of the vertices' positions (wp.vec3)
        build_bvh: whether to build the structure cell lookups use
    """

    dimension = 3
    cell_dimension = 3
    CellArg = TetmeshCellArg
    SideArg = TetmeshSideArg
    SideIndexArg = TetmeshSideIndexArg

    def __init__(self, tet_vertex_indices, positions, build_bvh: bool = False, temporary_store=None,
                 cell_env=None, env_count=None):
        check_mesh_options("Tetmesh", temporary_store, cell_env, env_count)
        self.positions = mesh_positions("Tetmesh", positions, 3)
        tets = check_vertex_indices("tet_vertex_indices", tet_vertex_indices, positions.shape[0], 4)
        device = positions.device
        self._tets = tets
        self.tet_vertex_indices = wp.array(tets, dtype=int, device=device)
        faces, face_tets, _local, boundary, _of_tet = build_sides(tets, _TET_FACES)
        faces = start_at_smallest_vertex(self._orient_faces(faces, face_tets, tets, positions.numpy()))
        self.face_vertex_indices = wp.array(faces, dtype=wp.vec3i, device=device)
        self.face_tet_indices = wp.array(face_tets, dtype=wp.vec2i, device=device)
        self._boundary_face_indices = wp.array(boundary, dtype=int, device=device)
        self._tet_edge_indices = None
        self.set_environments("Tetmesh", cell_env, env_count)
        self._make_default_dependent_implementations()
        if build_bvh:
            self.build_bvh(device)

    @staticmethod
    def _orient_faces(faces, face_tets, tets, points):
        # turn the faces whose normal would point into their inner tet (a negatively oriented one)
        a, b, c = points[faces[:, 0]], points[faces[:, 1]], points[faces[:, 2]]
        normal = np.cross(b - a, c - a)
        centre = points[tets[face_tets[:, 0]]].mean(axis=1)
        inward = np.einsum("fd,fd->f", normal, (a + b + c) / 3.0 - centre) < 0.0
        faces = faces.copy()
        faces[inward] = faces[inward][:, [0, 2, 1]]
        return faces

    def _edges(self):
        if self._tet_edge_indices is None:
            edges = build_sides(self._tets, _TET_EDGES, manifold=False)
            self._edge_count = len(edges.vertices)
            self._tet_edge_indices = wp.array(edges.of_cell, dtype=int, device=self.positions.device)
        return self._tet_edge_indices

    @property
    def tet_edge_indices(self):
        """(n, 6) array: the edge index of each tet's local edges (0 1), (1 2), (2 0), (0 3), (1 3), (2 3)."""
        return self._edges()

    def edge_count(self) -> int:
        self._edges()
        return self._edge_count

    def cell_count(self) -> int:
        return self.tet_vertex_indices.shape[0]

    def vertex_count(self) -> int:
        return self.positions.shape[0]

    def side_count(self) -> int:
        return self.face_vertex_indices.shape[0]

    def boundary_side_count(self) -> int:
        return self._boundary_face_indices.shape[0]

    def reference_cell(self):
        return Element.TETRAHEDRON

    def reference_side(self):
        return Element.TRIANGLE

    def _cell_vertex_array(self):
        return self.tet_vertex_indices

    def fill_cell_arg(self, args, device):
        args.tet_vertex_indices = self.tet_vertex_indices.to(device)
        args.positions = self.positions.to(device)
        args.bvh = wp.uint64(self.bvh_id(device))
        args.cell_env = self.cell_env_arg(device)

    def fill_side_arg(self, args, device):
        args.cell_arg = self.cell_arg_value(device)
        args.face_vertex_indices = self.face_vertex_indices.to(device)
        args.face_tet_indices = self.face_tet_indices.to(device)

    def fill_side_index_arg(self, args, device):
        args.boundary_face_indices = self._boundary_face_indices.to(device)


for _name, _f in _device_functions().items():
    setattr(Tetmesh, _name, _f)
