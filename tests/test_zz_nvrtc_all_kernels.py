"""Every kernel the test suite compiled for the CPU also compiles for the GPU: NVRTC turns the
same generated C++ (forward and backward) into PTX for sm_90, so the CUDA path cannot rot on
machines without a GPU. This file runs last (pytest collects files in name order); run on its
own it checks the kernels its own imports define."""

import hashlib
from concurrent.futures import ThreadPoolExecutor

import pytest

import warp_nb as wp
from warp_nb import config, pipeline
from warp_nb.errors import KernelError
from warp_nb.runtime import native_dir

nvrtc = pytest.importorskip("warp_nb.nvrtc")


def _available() -> str | None:
    try:
        nvrtc.nvrtc_version()
    except nvrtc.NVRTCUnavailableError as e:
        return str(e)
    return None


@pytest.mark.needs_nvrtc
def test_every_kernel_of_the_session_compiles_with_nvrtc():
    reason = _available()
    if reason:
        pytest.skip(f"NVRTC unavailable: {reason}")
    sources = {}
    for module in list(pipeline._MODULES):
        for k in pipeline.kernels_of(module):
            # forward code of every kernel; backward code of those whose adjoint the session ran
            ran_backward = any(key[-1] is True for key in k._compiled)
            for backward in (False, True) if ran_backward else (False,):
                try:
                    unit = pipeline.prepare(k, config.mode, backward=backward).unit
                except KernelError:
                    continue  # kernels that tests expect to be refused, or that cannot be differentiated
                digest = hashlib.blake2b(unit.source.encode(), digest_size=16).hexdigest()
                sources.setdefault(digest, (k.key, backward, unit.source))
    assert len(sources) >= 1

    def compile_one(item):
        key, backward, source = item
        try:
            nvrtc.compile_cuda(source, 90, native_dir(), use_ptx=True, function=key)
        except KernelError as e:
            return f"{key} ({'backward' if backward else 'forward'}): {e}"
        return None

    with ThreadPoolExecutor(4) as pool:
        failures = [f for f in pool.map(compile_one, sources.values()) if f]
    assert not failures, f"{len(failures)} of {len(sources)} kernels failed under NVRTC:\n" + "\n\n".join(failures[:5])


@wp.kernel
def aot_example(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.sin(x[i]) * 2.0


@pytest.mark.needs_nvrtc
@pytest.mark.parametrize("use_ptx", [True, False])
def test_compile_aot_module_without_a_gpu(tmp_path, use_ptx):
    reason = _available()
    if reason:
        pytest.skip(f"NVRTC unavailable: {reason}")
    files = wp.compile_aot_module(__name__, arch=90, module_dir=tmp_path, use_ptx=use_ptx)
    data = files[0].read_bytes()
    if use_ptx:
        text = data.decode()
        assert ".target sm_90" in text and "aot_example" in text and "_cuda_backward" in text
    else:
        assert data[:4] == b"\x7fELF" and b"_cuda_forward" in data
    with pytest.raises(ValueError, match="cannot compile for sm_7"):
        wp.compile_aot_module(__name__, arch=7, module_dir=tmp_path)
