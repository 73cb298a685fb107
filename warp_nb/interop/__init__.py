"""Bridges to other array frameworks: PyTorch (`torch`) and JAX (`jax`), zero-copy both ways.
Each imports its framework lazily; warp_nb never needs either unless they are called."""
