"""Entries of Warp's runtime object (`warp._src.context.runtime`) that code outside arrays calls
through ctypes, and the CUDA profiler range: the allocation tracker's on/off switch (counted
against the number of arrays made), `wp_memset_host` on a raw address (checked byte by byte, and
replayed from a graph capture), `wp.cuda_profiler_start/stop` and `wp.ScopedCudaProfiler` (a no-op
on the CPU that never reaches the driver; a failure to stop raised only when the block did not
raise)."""

import ctypes
import os
import tempfile

import numpy as np
import pytest

import warp_nb as wp
from warp_nb._src.context import runtime as _runtime  # noqa: F401  (makes the runtime object)
from warp_nb._src import runtime_object
from warp_nb.runtime import memory_tracker


def core():
    return runtime_object.current().core


def test_alloc_tracker_switch_counts_without_a_scope():
    c = core()
    assert not c.wp_alloc_tracker_is_enabled()
    before = c.wp_alloc_tracker_get_total_alloc_count()
    wp.zeros(8, dtype=float)
    assert c.wp_alloc_tracker_get_total_alloc_count() == before  # off: nothing counted
    c.wp_alloc_tracker_enable(ctypes.c_int(1))
    try:
        assert c.wp_alloc_tracker_is_enabled()
        arrays = [wp.zeros(8, dtype=float) for _ in range(3)]
        assert c.wp_alloc_tracker_get_total_alloc_count() - before == len(arrays)
    finally:
        c.wp_alloc_tracker_enable(0)
    assert not c.wp_alloc_tracker_is_enabled() and not memory_tracker.enabled()
    wp.zeros(8, dtype=float)
    assert c.wp_alloc_tracker_get_total_alloc_count() - before == 3


def test_memset_host_sets_bytes_at_an_address():
    buf = (ctypes.c_uint8 * 32)(*range(32))
    core().wp_memset_host(ctypes.c_void_p(ctypes.addressof(buf)), ctypes.c_int(0x1A5), ctypes.c_size_t(16))
    want = np.concatenate([np.full(16, 0xA5), np.arange(16, 32)]).astype(np.uint8)
    np.testing.assert_array_equal(np.frombuffer(buf, np.uint8), want)  # the value's low byte, as memset
    core().wp_memset_host(ctypes.addressof(buf), 0, 0)  # nothing to do
    with pytest.raises(ValueError, match="null destination"):
        core().wp_memset_host(ctypes.c_void_p(None), 0, 4)


def test_memset_host_in_a_capture_replays_and_is_refused_by_save():
    arr = wp.full(64, value=7, dtype=wp.int32, device="cpu")
    with wp.ScopedCapture(device="cpu") as capture:
        core().wp_memset_host(ctypes.c_void_p(arr.ptr), ctypes.c_int(0), ctypes.c_size_t(arr.size * 4))
    np.testing.assert_array_equal(arr.numpy(), 7)  # recorded, not run
    wp.capture_launch(capture.graph)
    np.testing.assert_array_equal(arr.numpy(), 0)
    arr.fill_(7)
    wp.capture_launch(capture.graph)  # again, on each replay
    np.testing.assert_array_equal(arr.numpy(), 0)

    with wp.ScopedCapture(device="cpu", apic=True) as capture:
        core().wp_memset_host(ctypes.c_void_p(arr.ptr), 0, arr.size * 4)
    with tempfile.TemporaryDirectory() as tmp, pytest.raises(RuntimeError, match="wp_memset_host"):
        wp.capture_save(capture.graph, os.path.join(tmp, "g"), outputs={"arr": arr})


def test_profiler_is_a_noop_on_the_cpu(monkeypatch):
    calls = []
    monkeypatch.setattr(type(core()), "wp_cuda_profiler_start", staticmethod(lambda ctx: calls.append(ctx)))
    monkeypatch.setattr(type(core()), "wp_cuda_profiler_stop", staticmethod(lambda ctx: calls.append(ctx)))
    wp.cuda_profiler_start(device="cpu")
    wp.cuda_profiler_stop(device="cpu")
    with wp.ScopedCudaProfiler(device="cpu"):
        pass
    assert calls == []


def test_profiler_on_a_cuda_context_goes_through_the_core_entry(monkeypatch):
    from warp_nb.cuda import profiler

    class FakeCuda:
        is_cuda, context = True, object()

    calls = []
    monkeypatch.setattr(profiler, "_cuda_device", lambda device: FakeCuda)
    monkeypatch.setattr(type(core()), "wp_cuda_profiler_start", staticmethod(lambda ctx: calls.append(("start", ctx))))
    monkeypatch.setattr(type(core()), "wp_cuda_profiler_stop", staticmethod(lambda ctx: calls.append(("stop", ctx))))
    wp.cuda_profiler_start()
    wp.cuda_profiler_stop()
    assert calls == [("start", FakeCuda.context), ("stop", FakeCuda.context)]


def test_scoped_profiler_stop_failure(monkeypatch):
    from warp_nb.cuda import profiler

    def fail(device=None):
        raise RuntimeError("stop failed")

    monkeypatch.setattr(profiler, "cuda_profiler_stop", fail)
    with pytest.raises(RuntimeError, match="stop failed"):
        with wp.ScopedCudaProfiler(device="cpu"):
            pass
    with pytest.raises(ValueError, match="body failed"):  # the block's exception is kept
        with wp.ScopedCudaProfiler(device="cpu"):
            raise ValueError("body failed")


def test_is_cuda_enabled_says_whether_cuda_bindings_import():
    try:
        import cuda.bindings.driver  # noqa: F401
        importable = True
    except ImportError:
        importable = False
    assert runtime_object.current().is_cuda_enabled is importable


def test_profiler_driver_calls_run_on_the_given_context(monkeypatch):
    """Without a GPU: the driver calls the core entries make, recorded by a stand-in for driver.call
    (cuProfilerStart/Stop act on the current context, so the device's is pushed around them)."""
    from warp_nb.cuda import driver, profiler

    calls = []
    monkeypatch.setattr(driver, "call", lambda name, *args: calls.append((name, *args)))
    context = object()
    profiler.context_start(context)
    profiler.context_stop(context)
    assert calls == [("cuCtxPushCurrent", context), ("cuProfilerStart",), ("cuCtxPopCurrent",),
                     ("cuCtxPushCurrent", context), ("cuProfilerStop",), ("cuCtxPopCurrent",)]

    def failing(name, *args):
        calls.append((name, *args))
        if name == "cuProfilerStart":
            raise driver.CUDAError("cuProfilerStart failed: CUDA_ERROR_PROFILER_DISABLED")

    calls.clear()
    monkeypatch.setattr(driver, "call", failing)
    with pytest.raises(driver.CUDAError, match="PROFILER_DISABLED"):
        profiler.context_start(context)
    assert calls[-1] == ("cuCtxPopCurrent",)  # the context is popped even when the call fails
