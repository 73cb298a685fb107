"""The environment operators integrands call on geometries of several environments (geometry/
environments.py): `fem.environment_index(domain, s)` (the environment of a sample's cell, or of a
side's inner cell; 0 on a geometry without environments) and the environment-aware overloads of
`fem.lookup` that operator.py uses for such geometries: `(pos, env)`, `(pos, guess_sample)` (the
guess's environment), `(pos, max_dist, env)` and the filtered `(pos, max_dist, data, target)`. A
lookup that names no environment has no overload there, as in Warp: the position alone is ambiguous."""

from __future__ import annotations

from typing import Any

from ..program.func import func
from ..types import int32
from .operator import Operator
from .types import ElementKind, Sample


@func
def _no_environment(domain_arg: Any, s: Sample):
    return int32(0)


def _environment_index(domain):
    geo = domain.geometry
    cell_env = getattr(geo, "cell_environment", None)
    if cell_env is None:
        return _no_environment
    key = (type(domain).element_kind, geo.CellArg, cell_env)
    cached = _ENV_FUNCS.get(key)
    if cached is not None:
        return cached
    if domain.element_kind == ElementKind.CELL:
        @func
        def environment_index(domain_arg: Any, s: Sample):
            return cell_env(domain_arg.geo, s.element_index)
    else:
        to_cell_arg, inner = geo.side_to_cell_arg, geo.side_inner_cell_index

        @func
        def environment_index(domain_arg: Any, s: Sample):
            return cell_env(to_cell_arg(domain_arg.geo), inner(domain_arg.geo, s.element_index))
    cached = _ENV_FUNCS[key] = environment_index
    return cached


_ENV_FUNCS: dict = {}


def environment_lookup_functions(geometry):
    """`fem.lookup`'s overloads for the cells of a geometry of several environments."""
    cell_env = geometry.cell_environment
    filtered_env = geometry.make_filtered_cell_lookup(cell_env)
    filtered = geometry.make_filtered_cell_lookup()

    # named for the geometry's cell lookup, so that a call naming no environment reads as Warp's error
    @func
    def cell_lookup(domain_arg: Any, pos: Any, env: int32):
        return filtered_env(domain_arg.geo, pos, 1.0e30, domain_arg.geo, env)

    @func
    def cell_lookup(domain_arg: Any, pos: Any, max_dist: float, env: int32):  # noqa: F811 (an overload)
        return filtered_env(domain_arg.geo, pos, max_dist, domain_arg.geo, env)

    @func
    def cell_lookup(domain_arg: Any, pos: Any, guess: Sample):  # noqa: F811 (an overload)
        found = filtered_env(domain_arg.geo, pos, 1.0e30, domain_arg.geo,
                             cell_env(domain_arg.geo, guess.element_index))
        found.test_dof = guess.test_dof
        found.trial_dof = guess.trial_dof
        return found

    @func
    def cell_lookup(domain_arg: Any, pos: Any, max_dist: float, filter_data: Any, filter_target: Any):  # noqa: F811
        return filtered(domain_arg.geo, pos, max_dist, filter_data, filter_target)

    return cell_lookup


class _EnvironmentOperator(Operator):
    def resolve(self, target, kind: str, arg_name: str):
        if kind != "domain":
            raise TypeError(f"fem.{self.name} takes the domain as its first argument; `{arg_name}` is a field")
        return _environment_index(target)


environment_index = _EnvironmentOperator(
    "environment_index", "Environment of a sample's cell (of a side's inner cell) in a geometry of several "
    "environments; 0 in a geometry of one.")
