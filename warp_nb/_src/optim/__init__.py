"""`warp._src.optim`: where Warp keeps its optimizers and linear solvers; the names Warp's tests
import from it. `warp._src.optim.fsai` is warp_nb's FSAI module itself (not a copy of its names),
so a test that patches one of its functions patches what the preconditioner calls."""

import sys

from ...optim.linear import fsai
from . import linear  # noqa: F401

sys.modules[__name__ + ".fsai"] = fsai


def __getattr__(name):
    """Any other name of Warp's implementation: a stand-in that raises when used (see _internal.py)."""
    if name.startswith("__"):
        raise AttributeError(name)
    from .._internal import internal as _stand_in
    return _stand_in(f"warp._src.optim.{name}")
