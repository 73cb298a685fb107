"""Ctrl-C stops a CPU kernel that never ends (runtime/interrupts.py): in a fresh Python process (a
SIGINT that came too late would otherwise end the test session), another process interrupts launches whose
`while` loops never end, on one thread and on every core, in a kernel and in a @wp.func; each
raises KeyboardInterrupt, and the next launches compute what numpy does. An interrupt that comes
while no kernel runs changes no later launch. (tests/notebook/test_interrupt.py: the same with a
notebook's Interrupt button.)"""

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.needs_cxx

SCRIPT = textwrap.dedent("""
    import os, signal, subprocess, time
    import numpy as np
    import warp_nb as wp

    @wp.func
    def count_while_non_negative(x: wp.array(dtype=int)):
        n = int(0)
        while x[0] >= 0:
            n += 1
        return n

    @wp.kernel
    def forever_in_a_func(x: wp.array(dtype=int), out: wp.array(dtype=int)):
        out[wp.tid()] = count_while_non_negative(x)

    @wp.kernel
    def forever(x: wp.array(dtype=int), out: wp.array(dtype=int)):
        i = wp.tid()
        n = int(0)
        while x[0] >= 0:
            n += 1
        out[i] = n

    @wp.kernel
    def collatz_steps(start: wp.array(dtype=int), out: wp.array(dtype=int)):
        i = wp.tid()
        v = start[i]
        n = int(0)
        while v != 1:  # ends: a while loop that is not interrupted runs to its end
            if v % 2 == 0:
                v = v // 2
            else:
                v = 3 * v + 1
            n += 1
        out[i] = n

    def steps(v):
        n = 0
        while v != 1:
            v, n = (v // 2 if v % 2 == 0 else 3 * v + 1), n + 1
        return n

    starts = np.arange(1, 2001, dtype=np.int32)
    expected = np.array([steps(int(v)) for v in starts])

    def check_collatz():
        out = wp.zeros(len(starts), dtype=int)
        wp.launch(collatz_steps, dim=len(starts), inputs=[wp.array(starts), out])
        assert np.array_equal(out.numpy(), expected)

    x = wp.full(1, -1, dtype=int)  # first launched with x[0] < 0, so that they compile and end
    sink = wp.zeros(4096, dtype=int)
    for kernel in (forever, forever_in_a_func):
        wp.launch(kernel, dim=1, inputs=[x, sink])
    x.fill_(0)  # from now on their loops never end (the timer must not fire during a compile)
    check_collatz()
    for kernel, dim in ((forever, 1), (forever, 4096), (forever_in_a_func, 1), (forever_in_a_func, 4096)):
        # from another process, as Jupyter interrupts (a launch known to be short keeps the GIL, so a
        # thread of this process could not run until it ends)
        subprocess.Popen(["sh", "-c", f"sleep 0.5; kill -INT {os.getpid()}"])
        started = time.monotonic()
        try:
            wp.launch(kernel, dim=dim, inputs=[x, sink])
            wp.synchronize()
            raise SystemExit("the launch ended by itself")
        except KeyboardInterrupt:
            print("interrupted", kernel.key, dim, round(time.monotonic() - started, 1))
        check_collatz()
    # an interrupt while Python runs (no launch) is Python's alone: later launches are whole
    try:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
    except KeyboardInterrupt:
        pass
    check_collatz()
    print("ok")
""")


def test_ctrl_c_stops_kernels_that_never_end_and_later_launches_are_whole(tmp_path):
    script = tmp_path / "interrupts.py"
    script.write_text(SCRIPT)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.split("\n")
    interrupted = [line for line in lines if line.startswith("interrupted")]
    assert len(interrupted) == 4, proc.stdout
    assert all(float(line.split()[-1]) < 10 for line in interrupted), proc.stdout
    assert lines[-2] == "ok", proc.stdout
