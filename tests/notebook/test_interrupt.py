"""A kernel that never ends, stopped with the notebook's Interrupt button: in a real Jupyter kernel
(jupyter_client), a cell launches a kernel whose `while` loop never ends, the test interrupts the
kernel as JupyterLab does (SIGINT), and the cell ends with KeyboardInterrupt while the process and
its state live on: a later cell reads a variable defined before and launches again. Before
runtime/interrupts.py the cell ran until the process was killed, and the notebook's state with it."""

from __future__ import annotations

import time

import pytest

jupyter_client = pytest.importorskip("jupyter_client")
pytest.importorskip("ipykernel")

pytestmark = [pytest.mark.needs_cxx, pytest.mark.slow]

SETUP = """import numpy as np
import warp_nb as wp
kept = 41

@wp.func
def spin_until_negative(x: wp.array(dtype=int)):
    n = int(0)
    while x[0] >= 0:  # once x[0] is 0: never ends
        n += 1
    return n

@wp.kernel
def forever(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    out[wp.tid()] = spin_until_negative(x)

@wp.kernel
def add_one(out: wp.array(dtype=int)):
    out[wp.tid()] += 1

x = wp.full(1, -1, dtype=int)
sink = wp.zeros(4096, dtype=int)  # what an interrupted launch writes is left unspecified
out = wp.zeros(1000, dtype=int)
wp.launch(add_one, dim=1000, inputs=[out])
wp.launch(forever, dim=1, inputs=[x, sink])  # compiled before the cell that hangs: x[0] < 0 ends it
x.fill_(0)  # from now on it never ends
print("ready", out.numpy().sum())"""


def _execute(client, code, timeout):
    """Run `code`; returns (the reply's content, the text the cell printed, its error name)."""
    msg_id = client.execute(code)
    printed, error = [], None
    deadline = time.monotonic() + timeout
    while True:
        msg = client.get_iopub_msg(timeout=max(1.0, deadline - time.monotonic()))
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "stream":
            printed.append(content["text"])
        elif kind == "error":
            error = content["ename"]
        elif kind == "status" and content["execution_state"] == "idle":
            break
    return _reply(client, msg_id, timeout)["content"], "".join(printed), error


def _reply(client, msg_id, timeout):
    """The shell reply to request `msg_id` (a reply to an earlier request is passed over)."""
    while True:
        reply = client.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply


@pytest.mark.parametrize("launch", ["wp.launch(forever, dim=1, inputs=[x, sink])",  # one thread, on the caller
                                    "wp.launch(forever, dim=4096, inputs=[x, sink])"],
                         ids=["one thread", "on every core"])
def test_interrupt_stops_a_kernel_that_never_ends_and_the_notebook_goes_on(launch):
    manager, client = jupyter_client.manager.start_new_kernel(kernel_name="python3")
    try:
        content, printed, _ = _execute(client, SETUP, timeout=240)
        assert content["status"] == "ok" and "ready 1000" in printed, (content, printed)
        pid_before = manager.provisioner.process.pid if manager.provisioner else None
        # (stop_on_error=False: the kernel would abort the next request if it came in while the error
        # is handled, which a person pressing Interrupt and then running a cell never meets)
        msg_id = client.execute(launch + "\nwp.synchronize()\nprint('finished?!')", stop_on_error=False)
        time.sleep(2.0)  # the kernel is spinning by now
        started = time.monotonic()
        manager.interrupt_kernel()
        reply = _reply(client, msg_id, 60)
        assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "KeyboardInterrupt", reply
        assert time.monotonic() - started < 30
        assert manager.is_alive()
        if pid_before is not None:
            assert manager.provisioner.process.pid == pid_before  # the same process: nothing restarted
        content, printed, error = _execute(client, "wp.launch(add_one, dim=1000, inputs=[out])\n"
                                                   "print('after', kept + 1, out.numpy().sum())", timeout=120)
        assert content["status"] == "ok" and error is None, (content, printed)
        assert "after 42 2000" in printed, printed  # the state before the interrupt is still there
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
