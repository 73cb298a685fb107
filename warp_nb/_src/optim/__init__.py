"""`warp._src.optim`: where Warp keeps its optimizers and linear solvers; the names Warp's tests
import from it (see linear.py)."""

from . import fsai, linear  # noqa: F401


def __getattr__(name):
    """Any other name of Warp's implementation (its `fsai` module among them): a stand-in that
    raises when used (see _internal.py)."""
    if name.startswith("__"):
        raise AttributeError(name)
    from .._internal import internal as _stand_in
    return _stand_in(f"warp._src.optim.{name}")
