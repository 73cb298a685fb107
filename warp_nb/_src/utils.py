"""`warp._src.utils`: Warp's utilities, as warp_nb.utils has them."""

from ..utils import *  # noqa: F401,F403

from ._internal import internal  # noqa: E402

check_p2p = internal("warp._src.utils.check_p2p")
