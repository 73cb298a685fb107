"""@wp.func overloads chosen in kernels as Warp chooses them: by the number of arguments as well as
their types (f(a, b) and f(a, b, c) side by side), and generic return annotations (`-> wp.Int`)
that take whatever type of that kind the body returns. Results against the Python formulas."""

from typing import Any

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.func
def combine(a: float, b: float):
    return a * b


@wp.func
def combine(a: float, b: float, c: float):  # noqa: F811  (an overload)
    return a * b * c


@wp.func
def combine(a: Any, b: Any):  # noqa: F811
    return a + b


@wp.func
def combine(a: int, b: int, c: int):  # noqa: F811
    return a - b - c


vec3s = wp.types.vector(3, wp.int16)


@wp.func
def total(v: wp.types.vector(3, wp.Int)) -> wp.Int:
    return v[0] + v[1] + v[2]


@wp.kernel
def use_overloads(x: wp.array(dtype=float), out: wp.array(dtype=float), ints: wp.array(dtype=int),
                  vec_out: wp.array(dtype=wp.vec3), small: wp.array(dtype=wp.int16)):
    i = wp.tid()
    out[0] = combine(x[0], x[1])
    out[1] = combine(x[0], x[1], x[2])
    ints[0] = combine(17, 25, 10)
    vec_out[0] = combine(wp.vec3(x[0]), wp.vec3(x[1]))
    small[0] = total(vec3s(wp.int16(1), wp.int16(2), wp.int16(3)))


def test_overloads_by_arity_and_generic_returns():
    x = np.array([3.0, 4.0, 0.5], dtype=np.float32)
    out, ints = wp.zeros(2, dtype=float), wp.zeros(1, dtype=int)
    vec_out, small = wp.zeros(1, dtype=wp.vec3), wp.zeros(1, dtype=wp.int16)
    wp.launch(use_overloads, 1, inputs=[wp.array(x), out, ints, vec_out, small])
    np.testing.assert_allclose(out.numpy(), [x[0] * x[1], x[0] * x[1] * x[2]])
    assert ints.numpy()[0] == 17 - 25 - 10
    np.testing.assert_allclose(vec_out.numpy()[0], np.full(3, x[0] + x[1]))
    assert small.numpy()[0] == 6


def test_a_generic_return_annotation_still_checks_the_kind():
    @wp.func
    def wrong_kind(v: wp.vec3) -> wp.Int:
        return v[0]

    @wp.kernel(module="unique")
    def calls_it(out: wp.array(dtype=float)):
        out[0] = float(wrong_kind(wp.vec3(1.0)))

    with pytest.raises(TypeError, match="annotated as `Int` but the code returns a value of type `float32`"):
        wp.launch(calls_it, 1, inputs=[wp.zeros(1, dtype=float)])


@pytest.mark.parametrize("value", [1, 1.5, "yes"])
def test_inline_hint_must_be_a_bool(value):
    with pytest.raises(TypeError, match="inline must be a bool"):
        @wp.func(inline=value)
        def invalid(x: float) -> float:
            return x


@pytest.mark.parametrize("value", [None, True, False])
def test_inline_hint_accepted(value):
    @wp.func(inline=value)
    def twice(x: float) -> float:
        return 2.0 * x

    @wp.kernel(module="unique")
    def k(a: wp.array(dtype=float)):
        a[wp.tid()] = twice(float(wp.tid()))

    a = wp.zeros(3, dtype=float, device="cpu")
    wp.launch(k, dim=3, inputs=[a], device="cpu")
    np.testing.assert_array_equal(a.numpy(), [0.0, 2.0, 4.0])


@pytest.mark.parametrize("value", [None, True, False])
def test_inline_hint_reaches_adjoints_and_custom_gradients(value):
    @wp.func(inline=value)
    def square(x: float) -> float:
        return x * x

    @wp.func(inline=value)
    def clipped(x: float) -> float:
        return wp.min(x, 1.0)

    @wp.func_grad(clipped)
    def adj_clipped(x: float, adj_ret: float):
        wp.adjoint[x] += 3.0 * adj_ret  # a custom gradient the exact one (0 or 1) cannot be confused with

    @wp.kernel(module="unique")
    def k(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = square(x[i]) + clipped(x[i])

    x_np = np.array([0.5, 2.0, -1.0], dtype=np.float32)
    x, y = wp.array(x_np, requires_grad=True), wp.zeros(3, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(k, dim=3, inputs=[x, y])
    tape.backward(grads={y: wp.ones(3)})
    np.testing.assert_allclose(y.numpy(), x_np * x_np + np.minimum(x_np, 1.0))
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * x_np + 3.0)
