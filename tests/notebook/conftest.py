"""A real IPython shell with `%load_ext warp_nb` for the magic tests."""

import itertools

import pytest

pytest.importorskip("IPython")

_counter = itertools.count()


@pytest.fixture(scope="session")
def ipshell():
    from IPython.testing.globalipapp import start_ipython
    ip = start_ipython()
    ip.run_line_magic("load_ext", "warp_nb")
    ip.run_cell("import numpy as np\nimport warp_nb as wp", store_history=True)
    return ip


@pytest.fixture
def ip(ipshell):
    """The shell, with a helper to run a cell as the notebook would (history on, so cells are numbered)."""
    return ipshell


@pytest.fixture
def uniq():
    """A suffix that makes kernel names unique to one test (the shell lives for the whole session)."""
    return f"t{next(_counter)}"


def run(ip, text):
    """Run a cell as Jupyter does; returns IPython's ExecutionResult."""
    return ip.run_cell(text, store_history=True)
