"""Geometry on a GPU (written after the first H200 runs, where a volume's host address handed to a
CUDA kernel broke the context): a hash grid built for cuda:0 answers neighbour queries in a CUDA
kernel as a CPU grid does; a volume on cuda:0 is refused when it is made, and the device stays
usable; strided copies on the device equal numpy's."""

import numpy as np
import pytest

import warp_nb as wp
from tests.support.hash_grid_kernels import count_neighbours

pytestmark = pytest.mark.needs_gpu
DEVICE = "cuda:0"


def _counts(device, pts, radius):
    points = wp.array(pts, dtype=wp.vec3, device=device)
    grid = wp.HashGrid(16, 16, 16, device=device)
    grid.build(points, radius)
    counts = wp.zeros(len(pts), dtype=int, device=device)
    candidates = wp.zeros(len(pts), dtype=int, device=device)
    wp.launch(count_neighbours, dim=len(pts), inputs=[grid.id, points, radius, counts, candidates], device=device)
    return counts.numpy()


def test_hash_grid_queries_on_the_gpu_match_the_cpu():
    pts = np.random.default_rng(0).random((5000, 3)).astype(np.float32)
    gpu, cpu = _counts(DEVICE, pts, 0.05), _counts("cpu", pts, 0.05)
    assert gpu.min() >= 1 and (gpu == cpu).all()


def test_a_volume_on_the_gpu_is_refused_and_the_device_stays_usable():
    with pytest.raises(ValueError, match="host memory only"):
        wp.Volume.load_from_numpy(np.ones((8, 8, 8), np.float32), device=DEVICE)
    a = wp.zeros(4, device=DEVICE)
    wp.synchronize()
    assert a.numpy().tolist() == [0, 0, 0, 0]


def test_strided_copies_on_the_gpu():
    grid = np.arange(20, dtype=np.float32).reshape(4, 5)
    a = wp.array(grid, device=DEVICE)
    b = wp.zeros((4, 2), dtype=float, device=DEVICE)
    wp.copy(b, a[:, 1:3])
    assert b.numpy().tolist() == grid[:, 1:3].tolist()
    host = wp.zeros(10, dtype=float, device="cpu")
    wp.copy(host, wp.array(np.arange(20, dtype=np.float32), device=DEVICE)[::2])
    assert host.numpy().tolist() == list(range(0, 20, 2))
