"""Kernel hashes and mangled names, the CUDA architecture check, the CPU instruction set chosen by
cpu_compiler_flags (what it compiles, what the module hash and output names cover), and the AOT
warning for -march=native builds (test_context, test_options)."""

import types

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import config
from warp_nb._src import context
from warp_nb.cuda.arch_support import validate_device_arch
from warp_nb.program.module import _caller_module
from warp_nb.toolchain import cpu_isa


def test_cuda_13_refuses_pre_turing_devices_with_a_way_out():
    with pytest.raises(RuntimeError) as e:
        validate_device_arch(61, (13, 0), "cuda:1")
    for words in ("cuda:1", "sm_61", "CUDA 13", "sm_75", "CUDA 12 build"):
        assert words in str(e.value)
    validate_device_arch(75, (13, 1))
    validate_device_arch(50, (12, 8))
    validate_device_arch(30, None)  # unknown toolkit: no claim
    with pytest.raises(RuntimeError, match="sm_37"):
        validate_device_arch(37, (12, 0))


def _body():
    pass


def test_mangled_name_follows_hash_and_strip_hash():
    module = wp.Module("test_module_naming_and_isa.mangled", None)
    k = wp.Kernel(_body, module=module)
    assert len(k.hash) == 32 and k.get_mangled_name() == f"{k.key}_{k.hash.hex()[:8]}"
    k.hash = bytes.fromhex("deadbeef" + "00" * 28)
    assert k.get_mangled_name() == f"{k.key}_deadbeef"
    module.execs["x"] = 1
    module._set_strip_hash(True)
    assert module.execs == {} and k.get_mangled_name() == k.key
    module._set_strip_hash(False)
    assert k.get_mangled_name() == f"{k.key}_deadbeef"


def test_isa_flags_from_cpu_compiler_flags():
    assert cpu_isa.cxx_isa_flags("-march=native") == ""  # warp_nb's default already
    assert cpu_isa.cxx_isa_flags("-march=native -mllvm -foo") == ""
    assert cpu_isa.cxx_isa_flags("-march=haswell -mllvm=-x") == "-march=haswell"
    assert cpu_isa.cxx_isa_flags("") == cpu_isa.generic_flags()
    a = cpu_isa.target_hash("-march=native", "12", "x86_64-linux-gnu", frozenset({"sse2"}))
    assert a != cpu_isa.target_hash("-march=native", "12", "x86_64-linux-gnu", frozenset({"sse2", "avx"}))
    assert cpu_isa.target_hash("", "12", "t", frozenset({"sse2"})) == cpu_isa.target_hash("", "12", "t", frozenset())


@wp.kernel(module="unique", module_options={"cpu_compiler_flags": ""})
def _generic_isa(x: wp.array[float], y: wp.array[float]):
    i = wp.tid()
    y[i] = wp.sqrt(x[i]) * 2.0


def test_generic_isa_kernel_compiles_for_it_and_runs():
    x = wp.array(np.arange(5, dtype=np.float32))
    y = wp.zeros(5)
    wp.launch(_generic_isa, dim=5, inputs=[x, y], device="cpu")
    assert np.allclose(y.numpy(), np.sqrt(np.arange(5)) * 2.0)
    options = _generic_isa.compile_options()
    assert cpu_isa.generic_flags() in options.cxx_flags


def test_module_hash_covers_opt_level_and_isa_and_output_names_differ():
    module = _generic_isa.module
    old = config.optimization_level
    try:
        hashes = set()
        for level in (None, 2, 3):
            config.optimization_level = level
            hashes.add(module.get_module_hash())
        assert len(hashes) == 3
    finally:
        config.optimization_level = old
    generic = module._get_compile_output_name("cpu")
    module.options["cpu_compiler_flags"] = "-march=native"
    try:
        native = module._get_compile_output_name("cpu")
        assert context.get_cpu_kernel_cache_key("-march=native").endswith(native.rsplit(".cpu", 1)[1][:-2])
    finally:
        module.options["cpu_compiler_flags"] = ""
    assert generic != native and generic.endswith(".o") and ".cpu" in generic


def test_caller_module_name_fallbacks():
    assert _caller_module(1) == __name__
    fake = types.SimpleNamespace(f_globals={"__name__": None, "__spec__": None},
                                 f_code=types.SimpleNamespace(co_filename="<nowhere>"), f_back=None)
    import sys
    from unittest.mock import patch
    with patch.object(sys, "_getframe", return_value=fake), pytest.raises(RuntimeError, match="Could not determine"):
        _caller_module(1)


def test_aot_cpu_build_for_native_isa_warns(tmp_path):
    from unittest.mock import patch
    module = _generic_isa.module
    with patch.object(context, "log_warning") as log, patch.object(module, "_compile") as build:
        wp.compile_aot_module(module, device="cpu", module_dir=tmp_path)  # cpu_compiler_flags="": portable
        assert not log.call_args_list and build.called
        module.options["cpu_compiler_flags"] = "-march=native"
        try:
            wp.compile_aot_module(module, device="cpu", module_dir=tmp_path)
        finally:
            module.options["cpu_compiler_flags"] = ""
    assert "-march=native" in log.call_args.args[0] and log.call_args.kwargs["once"] is True


def _one(a: wp.array[float]):
    a[0] = 1.0


def _two(a: wp.array[float]):
    a[0] = 2.0


def test_module_hash_follows_the_kernels_source_and_hashers_memoise_it():
    module = wp.Module("test_module_naming_and_isa.hashes", None)
    wp.Kernel(_one, key="k", module=module)
    first = module.get_module_hash()
    assert module.get_module_hash() == first and len(module.hashers) == 1
    wp.Kernel(_two, key="k", module=module)  # a redefinition replaces the kernel of that key
    assert module.get_module_hash() != first
