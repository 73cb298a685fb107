"""Tile kernels in blocks of several lanes (native/tiles/block.h): on the CPU with
wp.config.enable_cpu_blocks (lanes as fibers), the same code CUDA runs with its threads.
Results against numpy, gradients against finite differences, and the CUDA text of every
variant compiled for sm_90."""

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.autograd import gradcheck

from tests.support.nvrtc_sm90 import compile_for_sm90

pytestmark = pytest.mark.needs_cxx

B = 16


@pytest.fixture
def cpu_blocks(monkeypatch):
    monkeypatch.setattr(wp.config, "enable_cpu_blocks", True)


@wp.kernel
def gather_kernel(x: wp.array(dtype=float), total: wp.array(dtype=float), doubled: wp.array(dtype=float),
                  lanes: wp.array(dtype=int)):
    i, lane = wp.tid()
    t = wp.tile(x[i * wp.block_dim() + lane])  # one value per lane
    wp.tile_store(total, wp.tile_sum(t), offset=i)  # stored once per block
    doubled[i * wp.block_dim() + lane] = wp.untile(t * 2.0)  # each lane its own element
    lanes[i * wp.block_dim() + lane] = wp.block_dim() * 1000 + lane


def test_wp_tile_gathers_the_lanes_and_untile_scatters_them(cpu_blocks):
    x = np.random.default_rng(0).random(5 * B).astype(np.float32)
    total, doubled = wp.zeros(5, dtype=float), wp.zeros(5 * B, dtype=float)
    lanes = wp.zeros(5 * B, dtype=int)
    wp.launch_tiled(gather_kernel, dim=5, inputs=[wp.array(x), total, doubled, lanes], block_dim=B)
    np.testing.assert_allclose(total.numpy(), x.reshape(5, B).sum(1), rtol=1e-6)
    np.testing.assert_allclose(doubled.numpy(), 2 * x)
    np.testing.assert_array_equal(lanes.numpy(), B * 1000 + np.tile(np.arange(B), 5))


def test_without_cpu_blocks_a_block_is_one_lane():
    x = np.arange(4, dtype=np.float32)
    total, doubled, lanes = wp.zeros(4, dtype=float), wp.zeros(4, dtype=float), wp.zeros(4, dtype=int)
    wp.launch_tiled(gather_kernel, dim=4, inputs=[wp.array(x), total, doubled, lanes], block_dim=B)
    np.testing.assert_allclose(total.numpy(), x)  # wp.tile(x) has one element: the lane's own
    np.testing.assert_array_equal(lanes.numpy(), [1000] * 4)


@wp.kernel
def lane_writes_kernel(bits: wp.array(dtype=wp.uint32), hist: wp.array(dtype=int), pushed: wp.array(dtype=float),
                       slots: wp.array(dtype=int), count: wp.array(dtype=int)):
    i, lane = wp.tid()
    word = wp.tile_zeros(shape=1, dtype=wp.uint32)
    word[0] |= wp.uint32(1) << wp.uint32(lane)  # every lane sets its bit of one shared element
    wp.tile_store(bits, word, offset=i)
    h = wp.tile_zeros(shape=4, dtype=int)
    h[lane % 4] += 1  # a histogram of lane % 4 written by every lane
    wp.tile_store(hist, h, offset=i * 4)
    s = wp.tile_stack(capacity=B, dtype=float)
    slot = wp.tile_stack_push(s, float(lane) * 0.5, lane % 3 == 0)  # some lanes push
    slots[i * B + lane] = slot
    count[i] = wp.tile_stack_count(s)
    value, popped = wp.tile_stack_pop(s)
    if popped >= 0:
        pushed[i * B + popped] = value


def test_per_lane_writes_into_shared_tiles_and_stacks(cpu_blocks):
    n = 3
    bits, hist = wp.zeros(n, dtype=wp.uint32), wp.zeros(4 * n, dtype=int)
    pushed, slots, count = wp.full(n * B, -1.0, dtype=float), wp.zeros(n * B, dtype=int), wp.zeros(n, dtype=int)
    wp.launch_tiled(lane_writes_kernel, dim=n, inputs=[bits, hist, pushed, slots, count], block_dim=B)
    assert bits.numpy().tolist() == [2 ** B - 1] * n
    assert hist.numpy().reshape(n, 4).tolist() == [[B // 4] * 4] * n
    pushers = [lane for lane in range(B) if lane % 3 == 0]
    expected_slots = [pushers.index(lane) if lane in pushers else -1 for lane in range(B)]
    assert slots.numpy().reshape(n, B).tolist() == [expected_slots] * n
    assert count.numpy().tolist() == [len(pushers)] * n
    for row in pushed.numpy().reshape(n, B):
        assert row[:len(pushers)].tolist() == [lane * 0.5 for lane in pushers]
        assert (row[len(pushers):] == -1.0).all()


@wp.kernel
def from_thread_kernel(x: wp.array(dtype=float), out: wp.array(dtype=float), partial: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_from_thread(shape=4, value=x[i], thread_idx=3)  # lane 3's value, everywhere
    wp.tile_store(out, t, offset=(i // B) * 4)
    wp.tile_store(partial, wp.tile_sum(wp.tile(x[i])), offset=i // B)


def test_tile_from_thread_and_a_partial_last_block(cpu_blocks):
    n = 2 * B + 5  # the last block has 5 lanes in the launch: the others give zero to wp.tile
    x = np.arange(n, dtype=np.float32) + 1.0
    out, partial = wp.zeros(12, dtype=float), wp.zeros(3, dtype=float)
    wp.launch(from_thread_kernel, dim=n, inputs=[wp.array(x), out, partial], block_dim=B)
    np.testing.assert_allclose(out.numpy().reshape(3, 4), np.repeat(x[[3, B + 3, 2 * B + 3]], 4).reshape(3, 4))
    np.testing.assert_allclose(partial.numpy(), [x[:B].sum(), x[B:2 * B].sum(), x[2 * B:].sum()])


@wp.kernel
def loss_kernel(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float)):
    i, lane = wp.tid()
    a = wp.tile_load(x, shape=B, offset=i * B)
    t = wp.tile(y[i * B + lane] * y[i * B + lane])
    wp.tile_atomic_add(out, wp.tile_sum(a * a + t), offset=i)
    wp.atomic_add(out, i, wp.untile(a) * 3.0 + wp.tile_extract(a, lane) * 0.5)


def test_backward_in_blocks_matches_finite_differences(cpu_blocks):
    rng = np.random.default_rng(1)
    x = wp.array(rng.random(2 * B).astype(np.float32), requires_grad=True)
    y = wp.array(rng.random(2 * B).astype(np.float32), requires_grad=True)
    out = wp.zeros(2, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(loss_kernel, dim=2, inputs=[x, y, out], block_dim=B)
    xn, yn = x.numpy().reshape(2, B), y.numpy().reshape(2, B)
    np.testing.assert_allclose(out.numpy(), (xn ** 2 + yn ** 2).sum(1) + 3.5 * xn.sum(1), rtol=1e-5)
    tape.backward(grads={out: wp.ones(2, dtype=float)})
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.numpy() + 3.5, rtol=1e-5)
    np.testing.assert_allclose(y.grad.numpy(), 2 * y.numpy(), rtol=1e-5)
    # and by central differences, through warp_nb's own checker
    assert gradcheck(loss_kernel, dim=(2, B), inputs=[x, y], outputs=[wp.zeros(2, dtype=float, requires_grad=True)],
                     block_dim=B, eps=1e-2, show_summary=False)  # quadratic: central differences are exact


@wp.kernel
def lane_element_writes_kernel(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i, lane = wp.tid()
    t = wp.tile_load(x, shape=4, storage="shared")
    v = x[4 + lane]
    t[lane % 2] = v * 2.0  # every lane sets: the last even and odd lanes' values stay
    t[2] -= v * v  # every lane subtracts
    t[3] += v * 3.0  # every lane adds
    wp.tile_store(out, t)


def test_backward_of_every_lanes_element_writes(cpu_blocks):
    """t[i] = v, t[i] -= v, t[i] += v from every lane: a lane whose set a later lane overwrote gets
    no adjoint, nor does the overwritten element; -= passes minus the adjoint (as warp-lang does)."""
    x = np.random.default_rng(3).random(4 + B).astype(np.float32)
    xs = wp.array(x, requires_grad=True)
    out = wp.zeros(4, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(lane_element_writes_kernel, dim=1, inputs=[xs, out], block_dim=B)
    v = x[4:]
    np.testing.assert_allclose(out.numpy(), [2 * v[-2], 2 * v[-1], x[2] - (v * v).sum(), x[3] + 3 * v.sum()], rtol=1e-5)
    g = np.array([1.0, 10.0, 100.0, 1000.0], dtype=np.float32)
    tape.backward(grads={out: wp.array(g)})
    expected_v = -2 * v * g[2] + 3 * g[3]
    expected_v[-2] += 2 * g[0]
    expected_v[-1] += 2 * g[1]
    np.testing.assert_allclose(xs.grad.numpy(), np.concatenate([[0.0, 0.0, g[2], g[3]], expected_v]), rtol=1e-5)


@wp.kernel
def lane_scatter_kernel(x: wp.array(dtype=float), masked: wp.array(dtype=float), added: wp.array(dtype=float)):
    i, lane = wp.tid()
    t = wp.tile_load(x, shape=4, storage="shared")
    u = wp.tile_load(x, shape=4, storage="shared")
    v = x[4 + lane]
    wp.tile_scatter_masked(t, lane % 2, v * 2.0, lane < B - 4)  # the last even and odd writers' values stay
    wp.tile_scatter_add(u, lane % 2, v * 3.0, lane < B - 4)
    wp.tile_store(masked, t)
    wp.tile_store(added, u)


def test_backward_of_every_lanes_tile_scatter(cpu_blocks):
    """tile_scatter_masked from every lane: only the surviving writes' values get the adjoint, and
    not the elements they overwrote; tile_scatter_add: every write's value does."""
    x = np.random.default_rng(4).random(4 + B).astype(np.float32)
    xs = wp.array(x, requires_grad=True)
    masked, added = wp.zeros(4, dtype=float, requires_grad=True), wp.zeros(4, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(lane_scatter_kernel, dim=1, inputs=[xs, masked, added], block_dim=B)
    v, writers = x[4:], np.arange(B) < B - 4
    np.testing.assert_allclose(masked.numpy(), [2 * v[B - 6], 2 * v[B - 5], x[2], x[3]], rtol=1e-5)
    np.testing.assert_allclose(added.numpy(), [x[0] + 3 * v[writers][0::2].sum(), x[1] + 3 * v[writers][1::2].sum(),
                                               x[2], x[3]], rtol=1e-5)
    gm, ga = np.array([1.0, 10.0, 100.0, 1000.0], np.float32), np.array([2.0, 20.0, 200.0, 2000.0], np.float32)
    tape.backward(grads={masked: wp.array(gm), added: wp.array(ga)})
    expected_v = np.where(writers, 3 * ga[np.arange(B) % 2], 0.0)
    expected_v[B - 6] += 2 * gm[0]
    expected_v[B - 5] += 2 * gm[1]
    np.testing.assert_allclose(xs.grad.numpy(), np.concatenate([[ga[0], ga[1], gm[2] + ga[2], gm[3] + ga[3]], expected_v]),
                               rtol=1e-5)


@wp.kernel
def survivors_kernel(x: wp.array(dtype=float), out: wp.array(dtype=float), counts: wp.array(dtype=int)):
    i, lane = wp.tid()
    if lane == 0 or lane % 3 == 0:
        return  # the block's lowest lane leaves: the next one leads what is done once
    s = wp.tile_stack(capacity=B, dtype=int)
    wp.tile_stack_push(s, lane, True)  # only the lanes still running push
    counts[i * B + lane] = wp.tile_stack_count(s)
    t = wp.tile(x[i * B + lane])
    keys = wp.tile_load(x, shape=B, offset=i * B)
    values = wp.tile_zeros(shape=B, dtype=int)
    wp.tile_sort(keys, values)
    wp.tile_store(out, keys, offset=i * B)
    wp.tile_atomic_add(out, wp.tile_sum(t), offset=2 * B + i)


def test_a_lane_that_returns_early_hands_the_lead_on(cpu_blocks):
    x = np.random.default_rng(2).permutation(2 * B).astype(np.float32)
    out, counts = wp.zeros(2 * B + 2, dtype=float), wp.full(2 * B, -1, dtype=int)
    wp.launch_tiled(survivors_kernel, dim=2, inputs=[wp.array(x), out, counts], block_dim=B)
    got = out.numpy()
    np.testing.assert_array_equal(got[:2 * B], np.sort(x.reshape(2, B), axis=1).ravel())
    # the lanes that left gave nothing to wp.tile or the stack; the sum was added once per block
    running = np.array([lane % 3 != 0 for lane in range(B)])
    np.testing.assert_allclose(got[2 * B:], (x.reshape(2, B) * running).sum(1))
    assert counts.numpy().reshape(2, B).tolist() == [[int(running.sum()) if r else -1 for r in running]] * 2


def test_each_lane_count_is_its_own_compiled_kernel(cpu_blocks):
    x = wp.array(np.ones(64, dtype=np.float32))
    for lanes in (8, 16):
        total = wp.zeros(64 // lanes, dtype=float)
        wp.launch_tiled(gather_kernel, dim=64 // lanes, inputs=[x, total, wp.zeros(64, dtype=float),
                                                                 wp.zeros(64, dtype=int)], block_dim=lanes)
        np.testing.assert_allclose(total.numpy(), lanes)
    keys = {o.block_dim: gather_kernel.compiled("cpu", block_dim=o.block_dim).key
            for o, _ in gather_kernel.compiled_options("cpu") if o.block_dim > 1}
    assert {8, 16} <= set(keys) and keys[8] != keys[16]


def test_block_dim_beyond_a_cuda_block_is_refused(cpu_blocks):
    with pytest.raises(ValueError, match="at most 1024"):
        wp.launch_tiled(gather_kernel, dim=1, inputs=[wp.zeros(2048), wp.zeros(1), wp.zeros(2048),
                                                      wp.zeros(2048, dtype=int)], block_dim=2048)


@wp.kernel
def random_tiles_kernel(seed: int, x: wp.array(dtype=int), y: wp.array(dtype=float), z: wp.array(dtype=int)):
    _i, _lane = wp.tid()
    rng = wp.rand_init(seed, 0)
    wp.tile_store(x, wp.tile_randi(shape=(10,), rng=rng))
    wp.tile_store(y, wp.tile_randf(shape=(10,), rng=rng))
    wp.tile_store(z, wp.tile_randi(shape=(10,), rng=rng, min=-5, max=5))


def test_random_tiles_are_drawn_per_lane_as_warp_draws_them(cpu_blocks):
    """Lane t draws elements t, t + L, ... from the stream rng + t: warp-lang 1.19's values with
    enable_cpu_blocks and block_dim 4 (probed)."""
    x, y, z = wp.zeros(10, dtype=int), wp.zeros(10, dtype=float), wp.zeros(10, dtype=int)
    wp.launch_tiled(random_tiles_kernel, dim=1, inputs=[42, x, y, z], block_dim=4)
    np.testing.assert_array_equal(x.numpy(), [798497746, 1803297529, 1788185933, 1320194893, -1161279442, 2095960465,
                                              -2127337140, -1328504415, -169969590, -1504930847])
    np.testing.assert_allclose(y.numpy()[:6], [0.18591469, 0.41986287, 0.41634446, 0.30738181, 0.72961855, 0.48800379],
                               rtol=1e-6)
    np.testing.assert_array_equal(z.numpy(), [1, 4, -2, -2, -1, 0, 1, -4, 1, 4])


@wp.kernel
def partial_reductions_kernel(a: wp.array2d(dtype=float), sums: wp.array(dtype=float), rows: wp.array(dtype=float),
                              mins: wp.array(dtype=float), scans: wp.array(dtype=float), total: wp.array(dtype=float)):
    t = wp.tile_load(a, shape=(8, 4))
    wp.tile_store(sums, wp.tile_sum(t, axis=0))
    wp.tile_store(rows, wp.tile_reduce(wp.mul, t, axis=1))
    wp.tile_store(mins, wp.tile_reduce(wp.min, t, axis=1))
    wp.tile_store(scans, wp.tile_scan_inclusive(wp.tile_reshape(t, shape=32)))
    wp.tile_store(total, wp.tile_sum(t))


def test_reductions_of_a_partial_block_count_the_launched_lanes_elements(cpu_blocks):
    """Warp hands element k to lane k % block_dim: in a partial block (dim 6 of block_dim 16) the
    elements of lanes outside the launch take no part; a line with none gives the operator's
    identity (warp-lang 1.19's test_tile_reduce_axis_*partial* cases)."""
    a_np = (1.0 + np.arange(32, dtype=np.float32).reshape(8, 4) / 64.0)
    counted = (np.arange(32).reshape(8, 4) % 16) < 6
    a = wp.array(a_np, requires_grad=True)
    outs = [wp.zeros(4, requires_grad=True), wp.zeros(8), wp.zeros(8), wp.zeros(32), wp.zeros(1)]
    with wp.Tape() as tape:
        wp.launch(partial_reductions_kernel, dim=6, inputs=[a, *outs], block_dim=16)
    sums, rows, mins, scans, total = (o.numpy() for o in outs)
    np.testing.assert_allclose(sums, np.where(counted, a_np, 0.0).sum(0), rtol=1e-6)
    np.testing.assert_allclose(rows, [np.prod(r[c]) if c.any() else 1.0 for r, c in zip(a_np, counted)], rtol=1e-6)
    np.testing.assert_array_equal(mins, [r[c].min() if c.any() else np.inf for r, c in zip(a_np, counted)])
    np.testing.assert_allclose(scans[counted.ravel()], np.cumsum(a_np[counted]), rtol=1e-6)
    np.testing.assert_allclose(total, [a_np[counted].sum()], rtol=1e-6)
    outs[0].grad.fill_(1.0)
    tape.backward()
    np.testing.assert_array_equal(a.grad.numpy(), counted.astype(np.float32))  # only counted elements


@wp.func
def product_of(x: float, y: float):
    return x * y


@wp.kernel
def custom_rows_kernel(a: wp.array2d(dtype=float), rows: wp.array(dtype=float)):
    wp.tile_store(rows, wp.tile_reduce(product_of, wp.tile_load(a, shape=(8, 4)), axis=1))


def test_a_reduction_without_identity_over_an_empty_line_raises(cpu_blocks):
    """A @wp.func operator declares no identity: a line with no element of a launched lane is a
    RuntimeError after the launch in checked code (Warp aborts: "operator has no declared identity")."""
    a, rows = wp.full((8, 4), 2.0), wp.zeros(8)
    with pytest.raises(RuntimeError, match="operator has no declared identity"):
        wp.launch(custom_rows_kernel, dim=6, inputs=[a, rows], block_dim=16)
    wp.launch(custom_rows_kernel, dim=16, inputs=[a, rows], block_dim=16)  # a whole block: every line counts
    np.testing.assert_array_equal(rows.numpy(), np.full(8, 16.0))


def test_block_variants_compile_for_sm90(cpu_blocks):
    kernels = [gather_kernel, lane_writes_kernel, from_thread_kernel, loss_kernel, survivors_kernel, random_tiles_kernel,
               partial_reductions_kernel, custom_rows_kernel, lane_element_writes_kernel, lane_scatter_kernel]
    for k in kernels:
        assert any(o.block_dim > 1 for o, _ in k.compiled_options("cpu")), "run the CPU tests of this file first"
    compile_for_sm90(kernels)
