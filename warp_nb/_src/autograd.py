"""`warp._src.autograd`: Warp's gradient-checking helpers live in `warp_nb.autograd`; its
FunctionMetadata (which Warp's tests build by hand) is the one those helpers use."""

from ..autograd import *  # noqa: F401,F403
from ..autograd import FunctionMetadata  # noqa: F401


def __getattr__(name):
    """Any other name of Warp's implementation: a stand-in that raises when used (see _internal.py)."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ._internal import internal as _stand_in
    return _stand_in(f"warp._src.autograd.{name}")
