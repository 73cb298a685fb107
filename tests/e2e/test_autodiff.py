"""Automatic differentiation end to end: adjoint launches, wp.Tape through time, control flow,
structs, atomics in losses, custom gradients, gradcheck, and the errors for misuse. Every
gradient is compared with central finite differences or an analytic formula."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import autograd

pytestmark = pytest.mark.needs_cxx


def rng(seed):
    return np.random.default_rng(seed)


@wp.kernel
def sin_loss(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.sin(x[i]) * x[i])


@pytest.mark.slow
def test_adjoint_launch_matches_analytic_gradient():
    xv = rng(1).uniform(-2, 2, 1000).astype(np.float32)
    x = wp.array(xv, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    wp.launch(sin_loss, dim=1000, inputs=[x, loss])
    assert loss.numpy()[0] == pytest.approx(float((np.sin(xv) * xv).sum()), rel=1e-4)
    loss.grad.fill_(1.0)
    wp.launch(sin_loss, dim=1000, inputs=[x, loss], adjoint=True)
    np.testing.assert_allclose(x.grad.numpy(), np.cos(xv) * xv + np.sin(xv), rtol=1e-5, atol=1e-6)


@wp.kernel
def spring_step(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), k: wp.array(dtype=float), dt: float,
                x_out: wp.array(dtype=wp.vec3), v_out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    f = -k[0] * x[i] - 0.1 * v[i]
    v_new = v[i] + f * dt
    v_out[i] = v_new
    x_out[i] = x[i] + v_new * dt


@wp.kernel
def energy(x: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    loss[0] += wp.length_sq(x[i])  # `+=` on an array element is an atomic add


def simulate(x0: np.ndarray, stiffness: float, steps: int = 15):
    x = wp.array(x0, dtype=wp.vec3, requires_grad=True)
    v = wp.zeros(len(x0), dtype=wp.vec3, requires_grad=True)
    k = wp.array([stiffness], dtype=float, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    with tape:
        xs, vs = x, v
        for _ in range(steps):
            xn, vn = wp.zeros_like(xs), wp.zeros_like(vs)
            wp.launch(spring_step, dim=len(x0), inputs=[xs, vs, k, 0.05], outputs=[xn, vn])
            xs, vs = xn, vn
        wp.launch(energy, dim=len(x0), inputs=[xs, loss])
    return tape, loss, x, k


@pytest.mark.slow
def test_tape_through_time_matches_finite_differences():
    x0 = rng(2).uniform(-1, 1, (4, 3)).astype(np.float64).astype(np.float32)
    tape, loss, x, k = simulate(x0, 3.0)
    tape.backward(loss=loss)
    eps = 1e-2
    fd_x = np.zeros_like(x0)
    for i in range(4):
        for c in range(3):
            p, m = x0.copy(), x0.copy()
            p[i, c] += eps
            m[i, c] -= eps
            fd_x[i, c] = (simulate(p, 3.0)[1].numpy()[0] - simulate(m, 3.0)[1].numpy()[0]) / (2 * eps)
    np.testing.assert_allclose(x.grad.numpy(), fd_x, rtol=2e-2, atol=2e-3)
    fd_k = (simulate(x0, 3.0 + eps)[1].numpy()[0] - simulate(x0, 3.0 - eps)[1].numpy()[0]) / (2 * eps)
    assert k.grad.numpy()[0] == pytest.approx(fd_k, rel=2e-2, abs=1e-3)
    # gradients accumulate over backward passes until zero()
    first = x.grad.numpy().copy()
    tape.backward(loss=loss)
    np.testing.assert_allclose(x.grad.numpy(), 2 * first, rtol=1e-5)
    tape.zero()
    assert not x.grad.numpy().any() and not k.grad.numpy().any()
    assert x in tape.gradients or any(a is x for a in tape.gradients)


@wp.kernel
def reassigned_in_loop(x: wp.array(dtype=float), n: int, y: wp.array(dtype=float)):
    i = wp.tid()
    acc = float(0.0)
    for k in range(n):
        acc = acc + wp.sin(x[i] * float(k + 1))
    y[i] = acc * x[i]


def test_dynamic_loop_with_reassigned_variable():
    # warp-lang loses the `acc` term of this gradient; here it must be exact
    xv = rng(3).uniform(-1, 1, 6).astype(np.float32)
    x, y = wp.array(xv, requires_grad=True), wp.zeros(6, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(reassigned_in_loop, dim=6, inputs=[x, 7, y])
    tape.backward(grads={y: np.ones(6, np.float32)})
    ks = np.arange(1, 8)
    acc = np.array([np.sin(v * ks).sum() for v in xv])
    dacc = np.array([(ks * np.cos(v * ks)).sum() for v in xv])
    np.testing.assert_allclose(x.grad.numpy(), acc + xv * dacc, rtol=1e-4, atol=1e-5)


@wp.kernel
def while_and_branches(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = x[i]
    s = wp.float64(1.0)
    n = int(0)
    while n < 4:
        if v * s > 0.5:
            s = s * v
        else:
            s = s + v * v
        n = n + 1
    y[i] = s


def test_while_loop_and_branches_gradcheck():
    x = wp.array(np.array([0.3, 0.9, 1.2, -0.4, 0.7], dtype=np.float64), dtype=wp.float64, requires_grad=True)
    y = wp.zeros(5, dtype=wp.float64, requires_grad=True)
    assert autograd.gradcheck(while_and_branches, 5, [x], [y], eps=1e-6, atol=1e-6, rtol=1e-5, show_summary=False)


@wp.struct
class Body:
    pos: wp.vec3
    mass: float


@wp.func
def kinetic(b: Body, v: wp.vec3) -> float:
    return 0.5 * b.mass * wp.dot(v, v) + b.pos[1] * b.mass * 9.81


@wp.kernel
def struct_energy(bodies: wp.array(dtype=Body), vel: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    b = bodies[i]
    b.mass = b.mass * 2.0
    out[i] = kinetic(b, vel[i])


def test_structs_and_functions_carry_gradients():
    rows = rng(4).uniform(0.5, 1.5, (3, 4))
    bodies = wp.array([Body(pos=wp.vec3(*r[:3]), mass=float(r[3])) for r in rows], dtype=Body)
    vel = wp.array(rng(5).uniform(-1, 1, (3, 3)), dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(3, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(struct_energy, dim=3, inputs=[bodies, vel, out])
    tape.backward(grads={out: np.ones(3, np.float32)})
    mass = 2 * rows[:, 3:4]
    np.testing.assert_allclose(vel.grad.numpy(), mass * vel.numpy(), rtol=1e-5)
    assert autograd.gradcheck(struct_energy, 3, [bodies, vel], [out], eps=1e-3, atol=1e-2, show_summary=False)


@wp.func
def clipped(x: float):
    if x > 1.0:
        return 1.0
    return x * x


@wp.kernel
def early_return(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if x[i] < 0.0:
        return
    y[i] = clipped(x[i]) * 3.0


def test_early_returns_in_functions_and_kernels():
    xv = np.array([-0.5, 0.25, 0.5, 2.0], dtype=np.float32)
    x, y = wp.array(xv, requires_grad=True), wp.zeros(4, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(early_return, dim=4, inputs=[x, y])
    tape.backward(grads={y: np.ones(4, np.float32)})
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 1.5, 3.0, 0.0])


@wp.func
def safe_sqrt(x: float):
    return wp.sqrt(x)


@wp.func_grad(safe_sqrt)
def adj_safe_sqrt(x: float, adj_ret: float):
    if x > 0.0:
        wp.adjoint[x] += 1.0 / (2.0 * wp.sqrt(x)) * adj_ret


@wp.kernel
def uses_custom_grad(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = safe_sqrt(x[i]) * 3.0


def test_custom_gradient_replaces_the_generated_one():
    x = wp.array(np.array([0.0, 4.0, 9.0], np.float32), requires_grad=True)
    y = wp.zeros(3, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(uses_custom_grad, dim=3, inputs=[x, y])
    tape.backward(grads={y: np.ones(3, np.float32)})
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.75, 0.5])  # 0 at x = 0 instead of inf


@wp.kernel
def abs_loss(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, wp.abs(x[i]))


def test_abs_gradient_at_zero_is_one():
    x = wp.array(np.array([0.0, -2.0, 3.0], np.float32), requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(abs_loss, dim=3, inputs=[x, loss])
    tape.backward(loss)
    assert x.grad.numpy().tolist() == [1.0, -1.0, 1.0]  # Warp's FAQ: d|x|/dx at 0 is 1


@wp.kernel
def scale_copy(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * 2.0


def test_copies_are_recorded():
    x = wp.array(np.arange(4, dtype=np.float32), requires_grad=True)
    y, z = wp.zeros(4, requires_grad=True), wp.zeros(6, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(scale_copy, dim=4, inputs=[x, y])
        wp.copy(z, y, dest_offset=2, src_offset=0, count=4)
        wp.launch(sin_loss, dim=6, inputs=[z, loss])
    tape.backward(loss)
    zv = np.concatenate([[0, 0], 2 * np.arange(4)])
    dz = np.cos(zv) * zv + np.sin(zv)
    np.testing.assert_allclose(x.grad.numpy(), 2 * dz[2:], rtol=1e-5, atol=1e-6)


def test_backward_from_gradients_already_set():
    """tape.backward() with no argument starts from the gradients set on the outputs (Warp's
    semantics); the result equals backward(grads={...}) with the same seed."""
    x = wp.array(np.array([0.1, 0.2, 0.3], np.float32), requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(sin_loss, dim=3, inputs=[x, loss])
    loss.grad.fill_(2.0)
    tape.backward()
    v = np.array([0.1, 0.2, 0.3])
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * (np.cos(v) * v + np.sin(v)), rtol=1e-5)


def test_backward_misuse_raises_clear_errors():
    tape = wp.Tape()
    x = wp.array(np.ones(3, np.float32), requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    tape.backward(loss)  # an empty tape: nothing to do, as in Warp
    assert not x.grad.numpy().any() and not loss.grad.numpy().any()
    with tape:
        wp.launch(sin_loss, dim=3, inputs=[x, loss])
    with pytest.raises(TypeError, match="expects a wp.array"):
        tape.backward([1.0])
    with pytest.raises(ValueError, match="requires_grad=True"):
        tape.backward(wp.zeros(1))
    # an intermediate array without a gradient buffer breaks the chain: refused, not silently zero
    y = wp.zeros(3)  # no requires_grad
    broken = wp.Tape()
    with broken:
        wp.launch(scale_copy, dim=3, inputs=[x, y])
        wp.launch(sin_loss, dim=3, inputs=[y, loss])
    with pytest.raises(ValueError) as info:
        broken.backward(loss)
    assert "argument `y` of kernel `scale_copy`" in str(info.value) and "requires_grad=True" in str(info.value)


@wp.kernel
def loop_with_return(x: wp.array(dtype=float), n: int, y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for k in range(n):
        if s > 2.0:
            y[i] = s
            return
        s = s + x[i]
    y[i] = s


def test_undifferentiable_constructs_are_refused_at_their_line():
    x, y = wp.ones(2, requires_grad=True), wp.zeros(2, requires_grad=True)
    wp.launch(loop_with_return, dim=2, inputs=[x, 5, y])  # the forward pass is fine
    assert y.numpy().tolist() == [3.0, 3.0]
    with pytest.raises(wp.KernelError) as info:
        wp.launch(loop_with_return, dim=2, inputs=[x, 5, y], adjoint=True)
    message = str(info.value)
    assert "return" in message and "test_autodiff.py, line" in message and "warp_nb." not in message


def test_gradcheck_reports_a_wrong_gradient():
    @wp.func
    def steps(x: float):
        return wp.floor(x * 4.0) + x  # the floor's jumps are invisible to the adjoint

    @wp.kernel
    def k(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = steps(x[i])

    x, y = wp.array(np.array([0.2499, 0.6], np.float32), requires_grad=True), wp.zeros(2, requires_grad=True)
    report = autograd.gradcheck_report(k, 2, [x], [y], eps=1e-3, raise_exception=False)
    assert not report.passed and report.worst[0][1:5] == ("x", 0, "y", 0)
    assert autograd.gradcheck(k, 2, [x], [y], eps=1e-3, raise_exception=False, show_summary=False) is False
    with pytest.raises(ValueError, match=r"gradcheck of \S*k FAILED"):
        autograd.gradcheck(k, 2, [x], [y], eps=1e-3, show_summary=False)
    assert x.numpy().tolist() == pytest.approx([0.2499, 0.6])  # inputs restored


@wp.struct
class _Shown:
    x: float


@wp.kernel
def _printed_loss(a: wp.array(dtype=float), v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat22),
                  out: wp.array(dtype=float), n: int, s: _Shown):
    i = wp.tid()
    x = a[i] * 2.0
    print(x)
    y = v[i]
    print(y)
    mm = m[i]
    print(mm, n)
    print(s)
    for j in range(n):
        print(j)  # (a dynamic loop's: not repeated backward)
    out[i] = x * 3.0 + wp.length(y) + mm[0, 1] * 5.0


def test_print_in_a_backward_pass_shows_values_again_then_adjoints(capfd):
    """As Warp's backward pass: print() shows its value again (the replay), then, in reverse order,
    `adj: ` and the value's adjoint (vector components without a trailing space, a matrix's
    further rows indented under the first; an int's adjoint is its zero, a struct's a placeholder)."""
    a = wp.array([1.5], dtype=float, requires_grad=True)
    v = wp.array([[3.0, 0.0, 4.0]], dtype=wp.vec3, requires_grad=True)
    m = wp.array([np.eye(2)], dtype=wp.mat22, requires_grad=True)
    out = wp.zeros(1, requires_grad=True)
    tape = wp.Tape()
    capfd.readouterr()
    with tape:
        wp.launch(_printed_loss, dim=1, inputs=[a, v, m, out, 2, _Shown()])
    forward = "3\n3 0 4 \n1 0 \n0 1  2\n<type without print implementation>\n"
    assert capfd.readouterr().out == forward + "0\n1\n"
    tape.backward(grads={out: wp.ones(1)})
    adjoints = ("adj: <type without print implementation>\n"
                "adj: 0 5\n     0 0\nadj: 0\n"  # print(mm, n): one line each, in print's order
                "adj: 0.6 0 0.8\n"
                "adj: 3\n")
    assert capfd.readouterr().out == forward + adjoints
    np.testing.assert_allclose(a.grad.numpy(), [6.0])  # (x's adjoint 3, times dx/da = 2)
    np.testing.assert_allclose(v.grad.numpy(), [[0.6, 0.0, 0.8]])


@wp.kernel
def _printed_scaled(s: float, k: int, w: wp.vec2, flag: bool, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    print(s, k, w, flag)
    y[0] = s * x[0] + w[1]


def test_print_in_a_backward_pass_starts_value_parameters_from_the_given_adjoints(capfd):
    """As Warp: adj_inputs gives value parameters their adjoints at the start of a raw backward
    launch, which a print() shows (after the contributions of what follows it, in reverse order).
    A Tape's backward launch gives them none, even after such a launch; adj_inputs' arrays are
    gradients as before (the raw launches here leave x.grad at zero: y's gradient is zero)."""
    x = wp.array([2.0], dtype=float, requires_grad=True)
    y = wp.zeros(1, dtype=float, requires_grad=True)
    capfd.readouterr()
    wp.launch(_printed_scaled, 1, inputs=[3.0, 7, wp.vec2(1.0, 2.0), True, x, y],
              adj_inputs=[42.0, 5, wp.vec2(4.0, -1.0), False, None, None], adjoint=True)
    forward = "3 7 1 2  True\n"
    assert capfd.readouterr().out == forward + "adj: 42\nadj: 5\nadj: 4 -1\nadj: False\n"
    wp.launch(_printed_scaled, 1, inputs=[3.0, 7, wp.vec2(1.0, 2.0), True, x, y],
              adj_inputs=[None, None, None, None, None, None], adjoint=True)
    assert capfd.readouterr().out == forward + "adj: 0\nadj: 0\nadj: 0 0\nadj: False\n"
    tape = wp.Tape()
    with tape:
        wp.launch(_printed_scaled, 1, inputs=[3.0, 7, wp.vec2(1.0, 2.0), True, x, y])
    tape.backward(grads={y: wp.ones(1)})
    # (dy/ds = x = 2 and dy/dw = (0, 1) reach s and w before the print, in reverse order)
    assert capfd.readouterr().out == forward * 2 + "adj: 2\nadj: 0\nadj: 0 1\nadj: False\n"
    np.testing.assert_allclose(x.grad.numpy(), [3.0])
    with pytest.raises(TypeError, match="`s`"):  # a seed of the wrong kind names its parameter
        wp.launch(_printed_scaled, 1, inputs=[3.0, 7, wp.vec2(1.0, 2.0), True, x, y],
                  adj_inputs=["no", None, None, None, None, None], adjoint=True)
