"""Parts of tiles on the CPU against numpy: writes into an element's components (t[i][1] = v),
3-D and 4-D selections and slice writes, views that write through (wp.tile_assign into t[i]),
references to tiles passed to a @wp.func, and gradients through them (checked against the
values they must take: each write's adjoint reaches only the value written)."""

import numpy as np

import warp_nb as wp

N = 6
rng = np.random.default_rng(3)


@wp.kernel
def row_write(inp: wp.array(dtype=wp.mat22), rows: wp.array(dtype=wp.vec2), x: wp.array(dtype=float),
              out: wp.array(dtype=wp.mat22)):
    i = wp.tid()
    t = wp.tile_load(inp, shape=(N,))
    t[i][1] = rows[i]
    t[i][0, 1] = x[i] * 2.0
    out[i] = t[i]


def test_component_writes_and_their_gradients():
    init = rng.standard_normal((N, 2, 2)).astype(np.float32)
    rows_np = rng.standard_normal((N, 2)).astype(np.float32)
    x_np = rng.standard_normal(N).astype(np.float32)
    inp = wp.array(init, dtype=wp.mat22, requires_grad=True)
    rows = wp.array(rows_np, dtype=wp.vec2, requires_grad=True)
    x = wp.array(x_np, dtype=float, requires_grad=True)
    out = wp.zeros(N, dtype=wp.mat22, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(row_write, dim=N, inputs=[inp, rows, x, out], block_dim=N)
    expected = init.copy()
    expected[:, 1, :] = rows_np
    expected[:, 0, 1] = 2.0 * x_np
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    g = rng.standard_normal((N, 2, 2)).astype(np.float32)
    out.grad = wp.array(g, dtype=wp.mat22)
    tape.backward()
    g_inp = g.copy()
    g_inp[:, 1, :] = 0.0  # overwritten: no gradient
    g_inp[:, 0, 1] = 0.0
    np.testing.assert_allclose(inp.grad.numpy(), g_inp, rtol=1e-6)
    np.testing.assert_allclose(rows.grad.numpy(), g[:, 1, :], rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * g[:, 0, 1], rtol=1e-6)


@wp.kernel
def nd_parts(src: wp.array3d(dtype=float), part: wp.array2d(dtype=float), strided: wp.array3d(dtype=float),
             out: wp.array3d(dtype=float)):
    t = wp.tile_load(src, shape=(2, 3, 4))
    wp.tile_store(part, t[1])
    wp.tile_store(strided, t[:, 1:3, ::2])
    u = wp.tile_zeros(shape=(2, 3, 4), dtype=float)
    u[0] = t[1]
    u[1, 2, 3] = 7.0
    wp.tile_store(out, u)


def test_nd_selections_and_writes():
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    src = wp.array(a)
    part, strided, out = wp.zeros((3, 4)), wp.zeros((2, 2, 2)), wp.zeros((2, 3, 4))
    wp.launch_tiled(nd_parts, dim=[1], inputs=[src, part, strided, out], block_dim=1)
    np.testing.assert_array_equal(part.numpy(), a[1])
    np.testing.assert_array_equal(strided.numpy(), a[:, 1:3, ::2])
    expected = np.zeros_like(a)
    expected[0] = a[1]
    expected[1, 2, 3] = 7.0
    np.testing.assert_array_equal(out.numpy(), expected)


@wp.kernel
def views_write_through(src: wp.array3d(dtype=float), dst: wp.array3d(dtype=float)):
    a = wp.tile_load(src, shape=(2, 3, 4))
    b = wp.tile_zeros(dtype=float, shape=(2, 3, 4))
    for i in range(2):
        row_src = a[i]
        row_dst = b[i]
        wp.tile_assign(row_dst, row_src * 2.0)
    wp.tile_store(dst, b)


def test_writes_into_views_reach_their_tile():
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    src = wp.array(a, requires_grad=True)
    dst = wp.zeros((2, 3, 4), requires_grad=True)
    with wp.Tape() as tape:
        wp.launch_tiled(views_write_through, dim=[1], inputs=[src, dst], block_dim=1)
    np.testing.assert_allclose(dst.numpy(), 2.0 * a, rtol=1e-6)
    dst.grad = wp.ones_like(dst)
    tape.backward()
    np.testing.assert_allclose(src.grad.numpy(), np.full_like(a, 2.0))


@wp.func
def add_in_place(t: wp.tile[float, 2, 3], s: float):
    t += wp.tile_ones(dtype=float, shape=(2, 3)) * s


@wp.kernel(enable_backward=False)
def call_by_reference(src: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    t = wp.tile_load(src, shape=(2, 3))
    add_in_place(t, 5.0)
    wp.tile_store(out, t)


def test_a_function_writes_into_the_callers_tile():
    a = rng.standard_normal((2, 3)).astype(np.float32)
    out = wp.zeros((2, 3))
    wp.launch_tiled(call_by_reference, dim=[1], inputs=[wp.array(a), out], block_dim=1)
    np.testing.assert_allclose(out.numpy(), a + 5.0, rtol=1e-6)


@wp.kernel
def call_by_reference_grad(src: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    t = wp.tile_load(src, shape=(2, 3)) * 3.0
    add_in_place(t, 5.0)
    wp.tile_store(out, t)


def test_a_reference_parameter_in_a_kernel_with_a_backward_pass():
    a = rng.standard_normal((2, 3)).astype(np.float32)
    src, out = wp.array(a, requires_grad=True), wp.zeros((2, 3), requires_grad=True)
    with wp.Tape() as tape:
        wp.launch_tiled(call_by_reference_grad, dim=[1], inputs=[src, out], block_dim=1)
    np.testing.assert_allclose(out.numpy(), 3.0 * a + 5.0, rtol=1e-6)
    out.grad = wp.ones_like(out)
    tape.backward()
    np.testing.assert_allclose(src.grad.numpy(), np.full_like(a, 3.0))


@wp.func
def rebind_only(t: wp.tile[float, 2, 3]):
    t = t * 2.0  # a new tile under the local name: the caller's is unchanged
    wp.tile_assign(t, wp.tile_ones(dtype=float, shape=(1, 3)), offset=(0, 0))


@wp.kernel(enable_backward=False)
def call_rebinding(src: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    t = wp.tile_load(src, shape=(2, 3))
    rebind_only(t)
    wp.tile_store(out, t)


def test_a_function_rebinding_its_parameter_leaves_the_callers_tile():
    a = rng.standard_normal((2, 3)).astype(np.float32)
    out = wp.zeros((2, 3))
    wp.launch_tiled(call_rebinding, dim=[1], inputs=[wp.array(a), out], block_dim=1)
    np.testing.assert_array_equal(out.numpy(), a)
