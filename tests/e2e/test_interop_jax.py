"""JAX on the CPU: DLPack both ways without copies, warp_nb kernels inside jax.jit
(wp.jax_kernel, wp.jax_callable) against numpy, and gradients through the kernel's adjoint
checked by jax.test_util.check_grads (finite differences). Skips when jax is not installed."""

from functools import partial

import numpy as np
import pytest

import warp_nb as wp

jax = pytest.importorskip("jax", reason="jax is not installed (optional interop; the test extras install it)")
jnp = pytest.importorskip("jax.numpy")
from jax.test_util import check_grads  # noqa: E402

pytestmark = pytest.mark.needs_cxx


def test_dlpack_both_ways_without_copies():
    x = jnp.arange(12, dtype=jnp.float32).reshape(4, 3)
    a = wp.from_jax(x, dtype=wp.vec3)
    assert a.shape == (4,) and a.ptr == x.unsafe_buffer_pointer()
    np.testing.assert_array_equal(a.numpy(), np.asarray(x))
    b = wp.array(np.linspace(0, 1, 16, dtype=np.float64))
    y = wp.to_jax(b)
    assert y.dtype == jnp.float64 or not jax.config.jax_enable_x64  # JAX without x64 refuses float64 views
    if y.dtype == jnp.float64:
        assert y.unsafe_buffer_pointer() == b.ptr
    np.testing.assert_allclose(np.asarray(y), b.numpy())
    c = wp.zeros(8, dtype=wp.int32)
    z = wp.to_jax(c)
    assert z.unsafe_buffer_pointer() == c.ptr
    c.fill_(7)  # written through warp_nb, read through JAX (the same memory)
    assert np.asarray(z).tolist() == [7] * 8


@wp.kernel
def _affine_sq(a: wp.array(dtype=float), b: wp.array(dtype=float), s: float, out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = (a[i] * s + b[i]) * (a[i] * s + b[i])


@wp.kernel
def _sin_cos(x: wp.array(dtype=wp.vec2), s: wp.array(dtype=float), c: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    s[i] = wp.sin(x[i][0]) * x[i][1]
    c[i] = wp.vec2(wp.cos(x[i][0]), x[i][1] * x[i][1])


def test_jax_kernel_inside_jit_matches_numpy():
    op = wp.jax_kernel(_affine_sq)
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=20).astype(np.float32), rng.normal(size=20).astype(np.float32)
    (out,) = jax.jit(lambda a, b: op(a, b, 1.5))(a, b)
    np.testing.assert_allclose(np.asarray(out), (a * 1.5 + b) ** 2, rtol=1e-6)
    two = wp.jax_kernel(_sin_cos, num_outputs=2)
    x = rng.normal(size=(7, 2)).astype(np.float32)
    s, c = jax.jit(two)(x)
    assert s.shape == (7,) and c.shape == (7, 2)
    np.testing.assert_allclose(np.asarray(s), np.sin(x[:, 0]) * x[:, 1], rtol=1e-5)
    np.testing.assert_allclose(np.asarray(c), np.stack([np.cos(x[:, 0]), x[:, 1] ** 2], 1), rtol=1e-5)
    assert wp.jax_kernel(_affine_sq) is op  # one wrapper per configuration, as Warp caches them


def test_custom_vjp_runs_the_adjoint_and_passes_check_grads():
    op = wp.jax_kernel(_affine_sq, enable_backward=True)
    rng = np.random.default_rng(5)
    a = jnp.asarray(rng.normal(size=10).astype(np.float32))
    b = jnp.asarray(rng.normal(size=10).astype(np.float32))

    @partial(jax.jit, static_argnames=["s"])
    def loss(a, b, s):
        return jnp.sum(jnp.sin(op(a, b, s)[0]))

    da, db = jax.grad(loss, argnums=(0, 1))(a, b, 0.7)
    inner = np.asarray(a) * 0.7 + np.asarray(b)
    np.testing.assert_allclose(np.asarray(db), np.cos(inner ** 2) * 2 * inner, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.asarray(da), np.cos(inner ** 2) * 2 * inner * 0.7, rtol=1e-4, atol=1e-5)
    # finite differences along random directions (float32: loose tolerances)
    check_grads(lambda a, b: loss(a, b, 0.7), (a, b), order=1, modes=("rev",), eps=1e-2, atol=5e-2, rtol=5e-2)


def test_vector_outputs_get_gradients_too():
    op = wp.jax_kernel(_sin_cos, num_outputs=2, enable_backward=True)
    x = jnp.asarray(np.random.default_rng(6).normal(size=(5, 2)).astype(np.float32))

    def loss(x):
        s, c = op(x)
        return jnp.sum(s) + jnp.sum(c)

    g = np.asarray(jax.grad(loss)(x))
    xn = np.asarray(x)
    expected = np.stack([np.cos(xn[:, 0]) * xn[:, 1] - np.sin(xn[:, 0]), np.sin(xn[:, 0]) + 2 * xn[:, 1]], 1)
    np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-6)


def _scale_twice(a: wp.array(dtype=float), s: float, b: wp.array(dtype=float)):
    wp.launch(_affine_sq, dim=a.shape, inputs=[a, a, s], outputs=[b])
    wp.launch(_affine_sq, dim=a.shape, inputs=[b, a, 0.0], outputs=[b])  # b = a^2 (the second ignores b)


def test_jax_callable_launches_several_kernels():
    op = wp.jax_callable(_scale_twice)
    a = np.arange(6, dtype=np.float32)
    (b,) = jax.jit(lambda a: op(a, 2.0))(a)
    np.testing.assert_allclose(np.asarray(b), a ** 2)


def test_bad_calls_name_the_fix():
    op = wp.jax_kernel(_affine_sq)
    with pytest.raises(TypeError, match=r"scalar argument `s`.*static_argnames"):
        jax.jit(lambda a, s: op(a, a, s))(jnp.ones(3), 2.0)
    with pytest.raises(TypeError, match=r"takes 3 inputs \(a, b, s\), got 2"):
        op(jnp.ones(3), jnp.ones(3))
    with pytest.raises(ValueError, match="did not match any function argument names"):
        wp.jax_kernel(_affine_sq, in_out_argnames=["missing"])
    with pytest.raises(TypeError, match="launch_dims cannot be overridden per-call"):
        wp.jax_kernel(_affine_sq, enable_backward=True)(jnp.ones(3), jnp.ones(3), 1.0, launch_dims=3)


def test_mismatched_dtypes_and_shapes_are_refused_before_tracing():
    op = wp.jax_kernel(_sin_cos, num_outputs=2)
    with pytest.raises(TypeError, match=r"argument `x`.*got a JAX array of int32; convert it"):
        op(jnp.ones((4, 2), dtype=jnp.int32))
    with pytest.raises(TypeError, match=r"argument `x`.*followed by \(2,\).*got shape \(4, 3\)"):
        op(jnp.ones((4, 3), dtype=jnp.float32))


@wp.kernel
def _times_block_dim(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = a[i] * float(wp.block_dim())


@pytest.mark.parametrize("block_dim", (None, 64))
def test_jax_kernel_runs_forward_and_backward_in_the_same_blocks(monkeypatch, block_dim):
    """With CPU blocks on, jax_kernel(block_dim=...) launches the forward and the backward pass in
    blocks of that many lanes, and without block_dim in one-lane blocks, as wp.launch does (Warp)."""
    monkeypatch.setattr(wp.config, "enable_cpu_blocks", True)
    op = wp.jax_kernel(_times_block_dim, num_outputs=1, block_dim=block_dim, enable_backward=True)
    x = jnp.arange(256, dtype=jnp.float32)
    lanes = float(block_dim or 1)
    np.testing.assert_array_equal(np.asarray(op(x)[0]), np.arange(256) * lanes)
    grad = jax.grad(lambda v: jnp.sum(op(v)[0]))(x)
    np.testing.assert_array_equal(np.asarray(grad), np.full(256, lanes))
