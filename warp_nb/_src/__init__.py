"""`warp._src`: where Warp keeps its implementation. Warp's own tests (and some user code) reach
into it for a few tables and helpers; this package gives those names, built from warp_nb's
public pieces, so such code imports and its other parts run. It is not warp_nb's implementation
and holds nothing else: see docs/compat.md for what is here and what a test reaching further
finds missing.

This is the one home of warp_nb's Warp-compatibility shims: the `_src` namespaces, `Kernel.adj`'s
view (adjoint_view.py), Warp's runtime object (runtime_object.py) and module hashers
(module_hashing.py). Nothing imports it on `import warp_nb`; it loads when Warp's code reaches for
`warp._src` or `kernel.adj`, and registers the names the library honours (runtime/compat_hooks.py)."""

from . import autograd, build, builtins, codegen, context, deterministic, dlpack, geometry, logger, texture, types, utils  # noqa: F401,E501
