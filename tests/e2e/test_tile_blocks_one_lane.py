"""CPU blocks whose lanes all compute the same run one lane per block (compiler/lanes.py
lanes_agree, launch_t::one_lane): a tiled matmul in blocks of 64 lanes computes its tiles once per
block, not 64 times. What makes lanes differ keeps every lane running: reading the lane
coordinate, wp.tile / wp.untile, atomics and prints, which each lane repeats. Results against numpy
and against the same kernels in one-lane blocks."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.compiler.lanes import lanes_agree

pytestmark = pytest.mark.needs_cxx

T = 8


@pytest.fixture
def cpu_blocks(monkeypatch):
    monkeypatch.setattr(wp.config, "enable_cpu_blocks", True)


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
def counts_lanes(hits: wp.array(dtype=int), sums: wp.array(dtype=float), x: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(x, shape=T, offset=i * T)
    wp.atomic_add(hits, i, 1)  # every lane adds: the count is the block's lane count
    wp.tile_store(sums, wp.tile_sum(t), offset=i)


@wp.kernel
def reads_its_lane(out: wp.array2d(dtype=int)):
    i, lane = wp.tid()
    t = wp.tile_ones(shape=4, dtype=int)
    out[i, lane] = wp.tile_sum(t)[0] * 100 + lane


def _typed(kernel, lanes: int):
    launcher = next(L for L in kernel.launchers.values() if L.block_dim == lanes)
    return launcher.compiled.typed


def test_a_tiled_matmul_in_64_lane_blocks_runs_one_lane_and_matches_numpy(cpu_blocks):
    rng = np.random.default_rng(3)
    n = 32
    A, B = rng.standard_normal((n, n)).astype(np.float32), rng.standard_normal((n, n)).astype(np.float32)
    for lanes in (1, 64):
        c = wp.zeros((n, n))
        wp.launch_tiled(tiled_matmul, dim=(n // T, n // T), inputs=[wp.array(A), wp.array(B), c], block_dim=lanes)
        np.testing.assert_allclose(c.numpy(), A @ B, rtol=1e-5, atol=1e-4)
    assert lanes_agree(_typed(tiled_matmul, 64))


def test_atomics_keep_every_lane_running(cpu_blocks):
    x = np.arange(3 * T, dtype=np.float32)
    hits, sums = wp.zeros(3, dtype=int), wp.zeros(3)
    wp.launch_tiled(counts_lanes, dim=3, inputs=[hits, sums, wp.array(x)], block_dim=16)
    np.testing.assert_array_equal(hits.numpy(), [16, 16, 16])
    np.testing.assert_allclose(sums.numpy(), x.reshape(3, T).sum(axis=1))
    assert not lanes_agree(_typed(counts_lanes, 16))


def test_a_kernel_reading_its_lane_runs_every_lane(cpu_blocks):
    out = wp.full((2, 16), -1, dtype=int)
    wp.launch_tiled(reads_its_lane, dim=2, inputs=[out], block_dim=16)
    np.testing.assert_array_equal(out.numpy(), 400 + np.tile(np.arange(16), (2, 1)))
    assert lanes_agree(_typed(reads_its_lane, 16))  # its code agrees: the launch's lane axis is what differs
