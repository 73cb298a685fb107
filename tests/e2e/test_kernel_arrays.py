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


@wp.struct
class Cell:
    offset: int
    weight: float


@wp.func
def make_cells(scale: float) -> wp.fixedarray(shape=(2, 3), dtype=Cell):
    cells = wp.zeros(shape=(2, 3), dtype=Cell)
    for i in range(2):
        for j in range(3):
            cells[i][j].offset = i * 3 + j
            cells[i][j].weight = float(i * 3 + j) * scale
    return cells  # by value: the caller gets its own copy


@wp.kernel
def k_returned_fixed_arrays(scale: wp.array(dtype=float), out: wp.array(dtype=float)):
    tid = wp.tid()
    cells = make_cells(scale[tid])
    other = make_cells(1.0)
    other[0][0].weight = 100.0  # the two copies are independent
    total = float(0.0)
    for i in range(2):
        for j in range(3):
            total += cells[i, j].weight + float(cells[i, j].offset)
    out[tid] = total + other[0, 0].weight - other[1, 2].weight


def test_fixed_size_arrays_are_returned_by_value():
    scale = wp.array([1.0, 0.5, 2.0], dtype=float, requires_grad=True)
    out = wp.zeros(3, requires_grad=True)
    with wp.Tape() as tape:
        run(k_returned_fixed_arrays, 3, scale, out)
    expected = 15.0 * scale.numpy() + 15.0 + 100.0 - 5.0
    np.testing.assert_allclose(out.numpy(), expected)
    tape.backward(grads={out: wp.ones(3)})  # compiles the backward pass; the arrays carry no gradient
    assert scale.grad.numpy().shape == (3,)


def test_a_fixed_array_returned_as_an_array_is_refused_as_warp():
    @wp.func
    def wrong() -> wp.array2d(dtype=int):
        arr = wp.zeros(shape=(2, 3), dtype=int)
        return arr

    @wp.kernel(module="unique")
    def calls_wrong():
        arr = wrong()  # noqa: F841

    with pytest.raises(wp.WarpCodegenError, match=r"returns a fixed-size array whereas it has its return type "
                                                  r"annotated as `Array\[int32\]`\.$"):
        run(calls_wrong, 1)


def _factory_with_string_annotation(dtype):
    def fill(out: "wp.array(dtype=dtype)"):  # noqa: F821 (evaluated with the closure's `dtype`)
        out[wp.tid()] = dtype(2.5)

    return wp.Kernel(func=fill, key=f"fill_{dtype.__name__}")


def test_string_annotations_see_the_factory_closure():
    out = wp.zeros(2, dtype=wp.float64)
    run(_factory_with_string_annotation(wp.float64), 2, out)
    assert out.numpy().tolist() == [2.5, 2.5]


def _static_table(values):
    @wp.kernel(module="unique", enable_backward=False)
    def table(out: wp.array(dtype=int)):
        for i in range(wp.static(len(values))):
            out[i] = wp.static(values[i])  # evaluated per unrolled iteration, with i a constant

    return table


def test_static_expressions_see_unrolled_loop_variables():
    out = wp.zeros(3, dtype=int)
    run(_static_table([7, 8, 9]), 1, out)
    assert out.numpy().tolist() == [7, 8, 9]
    assert _static_table([1, 2, 3]) is not _static_table([7, 8, 9])
