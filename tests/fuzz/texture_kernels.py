"""The kernels of textures_against_warp.py, written once for both libraries: the module named by
TEXTURES_AGAINST_WARP_MODULE (warp or warp_nb) is `wp` here."""

from __future__ import annotations

import importlib
import os

wp = importlib.import_module(os.environ.get("TEXTURES_AGAINST_WARP_MODULE", "warp_nb"))


@wp.kernel
def sample2d(t: wp.Texture2D, q: wp.array(dtype=wp.vec2), out: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    out[i] = wp.texture_sample(t, q[i], dtype=wp.vec4)


@wp.kernel
def sample3d(t: wp.Texture3D, q: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.texture_sample(t, q[i], dtype=float)
