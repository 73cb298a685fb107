"""tests/warp_conformance/background.py: the conformance run starts only when the session holds
the conformance test, its output comes back whole to the test that waits, and a run nobody waited
for is ended with its process group. The run itself is replaced by small commands here."""

import os
import sys
import time
from types import SimpleNamespace

import pytest

from tests.warp_conformance import background


@pytest.fixture
def fake_run(monkeypatch):
    saved = dict(background._run)
    background._run.clear()
    monkeypatch.delenv(background.FOREGROUND_ENV, raising=False)

    def use(code):
        monkeypatch.setattr(background, "command", lambda: [sys.executable, "-c", code])
    yield use
    background.stop()
    background._run.update(saved)


def _items(*ids):
    return [SimpleNamespace(nodeid=i) for i in ids]


def test_not_started_without_the_conformance_test(fake_run):
    fake_run("print('ran')")
    background.start(_items("tests/unit/test_records.py::test_own_init_kept"))
    assert not background._run


def test_started_and_waited_for(fake_run):
    fake_run("import sys; print('conformance check: ok'); print('warn', file=sys.stderr); sys.exit(3)")
    background.start(_items("tests/unit/x.py::t", background.TEST_ID))
    assert background._run
    returncode, out, err = background.result(timeout=60)
    assert (returncode, out.strip(), err.strip()) == (3, "conformance check: ok", "warn")
    assert not background._run


def test_foreground_setting_runs_it_in_the_test(fake_run, monkeypatch):
    fake_run("print('now')")
    monkeypatch.setenv(background.FOREGROUND_ENV, "1")
    background.start(_items(background.TEST_ID))
    assert not background._run
    assert background.result(timeout=60)[:2] == (0, "now\n")


def test_stop_ends_the_process_group(fake_run, tmp_path):
    marker = tmp_path / "child.pid"
    # the run starts a child of its own (as run.py starts test files) and both sleep
    fake_run("import subprocess, sys, time; "
             f"p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
             f"open({str(marker)!r}, 'w').write(str(p.pid)); time.sleep(60)")
    background.start(_items(background.TEST_ID))
    proc = background._run["proc"]
    deadline = time.monotonic() + 30
    while not marker.exists() or not marker.read_text():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    child = int(marker.read_text())
    background.stop()
    assert proc.poll() is not None
    deadline = time.monotonic() + 10
    while _alive(child):
        assert time.monotonic() < deadline, "the run's own child outlived stop()"
        time.sleep(0.05)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (ended, not yet reaped by init) counts as ended
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True
