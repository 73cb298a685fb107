"""`warp.fem.Grid3D`: a regular grid of `res[0] x res[1] x res[2]` boxes between `bounds_lo` and
`bounds_hi`, with no stored topology: every index is arithmetic.

Numbering (Warp's, checked against warp-lang): cell (x, y, z) is `(x * res.y + y) * res.z + z`. A
side is named by its normal `axis` and its `origin` vertex. The first `3 * cell_count` sides are,
axis by axis, those whose origin is a cell (numbered like it); then come the far boundaries
(`origin[axis] == res[axis]`) of axis 0, 1 and 2, each numbered `origin[u] * res[v] + origin[v]`
with `u = axis + 1`, `v = axis + 2` (mod 3). The side coordinates run along u then v; a side whose
origin is 0 along its axis lies on the low boundary and reverses its u direction, so that the
normal `F[:, 0] x F[:, 1]` always points from the inner cell to the outer one (outwards on the
boundary)."""

import warp_nb as wp

from ..types import Sample
from .element import Element
from .geometry import OUTSIDE, Geometry
from .grid_2d import check_grid_arguments
from .replicated import Replicable

mat32 = wp.types.matrix(shape=(3, 2), dtype=wp.float32)


@wp.struct
class Grid3DCellArg:
    res: wp.vec3i
    cell_size: wp.vec3
    origin: wp.vec3


@wp.struct
class Grid3DSideArg:
    cell_count: int
    axis_offsets: wp.vec3i  # first index of the far-boundary sides of each axis
    cell_arg: Grid3DCellArg


@wp.struct
class Grid3DSide:
    axis: int  # the side's normal axis
    origin: wp.vec3i  # the grid vertex the side starts from


@wp.func
def _grid3d_cell(res: wp.vec3i, cell_index: int):
    yz = res[1] * res[2]
    return wp.vec3i(cell_index // yz, (cell_index % yz) // res[2], cell_index % res[2])


@wp.func
def _grid3d_cell_index(res: wp.vec3i, cell: wp.vec3i):
    return (cell[0] * res[1] + cell[1]) * res[2] + cell[2]


@wp.func
def _grid3d_get_side(args: Grid3DSideArg, side_index: int):
    res = args.cell_arg.res
    if side_index < 3 * args.cell_count:
        axis = side_index // args.cell_count
        return Grid3DSide(axis, _grid3d_cell(res, side_index - axis * args.cell_count))
    axis = 0
    if side_index >= args.axis_offsets[2]:
        axis = 2
    elif side_index >= args.axis_offsets[1]:
        axis = 1
    u = (axis + 1) % 3
    v = (axis + 2) % 3
    local = side_index - args.axis_offsets[axis]
    origin = wp.vec3i(0)
    origin[axis] = res[axis]
    origin[u] = local // res[v]
    origin[v] = local % res[v]
    return Grid3DSide(axis, origin)


@wp.func
def _grid3d_side_index(args: Grid3DSideArg, side: Grid3DSide):
    res = args.cell_arg.res
    if side.origin[side.axis] == res[side.axis]:
        u = (side.axis + 1) % 3
        v = (side.axis + 2) % 3
        return args.axis_offsets[side.axis] + side.origin[u] * res[v] + side.origin[v]
    return side.axis * args.cell_count + _grid3d_cell_index(res, side.origin)


@wp.func
def _grid3d_side_cell_coords(side: Grid3DSide, across: float, side_coords: wp.vec3):
    c = wp.vec3(0.0)
    c[side.axis] = across
    c[(side.axis + 1) % 3] = side_coords[0]
    if side.origin[side.axis] == 0:
        c[(side.axis + 1) % 3] = 1.0 - side_coords[0]
    c[(side.axis + 2) % 3] = side_coords[1]
    return c


class Grid3D(Replicable, Geometry):
    """Three-dimensional regular grid geometry.

    Args:
        res: resolution of the grid along each dimension
        bounds_lo: position of the lower bound of the axis-aligned grid (default: origin)
        bounds_hi: position of the upper bound of the axis-aligned grid (default: (1, 1, 1))
    """

    dimension = 3
    cell_dimension = 3
    CellArg = Grid3DCellArg
    SideArg = Grid3DSideArg
    SideIndexArg = Grid3DSideArg
    ARGS_FROM_ATTRIBUTES = True  # (res, bounds: its argument structs are kept, see Geometry)
    Side = Grid3DSide
    Cell = wp.vec3i

    def __init__(self, res, bounds_lo=None, bounds_hi=None, scalar_type: type = wp.float32, env_count: int = 1):
        res, lo, hi = check_grid_arguments("Grid3D", 3, res, bounds_lo, bounds_hi, scalar_type, env_count)
        self._res = wp.vec3i(*res)
        self._vec = wp.types.vector(length=3, dtype=scalar_type)
        self.bounds_lo = self._vec(*lo)
        self.bounds_hi = self._vec(*hi)
        self._make_default_dependent_implementations()
        self._use_scalar_type(scalar_type)

    @property
    def res(self):
        return self._res

    @property
    def origin(self):
        return self.bounds_lo

    @property
    def extents(self):
        return self._vec(*(self.bounds_hi[k] - self.bounds_lo[k] for k in range(3)))

    @property
    def cell_size(self):
        ext = self.extents
        return self._vec(*(ext[k] / self._res[k] for k in range(3)))

    @property
    def strides(self):
        return wp.vec3i(self._res[1] * self._res[2], self._res[2], 1)

    def cell_count(self) -> int:
        return self._res[0] * self._res[1] * self._res[2]

    def vertex_count(self) -> int:
        return (self._res[0] + 1) * (self._res[1] + 1) * (self._res[2] + 1)

    def edge_count(self) -> int:
        r = self._res
        return r[0] * (r[1] + 1) * (r[2] + 1) + (r[0] + 1) * r[1] * (r[2] + 1) + (r[0] + 1) * (r[1] + 1) * r[2]

    def _far_side_counts(self):
        r = self._res
        return r[1] * r[2], r[2] * r[0], r[0] * r[1]

    def side_count(self) -> int:
        return 3 * self.cell_count() + sum(self._far_side_counts())

    def boundary_side_count(self) -> int:
        return 2 * sum(self._far_side_counts())

    def reference_cell(self):
        return Element.CUBE

    def reference_side(self):
        return Element.SQUARE

    def fill_cell_arg(self, args, device):
        args.res = self._res
        args.cell_size = self.cell_size
        args.origin = self.bounds_lo

    def fill_side_arg(self, args, device):
        far = self._far_side_counts()
        first = 3 * self.cell_count()
        args.cell_count = self.cell_count()
        args.axis_offsets = wp.vec3i(first, first + far[0], first + far[0] + far[1])
        args.cell_arg = self.cell_arg_value(device)


def _device_functions() -> dict:
    """Grid3D's device functions: class attributes, as they depend on no instance."""

    @wp.func
    def cell_position(args: Grid3DCellArg, s: Sample):
        cell = _grid3d_cell(args.res, s.element_index)
        return wp.vec3(args.origin[0] + (float(cell[0]) + s.element_coords[0]) * args.cell_size[0],
                       args.origin[1] + (float(cell[1]) + s.element_coords[1]) * args.cell_size[1],
                       args.origin[2] + (float(cell[2]) + s.element_coords[2]) * args.cell_size[2])

    @wp.func
    def cell_deformation_gradient(args: Grid3DCellArg, s: Sample):
        return wp.mat33(args.cell_size[0], 0.0, 0.0, 0.0, args.cell_size[1], 0.0, 0.0, 0.0, args.cell_size[2])

    @wp.func
    def cell_inverse_deformation_gradient(args: Grid3DCellArg, s: Sample):
        return wp.mat33(1.0 / args.cell_size[0], 0.0, 0.0, 0.0, 1.0 / args.cell_size[1], 0.0,
                        0.0, 0.0, 1.0 / args.cell_size[2])

    @wp.func
    def cell_measure(args: Grid3DCellArg, s: Sample):
        return args.cell_size[0] * args.cell_size[1] * args.cell_size[2]

    @wp.func
    def cell_coordinates(args: Grid3DCellArg, cell_index: int, pos: wp.vec3):
        cell = _grid3d_cell(args.res, cell_index)
        return wp.vec3((pos[0] - args.origin[0]) / args.cell_size[0] - float(cell[0]),
                       (pos[1] - args.origin[1]) / args.cell_size[1] - float(cell[1]),
                       (pos[2] - args.origin[2]) / args.cell_size[2] - float(cell[2]))

    @wp.func
    def cell_closest_point(args: Grid3DCellArg, cell_index: int, pos: wp.vec3):
        c = cell_coordinates(args, cell_index, pos)
        c = wp.vec3(wp.clamp(c[0], 0.0, 1.0), wp.clamp(c[1], 0.0, 1.0), wp.clamp(c[2], 0.0, 1.0))
        s = Sample()
        s.element_index = cell_index
        s.element_coords = c
        return c, wp.length_sq(cell_position(args, s) - pos)

    @wp.func
    def cell_lookup(args: Grid3DCellArg, pos: wp.vec3, max_dist: float):
        # the cell holding pos, or the nearest one if pos is within max_dist of the grid (else none)
        cell = wp.vec3i(0)
        coords = wp.vec3(0.0)
        dist_sq = float(0.0)
        for k in range(3):
            loc = (pos[k] - args.origin[k]) / args.cell_size[k]
            cell[k] = wp.clamp(int(wp.floor(loc)), 0, args.res[k] - 1)
            # projected onto the grid with min/max first: no gradient across its boundary (see Grid2D)
            inside = wp.max(0.0, wp.min(loc, float(args.res[k])))
            coords[k] = wp.clamp(inside - float(cell[k]), 0.0, 1.0)
            gap = (loc - float(cell[k]) - coords[k]) * args.cell_size[k]
            dist_sq += gap * gap
        s = Sample()
        s.element_index = _grid3d_cell_index(args.res, cell)
        if dist_sq > max_dist * max_dist:
            s.element_index = -1
        s.element_coords = coords
        s.qp_index = -1
        return s

    @wp.func
    def cell_count_in_args(args: Grid3DCellArg):
        return args.res[0] * args.res[1] * args.res[2]

    @wp.func
    def side_position(args: Grid3DSideArg, s: Sample):
        side = _grid3d_get_side(args, s.element_index)
        c = _grid3d_side_cell_coords(side, 0.0, s.element_coords)
        ca = args.cell_arg
        return wp.vec3(ca.origin[0] + (float(side.origin[0]) + c[0]) * ca.cell_size[0],
                       ca.origin[1] + (float(side.origin[1]) + c[1]) * ca.cell_size[1],
                       ca.origin[2] + (float(side.origin[2]) + c[2]) * ca.cell_size[2])

    @wp.func
    def side_deformation_gradient(args: Grid3DSideArg, s: Sample):
        side = _grid3d_get_side(args, s.element_index)
        u = (side.axis + 1) % 3
        v = (side.axis + 2) % 3
        F = mat32(0.0)
        F[u, 0] = args.cell_arg.cell_size[u]
        if side.origin[side.axis] == 0:
            F[u, 0] = -args.cell_arg.cell_size[u]
        F[v, 1] = args.cell_arg.cell_size[v]
        return F

    @wp.func
    def side_measure(args: Grid3DSideArg, s: Sample):
        side = _grid3d_get_side(args, s.element_index)
        return args.cell_arg.cell_size[(side.axis + 1) % 3] * args.cell_arg.cell_size[(side.axis + 2) % 3]

    @wp.func
    def side_measure_ratio(args: Grid3DSideArg, s: Sample):
        side = _grid3d_get_side(args, s.element_index)
        return 1.0 / args.cell_arg.cell_size[side.axis]

    @wp.func
    def side_normal(args: Grid3DSideArg, s: Sample):
        side = _grid3d_get_side(args, s.element_index)
        n = wp.vec3(0.0)
        n[side.axis] = 1.0
        if side.origin[side.axis] == 0:
            n[side.axis] = -1.0
        return n

    @wp.func
    def side_inner_cell_index(args: Grid3DSideArg, side_index: int):
        side = _grid3d_get_side(args, side_index)
        cell = side.origin
        if cell[side.axis] > 0:
            cell[side.axis] = cell[side.axis] - 1
        return _grid3d_cell_index(args.cell_arg.res, cell)

    @wp.func
    def side_outer_cell_index(args: Grid3DSideArg, side_index: int):
        side = _grid3d_get_side(args, side_index)
        cell = side.origin
        if cell[side.axis] == args.cell_arg.res[side.axis]:
            cell[side.axis] = cell[side.axis] - 1
        return _grid3d_cell_index(args.cell_arg.res, cell)

    @wp.func
    def side_inner_cell_coords(args: Grid3DSideArg, side_index: int, side_coords: wp.vec3):
        side = _grid3d_get_side(args, side_index)
        across = float(1.0)  # noqa: UP018
        if side.origin[side.axis] == 0:
            across = 0.0
        return _grid3d_side_cell_coords(side, across, side_coords)

    @wp.func
    def side_outer_cell_coords(args: Grid3DSideArg, side_index: int, side_coords: wp.vec3):
        side = _grid3d_get_side(args, side_index)
        across = float(0.0)  # noqa: UP018
        if side.origin[side.axis] == args.cell_arg.res[side.axis]:
            across = 1.0
        return _grid3d_side_cell_coords(side, across, side_coords)

    @wp.func
    def side_from_cell_coords(args: Grid3DSideArg, side_index: int, element_index: int, element_coords: wp.vec3):
        # the side coordinates of a cell point, OUTSIDE unless the point is on this side of that cell
        side = _grid3d_get_side(args, side_index)
        cell = _grid3d_cell(args.cell_arg.res, element_index)
        u = (side.axis + 1) % 3
        v = (side.axis + 2) % 3
        across = float(side.origin[side.axis] - cell[side.axis])
        same_column = cell[u] == side.origin[u] and cell[v] == side.origin[v]
        if same_column and element_coords[side.axis] == across:
            cu = element_coords[u]
            if side.origin[side.axis] == 0:
                cu = 1.0 - cu
            return wp.vec3(cu, element_coords[v], 0.0)
        return wp.vec3(OUTSIDE)

    @wp.func
    def side_to_cell_arg(side_arg: Grid3DSideArg):
        return side_arg.cell_arg

    @wp.func
    def boundary_side_index(args: Grid3DSideArg, boundary_side_index: int):
        # per axis, the low and far sides of each (u, v) column alternate
        res = args.cell_arg.res
        axis = int(0)
        i = boundary_side_index
        for _k in range(2):
            count = 2 * res[(axis + 1) % 3] * res[(axis + 2) % 3]
            if i >= count:
                i = i - count
                axis = axis + 1
        u = (axis + 1) % 3
        v = (axis + 2) % 3
        origin = wp.vec3i(0)
        origin[u] = (i // 2) // res[v]
        origin[v] = (i // 2) % res[v]
        if i % 2 == 1:
            origin[axis] = res[axis]
        return _grid3d_side_index(args, Grid3DSide(axis, origin))

    return dict(
        cell_position=cell_position,
        cell_deformation_gradient=cell_deformation_gradient,
        cell_inverse_deformation_gradient=cell_inverse_deformation_gradient,
        cell_measure=cell_measure,
        cell_coordinates=cell_coordinates,
        cell_closest_point=cell_closest_point,
        cell_lookup=cell_lookup,
        cell_count_in_args=cell_count_in_args,
        side_position=side_position,
        side_deformation_gradient=side_deformation_gradient,
        side_measure=side_measure,
        side_measure_ratio=side_measure_ratio,
        side_normal=side_normal,
        side_inner_cell_index=side_inner_cell_index,
        side_outer_cell_index=side_outer_cell_index,
        side_inner_cell_coords=side_inner_cell_coords,
        side_outer_cell_coords=side_outer_cell_coords,
        side_from_cell_coords=side_from_cell_coords,
        side_to_cell_arg=side_to_cell_arg,
        boundary_side_index=boundary_side_index,
    )


for _name, _f in _device_functions().items():
    setattr(Grid3D, _name, _f)
