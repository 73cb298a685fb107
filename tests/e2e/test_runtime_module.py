"""The CPU runtime as a CPython extension module (native/runtime/launch_module.cpp): the fast path
of every CPU launch where Python's headers exist, with the ctypes path kept for where they do not.
Both paths must give the same results and the same errors."""

import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.runtime import native

pytestmark = pytest.mark.needs_cxx

_HAS_HEADERS = (Path(sysconfig.get_paths()["include"]) / "Python.h").exists()


@pytest.mark.skipif(not _HAS_HEADERS, reason="no Python.h: launches go through ctypes")
def test_the_extension_module_is_what_launches_call():
    module = native.extension()
    assert module is not None and callable(module.launch)
    with pytest.raises(TypeError, match="launch"):
        module.launch(0, b"", b"", 1)  # four arguments: refused, nothing run
    with pytest.raises(ValueError, match="shorter than a launch_t"):
        module.launch(0, b"", b"", 1, None)


_SCRIPT = textwrap.dedent("""
    import numpy as np, warp_nb as wp
    from warp_nb.runtime import native

    @wp.kernel
    def scale(x: wp.array(dtype=float), s: float):
        i = wp.tid()
        x[i] = x[i] * s

    x = wp.array(np.arange(1000, dtype=np.float32))
    for _ in range(3):
        wp.launch(scale, dim=1000, inputs=[x, 2.0])
    assert np.array_equal(x.numpy(), np.arange(1000, dtype=np.float32) * 8)
    wp.config.bounds_check = True
    try:
        wp.launch(scale, dim=1001, inputs=[x, 2.0])
    except IndexError as e:
        print("IndexError", str(e).split(" (")[0])
    print("extension" if native.extension() is not None else "ctypes")
""")


@pytest.mark.parametrize("ctypes_path", [False, True])
def test_both_paths_launch_and_report_the_same(tmp_path, ctypes_path):
    script = tmp_path / "launches.py"
    script.write_text(_SCRIPT)
    env = dict(os.environ, WARP_NB_CTYPES_LAUNCH="1" if ctypes_path else "0")
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.split("\n")
    assert "IndexError index 1000 is out of bounds for axis 0 of array `x` with size 1000 at wp.tid() = 1000" in lines
    assert ("ctypes" if ctypes_path or not _HAS_HEADERS else "extension") in lines
