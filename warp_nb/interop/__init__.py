"""Bridges to other array frameworks: PyTorch (`torch`), JAX (`jax`) and PaddlePaddle (`paddle`),
zero-copy both ways. Each imports its framework lazily; warp_nb never needs one unless it is called."""
