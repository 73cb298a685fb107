"""Streams and memory pools asked of the CPU, answered as warp-lang 1.19 answers (probed on a
machine without a GPU): the CPU has no stream to get or set (RuntimeError), synchronize_stream()
with no argument waits for the current device (nothing to wait for on the CPU), and the CUDA-only
memory-pool calls raise ValueError for the CPU, where turning a pool off, or asking whether one is
on, is fine."""

import pytest

import warp_nb as wp


def test_the_cpu_has_no_stream():
    cpu = wp.get_device("cpu")
    assert cpu.has_stream is False
    with pytest.raises(RuntimeError, match="cpu is not a CUDA device"):
        cpu.stream
    with pytest.raises(RuntimeError, match="cpu is not a CUDA device"):
        cpu.stream = None
    with wp.ScopedDevice("cpu"):
        with pytest.raises(RuntimeError):
            wp.Stream()
        with pytest.raises(RuntimeError):
            wp.get_stream()


def test_events_and_ipc_handles_refuse_the_cpu():
    # probed in warp-lang 1.19: wp.Event takes (device, cuda_event, enable_timing, interprocess) and raises
    # RuntimeError on the CPU whatever the flags (its ipc_handle doc example, wp.Event(interprocess=True),
    # raised TypeError here); an array's ipc_handle() on the CPU: RuntimeError "IPC requires a CUDA device"
    for kwargs in ({}, {"interprocess": True}, {"enable_timing": True, "interprocess": True}, {"cuda_event": None}):
        with pytest.raises(RuntimeError):
            wp.Event("cpu", **kwargs)
    with pytest.raises(RuntimeError, match="IPC requires a CUDA device"):
        wp.zeros(3, device="cpu").ipc_handle()


def test_synchronize_stream_defaults_to_the_current_device():
    with wp.ScopedDevice("cpu"):
        wp.synchronize_stream()
    wp.synchronize_stream("cpu")
    wp.synchronize_stream(None)
    with pytest.raises(wp.DeviceError):
        wp.synchronize_stream("cuda:7")


@pytest.mark.parametrize("call", [
    lambda d: wp.set_mempool_enabled(d, True),
    lambda d: wp.set_mempool_release_threshold(d, 42000),
    lambda d: wp.get_mempool_release_threshold(d),
    lambda d: wp.get_mempool_used_mem_current(d),
    lambda d: wp.get_mempool_used_mem_high(d),
    lambda d: wp.set_mempool_access_enabled(d, d, True),
])
def test_memory_pool_calls_refuse_the_cpu(call):
    with pytest.raises(ValueError, match="only supported (on|between) CUDA devices"):
        call(wp.get_device("cpu"))


def test_memory_pool_questions_about_the_cpu():
    cpu = wp.get_device("cpu")
    assert not wp.is_mempool_supported(cpu) and not cpu.is_mempool_supported and not wp.is_mempool_enabled(cpu)
    assert not wp.is_mempool_access_enabled("cpu", "cpu")
    wp.set_mempool_enabled(cpu, False)
    wp.set_mempool_access_enabled("cpu", "cpu", False)
