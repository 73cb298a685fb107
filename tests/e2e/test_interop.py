"""Zero-copy interop on the CPU: __array_interface__, DLPack both ways (numpy; torch when it is
installed), and the refusals of CUDA-only features on a machine without a GPU."""

import gc

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.arrays import dlpack


def test_dlpack_export_shares_memory_and_keeps_the_array_alive():
    a = wp.array(np.arange(12, dtype=np.float32).reshape(4, 3), dtype=wp.vec3)
    view = np.from_dlpack(a)
    assert view.shape == (4, 3) and view.dtype == np.float32
    view[0, 0] = 99.0
    assert a.numpy()[0, 0] == 99.0
    del a
    gc.collect()
    assert view[0, 0] == 99.0  # the capsule keeps the memory alive
    del view
    gc.collect()
    assert not dlpack._exported  # and releases it when the consumer is done


def test_dlpack_of_strided_views_and_unconsumed_capsules():
    a = wp.array(np.arange(20, dtype=np.float64).reshape(4, 5))
    assert np.from_dlpack(a[:, 1:4:2]).tolist() == np.arange(20.0).reshape(4, 5)[:, 1:4:2].tolist()
    capsule = a.__dlpack__()
    del capsule
    gc.collect()
    assert not dlpack._exported


def test_dlpack_import_without_copy():
    x = np.zeros((5, 3), dtype=np.float32)
    a = wp.from_dlpack(x, dtype=wp.vec3)
    assert a.shape == (5,) and a.dtype is wp.vec3
    a.fill_(wp.vec3(1.0, 2.0, 3.0))
    assert (x == [1, 2, 3]).all()
    b = wp.from_dlpack(np.arange(6, dtype=np.uint16)[::2])
    assert b.dtype is wp.uint16 and b.numpy().tolist() == [0, 2, 4]
    with pytest.raises(TypeError, match="cannot be viewed as"):
        wp.from_dlpack(np.zeros((5, 2), np.float32), dtype=wp.vec3)


@pytest.mark.needs_cxx
def test_kernels_run_on_imported_memory():
    @wp.kernel
    def double(a: wp.array(dtype=float)):
        i = wp.tid()
        a[i] = a[i] * 2.0

    x = np.arange(8, dtype=np.float32)
    wp.launch(double, dim=8, inputs=[wp.from_dlpack(x)])
    assert x.tolist() == [0, 2, 4, 6, 8, 10, 12, 14]


def test_torch_round_trip():
    torch = pytest.importorskip("torch", reason="torch is not installed (optional interop)")
    t = torch.arange(6, dtype=torch.float32)
    a = wp.from_torch(t)
    a.fill_(3.0)
    assert t.tolist() == [3.0] * 6
    back = wp.to_torch(wp.array(np.ones((2, 3), np.float32), dtype=wp.vec3))
    assert tuple(back.shape) == (2, 3)


def test_cuda_features_refuse_cleanly_without_a_gpu():
    if wp.is_cuda_available():
        pytest.skip("this machine has a GPU; tests/gpu covers the CUDA path")
    assert [d.alias for d in wp.get_devices()] == ["cpu"]
    with pytest.raises(wp.DeviceError, match="no NVIDIA GPU"):
        wp.zeros(4, device="cuda:0")
    with pytest.raises(wp.DeviceError, match="streams and events belong to CUDA devices"):
        wp.Stream("cpu")
    with pytest.raises(AttributeError, match="CPU array has no __cuda_array_interface__"):
        wp.zeros(2).__cuda_array_interface__
    wp.synchronize()  # nothing to wait for; must not need a driver
