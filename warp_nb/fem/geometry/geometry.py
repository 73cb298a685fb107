"""`warp.fem.Geometry`: the protocol every discrete geometry (grids and meshes) follows, and what
can be derived from it once.

A geometry is cells and sides (interior sides between two cells, boundary sides with one). A
concrete geometry gives three argument structs (`CellArg`, `SideArg`, `SideIndexArg`), host methods
that fill them, and device functions (`@wp.func` attributes called from kernels as
`geo.cell_position(arg, s)`): positions and deformation gradients of cell and side samples, the
inner / outer cells of a side and the coordinate maps between a side and its cells. From the
deformation gradients this base builds the measures, normals, inverse gradients and measure ratios
(`_make_default_dependent_implementations`), so a geometry writes one of those only when it has a
cheaper closed form.

Conventions (Warp's, checked against warp-lang): element coordinates are a `Coords` (vec3) whatever
the dimension; a segment side's own coordinate is `coords[0]`, a face's `coords[0:2]`;
`F[a, b] = d position_a / d coords_b`, a plain vector when the element is a segment; a side's normal
is `_element_normal(F)` and points from its inner cell to its outer cell (outwards on the boundary).
Nothing here knows about domains, quadratures or fields."""

import ctypes
from typing import Any

import warp_nb as wp

from ..precision import retype_members, retyped
from ..types import NULL_ELEMENT_INDEX, OUTSIDE, Sample, cached_coords_type, cached_sample_type

mat32 = wp.types.matrix(shape=(3, 2), dtype=wp.float32)
mat23 = wp.types.matrix(shape=(2, 3), dtype=wp.float32)


# The measure of an element from its deformation gradient: a length for a segment (F a vector), the
# area spanned by the two columns for a surface in 3-D, |det F| for a full-dimension cell.
@wp.func
def _element_measure(F: wp.vec2):
    return wp.length(F)


@wp.func
def _element_measure(F: wp.vec3):
    return wp.length(F)


@wp.func
def _element_measure(F: mat32):
    return wp.length(wp.cross(wp.vec3(F[0, 0], F[1, 0], F[2, 0]), wp.vec3(F[0, 1], F[1, 1], F[2, 1])))


@wp.func
def _element_measure(F: wp.mat22):
    return wp.abs(wp.determinant(F))


@wp.func
def _element_measure(F: wp.mat33):
    return wp.abs(wp.determinant(F))


# The unit normal of a codimension-1 element: the tangent turned clockwise for a segment in 2-D
# (so that a counter-clockwise boundary gets outward normals), the normalised cross product of the
# tangents for a surface in 3-D. Like Warp, undefined for full-dimension elements.
@wp.func
def _element_normal(F: wp.vec2):
    return wp.normalize(wp.vec2(F[1], -F[0]))


@wp.func
def _element_normal(F: mat32):
    return wp.normalize(wp.cross(wp.vec3(F[0, 0], F[1, 0], F[2, 0]), wp.vec3(F[0, 1], F[1, 1], F[2, 1])))


# What turns a world-space gradient into a reference-space one: F^-1 for a full-dimension cell, the
# pseudo-inverse (F^T F)^-1 F^T for a surface embedded in 3-D.
@wp.func
def _element_inverse(F: wp.mat22):
    return wp.inverse(F)


@wp.func
def _element_inverse(F: wp.mat33):
    return wp.inverse(F)


@wp.func
def _element_inverse(F: mat32):
    Ft = wp.transpose(F)
    return wp.inverse(Ft @ F) @ Ft


def check_scalar_type(name: str, scalar_type) -> type:
    """`scalar_type` if a geometry can have it (float32 or float64), else an error naming it."""
    if scalar_type not in (wp.float32, wp.float64):
        raise TypeError(f"{name}: scalar_type must be wp.float32 or wp.float64, got "
                        f"{getattr(scalar_type, '__name__', scalar_type)}")
    return scalar_type


@wp.func
def _filter_by_array(filter_data: Any, cell: int):
    return filter_data[cell]


def _attribute_state(obj) -> tuple:
    """What a kept argument struct of `obj` was made from: each attribute's object, or the bytes of a
    vector / matrix attribute (which can change in place)."""
    return tuple((name, bytes(v) if isinstance(v, (ctypes.Array, ctypes.Structure)) else v)
                 for name, v in vars(obj).items() if name != "_fem_arg_cache")


def _same_state(old: tuple, new: tuple) -> bool:
    return len(old) == len(new) and all(
        a[0] == b[0] and (a[1] is b[1] or (type(a[1]) is bytes and a[1] == b[1])) for a, b in zip(old, new))


class Geometry:
    """Interface class for discrete geometries: cells and sides, the argument structs of their
    device functions and those functions. Subclasses set `dimension` (of the embedding space),
    `CellArg`, `SideArg`, `SideIndexArg` and the primary device functions, then call
    `_make_default_dependent_implementations()`."""

    dimension: int = 0  # of the embedding space
    cell_dimension: int = 0  # of the cells (lower than `dimension` for a surface in 3-D)
    _element_measure = _element_measure
    _element_normal = _element_normal

    @property
    def name(self) -> str:
        return type(self).__name__

    def __str__(self) -> str:
        return self.name

    @property
    def base(self) -> "Geometry":
        """The geometry this one is defined on (itself, except for deformed geometries)."""
        return self

    _scalar_type = wp.float32  # set by `_use_scalar_type` on a double-precision geometry

    @property
    def scalar_type(self) -> type:
        return self._scalar_type

    @property
    def coords_type(self) -> type:
        return cached_coords_type(self._scalar_type)

    @property
    def sample_type(self) -> type:
        return cached_sample_type(self._scalar_type)

    def _use_scalar_type(self, scalar_type):
        """Make this geometry's device functions and argument structs those of `scalar_type`
        (precision.py): called last by a constructor, once every function it owns is made."""
        self._scalar_type = check_scalar_type(self.name, scalar_type)
        retype_members(self, self._scalar_type)

    # --- counts and reference elements (subclasses) ---

    def cell_count(self) -> int:
        """Number of cells in the geometry."""
        raise NotImplementedError

    def side_count(self) -> int:
        """Number of sides (interior and boundary) in the geometry."""
        raise NotImplementedError

    def boundary_side_count(self) -> int:
        """Number of boundary sides (sides with a single neighbour cell) in the geometry."""
        raise NotImplementedError

    def reference_cell(self):
        """The reference element (`fem.Element`) of the cells."""
        raise NotImplementedError

    def reference_side(self):
        """The reference element (`fem.Element`) of the sides."""
        raise NotImplementedError

    def environment_count(self) -> int:
        """Number of topologically independent environments (warp_nb geometries have one)."""
        return 1

    cell_env = None  # per-cell environment indices (None: a single environment)

    # --- argument structs ---

    #: Whether the argument structs are a function of the geometry's own attributes alone (no array
    #: contents read on the host, no other object's state): then each is made once per device and kept
    #: until an attribute is reassigned or a vector attribute changes in place. A geometry whose
    #: arguments read a field, a BVH or a partition must leave this False.
    ARGS_FROM_ATTRIBUTES = False

    def cell_arg_value(self, device):
        """The `CellArg` value for `device`, as `fill_cell_arg` fills it (not to be modified: it may be kept)."""
        return self._arg_value("cell", self.CellArg, self.fill_cell_arg, device)

    def side_arg_value(self, device):
        """The `SideArg` value for `device`, as `fill_side_arg` fills it (not to be modified: it may be kept)."""
        return self._arg_value("side", self.SideArg, self.fill_side_arg, device)

    def side_index_arg_value(self, device):
        """The `SideIndexArg` value for `device`, as `fill_side_index_arg` fills it."""
        return self._arg_value("side_index", self.SideIndexArg, self.fill_side_index_arg, device)

    def _arg_value(self, what: str, struct, fill, device):
        if not self.ARGS_FROM_ATTRIBUTES:
            args = struct()
            fill(args, device)
            return args
        # kept per (struct, device), checked against a snapshot of the attributes: filling a struct costs
        # more than a small integral, and integrate / interpolate ask for these at every call
        cache = self.__dict__.get("_fem_arg_cache")
        if cache is None:
            cache = self.__dict__["_fem_arg_cache"] = {}
        key = (what, struct, str(device))
        state = _attribute_state(self)
        hit = cache.get(key)
        if hit is not None and _same_state(hit[0], state):
            return hit[1]
        args = struct()
        fill(args, device)
        cache[key] = (_attribute_state(self), args)  # (taken again: filling may set attributes, e.g. lazily)
        return args

    def fill_cell_arg(self, args, device):
        """Fill the arguments to be passed to cell-related device functions."""
        raise NotImplementedError

    def fill_side_arg(self, args, device):
        """Fill the arguments to be passed to side-related device functions."""
        raise NotImplementedError

    def fill_side_index_arg(self, args, device):
        """Fill the arguments to be passed to side-index device functions (by default the side
        arguments: most geometries use one struct for both)."""
        self.fill_side_arg(args, device)

    # --- cell lookup (geometries that support it override these) ---

    def supports_cell_lookup(self, device) -> bool:
        return getattr(self, "cell_lookup", None) is not None

    def build_bvh(self, device=None):
        """Build the acceleration structure cell lookups use (nothing to build by default)."""

    def update_bvh(self, device=None):
        """Refit the acceleration structure after positions changed (nothing by default)."""
        self.build_bvh(device)

    def bvh_id(self, device) -> int:
        return 0

    def make_filtered_cell_lookup(self, filter_func=None):
        """A device function `lookup(args, pos, max_dist, filter_data, filter_target)`: the sample of
        the nearest cell within `max_dist` of `pos` among the cells for which
        `filter_func(filter_data, cell) == filter_target` (by default `filter_data[cell]`). It scans
        every cell: meant for selective queries, not as a fast path."""
        closest = self.cell_closest_point
        count = self.cell_count_in_args
        if filter_func is None:
            filter_func = _filter_by_array

        @wp.func
        def filtered_cell_lookup(args: Any, pos: Any, max_dist: float, filter_data: Any, filter_target: Any):
            s = Sample()
            s.element_index = NULL_ELEMENT_INDEX
            s.element_coords = wp.vec3(OUTSIDE)
            s.qp_index = -1
            best = max_dist * max_dist
            for cell in range(count(args)):
                if filter_func(filter_data, cell) == filter_target:
                    coords, d = closest(args, cell, pos)
                    if d <= best:
                        best = d
                        s.element_index = cell
                        s.element_coords = coords
            return s

        return retyped(filtered_cell_lookup, self._scalar_type)

    # --- device functions derived from the primary ones ---

    def _make_default_dependent_implementations(self):
        """Build the device functions that follow from the deformation gradients, for those the
        subclass did not define itself."""
        for name in ("cell_inverse_deformation_gradient", "cell_measure", "cell_normal", "cell_measure_ratio",
                     "side_measure", "side_normal", "side_inner_inverse_deformation_gradient",
                     "side_outer_inverse_deformation_gradient", "side_measure_ratio"):
            if getattr(self, name, None) is None:
                setattr(self, name, getattr(self, "_make_" + name)())
        if self.side_coordinates is None or self.side_closest_point is None:
            from .side_queries import make_side_queries  # (it builds on this module's helpers)

            self.side_coordinates, self.side_closest_point = make_side_queries(self)

    def _make_cell_measure(self):
        # a true volume / area: |det F| times the reference cell's own measure (1/2 for a triangle)
        cell_deformation_gradient = self.cell_deformation_gradient
        ref_measure = float(self.reference_cell().prototype.measure())

        @wp.func
        def cell_measure(args: Any, s: Sample):
            return _element_measure(cell_deformation_gradient(args, s)) * ref_measure

        return cell_measure

    def _make_cell_inverse_deformation_gradient(self):
        cell_deformation_gradient = self.cell_deformation_gradient

        @wp.func
        def cell_inverse_deformation_gradient(args: Any, s: Sample):
            return _element_inverse(cell_deformation_gradient(args, s))

        return cell_inverse_deformation_gradient

    def _make_cell_normal(self):
        cell_deformation_gradient = self.cell_deformation_gradient
        if self.dimension == self.cell_dimension:
            zero = wp.types.vector(self.dimension, wp.float32)

            # a full-dimension cell has no normal: zero, as Warp returns
            @wp.func
            def cell_normal_none(args: Any, s: Sample):
                return zero()

            return cell_normal_none

        @wp.func
        def cell_normal(args: Any, s: Sample):
            return _element_normal(cell_deformation_gradient(args, s))

        return cell_normal

    def _make_cell_measure_ratio(self):
        # a cell's measure relative to itself: the ratio Warp's integrands use on cell domains
        @wp.func
        def cell_measure_ratio(args: Any, s: Sample):
            return 1.0

        return cell_measure_ratio

    def _make_side_measure(self):
        side_deformation_gradient = self.side_deformation_gradient
        ref_measure = float(self.reference_side().prototype.measure())

        @wp.func
        def side_measure(args: Any, s: Sample):
            return _element_measure(side_deformation_gradient(args, s)) * ref_measure

        return side_measure

    def _make_side_normal(self):
        if self.cell_dimension < self.dimension:
            return None  # the edges of a surface in 3-D have no normal (Warp's side_normal is None there)
        side_deformation_gradient = self.side_deformation_gradient

        @wp.func
        def side_normal(args: Any, s: Sample):
            return _element_normal(side_deformation_gradient(args, s))

        return side_normal

    def _side_to_cell_sample(self, outer: bool):
        """A device function giving the sample of a side's inner (or outer) cell at the same point."""
        cell_index = self.side_outer_cell_index if outer else self.side_inner_cell_index
        cell_coords = self.side_outer_cell_coords if outer else self.side_inner_cell_coords

        @wp.func
        def side_cell_sample(args: Any, s: Sample):
            cs = Sample()
            cs.element_index = cell_index(args, s.element_index)
            cs.element_coords = cell_coords(args, s.element_index, s.element_coords)
            cs.qp_index = s.qp_index
            cs.qp_weight = s.qp_weight
            return cs

        return side_cell_sample

    def _make_side_inverse_deformation_gradient(self, outer: bool):
        cell_inverse_deformation_gradient = self.cell_inverse_deformation_gradient
        side_to_cell_arg = self.side_to_cell_arg
        cell_sample = self._side_to_cell_sample(outer)

        @wp.func
        def side_cell_inverse_deformation_gradient(args: Any, s: Sample):
            return cell_inverse_deformation_gradient(side_to_cell_arg(args), cell_sample(args, s))

        return side_cell_inverse_deformation_gradient

    def _make_side_inner_inverse_deformation_gradient(self):
        return self._make_side_inverse_deformation_gradient(outer=False)

    def _make_side_outer_inverse_deformation_gradient(self):
        return self._make_side_inverse_deformation_gradient(outer=True)

    def _make_side_measure_ratio(self):
        # side measure over the measure of the smaller of its two cells (Warp's h^-1 estimate for
        # jump penalties)
        side_measure = self.side_measure
        cell_measure = self.cell_measure
        side_to_cell_arg = self.side_to_cell_arg
        inner_sample = self._side_to_cell_sample(False)
        outer_sample = self._side_to_cell_sample(True)

        @wp.func
        def side_measure_ratio(args: Any, s: Sample):
            cell_arg = side_to_cell_arg(args)
            inner = cell_measure(cell_arg, inner_sample(args, s))
            outer = cell_measure(cell_arg, outer_sample(args, s))
            return side_measure(args, s) / wp.min(inner, outer)

        return side_measure_ratio

    # the primary device functions a subclass provides (None until it does)
    cell_position = None
    cell_deformation_gradient = None
    cell_inverse_deformation_gradient = None
    cell_measure = None
    cell_normal = None
    cell_measure_ratio = None
    cell_lookup = None
    cell_closest_point = None  # (args, cell, pos) -> (coords, squared distance)
    cell_coordinates = None  # (args, cell, pos) -> coords, not clamped to the element
    cell_count_in_args = None  # (args) -> the number of cells, read from the CellArg
    side_coordinates = None  # (args, side, pos) -> coords, not clamped to the side
    side_closest_point = None  # (args, side, pos) -> (coords, squared distance)
    side_position = None
    side_deformation_gradient = None
    side_inner_inverse_deformation_gradient = None
    side_outer_inverse_deformation_gradient = None
    side_measure = None
    side_measure_ratio = None
    side_normal = None
    side_inner_cell_index = None
    side_outer_cell_index = None
    side_inner_cell_coords = None
    side_outer_cell_coords = None
    side_from_cell_coords = None
    side_to_cell_arg = None
    boundary_side_index = None


def geometry_labels(a, b) -> tuple:
    """How an error names two geometries that should be one: their names, and where those are
    alike (two Grid2D), their cell counts, and where those are alike too, "another"."""
    if a.name != b.name:
        return a.name, b.name
    labels = []
    for g in (a, b):
        try:
            labels.append(f"a {g.name} of {g.cell_count()} cells")
        except Exception:  # noqa: BLE001 (a count that needs the device: the names must do)
            labels.append(f"a {g.name}")
    if labels[0] == labels[1]:  # alike but two objects
        labels[1] = "another " + labels[1][2:]
    return tuple(labels)

