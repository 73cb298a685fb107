"""`warp.fem.AdaptiveNanogrid`: a Nanogrid whose cells have levels: a level-l cell is 2^l voxels of
the finest grid wide, stored in the cell volume at its origin voxel (aligned to 2^l), with its level
in `cell_level`. Built directly, or from a hierarchy of grids or a refinement field (adaptivity.py).

What changes from nanogrid.py (Warp's conventions, checked against warp-lang): positions and
gradients scale by 2^level; a face between cells of two levels is the finer cell's face (so a coarse
cell has several faces on one side) and carries the finer level in its flags (bits 4+); vertices are
every cell corner, hanging ones included; spaces share nodes only between cells of one level (their
edges and faces are "stacked": one per origin, axis and level), so they are not conforming across
resolution changes, as Warp's."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from ..types import Sample
from .geometry import OUTSIDE
from .nanogrid import Nanogrid, _empty_offsets
from . import nanogrid_topology as topo


@wp.struct
class AdaptiveNanogridCellArg:
    cell_grid: wp.uint64
    cell_ijk: wp.array(dtype=wp.vec3i)
    cell_level: wp.array(dtype=int)
    level_count: int
    cell_env: wp.array(dtype=int)  # empty: one environment
    env_offsets: wp.array(dtype=wp.vec3i)  # empty: no offsets
    transform: wp.mat33
    inverse_transform: wp.mat33
    translation: wp.vec3


@wp.struct
class AdaptiveNanogridSideArg:
    cell_arg: AdaptiveNanogridCellArg
    face_ijk: wp.array(dtype=wp.vec3i)
    face_flags: wp.array(dtype=int)
    face_cells: wp.array(dtype=wp.vec2i)


@wp.func
def _cell_scale(args: AdaptiveNanogridCellArg, cell_index: int):
    return float(1 << args.cell_level[cell_index])


@wp.func
def _cell_origin(args: AdaptiveNanogridCellArg, cell_index: int):
    ijk = args.cell_ijk[cell_index]
    if args.env_offsets.shape[0] > 0:
        env = int(0)
        if args.cell_env.shape[0] > 0:
            env = args.cell_env[cell_index]
        ijk = ijk - args.env_offsets[env]
    return wp.vec3(float(ijk[0]) - 0.5, float(ijk[1]) - 0.5, float(ijk[2]) - 0.5)


@wp.func
def _face_axes(flags: int):
    a = flags & 3
    if (flags & 4) != 0:
        return wp.vec3i(a, (a + 2) % 3, (a + 1) % 3)
    return wp.vec3i(a, (a + 1) % 3, (a + 2) % 3)


@wp.func
def _face_to_cell_coords(args: AdaptiveNanogridSideArg, side_index: int, cell: int, side_coords: wp.vec3):
    flags = args.face_flags[side_index]
    t = _face_axes(flags)
    face_size = float(1 << (flags >> 4))
    cell_size = _cell_scale(args.cell_arg, cell)
    d = args.face_ijk[side_index] - args.cell_arg.cell_ijk[cell]
    c = wp.vec3(0.0)
    c[t[0]] = float(d[t[0]]) / cell_size
    c[t[1]] = (float(d[t[1]]) + side_coords[0] * face_size) / cell_size
    c[t[2]] = (float(d[t[2]]) + side_coords[1] * face_size) / cell_size
    return c


@wp.func
def _find_cell(args: AdaptiveNanogridCellArg, v: wp.vec3i):
    # the cell holding finest voxel v: the aligned origin of each level, looked up in the cell grid
    for level in range(args.level_count):
        s = 1 << level
        o = wp.vec3i(v[0] - (((v[0] % s) + s) % s), v[1] - (((v[1] % s) + s) % s), v[2] - (((v[2] % s) + s) % s))
        cell = wp.volume_lookup_index(args.cell_grid, o[0], o[1], o[2])
        if cell >= 0:
            if args.cell_level[cell] == level:
                return cell
    return -1


def _device_functions() -> dict:
    @wp.func
    def cell_position(args: AdaptiveNanogridCellArg, s: Sample):
        return args.transform @ (_cell_origin(args, s.element_index) + s.element_coords * _cell_scale(
            args, s.element_index)) + args.translation

    @wp.func
    def cell_deformation_gradient(args: AdaptiveNanogridCellArg, s: Sample):
        return args.transform * _cell_scale(args, s.element_index)

    @wp.func
    def cell_inverse_deformation_gradient(args: AdaptiveNanogridCellArg, s: Sample):
        return args.inverse_transform * (1.0 / _cell_scale(args, s.element_index))

    @wp.func
    def cell_coordinates(args: AdaptiveNanogridCellArg, cell_index: int, pos: wp.vec3):
        idx = args.inverse_transform @ (pos - args.translation)
        return (idx - _cell_origin(args, cell_index)) / _cell_scale(args, cell_index)

    @wp.func
    def cell_closest_point(args: AdaptiveNanogridCellArg, cell_index: int, pos: wp.vec3):
        c = cell_coordinates(args, cell_index, pos)
        cc = wp.vec3(wp.clamp(c[0], 0.0, 1.0), wp.clamp(c[1], 0.0, 1.0), wp.clamp(c[2], 0.0, 1.0))
        return cc, wp.length_sq(args.transform @ (cc - c) * _cell_scale(args, cell_index))

    @wp.func
    def cell_lookup(args: AdaptiveNanogridCellArg, pos: wp.vec3, max_dist: float):
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
                cell = _find_cell(args, v + d + offset)
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
    def cell_count_in_args(args: AdaptiveNanogridCellArg):
        return args.cell_ijk.shape[0]

    @wp.func
    def side_position(args: AdaptiveNanogridSideArg, s: Sample):
        cell = args.face_cells[s.element_index][0]
        c = _face_to_cell_coords(args, s.element_index, cell, s.element_coords)
        return args.cell_arg.transform @ (_cell_origin(args.cell_arg, cell) + c * _cell_scale(
            args.cell_arg, cell)) + args.cell_arg.translation

    @wp.func
    def side_deformation_gradient(args: AdaptiveNanogridSideArg, s: Sample):
        flags = args.face_flags[s.element_index]
        t = _face_axes(flags)
        T = args.cell_arg.transform * float(1 << (flags >> 4))
        return wp.matrix_from_cols(wp.vec3(T[0, t[1]], T[1, t[1]], T[2, t[1]]),
                                   wp.vec3(T[0, t[2]], T[1, t[2]], T[2, t[2]]))

    @wp.func
    def side_inner_cell_index(args: AdaptiveNanogridSideArg, side_index: int):
        return args.face_cells[side_index][0]

    @wp.func
    def side_outer_cell_index(args: AdaptiveNanogridSideArg, side_index: int):
        return args.face_cells[side_index][1]

    @wp.func
    def side_inner_cell_coords(args: AdaptiveNanogridSideArg, side_index: int, side_coords: wp.vec3):
        return _face_to_cell_coords(args, side_index, args.face_cells[side_index][0], side_coords)

    @wp.func
    def side_outer_cell_coords(args: AdaptiveNanogridSideArg, side_index: int, side_coords: wp.vec3):
        return _face_to_cell_coords(args, side_index, args.face_cells[side_index][1], side_coords)

    @wp.func
    def side_from_cell_coords(args: AdaptiveNanogridSideArg, side_index: int, element_index: int,
                              element_coords: wp.vec3):
        cells = args.face_cells[side_index]
        if element_index == cells[0] or element_index == cells[1]:
            flags = args.face_flags[side_index]
            t = _face_axes(flags)
            face_size = float(1 << (flags >> 4))
            cell_size = _cell_scale(args.cell_arg, element_index)
            d = args.face_ijk[side_index] - args.cell_arg.cell_ijk[element_index]
            if element_coords[t[0]] * cell_size == float(d[t[0]]):
                u = (element_coords[t[1]] * cell_size - float(d[t[1]])) / face_size
                v = (element_coords[t[2]] * cell_size - float(d[t[2]])) / face_size
                if u >= 0.0 and u <= 1.0 and v >= 0.0 and v <= 1.0:
                    return wp.vec3(u, v, 0.0)
        return wp.vec3(OUTSIDE)

    @wp.func
    def side_to_cell_arg(side_arg: AdaptiveNanogridSideArg):
        return side_arg.cell_arg

    from ...program.func import Function
    return {name: f for name, f in locals().items() if isinstance(f, Function)}


class AdaptiveNanogrid(Nanogrid):
    """Adaptive sparse grid geometry: cells of `level_count` levels.

    Args:
        cell_grid: index volume of the finest resolution whose active voxels are the cells' origins
        cell_level: per-cell level (wp.array of uint8 or int, in the volume's voxel order)
        level_count: number of levels (a level-l cell is 2^l voxels wide)
        temporary_store: accepted for Warp compatibility
        scalar_type: wp.float32 or wp.float64
    """

    CellArg = AdaptiveNanogridCellArg
    SideArg = AdaptiveNanogridSideArg

    def __init__(self, cell_grid, cell_level, level_count: int, temporary_store=None, scalar_type=wp.float32,
                 cell_env=None, env_offsets=None, **kwargs):
        if not isinstance(cell_level, wp.array) or cell_level.ndim != 1:
            raise TypeError("AdaptiveNanogrid: `cell_level` must be a 1-d warp array (one level per active voxel)")
        levels = cell_level.numpy().astype(np.int64)
        if isinstance(cell_grid, wp.Volume) and levels.shape[0] != cell_grid.get_voxel_count():
            raise ValueError(f"AdaptiveNanogrid: `cell_level` has {levels.shape[0]} entries, the grid "
                             f"{cell_grid.get_voxel_count()} active voxels")
        if levels.size and (levels.min() < 0 or levels.max() >= int(level_count)):
            raise ValueError(f"AdaptiveNanogrid: `cell_level` values must lie in [0, {level_count}), got "
                             f"[{levels.min()}, {levels.max()}]")
        self._levels_np = levels
        self._level_count = int(level_count)
        self._cell_level = wp.array(levels.astype(np.int32), dtype=int, device=getattr(cell_grid, "device", None))
        super().__init__(cell_grid, temporary_store=temporary_store, scalar_type=scalar_type, cell_env=cell_env,
                         env_offsets=env_offsets, **kwargs)

    def _build_topology(self):
        voxels = self._cell_grid.get_voxels().numpy().astype(np.int64)
        if len(voxels) == 0:
            raise ValueError("AdaptiveNanogrid requires at least one active cell")
        self._rebuildable = False
        self._capacity = self._active_cell_count = len(voxels)
        self._topology = topo.GridTopology(voxels, self._cell_grid, self._cell_grid.device, levels=self._levels_np)
        device = self._cell_grid.device
        t = self._topology
        self._cell_ijk = wp.array(voxels.astype(np.int32), dtype=wp.vec3i, device=device)
        self._face_ijk = wp.array(t.face_ijk.astype(np.int32), dtype=wp.vec3i, device=device)
        self._face_flags = wp.array(t.face_flags.astype(np.int32), dtype=int, device=device)
        self._face_cells = wp.array(t.face_cells.astype(np.int32), dtype=wp.vec2i, device=device)
        self._boundary_face_indices = wp.array(t.boundary_faces.astype(np.int32), dtype=int, device=device)
        self._vertex_table = None

    @property
    def level_count(self) -> int:
        return self._level_count

    @property
    def cell_level(self):
        return self._cell_level

    def vertex_count(self) -> int:
        return len(self._topology.vertices)

    def stacked_face_count(self) -> int:
        return self._topology.stacked_face_count

    def stacked_edge_count(self) -> int:
        return self._topology.stacked_edge_count

    def edge_count(self) -> int:
        return self._topology.stacked_edge_count

    def rebuild(self, *args, **kwargs):
        raise RuntimeError("AdaptiveNanogrid cannot be rebuilt (it was not constructed in rebuildable mode)")

    def rebuild_topology_from_cells(self):
        raise RuntimeError("AdaptiveNanogrid.rebuild_topology_from_cells: the grid was not constructed in "
                           "rebuildable mode")

    def cell_vertex_table(self):
        raise NotImplementedError("Nedelec and Raviart-Thomas spaces on an AdaptiveNanogrid are not supported by "
                                  "warp_nb.fem yet")

    def fill_cell_arg(self, args, device):
        T = np.asarray(self._cell_grid.transform, np.float64)
        mat = wp.types.matrix(shape=(3, 3), dtype=self.scalar_type)
        vec = wp.types.vector(length=3, dtype=self.scalar_type)
        args.cell_grid = wp.uint64(self._cell_grid.id)
        args.cell_ijk = self._cell_ijk.to(device)
        args.cell_level = self._cell_level.to(device)
        args.level_count = self._level_count
        args.cell_env = self.cell_env_arg(device)
        args.env_offsets = (self._env_offsets_array if self._env_offsets_array is not None else
                            _empty_offsets(device)).to(device)
        args.transform = mat(*T.reshape(-1).tolist())
        args.inverse_transform = mat(*np.linalg.inv(T).reshape(-1).tolist())
        args.translation = vec(*np.asarray(self._cell_grid.translation, np.float64).tolist())


_FUNCTIONS = _device_functions()
AdaptiveNanogrid._function_table = _FUNCTIONS
for _name, _f in _FUNCTIONS.items():
    setattr(AdaptiveNanogrid, _name, _f)
