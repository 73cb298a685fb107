"""End to end: functions of Python's math module and numpy called in kernels compile as the wp
builtins of their name, as in Warp 1.19 (MuJoCo Warp's SDF test data calls math.sqrt in a
@wp.func); one without a builtin of its name stays refused with a hint (tests/unit/test_typecheck.py)."""

import math

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.func
def _math_module_func(x: float) -> float:
    return math.sqrt(x) + math.sin(x)


@wp.kernel
def _math_module_calls(a: wp.array(dtype=float)):
    a[0] = _math_module_func(a[0])
    a[1] = math.floor(a[1]) + np.exp(a[2]) + float(math.isnan(a[1]))


def test_math_and_numpy_functions_compile_as_the_builtins_of_their_name():
    # values probed from warp-lang 1.19: [1.2431974, 4.7182817, 1.0]
    a = wp.array([4.0, 2.5, 1.0], dtype=float)
    wp.launch(_math_module_calls, dim=1, inputs=[a])
    np.testing.assert_allclose(a.numpy(), [2.0 + np.sin(4.0), 2.0 + np.e, 1.0], rtol=1e-6)
