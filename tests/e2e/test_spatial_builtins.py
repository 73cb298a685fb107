"""The spatial builtins that the registry-driven cases cannot express: transform_set_translation and
transform_set_rotation update their first argument in place (in kernels and in Python scope), and
wp.spatial_vector(w, v) builds a vec6 from two vec3 halves (with gradients back to the halves)."""

import numpy as np
import pytest

import warp_nb as wp


@wp.kernel
def set_parts(ts: wp.array(dtype=wp.transform), ps: wp.array(dtype=wp.vec3), qs: wp.array(dtype=wp.quat),
              out: wp.array(dtype=wp.transform)):
    i = wp.tid()
    t = ts[i]
    wp.transform_set_translation(t, ps[i])
    if i % 2 == 0:
        wp.transform_set_rotation(t, qs[i])
    out[i] = t


@pytest.mark.needs_cxx
def test_transform_set_parts_in_kernels():
    rng = np.random.default_rng(2)
    t, p, q = rng.normal(size=(4, 7)), rng.normal(size=(4, 3)), rng.normal(size=(4, 4))
    out = wp.zeros(4, dtype=wp.transform)
    wp.launch(set_parts, 4, inputs=[wp.array(t, dtype=wp.transform), wp.array(p, dtype=wp.vec3),
                                    wp.array(q, dtype=wp.quat), out])
    expected = t.copy()
    expected[:, :3] = p
    expected[::2, 3:] = q[::2]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_transform_set_parts_in_python():
    t = wp.transform(wp.vec3(0.0, 0.0, 0.0), wp.quat(0.0, 0.0, 0.0, 1.0))
    wp.transform_set_translation(t, wp.vec3(1.0, 2.0, 3.0))
    wp.transform_set_rotation(t, wp.quat(0.0, 1.0, 0.0, 0.0))
    assert list(t) == [1.0, 2.0, 3.0, 0.0, 1.0, 0.0, 0.0]


@wp.kernel
def spatial_from_halves(w: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    s = wp.spatial_vector(w[i], v[i])
    out[i] = wp.dot(s, wp.spatial_vector(1.0, 2.0, 3.0, 4.0, 5.0, 6.0))


@pytest.mark.needs_cxx
def test_spatial_vector_from_halves_with_gradients():
    w = wp.array(np.ones((2, 3)), dtype=wp.vec3, requires_grad=True)
    v = wp.array(2 * np.ones((2, 3)), dtype=wp.vec3, requires_grad=True)
    out = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(spatial_from_halves, 2, inputs=[w, v, out])
    tape.backward(grads={out: wp.ones(2, dtype=float)})
    np.testing.assert_allclose(out.numpy(), [1 + 2 + 3 + 2 * (4 + 5 + 6)] * 2)
    np.testing.assert_allclose(w.grad.numpy(), [[1, 2, 3]] * 2)
    np.testing.assert_allclose(v.grad.numpy(), [[4, 5, 6]] * 2)
