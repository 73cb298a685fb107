"""The domain-decomposed heat equation (warp_nb.kernels.heat_mpi) on 1, 2 and 4 ranks equals the
single-process run: to the last bit, for the integer-exact variant and for float32 (every cell sees
the same operations in the same order), and the single-process run matches numpy."""

import numpy as np
import pytest
from warp_nb.kernels.heat_mpi import HeatSlabs, initial_grid, split_rows

from .mpirun import last_json_line, run_ranks

ROWS, COLS, STEPS = 37, 29, 25  # odd sizes: slabs of unequal height
pytestmark = [pytest.mark.needs_cxx]


def numpy_heat(u, steps, alpha=0.2):
    """The same explicit scheme in numpy, border held fixed."""
    u = u.copy()
    for _ in range(steps):
        c = u[1:-1, 1:-1]
        if u.dtype == np.int32:
            new = (4 * c + u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]) // 8
        else:
            lap = (u[:-2, 1:-1] + u[2:, 1:-1]) + (u[1:-1, :-2] + u[1:-1, 2:]) - np.float32(4.0) * c
            new = c + np.float32(alpha) * lap
        u[1:-1, 1:-1] = new
    return u


def serial(dtype, steps=STEPS):
    heat = HeatSlabs(initial_grid(ROWS, COLS, dtype), comm=None)
    for _ in range(steps):
        heat.step()
    return heat.gather()


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_single_process_matches_numpy(dtype):
    expected = numpy_heat(initial_grid(ROWS, COLS, dtype), STEPS)
    if dtype == np.int32:
        np.testing.assert_array_equal(serial(dtype), expected)
    else:
        np.testing.assert_allclose(serial(dtype), expected, rtol=1e-5, atol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("ranks", [1, 2, 4])
@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_ranks_equal_the_single_process_run_bit_for_bit(ranks, dtype, tmp_path):
    out = tmp_path / "grid.npy"
    proc = run_ranks(ranks, ["-m", "warp_nb.kernels.heat_mpi", "--rows", str(ROWS), "--cols", str(COLS),
                             "--steps", str(STEPS), "--warmup", "0", "--dtype", dtype, "--out", str(out)])
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert last_json_line(proc.stdout)["ranks"] == ranks
    np.testing.assert_array_equal(np.load(out), serial(np.dtype(dtype)))


@pytest.mark.slow
def test_overlapped_exchange_gives_the_same_bits(tmp_path):
    out = tmp_path / "grid.npy"
    proc = run_ranks(2, ["-m", "warp_nb.kernels.heat_mpi", "--rows", str(ROWS), "--cols", str(COLS),
                         "--steps", str(STEPS), "--warmup", "0", "--overlap", "--out", str(out)])
    assert proc.returncode == 0, proc.stderr[-3000:]
    np.testing.assert_array_equal(np.load(out), serial(np.float32))


def test_split_rows_covers_the_grid_and_refuses_too_many_ranks():
    for rows, ranks in [(37, 4), (8, 8), (100, 3)]:
        counts = split_rows(rows, ranks)
        assert sum(counts) == rows and max(counts) - min(counts) <= 1
    with pytest.raises(ValueError, match="at least 5 rows or fewer ranks"):
        split_rows(3, 5)


def test_bad_grids_are_refused():
    with pytest.raises(TypeError, match="float32 or int32"):
        HeatSlabs(np.zeros((8, 8)), comm=None)
    with pytest.raises(ValueError, match="unstable"):
        HeatSlabs(np.zeros((8, 8), np.float32), comm=None, alpha=0.5)
    with pytest.raises(ValueError, match="at least 3x3"):
        HeatSlabs(np.zeros((2, 8), np.float32), comm=None)
