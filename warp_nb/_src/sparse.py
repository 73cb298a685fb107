"""`warp._src.sparse`: the names of Warp's sparse implementation its tests patch (the logger the
deprecated `copy_nnz_async` warns through, and `wp`, whose `copy` counts the nnz transfers).
warp_nb.sparse calls them through runtime/compat_hooks.py once this module is loaded."""

import sys

import warp_nb as wp  # noqa: F401  (tests patch wp.copy through this name)

from ..runtime import compat_hooks as _hooks
from .logger import log_warning  # noqa: F401

_hooks.register("sparse", sys.modules[__name__])
