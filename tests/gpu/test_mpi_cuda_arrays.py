"""CUDA arrays as MPI buffers (written without a GPU at hand: run it where one is lent). mpi4py is
asked for its view of the buffer only, without starting MPI (`mpi4py.rc.initialize = False`), so this
checks what a CUDA-aware MPI would be handed: the array's own device address and size, through
DLPack or __cuda_array_interface__. The transfer itself needs a CUDA-aware MPI (docs/scaling.md)."""

import numpy as np
import pytest
from warp_nb.kernels.mpi_buffers import mpi_buffer

import warp_nb as wp

mpi4py = pytest.importorskip("mpi4py", reason="mpi4py is not installed: pip install 'warp_nb[mpi]'")


@pytest.fixture(scope="module")
def MPI():
    mpi4py.rc.initialize = False  # mpi4py's buffer views need no MPI job
    mpi4py.rc.finalize = False
    from mpi4py import MPI
    return MPI


@pytest.mark.needs_gpu
@pytest.mark.parametrize("dtype, components", [(wp.float32, 1), (wp.vec3, 3), (wp.int64, 1)])
def test_mpi_sees_the_device_address_of_a_cuda_array(MPI, dtype, components):
    a = wp.zeros(10, dtype=dtype, device="cuda:0")
    view = MPI.buffer(mpi_buffer(a, cuda_aware=True))
    assert view.address == a.ptr
    assert view.nbytes == 10 * components * np.dtype(wp.types.numpy_dtype(dtype)).itemsize


@pytest.mark.needs_gpu
def test_a_cuda_array_is_refused_without_a_cuda_aware_mpi(monkeypatch):
    monkeypatch.delenv("WARP_NB_MPI_CUDA_AWARE", raising=False)
    with pytest.raises(ValueError, match="is on cuda:0; the MPI library must be CUDA-aware"):
        mpi_buffer(wp.zeros(4, dtype=float, device="cuda:0"))
