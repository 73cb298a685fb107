"""Arrays made inside a CPU graph capture: `wp.zeros` there is zeroed again by every
`wp.capture_launch`, as in Warp 1.19, so a counter the captured kernels add to (MuJoCo Warp's
transmission) starts from zero on each replay."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def _count(counter: wp.array(dtype=int), seen: wp.array(dtype=int)):
    seen[0] = wp.atomic_add(counter, 0, 1)


def test_zeros_made_in_a_capture_are_zeroed_on_each_replay():
    seen = wp.zeros(1, dtype=int, device="cpu")
    with wp.ScopedCapture(device="cpu") as capture:
        counter = wp.zeros(1, dtype=int, device="cpu")
        wp.launch(_count, dim=1, inputs=[counter, seen], device="cpu")
    for _ in range(2):  # values probed from warp-lang 1.19: [0] and [1] after each replay
        wp.capture_launch(capture.graph)
        np.testing.assert_array_equal(seen.numpy(), [0])
        np.testing.assert_array_equal(counter.numpy(), [1])
