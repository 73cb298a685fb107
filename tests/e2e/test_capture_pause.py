"""Pausing a graph capture (Warp's `warp._src.context.capture_pause` / `capture_resume`): work done
while paused runs at once and is neither replayed nor saved; `device.is_capturing` follows the
capture; misuse raises a RuntimeError that says what is wrong."""

import os

import numpy as np
import pytest

import warp_nb as wp
from warp_nb._src.context import (
    _is_graph_capture_allocation_enabled,
    _is_graph_capture_allocation_supported,
    capture_pause,
    capture_resume,
)

pytestmark = pytest.mark.needs_cxx


@wp.kernel
def scale(x: wp.array(dtype=float), y: wp.array(dtype=float), s: float):
    i = wp.tid()
    y[i] = x[i] * s


def test_paused_work_runs_now_and_is_not_replayed():
    n = 8
    base = np.arange(n, dtype=np.float32) + 1.0
    a = wp.array(base)
    out = wp.zeros(n, dtype=float)
    side = wp.zeros(n, dtype=float)
    cpu = wp.get_device("cpu")
    assert not cpu.is_capturing
    with wp.ScopedCapture(device="cpu") as capture:
        assert cpu.is_capturing
        wp.launch(scale, dim=n, inputs=[a, out, 2.0])
        graph = capture_pause(device="cpu")
        assert not cpu.is_capturing
        scratch = wp.zeros(n, dtype=float)  # allocated now, outside the graph
        wp.launch(scale, dim=n, inputs=[a, side, 5.0])  # runs now
        np.testing.assert_allclose(side.numpy(), 5.0 * base)
        capture_resume(graph, device="cpu")
        assert cpu.is_capturing
        wp.launch(scale, dim=n, inputs=[out, out, 3.0])
    assert not cpu.is_capturing
    np.testing.assert_allclose(out.numpy(), 0.0)  # recorded launches have not run yet
    side.zero_()
    scratch.fill_(1.0)
    wp.capture_launch(capture.graph)
    np.testing.assert_allclose(out.numpy(), 6.0 * base)
    np.testing.assert_allclose(side.numpy(), 0.0)  # the paused launch is not part of the graph
    np.testing.assert_allclose(scratch.numpy(), 1.0)


def test_paused_work_is_not_saved(tmp_path):
    n = 4
    src = wp.array(np.arange(n, dtype=np.float32))
    paused = wp.zeros(n, dtype=float)
    out = wp.zeros(n, dtype=float)
    with wp.ScopedCapture(device="cpu", apic=True) as capture:
        graph = capture_pause()
        wp.launch(scale, dim=n, inputs=[src, paused, 5.0])
        capture_resume(graph)
        wp.launch(scale, dim=n, inputs=[src, out, 2.0])
    path = os.path.join(tmp_path, "paused")
    wp.capture_save(capture.graph, path, inputs={"src": src}, outputs={"out": out, "paused": paused})
    paused.zero_()
    loaded = wp.capture_load(path)
    wp.capture_launch(loaded)
    result = wp.zeros(n, dtype=float)
    loaded.get_param("out", result)
    np.testing.assert_allclose(result.numpy(), 2.0 * np.arange(n))
    loaded.get_param("paused", result)
    np.testing.assert_allclose(result.numpy(), 5.0 * np.arange(n))  # the value saved, not re-run work


def test_misuse_raises():
    with pytest.raises(RuntimeError, match="no graph capture is active"):
        capture_pause()
    with wp.ScopedCapture(device="cpu"):
        with pytest.raises(RuntimeError, match="not paused"):
            capture_resume(None)
        graph = capture_pause()
        with pytest.raises(RuntimeError, match="paused"):
            wp.capture_begin()
        with pytest.raises(RuntimeError, match="not the graph"):
            capture_resume(object())
        capture_resume(graph)
    with pytest.raises(RuntimeError, match="paused; resume it"):
        wp.capture_begin()
        capture_pause()
        try:
            wp.capture_end()
        finally:
            from warp_nb.runtime import recording
            recording.capture, recording.paused_capture = None, None


def test_capture_allocation_capability_on_cpu():
    assert _is_graph_capture_allocation_supported("cpu")
    assert _is_graph_capture_allocation_enabled("cpu")


def test_resuming_a_finished_graph_is_refused_and_it_still_replays():
    a = wp.zeros(4, dtype=float)
    with wp.ScopedCapture(device="cpu", apic=True) as capture:
        a.fill_(1.0)
    with pytest.raises(RuntimeError, match="not paused"):
        capture_resume(capture.graph)
    assert not wp.get_device("cpu").is_capturing
    a.zero_()
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(a.numpy(), 1.0)
