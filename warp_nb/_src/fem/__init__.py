"""`warp._src.fem`: where Warp keeps its finite-element library. The modules Warp's tests import
from it (`cache`, `linalg`, `utils`) are warp_nb.fem's own modules, not copies of their names, so a
test that patches one of their functions patches what warp_nb.fem calls."""

import sys

from ...fem import cache, linalg, utils

for _module in (cache, linalg, utils):
    sys.modules[f"{__name__}.{_module.__name__.rsplit('.', 1)[-1]}"] = _module


def __getattr__(name):
    """Any other name of Warp's implementation: a stand-in that raises when used (see _internal.py)."""
    if name.startswith("__"):
        raise AttributeError(name)
    from .._internal import internal as _stand_in
    return _stand_in(f"warp._src.fem.{name}")
