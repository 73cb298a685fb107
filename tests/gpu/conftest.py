"""GPU tests: they run on cuda:0 when this machine has an NVIDIA GPU and a driver, and are
skipped with the reason otherwise (the CPU suite and the NVRTC compile checks cover the rest)."""

import pytest

import warp_nb as wp


def pytest_collection_modifyitems(config, items):
    if wp.is_cuda_available():
        return
    from warp_nb.cuda.driver import available
    skip = pytest.mark.skip(reason=f"no usable CUDA device: {available()[1]}")
    for item in items:
        if "tests/gpu" in str(item.fspath).replace("\\", "/"):
            item.add_marker(skip)
