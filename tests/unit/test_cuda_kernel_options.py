"""Warp's CUDA-only kernel options (program/cuda_options.py): bad values are refused when the kernel
is defined (a module-level cluster_dim when a kernel of the module is launched), naming the option,
with the exception type warp-lang 1.19 raises; good values are recorded and enter the module hash;
the per-kernel queries answer on the CPU as warp-lang's do; an ahead-of-time build of a clustered
kernel for an architecture without clusters is refused."""

from typing import Any

import numpy as np
import pytest

import warp_nb as wp


def _define(**options):
    @wp.kernel(module="unique", **options)
    def k(a: wp.array(dtype=int)):
        a[wp.tid()] = 1

    return k


@pytest.mark.parametrize("value, error, words", [
    (0, ValueError, "cluster_dim must be >= 1, got 0"),
    (-1, ValueError, "cluster_dim must be >= 1, got -1"),
    (17, ValueError, "cluster_dim must be <= 16"),
    ((2, 1, 1), TypeError, "cluster_dim must be an int .* got tuple"),
    (True, TypeError, "cluster_dim must be an int .* got bool"),
    (2.0, TypeError, "cluster_dim must be an int .* got float"),
])
def test_bad_cluster_dim_is_refused_at_definition(value, error, words):
    with pytest.raises(error, match=words):
        _define(cluster_dim=value)


@pytest.mark.parametrize("value, error", [(0, ValueError), (17, ValueError), ("4", TypeError)])
def test_bad_module_cluster_dim_is_refused_at_launch(value, error):
    k = _define()
    k.module.options["cluster_dim"] = value
    try:
        with pytest.raises(error, match="cluster_dim"):
            wp.launch(k, dim=1, inputs=[wp.zeros(1, dtype=int, device="cpu")], device="cpu")
    finally:  # (identical definitions share their "unique" module: leave it as it was)
        del k.module.options["cluster_dim"]


def test_good_cluster_dim_is_recorded_and_runs_on_the_cpu():
    assert "cluster_dim" not in _define().options
    k = _define(cluster_dim=4)
    assert k.options["cluster_dim"] == 4
    k.module.options["cluster_dim"] = 8
    a = wp.zeros(3, dtype=int, device="cpu")
    wp.launch(k, dim=3, inputs=[a], device="cpu")
    del k.module.options["cluster_dim"]
    np.testing.assert_array_equal(a.numpy(), [1, 1, 1])


@pytest.mark.parametrize("value, error, words", [
    (True, TypeError, "cuda_max_registers must be a positive int, got bool"),
    (1.5, TypeError, "cuda_max_registers must be a positive int, got float"),
    (0, ValueError, "cuda_max_registers must be >= 1, got 0"),
    (-1, ValueError, "cuda_max_registers must be >= 1, got -1"),
])
def test_bad_cuda_max_registers_is_refused(value, error, words):
    with pytest.raises(error, match=words):
        _define(cuda_max_registers=value)


def test_cuda_max_registers_and_launch_bounds_are_exclusive():
    with pytest.raises(ValueError, match="cuda_max_registers and launch_bounds cannot be specified together"):
        _define(cuda_max_registers=64, launch_bounds=128)
    assert _define(cuda_max_registers=64).options["cuda_max_registers"] == 64


@pytest.mark.parametrize("value", [0, 1, 1.0, "true"])
def test_bad_enable_cuda_smem_spilling_is_refused(value):
    with pytest.raises(TypeError, match="enable_cuda_smem_spilling must be a bool"):
        _define(enable_cuda_smem_spilling=value)


def test_cuda_options_enter_the_module_hash():
    """False spilling is the default (same kernel, same hash); every other value changes the hash."""
    default, off = _define(), _define(enable_cuda_smem_spilling=False)
    assert default.options == off.options and default.module.hash_module() == off.module.hash_module()
    hashes = {default.module.hash_module()}
    for options in ({"enable_cuda_smem_spilling": True}, {"cluster_dim": 2}, {"cluster_dim": 4},
                    {"cuda_max_registers": 32}):
        hashes.add(_define(**options).module.hash_module())
    assert len(hashes) == 5


@wp.kernel(module="unique")
def generic_kernel(a: wp.array(dtype=Any)):
    a[wp.tid()] = a[wp.tid()]


def test_kernel_queries_on_the_cpu():
    k = _define()
    assert wp.get_suggested_block_size(k, "cpu") == (1, 1)
    assert wp.get_suggested_block_size(generic_kernel, "cpu") == (1, 1)
    assert wp.get_cuda_max_cluster_dim(k, "cpu") == 1
    assert wp.get_cuda_max_cluster_dim(_define(cluster_dim=4), "cpu", block_dim=512) == 1
    with pytest.raises(RuntimeError, match="requires a CUDA device, got 'cpu'"):
        wp.get_cuda_kernel_properties(k, device="cpu")
    with pytest.raises(RuntimeError, match="requires a concrete overload.*wp.overload"):
        wp.get_cuda_kernel_properties(generic_kernel)


@pytest.mark.parametrize("query", ["get_cuda_kernel_properties", "get_suggested_block_size",
                                   "get_cuda_max_cluster_dim"])
@pytest.mark.parametrize("bad", [lambda: None, "not a kernel"])
def test_kernel_queries_need_a_kernel(query, bad):
    with pytest.raises(TypeError, match=rf"{query}\(\) expected a wp.Kernel"):
        getattr(wp, query)(bad, "cpu")


@pytest.mark.parametrize("block_dim", [True, 0, -1, 1.5, "64"])
def test_max_cluster_dim_checks_block_dim(block_dim):
    with pytest.raises(ValueError, match="block_dim must be a positive integer"):
        wp.get_cuda_max_cluster_dim(_define(), "cpu", block_dim=block_dim)


@pytest.mark.needs_nvrtc
def test_ahead_of_time_clusters_need_sm90(tmp_path):
    from warp_nb.toolchain import nvrtc
    try:
        nvrtc.nvrtc_version()
    except nvrtc.NVRTCUnavailableError as e:
        pytest.skip(f"NVRTC unavailable: {e}")
    k = _define(cluster_dim=2)
    with pytest.raises(RuntimeError, match="cluster_dim=2.*sm_90 or newer.*sm_80"):
        wp.compile_aot_module(k.module, device=None, arch=80, module_dir=tmp_path)
    assert not list(tmp_path.iterdir())  # refused before any file was written
    files = wp.compile_aot_module(k.module, device=None, arch=90, module_dir=tmp_path)
    assert files[0].exists()
    plain = _define()  # no clusters: any architecture
    assert wp.compile_aot_module(plain.module, device=None, arch=80, module_dir=tmp_path)[0].exists()
