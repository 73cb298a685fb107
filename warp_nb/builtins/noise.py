"""Perlin gradient noise (noise.h): noise, pnoise (periodic) and curlnoise. `state` (from
rand_init) selects the field and is not advanced; gradients flow to the coordinates only. The
fields are Warp's, number for number (its lattice hash and gradients, C2, zero at lattice points)."""

from .. import types as T
from .registry import Exact, Vec, builtin, ov

S, F32, I32, U32 = Exact(T.uint32), Exact(T.float32), Exact(T.int32), Exact(T.uint32)
V2, V3, V4 = (Vec(n, F32) for n in (2, 3, 4))
_n = dict(header="core/noise.h", category="noise")

builtin("noise", *(ov(S, x, ret=T.float32, names=("state", "x")) for x in (F32, V2, V3, V4)), **_n,
        doc="Gradient noise at x (float32, vec2, vec3 or vec4), roughly in [-1, 1].")
builtin("pnoise", ov(S, F32, I32, ret=T.float32, names=("state", "x", "px")),
        ov(S, V2, I32, I32, ret=T.float32, names=("state", "xy", "px", "py")),
        ov(S, V3, I32, I32, I32, ret=T.float32, names=("state", "xyz", "px", "py", "pz")),
        ov(S, V4, I32, I32, I32, I32, ret=T.float32, names=("state", "xyzt", "px", "py", "pz", "pt")), **_n,
        doc="Gradient noise repeating with integer period px (py, pz, pt) along each axis (lattice coordinates "
            "wrap with C's remainder, as Warp: periodic on each side of 0, not across it).")
builtin("curlnoise", *(o for x, r, p in ((V2, T.vec2, "xy"), (V3, T.vec3, "xyz"), (V4, T.vec3, "xyzt")) for o in (
        ov(S, x, ret=r, names=("state", p)),
        ov(S, x, U32, F32, F32, ret=r, names=("state", p, "octaves", "lacunarity", "gain")))), **_n,
        doc="Divergence-free noise: the curl of fractal noise potentials (vec2 for 2-D input, vec3 otherwise); "
            "octaves = 1, lacunarity = 2, gain = 0.5 by default.")
