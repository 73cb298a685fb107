"""A builtin's numpy twin (its Python-scope implementation) against its own kernel code, on inputs off
the ideal: quaternions not of unit length, arguments outside a function's domain, zero divisors,
singular matrices, proper Euler sequences. (normalize and inverse have no twin: their kernels' results
at an underflowing length or a singular matrix are what numpy would not give.) The other tests feed twins the kernel tests' generated
inputs (unit quaternions, in-domain arguments), where the twins of quat_rotate, quat_to_rpy, sqrt,
cw_div and determinant agreed with their kernels and differed off them (found against warp-lang by
tests/fuzz/builtins_against_warp.py). The kernel side is warp_nb/launch/builtin_call.py's one-thread
kernel, the path a builtin without a twin takes from Python scope."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.builtins.registry import BUILTINS
from warp_nb.launch.builtin_call import call

pytestmark = pytest.mark.needs_cxx

RNG = np.random.default_rng(11)


def _q(scale):
    q = RNG.standard_normal(4)
    return wp.quatf(*(q / np.linalg.norm(q) * scale))


def _v3():
    return wp.vec3f(*RNG.standard_normal(3))


def _t(scale):
    return wp.transformf(_v3(), _q(scale))


SCALARS = [-2.5, -1.26, -0.5, 0.0, 0.5, 1.26, 2.5, 89.0, float("inf"), float("nan")]
SCALAR_FNS = ["sqrt", "cbrt", "exp", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
              "cosh", "tanh", "erf", "degrees", "radians", "floor", "ceil", "trunc", "round", "rint", "frac"]
SCALES = (0.6, 1.0, 1.7)  # quaternion lengths
CASES = {  # name -> argument tuples
    "quat_rotate": [(_q(s), _v3()) for s in SCALES],
    "quat_rotate_inv": [(_q(s), _v3()) for s in SCALES],
    "quat_to_matrix": [(_q(s),) for s in SCALES],
    "quat_inverse": [(_q(s),) for s in SCALES],
    "quat_to_rpy": [(_q(s),) for s in SCALES],
    "quat_to_euler": [(_q(s), *seq) for s in SCALES for seq in ((0, 1, 2), (2, 0, 1), (0, 1, 0), (2, 1, 2))],
    "quat_twist": [(_v3(), _q(s)) for s in SCALES],
    "quat_twist_angle_signed": [(_v3(), _q(s)) for s in SCALES],
    "transform_point": [(_t(s), _v3()) for s in SCALES],
    "transform_vector": [(_t(s), _v3()) for s in SCALES],
    "transform_inverse": [(_t(s),) for s in SCALES],
    "transform_multiply": [(_t(s), _t(1.3)) for s in SCALES],
    "transform_to_matrix": [(_t(s),) for s in SCALES],
    "cw_div": [(wp.vec3i(7, -7, 3), wp.vec3i(2, 2, 0)), (wp.vec3f(1.0, -1.0, 0.0), wp.vec3f(0.0, 0.0, 0.0))],
    "determinant": [(wp.mat33(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0),), (wp.mat22(1.0, 2.0, 2.0, 4.0),)],
    "norm_huber": [(_v3(), -1.5), (_v3(), 0.1)],
    "length": [(wp.vec3f(3.0, 4.0, 0.0),), (wp.vec3f(1e-30, 0.0, 0.0),)],
    "smoothstep": [(wp.float32(a), wp.float32(b), wp.float32(x)) for a, b in ((1.0, 1.0), (0.0, 2.0), (2.0, 0.0))
                   for x in (-1.0, 0.0, 1.0, 2.0, 3.0)],
    "clamp": [(wp.float32(x), wp.float32(lo), wp.float32(hi)) for x, lo, hi in
              ((1.0, 1.0, 1.0), (3.0, 2.0, 1.0), (0.0, 2.0, 1.0), (float("nan"), 0.0, 1.0), (0.5, float("nan"), 1.0))],
}
CASES.update({name: [(wp.float32(x),) for x in SCALARS] for name in SCALAR_FNS})


def _flat(result):
    if isinstance(result, tuple):
        return np.concatenate([_flat(r) for r in result])
    return np.array(result, dtype=np.float64).ravel()


@pytest.mark.parametrize("name", sorted(CASES))
def test_twin_computes_what_the_kernel_computes(name):
    builtin = BUILTINS[name]
    assert builtin.python is not None, f"{name} has no numpy twin any more: take it out of this test"
    for args in CASES[name]:  # (wp.<name> rounds the twin's result to its type, as a user sees it)
        twin, kernel = _flat(getattr(wp, name)(*args)), _flat(call(builtin, args, {}))
        np.testing.assert_allclose(twin, kernel, rtol=2e-6, atol=1e-6, equal_nan=True,
                                   err_msg=f"wp.{name}{tuple(args)}: numpy twin against the kernel")
