"""The README's Python blocks that define kernels run as written (a user copies them first), and
the autodiff block's gradient matches the closed form it states."""

import io
import os
import re
import runpy
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.needs_cxx

README = Path(__file__).resolve().parents[2] / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def _complete(block: str) -> bool:
    """A block that stands alone: it imports warp_nb itself (others are fragments of prose)."""
    return "import warp_nb as wp" in block


@pytest.mark.parametrize("index", [k for k, b in enumerate(_python_blocks()) if _complete(b)])
def test_a_complete_readme_block_runs(index, tmp_path):
    path = tmp_path / f"readme_block_{index}.py"
    path.write_text(_python_blocks()[index])
    with redirect_stdout(io.StringIO()):
        runpy.run_path(str(path), run_name="__main__")


def test_the_autodiff_block_gives_the_stated_gradient(tmp_path):
    block = next(b for b in _python_blocks() if "tape.backward(loss)" in b)
    path = tmp_path / "readme_autodiff.py"
    path.write_text(block)
    with redirect_stdout(io.StringIO()):
        ns = runpy.run_path(str(path), run_name="__main__")
    x = np.linspace(0.0, 1.0, 8)
    y = np.sin(x) * x
    np.testing.assert_allclose(ns["x"].grad.numpy(), 2 * y * (np.sin(x) + x * np.cos(x)), rtol=1e-5, atol=1e-6)


@pytest.mark.needs_cxx
def test_the_demo_counts_its_kernels_the_same_way_on_every_run(tmp_path):
    """`python -m warp_nb demo` says how many of its kernels were compiled and how many came from the
    cache: 2 + 0 the first time, 0 + 2 the next (the runtime library is not one of them)."""
    import re
    import subprocess
    import sys
    env = dict(os.environ, WARP_NB_CACHE_DIR=str(tmp_path / "cache"))
    seen = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-m", "warp_nb", "demo"], capture_output=True, text=True, env=env,
                             cwd=tmp_path, check=True).stdout
        found = re.search(r"\((\d+) kernels compiled, (\d+) from the cache", out)
        assert found, out
        seen.append((int(found[1]), int(found[2])))
    assert seen == [(2, 0), (0, 2)], seen
