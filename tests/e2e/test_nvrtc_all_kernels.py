"""Every kernel the test suite compiled for the CPU also compiles for the GPU: the same pipeline,
with a CUDA target for sm_90 that has no device, turns the generated C++ (forward, and backward
where the session ran the adjoint) into PTX with NVRTC, so the CUDA path cannot rot on machines
without a GPU. Marked run_last (the conftest moves it after everything else); run on its own it
checks the kernels its own imports define.

The PTX is made with device optimization off (NVRTC's -G): that checks the text (parsing, types,
templates) and the generation of PTX, at 0.1 s a kernel instead of 0.23 s (the session's ~2,000
kernels took 7.7 minutes of CI optimized). About half of that 0.1 s is the native headers, so the
kernels go to NVRTC 16 to a program (emit/bundle.py, as a module load bundles them for the CPU);
a program that fails is compiled again one kernel at a time, which names the kernel. The
optimized build is checked on the kernels of each area by their own tests (test_tiles,
test_tile_blocks, test_tile_checks, test_tile_shapes, test_linear_solvers:
`*_compile_for_sm90_with_nvrtc`)."""

import dataclasses
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import warp_nb as wp
from warp_nb.compiler.emit import EmitResult
from warp_nb.compiler.emit.bundle import bundle_source, can_join
from warp_nb.compiler.pipeline import compile_kernel, front_half
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

    def compile_bundle(bundle):
        # one NVRTC program for the bundle (the native headers parsed once, not once per kernel);
        # where it fails, its kernels one by one, which names the kernel and keeps the refusals above
        units = [front.unit for _, front in bundle]
        unit = EmitResult(bundle_source(units), "", function=f"{len(units)} kernels", mode=units[0].mode)
        with tempfile.TemporaryDirectory(prefix="wpnb-nvrtc-") as tmp:
            try:
                target.build(unit, Path(tmp) / "bundle.ptx", bundle[0][1].options)
                return []
            except KernelError:
                return [compile_one(job) for job, _ in bundle]

    with ThreadPoolExecutor(4) as pool:
        fronts = list(pool.map(lambda job: _front(job, target), jobs))
        failures = [compile_one(job) for job, front in zip(jobs, fronts) if front is None]
        bundles = _bundles([(job, front) for job, front in zip(jobs, fronts) if front is not None])
        failures = [f for f in failures + [f for fs in pool.map(compile_bundle, bundles) for f in fs] if f]
    assert not failures, f"{len(failures)} of {len(jobs)} kernels failed under NVRTC:\n" + "\n\n".join(failures[:5])


def _front(job, target):
    """The front half of a job for `target` (None where it raises: its own compile reports that)."""
    k, options, signature = job
    try:
        return front_half(k, list(signature), options, target, entries="launch")
    except KernelError:
        return None


def _bundles(pairs: list, size: int = 16) -> list:
    """(job, front) pairs in bundles of at most `size` whose units can be one program (can_join)."""
    bundles: list = []
    for pair in pairs:
        home = next((b for b in bundles if len(b) < size and can_join([f.unit for _, f in b], pair[1].unit)), None)
        if home is None:
            bundles.append([pair])
        else:
            home.append(pair)
    return bundles


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
