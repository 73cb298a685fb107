"""Lab 08's check of the Jupyter server it runs under (issue 24 item 2): a server without
ipyparallel's server extension (as one started before `pip install ipyparallel` is) makes
JupyterLab show "IPP Extension Server Error"; the lab says in one line to restart the server. Real
Jupyter servers on 127.0.0.1, one with the extension and one without."""

import os
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("jupyter_server")
pytest.importorskip("ipyparallel")

from warp_nb.magics.server_extensions import ipyparallel_server_hint  # noqa: E402

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def server(tmp_path, monkeypatch):
    """start(ipyparallel_enabled) -> the pid of a running Jupyter server (its runtime file in tmp_path)."""
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    started = []

    def start(enabled: bool) -> int:
        proc = subprocess.Popen([sys.executable, "-m", "jupyter_server", "--no-browser", "--ip=127.0.0.1",
                                 f"--port={_free_port()}", "--allow-root", "--ServerApp.token=wpnb-test",
                                 f"--ServerApp.jpserver_extensions={{'ipyparallel': {enabled}}}",
                                 f"--ServerApp.root_dir={tmp_path}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ))
        started.append(proc)
        runtime = tmp_path / "runtime" / f"jpserver-{proc.pid}.json"
        deadline = time.time() + 60
        while not runtime.exists():
            assert proc.poll() is None and time.time() < deadline, "the Jupyter server did not start"
            time.sleep(0.2)
        time.sleep(0.5)  # (the runtime file is written as the server starts listening)
        return proc.pid

    yield start
    for proc in started:
        proc.terminate()
        proc.wait(timeout=15)


def test_lab_says_to_restart_a_server_without_ipyparallels_extension(server):
    hint = ipyparallel_server_hint(server(False))
    assert hint is not None and "restart `jupyter lab`" in hint and "\n" not in hint


def test_lab_says_nothing_where_the_server_has_it(server):
    assert ipyparallel_server_hint(server(True)) is None


def test_lab_says_nothing_outside_a_jupyter_server():
    assert ipyparallel_server_hint() is None  # pytest's parent is no Jupyter server
