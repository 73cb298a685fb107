"""Packaging: a built wheel installs only under warp_nb (no generic top-level names) and finds
its native headers from site-packages, with no source tree around."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

KERNEL = """
import numpy as np, warp_nb as wp
from warp_nb.toolchain.headers import native_dir
@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = wp.sqrt(float(i))
a = wp.zeros(5)
wp.launch(k, dim=5, inputs=[a])
assert np.allclose(a.numpy(), np.sqrt(np.arange(5)))
print(native_dir())
"""


@pytest.mark.slow
@pytest.mark.needs_cxx
def test_wheel_contents_and_headers_from_site_packages(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q",
                    "-w", str(tmp_path / "dist")], check=True, capture_output=True)
    (wheel,) = (tmp_path / "dist").glob("warp_nb-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top == {"warp_nb"}, top  # kernels/, magics/, native/ install as warp_nb.* only
    assert "warp_nb/native/prelude.h" in names and "warp_nb/native/runtime/cpu_runtime.cpp" in names
    assert "warp_nb/builtins/linalg.py" in names and "warp_nb/magics/__init__.py" in names
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)],
                   check=True, capture_output=True)
    env = dict(os.environ, PYTHONPATH=str(site), WARP_NB_CACHE_DIR=str(tmp_path / "cache"))
    script = tmp_path / "use_wheel.py"
    script.write_text(KERNEL)
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert Path(out.stdout.strip()) == site / "warp_nb" / "native"
