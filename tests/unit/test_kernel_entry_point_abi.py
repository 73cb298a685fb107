"""@wp.kernel(entry_point_abi=...): Warp's values are checked with Warp's ValueErrors; 'warp' is the
default, 'external_constant_params' makes one CUDA entry point for another program to launch
(compiler/entry_abi.py): its struct parameter in a __constant__ buffer `params`, no wp.tid(), no
shared tiles, no deterministic lowering, no CPU build and no wp.launch. The refusals and messages
follow warp-lang 1.19's (probed); the entry point is checked by compiling it with NVRTC."""

import re

import pytest

import warp_nb as wp
from warp_nb._src.context import ModuleBuilder

EXTERNAL = dict(module="unique", enable_backward=False, entry_point_abi="external_constant_params")


@wp.struct
class LaunchParams:
    value: wp.uint32
    scale: wp.float64
    out: wp.array(dtype=float)


def _codegen(kernel, device="cuda"):
    module = kernel.module
    return ModuleBuilder(module, module.resolve_options(wp.config)).codegen(device)


@pytest.mark.parametrize("options, error, words", [
    ({"entry_point_abi": "external"}, ValueError, "must be 'warp' or 'external_constant_params'"),
    ({"entry_point_abi": "external_constant_params"}, ValueError, "requires enable_backward=False"),
])
def test_kernel_entry_point_abi_is_checked(options, error, words):
    with pytest.raises(error, match=words):
        @wp.kernel(module="unique", **options)
        def k():
            return


def test_the_default_entry_point_abi_is_accepted():
    @wp.kernel(module="unique", enable_backward=False, entry_point_abi="warp")
    def k():
        return

    assert k.key.endswith("k")


def _no_params():
    return


def _scalar_param(value: wp.uint32):
    _ = value


def _two_params(params: LaunchParams, other: LaunchParams):
    _ = params.value


def _uses_tid(params: LaunchParams):
    _ = wp.tid()


def _shared_tile(params: LaunchParams):
    t = wp.tile_zeros(shape=8, dtype=wp.float32, storage="shared")
    params.out[0] = t[0]


@pytest.mark.parametrize("fn, error, words", [
    (_no_params, wp.WarpCodegenTypeError, "exactly one Warp struct argument"),
    (_scalar_param, wp.WarpCodegenTypeError, "exactly one Warp struct argument"),
    (_two_params, wp.WarpCodegenTypeError, "exactly one Warp struct argument"),
    (_uses_tid, wp.WarpCodegenError, r"cannot use wp\.tid"),
    (_shared_tile, wp.WarpCodegenError, "cannot use shared-memory tiles"),
])
def test_what_an_external_entry_point_cannot_have_is_refused_at_its_line(fn, error, words):
    kernel = wp.kernel(fn, **EXTERNAL)
    with pytest.raises(error, match=words) as info:
        _codegen(kernel)
    assert __file__.rsplit("/", 1)[-1] in str(info.value) and "warp_nb" not in str(info.value)


def test_deterministic_lowering_is_refused():
    @wp.kernel(module_options={"deterministic": wp.DeterministicMode.RUN_TO_RUN}, **EXTERNAL)
    def k(params: LaunchParams):
        wp.atomic_add(params.out, 0, 1.0)

    with pytest.raises(wp.WarpCodegenError, match="does not support deterministic lowering"):
        _codegen(k)


def test_the_cpu_backend_and_wp_launch_refuse_it():
    @wp.kernel(**EXTERNAL)
    def k(params: LaunchParams):
        params.out[0] = float(params.value)

    with pytest.raises(wp.WarpCodegenError, match="not supported by the CPU backend"):
        _codegen(k, "cpu")
    for dim in (0, 1):
        with pytest.raises(RuntimeError, match="cannot be launched with wp.launch"):
            wp.launch(k, dim=dim, inputs=[LaunchParams()], device="cpu")


def test_the_entry_point_reads_its_struct_from_constant_memory():
    @wp.kernel(name="__raygen__unit_external", **EXTERNAL)
    def k(params: LaunchParams):
        params.out[0] = float(params.value) * float(params.scale)

    source = _codegen(k)
    assert re.search(r'extern "C" \{\n__constant__ __align__\(alignof\((\S+)\)\) unsigned char params\[sizeof\(\1\)\];',
                     source)
    assert "WPNB_KERNEL void __raygen__unit_external() {" in source
    assert "_cuda_forward" not in source and "_cuda_backward" not in source  # no entry of Warp's launch ABI


@pytest.mark.needs_nvrtc
def test_the_entry_point_compiles_with_nvrtc():
    from warp_nb.toolchain import nvrtc
    from warp_nb.toolchain.headers import native_dir
    try:
        nvrtc.nvrtc_version()
    except nvrtc.NVRTCUnavailableError as e:
        pytest.skip(f"NVRTC unavailable: {e}")

    @wp.kernel(name="__raygen__unit_compiled", **EXTERNAL)
    def k(params: LaunchParams):
        params.out[0] = float(params.value) * float(params.scale)

    ptx = nvrtc.compile_cuda(_codegen(k), 80, native_dir(), True, False, function="k").decode()
    assert ".visible .entry __raygen__unit_compiled()" in ptx  # C linkage, no parameters
    # the struct (uint32, float64, then the array descriptor) in constant memory, 8-aligned
    assert re.search(r"\.const \.align 8 \.b8 params\[\d+\];", ptx)
