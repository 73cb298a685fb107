"""Kernels first launched from several threads at once (JAX callbacks on two devices, a user's
thread pool) compile one at a time (program/compile_lock.py) and each gives its own result: the
compiler's tables are shared, and CPython 3.11's ast.parse fails when two threads run it at once
("AST constructor recursion depth mismatch"), which a kernel's first compile does on its file."""

import importlib.util
import sys
import threading

import numpy as np

import warp_nb as wp

THREADS = 6

_SOURCE = '''
import warp_nb as wp

@wp.kernel
def add_n(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    acc = float(0.0)
    for k in range(3):
        if x[i] > float(k):
            acc += wp.sin(x[i]) * float(k) + wp.cos(x[i])
        else:
            acc -= wp.sqrt(wp.abs(x[i]) + 1.0)
    y[i] = acc + float(N)
'''
# bulk that makes parsing the file take a while, so the threads' parses overlap
_FILLER = "".join(f"def f{j}(a):\n    return [((a + {j}) * (a - 1), {{'k': (a, a)}}) for _ in range(2)]\n"
                  for j in range(600))


def _expected(x, n):
    acc = np.zeros_like(x)
    for k in range(3):
        acc = np.where(x > k, acc + np.sin(x) * k + np.cos(x), acc - np.sqrt(np.abs(x) + 1.0))
    return acc + n


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_first_launches_from_several_threads_at_once(tmp_path):
    kernels = []
    for n in range(THREADS):
        path = tmp_path / f"threaded_kernel_{n}.py"
        path.write_text(f"N = {n}\n" + _FILLER + _SOURCE)
        kernels.append(_load(path, f"threaded_kernel_{n}_{id(tmp_path)}").add_n)
    x = np.linspace(-2.0, 4.0, 257).astype(np.float32)
    results, errors = [None] * THREADS, []
    start = threading.Barrier(THREADS)

    def run(n):
        try:
            xa = wp.array(x, dtype=float, device="cpu")
            ya = wp.zeros_like(xa)
            start.wait()
            wp.launch(kernels[n], dim=len(x), inputs=[xa, ya], device="cpu")
            results[n] = ya.numpy()
        except Exception as e:  # noqa: BLE001 - reported below, with its thread
            errors.append((n, repr(e)))

    threads = [threading.Thread(target=run, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for n in range(THREADS):
        np.testing.assert_allclose(results[n], _expected(x, n), rtol=1e-5, atol=1e-5)
