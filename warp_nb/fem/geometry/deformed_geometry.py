"""`warp.fem.geometry.DeformedGeometry`: a geometry whose points are those of a base geometry moved
by a vector-valued field, discrete or implicit (`field.make_deformed_geometry()`): position = x + u(x)
with `relative=True` (the field is a displacement), u(x) otherwise.

The topology (cells, sides, their numbering and coordinates) is the base geometry's; positions and
deformation gradients are the field's (`F = F_base + grad(u) F_base`, or `grad(u) F_base`), and the
measures, normals and inverse gradients follow from them as for any geometry. A side's points are
those of its inner cell. Cell lookups search the deformed cells' bounding boxes (`build_bvh`) and
find a point's coordinates by Gauss-Newton steps kept inside the reference cell."""

import numpy as np

import warp_nb as wp

from ..types import Sample
from .element import Element
from .geometry import Geometry, _element_inverse
from .mesh_lookup import make_cell_lookup


def _struct(name, fields: dict):
    return wp.struct(type(name, (), {"__annotations__": fields, "__doc__": f"{name} of a deformed geometry."}))


class DeformedGeometry(Geometry):
    """A base geometry deformed by a vector-valued discrete field.

    Args:
        field: the discrete field (of a space of vectors of the geometry's dimension)
        relative: whether the field is a displacement added to the base positions (else the positions)
        build_bvh: whether to build the structure cell lookups use
    """

    def __init__(self, field, relative: bool = True, build_bvh: bool = False):
        if hasattr(field, "space"):  # a discrete field: values at the nodes of a space
            base = field.space.geometry
            dtype = field.space.dtype
            if not (wp.types.type_is_vector(dtype) and dtype._length_ == base.dimension):
                raise TypeError(f"DeformedGeometry: `field` must have values of wp.vec{base.dimension} (the "
                                f"geometry's dimension), got {getattr(dtype, '__name__', dtype)}")
            self._value, self._grad = field.eval_inner, field.eval_grad_inner
        elif hasattr(field, "functions_on"):  # an implicit field: a function of the base position
            base = field.domain.geometry
            functions = field.functions_on(field.domain)
            self._value, self._grad = functions["eval_inner"], functions["eval_grad_inner"]
            if self._grad is None:
                raise TypeError("DeformedGeometry: an ImplicitField needs a `grad_func` to deform a geometry")
        else:
            raise TypeError(f"DeformedGeometry: `field` must be a discrete or implicit field, got "
                            f"{type(field).__name__}")
        self.field = field
        self._base = base
        self.relative = bool(relative)
        self.dimension = base.dimension
        self.cell_dimension = base.cell_dimension
        self.CellArg = _struct("DeformedCellArg", {"geo": base.CellArg, "eval": field.EvalArg, "bvh": wp.uint64})
        self.SideArg = _struct("DeformedSideArg", {"base_side": base.SideArg, "cell_arg": self.CellArg})
        self.SideIndexArg = base.SideIndexArg
        self._bvh = None
        self._make_device_functions()
        self._make_default_dependent_implementations()
        if build_bvh:
            self.build_bvh()

    @property
    def base(self):
        return self._base

    @property
    def name(self) -> str:
        return f"DeformedGeometry_{self._base.name}_{self.field.name}"

    def cell_count(self) -> int:
        return self._base.cell_count()

    def side_count(self) -> int:
        return self._base.side_count()

    def boundary_side_count(self) -> int:
        return self._base.boundary_side_count()

    def vertex_count(self) -> int:
        return self._base.vertex_count()

    def environment_count(self) -> int:
        return self._base.environment_count()

    @property
    def cell_env(self):
        return self._base.cell_env

    def cell_bvh_groups(self, device=None):
        """The environment of each cell (the group its bounding box belongs to in lookups)."""
        envs = self._base.cell_env
        return wp.zeros(self.cell_count(), dtype=wp.int32, device=device) if envs is None else envs.to(device)

    def reference_cell(self):
        return self._base.reference_cell()

    def reference_side(self):
        return self._base.reference_side()

    def fill_cell_arg(self, args, device):
        args.geo = self._base.cell_arg_value(device)
        args.eval = self.field.eval_arg_value(device)
        args.bvh = wp.uint64(self.bvh_id(device))

    def fill_side_arg(self, args, device):
        args.base_side = self._base.side_arg_value(device)
        args.cell_arg = self.cell_arg_value(device)

    def fill_side_index_arg(self, args, device):
        self._base.fill_side_index_arg(args, device)

    # --- cell lookup ---

    def build_bvh(self, device=None):
        """Build the deformed cells' bounding volume hierarchy (enables `fem.lookup`)."""
        device = wp.get_device(device)
        lo, hi = self._cell_bounds(device)
        self._bvh = wp.Bvh(wp.array(lo, dtype=wp.vec3, device=device), wp.array(hi, dtype=wp.vec3, device=device))

    def update_bvh(self, device=None):
        self.build_bvh(device)

    def bvh_id(self, device) -> int:
        return 0 if self._bvh is None else int(self._bvh.id)

    def supports_cell_lookup(self, device) -> bool:
        return self._bvh is not None

    def _cell_bounds(self, device):
        # the deformed positions of the reference cell's corners and a few inner points, padded
        simplex = self.reference_cell() in (Element.TRIANGLE, Element.TETRAHEDRON)
        t = np.linspace(0.0, 1.0, 3)
        grid = np.stack(np.meshgrid(*[t] * self.cell_dimension, indexing="ij"), -1).reshape(-1, self.cell_dimension)
        if simplex:
            grid = grid[grid.sum(axis=1) <= 1.0]
        coords = np.zeros((len(grid), 3), dtype=np.float32)
        coords[:, :self.cell_dimension] = grid
        if self.reference_cell() == Element.TRIANGLE:
            coords = np.stack([1.0 - grid[:, 0] - grid[:, 1], grid[:, 0], grid[:, 1]], 1).astype(np.float32)
        vec = wp.types.vector(self.dimension, wp.float32)
        out = wp.zeros((self.cell_count(), len(coords)), dtype=vec, device=device)
        position = self.cell_position

        @wp.kernel
        def positions(args: self.CellArg, coords: wp.array(dtype=wp.vec3), out: wp.array2d(dtype=vec)):
            c, k = wp.tid()
            s = Sample()
            s.element_index = c
            s.element_coords = coords[k]
            out[c, k] = position(args, s)

        wp.launch(positions, dim=out.shape, inputs=[self.cell_arg_value(device), wp.array(coords, dtype=wp.vec3,
                                                                                         device=device), out])
        pts = out.numpy().astype(np.float64)
        if self.dimension == 2:
            pts = np.concatenate([pts, np.zeros(pts.shape[:2] + (1,))], 2)
        lo, hi = pts.min(axis=1), pts.max(axis=1)
        pad = 0.25 * (hi - lo).max(axis=1, keepdims=True)  # curved cells bulge between the sampled points
        return (lo - pad).astype(np.float32), (hi + pad).astype(np.float32)

    # --- device functions ---

    def _make_device_functions(self):
        base = self._base
        value, grad = self._value, self._grad
        relative = self.relative
        base_position, base_gradient = base.cell_position, base.cell_deformation_gradient
        simplex = base.reference_cell() in (Element.TRIANGLE, Element.TETRAHEDRON)
        barycentric = base.reference_cell() == Element.TRIANGLE
        cdim = base.cell_dimension

        @wp.func
        def cell_position(args: self.CellArg, s: Sample):
            if wp.static(relative):
                return base_position(args.geo, s) + value(args, s)
            return value(args, s)

        @wp.func
        def cell_deformation_gradient(args: self.CellArg, s: Sample):
            F = base_gradient(args.geo, s)
            if wp.static(relative):
                return F + grad(args, s) @ F
            return grad(args, s) @ F

        @wp.func
        def _side_cell_sample(args: self.SideArg, s: Sample):
            cs = Sample()
            cs.element_index = base.side_inner_cell_index(args.base_side, s.element_index)
            cs.element_coords = base.side_inner_cell_coords(args.base_side, s.element_index, s.element_coords)
            return cs

        @wp.func
        def side_position(args: self.SideArg, s: Sample):
            return cell_position(args.cell_arg, _side_cell_sample(args, s))

        @wp.func
        def side_deformation_gradient(args: self.SideArg, s: Sample):
            # the base side's tangents carried by the deformation's gradient in the inner cell
            F = base.side_deformation_gradient(args.base_side, s)
            cs = _side_cell_sample(args, s)
            if wp.static(relative):
                return F + grad(args.cell_arg, cs) @ F
            return grad(args.cell_arg, cs) @ F

        @wp.func
        def side_inner_cell_index(args: self.SideArg, side_index: int):
            return base.side_inner_cell_index(args.base_side, side_index)

        @wp.func
        def side_outer_cell_index(args: self.SideArg, side_index: int):
            return base.side_outer_cell_index(args.base_side, side_index)

        @wp.func
        def side_inner_cell_coords(args: self.SideArg, side_index: int, side_coords: wp.vec3):
            return base.side_inner_cell_coords(args.base_side, side_index, side_coords)

        @wp.func
        def side_outer_cell_coords(args: self.SideArg, side_index: int, side_coords: wp.vec3):
            return base.side_outer_cell_coords(args.base_side, side_index, side_coords)

        @wp.func
        def side_from_cell_coords(args: self.SideArg, side_index: int, element_index: int, element_coords: wp.vec3):
            return base.side_from_cell_coords(args.base_side, side_index, element_index, element_coords)

        @wp.func
        def side_to_cell_arg(side_arg: self.SideArg):
            return side_arg.cell_arg

        @wp.func
        def _inside(c: wp.vec3):
            # the nearest reference-cell point, coordinate-wise (a cube) or by clamping then sharing the excess
            r = wp.vec3(0.0)
            if wp.static(barycentric):
                v = wp.max(c[1], 0.0)
                w = wp.max(c[2], 0.0)
                excess = wp.max(v + w - 1.0, 0.0)
                v = wp.max(v - 0.5 * excess, 0.0)
                w = wp.min(wp.max(w - 0.5 * excess, 0.0), 1.0 - v)
                r = wp.vec3(1.0 - v - w, v, w)
            elif wp.static(simplex):
                r = wp.vec3(wp.max(c[0], 0.0), wp.max(c[1], 0.0), wp.max(c[2], 0.0))
                total = r[0] + r[1] + r[2]
                if total > 1.0:
                    r = r / total
            else:
                for k in range(wp.static(cdim)):
                    r[k] = wp.clamp(c[k], 0.0, 1.0)
            return r

        @wp.func
        def _newton(args: self.CellArg, cell: int, pos: wp.types.vector(base.dimension, wp.float32), clamp: bool):
            s = Sample()
            s.element_index = cell
            s.element_coords = wp.vec3(0.5, 0.5, 0.5 if wp.static(cdim == 3) else 0.0)
            if wp.static(barycentric):
                s.element_coords = wp.vec3(1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0)
            elif wp.static(simplex):
                s.element_coords = wp.vec3(0.25, 0.25, 0.25)
            for _it in range(8):
                step = _element_inverse(cell_deformation_gradient(args, s)) @ (pos - cell_position(args, s))
                c = s.element_coords
                if wp.static(barycentric):  # F is the gradient along (c1, c2), with c0 = 1 - c1 - c2
                    c = wp.vec3(c[0] - step[0] - step[1], c[1] + step[0], c[2] + step[1])
                else:
                    for k in range(wp.static(cdim)):
                        c[k] = c[k] + step[k]
                if clamp:
                    c = _inside(c)
                s.element_coords = c
            return s.element_coords

        @wp.func
        def cell_coordinates(args: self.CellArg, element_index: int, pos: wp.types.vector(base.dimension, wp.float32)):
            return _newton(args, element_index, pos, False)

        @wp.func
        def cell_closest_point(args: self.CellArg, cell_index: int, pos: wp.types.vector(base.dimension, wp.float32)):
            s = Sample()
            s.element_index = cell_index
            s.element_coords = _newton(args, cell_index, pos, True)
            return s.element_coords, wp.length_sq(cell_position(args, s) - pos)

        @wp.func
        def cell_count_in_args(args: self.CellArg):
            return base.cell_count_in_args(args.geo)

        self.cell_position = cell_position
        self.cell_deformation_gradient = cell_deformation_gradient
        self.side_position = side_position
        self.side_deformation_gradient = side_deformation_gradient
        self.side_inner_cell_index = side_inner_cell_index
        self.side_outer_cell_index = side_outer_cell_index
        self.side_inner_cell_coords = side_inner_cell_coords
        self.side_outer_cell_coords = side_outer_cell_coords
        self.side_from_cell_coords = side_from_cell_coords
        self.side_to_cell_arg = side_to_cell_arg
        self.boundary_side_index = base.boundary_side_index
        self.cell_coordinates = cell_coordinates
        self.cell_closest_point = cell_closest_point
        self.cell_count_in_args = cell_count_in_args
        self.cell_lookup = make_cell_lookup(cell_closest_point, cell_count_in_args)
        base_environment = getattr(base, "cell_environment", None)
        if base_environment is not None:  # the base's environments, read through the base's arguments
            @wp.func
            def cell_environment(args: self.CellArg, cell_index: int):
                return base_environment(args.geo, cell_index)

            self.cell_environment = cell_environment
