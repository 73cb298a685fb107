"""Several environments in one geometry: independent copies of a scene (a mesh's cells tagged by
`cell_env`, one environment index per cell) that share one set of arrays, so that one launch works
on all of them. What this adds to a geometry: the host side (`environment_count()`, `cell_env`, the
checks of Warp's `cell_env` / `env_count` arguments) and `cell_environment(cell_arg, cell)`, the
device function reading a cell's environment from the CellArg (its `cell_env` array, empty for a
single environment). Lookups restricted to an environment are in operator_environment.py."""

from __future__ import annotations

import numpy as np

import warp_nb as wp


@wp.func
def mesh_cell_environment(args: wp.types.Any, cell_index: int):
    if args.cell_env.shape[0] == 0:
        return 0
    return args.cell_env[cell_index]


class MeshEnvironments:
    """Host side of a mesh's environments (mixed into the mesh geometries)."""

    cell_env = None  # per-cell environment indices (None: a single environment)
    _env_count = 1
    cell_environment = mesh_cell_environment

    def set_environments(self, name: str, cell_env, env_count) -> None:
        """Check and keep Warp's `cell_env` (int32, one entry per cell) and `env_count` arguments."""
        if cell_env is None:
            if env_count not in (None, 1):
                raise ValueError(f"{name}: `env_count` {env_count} needs a `cell_env` array (the environment of "
                                 "each cell)")
            return
        if env_count is None:
            raise ValueError(f"{name}: Environment count must be provided (`env_count`) with `cell_env`")
        if not isinstance(cell_env, wp.array) or cell_env.dtype is not wp.int32 or cell_env.ndim != 1:
            raise ValueError(f"{name}: `cell_env` must be a 1-d warp array of dtype wp.int32, got "
                             f"{getattr(cell_env, 'dtype', type(cell_env)).__name__}")
        if cell_env.shape[0] != self.cell_count():
            raise ValueError(f"{name}: `cell_env` must have one entry per cell ({self.cell_count()}), got "
                             f"{cell_env.shape[0]}")
        envs = cell_env.numpy()
        if envs.size and (envs.min() < 0 or envs.max() >= env_count):
            raise ValueError(f"{name}: `cell_env` values must lie in [0, {env_count}), got [{envs.min()}, "
                             f"{envs.max()}]")
        self.cell_env, self._env_count = cell_env, int(env_count)

    def environment_count(self) -> int:
        return self._env_count

    @property
    def name(self) -> str:
        base = type(self).__name__
        return base if self.cell_env is None else f"{base}_env{self._env_count}"

    def cell_env_arg(self, device):
        """The `cell_env` array of the CellArg (empty for a single environment)."""
        if self.cell_env is None:
            cached = _EMPTY.get(str(device))
            if cached is None:
                cached = _EMPTY[str(device)] = wp.array(np.zeros(0, dtype=np.int32), dtype=int, device=device)
            return cached
        return self.cell_env.to(device)


_EMPTY: dict = {}
