"""One compile at a time per process. Kernels are compiled when first launched, and launches may
come from several threads at once (JAX callbacks on two devices, a user's thread pool): the
compiler's caches and per-kernel tables are not written under locks of their own, and CPython
3.11's `ast.parse` is not safe to run from two threads at once ("AST constructor recursion depth
mismatch"). Reentrant: loading a module compiles its kernels under the same lock. The C++
compilers of one build still run in parallel (module._build_together)."""

import threading

COMPILE_LOCK = threading.RLock()
