"""`warp._src.autograd`: Warp's gradient-checking helpers live in `warp_nb.autograd`."""

from ..autograd import *  # noqa: F401,F403
from ._internal import internal

FunctionMetadata = internal("warp._src.autograd.FunctionMetadata")
