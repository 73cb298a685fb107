"""Global settings, read at compile and launch time (`wp.config.mode = "debug"`). Names follow
Warp's where Warp has the setting."""

import os

#: "release" (optimised) or "debug" (bounds checks that raise Python errors, asserts, -O0 -g).
mode: str = "release"

#: Where compiled kernels are cached; None means $WARP_NB_CACHE_DIR or the per-user cache directory.
kernel_cache_dir: str | None = os.environ.get("WARP_NB_CACHE_DIR") or None

#: Constant-range loops with at most this many iterations are unrolled.
max_unroll: int = 16

#: Threads for CPU launches: 0 means every core; 1 runs serially and deterministically.
cpu_threads: int = 0

#: Print the typed IR of every kernel as it is compiled (a debug switch for compiler work).
print_ir: bool = False

#: Check the IR's invariants between compiler stages (always on in debug mode; the tests set it).
verify_ir: bool = False

#: Whether kernels can be differentiated (wp.Tape, adjoint launches); `@wp.kernel(enable_backward=...)`
#: overrides it per kernel. With False, a backward launch is refused.
enable_backward: bool = True

#: Extra flags for the C++ compiler (appended; part of the cache key).
cxx_flags: str = os.environ.get("WARP_NB_CXXFLAGS", "")
