"""Split whole-tile reductions and scans (native/tiles/tile_coop.h coop_tile_sum ..., coop_scan;
emit/block_frame.py): where the lanes of a block share their block-uniform tiles and split the
statements that write them (CUDA; the CPU's fibers with wp.config.cpu_split_tiles, as here), each
lane reduces its share of the elements (for a scan, a contiguous run) and the lanes' partials are
combined in lane order. Minima, maxima, their first indices (ties, NaNs), running maxima and minima
and integer sums must be the unsplit ones exactly; a float sum adds in another order, so it is
compared with numpy within rounding."""

import numpy as np
import pytest

import warp_nb as wp

from tests.support.nvrtc_sm90 import compile_for_sm90

pytestmark = pytest.mark.needs_cxx

N = 200  # elements of a tile: not a multiple of the lane counts below
LANES = (1, 8, 64, 100)


@wp.kernel
def reductions(x: wp.array(dtype=float), k: wp.array(dtype=wp.int64), out: wp.array2d(dtype=float),
               index: wp.array2d(dtype=int), ints: wp.array2d(dtype=wp.int64)):
    i, lane = wp.tid()
    t = wp.tile_load(x, shape=N, offset=i * N)
    u = wp.tile_load(k, shape=N, offset=i * N)
    s, lo, hi, d = wp.tile_sum(t), wp.tile_min(t), wp.tile_max(t), wp.tile_dot(t, t)
    first_lo, first_hi = wp.tile_argmin(t), wp.tile_argmax(t)
    su, lou, hiu = wp.tile_sum(u), wp.tile_min(u), wp.tile_max(u)
    if lane == 0:
        out[i, 0] = s[0]
        out[i, 1] = lo[0]
        out[i, 2] = hi[0]
        out[i, 3] = d[0]
        index[i, 0] = first_lo[0]
        index[i, 1] = first_hi[0]
        ints[i, 0] = su[0]
        ints[i, 1] = lou[0]
        ints[i, 2] = hiu[0]
    # every lane reads what lane 0 combined (the barrier after the split statement publishes it)
    if s[0] != out[i, 0] and s[0] == s[0]:
        index[i, 2] = index[i, 2] + 1


def _inputs(blocks=6):
    rng = np.random.default_rng(11)
    x = np.round(rng.standard_normal(blocks * N), 1).astype(np.float32)  # rounded: ties of min and max
    x[0] = np.nan  # block 0: a NaN first, which the unsplit code keeps as the minimum and maximum
    x[N + 7] = np.nan  # block 1: a NaN later, never chosen
    x[2 * N + 150] = x[2 * N:3 * N].min()  # block 2: the smallest value again, later
    k = rng.integers(-2**40, 2**40, blocks * N, dtype=np.int64)
    k[3 * N:4 * N] = np.iinfo(np.int64).max // N + 3  # a sum that wraps around
    return x, k


def _run(x, k, lanes):
    blocks = len(x) // N
    out, index, ints = wp.zeros((blocks, 4)), wp.zeros((blocks, 3), dtype=int), wp.zeros((blocks, 3), dtype=wp.int64)
    wp.launch_tiled(reductions, dim=blocks, inputs=[wp.array(x), wp.array(k), out, index, ints], block_dim=lanes)
    return out.numpy(), index.numpy(), ints.numpy()


def _first_best(v, better):
    """tile_argmin / tile_argmax as the unsplit code finds them (element 0 first; a NaN never wins)."""
    best = 0
    for j in range(1, len(v)):
        if better(v[j], v[best]):
            best = j
    return best


@pytest.mark.parametrize("lanes", LANES)
def test_split_reductions_match_numpy_and_the_unsplit_code(monkeypatch, lanes):
    x, k = _inputs()
    monkeypatch.setattr(wp.config, "enable_cpu_blocks", True)
    unsplit = _run(x, k, lanes)
    monkeypatch.setattr(wp.config, "cpu_split_tiles", True)
    out, index, ints = _run(x, k, lanes)
    for b in range(len(x) // N):
        v, w = x[b * N:(b + 1) * N], k[b * N:(b + 1) * N]
        lo, hi = _first_best(v, lambda p, q: p < q), _first_best(v, lambda p, q: p > q)
        assert index[b, :2].tolist() == [lo, hi]
        np.testing.assert_array_equal(out[b, 1:3], [v[lo], v[hi]])  # (NaN where element 0 is one)
        if b != 0:
            np.testing.assert_allclose(out[b, 0], v.astype(np.float64).sum(), rtol=1e-5, atol=1e-4)
            np.testing.assert_allclose(out[b, 3], (v.astype(np.float64) ** 2).sum(), rtol=1e-5)
        assert ints[b].tolist() == [int(w.sum()), int(w.min()), int(w.max())]  # (numpy's sum wraps too)
    assert not index[:, 2].any()
    np.testing.assert_array_equal(index, unsplit[1])
    np.testing.assert_array_equal(ints, unsplit[2])
    np.testing.assert_array_equal(out[:, 1:3], unsplit[0][:, 1:3])
    np.testing.assert_allclose(out[1:, [0, 3]], unsplit[0][1:, [0, 3]], rtol=1e-5, atol=1e-4)
    assert np.isnan(out[0, [0, 3]]).all()


@wp.kernel
def scans(x: wp.array(dtype=float), k: wp.array(dtype=wp.int64), out: wp.array3d(dtype=float),
          ints: wp.array3d(dtype=wp.int64)):
    i, lane = wp.tid()
    t = wp.tile_load(x, shape=N, offset=i * N)
    u = wp.tile_load(k, shape=N, offset=i * N)
    wp.tile_store(out[i, 0], wp.tile_scan_inclusive(t))
    wp.tile_store(out[i, 1], wp.tile_scan_exclusive(t))
    wp.tile_store(out[i, 2], wp.tile_scan_max_inclusive(t))
    wp.tile_store(out[i, 3], wp.tile_scan_min_inclusive(t))
    wp.tile_store(ints[i, 0], wp.tile_scan_inclusive(u))
    wp.tile_store(ints[i, 1], wp.tile_scan_exclusive(u))
    wp.tile_store(ints[i, 2], wp.tile_scan_max_inclusive(u))


def _run_scans(x, k, lanes):
    blocks = len(x) // N
    out, ints = wp.zeros((blocks, 4, N)), wp.zeros((blocks, 3, N), dtype=wp.int64)
    wp.launch_tiled(scans, dim=blocks, inputs=[wp.array(x), wp.array(k), out, ints], block_dim=lanes)
    return out.numpy(), ints.numpy()


def _running(v, better):
    """tile_scan_max_inclusive / min as the unsplit code computes them (a NaN run takes the next value)."""
    out, m = [], v[0]
    for x in v:
        if better(x, m) or m != m:
            m = x
        out.append(m)
    return np.array(out, dtype=v.dtype)


@pytest.mark.parametrize("lanes", LANES)
def test_split_scans_match_numpy_and_the_unsplit_code(monkeypatch, lanes):
    x, k = _inputs()
    x[4 * N + 20] = np.nan  # block 4: a NaN inside a run that is not lane 0's
    monkeypatch.setattr(wp.config, "enable_cpu_blocks", True)
    unsplit = _run_scans(x, k, lanes)
    monkeypatch.setattr(wp.config, "cpu_split_tiles", True)
    out, ints = _run_scans(x, k, lanes)
    for b in range(len(x) // N):
        v, w = x[b * N:(b + 1) * N], k[b * N:(b + 1) * N]
        np.testing.assert_array_equal(out[b, 2], _running(v, lambda p, q: p > q))
        np.testing.assert_array_equal(out[b, 3], _running(v, lambda p, q: p < q))
        if b not in (0, 1, 4):  # (a NaN makes the rest of a sum NaN)
            np.testing.assert_allclose(out[b, 0], np.cumsum(v.astype(np.float64)), rtol=1e-5, atol=1e-4)
            np.testing.assert_allclose(out[b, 1], np.cumsum(v.astype(np.float64)) - v, rtol=1e-5, atol=1e-4)
        assert ints[b, 0].tolist() == np.cumsum(w).tolist() and ints[b, 1].tolist() == (np.cumsum(w) - w).tolist()
        assert ints[b, 2].tolist() == np.maximum.accumulate(w).tolist()
    np.testing.assert_array_equal(ints, unsplit[1])
    np.testing.assert_array_equal(out[:, 2:], unsplit[0][:, 2:])
    np.testing.assert_allclose(out[:, :2], unsplit[0][:, :2], rtol=1e-5, atol=1e-4)  # (NaNs in the same places)


def test_the_split_reductions_and_scans_are_in_the_split_code():
    """The C++ of the kernels calls the split forms (and they compile for sm_90)."""
    src = reductions.compiled("cpu", block_dim=64).unit.source
    for name in ("sum", "min", "max", "argmin", "argmax"):
        assert f"wpnb::coop_tile_{name}(wpnb_part, " in src
    assert src.count("wpnb::coop_tile_sum(wpnb_part, ") == 3  # (tile_dot's sum too)
    src = scans.compiled("cpu", block_dim=64).unit.source
    for form in ("false, wpnb::coop_fold_sum", "true, wpnb::coop_fold_sum", "false, wpnb::coop_fold_max",
                 "false, wpnb::coop_fold_min"):
        assert f"wpnb::coop_scan<{form}>(wpnb_part, " in src
    compile_for_sm90([reductions, scans])
