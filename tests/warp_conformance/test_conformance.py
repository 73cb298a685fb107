"""Warp's own test suite (warp-lang 1.19.0 wheel) against warp_nb: `run.py --check` over the test
files of files.txt and the examples of examples.txt. Fails with the runner's list of cases that
fail without being in expectations.txt, or that pass while listed there.

The run starts in the background when the session begins (background.py, from tests/conftest.py)
and this test waits for it. Skips only when pip cannot download the pinned wheel (no network); set
WARP_NB_CONFORMANCE_WHEEL to a downloaded wheel to run offline."""

import pytest

from tests.warp_conformance import background

EXIT_NO_WHEEL = 3


@pytest.mark.slow
def test_warp_conformance():
    returncode, out, err = background.result()
    if returncode == EXIT_NO_WHEEL:
        pytest.skip("the warp-lang 1.19.0 wheel could not be downloaded (no network?): "
                    + (err.strip().splitlines() or ["(no message)"])[-1])
    if returncode != 0:
        verdict = out[out.rfind("\nconformance check"):] if "\nconformance check" in out else out[-6000:]
        pytest.fail(f"run.py --all --check exited {returncode}:{verdict}\n{err[-2000:]}", pytrace=False)
