"""`target op= value` evaluates the target's index expressions first, once, then the value, as
Python does: an index with a side effect that the value reads shows the order. The expected
result is what running the same statements as plain Python on numpy arrays gives."""

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


@wp.func
def bump(state: wp.array(dtype=int)) -> int:
    i = state[0]
    state[0] = i + 1
    return i


@wp.func
def read(state: wp.array(dtype=int)) -> float:
    return float(state[0]) * 100.0


@wp.kernel
def ordered(dst: wp.array(dtype=wp.mat33), counts: wp.array(dtype=float), state: wp.array(dtype=int)):
    dst[bump(state)][1] += wp.vec3(read(state), 0.0, 0.0)
    counts[bump(state)] += read(state)  # the atomic form (a whole array element) too


def test_target_before_value_and_once():
    dst, counts, state = wp.zeros(4, dtype=wp.mat33), wp.zeros(4, dtype=float), wp.zeros(1, dtype=int)
    wp.launch(ordered, 1, inputs=[dst, counts, state])
    # the same statements in Python, with Python's evaluation order
    ref_dst, ref_counts, ref_state = np.zeros((4, 3, 3)), np.zeros(4), [0]

    def py_bump():
        i = ref_state[0]
        ref_state[0] = i + 1
        return i

    def py_read():
        return ref_state[0] * 100.0

    ref_dst[py_bump()][1] += np.array([py_read(), 0.0, 0.0])
    ref_counts[py_bump()] += py_read()
    np.testing.assert_array_equal(dst.numpy(), ref_dst)
    np.testing.assert_array_equal(counts.numpy(), ref_counts)
    assert state.numpy()[0] == ref_state[0] == 2
