"""Tile kernels on cuda:0, compared with numpy: the same kinds of kernels tests/e2e/test_tile*.py run
on the CPU (and compile for sm_90 with NVRTC there). A CUDA block of a tiled launch has block_dim
threads (lanes); each holds the whole tile and they exchange values in shared memory
(native/tiles/block.h; docs/architecture.md, Tiles). These check results, not speed."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_gpu
DEVICE = "cuda:0"
T = 16
L = 64


@wp.kernel
def tiled_matmul(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
    i, j = wp.tid()
    acc = wp.tile_zeros(shape=(T, T), dtype=float)
    for k in range(a.shape[1] // T):
        ta = wp.tile_load(a, shape=(T, T), offset=(i * T, k * T))
        tb = wp.tile_load(b, shape=(T, T), offset=(k * T, j * T))
        wp.tile_matmul(ta, tb, acc)
    wp.tile_store(c, acc, offset=(i * T, j * T))


@wp.kernel
def block_sum(x: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(x, shape=L, offset=i * L)
    wp.tile_atomic_add(total, wp.tile_sum(t))


@wp.kernel
def rows_fft(x: wp.array2d(dtype=wp.vec2d), y: wp.array2d(dtype=wp.vec2d)):
    i = wp.tid()
    t = wp.tile_load(x, shape=(1, L), offset=(i, 0))
    wp.tile_fft(t)
    wp.tile_store(y, t, offset=(i, 0))


def test_tiled_matmul_matches_numpy():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((64, 48)).astype(np.float32), rng.standard_normal((48, 32)).astype(np.float32)
    c = wp.zeros((64, 32), dtype=float, device=DEVICE)
    wp.launch_tiled(tiled_matmul, dim=(64 // T, 32 // T), inputs=[wp.array(a, device=DEVICE), wp.array(b, device=DEVICE), c],
                    block_dim=64, device=DEVICE)
    np.testing.assert_allclose(c.numpy(), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_block_sums_and_atomics_match_numpy():
    x = np.random.default_rng(2).standard_normal(L * 40).astype(np.float32)
    total = wp.zeros(1, dtype=float, device=DEVICE)
    wp.launch_tiled(block_sum, dim=40, inputs=[wp.array(x, device=DEVICE), total], block_dim=64, device=DEVICE)
    assert np.isclose(total.numpy()[0], x.astype(np.float64).sum(), rtol=1e-4, atol=1e-3)


def test_fft_rows_match_numpy():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, L)) + 1j * rng.standard_normal((8, L))
    y = wp.zeros((8, L), dtype=wp.vec2d, device=DEVICE)
    wp.launch_tiled(rows_fft, dim=8, inputs=[wp.array(x.view(np.float64).reshape(8, L, 2), dtype=wp.vec2d, device=DEVICE), y],
                    block_dim=64, device=DEVICE)
    np.testing.assert_allclose(y.numpy().view(np.complex128).reshape(8, L), np.fft.fft(x, axis=-1), atol=1e-10)


@wp.kernel
def lanes_kernel(x: wp.array(dtype=float), total: wp.array(dtype=float), doubled: wp.array(dtype=float),
                 bits: wp.array(dtype=wp.uint32)):
    i, lane = wp.tid()
    t = wp.tile(x[i * wp.block_dim() + lane])
    wp.tile_store(total, wp.tile_sum(t), offset=i)
    doubled[i * wp.block_dim() + lane] = wp.untile(t * 2.0)
    word = wp.tile_zeros(shape=1, dtype=wp.uint32)
    word[0] |= wp.uint32(1) << wp.uint32(lane % 32)
    wp.tile_store(bits, word, offset=i)


def test_lanes_cooperate_in_a_cuda_block():
    """wp.tile(x) gathers block_dim threads' values, untile hands each its own, and per-lane writes
    into one tile element combine: the block's threads really cooperate."""
    x = np.random.default_rng(4).random(6 * 32).astype(np.float32)
    total, doubled = wp.zeros(6, dtype=float, device=DEVICE), wp.zeros(6 * 32, dtype=float, device=DEVICE)
    bits = wp.zeros(6, dtype=wp.uint32, device=DEVICE)
    wp.launch_tiled(lanes_kernel, dim=6, inputs=[wp.array(x, device=DEVICE), total, doubled, bits], block_dim=32,
                    device=DEVICE)
    np.testing.assert_allclose(total.numpy(), x.reshape(6, 32).sum(1), rtol=1e-5)
    np.testing.assert_allclose(doubled.numpy(), 2 * x)
    assert bits.numpy().tolist() == [2 ** 32 - 1] * 6


# --- split tiles: a block's threads share its uniform tiles in shared memory and split the
# statements that write them (native/tiles/tile_coop.h); the same kernels run split on the CPU in
# tests/e2e/test_tile_split.py

from tests.e2e.test_tile_split import (N as SPLIT_N, T as SPLIT_T, big_tiles, elementwise_chain, matmul_split,  # noqa: E402
                                       overwritten_tile)


@pytest.mark.parametrize("lanes", (32, 64, 100, 256))
def test_split_matmul_with_partial_tiles(lanes):
    rng = np.random.default_rng(5)
    A, B = rng.standard_normal((40, 36)).astype(np.float32), rng.standard_normal((36, 33)).astype(np.float32)
    c, d = wp.zeros((40, 33), device=DEVICE), wp.zeros((40, 33), device=DEVICE)
    grid = ((40 + SPLIT_T - 1) // SPLIT_T, (33 + SPLIT_T - 1) // SPLIT_T)
    wp.launch_tiled(matmul_split, dim=grid, inputs=[wp.array(A, device=DEVICE), wp.array(B, device=DEVICE), c, d],
                    block_dim=lanes, device=DEVICE)
    np.testing.assert_allclose(c.numpy(), A.astype(np.float64) @ B, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("lanes", (32, 100))
def test_split_elementwise_and_overwritten_tiles(lanes):
    blocks, steps = 3, 5
    rng = np.random.default_rng(6)
    x, y = rng.standard_normal(blocks * SPLIT_N).astype(np.float32), rng.standard_normal(blocks * SPLIT_N).astype(np.float32)
    out, seen = wp.zeros(blocks * SPLIT_N, device=DEVICE), wp.zeros((blocks, lanes), device=DEVICE)
    mapped = wp.zeros(blocks * SPLIT_N, device=DEVICE)
    wp.launch_tiled(elementwise_chain, dim=blocks,
                    inputs=[wp.array(x, device=DEVICE), wp.array(y, device=DEVICE), out, seen, mapped],
                    block_dim=lanes, device=DEVICE)
    xs = np.concatenate([x, np.zeros(SPLIT_N, np.float32)])
    a = np.stack([xs[i * SPLIT_N + 3:i * SPLIT_N + 3 + SPLIT_N] for i in range(blocks)])
    b = y.reshape(blocks, SPLIT_N)
    want = -(a * 2.0 + b) / 4.0 - 1.5 + b
    np.testing.assert_allclose(out.numpy().reshape(blocks, SPLIT_N), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(seen.numpy(), want[:, np.arange(lanes) % SPLIT_N], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mapped.numpy().reshape(blocks, SPLIT_N), np.sin(want) + (a + b) * 0.5, rtol=1e-5, atol=1e-6)
    arr = (np.arange(steps * SPLIT_N, dtype=np.float32) + 1.0) / 8.0
    seen2, total = wp.full((2 * steps, lanes), -1.0, device=DEVICE), wp.zeros(2 * SPLIT_N, device=DEVICE)
    wp.launch_tiled(overwritten_tile, dim=2, inputs=[wp.array(arr, device=DEVICE), seen2, total, steps], block_dim=lanes,
                    device=DEVICE)
    acc, before = np.zeros(SPLIT_N), []
    for k in range(steps):
        before.append(acc.copy())
        acc = acc * 0.5 + arr[k * SPLIT_N:(k + 1) * SPLIT_N]
    np.testing.assert_allclose(seen2.numpy().reshape(2, steps, lanes)[0], np.stack(before)[:, (np.arange(lanes) * 7) % SPLIT_N],
                               rtol=1e-6)
    np.testing.assert_allclose(total.numpy().reshape(2, SPLIT_N)[1], acc, rtol=1e-6)


def test_a_frame_past_the_static_budget_is_in_dynamic_shared_memory():
    """64 x 64 tiles: a frame of several 16 KiB tiles, past the static budget (16 KiB), launched with
    that much dynamic shared memory (an H100 or H200 lets a block have 227 KiB)."""
    rng = np.random.default_rng(7)
    A, B = rng.standard_normal((128, 128)).astype(np.float32), rng.standard_normal((128, 128)).astype(np.float32)
    c = wp.zeros((128, 128), device=DEVICE)
    wp.launch_tiled(big_tiles, dim=(2, 2), inputs=[wp.array(A, device=DEVICE), wp.array(B, device=DEVICE), c], block_dim=64,
                    device=DEVICE)
    np.testing.assert_allclose(c.numpy(), A.astype(np.float64) @ B, rtol=1e-4, atol=1e-3)
    loaded = big_tiles.compiled(DEVICE, block_dim=64).loaded
    assert loaded.frame_bytes > 16384 and loaded.frame_shared_bytes == loaded.frame_bytes


@wp.kernel
def huge_tiles(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
    i, j = wp.tid()  # 144 x 144 float tiles, 81 KiB each: a frame past a block's shared memory
    acc = wp.tile_zeros(shape=(144, 144), dtype=float)
    wp.tile_matmul(wp.tile_load(a, shape=(144, 144), offset=(i * 144, 0)),
                   wp.tile_load(b, shape=(144, 144), offset=(0, j * 144)), acc)
    wp.tile_store(c, acc, offset=(i * 144, j * 144))


def test_a_frame_past_the_devices_shared_memory_is_refused_before_the_launch():
    a, c = wp.ones((144, 144), device=DEVICE), wp.zeros((144, 144), device=DEVICE)
    with pytest.raises(RuntimeError, match="more shared memory than cuda:0 gives a block"):
        wp.launch_tiled(huge_tiles, dim=(1, 1), inputs=[a, a, c], block_dim=64, device=DEVICE)
    wp.synchronize_device(DEVICE)  # (the device is still usable: nothing ran)
    assert not c.numpy().any()


# split reductions and scans: each thread its share, the partials combined in thread order
# (the same kernels run split on the CPU's fibers in tests/e2e/test_tile_split_reduce.py)

from tests.e2e.test_tile_split_reduce import N as RED_N, _inputs as red_inputs, reductions, scans  # noqa: E402


@pytest.mark.parametrize("lanes", (32, 100))
def test_split_reductions_and_scans_on_the_gpu(lanes):
    x, k = red_inputs()
    blocks = len(x) // RED_N
    out, index = wp.zeros((blocks, 4), device=DEVICE), wp.zeros((blocks, 3), dtype=int, device=DEVICE)
    ints = wp.zeros((blocks, 3), dtype=wp.int64, device=DEVICE)
    xs, ks = wp.array(x, device=DEVICE), wp.array(k, device=DEVICE)
    wp.launch_tiled(reductions, dim=blocks, inputs=[xs, ks, out, index, ints], block_dim=lanes, device=DEVICE)
    s_out, s_ints = wp.zeros((blocks, 4, RED_N), device=DEVICE), wp.zeros((blocks, 3, RED_N), dtype=wp.int64, device=DEVICE)
    wp.launch_tiled(scans, dim=blocks, inputs=[xs, ks, s_out, s_ints], block_dim=lanes, device=DEVICE)
    out, index, ints, s_out, s_ints = out.numpy(), index.numpy(), ints.numpy(), s_out.numpy(), s_ints.numpy()
    for b in range(2, blocks):  # (blocks 0 and 1 hold NaNs: the CPU test checks them)
        v, w = x[b * RED_N:(b + 1) * RED_N], k[b * RED_N:(b + 1) * RED_N]
        assert index[b, :2].tolist() == [int(np.argmin(v)), int(np.argmax(v))]
        assert out[b, 1:3].tolist() == [v.min(), v.max()]
        np.testing.assert_allclose(out[b, [0, 3]], [v.astype(np.float64).sum(), (v.astype(np.float64) ** 2).sum()],
                                   rtol=1e-5, atol=1e-4)
        assert ints[b].tolist() == [int(w.sum()), int(w.min()), int(w.max())]
        np.testing.assert_allclose(s_out[b, 0], np.cumsum(v.astype(np.float64)), rtol=1e-5, atol=1e-4)
        assert s_out[b, 2].tolist() == np.maximum.accumulate(v).tolist()
        assert s_ints[b, 0].tolist() == np.cumsum(w).tolist()
    assert not index[:, 2].any()
