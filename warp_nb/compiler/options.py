"""The options of one compilation (`CompileOptions`), apart from the compiler itself: a launch
computes them for every kernel, and importing them must not load the front and back halves
(`import warp_nb` stays quick; the compiler loads at the first compile)."""

from __future__ import annotations
from .records import record



@record(frozen=True)
class CompileOptions:
    """What changes the generated code or its compilation, apart from the kernel and the target.
    Computed once per launch configuration (`Kernel.options`), so every target sees the same."""

    mode: str = "release"  # "checked": optimised with bounds checks; "debug": checks, asserts, -O0 -g
    backward: bool = False  # also emit the adjoint
    cxx_flags: str = ""  # extra C++ compiler flags (CPU)
    block_dim: int = 1  # lanes per block of a tile kernel (native/tiles/block.h); 1 for every other kernel
    deterministic: int = 0  # a wp.DeterministicMode: above 0, float atomics land in thread order (deterministic.py)
    verify_fp: bool = False  # wp.config.verify_fp: stores of NaN and infinity into arrays are reported
    vector_math: bool = True  # wp.config.cpu_vector_math: libm calls vectorise (toolchain/vector_math.py)
