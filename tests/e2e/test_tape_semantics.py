"""wp.Tape as Warp's tests check it: the adjoint of a store consumes the stored element's
gradient, copy adjoints (windows, strided views, clone and assign, retain_grad, the byte-copy
fallback), scopes and visualize(), struct gradients, and wp.config.verify_autograd_array_access
(read flags shared by views, the warnings and where they point). Gradients are compared with
the analytic values."""

import contextlib
import inspect
import io
import warnings

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def double(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i]


@wp.kernel
def total(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, x[i])


@wp.kernel
def total_2d(x: wp.array2d(dtype=float), loss: wp.array(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(loss, 0, x[i, j])


@wp.kernel
def bump(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] + 1.0


@wp.kernel
def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]


@wp.kernel
def overwritten(a: wp.array(dtype=float), b: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a[i]
    y[i] = 3.0 * b[i]  # a's value is dead


@wp.kernel
def set_x(v: wp.array(dtype=wp.vec3), s: wp.array(dtype=float)):
    i = wp.tid()
    v[i].x = s[i]


def _ones(n):
    return np.ones(n, dtype=np.float32)


def test_a_store_passes_the_gradient_on_once_and_kills_overwritten_values():
    x = wp.array(np.array([1.0, 2.0, 3.0], np.float32), requires_grad=True)
    y = wp.zeros(3, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(bump, 3, inputs=[x])
        wp.launch(square, 3, inputs=[x], outputs=[y])
    tape.backward(grads={y: wp.array(_ones(3))})
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * np.array([2.0, 3.0, 4.0]))  # d (x0 + 1)^2 / d x0

    a, b = wp.array(_ones(3), requires_grad=True), wp.array(_ones(3), requires_grad=True)
    y = wp.zeros(3, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(overwritten, 3, inputs=[a, b, y])
    tape.backward(grads={y: wp.array(_ones(3))})
    np.testing.assert_array_equal(a.grad.numpy(), 0.0)
    np.testing.assert_array_equal(b.grad.numpy(), 3.0)
    np.testing.assert_array_equal(y.grad.numpy(), 0.0)  # consumed

    v = wp.zeros(2, dtype=wp.vec3, requires_grad=True)
    s = wp.array(np.array([5.0, 6.0], np.float32), requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(set_x, 2, inputs=[v, s])
    v.grad.fill_(wp.vec3(2.0, 3.0, 4.0))
    tape.backward()
    np.testing.assert_array_equal(s.grad.numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(v.grad.numpy(), [[0.0, 3.0, 4.0]] * 2)  # only the stored component consumed


def test_retain_grad_keeps_a_written_arrays_gradient():
    x = wp.array(_ones(3), requires_grad=True)
    y = wp.zeros(3, requires_grad=True, retain_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(double, 3, inputs=[x], outputs=[y])
        wp.launch(total, 3, inputs=[y], outputs=[loss])
    tape.backward(loss)
    np.testing.assert_array_equal(x.grad.numpy(), 2.0)
    np.testing.assert_array_equal(y.grad.numpy(), 1.0)


def test_copy_adjoints_accumulate_into_the_window_and_consume_the_destination():
    x = wp.array(np.arange(1.0, 5.0, dtype=np.float32), requires_grad=True)
    doubled, window = wp.zeros(4, requires_grad=True), wp.zeros(2, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    with wp.Tape() as tape:
        wp.copy(window, x, src_offset=1, count=2)
        wp.launch(double, 4, inputs=[x], outputs=[doubled])
        wp.launch(total, 4, inputs=[doubled], outputs=[loss])
        wp.launch(total, 2, inputs=[window], outputs=[loss])
    tape.backward(loss)
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 3.0, 3.0, 2.0])

    base = wp.array(np.ones((3, 4), np.float32), requires_grad=True)  # a strided destination column
    src = wp.array(_ones(3), requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    with wp.Tape() as tape:
        wp.copy(base[:, 2], src)
        wp.launch(total_2d, (3, 4), inputs=[base], outputs=[loss])
    tape.backward(loss)
    expected = np.ones((3, 4), np.float32)
    expected[:, 2] = 0.0
    np.testing.assert_array_equal(base.grad.numpy(), expected)
    np.testing.assert_array_equal(src.grad.numpy(), 1.0)

    a, b = wp.array(_ones(4), requires_grad=True), wp.array(_ones(4), requires_grad=True)
    dst, out = wp.zeros(4, requires_grad=True), wp.zeros(4, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(double, 4, inputs=[a], outputs=[dst])  # dead: overwritten by the assign
        dst.assign(b)
        out = wp.clone(dst)
        wp.launch(total, 4, inputs=[out], outputs=[loss])
    tape.backward(loss)
    np.testing.assert_array_equal(b.grad.numpy(), 1.0)
    np.testing.assert_array_equal(a.grad.numpy(), 0.0)


def test_untracked_copies_fall_back_to_a_byte_copy_with_one_warning():
    y = wp.array(np.arange(1.0, 5.0, dtype=np.float32), requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    with wp.Tape() as tape:
        wp.copy(y, y, dest_offset=1, src_offset=0, count=3)
        wp.launch(total, 4, inputs=[y], outputs=[loss])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tape.backward(loss)
    assert any("overlapping copy" in str(w.message) and "cannot yet be fully tracked" in str(w.message)
               for w in caught)
    np.testing.assert_array_equal(y.grad.numpy(), 1.0)

    a, b = wp.array(_ones(2), requires_grad=True), wp.zeros(2, dtype=wp.int32, requires_grad=True)
    with wp.Tape() as tape:
        wp.copy(b, a)
    b.grad.assign(np.array([1, 2], np.int32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tape.backward()
    np.testing.assert_array_equal(a.grad.numpy().view(np.int32), [1, 2])  # the bytes, reinterpreted


@wp.struct
class Pair:
    x: wp.array(dtype=float)
    y: wp.array(dtype=float)


@wp.kernel
def pair_product(p: Pair, z: wp.array(dtype=float)):
    i = wp.tid()
    z[i] = p.x[i] * p.y[i]


def test_scopes_visualize_and_struct_gradients():
    tape = wp.Tape()
    with pytest.raises(RuntimeError, match="ended tape scope, but scope not present"):
        tape.record_scope_end()
    p = Pair()
    p.x, p.y = wp.array(np.full(3, 2.0, np.float32), requires_grad=True), wp.array(np.full(3, 5.0, np.float32),
                                                                                  requires_grad=True)
    z = wp.zeros(3, requires_grad=True)
    with tape:
        tape.record_scope_begin("empty")
        tape.record_scope_end()
        tape.record_scope_begin("products", {"note": 1})
        for _ in range(4):
            wp.launch(pair_product, 3, inputs=[p], outputs=[z])
        tape.record_scope_end()
    assert tape.scopes == [(0, "products", {"note": 1}), (4, None, None)]
    dot = tape.visualize(array_labels={z: "z"})
    assert dot.startswith("digraph") and "products" in dot and "repeated 4x" in dot
    assert dot.count("pair_product") == 1 and "array: dtype=float32, shape=(3,)" in dot and 'label="z"' in dot
    tape.backward(grads={z: wp.array(_ones(3))})
    np.testing.assert_array_equal(tape.gradients[p].x.numpy(), 5.0)
    np.testing.assert_array_equal(tape.gradients[p].y.numpy(), 2.0)
    tape.reset()
    assert tape.launches == [] and tape.scopes == []
    np.testing.assert_array_equal(tape.gradients[p].x.numpy(), 0.0)


@pytest.fixture
def verify_access():
    saved = wp.config.verify_autograd_array_access
    wp.config.verify_autograd_array_access = True
    yield
    wp.config.verify_autograd_array_access = saved


def test_overwriting_an_array_read_on_a_tape_warns(verify_access):
    a = wp.array(np.array([1.0, 2.0], np.float32), requires_grad=True)
    b = wp.zeros_like(a)
    with contextlib.redirect_stderr(io.StringIO()) as err, wp.Tape() as tape:
        wp.launch(square, 2, inputs=[a], outputs=[b])
        assert a._is_read and not b._is_read and a[1:]._is_read  # views share the flag
        wp.launch(double, 2, inputs=[b], outputs=[a])
        line = inspect.currentframe().f_lineno + 1
        wp.copy(a, b)
    text = err.getvalue()
    assert "passed to argument y in kernel" in text and "is being written to but has already been read from in a " \
        "previous launch. This may corrupt gradient computation in the backward pass." in text
    assert f"is being written to by an array copy at {__file__}:{line} but has already been read from" in text
    tape.backward(grads={a: wp.array(_ones(2))})
    assert not a._is_read and not b._is_read  # consumed by the backward pass

    with wp.Tape() as tape:
        wp.launch(bump, 2, inputs=[a])  # `+ 1` reads and writes a; += would only write it
    assert a._is_read
    tape.reset()
    assert not a._is_read
    c = a.view(dtype=wp.int32)
    c.mark_read()
    assert a._is_read
    a.mark_init()
    assert not c._is_read


@wp.func
def sigmoid_into(i: int, xs: wp.array(dtype=float), ys: wp.array(dtype=float)):
    ys[i] = 1.0 / (1.0 + wp.exp(-xs[i]))


@wp.func_grad(sigmoid_into)
def adj_sigmoid_into(i: int, xs: wp.array(dtype=float), ys: wp.array(dtype=float)):
    wp.adjoint[xs][i] += ys[i] * (1.0 - ys[i])  # adds into xs.grad


@wp.kernel
def sigmoid_kernel(xs: wp.array(dtype=float), ys: wp.array(dtype=float)):
    i = wp.tid()
    sigmoid_into(i, xs, ys)


@wp.struct
class Body:
    mass: float
    pos: wp.vec3


@wp.func
def two_values(b: Body, s: float):
    return b.mass * s, wp.length(b.pos)


@wp.func_grad(two_values)
def adj_two_values(b: Body, s: float, adj_ret0: float, adj_ret1: float):
    wp.adjoint[b.mass] += 10.0 * adj_ret0  # deliberately not the true derivative, to see it used
    wp.adjoint[b.pos][1] += 20.0 * adj_ret1
    wp.adjoint[s] += 30.0 * adj_ret0


@wp.kernel
def two_values_kernel(bodies: wp.array(dtype=Body), s: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    a, b = two_values(bodies[i], s[i])
    out[i] = a + 2.0 * b


@wp.struct
class Holder:
    values: wp.array(dtype=wp.vec3)


@wp.kernel
def holder_write(holder: Holder, x: wp.array(dtype=float)):
    holder.values[0].x = x[0]


@wp.kernel
def nested_holder_write(holders: wp.array(dtype=Holder), x: wp.array(dtype=float)):
    holders[0].values[0].y = x[0]


def test_custom_gradients_of_arrays_several_results_and_struct_fields():
    xs = wp.array(np.array([0.0, 1.0, -2.0], np.float32), requires_grad=True)
    ys = wp.zeros(3, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(sigmoid_kernel, 3, inputs=[xs], outputs=[ys])
    tape.backward(grads={ys: wp.array(_ones(3))})
    s = 1.0 / (1.0 + np.exp(-xs.numpy()))
    np.testing.assert_allclose(ys.numpy(), s, rtol=1e-6)
    np.testing.assert_allclose(xs.grad.numpy(), s * (1.0 - s), rtol=1e-6)

    b = Body()
    b.mass, b.pos = 2.0, wp.vec3(1.0, 2.0, 2.0)
    bodies = wp.array([b], dtype=Body, requires_grad=True)
    scale = wp.array(np.array([3.0], np.float32), requires_grad=True)
    out = wp.zeros(1, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(two_values_kernel, 1, inputs=[bodies, scale], outputs=[out])
    assert out.numpy()[0] == pytest.approx(2.0 * 3.0 + 2.0 * 3.0)
    tape.backward(grads={out: wp.array(_ones(1))})
    grad = bodies.grad.numpy()[0]
    assert grad["mass"] == pytest.approx(10.0) and list(grad["pos"]) == pytest.approx([0.0, 40.0, 0.0])
    assert scale.grad.numpy()[0] == pytest.approx(30.0)


def test_stores_through_arrays_held_in_structs_differentiate():
    values, x = wp.zeros(1, dtype=wp.vec3, requires_grad=True), wp.array(np.array([2.0], np.float32),
                                                                         requires_grad=True)
    holder = Holder()
    holder.values = values
    with wp.Tape() as tape:
        wp.launch(holder_write, 1, inputs=[holder, x])
    values.grad = wp.array(np.array([[3.0, 4.0, 5.0]], np.float32), dtype=wp.vec3)  # set after the struct was filled
    tape.backward()
    np.testing.assert_array_equal(values.numpy(), [[2.0, 0.0, 0.0]])
    np.testing.assert_array_equal(x.grad.numpy(), [3.0])
    np.testing.assert_array_equal(values.grad.numpy(), [[0.0, 4.0, 5.0]])

    values, x = wp.zeros(1, dtype=wp.vec3, requires_grad=True), wp.array(np.array([7.0], np.float32),
                                                                         requires_grad=True)
    holder = Holder()
    holder.values = values
    holders = wp.array([holder], dtype=Holder)
    with wp.Tape() as tape:
        wp.launch(nested_holder_write, 1, inputs=[holders, x])
    values.grad.fill_(wp.vec3(1.0, 2.0, 3.0))
    tape.backward()
    np.testing.assert_array_equal(values.numpy(), [[0.0, 7.0, 0.0]])
    np.testing.assert_array_equal(x.grad.numpy(), [2.0])
    np.testing.assert_array_equal(values.grad.numpy(), [[1.0, 0.0, 3.0]])


@wp.func
def take_slot(counter: wp.array(dtype=int), slots: wp.array(dtype=int), tid: int):
    slot = wp.atomic_add(counter, 0, 1)
    slots[tid] = slot
    return slot


@wp.func_replay(take_slot)
def replay_take_slot(counter: wp.array(dtype=int), slots: wp.array(dtype=int), tid: int):
    return slots[tid]


@wp.kernel
def scatter_squares(x: wp.array(dtype=float), counter: wp.array(dtype=int), slots: wp.array(dtype=int),
                    y: wp.array(dtype=float)):
    tid = wp.tid()
    k = take_slot(counter, slots, tid)
    y[k] = x[k] * x[k]


def test_a_replayed_integer_side_effect_is_not_repeated_by_the_backward_pass():
    n = 16
    x = wp.array(np.arange(n, dtype=np.float32), requires_grad=True)
    counter, slots = wp.zeros(1, dtype=wp.int32), wp.zeros(n, dtype=wp.int32)
    y = wp.zeros(n, requires_grad=True)
    with wp.Tape() as tape:
        wp.launch(scatter_squares, n, inputs=[x, counter, slots], outputs=[y])
    tape.backward(grads={y: wp.array(_ones(n))})
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * np.arange(n))
    assert counter.numpy()[0] == n  # the counter was bumped by the forward pass only


def test_nested_tapes_are_refused_and_the_outer_one_keeps_recording():
    """As in Warp: a tape inside a recording tape is an error (it would take the outer tape's
    launches); the outer tape is unharmed and still differentiates what it recorded."""

    @wp.kernel
    def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i] * x[i]

    x = wp.array([1.0, 2.0, 3.0], dtype=float, requires_grad=True)
    y = wp.zeros(3, dtype=float, requires_grad=True)
    outer = wp.Tape()
    with outer:
        with pytest.raises(RuntimeError, match="cannot be nested"):
            with wp.Tape():
                pass
        wp.launch(square, 3, inputs=[x], outputs=[y])
    outer.backward(grads={y: wp.ones(3, dtype=float)})
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0, 6.0])
    with wp.Tape():  # the slot is free again after the outer block
        pass
