"""Reliability findings of issue 12 (item 5): inputs that used to run silently with a wrong
result, or leak an internal error, each refused with a message that says what to do."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def _fill_ones(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = 1.0


def test_a_string_dim_is_refused_not_split_into_digits():
    x = wp.zeros(100, dtype=float)
    with pytest.raises(TypeError, match="launch dim must be an int"):
        wp.launch(_fill_ones, dim="100", inputs=[x])
    with pytest.raises(TypeError, match="launch dim"):
        wp.launch(_fill_ones, dim=(2.5,), inputs=[x])
    wp.launch(_fill_ones, dim=np.int64(100), inputs=[x])  # numpy integers are ints
    assert x.numpy().sum() == 100


def test_a_shape_too_large_to_address_is_refused_not_empty():
    with pytest.raises(MemoryError, match="more than any machine can address"):
        wp.zeros((2 ** 31 - 1,) * 3)  # each dimension fits an int32 index; their product overflows
    with pytest.raises(ValueError, match="signed 32-bit integer"):
        wp.zeros((2 ** 33, 2 ** 33))
    with pytest.raises(TypeError, match="array shape"):
        wp.zeros("12")


def test_complex_data_is_refused_not_truncated():
    z = np.array([1 + 2j, 3 - 1j])
    with pytest.raises(TypeError, match="no complex numbers"):
        wp.array(z)
    with pytest.raises(TypeError, match="no complex numbers"):
        wp.array(z, dtype=float)
    parts = wp.array(np.stack([z.real, z.imag], axis=-1), dtype=wp.vec2d)  # what the message suggests
    np.testing.assert_array_equal(parts.numpy(), [[1, 2], [3, -1]])


def test_a_bad_device_names_the_device():
    with pytest.raises(TypeError, match="device must be a device name"):
        wp.launch(_fill_ones, dim=3, inputs=[wp.zeros(3, dtype=float)], device=123)


def test_range_of_a_float_is_refused_at_its_line():
    @wp.kernel(module="unique")
    def half_range(x: wp.array(dtype=float)):
        for _j in range(0.5):
            x[0] = 1.0

    with pytest.raises(wp.KernelTypeError, match="range\\(\\) takes integers") as info:
        wp.launch(half_range, dim=1, inputs=[wp.zeros(1, dtype=float)])
    assert "for _j in range(0.5)" in str(info.value)


def test_a_tuple_local_holds_its_values():
    @wp.kernel(module="unique")
    def tuple_local(x: wp.array(dtype=float)):
        t = (1.5, 2)
        x[0] = t[0] + float(t[1])

    x = wp.zeros(1, dtype=float)
    wp.launch(tuple_local, dim=1, inputs=[x])
    assert x.numpy()[0] == 3.5


def test_an_integer_loss_is_refused_not_zero_gradients():
    @wp.kernel(module="unique")
    def double(x: wp.array(dtype=int), y: wp.array(dtype=int)):
        y[0] = x[0] * 2

    x = wp.array([3], dtype=int, requires_grad=True)
    y = wp.zeros(1, dtype=int, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(double, dim=1, inputs=[x, y])
    with pytest.raises(TypeError, match="loss must be a float array"):
        tape.backward(loss=y)
