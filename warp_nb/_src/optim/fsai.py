"""`warp._src.optim.fsai`: Warp's FSAI module, as warp_nb.optim.linear.fsai has it (the product
kernel factory `_matvec_kernel` included). Other implementation names are stand-ins."""

from ...optim.linear.fsai import *  # noqa: F401,F403
from ...optim.linear.fsai import FSAI, _matvec_kernel  # noqa: F401


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from .._internal import internal as _stand_in
    return _stand_in(f"warp._src.optim.fsai.{name}")
