"""Tiles end to end on the CPU where Warp's readings are particular: tile_arange counted in the output
type, explicit slice() offsets of wp.tile_view, mixed-precision and bfloat16 tile_matmul,
tile_axpy into a broadcast shared tile, wp.static(len(tile)), the checked wp.tile_extract (an
IndexError after the launch, where Warp aborts the process), and block_dim, which the generated code does not depend on;
each against numpy."""

import numpy as np
import pytest

import warp_nb as wp
from tests.support.nvrtc_sm90 import compile_for_sm90

rng = np.random.default_rng(14)


@wp.kernel
def aranges(f32: wp.array(dtype=wp.float32), i2f: wp.array(dtype=wp.float32), sub: wp.array(dtype=wp.float32)):
    wp.tile_store(f32, wp.tile_arange(0.0, 3.0000001, 0.99999999, dtype=wp.float32))
    wp.tile_store(i2f, wp.tile_arange(18014398509481984, 18014401730707455, 2147483648, dtype=wp.float32))
    wp.tile_store(sub, wp.tile_arange(0.0, 0.3, 0.1, dtype=wp.float32))


def test_tile_arange_counts_the_range_the_output_type_holds():
    f32, i2f, sub = (wp.full(4, -1.0, dtype=wp.float32) for _ in range(3))
    wp.launch_tiled(aranges, dim=1, inputs=[f32, i2f, sub], block_dim=32)
    np.testing.assert_array_equal(f32.numpy(), [0.0, 1.0, 2.0, -1.0])
    np.testing.assert_array_equal(i2f.numpy(), [float(2 ** 54), -1.0, -1.0, -1.0])
    np.testing.assert_allclose(sub.numpy()[:3], np.arange(0.0, 0.3, 0.1), rtol=1e-6)
    assert sub.numpy()[3] == -1.0


@wp.kernel
def explicit_slices(src: wp.array2d(dtype=float), head: wp.array2d(dtype=float), tail: wp.array(dtype=float)):
    t = wp.tile_load(src, shape=(4, 6))
    wp.tile_store(head, wp.tile_view(t, offset=(slice(1, 3, 1), slice(0, 6, 2))))
    row = wp.tile_load(src[0], shape=6)
    wp.tile_store(tail, wp.tile_view(row, offset=(slice(-3, 6, 1),)))


def test_tile_view_with_slice_offsets_selects_as_a_subscript():
    a = rng.standard_normal((4, 6)).astype(np.float32)
    head, tail = wp.zeros((2, 3), dtype=float), wp.zeros(3, dtype=float)
    wp.launch_tiled(explicit_slices, dim=1, inputs=[wp.array(a), head, tail], block_dim=32)
    np.testing.assert_array_equal(head.numpy(), a[1:3, 0:6:2])
    np.testing.assert_array_equal(tail.numpy(), a[0, -3:])


@wp.kernel
def mixed_matmul(A: wp.array2d(dtype=wp.float16), B: wp.array2d(dtype=wp.float32), C: wp.array2d(dtype=wp.float64),
                 D: wp.array2d(dtype=wp.float16)):
    a = wp.tile_load(A, shape=(4, 8))
    b = wp.tile_load(B, shape=(8, 4))
    c = wp.tile_load(C, shape=(4, 4))
    wp.tile_matmul(a, b, c, alpha=0.5, beta=-1.3)  # accumulated in float64, out's type
    wp.tile_store(C, c)
    wp.tile_store(D, wp.tile_matmul(a, b))  # the returning form: a's type


def test_mixed_precision_matmul_accumulates_in_outs_type():
    A = rng.random((4, 8)).astype(np.float16)
    B, C = rng.random((8, 4)).astype(np.float32), rng.random((4, 4))
    Aw, Bw, Cw = (wp.array(x, requires_grad=True) for x in (A, B, C))
    Dw = wp.zeros((4, 4), dtype=wp.float16, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(mixed_matmul, dim=1, inputs=[Aw, Bw, Cw, Dw], block_dim=32)
    exact = A.astype(np.float64) @ B.astype(np.float64)
    np.testing.assert_allclose(Cw.numpy(), 0.5 * exact - 1.3 * C, rtol=1e-6)
    np.testing.assert_allclose(Dw.numpy().astype(np.float64), exact, rtol=2e-3)
    tape.backward(grads={Cw: wp.array(np.ones((4, 4)))})
    np.testing.assert_allclose(Aw.grad.numpy().astype(np.float64), 0.5 * np.ones((4, 4)) @ B.T, rtol=2e-3)
    np.testing.assert_allclose(Bw.grad.numpy(), 0.5 * A.astype(np.float64).T @ np.ones((4, 4)), rtol=1e-5)
    # C was overwritten by the store: its gradient is that of the values loaded before, beta * 1
    np.testing.assert_allclose(Cw.grad.numpy(), -1.3 * np.ones((4, 4)), rtol=1e-12)


@wp.kernel
def store_twice(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    t = wp.tile_load(x, shape=4)
    wp.tile_store(y, t * 5.0)  # overwritten by the next store: contributes nothing
    wp.tile_store(y, t * 3.0)
    wp.tile_atomic_add(y, t * 2.0)  # added to what the store left: both count


def test_an_overwritten_store_carries_no_gradient():
    x, y = wp.array(np.arange(4, dtype=np.float32), requires_grad=True), wp.zeros(4, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(store_twice, dim=1, inputs=[x, y], block_dim=32)
    np.testing.assert_allclose(y.numpy(), np.arange(4) * 5.0)
    tape.backward(grads={y: wp.ones(4, dtype=float)})
    np.testing.assert_allclose(x.grad.numpy(), np.full(4, 5.0))


@wp.kernel(enable_backward=False)
def bf16_gemm(A: wp.array2d(dtype=wp.bfloat16), B: wp.array2d(dtype=wp.bfloat16), C: wp.array2d(dtype=float)):
    acc = wp.tile_zeros(shape=(4, 4), dtype=float)
    for k in range(2):
        a = wp.tile_load(A, shape=(4, 4), offset=(0, k * 4))
        b = wp.tile_load(B, shape=(4, 4), offset=(k * 4, 0))
        wp.tile_matmul(a, b, acc)
    wp.tile_store(C, acc)


@wp.kernel
def to_bf16(x: wp.array2d(dtype=float), y: wp.array2d(dtype=wp.bfloat16), back: wp.array2d(dtype=float)):
    i, j = wp.tid()
    y[i, j] = wp.bfloat16(x[i, j])
    back[i, j] = float(y[i, j])


def test_bfloat16_gemm_into_float32():
    A, B = rng.random((4, 8)).astype(np.float32), rng.random((8, 4)).astype(np.float32)
    Ab, Bb = wp.zeros((4, 8), dtype=wp.bfloat16), wp.zeros((8, 4), dtype=wp.bfloat16)
    Aq, Bq = wp.zeros((4, 8), dtype=float), wp.zeros((8, 4), dtype=float)
    wp.launch(to_bf16, dim=(4, 8), inputs=[wp.array(A), Ab, Aq])
    wp.launch(to_bf16, dim=(8, 4), inputs=[wp.array(B), Bb, Bq])
    C = wp.zeros((4, 4), dtype=float)
    wp.launch_tiled(bf16_gemm, dim=1, inputs=[Ab, Bb, C], block_dim=32)
    np.testing.assert_allclose(C.numpy(), Aq.numpy() @ Bq.numpy(), rtol=1e-5)


@wp.kernel(enable_backward=False)
def axpy_broadcast(bias_in: wp.array(dtype=float), src_in: wp.array2d(dtype=float), out: wp.array2d(dtype=float),
                   plain: wp.array2d(dtype=float)):
    bias = wp.tile_load(bias_in, shape=4, storage="shared")
    dest = wp.tile_broadcast(bias, shape=(3, 4))
    src = wp.tile_load(src_in, shape=(3, 4))
    wp.tile_axpy(2.0, src, dest)
    wp.tile_store(out, dest)
    reg = wp.tile_broadcast(wp.tile_load(bias_in, shape=4), shape=(3, 4))  # a register tile: no sharing
    wp.tile_axpy(2.0, src, reg)
    wp.tile_store(plain, reg)


def test_tile_axpy_into_a_broadcast_shared_tile_accumulates_per_source_element():
    bias, src = rng.random(4).astype(np.float32), rng.random((3, 4)).astype(np.float32)
    out, plain = wp.zeros((3, 4), dtype=float), wp.zeros((3, 4), dtype=float)
    wp.launch_tiled(axpy_broadcast, dim=1, inputs=[wp.array(bias), wp.array(src), out, plain], block_dim=32)
    np.testing.assert_allclose(out.numpy(), np.broadcast_to(bias + 2.0 * src.sum(axis=0), (3, 4)), rtol=1e-6)
    np.testing.assert_allclose(plain.numpy(), bias + 2.0 * src, rtol=1e-6)


@wp.kernel
def static_len(a: wp.array2d(dtype=float), out: wp.array(dtype=int)):
    t = wp.tile_load(a, shape=(3, 5))
    out[0] = wp.static(len(t))


def test_static_len_of_a_tile_is_its_first_extent():
    out = wp.zeros(1, dtype=int)
    wp.launch_tiled(static_len, dim=1, inputs=[wp.zeros((3, 5), dtype=float), out], block_dim=32)
    assert out.numpy()[0] == 3


@wp.kernel
def block_sums(a: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    wp.tile_store(out, wp.tile_sum(wp.tile_load(a[i], shape=8)), offset=i)


def test_block_dim_does_not_change_the_compiled_kernel():
    """On the CPU a block is one lane unless wp.config.enable_cpu_blocks, so block_dim is not part
    of the generated code: launches with 64 and 128 threads per block share one binary and agree."""
    a = rng.random((2, 8)).astype(np.float32)
    outs = []
    for bd in (64, 128):
        out = wp.zeros(2, dtype=float)
        wp.launch_tiled(block_sums, dim=2, inputs=[wp.array(a), out], block_dim=bd)
        outs.append(out.numpy())
    np.testing.assert_allclose(outs[0], a.sum(axis=1), rtol=1e-6)
    np.testing.assert_array_equal(outs[0], outs[1])
    assert len(block_sums._compiled) == 1


@wp.kernel(module="unique")
def extract_at(out: wp.array(dtype=int), i: int, j: int):
    t = wp.tile_zeros(shape=(2, 2), dtype=int, storage="shared")
    r = wp.tile_ones(shape=3, dtype=int)
    out[0] = wp.tile_extract(t, i, j) + r[2] + r[-1]


@pytest.mark.parametrize("i, j, axis, index", [(0, 2, 1, 2), (-1, 0, 0, -1)])
def test_tile_index_out_of_bounds_is_an_index_error_and_the_process_goes_on(i, j, axis, index):
    # checked code (the notebook default): reported like an array index, after the launch; Warp aborts
    # the process instead. wp.tile_extract takes a negative index as outside; t[-1] counts from the end.
    previous = wp.get_module_options(extract_at.module).get("mode")
    wp.set_module_options({"mode": "checked"}, extract_at.module)
    try:
        out = wp.zeros(1, dtype=int)
        wp.launch(extract_at, dim=1, inputs=[out, 1, 1])
        assert out.numpy()[0] == 2
        with pytest.raises(IndexError, match=rf"index {index} is out of bounds for axis {axis} of a tile of shape "
                                             r"\(2, 2\) with size 2 .*in kernel `extract_at`"):
            wp.launch(extract_at, dim=1, inputs=[out, i, j])
        wp.launch(extract_at, dim=1, inputs=[out, 0, 1])  # the next launch runs normally
        assert out.numpy()[0] == 2
    finally:
        wp.set_module_options({"mode": previous}, extract_at.module)


@wp.kernel
def assign_mixed(src: wp.array2d(dtype=wp.float64), dst: wp.array2d(dtype=wp.float32)):
    row = wp.tile_load(src, shape=(1, 3))
    dest = wp.tile_zeros(shape=(2, 3), dtype=wp.float32)
    wp.tile_assign(dest, wp.tile_broadcast(row, shape=(2, 3)))  # float64 values into a float32 tile
    wp.tile_store(dst, dest)


def test_tile_assign_converts_to_the_destination_type():
    src_np = np.array([[1.1, 2.2, -3.3]])
    src, dst = wp.array(src_np, requires_grad=True), wp.zeros((2, 3), dtype=wp.float32, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(assign_mixed, dim=1, inputs=[src, dst], block_dim=32)
    np.testing.assert_array_equal(dst.numpy(), np.broadcast_to(src_np.astype(np.float32), (2, 3)))
    dst.grad = wp.array(np.arange(1, 7, dtype=np.float32).reshape(2, 3))
    tape.backward()
    np.testing.assert_allclose(src.grad.numpy(), [[5.0, 7.0, 9.0]])


@wp.kernel
def add_indexed(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    t = wp.tile_load(x, shape=(3, 4))
    rows = wp.tile_arange(3, dtype=int) * 2 - 1  # -1: outside y, skipped
    wp.tile_atomic_add_indexed(y, indices=rows, t=t, axis=0)
    wp.tile_atomic_add_indexed(y, rows, t * 10.0, offset=(0, 1), axis=0)


@wp.kernel(enable_backward=False)
def add_indexed_prev(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float), prev: wp.array2d(dtype=float)):
    rows = wp.tile_arange(3, dtype=int) * 2 - 1
    wp.tile_store(prev, wp.tile_atomic_add_indexed(y, rows, wp.tile_load(x, shape=(3, 4)), axis=0))


def test_tile_atomic_add_indexed_adds_at_the_indexed_rows():
    x = rng.random((3, 4)).astype(np.float32)
    y0 = rng.random((4, 5)).astype(np.float32)
    X, Y = wp.array(x, requires_grad=True), wp.array(y0, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(add_indexed, dim=1, inputs=[X, Y], block_dim=32)
    expected = y0.copy()
    expected[[1, 3], :4] += x[1:]
    expected[[1, 3], 1:5] += 10.0 * x[1:]
    np.testing.assert_allclose(Y.numpy(), expected, rtol=1e-6)
    tape.backward(grads={Y: wp.ones((4, 5), dtype=float)})
    np.testing.assert_allclose(X.grad.numpy(), np.r_[np.zeros((1, 4)), np.full((2, 4), 11.0)])
    prev = wp.full((3, 4), -1.0, dtype=float)
    wp.launch_tiled(add_indexed_prev, dim=1, inputs=[X, Y, prev], block_dim=32)
    np.testing.assert_allclose(prev.numpy()[1:], expected[[1, 3], :4], rtol=1e-6)  # the values before this add
    np.testing.assert_array_equal(prev.numpy()[0], 0.0)  # outside: no previous value


@wp.kernel
def extracts(a: wp.array3d(dtype=float), out: wp.array(dtype=float)):
    t = wp.tile_load(a, shape=(2, 3, 4))
    m = wp.tile_load(a[1], shape=(3, 4), storage="shared")
    out[0] = wp.tile_extract(t, 1, 2, 3) + wp.tile_extract(m, 0, 1) * 100.0 + m[-1, -1] * 1000.0


def test_tile_extract_reads_one_element():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    out = wp.zeros(1, dtype=float)
    wp.launch_tiled(extracts, dim=1, inputs=[wp.array(a), out], block_dim=32)
    assert out.numpy()[0] == a[1, 2, 3] + a[1, 0, 1] * 100.0 + a[1, -1, -1] * 1000.0


@pytest.mark.needs_nvrtc
def test_check_kernels_compile_for_sm90_with_nvrtc():
    compile_for_sm90([aranges, explicit_slices, mixed_matmul, bf16_gemm, axpy_broadcast, static_len, block_sums, assign_mixed,
               store_twice, add_indexed, add_indexed_prev, extracts])

@wp.kernel
def element_of_3d_and_4d(a: wp.array3d(dtype=float), b: wp.array4d(dtype=float), out: wp.array(dtype=float), k: int):
    t = wp.tile_load(a, shape=(2, 3, 4))
    u = wp.tile_load(b, shape=(2, 2, 3, 2))
    out[0] = t[1, 2, k]
    out[1] = t[-1, 0, -1]
    out[2] = u[1, 1, 2, k - 2]


@pytest.mark.parametrize("mode", ["checked", "release"])
def test_elements_of_3d_and_4d_tiles_in_checked_and_release_code(mode):
    """t[i, j, k] of a 3-D or 4-D tile compiles in checked code (the default) as in release code;
    an index outside the tile is an IndexError at its line in checked code."""
    from tests.support.helpers import launch_in_mode

    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    b = np.arange(24, dtype=np.float32).reshape(2, 2, 3, 2) + 100
    out = wp.zeros(3)
    launch_in_mode(element_of_3d_and_4d, mode, (1, 1), [wp.array(a), wp.array(b), out, 3])
    np.testing.assert_array_equal(out.numpy(), [a[1, 2, 3], a[-1, 0, -1], b[1, 1, 2, 1]])
    if mode == "checked":
        with pytest.raises(IndexError, match=r"index 4 is out of bounds for axis 2 of a tile of shape \(2, 3, 4\)"):
            launch_in_mode(element_of_3d_and_4d, mode, (1, 1), [wp.array(a), wp.array(b), out, 4])
