"""`warp._src.utils`: Warp's utilities, as warp_nb.utils has them."""

from ..utils import *  # noqa: F401,F403
from ..utils.map import map_cache  # noqa: F401  (wp.map's generated kernels; Warp's tests count them)



def check_p2p() -> bool:
    """Whether peer-to-peer copies between GPUs work here (never on a machine without two GPUs)."""
    from ..runtime.devices import get_cuda_devices, is_peer_access_supported
    gpus = get_cuda_devices()
    return len(gpus) > 1 and all(is_peer_access_supported(a, b) for a in gpus for b in gpus if a is not b)


def __getattr__(name):
    """Any other name of Warp's implementation: a stand-in that raises when used (see _internal.py)."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ._internal import internal as _stand_in
    return _stand_in(f"warp._src.utils.{name}")
