"""Random numbers (random.h, random_sample.h): a 32-bit state per thread, created by
rand_init and advanced in place by every draw. Not differentiable."""

from .. import types as T
from .registry import Exact, Scalar, INT, builtin, ov

I = Scalar("I", INT)  # noqa: E741
S = Exact(T.uint32)
F32 = Exact(T.float32)
_r = dict(header="core/random.h", category="random", differentiable=False)

builtin("rand_init", ov(Exact(T.int32), ret=T.uint32, names=("seed",)),
        ov(Exact(T.int32), Exact(T.int32), ret=T.uint32, names=("seed", "offset")),
        doc="A random state from a seed (and an offset, usually the thread index, for independent streams).", **_r)
builtin("randi", ov(S, ret=T.int32, names=("state",)), ov(S, Exact(T.int32), Exact(T.int32), ret=T.int32,
        names=("state", "low", "high")), inout=(0,),
        doc="A random int32 (all values, or in [low, high)); advances state.", **_r)
builtin("randu", ov(S, ret=T.uint32, names=("state",)), ov(S, S, S, ret=T.uint32, names=("state", "low", "high")),
        inout=(0,), doc="A random uint32 (all values, or in [low, high)); advances state.", **_r)
builtin("randf", ov(S, ret=T.float32, names=("state",)), ov(S, F32, F32, ret=T.float32, names=("state", "low", "high")),
        inout=(0,), doc="A uniform float32 in [0, 1) (or [low, high)); advances state.", **_r)
builtin("randn", ov(S, ret=T.float32, names=("state",)), inout=(0,),
        doc="A standard normal float32; advances state.", **_r)

_s = dict(header="core/random_sample.h", category="random", differentiable=False, inout=(0,))
for _name, _ret, _doc in (
        ("sample_unit_sphere_surface", T.vec3, "A uniform point on the unit sphere."),
        ("sample_unit_sphere", T.vec3, "A uniform point in the unit ball."),
        ("sample_unit_hemisphere_surface", T.vec3, "A uniform point on the unit hemisphere (z >= 0)."),
        ("sample_unit_hemisphere", T.vec3, "A uniform point in the unit half ball (z >= 0)."),
        ("sample_unit_square", T.vec2, "A uniform point in [-0.5, 0.5]^2."),
        ("sample_unit_cube", T.vec3, "A uniform point in [-0.5, 0.5]^3."),
        ("sample_unit_disk", T.vec2, "A uniform point in the unit disk."),
        ("sample_unit_ring", T.vec2, "A uniform point on the unit circle.")):
    builtin(_name, ov(S, ret=_ret, names=("state",)), doc=_doc + " Advances state.", **_s)
builtin("sample_triangle", ov(S, ret=T.vec2, names=("state",)),
        doc="Uniform barycentric coordinates (u, v) on a triangle. Advances state.", **_s)
builtin("poisson", ov(S, F32, ret=T.uint32, names=("state", "lam")),
        doc="A Poisson-distributed count with mean lam. Advances state.", **_s)
