"""Ahead-of-time compilation for the CPU: wp.compile_aot_module writes one shared library per
module, wp.load_aot_module binds the module's kernels to it (even after the source changed, with
strip_hash), generic kernels need overloads, and a missing build is a FileNotFoundError."""

import importlib
import sys

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx

SOURCE = '''
from typing import Any
import warp_nb as wp

@wp.kernel
def add(a: wp.array(dtype=wp.int32), b: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    out[i] = a[i] + b[i] * {factor}
'''

GENERIC = '''
@wp.kernel
def scale(x: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    x[i] = s * x[i]

scale_f32 = wp.overload(scale, [wp.array(dtype=wp.float32), wp.float32])
scale_f64 = wp.overload(scale, [wp.array(dtype=wp.float64), wp.float64])
'''


def _write_module(tmp_path, name, factor, generic=True):
    (tmp_path / f"{name}.py").write_text(SOURCE.format(factor=factor) + (GENERIC if generic else ""))
    sys.path.insert(0, str(tmp_path))
    try:  # no bytecode: a rewrite within the same second must not reload the old one
        sys.dont_write_bytecode, saved = True, sys.dont_write_bytecode
        return importlib.reload(sys.modules[name]) if name in sys.modules else importlib.import_module(name)
    finally:
        sys.dont_write_bytecode = saved
        sys.path.remove(str(tmp_path))


def _add(module):
    a, b, out = wp.full(4, 1, dtype=wp.int32), wp.full(4, 2, dtype=wp.int32), wp.zeros(4, dtype=wp.int32)
    wp.launch(module.add, 4, inputs=[a, b, out])
    return out.numpy()


def test_one_library_per_module_with_every_overload(tmp_path):
    mod = _write_module(tmp_path, "wpnb_aot_overloads", factor=1)
    files = wp.compile_aot_module(mod, "cpu", module_dir=tmp_path / "aot")
    identifier = wp.get_module(mod.__name__).get_module_identifier()
    assert files == [tmp_path / "aot" / f"{identifier}.o"] and identifier.startswith(f"wp_{mod.__name__}_")
    wp.load_aot_module(mod, "cpu", module_dir=tmp_path / "aot")
    np.testing.assert_array_equal(_add(mod), 3)
    for overload, dtype in ((mod.scale_f32, np.float32), (mod.scale_f64, np.float64)):
        x = wp.array(np.arange(3, dtype=dtype))
        wp.launch(overload, 3, inputs=[x, dtype(2)])
        np.testing.assert_array_equal(x.numpy(), 2 * np.arange(3, dtype=dtype))
    with pytest.raises(RuntimeError, match="multiple overloads.*hash suffixes"):
        wp.compile_aot_module(mod, "cpu", module_dir=tmp_path / "aot", strip_hash=True)


def test_strip_hash_loads_the_built_code_after_the_source_changed(tmp_path):
    name = "wpnb_aot_stripped"
    mod = _write_module(tmp_path, name, factor=1, generic=False)
    wp.compile_aot_module(mod, "cpu", module_dir=tmp_path / "aot", strip_hash=True)
    assert (tmp_path / "aot" / f"wp_{name}.o").exists()
    mod = _write_module(tmp_path, name, factor=10, generic=False)  # edited afterwards: b * 10
    wp.load_aot_module(mod, "cpu", module_dir=tmp_path / "aot")  # the module keeps strip_hash=True
    np.testing.assert_array_equal(_add(mod), 3)  # the library's code, built from b * 1
    wp.get_module(name).options["strip_hash"] = False
    with pytest.raises(FileNotFoundError):  # hashed names follow the source: no build of the edit
        wp.load_aot_module(mod, "cpu", module_dir=tmp_path / "aot")
    wp.get_module(name).kernels[0].invalidate()
    np.testing.assert_array_equal(_add(mod), 21)  # compiled from the edited source


GRAD_IN_FORWARD = '''
import warp_nb as wp

wp.set_module_options({"enable_backward": False})

@wp.func
def cube(x: float):
    return x * x * x

@wp.kernel
def slope(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.grad(cube)(x[i])  # a gradient as a value, in forward code: needs cube's adjoint
'''


def test_a_forward_kernel_calling_wp_grad_compiles_ahead_of_time(tmp_path):
    """Ahead-of-time units come from the same front half as launches: a forward kernel (backward
    disabled) that calls wp.grad(f) carries f's adjoint, as its launch does (this once failed to
    compile: the ahead-of-time copy of the front half left the adjoint out without backward)."""
    (tmp_path / "wpnb_aot_grad.py").write_text(GRAD_IN_FORWARD)
    sys.path.insert(0, str(tmp_path))
    try:
        mod = importlib.import_module("wpnb_aot_grad")
    finally:
        sys.path.remove(str(tmp_path))
    wp.compile_aot_module(mod, "cpu", module_dir=tmp_path / "aot")
    wp.load_aot_module(mod, "cpu", module_dir=tmp_path / "aot")
    x = np.linspace(-1.0, 2.0, 7, dtype=np.float32)
    y = wp.zeros(7)
    wp.launch(mod.slope, 7, inputs=[wp.array(x), y])
    np.testing.assert_allclose(y.numpy(), 3.0 * x * x, rtol=1e-6)
