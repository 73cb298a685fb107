"""A Python module executed from a file that is deleted at once (Warp reads a definition's source
when it is decorated): its kernels still compile, and its wp.Module lists its structs and funcs
(the latest of a redefined name)."""

import os
import tempfile
from importlib import util

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx

CODE = '''
import warp_nb as wp

@wp.struct
class Data:
    x: wp.array[int]

@wp.func
def increment(x: int):
    return x + 123

@wp.func
def increment(x: int):
    return x + 1

@wp.kernel
def compute(data: Data):
    data.x[0] = increment(data.x[0])
'''


def _load_and_delete(code: str, name: str):
    fd, path = tempfile.mkstemp(suffix=".py")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(code)
        spec = util.spec_from_file_location(name, path)
        module = util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        os.remove(path)
    return module


def test_kernel_of_a_deleted_file_compiles_and_its_module_lists_definitions():
    name = "warp_nb_transient_test_module"
    _load_and_delete(CODE, name)
    module = _load_and_delete(CODE, name)  # twice: the second definitions replace the first
    wp_module = module.compute.module
    assert list(wp_module.structs) == ["Data"] and wp_module.structs["Data"] is module.Data
    assert list(wp_module.functions) == ["increment"] and wp_module.functions["increment"] is module.increment
    data = module.Data()
    data.x = wp.array([123], dtype=int, device="cpu")
    wp.launch(module.compute, dim=1, inputs=[data], device="cpu")
    np.testing.assert_array_equal(data.x.numpy(), [124])  # the second `increment`: x + 1
