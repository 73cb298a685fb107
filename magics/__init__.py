"""warp_nb.magics"""
