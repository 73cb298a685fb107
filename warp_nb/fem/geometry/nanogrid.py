"""`warp.fem.Nanogrid`: the hexahedral geometry whose cells are the active voxels of an index
volume (`wp.Volume.allocate_by_voxels`, `allocate_by_tiles(bg_value=None)`).

Cells are numbered as the volume numbers its voxels, vertices, faces and edges as the index
volumes nanogrid_topology.py builds (Warp's numbering, checked against warp-lang). A cell's
coordinates run along the index axes; a face's (u, v) run along axes (a + 1, a + 2) of its normal
axis a, swapped on a boundary face that lies on the low side of its cell, so that `F[:, 0] x F[:, 1]`
points from the inner (low) cell to the outer (high) one and outwards on the boundary.

A rebuildable grid (`rebuildable=True`, on a volume allocated with `rebuildable=True`) reports the
volume's reserved capacities as its cell (and vertex: 8 per cell) counts, as Warp does; the cells
past the active ones repeat the first cell. Environments (`cell_env`, `env_offsets`): an
environment's voxels are offset by its `env_offsets` entry in the volume and sit at the same place
in space as environment 0's."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from ..types import Sample
from .element import Element
from .environments import MeshEnvironments
from .geometry import OUTSIDE, Geometry
from . import nanogrid_topology as topo


@wp.struct
class NanogridCellArg:
    cell_grid: wp.uint64
    cell_ijk: wp.array(dtype=wp.vec3i)
    cell_env: wp.array(dtype=int)  # empty: one environment
    env_offsets: wp.array(dtype=wp.vec3i)  # empty: no offsets
    transform: wp.mat33
    inverse_transform: wp.mat33
    translation: wp.vec3


@wp.struct
class NanogridSideArg:
    cell_arg: NanogridCellArg
    face_ijk: wp.array(dtype=wp.vec3i)
    face_flags: wp.array(dtype=int)
    face_cells: wp.array(dtype=wp.vec2i)


@wp.struct
class NanogridSideIndexArg:
    boundary_face_indices: wp.array(dtype=int)


@wp.func
def _env_offset(args: NanogridCellArg, cell_index: int):
    if args.env_offsets.shape[0] == 0:
        return wp.vec3i(0)
    env = int(0)
    if args.cell_env.shape[0] > 0:
        env = args.cell_env[cell_index]
    return args.env_offsets[env]


@wp.func
def _index_to_world(args: NanogridCellArg, idx: wp.vec3):
    return args.transform @ idx + args.translation


@wp.func
def _cell_origin(args: NanogridCellArg, cell_index: int):
    # the index coordinates of the cell's corner (0, 0, 0), its environment's offset removed
    ijk = args.cell_ijk[cell_index] - _env_offset(args, cell_index)
    return wp.vec3(float(ijk[0]) - 0.5, float(ijk[1]) - 0.5, float(ijk[2]) - 0.5)


@wp.func
def _face_tangent_axes(flags: int):
    a = flags & 3
    if (flags & 4) != 0:  # a boundary face on the low side of its cell: (v, u), for an outward normal
        return wp.vec2i((a + 2) % 3, (a + 1) % 3)
    return wp.vec2i((a + 1) % 3, (a + 2) % 3)


@wp.func
def _face_to_cell_coords(args: NanogridSideArg, side_index: int, cell: int, side_coords: wp.vec3):
    flags = args.face_flags[side_index]
    a = flags & 3
    t = _face_tangent_axes(flags)
    c = wp.vec3(0.0)
    c[a] = float(args.face_ijk[side_index][a] - args.cell_arg.cell_ijk[cell][a])
    c[t[0]] = side_coords[0]
    c[t[1]] = side_coords[1]
    return c


def _device_functions() -> dict:
    @wp.func
    def cell_position(args: NanogridCellArg, s: Sample):
        return _index_to_world(args, _cell_origin(args, s.element_index) + s.element_coords)

    @wp.func
    def cell_deformation_gradient(args: NanogridCellArg, s: Sample):
        return args.transform

    @wp.func
    def cell_inverse_deformation_gradient(args: NanogridCellArg, s: Sample):
        return args.inverse_transform

    @wp.func
    def cell_coordinates(args: NanogridCellArg, cell_index: int, pos: wp.vec3):
        return args.inverse_transform @ (pos - args.translation) - _cell_origin(args, cell_index)

    @wp.func
    def cell_closest_point(args: NanogridCellArg, cell_index: int, pos: wp.vec3):
        c = cell_coordinates(args, cell_index, pos)
        cc = wp.vec3(wp.clamp(c[0], 0.0, 1.0), wp.clamp(c[1], 0.0, 1.0), wp.clamp(c[2], 0.0, 1.0))
        return cc, wp.length_sq(args.transform @ (cc - c))

    @wp.func
    def cell_lookup(args: NanogridCellArg, pos: wp.vec3, max_dist: float):
        # the active voxel holding pos (environment 0), else the nearest one among its 26 neighbours
        # within max_dist
        idx = args.inverse_transform @ (pos - args.translation)
        offset = wp.vec3i(0)
        if args.env_offsets.shape[0] > 0:
            offset = args.env_offsets[0]
        v = wp.vec3i(int(wp.floor(idx[0] + 0.5)), int(wp.floor(idx[1] + 0.5)), int(wp.floor(idx[2] + 0.5)))
        s = Sample()
        s.element_index = -1
        s.element_coords = wp.vec3(OUTSIDE)
        s.qp_index = -1
        best = max_dist * max_dist
        for n in range(27):
            d = wp.vec3i(n // 9 - 1, (n // 3) % 3 - 1, n % 3 - 1)
            if n == 13 or max_dist > 0.0:
                w = v + d + offset
                cell = wp.volume_lookup_index(args.cell_grid, w[0], w[1], w[2])
                if cell >= 0:
                    coords, dist = cell_closest_point(args, cell, pos)
                    if n == 13 and dist == 0.0:
                        best = -1.0
                        s.element_index = cell
                        s.element_coords = coords
                    elif dist <= best:
                        best = dist
                        s.element_index = cell
                        s.element_coords = coords
        if s.element_index < 0 and max_dist > 0.0:
            # farther than the neighbouring voxels (fem.lookup without max_dist): the nearest of all cells
            for cell in range(args.cell_ijk.shape[0]):
                coords, dist = cell_closest_point(args, cell, pos)
                if dist <= best:
                    best = dist
                    s.element_index = cell
                    s.element_coords = coords
        return s

    @wp.func
    def cell_count_in_args(args: NanogridCellArg):
        return args.cell_ijk.shape[0]

    @wp.func
    def side_position(args: NanogridSideArg, s: Sample):
        cell = args.face_cells[s.element_index][0]
        c = _face_to_cell_coords(args, s.element_index, cell, s.element_coords)
        return _index_to_world(args.cell_arg, _cell_origin(args.cell_arg, cell) + c)

    @wp.func
    def side_deformation_gradient(args: NanogridSideArg, s: Sample):
        t = _face_tangent_axes(args.face_flags[s.element_index])
        T = args.cell_arg.transform
        return wp.matrix_from_cols(wp.vec3(T[0, t[0]], T[1, t[0]], T[2, t[0]]),
                                   wp.vec3(T[0, t[1]], T[1, t[1]], T[2, t[1]]))

    @wp.func
    def side_inner_cell_index(args: NanogridSideArg, side_index: int):
        return args.face_cells[side_index][0]

    @wp.func
    def side_outer_cell_index(args: NanogridSideArg, side_index: int):
        return args.face_cells[side_index][1]

    @wp.func
    def side_inner_cell_coords(args: NanogridSideArg, side_index: int, side_coords: wp.vec3):
        return _face_to_cell_coords(args, side_index, args.face_cells[side_index][0], side_coords)

    @wp.func
    def side_outer_cell_coords(args: NanogridSideArg, side_index: int, side_coords: wp.vec3):
        return _face_to_cell_coords(args, side_index, args.face_cells[side_index][1], side_coords)

    @wp.func
    def side_from_cell_coords(args: NanogridSideArg, side_index: int, element_index: int, element_coords: wp.vec3):
        # the face coordinates of a cell point, OUTSIDE unless the point is on this face of that cell
        cells = args.face_cells[side_index]
        if element_index == cells[0] or element_index == cells[1]:
            flags = args.face_flags[side_index]
            a = flags & 3
            t = _face_tangent_axes(flags)
            across = float(args.face_ijk[side_index][a] - args.cell_arg.cell_ijk[element_index][a])
            if element_coords[a] == across:
                return wp.vec3(element_coords[t[0]], element_coords[t[1]], 0.0)
        return wp.vec3(OUTSIDE)

    @wp.func
    def side_to_cell_arg(side_arg: NanogridSideArg):
        return side_arg.cell_arg

    @wp.func
    def boundary_side_index(args: NanogridSideIndexArg, boundary_side_index: int):
        return args.boundary_face_indices[boundary_side_index]

    from ...program.func import Function
    return {name: f for name, f in locals().items() if isinstance(f, Function)}


def _as_volume_points(points, device):
    return points if isinstance(points, wp.array) else wp.array(np.asarray(points, np.int32), dtype=wp.int32,
                                                                  device=device)


class Nanogrid(MeshEnvironments, Geometry):
    """Sparse grid geometry: the active voxels of an index volume.

    Args:
        grid: a `wp.Volume` (ideally an index volume), whose active voxels are the cells
        temporary_store: accepted for Warp compatibility (warp_nb builds the topology on the host)
        scalar_type: wp.float32 or wp.float64
        cell_env: per-cell environment indices (int32), with `env_offsets`
        env_offsets: per-environment voxel offsets (wp.vec3i array or sequence)
        rebuildable: whether `rebuild` may change the cells later (needs a rebuildable volume)
    """

    dimension = 3
    cell_dimension = 3
    CellArg = NanogridCellArg
    SideArg = NanogridSideArg
    SideIndexArg = NanogridSideIndexArg
    FACE_AXIS_MASK = topo.FACE_AXIS_MASK
    FACE_INNER_OFFSET_BIT = topo.FACE_INNER_OFFSET
    FACE_OUTER_OFFSET_BIT = topo.FACE_OUTER_OFFSET
    GRID_AXIS_FLAG = topo.AXIS_FLAG

    def __init__(self, grid=None, temporary_store=None, scalar_type=wp.float32, cell_env=None, env_offsets=None,
                 rebuildable: bool = False, **kwargs):
        if not isinstance(grid, wp.Volume):
            raise TypeError(f"Nanogrid: `grid` must be a wp.Volume index grid, got {type(grid).__name__}")
        if rebuildable and not grid.is_rebuildable:
            raise RuntimeError("Nanogrid: rebuildable=True require a rebuildable Volume (allocated with "
                               "rebuildable=True)")
        self._cell_grid = grid
        self._rebuildable = bool(rebuildable)
        self.__dict__.update(type(self)._function_table)
        self._env_offsets_array = None
        if env_offsets is not None:
            self._env_offsets_array = env_offsets if isinstance(env_offsets, wp.array) else wp.array(
                np.asarray(env_offsets, np.int32).reshape(-1, 3), dtype=wp.vec3i, device=grid.device)
        self._build_topology()
        if cell_env is not None:
            env_count = kwargs.get("env_count")
            if env_count is None:
                env_count = self._env_offsets_array.shape[0] if self._env_offsets_array is not None else \
                    int(cell_env.numpy().max(initial=0)) + 1
            self.set_environments("Nanogrid", cell_env, env_count)
        self._make_default_dependent_implementations()
        self._use_scalar_type(scalar_type)

    @classmethod
    def from_environment_voxels(cls, *args, **kwargs):
        raise NotImplementedError(f"fem.{cls.__name__}.from_environment_voxels is not available in warp_nb yet; build "
                                  "the volume with wp.Volume.allocate_by_voxels and pass cell_env and env_offsets")

    # --- topology ---

    def _build_topology(self):
        voxels = self._cell_grid.get_voxels().numpy().astype(np.int64)
        if len(voxels) == 0:
            raise ValueError("Nanogrid requires at least one active cell")
        capacity = self._cell_grid.get_voxel_count() if self._rebuildable else len(voxels)
        self._active_cell_count = len(voxels)
        self._topology = topo.GridTopology(voxels, self._cell_grid, self._cell_grid.device)
        padded = np.concatenate([voxels, np.repeat(voxels[:1], max(capacity - len(voxels), 0), axis=0)])
        device = self._cell_grid.device
        t = self._topology
        self._cell_ijk = wp.array(padded.astype(np.int32), dtype=wp.vec3i, device=device)
        self._face_ijk = wp.array(t.face_ijk.astype(np.int32), dtype=wp.vec3i, device=device)
        self._face_flags = wp.array(t.face_flags.astype(np.int32), dtype=int, device=device)
        self._face_cells = wp.array(t.face_cells.astype(np.int32), dtype=wp.vec2i, device=device)
        self._boundary_face_indices = wp.array(t.boundary_faces.astype(np.int32), dtype=int, device=device)
        self._capacity = capacity
        self._vertex_table = None

    def rebuild_topology_from_cells(self):
        """Rebuild the vertex, face and edge grids after the cell volume was rebuilt."""
        if not self._rebuildable:
            raise RuntimeError("Nanogrid.rebuild_topology_from_cells: this Nanogrid was not constructed in "
                               "rebuildable mode (pass rebuildable=True)")
        self._build_topology()

    def rebuild(self, points, status=None, point_mask=None, point_envs=None):
        """Rebuild the cell volume from new voxel points (see wp.Volume.rebuild), then the topology.
        With environments, `point_envs` gives each point's environment and the environment's offset is
        added to its voxel."""
        if not self._rebuildable:
            raise RuntimeError("Nanogrid.rebuild: this Nanogrid was not constructed in rebuildable mode")
        envs = None
        if self._env_offsets_array is not None and self.cell_env is not None:
            if point_envs is None:
                raise ValueError("Nanogrid.rebuild: point_envs is required for a grid with environments")
            pts = (points.numpy() if isinstance(points, wp.array) else np.asarray(points)).reshape(-1, 3)
            envs = (point_envs.numpy() if isinstance(point_envs, wp.array) else np.asarray(point_envs)).reshape(-1)
            keep = (envs >= 0) & (envs < self._env_offsets_array.shape[0])
            if point_mask is not None:
                keep &= (point_mask.numpy() if isinstance(point_mask, wp.array) else np.asarray(point_mask)) != 0
            offsets = self._env_offsets_array.numpy().astype(np.int64)
            pts = pts[keep].astype(np.int64) + offsets[envs[keep]]
            envs = envs[keep]
            points, point_mask = wp.array(pts.astype(np.int32), dtype=wp.int32, device=self._cell_grid.device), None
        self._cell_grid.rebuild(_as_volume_points(points, self._cell_grid.device), status=status,
                                point_mask=point_mask)
        self._build_topology()
        if envs is not None:
            voxels = self._cell_ijk.numpy().astype(np.int64)
            index = topo.VoxelIndex(pts)
            cell_env = envs[np.maximum(index(voxels), 0)]
            cell_env[self._active_cell_count:] = 0
            self.cell_env = wp.array(cell_env.astype(np.int32), dtype=int, device=self._cell_grid.device)

    # --- counts and grids ---

    @property
    def cell_grid(self):
        return self._cell_grid

    @property
    def vertex_grid(self):
        return self._topology.vertex_grid

    @property
    def face_grid(self):
        return self._topology.face_grid

    @property
    def _topology_face_grid(self):
        return self._topology.face_grid

    @property
    def edge_grid(self):
        return self._topology.edge_grid

    @property
    def transform(self):
        return self._cell_grid.transform

    @property
    def env_offsets(self):
        return self._env_offsets_array

    @property
    def is_rebuildable(self) -> bool:
        return self._rebuildable

    def cell_count(self) -> int:
        return self._capacity

    def vertex_count(self) -> int:
        return 8 * self._capacity if self._rebuildable else len(self._topology.vertices)

    def edge_count(self) -> int:
        return 12 * self._capacity if self._rebuildable else self._topology.edge_grid.get_voxel_count()

    def side_count(self) -> int:
        return len(self._topology.face_ijk)

    def boundary_side_count(self) -> int:
        return len(self._topology.boundary_faces)

    def cell_vertex_table(self):
        """(cell_count, 8) int array of each cell's vertices in Hexmesh's corner order (bottom square
        counter-clockwise, then the top), for the node topologies built from a vertex table."""
        if getattr(self, "_vertex_table", None) is None:
            corners = np.array([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (1, 1, 1),
                                (0, 1, 1)], np.int64)
            cells = self._cell_ijk.numpy().astype(np.int64)
            ids = self._topology.vertex_index((cells[:, None, :] + corners[None]).reshape(-1, 3))
            self._vertex_table = wp.array(ids.reshape(-1, 8).astype(np.int32), dtype=int,
                                          device=self._cell_grid.device)
        return self._vertex_table

    def reference_cell(self):
        return Element.CUBE

    def reference_side(self):
        return Element.SQUARE

    def fill_cell_arg(self, args, device):
        T = np.asarray(self._cell_grid.transform, np.float64)
        mat = wp.types.matrix(shape=(3, 3), dtype=self.scalar_type)
        vec = wp.types.vector(length=3, dtype=self.scalar_type)
        args.cell_grid = wp.uint64(self._cell_grid.id)
        args.cell_ijk = self._cell_ijk.to(device)
        args.cell_env = self.cell_env_arg(device)
        args.env_offsets = (self._env_offsets_array if self._env_offsets_array is not None else
                            _empty_offsets(device)).to(device)
        args.transform = mat(*T.reshape(-1).tolist())
        args.inverse_transform = mat(*np.linalg.inv(T).reshape(-1).tolist())
        args.translation = vec(*np.asarray(self._cell_grid.translation, np.float64).tolist())

    def fill_side_arg(self, args, device):
        args.cell_arg = self.cell_arg_value(device)
        args.face_ijk = self._face_ijk.to(device)
        args.face_flags = self._face_flags.to(device)
        args.face_cells = self._face_cells.to(device)

    def fill_side_index_arg(self, args, device):
        args.boundary_face_indices = self._boundary_face_indices.to(device)


_EMPTY_OFFSETS: dict = {}


def _empty_offsets(device):
    key = str(device)
    if key not in _EMPTY_OFFSETS:
        _EMPTY_OFFSETS[key] = wp.array(np.zeros((0, 3), np.int32), dtype=wp.vec3i, device=device)
    return _EMPTY_OFFSETS[key]


_FUNCTIONS = _device_functions()
Nanogrid._function_table = _FUNCTIONS  # (an AdaptiveNanogrid has its own)
for _name, _f in _FUNCTIONS.items():
    setattr(Nanogrid, _name, _f)
