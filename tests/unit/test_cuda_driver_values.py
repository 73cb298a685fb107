"""The driver wrapper turns cuda-bindings' handle objects into the integers the rest of warp_nb
passes around (device addresses, stream handles). Runs without a GPU: the objects are built from
known values. The fake driver of tests/e2e/test_cuda_fake.py hands out plain integers and so
cannot see this; on the first GPU run every copy failed with CUDA_ERROR_INVALID_VALUE because
the address of the object's storage (getPtr) was used instead of the value."""

import pytest

driver = pytest.importorskip("cuda.bindings.driver", reason="cuda-bindings is not installed")

from warp_nb.cuda import driver as drv  # noqa: E402


@pytest.mark.parametrize("make", [driver.CUdeviceptr, driver.CUstream, driver.CUcontext])
def test_handles_become_their_values(make):
    value = 0x7F00_1234_5000
    assert drv.to_int(make(value)) == value


def test_plain_integers_pass_through():
    assert drv.to_int(4096) == 4096
