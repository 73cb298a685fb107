"""CPU blocks compute their block-uniform tiles once (compiler/block_uniform.py, native/tiles/block_cpu.h
block_frame_t): in a kernel that reads its lane, the statements that write tiles every lane would
hold alike run on lane 0 into a frame the lanes share, and the other lanes read them there, with
fences where lane 0 would otherwise overwrite a tile another lane has yet to read. Lane-using tile
kernels (wp.tile of lane values, wp.untile, per-lane scalar work between uniform tile ops,
lane-dependent branches, a partial last block, a launch whose blocks span rows) against numpy in
blocks of 1, 8, 64 and 100 lanes, lane 0 computing the shared tiles or the lanes splitting them
(wp.config.cpu_split_tiles: CUDA's split code, native/tiles/tile_coop.h)."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.compiler.block_uniform import block_sharing

from tests.support.nvrtc_sm90 import compile_for_sm90

pytestmark = pytest.mark.needs_cxx

N = 16
K = 5
T = 16
LANES = (1, 8, 64, 100)


@pytest.fixture(params=(False, True), ids=("lead", "split"))
def cpu_blocks(monkeypatch, request):
    """CPU blocks, with lane 0 computing the shared tiles alone ("lead", the CPU's default) or the
    lanes splitting them as CUDA's threads do ("split": wp.config.cpu_split_tiles, tile_coop.h)."""
    monkeypatch.setattr(wp.config, "enable_cpu_blocks", True)
    monkeypatch.setattr(wp.config, "cpu_split_tiles", request.param)


def _typed(kernel, lanes: int):
    launcher = next(L for L in kernel.launchers.values() if L.block_dim == lanes)
    return launcher.compiled.typed


@wp.kernel
def matmul_reading_its_lane(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
    i, j, lane = wp.tid()
    acc = wp.tile_zeros(shape=(T, T), dtype=float)
    for k in range(a.shape[1] // T):
        ta = wp.tile_load(a, shape=(T, T), offset=(i * T, k * T))
        tb = wp.tile_load(b, shape=(T, T), offset=(k * T, j * T))
        wp.tile_matmul(ta, tb, acc)
    wp.tile_store(c, acc, offset=(i * T, j * T))


@wp.kernel
def gathers_and_scatters(a: wp.array2d(dtype=float), x: wp.array(dtype=float), out: wp.array(dtype=float),
                         top: wp.array(dtype=float)):
    i, lane = wp.tid()
    ta = wp.tile_load(a, shape=(N, N), offset=(0, 0))  # uniform
    s = wp.tile_sum(ta)  # uniform, read by every lane below
    v = x[i * wp.block_dim() + lane] * 2.0 + s[0]  # per-lane scalar work
    g = wp.tile(v)  # every lane's value: the same tile in every lane
    m = wp.tile_max(g)  # uniform again
    sq = ta * ta
    w = wp.untile(g * 3.0)
    out[i * wp.block_dim() + lane] = w + m[0] + sq[1, 1]
    wp.tile_store(top, m, offset=i)


@wp.kernel
def reads_a_tile_lane_0_keeps_replacing(a: wp.array(dtype=float), seen: wp.array2d(dtype=float), steps: int):
    i, lane = wp.tid()
    acc = wp.tile_zeros(shape=N, dtype=float)
    for k in range(steps):  # (a loop, not unrolled: one tile replaced at each step)
        v = acc[lane % N]  # every lane reads the shared tile ...
        seen[i * K + k, lane] = v
        acc = acc + wp.tile_load(a, shape=N, offset=k * N)  # ... before lane 0 replaces it
    wp.tile_store(a, acc, offset=(K + i) * N)


@wp.kernel
def branches_on_its_lane(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i, lane = wp.tid()
    t = wp.tile_load(a, shape=N, offset=i * N)
    r = float(0.0)
    if lane % 2 == 0:
        u = t * 2.0 + wp.tile_ones(shape=N, dtype=float)  # a tile op under a lane-dependent branch
        r = u[lane % N]
    else:
        r = t[(lane + 1) % N] - 1.0
    out[i * wp.block_dim() + lane] = r + wp.tile_sum(t)[0]


@wp.kernel
def stores_from_one_lane(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i, lane = wp.tid()
    t = wp.tile_load(a, shape=N, offset=i * N)
    if lane == 0:
        wp.tile_store(out, t * 3.0, offset=i * N)  # a barrier under a lane-dependent branch: no sharing


@wp.kernel
def partial_block(a: wp.array(dtype=float), x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=N, offset=0)
    s = wp.tile_sum(t * t)
    out[i] = x[i] * s[0]


@wp.kernel
def blocks_span_rows(a: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    t = wp.tile_load(a, shape=(1, N), offset=(i, 0))  # differs between the lanes of a block
    s = wp.tile_sum(t)
    out[i, j] = s[0] + float(j)


@wp.func
def add_in_place(t: wp.tile[float, N], s: float):
    t += wp.tile_ones(dtype=float, shape=N) * s


@wp.func
def doubled_sum(t: wp.tile[float, N]):
    return wp.tile_sum(t * 2.0)


@wp.kernel
def calls_functions(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i, lane = wp.tid()
    t = wp.tile_load(a, shape=N, offset=i * N)
    u = t * 1.0  # a uniform tile the function then writes in place, in every lane
    add_in_place(u, 1.0)
    d = doubled_sum(t)
    v = wp.tile_load(a, shape=N, offset=i * N) + u
    out[i * wp.block_dim() + lane] = v[lane % N] + d[0]


@pytest.mark.parametrize("lanes", LANES)
def test_user_functions_with_tiles_in_and_out(cpu_blocks, lanes):
    blocks = 2
    a = np.random.default_rng(6).standard_normal(blocks * N).astype(np.float32)
    out = wp.zeros(blocks * lanes)
    wp.launch_tiled(calls_functions, dim=blocks, inputs=[wp.array(a), out], block_dim=lanes)
    t = a.reshape(blocks, N)
    lane = np.arange(lanes)
    want = (2 * t + 1.0)[:, lane % N] + 2 * t.sum(axis=1)[:, None]
    np.testing.assert_allclose(out.numpy().reshape(blocks, lanes), want, rtol=1e-5, atol=1e-5)


@wp.func
def scaled_sum(t: wp.tile[float, N], s: float):
    return wp.tile_sum(t * s)


@wp.kernel
def accumulates_through_a_function(a: wp.array(dtype=float), seen: wp.array2d(dtype=float), steps: int):
    i, lane = wp.tid()
    acc = wp.tile_zeros(shape=1, dtype=float)
    for k in range(steps):
        seen[i * steps + k, lane] = acc[0] + float(lane)  # every lane reads it ...
        acc = acc + scaled_sum(wp.tile_load(a, shape=N, offset=k * N), 2.0)  # ... lane 0 replaces it


def _lets_of_calls(stmts):
    from warp_nb.compiler import ir
    for s in stmts:
        if isinstance(s, ir.Let) and isinstance(s.value, ir.CallFunc):
            yield s
        for name in ("body", "orelse", "cond_body"):
            yield from _lets_of_calls(getattr(s, name, ()) or ())


@pytest.mark.parametrize("lanes", LANES)
def test_a_function_of_uniform_tiles_runs_once_per_block(cpu_blocks, lanes):
    blocks = 2
    a = np.arange(K * N, dtype=np.float32) / 7.0
    seen = wp.full((blocks * K, lanes), -1.0)
    wp.launch_tiled(accumulates_through_a_function, dim=blocks, inputs=[wp.array(a), seen, K], block_dim=lanes)
    sums = np.concatenate([[0.0], np.cumsum(2.0 * a.reshape(K, N).sum(axis=1))])[:K]
    want = sums[:, None] + np.arange(lanes)[None, :]
    np.testing.assert_allclose(seen.numpy().reshape(blocks, K, lanes), np.stack([want] * blocks), rtol=1e-5)
    if lanes > 1:
        typed = _typed(accumulates_through_a_function, lanes)
        plan = block_sharing(typed)
        calls = list(_lets_of_calls(typed.body))
        assert plan is not None and calls and all(id(s) in plan.lead for s in calls) and plan.fences


@pytest.mark.parametrize("lanes", LANES)
def test_a_matmul_that_reads_its_lane_matches_numpy(cpu_blocks, lanes):
    rng = np.random.default_rng(1)
    n = 2 * T
    A, B = rng.standard_normal((n, n)).astype(np.float32), rng.standard_normal((n, n)).astype(np.float32)
    c = wp.zeros((n, n))
    wp.launch_tiled(matmul_reading_its_lane, dim=(n // T, n // T), inputs=[wp.array(A), wp.array(B), c],
                    block_dim=lanes)
    np.testing.assert_allclose(c.numpy(), A @ B, rtol=1e-5, atol=1e-4)
    if lanes > 1:
        plan = block_sharing(_typed(matmul_reading_its_lane, lanes))
        assert plan is not None and plan.lead and not plan.fences


@pytest.mark.parametrize("lanes", LANES)
def test_tile_of_lane_values_untile_and_lane_work_between_uniform_tiles(cpu_blocks, lanes):
    rng = np.random.default_rng(2)
    blocks = 3
    A = rng.standard_normal((N, N)).astype(np.float32)
    x = rng.standard_normal(blocks * lanes).astype(np.float32)
    out, top = wp.zeros(blocks * lanes), wp.zeros(blocks)
    wp.launch_tiled(gathers_and_scatters, dim=blocks, inputs=[wp.array(A), wp.array(x), out, top], block_dim=lanes)
    v = (x * 2.0 + A.sum()).reshape(blocks, lanes)
    m = v.max(axis=1)
    np.testing.assert_allclose(top.numpy(), m, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(out.numpy().reshape(blocks, lanes), 3 * v + m[:, None] + A[1, 1] ** 2,
                               rtol=1e-5, atol=1e-3)
    if lanes > 1:
        assert block_sharing(_typed(gathers_and_scatters, lanes)) is not None


@pytest.mark.parametrize("lanes", LANES)
def test_a_tile_read_by_every_lane_is_not_replaced_before_they_read_it(cpu_blocks, lanes):
    blocks = 2
    a = np.arange(K * N, dtype=np.float32) + 1.0
    arr = wp.array(np.concatenate([a, np.zeros(blocks * N, np.float32)]))
    seen = wp.full((blocks * K, lanes), -1.0)
    wp.launch_tiled(reads_a_tile_lane_0_keeps_replacing, dim=blocks, inputs=[arr, seen, K], block_dim=lanes)
    parts = np.cumsum(np.concatenate([np.zeros((1, N)), a.reshape(K, N)]), axis=0)  # acc before step k
    want = parts[:K][:, np.arange(lanes) % N]
    np.testing.assert_allclose(seen.numpy().reshape(blocks, K, lanes), np.stack([want] * blocks))
    np.testing.assert_allclose(arr.numpy()[K * N:].reshape(blocks, N), np.stack([parts[K]] * blocks))
    if lanes > 1:
        plan = block_sharing(_typed(reads_a_tile_lane_0_keeps_replacing, lanes))
        assert plan is not None and plan.fences


@pytest.mark.parametrize("lanes", LANES)
def test_a_lane_dependent_branch_around_a_tile_op(cpu_blocks, lanes):
    blocks = 2
    a = np.random.default_rng(4).standard_normal(blocks * N).astype(np.float32)
    out = wp.zeros(blocks * lanes)
    wp.launch_tiled(branches_on_its_lane, dim=blocks, inputs=[wp.array(a), out], block_dim=lanes)
    t = a.reshape(blocks, N)
    lane = np.arange(lanes)
    even = t[:, lane % N] * 2.0 + 1.0
    odd = t[:, (lane + 1) % N] - 1.0
    want = np.where(lane % 2 == 0, even, odd) + t.sum(axis=1)[:, None]
    np.testing.assert_allclose(out.numpy().reshape(blocks, lanes), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("lanes", LANES)
def test_a_store_under_a_lane_dependent_branch_keeps_every_lane_apart(cpu_blocks, lanes):
    blocks = 2
    a = np.arange(blocks * N, dtype=np.float32)
    out = wp.zeros(blocks * N)
    wp.launch_tiled(stores_from_one_lane, dim=blocks, inputs=[wp.array(a), out], block_dim=lanes)
    np.testing.assert_allclose(out.numpy(), 3 * a)
    if lanes > 1:
        assert block_sharing(_typed(stores_from_one_lane, lanes)) is None


@pytest.mark.parametrize("lanes", LANES)
def test_a_partial_last_block(cpu_blocks, lanes):
    n = 2 * lanes + 3 if lanes > 1 else 7
    a = np.linspace(0.5, 2.0, N).astype(np.float32)
    x = np.arange(n, dtype=np.float32)
    out = wp.zeros(n)
    wp.launch(partial_block, dim=n, inputs=[wp.array(a), wp.array(x), out], block_dim=lanes)
    # as in Warp, element k of a tile is lane k % lanes's, and a partial block's reductions count
    # the elements of its launched lanes only (native/tiles/tile_reduce.h tile_counted)
    members = np.minimum(n - (np.arange(n) // lanes) * lanes, lanes)
    k = np.arange(N)
    s = np.array([(a * a)[k % lanes < m].sum() for m in members])
    np.testing.assert_allclose(out.numpy(), x * s, rtol=1e-5)


@pytest.mark.parametrize("lanes", LANES)
def test_blocks_that_span_rows_keep_their_lanes_apart(cpu_blocks, lanes):
    rows, cols = 32, 50  # blocks take the end of one row and the start of the next (and none is partial)
    a = np.random.default_rng(5).standard_normal((rows, N)).astype(np.float32)
    out = wp.zeros((rows, cols))
    wp.launch(blocks_span_rows, dim=(rows, cols), inputs=[wp.array(a), out], block_dim=lanes)
    np.testing.assert_allclose(out.numpy(), a.sum(axis=1)[:, None] + np.arange(cols)[None, :], rtol=1e-5, atol=1e-5)


def test_the_same_kernels_compile_for_sm90(cpu_blocks):
    """The CUDA text is the same text: there every lane has its own frame and leads (block.h)."""
    kernels = [matmul_reading_its_lane, gathers_and_scatters, reads_a_tile_lane_0_keeps_replacing,
               branches_on_its_lane, stores_from_one_lane, partial_block, blocks_span_rows, calls_functions,
               accumulates_through_a_function]
    for k in kernels:
        assert any(o.block_dim > 1 for o, _ in k.compiled_options("cpu")), "run the CPU tests of this file first"
    compile_for_sm90(kernels)
