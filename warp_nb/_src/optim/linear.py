"""`warp._src.optim.linear`: Warp's solver module, as warp_nb.optim.linear has it, plus the
host loop Warp's tests call directly (`_run_solver_loop`). Warp's CUDA tile reductions
(`TiledDot`, `_create_segmented_tiled_dot_kernels`) are not part of warp_nb: they import as
stand-ins that raise when used (only Warp's CUDA-only tests use them)."""

from ...optim.linear import *  # noqa: F401,F403
from ...optim.linear.state import run_solver_loop as _run_solver_loop  # noqa: F401


def __getattr__(name):
    """Any other name of Warp's implementation: a stand-in that raises when used (see _internal.py)."""
    if name.startswith("__"):
        raise AttributeError(name)
    from .._internal import internal as _stand_in
    return _stand_in(f"warp._src.optim.linear.{name}")
