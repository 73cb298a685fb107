"""wp.ModuleBuildOptions (compiler/build_options.py) in the real CPU build and the module hash, and
user operators (a @wp.func named `add` overriding `+` for its types)."""

import importlib.util
import os

import numpy as np
import pytest

import warp_nb as wp
from warp_nb._src.context import ModuleHasher

_TEMPLATE = """
import warp_nb as wp

C = {value}

@wp.func
def f():
    return {value}

@wp.kernel
def k(out: wp.array(dtype=float)):
    out[0] = float(wp.static(C)) + float(wp.static(f)())
"""


def _module_from(tmp_path, text, name):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return wp.get_module(module.__name__), module


def test_hash_follows_the_generated_code_not_the_module_name(tmp_path):
    a, _ = _module_from(tmp_path, _TEMPLATE.format(value=17), "wpnb_hash_a")
    b, _ = _module_from(tmp_path, _TEMPLATE.format(value=42), "wpnb_hash_b")
    c, _ = _module_from(tmp_path, _TEMPLATE.format(value=17), "wpnb_hash_c")
    assert a.hash_module() == c.hash_module() != b.hash_module()


def test_preambles_and_include_dirs_change_the_hash(tmp_path):
    module, _ = _module_from(tmp_path, _TEMPLATE.format(value=1), "wpnb_hash_opts")

    def hash_with(opts):
        module.options["extra_build_options"] = opts
        try:
            return ModuleHasher(module._get_live_kernels(), module.resolve_options(wp.config)).get_hash()
        finally:
            module.options["extra_build_options"] = None

    plain = hash_with(None)
    assert hash_with(wp.ModuleBuildOptions()) == plain
    one = hash_with(wp.ModuleBuildOptions(extra_cuda_preamble="#define X 1"))
    assert one == hash_with(wp.ModuleBuildOptions(extra_cuda_preamble="#define X 1\n")) != plain
    assert one != hash_with(wp.ModuleBuildOptions(extra_cuda_preamble="#define X 2"))
    cpu = hash_with(wp.ModuleBuildOptions(extra_cpu_include_dirs=[str(tmp_path)]))
    cuda = hash_with(wp.ModuleBuildOptions(extra_cuda_include_dirs=[str(tmp_path)]))
    assert len({plain, cpu, cuda}) == 3


def test_include_dirs_must_exist_and_be_absolute(tmp_path):
    # (accepted as given when made, as Warp does; refused when a compiler is to be given them)
    with pytest.raises(ValueError, match="absolute"):
        wp.ModuleBuildOptions(extra_cpu_include_dirs=["relative/dir"]).include_dirs("cpu")
    with pytest.raises(ValueError, match="existing directory"):
        wp.ModuleBuildOptions(extra_cuda_include_dirs=[str(tmp_path / "missing")]).include_dirs("cuda")


def test_cpu_preamble_and_include_dir_reach_the_compiler(tmp_path):
    (tmp_path / "wpnb_addon.h").write_text("inline float wpnb_addon_scale() { return 3.0f; }\n")
    text = (
        "import warp_nb as wp\n"
        "@wp.func_native('return x * wpnb_addon_scale();')\n"
        "def scaled(x: float) -> float:\n"
        "    ...\n"
        "@wp.kernel\n"
        "def k(a: wp.array(dtype=float)):\n"
        "    i = wp.tid()\n"
        "    a[i] = scaled(a[i])\n"
    )
    module, py = _module_from(tmp_path, text, "wpnb_preamble_build")
    module.options["extra_build_options"] = wp.ModuleBuildOptions(
        extra_cpu_include_dirs=[str(tmp_path)], extra_cpu_preamble='#include "wpnb_addon.h"')
    source = wp._src.context.ModuleBuilder(module).codegen("cpu")
    assert source.index('#include "core/prelude.h"') < source.index('#include "wpnb_addon.h"') < source.index("scaled")
    a = wp.array([1.0, 2.0], dtype=float, device="cpu")
    wp.launch(py.k, 2, [a], device="cpu")
    np.testing.assert_allclose(a.numpy(), [3.0, 6.0])


def test_user_operator_overrides_the_builtin_for_its_types(tmp_path):
    text = (
        "import warp_nb as wp\n"
        "@wp.func\n"
        "def add(x: wp.float32, y: wp.float32) -> wp.float32:\n"
        "    return wp.sub(x, y)\n"
        "@wp.kernel(enable_backward=False)\n"
        "def k(values: wp.array(dtype=wp.vec3), n: wp.array(dtype=int), rhs: float):\n"
        "    values[0].x += rhs\n"
        "    values[0][1] = values[0][1] + rhs\n"
        "    n[0] = n[0] + 2\n"  # ints: no int overload, the builtin adds
    )
    _module, py = _module_from(tmp_path, text, "wpnb_user_operator")
    values = wp.array([wp.vec3(3.0)], dtype=wp.vec3, device="cpu")
    n = wp.array([1], dtype=int, device="cpu")
    wp.launch(py.k, 1, [values, n, 2.0], device="cpu")
    np.testing.assert_array_equal(values.numpy(), [[1.0, 1.0, 3.0]])
    assert n.numpy()[0] == 3
    assert os.path.exists(tmp_path / "wpnb_user_operator.py")
