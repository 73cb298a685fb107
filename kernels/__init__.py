"""warp_nb.kernels"""
