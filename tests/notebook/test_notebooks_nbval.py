"""Every teaching lab in notebooks/ runs top to bottom under nbval (lax: outputs are not compared,
errors fail the cell, except in cells tagged `raises-exception`), each in its own fresh kernel and
in well under a minute on the CPU. The kernels inherit this session's isolated kernel cache."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("nbval")
pytest.importorskip("ipykernel")
pytest.importorskip("ipywidgets")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9][0-9]_*.ipynb"))
pytestmark = [pytest.mark.needs_cxx, pytest.mark.slow]


def test_there_are_labs():
    assert [p.name[:2] for p in NOTEBOOKS] == [f"{k:02d}" for k in range(1, 12)]  # labs 01 to 11, none missing


@pytest.mark.slow
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_lab_runs_under_nbval(notebook, tmp_path):
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "--nbval-lax", "--nbval-cell-timeout=120",
                           "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(notebook)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    elapsed = time.perf_counter() - t0
    assert proc.returncode == 0, f"nbval failed on {notebook.name}:\n{proc.stdout[-6000:]}\n{proc.stderr[-2000:]}"
    assert " passed" in proc.stdout
    assert elapsed < 60, f"{notebook.name} took {elapsed:.1f} s; a lab must run in under a minute"
