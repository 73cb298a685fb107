"""wp.indexedarray: kernels read, write, update and differentiate an array through index arrays;
from Python it gathers, fills and scatters. Every result is compared with numpy fancy indexing."""

import numpy as np
import pytest

import warp_nb as wp


@wp.kernel
def _scale_2d(x: wp.indexedarray2d(dtype=float), s: float):
    i, j = wp.tid()
    x[i, j] = x[i, j] * s


@wp.kernel
def _row_sums(x: wp.indexedarray2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    row = x[i]  # a 1-D indexed view
    total = float(0.0)
    for j in range(row.shape[0]):
        total += row[j]
    out[i] = total


@wp.kernel
def _gather_squares(x: wp.indexedarray(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i] * x[i]


@wp.kernel
def _scatter_add(x: wp.indexedarray(dtype=float), v: float):
    i = wp.tid()
    wp.atomic_add(x, i, v)


def _data(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_kernel_writes_only_the_indexed_elements():
    values = _data((5, 6))
    a = wp.array(values)
    rows, cols = np.array([4, 0, 2], np.int32), np.array([1, 5], np.int32)
    ia = wp.indexedarray(a, [wp.array(rows), wp.array(cols)])
    assert ia.shape == (3, 2)
    np.testing.assert_array_equal(ia.numpy(), values[np.ix_(rows, cols)])
    wp.launch(_scale_2d, dim=ia.shape, inputs=[ia, 3.0])
    expected = values.copy()
    expected[np.ix_(rows, cols)] *= 3.0
    np.testing.assert_allclose(a.numpy(), expected, rtol=1e-6)


def test_array_indexed_by_an_int32_array_and_views_of_it():
    values = _data((4, 3), seed=1)
    a = wp.array(values)
    rows = np.array([3, 1], np.int32)
    ia = a[wp.array(rows)]
    assert type(ia) is wp.indexedarray and ia.shape == (2, 3)
    out = wp.zeros(2)
    wp.launch(_row_sums, dim=2, inputs=[ia, out])
    np.testing.assert_allclose(out.numpy(), values[rows].sum(axis=1), rtol=1e-5)


def test_slices_and_integers_combine_with_index_arrays():
    values = np.arange(1000, dtype=np.int32).reshape(10, 10, 10)
    a = wp.array(values)
    idx = np.array([7, 2, 5], np.int32)
    got = a[1:8:2, wp.array(idx), 4]
    np.testing.assert_array_equal(got.numpy(), values[1:8:2][:, idx, 4])
    got = a[wp.array(idx), :, wp.array(idx)]
    np.testing.assert_array_equal(got.numpy(), values[np.ix_(idx, np.arange(10), idx)])


def test_repeated_indices_accumulate_atomically():
    a = wp.zeros(4)
    ia = wp.indexedarray(a, [wp.array([1, 1, 3, 1], dtype=wp.int32)])
    wp.launch(_scatter_add, dim=4, inputs=[ia, 2.0])
    np.testing.assert_allclose(a.numpy(), [0.0, 6.0, 0.0, 2.0])


def test_gradient_flows_through_the_indices():
    values = _data(6, seed=2)
    a = wp.array(values, requires_grad=True)
    idx = np.array([5, 0, 5], np.int32)  # a repeated index gets the sum of both gradients
    ia = wp.indexedarray(a, [wp.array(idx)])
    out = wp.zeros(3, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_gather_squares, dim=3, inputs=[ia, out])
    tape.backward(grads={out: wp.ones(3)})
    expected = np.zeros(6, np.float32)
    np.add.at(expected, idx, 2.0 * values[idx])
    np.testing.assert_allclose(a.grad.numpy(), expected, rtol=1e-5)


@wp.kernel
def _store_doubled(x: wp.array(dtype=float), out: wp.indexedarray(dtype=float)):
    i = wp.tid()
    out[i] = 2.0 * x[i]


def test_gradient_of_a_store_into_an_indexed_array_reads_the_indexed_elements():
    """out[i] = 2 x[i] with out an indexedarray kernel parameter: the store's adjoint reads the
    gradient of the element it wrote (through the indices), and x[i]'s owned read passes it on."""
    x = wp.array(_data(3, seed=3), requires_grad=True)
    base = wp.zeros(6, requires_grad=True)
    idx = np.array([4, 1, 2], np.int32)
    out = wp.indexedarray(base, [wp.array(idx)])
    tape = wp.Tape()
    with tape:
        wp.launch(_store_doubled, dim=3, inputs=[x, out])
    seed = np.arange(6, dtype=np.float32) + 1.0
    tape.backward(grads={base: wp.array(seed)})
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * seed[idx])


@pytest.mark.parametrize("dtype, value", [(wp.vec3h, wp.vec3h(1.5, -2.0, 4.0)), (wp.mat22, [1.0, 2.0, 3.0, 4.0]),
                                          (wp.float64, 2.5)])
def test_fill_and_zero_touch_only_the_indexed_elements(dtype, value):
    a = wp.ones(5, dtype=dtype)
    before = a.numpy().copy()
    idx = np.array([0, 3], np.int32)
    ia = a[wp.array(idx)]
    ia.fill_(value)
    expected = before.copy()
    expected[idx] = np.asarray(value.__array__() if hasattr(value, "_shape_") else value,
                               dtype=expected.dtype).reshape(expected.shape[1:])
    np.testing.assert_array_equal(a.numpy(), expected)
    ia.zero_()
    expected[idx] = 0
    np.testing.assert_array_equal(a.numpy(), expected)


def test_struct_elements_fill_and_clone():
    @wp.struct
    class Particle:
        mass: float
        pos: wp.vec3

    a = wp.zeros(4, dtype=Particle)
    ia = a[wp.array([2, 0], dtype=wp.int32)]
    p = Particle()
    p.mass, p.pos = 2.0, wp.vec3(1.0, 2.0, 3.0)
    ia.fill_(p)
    np.testing.assert_array_equal(a.numpy()["mass"], [2.0, 0.0, 2.0, 0.0])
    copy = wp.clone(ia)
    assert type(copy) is wp.array and copy.shape == (2,)
    np.testing.assert_array_equal(copy.numpy()["pos"], [[1.0, 2.0, 3.0]] * 2)


def test_assign_and_copy_scatter_into_the_data():
    a = wp.zeros(5)
    ia = a[wp.array([4, 1], dtype=wp.int32)]
    ia.assign([7.0, 8.0])
    np.testing.assert_array_equal(a.numpy(), [0.0, 8.0, 0.0, 0.0, 7.0])
    wp.copy(ia, wp.array([1.0, 2.0]))
    np.testing.assert_array_equal(a.numpy(), [0.0, 2.0, 0.0, 0.0, 1.0])


def test_out_of_bounds_index_in_debug_mode_raises_at_the_users_line():
    @wp.kernel
    def read_row(x: wp.indexedarray2d(dtype=float), out: wp.array(dtype=float)):
        row = x[7]
        out[0] = row[0]

    a = wp.zeros((3, 3))
    old = wp.config.mode
    wp.config.mode = "debug"
    try:
        with pytest.raises(IndexError, match="index 7 is out of bounds .* size 2"):
            wp.launch(read_row, dim=1, inputs=[a[wp.array([0, 1], dtype=wp.int32)], wp.zeros(1)])
    finally:
        wp.config.mode = old


def test_bad_indices_are_refused():
    a = wp.zeros((3, 3))
    with pytest.raises(TypeError, match="1-D int32"):
        wp.indexedarray(a, [wp.array([0.0, 1.0])])
    with pytest.raises(ValueError, match="3 index arrays for a 2-D array"):
        wp.indexedarray(a, [None, None, None])
