"""mpi_buffer's checks in one process, without MPI: what it hands mpi4py shares the array's memory,
and strided, empty, non-warp and GPU arrays are refused with the fix in the message."""

import numpy as np
import pytest
from warp_nb.kernels.mpi_buffers import CUDA_AWARE_ENV, mpi_buffer

import warp_nb as wp


def test_a_cpu_array_becomes_a_numpy_view_of_the_same_memory():
    a = wp.array(np.arange(12, dtype=np.float32).reshape(4, 3), dtype=wp.vec3)
    view = mpi_buffer(a)
    assert view.__array_interface__["data"][0] == a.ptr and view.shape == (4, 3) and view.dtype == np.float32
    view[2] = -1.0  # what MPI receives lands in the array
    np.testing.assert_array_equal(a.numpy()[2], [-1.0, -1.0, -1.0])


def test_a_row_of_a_grid_is_contiguous_and_a_column_is_refused():
    grid = wp.zeros((4, 5), dtype=float)
    assert mpi_buffer(grid[2]).__array_interface__["data"][0] == grid.ptr + 2 * 5 * 4
    with pytest.raises(ValueError, match=r"col is a strided view .*strides \(20,\).*a\.contiguous\(\)"):
        mpi_buffer(grid[:, 1], "col")


def test_empty_and_foreign_arrays_are_refused():
    with pytest.raises(ValueError, match="empty"):
        mpi_buffer(wp.zeros(0, dtype=float))
    with pytest.raises(TypeError, match="numpy arrays go to mpi4py directly"):
        mpi_buffer(np.zeros(3))


class _CudaDevice:
    is_cuda = True

    def __str__(self):
        return "cuda:0"


class _GpuArrayStandIn:
    """What mpi_buffer reads of a CUDA wp.array (no GPU here): the checks, not the memory."""
    _wp_array_ = True
    dtype, shape, strides, size, is_contiguous = wp.float32, (8,), (4,), 8, True
    device = _CudaDevice()


def test_a_gpu_array_needs_a_cuda_aware_mpi(monkeypatch):
    monkeypatch.delenv(CUDA_AWARE_ENV, raising=False)
    gpu = _GpuArrayStandIn()
    with pytest.raises(ValueError, match="is on cuda:0; the MPI library must be CUDA-aware.*a.numpy\\(\\).*cuda_aware=True"):
        mpi_buffer(gpu)
    assert mpi_buffer(gpu, cuda_aware=True) is gpu  # mpi4py then reads __cuda_array_interface__ / DLPack
    monkeypatch.setenv(CUDA_AWARE_ENV, "1")
    assert mpi_buffer(gpu) is gpu


def test_mpi4py_sees_the_arrays_memory_without_starting_mpi():
    mpi4py = pytest.importorskip("mpi4py", reason="mpi4py is not installed: pip install 'warp_nb[mpi]'")
    mpi4py.rc.initialize = False  # buffer views need no MPI job (and this pytest process is not one)
    mpi4py.rc.finalize = False
    from mpi4py import MPI
    a = wp.zeros(4, dtype=wp.vec3)
    for given in (a, mpi_buffer(a)):  # the array itself (DLPack) and the numpy view
        view = MPI.buffer(given)
        assert view.address == a.ptr and view.nbytes == 4 * 3 * 4
