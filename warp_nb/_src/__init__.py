"""`warp._src`: where Warp keeps its implementation. Warp's own tests (and some user code) reach
into it for a few tables and helpers; this package gives those names, built from warp_nb's
public pieces, so such code imports and its other parts run. It is not warp_nb's implementation
and holds nothing else: see docs/compat.md for what is here and what a test reaching further
finds missing."""

from . import autograd, build, codegen, context, dlpack, logger, types, utils  # noqa: F401
