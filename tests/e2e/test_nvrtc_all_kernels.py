"""Every kernel the test suite compiled for the CPU also compiles for the GPU: the same pipeline,
with a CUDA target for sm_90 that has no device, turns the generated C++ (forward, and backward
where the session ran the adjoint) into PTX with NVRTC, so the CUDA path cannot rot on machines
without a GPU. Marked run_last (the conftest moves it after everything else); run on its own it
checks the kernels its own imports define.

The PTX is made with device optimization off (NVRTC's -G): that checks the text (parsing, types,
templates) and the generation of PTX, at 0.1 s a kernel instead of 0.23 s (the session's ~2,000
kernels took 7.7 minutes of CI optimized). The optimized build is checked on the kernels of each
area by their own tests (test_tiles, test_tile_blocks, test_tile_checks, test_tile_shapes,
test_linear_solvers: `*_compile_for_sm90_with_nvrtc`)."""

import dataclasses
from concurrent.futures import ThreadPoolExecutor

import pytest

import warp_nb as wp
from warp_nb.compiler.pipeline import compile_kernel
from warp_nb.cuda.target import AotCudaTarget
from warp_nb.errors import KernelError
from warp_nb.program.module import modules
from warp_nb.toolchain import nvrtc


class UnoptimizedPtx(AotCudaTarget):
    """sm_90 PTX built with -G (the debug build's flag: device optimization off), cached apart
    from optimized PTX."""

    def key_parts(self, options) -> tuple[str, ...]:
        return (*super().key_parts(options), "-G")

    def build(self, unit, out_path, options) -> None:
        super().build(unit, out_path, dataclasses.replace(options, mode="debug"))


def _available() -> str | None:
    try:
        nvrtc.nvrtc_version()
    except nvrtc.NVRTCUnavailableError as e:
        return str(e)
    return None


@pytest.mark.run_last
@pytest.mark.needs_nvrtc
@pytest.mark.slow
def test_every_kernel_of_the_session_compiles_with_nvrtc():
    reason = _available()
    if reason:
        pytest.skip(f"NVRTC unavailable: {reason}")
    target = UnoptimizedPtx(90, use_ptx=True)
    # what the session compiled for the CPU: each kernel with each set of options it ran with
    jobs = [(k, options, sig) for m in modules() if not _cpu_only(m) for k in m.kernels
            for options, sig in k.compiled_options("cpu")]
    assert jobs

    def compile_one(job):
        k, options, signature = job
        try:
            compile_kernel(k, signature, target, options)
        except KernelError as e:
            if "cannot be linked into CUDA code" in str(e):
                return None  # it calls a host library (wp.build_experimental): CPU only, refused as it should be
            return f"{k.key} ({'backward' if options.backward else 'forward'}): {e}"
        return None

    with ThreadPoolExecutor(4) as pool:
        failures = [f for f in pool.map(compile_one, jobs) if f]
    assert not failures, f"{len(failures)} of {len(jobs)} kernels failed under NVRTC:\n" + "\n\n".join(failures[:5])


def _cpu_only(module) -> bool:
    """A module given CPU-only C++ (wp.ModuleBuildOptions' extra_cpu_preamble / include dirs): its
    kernels may call what only the CPU build defines, so there is no CUDA text to check."""
    extra = module.options.get("extra_build_options")
    return bool(extra is not None and (extra.extra_cpu_preamble or extra.extra_cpu_include_dirs))


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
