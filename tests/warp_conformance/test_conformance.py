"""Warp's own test suite (warp-lang 1.19.0 wheel) against warp_nb: `run.py --check` over the test
files of files.txt and the examples of examples.txt. Fails with the runner's list of cases that
fail without being in expectations.txt, or that pass while listed there.

Skips only when pip cannot download the pinned wheel (no network); set WARP_NB_CONFORMANCE_WHEEL
to a downloaded wheel to run offline."""

import os
import subprocess
import sys

import pytest

RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run.py")
EXIT_NO_WHEEL = 3


@pytest.mark.slow
def test_warp_conformance():
    fetch = subprocess.run([sys.executable, RUN, "--fetch-only"], capture_output=True, text=True, check=False)
    if fetch.returncode == EXIT_NO_WHEEL:
        pytest.skip("the warp-lang 1.19.0 wheel could not be downloaded (no network?): "
                    + fetch.stderr.strip().splitlines()[-1])
    assert fetch.returncode == 0, fetch.stdout + fetch.stderr
    proc = subprocess.run([sys.executable, RUN, "--all", "--check"], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        out = proc.stdout
        verdict = out[out.rfind("\nconformance check"):] if "\nconformance check" in out else out[-6000:]
        pytest.fail(f"run.py --all --check exited {proc.returncode}:{verdict}\n{proc.stderr[-2000:]}", pytrace=False)
