"""wp.map: a @wp.func, builtin or lambda applied elementwise to arrays (numpy broadcasting), values
checked against numpy; its errors in Warp's words; one generated kernel per function text, input
types and broadcast pattern; gradients through a tape."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.utils.map import map_cache

pytestmark = pytest.mark.needs_cxx


@wp.func
def _affine(a: float):
    return 2.0 * a - 10.0


@wp.func
def _two(a: float):
    return a + 1.0, wp.vec2(a, -a)


def test_lambdas_funcs_and_builtins_with_broadcasting():
    rng = np.random.default_rng(0)
    x, y = rng.random((3, 1, 4), dtype=np.float32), rng.random((5, 4), dtype=np.float32)
    scale = 3.0
    out = wp.map(lambda a, b: a * scale + b, wp.array(x), wp.array(y))
    np.testing.assert_allclose(out.numpy(), x * scale + y, rtol=1e-6)
    np.testing.assert_allclose(wp.map(wp.clamp, wp.array(y), -0.5, 0.5).numpy(), np.clip(y, -0.5, 0.5))
    np.testing.assert_allclose(wp.map(_affine, wp.array(y)).numpy(), 2.0 * y - 10.0, rtol=1e-6)
    first, second = wp.map(_two, wp.array(y[0]))
    np.testing.assert_allclose(first.numpy(), y[0] + 1.0)
    np.testing.assert_allclose(second.numpy(), np.stack([y[0], -y[0]], 1))
    given = wp.empty(4, dtype=float)
    assert wp.map(lambda a: a * a, wp.array(y[0]), out=given) is given
    np.testing.assert_allclose(given.numpy(), y[0] ** 2, rtol=1e-6)


def test_errors_say_what_does_not_fit():
    a = wp.zeros(3)
    with pytest.raises(ValueError, match=r"^map requires at least one warp.array input$"):
        wp.map(lambda u, v: u * v, 1.0, 2.0)
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(5,\) are not broadcastable"):
        wp.map(wp.add, a, wp.zeros(5))
    with pytest.raises(TypeError, match=r"Number of input arguments \(2\) does not match .* \(1\)"):
        wp.map(_affine, a, a)
    with pytest.raises(TypeError, match=r"Output array dtype int32 does not match expected dtype float32"):
        wp.map(wp.sub, a, a, out=wp.empty(3, dtype=int))


def test_one_kernel_per_text_types_and_pattern():
    a, b = wp.zeros(3), wp.ones(3)
    map_cache.clear()
    wp.map(lambda u, v: u + v, a, b)
    wp.map(lambda u, v: u + v, wp.zeros(7), wp.ones(7))  # another lambda, same text; another length
    assert len(map_cache) == 1
    wp.map(lambda u, v: u + v, wp.zeros((3, 1)), b)  # another broadcast pattern
    assert len(map_cache) == 2


def test_gradient_flows_through_a_tape():
    a = wp.array(np.arange(5, dtype=np.float32), requires_grad=True)
    tape = wp.Tape()
    with tape:
        out = wp.map(_affine, a)
    out.grad.fill_(1.0)
    tape.backward()
    np.testing.assert_allclose(a.grad.numpy(), np.full(5, 2.0))
