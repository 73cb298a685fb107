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
    assert "warp_nb/native/core/prelude.h" in names and "warp_nb/native/runtime/cpu_runtime.cpp" in names
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


#: what the fresh venv needs besides the wheel: numpy (warp_nb's one dependency, pulled by the
#: wheel) and, to execute a lab notebook, a Jupyter kernel and a client
_NOTEBOOK_RUNNER = ["ipykernel", "nbclient", "nbformat"]

_RUN_LAB = """
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=300, kernel_name="python3").execute()
errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
assert not errors, errors
print("lab ran:", sum(c.cell_type == "code" for c in nb.cells), "code cells")
"""


def _run(cmd, **kw):
    out = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert out.returncode == 0, f"{' '.join(map(str, cmd))}\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    return out.stdout


@pytest.mark.slow
@pytest.mark.needs_cxx
def test_sdist_then_wheel_into_a_fresh_venv(tmp_path):
    """As a user who installs from an index: an sdist of a clean copy of the sources, a wheel built
    from that sdist, the wheel installed into a fresh virtual environment (not editable, no access
    to this checkout), then from a folder outside the repository: import, compile and launch a
    kernel, `python -m warp_nb demo`, and lab 02 executed top to bottom."""
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--sdist", "--outdir", str(dist), str(ROOT)])
    (sdist,) = dist.glob("warp_nb-*.tar.gz")
    # the wheel from the sdist alone: a file missing from the sdist shows up as a broken wheel
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(sdist)])
    (wheel,) = dist.glob("warp_nb-*.whl")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    _run([str(python), "-m", "pip", "install", "-q", str(wheel), *_NOTEBOOK_RUNNER])
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["WARP_NB_CACHE_DIR"] = str(tmp_path / "cache")
    script = outside / "use_wheel.py"
    script.write_text(KERNEL + "import warp_nb; print(warp_nb.__file__)\n")
    lines = _run([str(python), str(script)], cwd=outside, env=env).split()
    assert Path(lines[-1]).is_relative_to(venv), lines  # the installed package, not this checkout
    assert Path(lines[-2]).is_relative_to(venv), lines  # and its headers
    demo = _run([str(python), "-m", "warp_nb", "demo"], cwd=outside, env=env)
    assert "particles" in demo, demo
    (outside / "run_lab.py").write_text(_RUN_LAB)
    lab = _run([str(python), "run_lab.py", str(ROOT / "notebooks" / "02_types_structs_funcs.ipynb")],
               cwd=outside, env=env)
    assert "lab ran:" in lab, lab
