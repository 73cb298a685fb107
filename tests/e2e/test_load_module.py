"""`wp.load_module`: by name, Python module or wp.Module; `recursive` takes a package's submodules;
a module with no kernels, functions or structs (a misspelt name, a module that is not Warp code)
is refused with RuntimeError naming it, as in Warp."""

import sys
import types
import unittest

import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx


def _double(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 2.0 * a[i]


def _package_with_kernel_in_submodule(name: str):
    """A package `name` (a Python module object) whose one kernel lives in `name`.sub."""
    package = types.ModuleType(name)
    package.__path__ = []
    sys.modules[name] = package
    return package, wp.Kernel(func=_double, key="double", module=f"{name}.sub")


def test_a_module_without_warp_content_is_refused():
    with pytest.raises(RuntimeError, match="unittest.*does not contain any Warp kernels, functions, or structs"):
        wp.load_module(unittest)
    with pytest.raises(RuntimeError, match="no_such_module_xyz.*does not contain any Warp kernels"):
        wp.load_module("no_such_module_xyz")


def test_recursive_load_compiles_the_submodules():
    package, kernel = _package_with_kernel_in_submodule("wpnb_test_load_pkg")
    try:
        assert not kernel.is_ready(wp.get_device("cpu"))
        wp.load_module(package, device="cpu")  # content in a submodule: not empty, but not loaded either
        assert not kernel.is_ready(wp.get_device("cpu"))
        wp.load_module("wpnb_test_load_pkg", device="cpu", recursive=True)
        assert kernel.is_ready(wp.get_device("cpu"))
    finally:
        del sys.modules["wpnb_test_load_pkg"]
