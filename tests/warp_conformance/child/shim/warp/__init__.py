"""Stand-in ``warp`` package for processes that Warp's tests start themselves.

The conformance runner puts ``child/shim`` and ``child`` on PYTHONPATH of its child processes.
Importing this package installs the import hook and replaces itself in sys.modules by warp_nb,
so ``import warp`` in such a process returns the warp_nb module (see warp_conformance_hook.py).
"""

import sys

import warp_conformance_hook

warp_conformance_hook.install()
import warp_nb

sys.modules[__name__] = warp_nb
