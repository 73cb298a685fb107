"""Which memory an array points into and who may read it: `wp.MemoryKind` / `array.memory_kind`,
`Device.can_access`, `wp.can_access`, the unified-memory capability flags, the checked setting
`wp.config.launch_array_access_mode`, the int32 limit on a dimension's length, and
`wp.is_conditional_graph_supported` (Warp answers False without a GPU)."""

import numpy as np
import pytest

import warp_nb as wp


def test_memory_kind_values_are_warps():
    assert [(k.name, int(k)) for k in wp.MemoryKind] == [
        ("UNKNOWN", 0), ("HOST", 1), ("PINNED", 2), ("CUDA_DEVICE", 3), ("CUDA_MEMPOOL", 4), ("CUDA_MANAGED", 5)]


def test_cpu_arrays_and_their_views_are_host_memory():
    a = wp.zeros(8, dtype=wp.float32, device="cpu")
    data = np.zeros(4, dtype=np.float32)
    wrapped = wp.array(data, dtype=wp.float32, device="cpu", copy=False)
    assert wrapped.ptr == data.ctypes.data  # numpy's own memory, still host memory
    for arr in (a, a[2:], wp.empty(0, dtype=wp.float32), wrapped):
        assert arr.memory_kind is wp.MemoryKind.HOST
    assert wp.array(dtype=wp.float32).memory_kind is wp.MemoryKind.UNKNOWN  # an annotation holds no memory
    indexed = wp.indexedarray(a, wp.array([0, 3], dtype=wp.int32))
    assert not hasattr(indexed, "memory_kind")
    assert not hasattr(wp.indexedarray[wp.float32], "memory_kind")


def test_can_access_on_the_cpu():
    cpu = wp.get_device("cpu")
    a = wp.zeros(4, dtype=wp.float32, device=cpu)
    assert cpu.can_access(cpu) and cpu.can_access("cpu")
    assert wp.can_access(cpu, a)
    assert wp.can_access("cpu", wp.indexedarray(a, wp.array([1, 2], dtype=wp.int32)))
    for flag in ("is_cpu_memory_access_from_gpu_supported", "is_gpu_memory_access_from_cpu_supported",
                 "is_cpu_gpu_atomic_supported", "is_managed_memory_supported",
                 "is_concurrent_managed_access_supported"):
        assert getattr(cpu, flag) is False


@pytest.mark.parametrize("resource", [wp.array(dtype=wp.float32), wp.array[wp.float32],
                                      wp.indexedarray(dtype=wp.float32), wp.indexedarray[wp.float32]])
def test_can_access_refuses_annotations(resource):
    with pytest.raises(TypeError, match="concrete Warp array"):
        wp.can_access("cpu", resource)


def test_can_access_refuses_what_is_not_an_array():
    with pytest.raises(TypeError, match="Warp arrays"):
        wp.can_access("cpu", wp.get_device("cpu"))
    with pytest.raises(TypeError, match="Warp arrays"):
        wp.can_access("cpu", np.zeros(3))


def test_launch_array_access_mode_takes_only_the_enum():
    old = wp.config.launch_array_access_mode
    try:
        for mode in wp.config.LaunchArrayAccessMode:
            wp.config.launch_array_access_mode = mode
            assert wp.config.launch_array_access_mode is mode
        for bad in (False, True, 0, 2, 999, "checked"):
            with pytest.raises(ValueError, match="launch_array_access_mode"):
                wp.config.launch_array_access_mode = bad
            assert wp.config.launch_array_access_mode is wp.config.LaunchArrayAccessMode.STRICT
    finally:
        wp.config.launch_array_access_mode = old


@pytest.mark.parametrize("make", [
    lambda: wp.zeros(2**31, dtype=wp.int8),
    lambda: wp.empty((2, 2**31), dtype=wp.int8),
    # a zero-stride view: nothing of 2 GiB exists, and nothing is allocated before the refusal
    lambda: wp.array(np.broadcast_to(np.zeros(1, dtype=np.int8), (2**31,)), dtype=wp.int8),
])
def test_a_dimension_longer_than_int32_is_refused(make):
    with pytest.raises(ValueError, match="maximum representable value of a signed 32-bit integer"):
        make()


def test_the_longest_dimension_is_accepted_in_a_view():
    base = np.zeros(1, dtype=np.int8)
    a = wp.array(ptr=base.ctypes.data, dtype=wp.int8, shape=(2**31 - 1,), strides=(0,), device="cpu")
    assert a.shape == (2**31 - 1,)


def test_conditional_graph_support_follows_cuda():
    expected = wp.is_cuda_available() and wp.get_cuda_driver_version() >= 12040
    assert wp.is_conditional_graph_supported() is expected
