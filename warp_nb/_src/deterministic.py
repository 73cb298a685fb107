"""`warp._src.deterministic`: the level constants Warp's tests compare with wp.DeterministicMode, and
the error class. warp_nb's deterministic lowering is compiler/deterministic.py with its CPU replay
in native/arrays/deterministic.h; Warp's scatter buffers, sort-reduce passes and their metadata have
no counterpart here (docs/compat.md)."""

from ..config import DeterministicMode
from ..errors import WarpDeterminismError  # noqa: F401

DETERMINISTIC_NOT_GUARANTEED = DeterministicMode.NOT_GUARANTEED
DETERMINISTIC_RUN_TO_RUN = DeterministicMode.RUN_TO_RUN
DETERMINISTIC_GPU_TO_GPU = DeterministicMode.GPU_TO_GPU
