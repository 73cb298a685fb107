"""End to end: loops with break and continue, forward against a Python reference and gradients
against central finite differences (autograd.gradcheck); the loop variable after its loop;
wp.static(...) naming the variable of a constant-range loop (which forces the loop to unroll),
evaluated at declaration when it names only globals, and the values it refuses; conditions
comparing bools."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import autograd

pytestmark = pytest.mark.needs_cxx


def py_break_continue(x, n):
    s = 1.0
    for k in range(n):
        s = s * x
        if k % 3 == 1:
            continue
        if s > 4.0:
            s = s + 0.5 * x
            break
        s = s + x * x
    return s


@wp.kernel
def break_continue_dynamic(x: wp.array(dtype=wp.float64), n: int, y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    s = wp.float64(1.0)
    for k in range(n):
        s = s * x[i]
        if k % 3 == 1:
            continue
        if s > wp.float64(4.0):
            s = s + wp.float64(0.5) * x[i]
            break
        s = s + x[i] * x[i]
    y[i] = s


def test_dynamic_for_with_break_and_continue_matches_python_and_finite_differences():
    xv = np.array([0.5, 1.1, 1.4, -0.7, 2.2], dtype=np.float64)
    x = wp.array(xv, dtype=wp.float64, requires_grad=True)
    y = wp.zeros(5, dtype=wp.float64, requires_grad=True)
    wp.launch(break_continue_dynamic, 5, inputs=[x, 7, y])
    np.testing.assert_allclose(y.numpy(), [py_break_continue(v, 7) for v in xv], rtol=1e-12)
    assert autograd.gradcheck(break_continue_dynamic, 5, [x, 7], [y], eps=1e-6, atol=1e-6, rtol=1e-5,
                              show_summary=False)


@wp.kernel
def while_with_break_continue(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    s = x[i]
    n = int(0)
    while n < 10:
        n += 1
        if n == 2:
            continue
        s = wp.sin(s) + s * x[i]
        if wp.abs(s) > 3.0:
            break
    y[i] = s


def py_while(x):
    s, n = x, 0
    while n < 10:
        n += 1
        if n == 2:
            continue
        s = np.sin(s) + s * x
        if abs(s) > 3.0:
            break
    return s


def test_while_with_break_and_continue_matches_python_and_finite_differences():
    xv = np.array([0.3, 0.9, 1.2, -0.4, 1.05], dtype=np.float64)
    x = wp.array(xv, dtype=wp.float64, requires_grad=True)
    y = wp.zeros(5, dtype=wp.float64, requires_grad=True)
    wp.launch(while_with_break_continue, 5, inputs=[x, y])
    np.testing.assert_allclose(y.numpy(), [py_while(v) for v in xv], rtol=1e-12)
    assert autograd.gradcheck(while_with_break_continue, 5, [x], [y], eps=1e-6, atol=1e-6, rtol=1e-5,
                              show_summary=False)


@wp.kernel
def continue_in_constant_range(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for k in range(6):  # unrolled: each copy skips its tail when it continues
        if x[i] * float(k) > 2.0:
            continue
        s += x[i] * float(k)
    y[i] = s


def test_continue_in_an_unrolled_loop_and_its_gradient():
    xv = np.array([0.1, 0.45, 0.9], dtype=np.float32)
    x = wp.array(xv, requires_grad=True)
    y = wp.zeros(3, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(continue_in_constant_range, 3, inputs=[x, y])
    kept = [[k for k in range(6) if v * k <= 2.0] for v in xv]
    np.testing.assert_allclose(y.numpy(), [v * sum(ks) for v, ks in zip(xv, kept)], rtol=1e-6)
    tape.backward(grads={y: wp.ones(3)})
    np.testing.assert_allclose(x.grad.numpy(), [float(sum(ks)) for ks in kept], rtol=1e-6)


@wp.kernel
def break_over_vector(v: wp.array(dtype=wp.vec4), y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for c in v[i]:  # an unrolled loop over components: copies after a break are skipped
        if c < 0.0:
            break
        s += c
    y[i] = s


def test_break_in_a_loop_over_a_vector():
    vv = np.array([[1, 2, -1, 5], [1, 1, 1, 1], [-3, 2, 2, 2]], dtype=np.float32)
    y = wp.zeros(3)
    wp.launch(break_over_vector, 3, inputs=[wp.array(vv, dtype=wp.vec4), y])
    assert y.numpy().tolist() == [3.0, 4.0, 0.0]


@wp.kernel
def loop_variable_after_loop(n: int, out: wp.array(dtype=int)):
    for i in range(3):
        pass
    out[0] = i
    for j in range(n):
        pass
    out[1] = j
    k = int(0)
    while k < 3:
        i = i + 1  # the unrolled loop's leftover is an ordinary local that a later loop carries
        k += 1
    out[2] = i


def test_the_loop_variable_keeps_its_last_value():
    out = wp.zeros(3, dtype=int)
    wp.launch(loop_variable_after_loop, 1, inputs=[5, out])
    assert out.numpy().tolist() == [2, 4, 5]


@wp.kernel
def static_loop_variable(out: wp.array(dtype=int)):
    s = int(0)
    for i in range(40):  # longer than max_unroll: wp.static(i) forces the unrolling
        if wp.static(i % 3 == 0):
            continue
        s += wp.static(i * i)
    out[0] = s


def test_static_expression_sees_the_loop_variable():
    out = wp.zeros(1, dtype=int)
    wp.launch(static_loop_variable, 1, inputs=[out])
    assert out.numpy()[0] == sum(i * i for i in range(40) if i % 3)


@wp.kernel
def leftover_reassigned_in_branch(flag: int, out: wp.array(dtype=int)):
    for i in range(4):
        pass
    if flag > 0:
        i = 10
    out[0] = i
    for i in range(2):
        for i in range(3):  # the inner loop's last value is what wp.static sees after it
            pass
        out[1] = wp.static(i)


def test_the_leftover_loop_variable_joins_branches_and_static():
    out = wp.zeros(2, dtype=int)
    wp.launch(leftover_reassigned_in_branch, 1, inputs=[1, out])
    assert out.numpy().tolist() == [10, 2]
    wp.launch(leftover_reassigned_in_branch, 1, inputs=[0, out])
    assert out.numpy().tolist() == [3, 2]


class _ReadOnce:
    def __init__(self):
        self.reads = 0

    @property
    def value(self):
        self.reads += 1
        return 3


def test_static_expressions_are_evaluated_once_when_the_kernel_is_declared():
    box = _ReadOnce()
    factor = 2

    @wp.kernel
    def k(out: wp.array(dtype=int)):
        out[0] = wp.static(box.value * factor)

    assert box.reads == 1  # evaluated by the decorator ...
    factor = 100  # noqa: F841 - ... so a later rebinding does not change the kernel, as in Warp
    out = wp.zeros(1, dtype=int)
    wp.launch(k, 1, inputs=[out])
    assert out.numpy()[0] == 6 and box.reads == 1


class _Opaque:
    pass


def test_static_values_that_kernels_cannot_hold_are_refused_at_their_line():
    table = wp.zeros(3)
    thing = _Opaque()

    @wp.kernel
    def array_value(out: wp.array(dtype=float)):
        out[0] = wp.static(table)[0]

    @wp.kernel
    def object_value(out: wp.array(dtype=float)):
        wp.static(thing)

    for kernel, words in ((array_value, "a Warp array cannot be created inside Warp kernels"),
                          (object_value, "value of type _Opaque")):
        with pytest.raises(wp.KernelError, match="Static expression returns an unsupported value: " + words) as info:
            wp.launch(kernel, 1, inputs=[wp.zeros(1)])
        assert "test_loop_exits.py, line" in str(info.value)


def test_bools_compare_as_zero_and_one():
    @wp.kernel
    def ordered(x: int, out: wp.array(dtype=int)):
        out[0] = int((-2 < x) < (1 > 0))  # not a chained comparison: (True or False) < True
        out[1] = int((x > 5) <= (x > 7))

    out = wp.zeros(2, dtype=int)
    for x in (-1, -3, 6, 8):
        wp.launch(ordered, 1, inputs=[x, out])
        assert out.numpy().tolist() == [int((-2 < x) < (1 > 0)), int((x > 5) <= (x > 7))]
