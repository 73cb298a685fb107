"""The CUDA half of a CPU test file: the kernels it ran on the CPU, compiled again for sm_90 by
NVRTC with the same options and signatures (no GPU needed), so the CUDA text cannot rot."""

import pytest


def compile_for_sm90(kernels: list) -> None:
    """Compile each kernel's CPU-compiled variants for sm_90 (PTX); skip where NVRTC is missing."""
    from warp_nb.compiler.pipeline import compile_kernel
    from warp_nb.cuda.target import AotCudaTarget
    from warp_nb.toolchain import nvrtc

    try:
        nvrtc.nvrtc_version()
    except nvrtc.NVRTCUnavailableError as e:
        pytest.skip(f"NVRTC unavailable: {e}")
    target = AotCudaTarget(90, use_ptx=True)
    jobs = [(k, options, sig) for k in kernels for options, sig in k.compiled_options("cpu")]
    assert len(jobs) >= len(kernels), "run the CPU tests of this file first (they compile the kernels)"
    for k, options, sig in jobs:
        compile_kernel(k, sig, target, options)
