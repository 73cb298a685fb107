"""Ctrl-C stops a CPU kernel that never ends (runtime/interrupts.py): in a fresh Python process (a
SIGINT that came too late would otherwise end the test session), another process interrupts launches whose
`while` loops never end, on one thread and on every core, in a kernel and in a @wp.func, a nest of
two counted loops of 2**31 iterations each, a backward pass whose loop replay is quadratic, and CPU
blocks of 8 lanes (fibers) whose loops meet at a barrier in each iteration or at none; each
raises KeyboardInterrupt, and the next launches compute what numpy does. An interrupt that comes
while no kernel runs changes no later launch. (tests/notebook/test_interrupt.py: the same with a
notebook's Interrupt button.)"""

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.needs_cxx

# (a test session started in the background by a non-interactive shell, as `cmd &` does, passes SIGINT
# on as ignored, and Python then installs no handler of its own: the scripts put Python's back first,
# as a terminal or a notebook has it)
SCRIPT = textwrap.dedent("""
    import os, signal, subprocess, time
    signal.signal(signal.SIGINT, signal.default_int_handler)
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
    def pairs(x: wp.array(dtype=int), out: wp.array(dtype=int)):
        n = x[0]
        s = int(0)
        for i in range(n):  # tests the flag once per i (compiler/interrupt_polls.py)
            for j in range(n):
                s += (i ^ j) & 1
        out[wp.tid()] = s

    @wp.kernel
    def product(a: wp.array(dtype=float), n: int, out: wp.array(dtype=float)):
        s = float(1.0)
        for i in range(n):  # its backward pass replays the loop up to each i: n**2 / 2 iterations
            s = s * a[i % 4]
        out[0] = s

    @wp.kernel
    def forever_in_blocks(x: wp.array(dtype=int), out: wp.array(dtype=float)):
        i, lane = wp.tid()
        s = float(0.0)
        while x[0] >= 0:  # the block's lanes meet at a barrier in each iteration
            s += wp.tile_sum(wp.tile(float(lane)))[0]
        n = int(0)
        while x[0] >= 0:  # and here at none
            n += 1
        wp.tile_store(out, wp.tile_sum(wp.tile(s + float(n))), offset=i)

    @wp.kernel
    def block_sums(x: wp.array(dtype=float), out: wp.array(dtype=float)):
        i, lane = wp.tid()
        wp.tile_store(out, wp.tile_sum(wp.tile(x[i * 8 + lane])), offset=i)

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
    wp.launch(pairs, dim=1, inputs=[x, sink])
    check_collatz()

    wp.config.enable_cpu_blocks = True  # blocks of 8 lanes as fibers (native/tiles/block_cpu.h)
    values = np.arange(32, dtype=np.float32)
    block_out = wp.zeros(4, dtype=float)

    def blocks_forever(_):
        wp.launch_tiled(forever_in_blocks, dim=[4], inputs=[x, block_out], block_dim=8)

    def check_blocks():
        wp.launch_tiled(block_sums, dim=[4], inputs=[wp.array(values), block_out], block_dim=8)
        assert np.allclose(block_out.numpy(), values.reshape(4, 8).sum(axis=1))

    x.fill_(-1)
    blocks_forever(None)
    x.fill_(0)
    check_blocks()

    def product_backward(n):
        a = wp.array([1.5, 0.5, 2.0, 1.0], dtype=float, requires_grad=True)
        out = wp.zeros(1, dtype=float, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(product, dim=1, inputs=[a, n], outputs=[out])
        tape.backward(grads={out: wp.ones(1, dtype=float)})
        return a.grad.numpy()

    def check_product():
        # d/da_k of the product of a[i % 4] over 6 factors (a0 a1 a2 a3 a0 a1): count_k * product / a_k
        a = np.array([1.5, 0.5, 2.0, 1.0])
        assert np.allclose(product_backward(6), np.array([2, 2, 1, 1]) * np.prod(a[np.arange(6) % 4]) / a)

    check_product()
    long_loops = [(forever, 1), (forever, 4096), (forever_in_a_func, 1), (forever_in_a_func, 4096), (pairs, 2)]
    x2 = wp.full(1, 2**31 - 1, dtype=int)  # pairs: 2**62 iterations
    for kernel, dim in long_loops + [(product_backward, 300000), (blocks_forever, None)]:
        # from another process, as Jupyter interrupts (a launch known to be short keeps the GIL, so a
        # thread of this process could not run until it ends)
        subprocess.Popen(["sh", "-c", f"sleep 0.5; kill -INT {os.getpid()}"])
        started = time.monotonic()
        try:
            if not hasattr(kernel, "key"):
                kernel(dim)  # product_backward: a forward pass of a millisecond, a backward pass of minutes
            else:
                wp.launch(kernel, dim=dim, inputs=[x2 if kernel is pairs else x, sink])
            wp.synchronize()
            raise SystemExit("the launch ended by itself")
        except KeyboardInterrupt:
            print("interrupted", getattr(kernel, "key", kernel.__name__), dim, round(time.monotonic() - started, 1))
        check_collatz()
        check_product()
        check_blocks()
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
    assert len(interrupted) == 7, proc.stdout
    assert all(float(line.split()[-1]) < 10 for line in interrupted), proc.stdout
    assert lines[-2] == "ok", proc.stdout


COMPILE_SCRIPT = textwrap.dedent("""
    import os, signal, subprocess, time
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import numpy as np
    import warp_nb as wp

    @wp.kernel
    def scaled_sine(a: wp.array(dtype=float), s: float):
        i = wp.tid()
        a[i] = wp.sin(float(i)) * s

    a = wp.zeros(10, dtype=float)
    interrupted = 0
    for delay in (0.05, 0.3):  # while the C++ compiler runs (the cache folder is new and empty)
        subprocess.Popen(["sh", "-c", f"sleep {delay}; kill -INT {os.getpid()}"])
        try:
            wp.launch(scaled_sine, dim=10, inputs=[a, 2.0])
            time.sleep(3)  # (the compile was done before the signal came: it ends here)
        except KeyboardInterrupt:
            interrupted += 1
    wp.launch(scaled_sine, dim=10, inputs=[a, 2.0])
    assert np.allclose(a.numpy(), 2.0 * np.sin(np.arange(10))), a.numpy()
    leftovers = [p.name for p in wp.toolchain.cache.cache_dir().iterdir() if p.name.startswith(".build-")]
    print("interrupted compiles", interrupted, "leftovers", leftovers)
""")


def test_ctrl_c_during_a_compile_leaves_the_cache_whole(tmp_path):
    script = tmp_path / "compile.py"
    script.write_text(COMPILE_SCRIPT)
    env = {**os.environ, "WARP_NB_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=240, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "interrupted compiles 0" not in proc.stdout and "leftovers []" in proc.stdout, proc.stdout
