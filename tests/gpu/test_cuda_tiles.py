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
