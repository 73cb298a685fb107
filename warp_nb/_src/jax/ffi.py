"""`warp._src.jax.ffi`: names Warp's JAX tests import. warp_nb's jax_kernel runs through
jax.pure_callback, not an XLA FFI target, so registering a raw FFI callback is refused."""


def register_ffi_callback(name, func, graph_compatible=True):
    raise NotImplementedError("register_ffi_callback needs Warp's XLA FFI bridge, which warp_nb does not have; "
                              "wrap the function with wp.jax_callable(...) instead")
