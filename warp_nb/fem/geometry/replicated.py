"""A geometry of `env_count` environments that are copies of one base geometry (Warp's
`Grid2D(..., env_count=n)` / `Grid3D`): environment e holds cells e*C .. e*C+C-1, sides e*S .. and
boundary sides e*B .., C, S and B being the base's counts, at the base's positions (environments
overlap in space; lookups name their environment). Every device function maps a global index to the
base's local one, calls the base's function and maps cell indices back; nothing is stored per copy.
`cell_environment(cell_arg, cell)` is the cell's environment (cell // C)."""


import functools
from typing import Any

import warp_nb as wp

from ..types import Sample
from .geometry import Geometry


@functools.cache
def _arg_structs(base_cls):
    cell = wp.struct(type("ReplicatedCellArg", (), {"__annotations__": {
        "base": base_cls.CellArg, "base_cell_count": int, "env_count": int}}))
    side = wp.struct(type("ReplicatedSideArg", (), {"__annotations__": {
        "base": base_cls.SideArg, "cell_arg": cell, "base_side_count": int}}))
    index = wp.struct(type("ReplicatedSideIndexArg", (), {"__annotations__": {
        "base": base_cls.SideIndexArg, "base_boundary_count": int, "base_side_count": int}}))
    return cell, side, index


@wp.func
def _local(s: Sample, count: int):
    return Sample(s.element_index % count, s.element_coords, s.qp_index, s.qp_weight, s.test_dof, s.trial_dof)


@functools.cache
def _device_functions(base_cls) -> dict:
    """The replicated geometry's device functions over those of `base_cls` (shared by its instances)."""
    CellArg, SideArg, SideIndexArg = _arg_structs(base_cls)
    b = base_cls
    funcs = {}

    @wp.func
    def cell_environment(args: CellArg, cell_index: int):
        return cell_index // args.base_cell_count

    @wp.func
    def cell_position(args: CellArg, s: Sample):
        return b.cell_position(args.base, _local(s, args.base_cell_count))

    @wp.func
    def cell_deformation_gradient(args: CellArg, s: Sample):
        return b.cell_deformation_gradient(args.base, _local(s, args.base_cell_count))

    @wp.func
    def cell_coordinates(args: CellArg, cell_index: int, pos: Any):
        return b.cell_coordinates(args.base, cell_index % args.base_cell_count, pos)

    @wp.func
    def cell_closest_point(args: CellArg, cell_index: int, pos: Any):
        return b.cell_closest_point(args.base, cell_index % args.base_cell_count, pos)

    # without an environment: the base's lookup, in environment 0 (fem.lookup asks for an environment)
    @wp.func
    def cell_lookup(args: CellArg, pos: Any, max_dist: float):
        return b.cell_lookup(args.base, pos, max_dist)

    @wp.func
    def cell_count_in_args(args: CellArg):
        return args.base_cell_count * args.env_count

    @wp.func
    def side_position(args: SideArg, s: Sample):
        return b.side_position(args.base, _local(s, args.base_side_count))

    @wp.func
    def side_deformation_gradient(args: SideArg, s: Sample):
        return b.side_deformation_gradient(args.base, _local(s, args.base_side_count))

    @wp.func
    def side_inner_cell_index(args: SideArg, side_index: int):
        env = side_index // args.base_side_count
        local = b.side_inner_cell_index(args.base, side_index % args.base_side_count)
        return local + env * args.cell_arg.base_cell_count

    @wp.func
    def side_outer_cell_index(args: SideArg, side_index: int):
        env = side_index // args.base_side_count
        local = b.side_outer_cell_index(args.base, side_index % args.base_side_count)
        return local + env * args.cell_arg.base_cell_count

    @wp.func
    def side_inner_cell_coords(args: SideArg, side_index: int, side_coords: Any):
        return b.side_inner_cell_coords(args.base, side_index % args.base_side_count, side_coords)

    @wp.func
    def side_outer_cell_coords(args: SideArg, side_index: int, side_coords: Any):
        return b.side_outer_cell_coords(args.base, side_index % args.base_side_count, side_coords)

    @wp.func
    def side_from_cell_coords(args: SideArg, side_index: int, element_index: int, element_coords: Any):
        return b.side_from_cell_coords(args.base, side_index % args.base_side_count,
                                       element_index % args.cell_arg.base_cell_count, element_coords)

    @wp.func
    def side_to_cell_arg(side_arg: SideArg):
        return side_arg.cell_arg

    @wp.func
    def boundary_side_index(args: SideIndexArg, boundary_side_index: int):
        env = boundary_side_index // args.base_boundary_count
        local = b.boundary_side_index(args.base, boundary_side_index % args.base_boundary_count)
        return local + env * args.base_side_count

    funcs.update({k: v for k, v in locals().items() if isinstance(v, type(cell_position))})
    return dict(funcs, CellArg=CellArg, SideArg=SideArg, SideIndexArg=SideIndexArg)


class ReplicatedGeometry(Geometry):
    """`env_count` copies of `base` (a geometry without stored per-cell data of its own, a grid)."""

    def __init__(self, base: Geometry, env_count: int):
        if not isinstance(env_count, int) or env_count < 1:
            raise ValueError(f"{type(base).__name__}: `env_count` must be a positive integer, got {env_count!r}")
        self.base_geometry = base
        self._env_count = env_count
        self.dimension, self.cell_dimension = base.dimension, base.cell_dimension
        self.__dict__.update(_device_functions(type(base)))
        self._make_default_dependent_implementations()

    def __getattr__(self, name):
        # the base's host description (res, bounds, cell_size, ...) reads through
        if name.startswith("_") or name == "base_geometry":
            raise AttributeError(name)
        return getattr(self.base_geometry, name)

    @property
    def name(self) -> str:
        return f"{self.base_geometry.name}_env{self._env_count}"

    def environment_count(self) -> int:
        return self._env_count

    @property
    def cell_env(self):
        """The environment of each cell (made once, on first use)."""
        if self.__dict__.get("_cell_env") is None:
            import numpy as np
            envs = np.repeat(np.arange(self._env_count, dtype=np.int32), self.base_geometry.cell_count())
            self.__dict__["_cell_env"] = wp.array(envs, dtype=wp.int32)
        return self.__dict__["_cell_env"]

    def cell_count(self) -> int:
        return self._env_count * self.base_geometry.cell_count()

    def vertex_count(self) -> int:
        return self._env_count * self.base_geometry.vertex_count()

    def edge_count(self) -> int:
        return self._env_count * self.base_geometry.edge_count()

    def side_count(self) -> int:
        return self._env_count * self.base_geometry.side_count()

    def boundary_side_count(self) -> int:
        return self._env_count * self.base_geometry.boundary_side_count()

    def reference_cell(self):
        return self.base_geometry.reference_cell()

    def reference_side(self):
        return self.base_geometry.reference_side()

    def fill_cell_arg(self, args, device):
        args.base = self.base_geometry.cell_arg_value(device)
        args.base_cell_count = self.base_geometry.cell_count()
        args.env_count = self._env_count

    def fill_side_arg(self, args, device):
        args.base = self.base_geometry.side_arg_value(device)
        args.cell_arg = self.cell_arg_value(device)
        args.base_side_count = self.base_geometry.side_count()

    def fill_side_index_arg(self, args, device):
        args.base = self.base_geometry.side_index_arg_value(device)
        args.base_boundary_count = self.base_geometry.boundary_side_count()
        args.base_side_count = self.base_geometry.side_count()


class Replicable:
    """Mixed into a grid: `Grid2D(res, ..., env_count=n)` with n > 1 is n copies of the grid."""

    def __new__(cls, res=None, bounds_lo=None, bounds_hi=None, scalar_type=wp.float32, env_count: int = 1):
        if env_count != 1:
            return ReplicatedGeometry(cls(res, bounds_lo, bounds_hi, scalar_type), env_count)
        return super().__new__(cls)
