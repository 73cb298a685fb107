"""`warp.fem.Grid2D`: a regular grid of `res[0] x res[1]` rectangles between `bounds_lo` and
`bounds_hi`, with no stored topology: every index is arithmetic.

Numbering (Warp's, checked against warp-lang): cell (x, y) is `x * res[1] + y`. A side is named by
its normal `axis` and its `origin`, the grid vertex it starts from. Sides come in four blocks: those
along axis 0 with `origin.x < res.x` (`x * res.y + y`), those along axis 1 with `origin.y < res.y`
(after the first `res.x * res.y`, same numbering), then the far boundary of axis 0 (`x == res.x`,
by y) and of axis 1 (`y == res.y`, by x). A side whose origin is 0 along its axis is "flipped":
it lies on the low boundary, so its orientation is reversed for its normal to point outwards. The
side coordinate runs along the other axis, in the direction that makes the normal
`(F.y, -F.x)` point from the inner cell (below the side) to the outer cell (above it)."""

import warp_nb as wp

from ..types import Sample
from .element import Element
from .geometry import OUTSIDE, Geometry, check_scalar_type
from .replicated import Replicable


@wp.struct
class Grid2DCellArg:
    res: wp.vec2i
    cell_size: wp.vec2
    origin: wp.vec2


@wp.struct
class Grid2DSideArg:
    cell_count: int
    axis_offsets: wp.vec2i  # first index of the far-boundary sides of each axis
    cell_arg: Grid2DCellArg


@wp.struct
class Grid2DSide:
    axis: int  # the side's normal axis
    origin: wp.vec2i  # the grid vertex the side starts from


@wp.func
def _grid2d_cell(res: wp.vec2i, cell_index: int):
    return wp.vec2i(cell_index // res[1], cell_index % res[1])


@wp.func
def _grid2d_cell_index(res: wp.vec2i, cell: wp.vec2i):
    return cell[0] * res[1] + cell[1]


@wp.func
def _grid2d_get_side(args: Grid2DSideArg, side_index: int):
    res = args.cell_arg.res
    if side_index < 2 * args.cell_count:
        axis = side_index // args.cell_count
        return Grid2DSide(axis, _grid2d_cell(res, side_index - axis * args.cell_count))
    # far boundary: origin at res along the side's axis
    if side_index < args.axis_offsets[1]:
        return Grid2DSide(0, wp.vec2i(res[0], side_index - args.axis_offsets[0]))
    return Grid2DSide(1, wp.vec2i(side_index - args.axis_offsets[1], res[1]))


@wp.func
def _grid2d_side_index(args: Grid2DSideArg, side: Grid2DSide):
    res = args.cell_arg.res
    if side.origin[side.axis] == res[side.axis]:
        return args.axis_offsets[side.axis] + side.origin[1 - side.axis]
    return side.axis * args.cell_count + _grid2d_cell_index(res, side.origin)


@wp.func
def _grid2d_tangent_sign(side: Grid2DSide):
    # +1 where the side coordinate runs along the other axis' positive direction
    sign = float(1.0)  # noqa: UP018 (float64 in a float64 grid's copy)
    if side.axis == 1:
        sign = -1.0
    if side.origin[side.axis] == 0:
        sign = -sign
    return sign


@wp.func
def _grid2d_along(side: Grid2DSide, t: float):
    # the cell coordinate along the side's other axis for side coordinate t
    if _grid2d_tangent_sign(side) > 0.0:
        return t
    return 1.0 - t


@wp.func
def _grid2d_side_cell_coords(side: Grid2DSide, across: float, t: float):
    c = wp.vec3(0.0)
    c[side.axis] = across
    c[1 - side.axis] = _grid2d_along(side, t)
    return c


def check_grid_arguments(name, dim, res, bounds_lo, bounds_hi, scalar_type, env_count):
    """A grid constructor's arguments as lists (res, lo, hi), or an error naming the bad one."""
    check_scalar_type(name, scalar_type)
    res = [int(r) for r in res]
    if len(res) != dim or min(res) <= 0:
        raise ValueError(f"{name}: `res` must be {dim} positive integers, got {res}")
    lo = [0.0] * dim if bounds_lo is None else [float(v) for v in bounds_lo]
    hi = [1.0] * dim if bounds_hi is None else [float(v) for v in bounds_hi]
    if any(h <= low for low, h in zip(lo, hi)):
        raise ValueError(f"{name}: `bounds_hi` {hi} must exceed `bounds_lo` {lo} on every axis")
    return res, lo, hi


class Grid2D(Replicable, Geometry):
    """Two-dimensional regular grid geometry.

    Args:
        res: resolution of the grid along each dimension
        bounds_lo: position of the lower bound of the axis-aligned grid (default: origin)
        bounds_hi: position of the upper bound of the axis-aligned grid (default: (1, 1))
    """

    dimension = 2
    cell_dimension = 2
    CellArg = Grid2DCellArg
    SideArg = Grid2DSideArg
    SideIndexArg = Grid2DSideArg
    ARGS_FROM_ATTRIBUTES = True  # (res, bounds: its argument structs are kept, see Geometry)
    Side = Grid2DSide
    Cell = wp.vec2i

    def __init__(self, res, bounds_lo=None, bounds_hi=None, scalar_type: type = wp.float32, env_count: int = 1):
        res, lo, hi = check_grid_arguments("Grid2D", 2, res, bounds_lo, bounds_hi, scalar_type, env_count)
        self._res = wp.vec2i(*res)
        self._vec = wp.types.vector(length=2, dtype=scalar_type)
        self.bounds_lo = self._vec(*lo)
        self.bounds_hi = self._vec(*hi)
        self._make_default_dependent_implementations()
        self._use_scalar_type(scalar_type)

    # --- host-side description ---

    @property
    def res(self):
        return self._res

    @property
    def origin(self):
        return self.bounds_lo

    @property
    def extents(self):
        return self._vec(self.bounds_hi[0] - self.bounds_lo[0], self.bounds_hi[1] - self.bounds_lo[1])

    @property
    def cell_size(self):
        ext = self.extents
        return self._vec(ext[0] / self._res[0], ext[1] / self._res[1])

    @property
    def strides(self):
        return wp.vec2i(self._res[1], 1)

    def cell_count(self) -> int:
        return self._res[0] * self._res[1]

    def vertex_count(self) -> int:
        return (self._res[0] + 1) * (self._res[1] + 1)

    def side_count(self) -> int:
        return 2 * self.cell_count() + self._res[0] + self._res[1]

    def boundary_side_count(self) -> int:
        return 2 * (self._res[0] + self._res[1])

    def reference_cell(self):
        return Element.SQUARE

    def reference_side(self):
        return Element.LINE_SEGMENT

    def fill_cell_arg(self, args, device):
        args.res = self._res
        args.cell_size = self.cell_size
        args.origin = self.bounds_lo

    def fill_side_arg(self, args, device):
        args.cell_count = self.cell_count()
        args.axis_offsets = wp.vec2i(2 * self.cell_count(), 2 * self.cell_count() + self._res[1])
        args.cell_arg = self.cell_arg_value(device)


def _device_functions() -> dict:
    """Grid2D's device functions. They depend on no instance (everything is in the arguments), so
    they are class attributes, callable as `fem.Grid2D.cell_position(args, s)` as in Warp."""
    @wp.func
    def cell_position(args: Grid2DCellArg, s: Sample):
        cell = _grid2d_cell(args.res, s.element_index)
        return wp.vec2(args.origin[0] + (float(cell[0]) + s.element_coords[0]) * args.cell_size[0],
                       args.origin[1] + (float(cell[1]) + s.element_coords[1]) * args.cell_size[1])

    @wp.func
    def cell_deformation_gradient(args: Grid2DCellArg, s: Sample):
        return wp.mat22(args.cell_size[0], 0.0, 0.0, args.cell_size[1])

    @wp.func
    def cell_inverse_deformation_gradient(args: Grid2DCellArg, s: Sample):
        return wp.mat22(1.0 / args.cell_size[0], 0.0, 0.0, 1.0 / args.cell_size[1])

    @wp.func
    def cell_measure(args: Grid2DCellArg, s: Sample):
        return args.cell_size[0] * args.cell_size[1]

    @wp.func
    def cell_coordinates(args: Grid2DCellArg, cell_index: int, pos: wp.vec2):
        cell = _grid2d_cell(args.res, cell_index)
        return wp.vec3((pos[0] - args.origin[0]) / args.cell_size[0] - float(cell[0]),
                       (pos[1] - args.origin[1]) / args.cell_size[1] - float(cell[1]), 0.0)

    @wp.func
    def cell_closest_point(args: Grid2DCellArg, cell_index: int, pos: wp.vec2):
        c = cell_coordinates(args, cell_index, pos)
        c = wp.vec3(wp.clamp(c[0], 0.0, 1.0), wp.clamp(c[1], 0.0, 1.0), 0.0)
        cell = _grid2d_cell(args.res, cell_index)
        d = wp.vec2(args.origin[0] + (float(cell[0]) + c[0]) * args.cell_size[0] - pos[0],
                    args.origin[1] + (float(cell[1]) + c[1]) * args.cell_size[1] - pos[1])
        return c, wp.length_sq(d)

    @wp.func
    def cell_lookup(args: Grid2DCellArg, pos: wp.vec2, max_dist: float):
        # the cell holding pos, or the nearest one if pos is within max_dist of the grid (else none)
        s = Sample()
        loc = wp.vec2((pos[0] - args.origin[0]) / args.cell_size[0], (pos[1] - args.origin[1]) / args.cell_size[1])
        # projected onto the grid with min/max, whose gradient on a tie goes to the second operand: a
        # position on the grid's upper boundary has no gradient across it, one on the lower boundary
        # has (as Warp's lookup, measured through the gradients of example_darcy_ls_optimization)
        inside = wp.vec2(wp.max(0.0, wp.min(loc[0], float(args.res[0]))), wp.max(0.0, wp.min(loc[1], float(args.res[1]))))
        cx = wp.clamp(int(wp.floor(loc[0])), 0, args.res[0] - 1)
        cy = wp.clamp(int(wp.floor(loc[1])), 0, args.res[1] - 1)
        s.element_index = _grid2d_cell_index(args.res, wp.vec2i(cx, cy))
        s.element_coords = wp.vec3(wp.clamp(inside[0] - float(cx), 0.0, 1.0), wp.clamp(inside[1] - float(cy), 0.0, 1.0),
                                   0.0)
        gap = wp.cw_mul(wp.vec2(loc[0] - float(cx) - s.element_coords[0], loc[1] - float(cy) - s.element_coords[1]),
                        args.cell_size)
        if wp.length_sq(gap) > max_dist * max_dist:  # outside the grid by more than max_dist: no cell
            s.element_index = -1
        s.qp_index = -1
        return s

    @wp.func
    def cell_count_in_args(args: Grid2DCellArg):
        return args.res[0] * args.res[1]

    @wp.func
    def side_position(args: Grid2DSideArg, s: Sample):
        side = _grid2d_get_side(args, s.element_index)
        c = _grid2d_side_cell_coords(side, 0.0, s.element_coords[0])
        ca = args.cell_arg
        return wp.vec2(ca.origin[0] + (float(side.origin[0]) + c[0]) * ca.cell_size[0],
                       ca.origin[1] + (float(side.origin[1]) + c[1]) * ca.cell_size[1])

    @wp.func
    def side_deformation_gradient(args: Grid2DSideArg, s: Sample):
        side = _grid2d_get_side(args, s.element_index)
        F = wp.vec2(0.0)
        other = 1 - side.axis
        F[other] = _grid2d_tangent_sign(side) * args.cell_arg.cell_size[other]
        return F

    @wp.func
    def side_measure(args: Grid2DSideArg, s: Sample):
        side = _grid2d_get_side(args, s.element_index)
        return args.cell_arg.cell_size[1 - side.axis]

    @wp.func
    def side_measure_ratio(args: Grid2DSideArg, s: Sample):
        side = _grid2d_get_side(args, s.element_index)
        return 1.0 / args.cell_arg.cell_size[side.axis]

    @wp.func
    def side_normal(args: Grid2DSideArg, s: Sample):
        side = _grid2d_get_side(args, s.element_index)
        n = wp.vec2(0.0)
        n[side.axis] = 1.0
        if side.origin[side.axis] == 0:
            n[side.axis] = -1.0
        return n

    @wp.func
    def side_inner_cell_index(args: Grid2DSideArg, side_index: int):
        side = _grid2d_get_side(args, side_index)
        cell = side.origin
        if cell[side.axis] > 0:
            cell[side.axis] = cell[side.axis] - 1
        return _grid2d_cell_index(args.cell_arg.res, cell)

    @wp.func
    def side_outer_cell_index(args: Grid2DSideArg, side_index: int):
        side = _grid2d_get_side(args, side_index)
        cell = side.origin
        if cell[side.axis] == args.cell_arg.res[side.axis]:
            cell[side.axis] = cell[side.axis] - 1
        return _grid2d_cell_index(args.cell_arg.res, cell)

    @wp.func
    def side_inner_cell_coords(args: Grid2DSideArg, side_index: int, side_coords: wp.vec3):
        side = _grid2d_get_side(args, side_index)
        across = float(1.0)  # noqa: UP018
        if side.origin[side.axis] == 0:
            across = 0.0
        return _grid2d_side_cell_coords(side, across, side_coords[0])

    @wp.func
    def side_outer_cell_coords(args: Grid2DSideArg, side_index: int, side_coords: wp.vec3):
        side = _grid2d_get_side(args, side_index)
        across = float(0.0)  # noqa: UP018
        if side.origin[side.axis] == args.cell_arg.res[side.axis]:
            across = 1.0
        return _grid2d_side_cell_coords(side, across, side_coords[0])

    @wp.func
    def side_from_cell_coords(args: Grid2DSideArg, side_index: int, element_index: int, element_coords: wp.vec3):
        # the side coordinate of a cell point, OUTSIDE unless the point is on this side of that cell
        side = _grid2d_get_side(args, side_index)
        cell = _grid2d_cell(args.cell_arg.res, element_index)
        across = float(side.origin[side.axis] - cell[side.axis])
        same_row = cell[1 - side.axis] == side.origin[1 - side.axis]
        if same_row and element_coords[side.axis] == across:
            along = element_coords[1 - side.axis]
            if _grid2d_tangent_sign(side) < 0.0:
                along = 1.0 - along
            return wp.vec3(along, 0.0, 0.0)
        return wp.vec3(OUTSIDE)

    @wp.func
    def side_to_cell_arg(side_arg: Grid2DSideArg):
        return side_arg.cell_arg

    @wp.func
    def boundary_side_index(args: Grid2DSideArg, boundary_side_index: int):
        # per axis, the low and far sides of each row alternate
        res = args.cell_arg.res
        axis = 0
        i = boundary_side_index
        if i >= 2 * res[1]:
            axis = 1
            i = i - 2 * res[1]
        origin = wp.vec2i(0)
        origin[1 - axis] = i // 2
        if i % 2 == 1:
            origin[axis] = res[axis]
        return _grid2d_side_index(args, Grid2DSide(axis, origin))

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
    setattr(Grid2D, _name, _f)
