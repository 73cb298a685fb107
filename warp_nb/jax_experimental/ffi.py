"""`warp.jax_experimental.ffi`: where Warp 1.19 keeps `jax_kernel` and `jax_callable` (its
XLA FFI implementation); here they are the callback-based ones of this package."""

from . import GraphMode, JaxCallableGraphMode, JaxModulePreloadMode, ModulePreloadMode, jax_callable, jax_kernel  # noqa: F401
