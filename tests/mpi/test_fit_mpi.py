"""The data-parallel fit (warp_nb.kernels.fit_mpi): the gradient summed by Allreduce equals the
whole data set's gradient computed with numpy, every rank ends with the same parameters, and 1, 2
and 4 ranks follow the single-process run within float tolerance."""

import numpy as np
import pytest
from warp_nb.kernels.fit_mpi import DataParallelFit, shard, synthetic_data

from .mpirun import last_json_line, run_ranks

POINTS, STEPS = 1001, 30
pytestmark = [pytest.mark.needs_cxx]


def numpy_gradient(x, y, w, b):
    r = x.astype(np.float64) @ w + b - y
    return np.concatenate([2.0 * r @ x / len(y), [2.0 * r.mean()]])


def test_single_process_gradient_matches_numpy():
    x, y = synthetic_data(POINTS)
    fit = DataParallelFit(x, y, POINTS, comm=None)
    fit.step()  # move away from w = 0 so every component of the gradient matters
    w, b = fit.w.numpy()[0].astype(np.float64), float(fit.b.numpy()[0])
    fit.gradient()
    got = np.concatenate([fit.w.grad.numpy()[0], fit.b.grad.numpy()])
    np.testing.assert_allclose(got, numpy_gradient(x, y, w, b), rtol=1e-4, atol=1e-6)


def test_shards_cover_the_data_once():
    for count, ranks in [(1001, 4), (3, 4), (10, 1)]:
        covered = np.concatenate([np.arange(count)[shard(count, r, ranks)] for r in range(ranks)])
        np.testing.assert_array_equal(covered, np.arange(count))


def test_bad_data_shapes_are_refused():
    x, y = synthetic_data(10)
    with pytest.raises(ValueError, match="x must have shape"):
        DataParallelFit(x[:, :2], y, 10, comm=None)


@pytest.mark.slow
@pytest.mark.parametrize("ranks", [1, 2, 4])
def test_ranks_follow_the_single_process_fit(ranks):
    proc = run_ranks(ranks, ["-m", "warp_nb.kernels.fit_mpi", "--points", str(POINTS), "--steps", str(STEPS)])
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = last_json_line(proc.stdout)
    params = np.array(report["parameters"])
    assert params.shape == (ranks, 4)
    assert (params == params[0]).all(), "the ranks' parameters drifted apart"
    x, y = synthetic_data(POINTS)
    np.testing.assert_allclose(report["first_gradient"], numpy_gradient(x, y, np.zeros(3), 0.0), rtol=1e-4, atol=1e-6)
    fit = DataParallelFit(x, y, POINTS, comm=None)
    losses = [fit.step() for _ in range(STEPS)]
    np.testing.assert_allclose(params[0], fit.parameters(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(report["losses"], losses, rtol=1e-5)
    assert losses[-1] < 0.1 * losses[0]  # it does fit
