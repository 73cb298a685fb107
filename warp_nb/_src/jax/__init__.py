"""`warp._src.jax`: the helpers Warp's JAX tests import from Warp's implementation."""

from ...interop.jax import get_jax_device  # noqa: F401
