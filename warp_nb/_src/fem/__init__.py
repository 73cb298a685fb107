"""`warp._src.fem`: the private paths of Warp's finite-element library that its tests import, as thin
re-exports of warp_nb.fem. `cache`, `linalg` and `utils` are warp_nb.fem's own modules, not copies
of their names, so a test that patches one of their functions patches what warp_nb.fem calls."""

import sys

from ...fem import cache, linalg, utils

for _module in (cache, linalg, utils):
    sys.modules[f"{__name__}.{_module.__name__.rsplit('.', 1)[-1]}"] = _module

