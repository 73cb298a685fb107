"""The usual launch in one native call (launch/plan.py, native/runtime/launch_plan.cpp): a repeat of a
kernel's last CPU launch runs natively, with the Python path's checks and results; anything else
(new kinds of arguments, a Tape, a scoped device, a changed setting, a failed check) gives the same
results and errors as the Python path."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.launch import plan

pytestmark = pytest.mark.needs_cxx

native_usual = plan.usual_function()
needs_native = pytest.mark.skipif(native_usual is plan._not_native, reason="no CPython extension module here")


@wp.kernel
def axpy(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32), a: wp.float32, n: wp.int32,
         flag: wp.bool, big: wp.int64, u: wp.uint32, d: wp.float64):
    i = wp.tid()
    if i < n and flag:
        y[i] = a * x[i] + y[i] + wp.float32(big % wp.int64(7)) + wp.float32(u % wp.uint32(5)) + wp.float32(d)


@wp.kernel
def shift(v: wp.vec3, out: wp.array(dtype=wp.vec3)):
    out[wp.tid()] = out[wp.tid()] + v


@wp.kernel
def grid(out: wp.array2d(dtype=wp.int32)):
    i, j = wp.tid()
    out[i, j] = i * 100 + j


@wp.kernel
def square(x: wp.array(dtype=wp.float32), y: wp.array(dtype=wp.float32)):
    i = wp.tid()
    y[i] = x[i] * x[i]


def _reference(x, y, a, n, flag, big, u, d):
    out = y.astype(np.float64).copy()
    if flag:
        out[:n] = (np.float32(a) * x[:n] + y[:n] + np.float32(np.fmod(big, 7)) + np.float32(u % 5)
                   + np.float32(d)).astype(np.float32)
    return out.astype(np.float32)


def test_a_repeated_launch_has_a_plan_and_gives_numpys_results():
    rng = np.random.default_rng(0)
    x_np = rng.standard_normal(64).astype(np.float32)
    y_np = rng.standard_normal(64).astype(np.float32)
    x, y = wp.array(x_np), wp.array(y_np)
    expected = y_np
    for step, (a, n, flag, big, u, d) in enumerate([(2.0, 64, True, 2**40 + 3, 7, 0.25), (0.5, 10, True, -9, 2**32 - 1, -1.5),
                                                   (3, 64, False, 0, 0, 0.0), (-1.25, 33, True, 5, 11, 2)]):
        wp.launch(axpy, dim=64, inputs=[x, y, a, n, flag, big, u, d])
        expected = _reference(x_np, expected, a, n, flag, big, u, d)
        np.testing.assert_allclose(y.numpy(), expected, rtol=1e-6, atol=1e-6)
        if step == 0 and native_usual is not plan._not_native:
            assert axpy.last_launch[3] is not None  # the second launch on runs natively


@needs_native
def test_the_native_call_runs_the_launch_itself():
    x, y = wp.array(np.arange(8, dtype=np.float32)), wp.zeros(8, dtype=wp.float32)
    wp.launch(square, dim=8, inputs=[x, y])  # makes the launcher and its plan
    y.zero_()
    assert native_usual(square, 8, [x, y], None, None) is None  # ran natively
    np.testing.assert_array_equal(y.numpy(), np.arange(8, dtype=np.float32) ** 2)
    assert native_usual(square, 8, [x], None, None) is False  # (a wrong count: the Python path's error)
    assert native_usual(square, [8], [x, y], None, None) is False  # (an unhashable dim)
    assert native_usual(square, 8, [x, wp.zeros(8, dtype=wp.float64)], None, None) is False


def test_arguments_the_plan_does_not_take_go_through_the_python_path_with_its_errors():
    x, y = wp.zeros(4, dtype=wp.float32), wp.zeros(4, dtype=wp.float32)
    wp.launch(axpy, dim=4, inputs=[x, y, 1.0, 4, True, 0, 0, 0.0])
    wp.launch(axpy, dim=4, inputs=[x, y, np.float32(1.0), np.int32(4), True, np.int64(1), np.uint32(1), np.float64(1)])
    np.testing.assert_allclose(y.numpy(), [1.0 + 1 + 1] * 4)  # (x is zero)
    with pytest.raises(TypeError, match="float64"):
        wp.launch(axpy, dim=4, inputs=[wp.zeros(4, dtype=wp.float64), y, 1.0, 4, True, 0, 0, 0.0])
    with pytest.raises(Exception, match="n|int32|range"):
        wp.launch(axpy, dim=4, inputs=[x, y, 1.0, 2**31, True, 0, 0, 0.0])
    wp.launch(axpy, dim=4, inputs=[x, y, 1.0, 4, 0, 0, 0, 5.0])  # (an int for a bool: converted, as before)
    with pytest.raises(TypeError, match="arguments"):
        wp.launch(axpy, dim=4, inputs=[x, y])
    wp.launch(axpy, dim=4, inputs=[x, y, 1.0, 4, True, 0, 0, 0.0])  # and the usual launch again
    np.testing.assert_allclose(y.numpy(), [3.0] * 4)


def test_a_failed_check_on_the_native_path_raises_the_python_paths_error():
    x, y = wp.zeros(8, dtype=wp.float32), wp.zeros(8, dtype=wp.float32)
    wp.launch(square, dim=8, inputs=[x, y])
    wp.launch(square, dim=8, inputs=[x, y])
    small = wp.zeros(4, dtype=wp.float32)
    if wp.config.bounds_check is False:
        pytest.skip("checked code only (WARP_NB_BOUNDS_CHECK=0)")
    for _ in range(2):  # (the second time with the state cleared by the first error)
        with pytest.raises(IndexError, match=r"out of bounds .* size 4.*square"):
            wp.launch(square, dim=8, inputs=[x, small])
    wp.launch(square, dim=8, inputs=[x, y])  # then a good launch passes


def test_general_plans_pack_vectors_in_python_and_run_natively():
    out = wp.zeros(5, dtype=wp.vec3)
    for k in range(3):
        wp.launch(shift, dim=5, inputs=[wp.vec3(1.0, 2.0, 3.0 * k), out])
    np.testing.assert_allclose(out.numpy(), np.tile([3.0, 6.0, 9.0], (5, 1)))
    with pytest.raises(TypeError):
        wp.launch(shift, dim=5, inputs=["not a vector", out])


def test_multi_dimensional_launches_and_changed_dims():
    for shape in [(3, 4), (3, 4), (5, 2), (2, 3)]:
        out = wp.zeros(shape, dtype=wp.int32)
        wp.launch(grid, dim=shape, inputs=[out])
        i, j = np.indices(shape)
        np.testing.assert_array_equal(out.numpy(), i * 100 + j)


def test_a_tape_still_records_the_usual_launch():
    x = wp.array(np.array([1.0, 2.0, 3.0], dtype=np.float32), requires_grad=True)
    y = wp.zeros(3, dtype=wp.float32, requires_grad=True)
    wp.launch(square, dim=3, inputs=[x, y])
    wp.launch(square, dim=3, inputs=[x, y])
    tape = wp.Tape()
    with tape:
        wp.launch(square, dim=3, inputs=[x, y])
    tape.backward(grads={y: wp.ones(3, dtype=wp.float32)})
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])


def test_a_changed_setting_or_a_scoped_device_takes_the_python_path():
    x, y = wp.array(np.ones(4, dtype=np.float32)), wp.zeros(4, dtype=wp.float32)
    wp.launch(square, dim=4, inputs=[x, y])
    before = square.last_launch[2]
    wp.config.verbose = wp.config.verbose  # any assignment: a new epoch, a new launcher
    wp.launch(square, dim=4, inputs=[x, y])
    assert square.last_launch[2] is not before
    with wp.ScopedDevice("cpu"):
        wp.launch(square, dim=4, inputs=[wp.array(np.full(4, 3.0, dtype=np.float32)), y])
    np.testing.assert_array_equal(y.numpy(), [9.0] * 4)


def test_launch_observers_still_see_usual_launches():
    seen = []
    x, y = wp.zeros(2, dtype=wp.float32), wp.zeros(2, dtype=wp.float32)
    wp.launch(square, dim=2, inputs=[x, y])
    from warp_nb.launch import launcher
    listener = lambda kernel, dim, device, seconds, adjoint: seen.append(kernel.key)  # noqa: E731
    launcher.listeners.append(listener)
    try:
        wp.launch(square, dim=2, inputs=[x, y])
    finally:
        launcher.listeners.remove(listener)
    assert seen == [square.key]
