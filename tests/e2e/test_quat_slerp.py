"""quat_slerp as Warp defines it: a * quat_from_axis_angle(axis, t * angle) with (axis, angle) =
quat_to_axis_angle(quat_inverse(a) * b). Values against that composition written in numpy, for
quaternions off the unit sphere too (where the textbook sin-weighted formula gives other values and
gradients), and the gradients of a, b and t against central finite differences of the numpy reference."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


def qmul(a, b):
    av, aw, bv, bw = a[:3], a[3], b[:3], b[3]
    return np.array([*(aw * bv + bw * av + np.cross(av, bv)), aw * bw - av @ bv])


def slerp_reference(a, b, t):
    r = qmul(np.array([-a[0], -a[1], -a[2], a[3]]), b)
    v, w = (r[:3], r[3]) if r[3] >= 0 else (-r[:3], -r[3])
    n = np.linalg.norm(v)
    axis = v / n if n > 0 else np.zeros(3)
    half = 0.5 * t * 2.0 * np.arctan2(n, w)
    return qmul(a, np.array([*(axis * np.sin(half)), np.cos(half)]))


@wp.kernel
def slerp_kernel(a: wp.array(dtype=wp.quatd), b: wp.array(dtype=wp.quatd), t: wp.array(dtype=wp.float64),
                 weights: wp.array(dtype=wp.quatd), loss: wp.array(dtype=wp.float64)):
    i = wp.tid()
    q = wp.quat_slerp(a[i], b[i], t[i])
    wp.atomic_add(loss, 0, wp.dot(q, weights[i]))


@wp.kernel
def slerp_values(a: wp.array(dtype=wp.quatd), b: wp.array(dtype=wp.quatd), t: wp.array(dtype=wp.float64),
                 out: wp.array(dtype=wp.quatd)):
    i = wp.tid()
    out[i] = wp.quat_slerp(a[i], b[i], t[i])


def _inputs(n=12, seed=3):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(n, 4))  # off the unit sphere on purpose
    b = rng.normal(size=(n, 4))
    b[0] = -2.5 * a[0]  # the same rotation as a: the result is a
    t = rng.uniform(0.05, 0.95, n)
    return a, b, t


def test_slerp_values_match_the_composition_off_the_unit_sphere():
    a, b, t = _inputs()
    out = wp.zeros(len(a), dtype=wp.quatd)
    wp.launch(slerp_values, len(a), inputs=[wp.array(a, dtype=wp.quatd), wp.array(b, dtype=wp.quatd),
                                            wp.array(t, dtype=wp.float64), out])
    expected = np.array([slerp_reference(a[i], b[i], t[i]) for i in range(len(a))])
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.numpy()[0], a[0], atol=1e-12)


def test_slerp_gradients_match_finite_differences():
    a, b, t = _inputs()
    weights = np.random.default_rng(9).normal(size=a.shape)
    wa, wb = wp.array(a, dtype=wp.quatd, requires_grad=True), wp.array(b, dtype=wp.quatd, requires_grad=True)
    wt = wp.array(t, dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(slerp_kernel, len(a), inputs=[wa, wb, wt, wp.array(weights, dtype=wp.quatd), loss])
    tape.backward(loss)

    def f(i, ai, bi, ti):
        return slerp_reference(ai, bi, ti) @ weights[i]

    eps = 1e-6
    for i in range(1, len(a)):  # row 0 sits on the kink at v = 0
        for k in range(4):
            d = np.zeros(4)
            d[k] = eps
            ga = (f(i, a[i] + d, b[i], t[i]) - f(i, a[i] - d, b[i], t[i])) / (2 * eps)
            gb = (f(i, a[i], b[i] + d, t[i]) - f(i, a[i], b[i] - d, t[i])) / (2 * eps)
            np.testing.assert_allclose(wa.grad.numpy()[i, k], ga, rtol=1e-6, atol=1e-7)
            np.testing.assert_allclose(wb.grad.numpy()[i, k], gb, rtol=1e-6, atol=1e-7)
        gt = (f(i, a[i], b[i], t[i] + eps) - f(i, a[i], b[i], t[i] - eps)) / (2 * eps)
        np.testing.assert_allclose(wt.grad.numpy()[i], gt, rtol=1e-6, atol=1e-7)
