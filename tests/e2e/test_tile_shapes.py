"""Tiles end to end on the CPU, their shapes: 3-D and 4-D tiles, transposes, broadcasts, views,
reshapes, slices and index tiles, indexed loads and stores; each against numpy (gradients where they
flow), and every kernel compiled for sm_90 by NVRTC."""

import numpy as np
import pytest

import warp_nb as wp
from tests.support.nvrtc_sm90 import compile_for_sm90

TM, TN = 4, 8
rng = np.random.default_rng(8)


def rand(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


@wp.kernel
def blocks_nd(a: wp.array3d(dtype=float), b: wp.array4d(dtype=float), out: wp.array3d(dtype=float),
              out4: wp.array4d(dtype=float), picks: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=(2, 3, 4), offset=(i * 2, 0, 1))  # runs past a's last axis: zeros there
    wp.tile_store(out, t * 2.0 + 1.0, offset=(i * 2, 0, 0))
    u = wp.tile_load(b, shape=(1, 2, 2, 3))
    wp.tile_atomic_add(out4, u)
    picks[i] = t[1, 2, 3] + u[0, 1, -1, 2] + wp.tile_sum(t)[0]


def test_3d_and_4d_tiles():
    a, b = rand(4, 3, 4), rand(1, 2, 2, 3)
    out, out4, picks = wp.zeros((4, 3, 4), dtype=float), wp.array(np.ones((1, 2, 2, 3), np.float32)), wp.zeros(2, dtype=float)
    wp.launch_tiled(blocks_nd, dim=2, inputs=[wp.array(a), wp.array(b), out, out4, picks], block_dim=16)
    padded = np.concatenate([a[:, :, 1:], np.zeros((4, 3, 1), np.float32)], axis=2)
    np.testing.assert_allclose(out.numpy(), padded * 2 + 1, rtol=1e-6)
    np.testing.assert_allclose(out4.numpy(), 1 + 2 * b, rtol=1e-6)
    for i in range(2):
        blk = padded[i * 2:i * 2 + 2]
        np.testing.assert_allclose(picks.numpy()[i], blk[1, 2, 3] + b[0, 1, -1, 2] + blk.sum(), rtol=1e-5)


@wp.kernel
def nd_broadcast_and_sums(x: wp.array3d(dtype=float), r: wp.array(dtype=float), o: wp.array3d(dtype=float),
                          s0: wp.array2d(dtype=float), s2: wp.array2d(dtype=float)):
    t = wp.tile_load(x, shape=(2, 3, 4))
    wp.tile_store(o, t + wp.tile_broadcast(wp.tile_load(r, shape=4), shape=(2, 3, 4)))
    wp.tile_store(s0, wp.tile_sum(t, axis=0))
    wp.tile_store(s2, wp.tile_sum(t, axis=-1))


def test_3d_broadcast_and_sums_along_an_axis():
    x, r = rand(2, 3, 4), rand(4)
    X, o = wp.array(x, requires_grad=True), wp.zeros((2, 3, 4), dtype=float)
    s0, s2 = wp.zeros((3, 4), dtype=float, requires_grad=True), wp.zeros((2, 3), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(nd_broadcast_and_sums, dim=1, inputs=[X, wp.array(r), o, s0, s2], block_dim=8)
    np.testing.assert_allclose(o.numpy(), x + r, rtol=1e-6)
    np.testing.assert_allclose(s0.numpy(), x.sum(0), rtol=1e-5)
    np.testing.assert_allclose(s2.numpy(), x.sum(2), rtol=1e-5)
    s0.grad, s2.grad = wp.ones_like(s0), wp.array(np.full((2, 3), 2.0, np.float32))
    tape.backward()
    np.testing.assert_allclose(X.grad.numpy(), np.full_like(x, 3.0))


@wp.kernel
def shapes(a: wp.array2d(dtype=float), row: wp.array(dtype=float), col: wp.array2d(dtype=float),
           tr: wp.array2d(dtype=float), rows: wp.array2d(dtype=float), cols: wp.array2d(dtype=float),
           view_row: wp.array(dtype=float), block: wp.array2d(dtype=float), flat: wp.array(dtype=float),
           doubled: wp.array2d(dtype=wp.float64)):
    t = wp.tile_load(a, shape=(TM, TN))
    wp.tile_store(tr, wp.tile_transpose(t))
    r = wp.tile_load(row, shape=TN)
    wp.tile_store(rows, wp.tile_broadcast(r, shape=(TM, TN)) + t)
    c = wp.tile_load(col, shape=(TM, 1))
    wp.tile_store(cols, wp.tile_broadcast(c, shape=(TM, TN)) * t)
    wp.tile_store(view_row, wp.tile_view(t, offset=(2,)))
    wp.tile_store(block, wp.tile_view(t, offset=(1, 2), shape=(2, 3)))
    wp.tile_store(flat, wp.tile_reshape(t, shape=TM * TN))
    wp.tile_store(doubled, wp.tile_astype(t, dtype=wp.float64) * wp.float64(2.0))


def test_transpose_broadcast_view_reshape_astype():
    a, row, col = rand(TM, TN), rand(TN), rand(TM, 1)
    outs = {"tr": wp.zeros((TN, TM), dtype=float), "rows": wp.zeros((TM, TN), dtype=float),
                "cols": wp.zeros((TM, TN), dtype=float), "view_row": wp.zeros(TN, dtype=float),
                "block": wp.zeros((2, 3), dtype=float), "flat": wp.zeros(TM * TN, dtype=float),
                "doubled": wp.zeros((TM, TN), dtype=wp.float64)}
    wp.launch_tiled(shapes, dim=1, inputs=[wp.array(a), wp.array(row), wp.array(col), *outs.values()], block_dim=16)
    np.testing.assert_allclose(outs["tr"].numpy(), a.T)
    np.testing.assert_allclose(outs["rows"].numpy(), a + row[None, :], rtol=1e-6)
    np.testing.assert_allclose(outs["cols"].numpy(), a * col, rtol=1e-6)
    np.testing.assert_allclose(outs["view_row"].numpy(), a[2])
    np.testing.assert_allclose(outs["block"].numpy(), a[1:3, 2:5])
    np.testing.assert_allclose(outs["flat"].numpy(), a.reshape(-1))
    np.testing.assert_allclose(outs["doubled"].numpy(), a.astype(np.float64) * 2)


@wp.kernel
def slices(a: wp.array2d(dtype=float), row_of: wp.array(dtype=float), part: wp.array2d(dtype=float),
           assembled: wp.array2d(dtype=float), r: int):
    t = wp.tile_load(a, shape=(TM, TN))
    wp.tile_store(row_of, t[r])
    wp.tile_store(part, t[1:3, ::2])
    u = wp.tile_zeros(shape=(TM, TN), dtype=float)
    u[0:2, :] = t[2:4, :]
    u[3, 1] = 5.0
    wp.tile_assign(u, wp.tile_ones(shape=(1, 2), dtype=float), offset=(3, 6))
    wp.tile_store(assembled, u)


def test_slices_rows_and_slice_assignment():
    a = rand(TM, TN)
    row_of, part, assembled = wp.zeros(TN, dtype=float), wp.zeros((2, 4), dtype=float), wp.zeros((TM, TN), dtype=float)
    wp.launch_tiled(slices, dim=1, inputs=[wp.array(a), row_of, part, assembled, -2], block_dim=16)
    expected = np.zeros((TM, TN), np.float32)
    expected[0:2] = a[2:4]
    expected[3, 1] = 5
    expected[3, 6:8] = 1
    np.testing.assert_allclose(row_of.numpy(), a[-2])
    np.testing.assert_allclose(part.numpy(), a[1:3, ::2])
    np.testing.assert_allclose(assembled.numpy(), expected)


@wp.kernel
def take_rows(src: wp.array2d(dtype=float), idx: wp.array(dtype=int), rows: wp.array2d(dtype=float),
              cols: wp.array2d(dtype=float)):
    t = wp.tile_load(src, shape=(TM, TN))
    i = wp.tile_load(idx, shape=3)
    wp.tile_store(rows, t[i, :])
    wp.tile_store(cols, t[:, i])


def test_index_tiles_pick_rows_and_columns_with_gradients():
    src, idx = rand(TM, TN), np.array([-1, 0, 0], np.int32)  # a negative index and a repeat
    S = wp.array(src, requires_grad=True)
    rows, cols = wp.zeros((3, TN), dtype=float, requires_grad=True), wp.zeros((TM, 3), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(take_rows, dim=1, inputs=[S, wp.array(idx), rows, cols], block_dim=16)
    np.testing.assert_allclose(rows.numpy(), src[idx])
    np.testing.assert_allclose(cols.numpy(), src[:, idx])
    rows.grad, cols.grad = wp.ones_like(rows), wp.ones_like(cols)
    tape.backward()
    expected = np.zeros_like(src)
    np.add.at(expected, idx, 1.0)
    np.add.at(expected.T, idx, 1.0)
    np.testing.assert_allclose(S.grad.numpy(), expected)


@wp.kernel
def indexed_memory(x: wp.array2d(dtype=float), y: wp.array2d(dtype=float), z: wp.array2d(dtype=float)):
    evens = wp.tile_arange(2, dtype=int) * 2
    t = wp.tile_load_indexed(x, indices=evens, shape=(2, 4), offset=(0, 0), axis=0)
    wp.tile_store(y, t)
    cols = wp.tile_arange(4, dtype=int) * 2 - 1  # -1: outside the array, skipped
    wp.tile_store_indexed(z, indices=cols, t=t, offset=(1, 0), axis=1)


def test_indexed_loads_and_stores():
    x = rand(4, 8)
    X, y, z = wp.array(x, requires_grad=True), wp.zeros((2, 4), dtype=float, requires_grad=True), wp.zeros((3, 8), dtype=float)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(indexed_memory, dim=1, inputs=[X, y, z], block_dim=8)
    np.testing.assert_array_equal(y.numpy(), x[[0, 2], :4])
    expected = np.zeros((3, 8), np.float32)
    expected[1:3, [1, 3, 5]] = x[[0, 2], 1:4]
    np.testing.assert_array_equal(z.numpy(), expected)
    y.grad = wp.ones_like(y)
    tape.backward()
    grad = np.zeros_like(x)
    grad[[0, 2], :4] = 1
    np.testing.assert_array_equal(X.grad.numpy(), grad)


@pytest.mark.needs_nvrtc
def test_shape_kernels_compile_for_sm90_with_nvrtc():
    compile_for_sm90([blocks_nd, nd_broadcast_and_sums, shapes, slices, take_rows, indexed_memory])
