"""Arrays inside kernels, as Warp has them: slices and row views of array arguments (checked
against numpy's slicing), fixed-size arrays made with wp.zeros, and views of memory at an address
made with wp.array(ptr=...)."""

import numpy as np
import pytest

import warp_nb as wp
from tests.support.helpers import run

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def k_slices(a: wp.array2d(dtype=int), lo: int, hi: int, step: int, out: wp.array2d(dtype=int),
             sizes: wp.array(dtype=int)):
    v = a[lo:hi:step, 1:]  # runtime bounds on one axis, constant on the other
    for i in range(v.shape[0]):
        for j in range(v.shape[1]):
            out[i, j] = v[i, j]
    sizes[0] = v.shape[0]
    sizes[1] = v.shape[1]
    sizes[2] = v.shape[2]  # past the rank: 0, as in Warp
    sizes[3] = v.ndim
    r = a[-1, ::-2]  # an index and a reversed range: a 1-D view
    for j in range(r.shape[0]):
        out[5, j] = r[j]
    a[0][2] = -7  # a store through a row view


@pytest.mark.parametrize("lo, hi, step", [(0, 6, 2), (5, 0, -2), (-4, 100, 1), (3, 3, 1)])
def test_slices_of_array_arguments_match_numpy(lo, hi, step):
    data = np.arange(24, dtype=np.int32).reshape(6, 4)
    a, out, sizes = wp.array(data), wp.full((6, 4), -1, dtype=int), wp.zeros(4, dtype=int)
    run(k_slices, 1, a, lo, hi, step, out, sizes)
    expected = data[lo:hi:step, 1:]
    assert sizes.numpy().tolist() == [expected.shape[0], expected.shape[1], 0, 2]
    np.testing.assert_array_equal(out.numpy()[:expected.shape[0], :expected.shape[1]], expected)
    np.testing.assert_array_equal(out.numpy()[5, :2], data[-1, ::-2])
    assert a.numpy()[0, 2] == -7


def test_a_constant_zero_step_is_refused():
    @wp.kernel(module="unique")
    def zero_step(a: wp.array(dtype=int)):
        v = a[0:2:0]  # noqa: F841

    with pytest.raises(wp.WarpCodegenValueError, match="Slice step cannot be zero"):
        run(zero_step, 1, wp.zeros(2, dtype=int))


@wp.func
def fill_rows(arr: wp.array2d(dtype=float)):
    for i in range(arr.shape[0]):
        for j in range(arr.shape[1]):
            arr[i][j] = float(i * 10 + j)


@wp.kernel
def k_fixed_arrays(out: wp.array(dtype=float), pairs: wp.array(dtype=wp.vec2)):
    tid = wp.tid()
    grid = wp.zeros(shape=(2, 3), dtype=float)
    fill_rows(grid)  # a fixed-size array passed to a function is passed by reference, as in Warp
    total = float(0.0)
    for i in range(2):
        for j in range(3):
            total += grid[i, j]
    counts = wp.zeros(shape=4, dtype=int)  # zeroed again by every thread
    counts[tid % 4] += 1
    out[tid] = total + float(counts[0] + counts[1] + counts[2] + counts[3])
    flat = wp.zeros(shape=(4,), dtype=float)
    for k in range(4):
        flat[k] = float(k + tid)
    view = wp.array(ptr=flat.ptr, shape=(2,), dtype=wp.vec2)  # the same memory seen as vec2
    pairs[tid] = view[1]


def test_fixed_size_arrays_and_views_at_an_address():
    out, pairs = wp.zeros(8), wp.zeros(8, dtype=wp.vec2)
    run(k_fixed_arrays, 8, out, pairs)
    grid = np.add.outer(np.arange(2) * 10, np.arange(3)).astype(np.float32)
    np.testing.assert_array_equal(out.numpy(), np.full(8, grid.sum() + 1))
    np.testing.assert_array_equal(pairs.numpy(), np.stack([np.arange(8) + 2, np.arange(8) + 3], 1))


def test_fixed_size_arrays_need_a_constant_shape():
    @wp.kernel(module="unique")
    def runtime_shape():
        wp.zeros(shape=(wp.tid(),), dtype=int)

    with pytest.raises(RuntimeError, match="`shape` argument must be specified as a constant"):
        run(runtime_shape, 1)
