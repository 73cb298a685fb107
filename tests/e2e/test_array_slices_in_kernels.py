"""Slices of arrays inside kernels (a[1:n:2, i], a[::-1]) as Warp allows them: views over the
same memory and gradient, bounds by Python's rules (also computed at run time), checked against
numpy's slicing of the same data."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def _copy_slices(a: wp.array2d(dtype=float), start: int, stop: int, step: int,
                 row: wp.array(dtype=float), col: wp.array(dtype=float), box: wp.array2d(dtype=float),
                 dims: wp.array(dtype=int)):
    r = a[start:stop:step, 1]          # runtime bounds, one axis indexed away
    for i in range(r.shape[0]):
        row[i] = r[i]
    c = a[-1, ::-2]                     # a negative index and a negative step
    for i in range(c.shape[0]):
        col[i] = c[i]
    b = a[1:, :2]                       # the axes after the last written one stay whole
    b = b[::2]                          # a view rebound to a slice of itself
    for i in range(b.shape[0]):
        for j in range(b.shape[1]):
            box[i, j] = b[i, j]
    dims[0] = r.shape[0]
    dims[1] = c.shape[0]
    dims[2] = b.shape[0]
    dims[3] = b.ndim
    dims[4] = r.shape[1]                # past the view's rank: 0, as in Warp


@pytest.mark.parametrize("start, stop, step", [(1, 6, 2), (5, 0, -2), (-4, 100, 1), (0, 0, 1)])
def test_slices_match_numpy(start, stop, step):
    data = np.arange(18, dtype=np.float32).reshape(6, 3)
    row, col = wp.zeros(8, dtype=float), wp.zeros(8, dtype=float)
    box, dims = wp.zeros((8, 2), dtype=float), wp.zeros(5, dtype=int)
    wp.launch(_copy_slices, 1, inputs=[wp.array(data, dtype=float), start, stop, step, row, col, box, dims])
    r, c, b = data[start:stop:step, 1], data[-1, ::-2], data[1:, :2][::2]
    assert dims.numpy().tolist() == [len(r), len(c), len(b), 2, 0]
    np.testing.assert_array_equal(row.numpy()[:len(r)], r)
    np.testing.assert_array_equal(col.numpy()[:len(c)], c)
    np.testing.assert_array_equal(box.numpy()[:len(b)], b)


def test_writes_through_a_slice_and_its_gradient():
    @wp.kernel(module="unique")
    def scale_every_other(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        xs = x[::2]
        ys = y[::2]
        i = wp.tid()
        ys[i] = 3.0 * xs[i] * xs[i]

    x = wp.array(np.arange(1.0, 7.0, dtype=np.float32), requires_grad=True)
    y = wp.zeros(6, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(scale_every_other, 3, inputs=[x, y])
    np.testing.assert_allclose(y.numpy(), [3.0, 0, 27.0, 0, 75.0, 0])
    tape.backward(grads={y: wp.ones(6, dtype=float)})
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 0, 18.0, 0, 30.0, 0])  # d(3x^2)/dx at the sliced ones


def test_bad_slices_are_refused_at_their_line():
    @wp.kernel(module="unique")
    def zero_step(a: wp.array(dtype=int)):
        v = a[0:2:0]  # noqa: F841

    with pytest.raises(wp.KernelValueError, match="Slice step cannot be zero"):
        wp.launch(zero_step, 1, inputs=[wp.zeros(2, dtype=int)])

    @wp.kernel(module="unique")
    def too_many(a: wp.array(dtype=int)):
        v = a[0:1, 0:1]  # noqa: F841

    with pytest.raises(wp.KernelTypeError, match="too many indices"):
        wp.launch(too_many, 1, inputs=[wp.zeros(2, dtype=int)])

    @wp.kernel(module="unique")
    def float_bound(a: wp.array(dtype=int)):
        v = a[0:1.5]  # noqa: F841

    with pytest.raises(wp.KernelTypeError, match="cannot be used as int32"):
        wp.launch(float_bound, 1, inputs=[wp.zeros(2, dtype=int)])

    @wp.kernel(module="unique")
    def joined_ranks(a: wp.array2d(dtype=int), n: int, out: wp.array(dtype=int)):
        v = a[:1]
        if n > 0:
            v = a[:1, 0]
        out[0] = v.shape[0]

    with pytest.raises(wp.KernelTypeError):
        wp.launch(joined_ranks, 1, inputs=[wp.zeros((2, 2), dtype=int), 1, wp.zeros(1, dtype=int)])


@pytest.mark.parametrize("start, stop, step, selected", [(0, 4, 2, [0, 2]), (3, -5, -2, [3, 1])])
def test_stores_through_an_inline_slice_reach_the_array_and_its_gradient(start, stop, step, selected):
    @wp.kernel(module="unique")
    def update(components: wp.array(dtype=wp.vec3), source: wp.array(dtype=float), lo: int, hi: int, st: int):
        i = wp.tid()
        components[lo:hi:st][i].x = source[i]
        components[lo:hi:st][i][1] += source[i]

    components = wp.full(4, wp.vec3(7.0), dtype=wp.vec3, requires_grad=True, device="cpu")
    source = wp.array([3.0, 5.0], dtype=float, requires_grad=True, device="cpu")
    with wp.Tape() as tape:
        wp.launch(update, dim=2, inputs=[components, source, start, stop, step], device="cpu")
    expected = np.full((4, 3), 7.0, dtype=np.float32)
    expected[selected, 0] = [3.0, 5.0]
    expected[selected, 1] += [3.0, 5.0]
    np.testing.assert_array_equal(components.numpy(), expected)
    components.grad.fill_(1.0)
    tape.backward()
    # each source value is stored once (x) and added once (y): d(sum)/d(source) = 2
    np.testing.assert_array_equal(source.grad.numpy(), [2.0, 2.0])
