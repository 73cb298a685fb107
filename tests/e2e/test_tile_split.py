"""Split tile statements (native/tiles/tile_coop.h, emit/block_frame.py): where the lanes of a block
share their block-uniform tiles, CUDA's lanes split the statements that write them (loads, stores,
fills, elementwise arithmetic, tile_matmul, tile moves), each lane its share of the elements between
two barriers. wp.config.cpu_split_tiles runs that same code on the CPU's fibers, so these tests run
CUDA's split code for real: against numpy in blocks of 1, 8, 64 and 100 lanes (100: not a multiple
of the tile sizes), bit for bit against the unsplit code, and with the barrier after a split
statement removed (the results must then be wrong, so the barrier is what makes them right)."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.compiler.emit import block_frame

from tests.support.nvrtc_sm90 import compile_for_sm90

pytestmark = pytest.mark.needs_cxx

T = 16
N = 24
LANES = (1, 8, 64, 100)


@pytest.fixture
def split(monkeypatch):
    monkeypatch.setattr(wp.config, "enable_cpu_blocks", True)
    monkeypatch.setattr(wp.config, "cpu_split_tiles", True)


@wp.kernel
def matmul_split(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float),
                 d: wp.array2d(dtype=float)):
    i, j, lane = wp.tid()  # (reading its lane: every lane runs, none computes for the others)
    acc = wp.tile_zeros(shape=(T, T), dtype=float)
    for k in range((a.shape[1] + T - 1) // T):  # partial tiles at the edges: loads read 0 outside
        ta = wp.tile_load(a, shape=(T, T), offset=(i * T, k * T))
        tb = wp.tile_load(b, shape=(T, T), offset=(k * T, j * T))
        wp.tile_matmul(ta, tb, acc)
    p = wp.tile_matmul(wp.tile_load(a, shape=(T, T), offset=(i * T, 0)), wp.tile_load(b, shape=(T, T), offset=(0, j * T)))
    wp.tile_store(c, acc, offset=(i * T, j * T))  # stores outside the array are dropped
    wp.tile_matmul(p, wp.tile_ones(shape=(T, T), dtype=float), p, alpha=0.5, beta=2.0)
    wp.tile_store(d, p, offset=(i * T, j * T))


@wp.func
def halved_sum(u: float, v: float):
    return (u + v) * 0.5


@wp.kernel
def elementwise_chain(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float),
                      lanes_seen: wp.array2d(dtype=float), mapped: wp.array(dtype=float)):
    i, lane = wp.tid()
    a = wp.tile_load(x, shape=N, offset=i * N + 3)  # an offset, and a partial tile at the end
    b = wp.tile_load(y, shape=N, offset=i * N)
    c = -(a * 2.0 + b) / 4.0 - wp.tile_full(shape=N, value=1.5, dtype=float) + wp.tile_ones(shape=N, dtype=float) * b
    lanes_seen[i, lane] = c[lane % N]  # every lane reads elements other lanes wrote
    wp.tile_store(out, c, offset=i * N)
    m = wp.tile_map(wp.sin, c) + wp.tile_map(halved_sum, a, b)
    wp.tile_store(mapped, m, offset=i * N)


@wp.kernel
def overwritten_tile(a: wp.array(dtype=float), seen: wp.array2d(dtype=float), total: wp.array(dtype=float), steps: int):
    i, lane = wp.tid()
    acc = wp.tile_zeros(shape=N, dtype=float)
    for k in range(steps):
        seen[i * steps + k, lane] = acc[(lane * 7) % N]  # every lane reads the shared tile ...
        acc = acc * 0.5 + wp.tile_load(a, shape=N, offset=k * N)  # ... before the lanes replace it
    wp.tile_store(total, acc, offset=i * N)


@wp.kernel
def without_barrier_after(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
    i, j, lane = wp.tid()
    ta = wp.tile_load(a, shape=(T, T), offset=(i * T, 0))
    tb = wp.tile_load(b, shape=(T, T), offset=(0, j * T))
    wp.tile_store(c, wp.tile_matmul(ta, tb), offset=(i * T, j * T))


@wp.kernel
def big_tiles(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
    i, j, lane = wp.tid()  # 64 x 64 tiles: on CUDA a frame past the shared-memory budget (per thread there)
    acc = wp.tile_zeros(shape=(64, 64), dtype=float)
    for k in range(a.shape[1] // 64):
        wp.tile_matmul(wp.tile_load(a, shape=(64, 64), offset=(i * 64, k * 64)),
                       wp.tile_load(b, shape=(64, 64), offset=(k * 64, j * 64)), acc)
    wp.tile_store(c, acc, offset=(i * 64, j * 64))


def _matmul_inputs(m=40, k=36, n=33):
    rng = np.random.default_rng(1)
    return rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)


def _run_matmul(A, B, lanes):
    m, n = A.shape[0], B.shape[1]
    c, d = wp.zeros((m, n)), wp.zeros((m, n))
    grid = ((m + T - 1) // T, (n + T - 1) // T)
    wp.launch_tiled(matmul_split, dim=grid, inputs=[wp.array(A), wp.array(B), c, d], block_dim=lanes)
    return c.numpy(), d.numpy()


@pytest.mark.parametrize("lanes", LANES)
def test_a_split_matmul_with_partial_tiles_matches_numpy(split, lanes):
    A, B = _matmul_inputs()
    c, d = _run_matmul(A, B, lanes)
    np.testing.assert_allclose(c, A.astype(np.float64) @ B, rtol=1e-5, atol=1e-4)
    # p = the first K-tile's product, then p = 0.5 * p @ ones + 2 p (tile by tile, zeros outside)
    m, n = A.shape[0], B.shape[1]
    Ap = np.zeros((48, T)); Ap[:m, :T] = A[:, :T]
    Bp = np.zeros((T, 48)); Bp[:T, :n] = B[:T, :]
    P = Ap @ Bp
    want = np.zeros_like(P)
    for bi in range(3):
        for bj in range(3):
            blk = P[bi * T:(bi + 1) * T, bj * T:(bj + 1) * T]
            want[bi * T:(bi + 1) * T, bj * T:(bj + 1) * T] = 0.5 * blk @ np.ones((T, T)) + 2.0 * blk
    np.testing.assert_allclose(d, want[:m, :n], rtol=1e-5, atol=1e-3)


def _run_chain(lanes, blocks=3):
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(blocks * N).astype(np.float32), rng.standard_normal(blocks * N).astype(np.float32)
    out, seen, mapped = wp.zeros(blocks * N), wp.zeros((blocks, lanes)), wp.zeros(blocks * N)
    wp.launch_tiled(elementwise_chain, dim=blocks, inputs=[wp.array(x), wp.array(y), out, seen, mapped], block_dim=lanes)
    a = (np.arange(5 * N, dtype=np.float32) + 1.0) / 8.0
    seen2, total = wp.full((2 * 5, lanes), -1.0), wp.zeros(2 * N)
    wp.launch_tiled(overwritten_tile, dim=2, inputs=[wp.array(a), seen2, total, 5], block_dim=lanes)
    return out.numpy(), seen.numpy(), mapped.numpy(), seen2.numpy(), total.numpy()


@pytest.mark.parametrize("lanes", (8, 100))
def test_split_and_unsplit_give_the_same_bits(split, monkeypatch, lanes):
    # (libm's vector versions, which the whole-tile loops call, differ from the scalar calls of
    # the split form's strided loops in the last bits: the same bits need the scalar calls)
    monkeypatch.setattr(wp.config, "cpu_vector_math", False)
    A, B = _matmul_inputs()
    got = _run_matmul(A, B, lanes) + _run_chain(lanes)
    monkeypatch.setattr(wp.config, "cpu_split_tiles", False)
    want = _run_matmul(A, B, lanes) + _run_chain(lanes)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("lanes", LANES)
def test_a_split_elementwise_chain_with_offsets_matches_numpy(split, lanes):
    blocks = 3
    rng = np.random.default_rng(2)
    x = rng.standard_normal(blocks * N).astype(np.float32)
    y = rng.standard_normal(blocks * N).astype(np.float32)
    out, seen, mapped = wp.zeros(blocks * N), wp.zeros((blocks, lanes)), wp.zeros(blocks * N)
    wp.launch_tiled(elementwise_chain, dim=blocks, inputs=[wp.array(x), wp.array(y), out, seen, mapped], block_dim=lanes)
    xs = np.concatenate([x, np.zeros(N, np.float32)])
    a = np.stack([xs[i * N + 3:i * N + 3 + N] for i in range(blocks)])
    b = y.reshape(blocks, N)
    c = -(a * 2.0 + b) / 4.0 - 1.5 + b
    np.testing.assert_allclose(out.numpy().reshape(blocks, N), c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(seen.numpy(), c[:, np.arange(lanes) % N], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mapped.numpy().reshape(blocks, N), np.sin(c) + (a + b) * 0.5, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("lanes", LANES)
def test_a_split_tile_replaced_after_every_lane_read_it(split, lanes):
    blocks, steps = 2, 5
    a = (np.arange(steps * N, dtype=np.float32) + 1.0) / 8.0
    seen, total = wp.full((blocks * steps, lanes), -1.0), wp.zeros(blocks * N)
    wp.launch_tiled(overwritten_tile, dim=blocks, inputs=[wp.array(a), seen, total, steps], block_dim=lanes)
    acc, before = np.zeros(N), []
    for k in range(steps):
        before.append(acc.copy())
        acc = acc * 0.5 + a[k * N:(k + 1) * N]
    want = np.stack(before)[:, (np.arange(lanes) * 7) % N]
    np.testing.assert_allclose(seen.numpy().reshape(blocks, steps, lanes), np.stack([want] * blocks), rtol=1e-6)
    np.testing.assert_allclose(total.numpy().reshape(blocks, N), np.stack([acc] * blocks), rtol=1e-6)


def test_the_barrier_after_a_split_statement_is_what_makes_it_right(split, monkeypatch):
    """Without the barrier after a split load, lane 0 goes on to its share of the product before the
    other lanes (later fibers of the round) have loaded theirs: the product reads zeros."""
    original = block_frame.BlockFrameWriter.split_statement

    def no_barrier_after(self, depth, text, own, loc=None):
        original(self, depth, text, own, loc)
        assert self.lines[-1].strip() == "wpnb::block_sync();"
        self.lines.pop()

    monkeypatch.setattr(block_frame.BlockFrameWriter, "split_statement", no_barrier_after)
    A, B = _matmul_inputs(32, T, 32)
    c = wp.zeros((32, 32))
    wp.launch_tiled(without_barrier_after, dim=(2, 2), inputs=[wp.array(A), wp.array(B), c], block_dim=64)
    assert not np.allclose(c.numpy(), A @ B, rtol=1e-4, atol=1e-3)


def test_big_split_tiles_match_numpy(split):
    A, B = _matmul_inputs(64, 128, 64)
    c = wp.zeros((64, 64))
    wp.launch_tiled(big_tiles, dim=(1, 1), inputs=[wp.array(A), wp.array(B), c], block_dim=8)
    np.testing.assert_allclose(c.numpy(), A.astype(np.float64) @ B, rtol=1e-4, atol=1e-3)


def test_the_split_kernels_compile_for_sm90(split):
    kernels = [matmul_split, elementwise_chain, overwritten_tile, big_tiles]
    for k in kernels:
        assert any(o.block_dim > 1 for o, _ in k.compiled_options("cpu")), "run the CPU tests of this file first"
    compile_for_sm90(kernels)


def _sm90_ptx(kernel) -> list:
    from warp_nb.compiler.pipeline import compile_kernel
    from warp_nb.cuda.target import AotCudaTarget
    from warp_nb.toolchain import nvrtc

    try:
        nvrtc.nvrtc_version()
    except nvrtc.NVRTCUnavailableError as e:
        pytest.skip(f"NVRTC unavailable: {e}")
    target = AotCudaTarget(90, use_ptx=True)
    return [compile_kernel(kernel, sig, target, options).loaded.read_text()
            for options, sig in kernel.compiled_options("cpu") if options.block_dim > 1]


def test_the_cuda_frame_is_in_shared_memory_when_it_fits(split):
    """The PTX of a block of 16 x 16 tiles declares the frame in static shared memory (16 KiB at
    most, WPNB_SHARED_FRAME_BYTES); that of 64 x 64 tiles takes it from the launch's dynamic shared
    memory when there is room for it there (%dynamic_smem_size). Both say the frame's size in a
    global that cuda/target.py reads to launch with it (tests/e2e/test_cuda_fake_tiles.py)."""
    import re
    small, big = _sm90_ptx(matmul_split), _sm90_ptx(big_tiles)
    assert small and big, "run the CPU tests of this file first"
    frame = re.compile(r"\.shared \.align \d+ \.b8 \S*shared_frame_bytes\S*\[(\d+)\]")
    dynamic = re.compile(r"\.extern \.shared \.align 64 \.b8 \S*wpnb_dynamic_frame\S*\[\]")
    size = re.compile(r"\.global \.align 8 \.u64 k_\w+_frame_bytes = (\d+);")
    for ptx in small:
        sizes = [int(n) for n in frame.findall(ptx)]
        assert sizes and all(0 < n <= 16384 for n in sizes) and [int(n) for n in size.findall(ptx)] == sizes
        total = sum(int(n) for n in re.findall(r"\.shared \.align \d+ \.b8 \S+\[(\d+)\]", ptx))
        assert total <= 48 * 1024 - 4096  # (room for a failed check's slot, arrays/array.h)
        assert not dynamic.search(ptx)
    for ptx in big:
        assert not frame.search(ptx) and dynamic.search(ptx) and "%dynamic_smem_size" in ptx
        assert [int(n) % (64 * 64 * 4) for n in size.findall(ptx)] == [0]


@wp.kernel
def mixed_tiles(vecs: wp.array(dtype=wp.vec3), scalars: wp.array(dtype=float), out: wp.array(dtype=wp.vec3)):
    tv = wp.tile_load(vecs, shape=T)
    ts = wp.tile_load(scalars, shape=T)
    wp.tile_store(out, tv * ts)  # tiles of two element types: a map lane 0 computes (not split)


@pytest.mark.parametrize("lanes", (1, 8, 64))
def test_a_product_of_tiles_of_two_element_types_matches_numpy(split, lanes):
    """(Warp's tile/test_tile vec * scalar cases: a tile_map of mixed tiles has no split form.)"""
    rng = np.random.default_rng(5)
    v, s = rng.random((T, 3)).astype(np.float32), rng.random(T).astype(np.float32)
    out = wp.zeros(T, dtype=wp.vec3)
    wp.launch_tiled(mixed_tiles, dim=1, inputs=[wp.array(v, dtype=wp.vec3), wp.array(s), out], block_dim=lanes)
    np.testing.assert_allclose(out.numpy(), v * s[:, None], rtol=1e-6)
