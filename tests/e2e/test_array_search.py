"""wp.lower_bound (both forms, against numpy.searchsorted, clamped to the last index as Warp) and wp.sample_cdf (the histogram of its
draws against the probabilities of the CDF table)."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64, wp.int32])
def test_lower_bound(dtype):
    @wp.kernel(module="unique")
    def search(arr: wp.array(dtype=dtype), values: wp.array(dtype=dtype), whole: wp.array(dtype=int),
               part: wp.array(dtype=int)):
        i = wp.tid()
        whole[i] = wp.lower_bound(arr, values[i])
        part[i] = wp.lower_bound(arr, 2, 7, values[i])

    rng = np.random.default_rng(1)
    npt = wp.types.dtype_to_numpy(dtype) if hasattr(wp.types, "dtype_to_numpy") else np.dtype(dtype._np)
    arr = np.sort(rng.integers(-20, 20, 12)).astype(npt)
    values = np.concatenate([arr, rng.integers(-25, 25, 20)]).astype(npt)  # hits and misses, out of range
    whole, part = wp.zeros(len(values), dtype=int), wp.zeros(len(values), dtype=int)
    wp.launch(search, len(values), inputs=[wp.array(arr, dtype=dtype), wp.array(values, dtype=dtype), whole, part])
    # numpy's searchsorted, except that a value above every element gives the last index (Warp's rule)
    np.testing.assert_array_equal(whole.numpy(), np.minimum(np.searchsorted(arr, values, side="left"), len(arr) - 1))
    np.testing.assert_array_equal(part.numpy(), 2 + np.minimum(np.searchsorted(arr[2:7], values, side="left"), 4))


@wp.kernel
def draw(seed: int, cdf: wp.array(dtype=float), samples: wp.array(dtype=int)):
    tid = wp.tid()
    state = wp.rand_init(seed, tid)
    samples[tid] = wp.sample_cdf(state, cdf)
    samples[tid] = samples[tid] * 0 + wp.sample_cdf(state, cdf)  # the state advances: a second, different draw


def test_sample_cdf():
    cdf = np.linspace(0.05, 1.0, 20) ** 2
    n = 40000
    samples = wp.zeros(n, dtype=int)
    wp.launch(draw, n, inputs=[3, wp.array(cdf, dtype=float), samples])
    s = samples.numpy()
    assert s.min() >= 0 and s.max() < len(cdf)
    freq = np.bincount(s, minlength=len(cdf)) / n
    prob = np.diff(np.concatenate([[0.0], cdf]))
    np.testing.assert_allclose(freq, prob, atol=5 * np.sqrt(prob.max() / n))
