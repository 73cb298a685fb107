"""warp_nb.optim.Adam and SGD against numpy versions of their update rules, over several steps,
for float16/32/64 scalars, vectors and matrices; state handling and refusals."""

import numpy as np
import pytest

import warp_nb as wp
import warp_nb.optim

pytestmark = pytest.mark.needs_cxx

RNG = np.random.default_rng(3)


def numpy_adam(p, grads, lr, b1, b2, eps):
    m, v = np.zeros_like(p), np.zeros_like(p)
    for t, g in enumerate(grads):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        p = p - lr * (m / (1 - b1 ** (t + 1))) / (np.sqrt(v / (1 - b2 ** (t + 1))) + eps)
    return p


def numpy_sgd(p, grads, lr, momentum, dampening, weight_decay, nesterov):
    b = None
    for g in grads:
        d = g + weight_decay * p
        if momentum:
            b = d if b is None else momentum * b + (1 - dampening) * d
            d = d + momentum * b if nesterov else b
        p = p - lr * d
    return p


CASES = [(wp.float32, (5,), 1e-6), (wp.float64, (5,), 1e-12), (wp.float16, (6,), 2e-3), (wp.vec3, (4,), 1e-6),
         (wp.mat22d, (3,), 1e-12)]


def _arrays(dtype, shape, steps):
    inner = wp.types.numpy_inner_shape(dtype)
    np_t = wp.types.numpy_dtype(wp.types.scalar_type_of(dtype))
    p0 = RNG.standard_normal(shape + inner).astype(np_t)
    grads = [RNG.standard_normal(shape + inner).astype(np_t) for _ in range(steps)]
    return p0, grads


@pytest.mark.parametrize("dtype, shape, tol", CASES)
def test_adam_matches_numpy(dtype, shape, tol):
    p0, grads = _arrays(dtype, shape, 4)
    params = wp.array(p0, dtype=dtype)
    opt = warp_nb.optim.Adam([params], lr=0.05, betas=(0.8, 0.99), eps=1e-6)
    for g in grads:
        opt.step([wp.array(g, dtype=dtype)])
    expect = numpy_adam(p0.astype(np.float64), [g.astype(np.float64) for g in grads], 0.05, 0.8, 0.99, 1e-6)
    np.testing.assert_allclose(params.numpy().astype(np.float64), expect, rtol=tol, atol=tol)
    assert opt.t == 4 and opt.m[0].shape == params.shape
    assert wp.types.scalar_type_of(opt.m[0].dtype) is (wp.float32 if dtype is wp.float16 else wp.types.scalar_type_of(dtype))


@pytest.mark.parametrize("dtype, shape, tol", CASES)
@pytest.mark.parametrize("momentum, dampening, weight_decay, nesterov",
                         [(0.0, 0.0, 0.0, False), (0.9, 0.1, 0.01, False), (0.9, 0.0, 0.1, True)])
def test_sgd_matches_numpy(dtype, shape, tol, momentum, dampening, weight_decay, nesterov):
    p0, grads = _arrays(dtype, shape, 3)
    params = wp.array(p0, dtype=dtype)
    opt = warp_nb.optim.SGD([params], lr=0.1, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                            nesterov=nesterov)
    for g in grads:
        opt.step([wp.array(g, dtype=dtype)])
    expect = numpy_sgd(p0.astype(np.float64), [g.astype(np.float64) for g in grads], 0.1, momentum, dampening,
                       weight_decay, nesterov)
    np.testing.assert_allclose(params.numpy().astype(np.float64), expect, rtol=10 * tol, atol=10 * tol)


def test_adam_minimizes_a_quadratic_through_a_tape():
    @wp.kernel
    def loss_kernel(x: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
        i = wp.tid()
        d = x[i] - wp.vec3(1.0, -2.0, 0.5)
        wp.atomic_add(loss, 0, wp.dot(d, d))

    x = wp.zeros(2, dtype=wp.vec3, requires_grad=True)
    loss = wp.zeros(1, requires_grad=True)
    opt = warp_nb.optim.Adam([x], lr=0.05)
    for _ in range(300):
        loss.zero_()
        tape = wp.Tape()
        with tape:
            wp.launch(loss_kernel, 2, inputs=[x, loss])
        tape.backward(loss)
        opt.step([x.grad])
        tape.zero()
    np.testing.assert_allclose(x.numpy(), [[1.0, -2.0, 0.5]] * 2, atol=1e-2)


def test_state_is_kept_when_params_still_fit_and_reset_zeroes_it():
    p = wp.zeros(3)
    opt = warp_nb.optim.Adam([p])
    m = opt.m[0]
    m.fill_(2.0)
    opt.set_params([wp.ones(3)])  # same shape and dtype: state kept
    assert opt.m[0] is m and m.numpy().tolist() == [2.0] * 3
    opt.set_params([wp.ones(4)])  # another shape: fresh state
    assert opt.m[0] is not m and opt.m[0].numpy().tolist() == [0.0] * 4
    sgd = warp_nb.optim.SGD([p], lr=0.1, momentum=0.9)
    sgd.step([wp.ones(3)])
    sgd.reset_internal_state()
    assert sgd.t == 0 and sgd.b[0].numpy().tolist() == [0.0] * 3


def test_refusals():
    with pytest.raises(RuntimeError, match=r"must be set before calling step\(\), got None"):
        warp_nb.optim.SGD().step([])
    opt = warp_nb.optim.Adam([wp.zeros(2)])
    with pytest.raises(TypeError, match="dtype must match parameter dtype float32, got int32"):
        opt.step([wp.zeros(2, dtype=int)])
    with pytest.raises(ValueError, match=r"shape must match parameter shape \(2,\), got \(3,\)"):
        opt.step([wp.zeros(3)])
    with pytest.raises(TypeError, match="float16, float32 or float64"):
        warp_nb.optim.Adam([wp.zeros(2, dtype=int)])
