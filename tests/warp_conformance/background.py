"""The conformance run (`run.py --all --check`) started in the background when a pytest session
begins, so it overlaps the rest of the suite instead of following it.

Why: the rest of `python -m pytest` runs one test at a time, and its time is mostly one g++ at a
time, so one core of a 2-core machine idles for the ~15 minutes the suite takes; the conformance
run is compile-bound too and runs its files two at a time. Run one after the other they took about
33 minutes here; overlapped, the cores stay busy and CI keeps under its 30 minutes.

`start(items)` (from tests/conftest.py, once the session's tests are collected) starts the run only
when `test_warp_conformance` is among them, so `-k`, `-m "not slow"` or a single file start nothing.
The test then waits for it (`result`). `stop()` ends the run at the end of the session if the test
never asked (an interrupted session); the run and the test files it runs share one process group.
WARP_NB_CONFORMANCE_FOREGROUND=1 keeps the old order: the test starts the run itself."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile

RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run.py")
TEST_ID = "tests/warp_conformance/test_conformance.py::test_warp_conformance"
FOREGROUND_ENV = "WARP_NB_CONFORMANCE_FOREGROUND"

_run: dict = {}  # "proc", "out", "err": the run in progress, with the files its output goes to


def command() -> list:
    return [sys.executable, RUN, "--all", "--check"]


def start(items) -> None:
    """Start the run if the session will run the conformance test (and nothing started it yet)."""
    if _run or os.environ.get(FOREGROUND_ENV) == "1":
        return
    if not any(item.nodeid.replace(os.sep, "/").endswith(TEST_ID) for item in items):
        return
    out = tempfile.TemporaryFile(mode="w+", prefix="warp_nb_conformance_out_")
    err = tempfile.TemporaryFile(mode="w+", prefix="warp_nb_conformance_err_")
    proc = subprocess.Popen(command(), stdout=out, stderr=err, stdin=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    _run.update(proc=proc, out=out, err=err)


def result(timeout: float = 3600.0):
    """(returncode, stdout, stderr) of the run: the background one (waited for), or one run now."""
    if not _run:
        proc = subprocess.run(command(), capture_output=True, text=True, check=False, timeout=timeout)
        return proc.returncode, proc.stdout, proc.stderr
    proc = _run["proc"]
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop()
        raise
    texts = []
    for f in (_run["out"], _run["err"]):
        f.seek(0)
        texts.append(f.read())
        f.close()
    _run.clear()
    return proc.returncode, texts[0], texts[1]


def stop() -> None:
    """End a run still in progress (with the test files it started) and drop its output."""
    proc = _run.get("proc")
    if proc is not None and proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for f in (_run.get("out"), _run.get("err")):
        if f is not None:
            f.close()
    _run.clear()
