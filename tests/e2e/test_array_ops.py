"""Python-scope array arithmetic (`a + b`, `2.0 / a`, `-a`, `a *= 2`): element-wise kernels,
compared with numpy, for scalar and vector arrays, in place and through a Tape."""

import numpy as np
import pytest

import warp_nb as wp

_BINARY = [
    ("add", lambda x, y: x + y), ("sub", lambda x, y: x - y), ("mul", lambda x, y: x * y),
    ("truediv", lambda x, y: x / y), ("floordiv", lambda x, y: x // y), ("pow", lambda x, y: x ** y),
]


@pytest.mark.parametrize("name, op", _BINARY)
def test_float_arrays_and_scalars_match_numpy(name, op):
    an = np.linspace(0.5, 3.0, 7).astype(np.float32)
    bn = np.linspace(1.0, 2.0, 7).astype(np.float32)
    a, b = wp.array(an), wp.array(bn)
    np.testing.assert_allclose(op(a, b).numpy(), op(an, bn), rtol=1e-6)
    np.testing.assert_allclose(op(a, 1.5).numpy(), op(an, np.float32(1.5)), rtol=1e-6)
    np.testing.assert_allclose(op(1.5, b).numpy(), op(np.float32(1.5), bn), rtol=1e-6)


@pytest.mark.parametrize("dtype", [wp.int8, wp.uint16, wp.int32, wp.int64])
def test_integer_division_truncates_and_modulo_keeps_the_dividends_sign(dtype):
    values = np.array([7, 9, 12], dtype=np.dtype(dtype._np))
    a = wp.array(values, dtype=dtype)
    quotient, remainder = a / dtype(4), a % 5
    assert quotient.dtype is dtype and quotient.numpy().tolist() == (values // 4).tolist()
    assert remainder.numpy().tolist() == (values % 5).tolist()
    assert (dtype(5) - wp.array([1, 2, 3], dtype=dtype)).numpy().tolist() == [4, 3, 2]


def test_two_dimensional_and_strided_arrays_keep_their_shape():
    an = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = wp.array(an)
    col = a[:, 1]  # a strided view
    np.testing.assert_array_equal((col * 2.0).numpy(), an[:, 1] * 2.0)
    np.testing.assert_array_equal((a - a).numpy(), np.zeros((3, 4)))
    col *= 10.0  # in place through the view writes the parent array
    expected = an.copy()
    expected[:, 1] *= 10.0
    np.testing.assert_array_equal(a.numpy(), expected)


def test_vector_arrays_negate_scale_and_add():
    vn = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    v = wp.array(vn, dtype=wp.vec3)
    np.testing.assert_allclose((-v).numpy(), -vn)
    np.testing.assert_allclose((v * 2.0).numpy(), vn * 2.0, rtol=1e-6)
    np.testing.assert_allclose((v + v).numpy(), vn + vn, rtol=1e-6)


def test_in_place_operator_updates_the_same_array():
    g = wp.ones((2, 3))
    before = g
    g *= 4.0
    g -= 1.0
    assert g is before
    np.testing.assert_array_equal(g.numpy(), np.full((2, 3), 3.0))


def test_operators_are_recorded_on_a_tape():
    xn = np.array([1.0, -2.0, 0.5], np.float32)
    x = wp.array(xn, requires_grad=True)
    tape = wp.Tape()
    with tape:
        y = (x * x) * 3.0 - x
    tape.backward(grads={y: wp.ones(3)})
    np.testing.assert_allclose(x.grad.numpy(), 6.0 * xn - 1.0, rtol=1e-6)


def test_mismatched_shapes_are_refused():
    with pytest.raises(ValueError, match=r"shapes \(3,\) and \(4,\) differ"):
        wp.zeros(3) + wp.zeros(4)


def test_cptr_indexes_the_elements_of_a_host_array():
    @wp.struct
    class Particle:
        mass: float
        pos: wp.vec3

    items = [Particle() for _ in range(3)]
    for k, p in enumerate(items):
        p.mass, p.pos = 1.5 * k, wp.vec3(k, 2.0 * k, 3.0 * k)
    a = wp.array(items, dtype=Particle)
    ptr = a.cptr()
    for k in range(3):
        assert ptr[k].mass == 1.5 * k and ptr[k].pos == wp.vec3(k, 2.0 * k, 3.0 * k)
    ptr[2].mass = 7.0  # the pointer aliases the array's memory
    assert a.numpy()["mass"][2] == 7.0
    values = wp.array(np.arange(4, dtype=np.float32))
    assert [values.cptr()[k] for k in range(4)] == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match="contiguous"):
        wp.array(np.arange(8, dtype=np.float32))[::2].cptr()


@pytest.mark.parametrize("dtype", [wp.float16, wp.float32, wp.float64])
def test_negation_of_a_float_is_zero_minus_it_as_in_warp(dtype):
    """Warp's scalar neg(x) is 0 - x: both zeros give +0.0 and a nan keeps its sign (found by
    tests/fuzz/arrays_against_warp.py through `-a`; warp_nb gave -0.0 for 0.0). In kernels too."""
    values = np.array([0.0, -0.0, 1.5, np.nan, -np.nan, -np.inf], dtype=np.dtype(dtype._np))
    out = (-wp.array(values, dtype=dtype)).numpy()
    assert np.signbit(out).tolist() == [False, False, True, False, True, False]
    np.testing.assert_array_equal(out[2:], [-1.5, np.nan, np.nan, np.inf])


def test_a_result_needs_gradients_where_an_operand_does_and_it_is_of_floats_as_in_warp():
    ints = wp.zeros(3, dtype=wp.int32, requires_grad=True)
    for result in (-ints, ints + ints, ints * 2, +ints):
        assert not result.requires_grad and result.grad is None  # (it had a gradient: seed 32 of the tool)
    plain, tracked = wp.zeros(3), wp.zeros(3, requires_grad=True)
    for result in (plain + tracked, tracked + plain, -tracked, +tracked, 2.0 * wp.zeros(3, dtype=wp.vec3,
                                                                                          requires_grad=True)):
        assert result.requires_grad
    assert not (plain + plain).requires_grad
