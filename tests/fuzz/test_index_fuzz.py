"""Index fuzzing for the range facts (compiler/index_ranges.py, issue 21): random affine indices of
thread coordinates, loop counters (of loops to parameters, or to bounds read from memory) and
parameters, into arrays sized at, just past and just short of what the indices reach, and shifted to go negative. Each kernel runs checked and in release on the
same inputs; a Python model with Warp's rules (a negative index counts from the end, what is still
outside is out of bounds) says what must happen: the same sums, or, in checked code, an IndexError.
Range facts must never change a result: a wrong guard would read the wrong element or miss an error."""

from __future__ import annotations

import random
import uuid

import numpy as np
import pytest

import warp_nb as wp
from tests.fuzz.against_warp import load_source
from tests.support.helpers import launch_in_mode

pytestmark = [pytest.mark.needs_cxx, pytest.mark.slow]

KERNELS = 16


def _kernel(rng: random.Random, name: str) -> tuple[str, dict]:
    p = {"a": rng.choice([0, 1, 1, 2]), "b": rng.choice([0, 1, -1]), "c": rng.randint(-2, 2),
         "d": rng.choice([0, 0, 1, -1]), "lo": rng.choice([0, 1, 2]), "down": rng.random() < 0.3,
         "mem": rng.random() < 0.5}
    if p["mem"]:  # bounds read from memory (lims = [lo, n]): the loop's own entry check (compiler/loop_guards.py)
        loop = "range(lims[1] - 1, lims[0] - 1, -1)" if p["down"] else "range(lims[0], lims[1])"
    else:
        loop = "range(n - 1, -1, -1)" if p["down"] else f"range({p['lo']}, n)"
    src = (f"@wp.kernel\ndef {name}(x: wp.array(dtype=float), k: int, n: int, lims: wp.array(dtype=int),\n"
           f"        out: wp.array(dtype=float)):\n"
           f"    i = wp.tid()\n    s = float(0.0)\n    for j in {loop}:\n"
           f"        s += x[{p['a']} * i + {p['b']} * j + {p['c']} - k]\n"
           f"    out[i + {p['d']}] = s\n")
    return src, p


def _model(p: dict, threads: int, k: int, n: int, x: np.ndarray, out_len: int):
    """(out, error): what Warp's rules give, error True when some access is out of bounds."""
    out = np.zeros(out_len, dtype=np.float64)
    js = range(n - 1, -1, -1) if p["down"] else range(p["lo"], n)

    def wrap(idx, size):
        w = idx + size if idx < 0 else idx
        return w if 0 <= w < size else None

    for i in range(threads):
        s = np.float32(0.0)
        for j in js:
            w = wrap(p["a"] * i + p["b"] * j + p["c"] - k, len(x))
            if w is None:
                return None, True
            s = np.float32(s + x[w])
        w = wrap(i + p["d"], out_len)
        if w is None:
            return None, True
        out[w] = s
    return out, False




def test_random_affine_indices_near_the_bounds(tmp_path):
    rng = random.Random(21)
    names, sources, params = [], [], []
    for t in range(KERNELS):
        src, p = _kernel(rng, f"idx_fuzz_{t:02d}")
        names.append(f"idx_fuzz_{t:02d}")
        sources.append(src)
        params.append(p)
    module = load_source(tmp_path / f"idx_fuzz_{uuid.uuid4().hex[:8]}.py",
                         "import warp_nb as wp\n\n\n" + "\n\n".join(sources))
    wp.load_module(module, device="cpu")
    failures = []
    for name, p in zip(names, params):
        kernel = getattr(module, name)
        for trial in range(6):
            threads = rng.choice([1, 7, 300, 3000])
            n = rng.choice([0, 1, 5, 40])
            k = rng.choice([0, 0, 1, 3, threads])
            reach = max(p["a"] * (threads - 1) + max(p["b"] * (n - 1), 0, p["b"] * p["lo"]) + p["c"] - k + 1, 1)
            x_len = max(reach + rng.choice([-1, 0, 0, 1, 5]), 1)
            out_len = max(threads + max(p["d"], 0) + rng.choice([-1, 0, 0, 2]), 1)
            x = np.random.default_rng(trial).uniform(-1.0, 1.0, x_len).astype(np.float32)
            expect, error = _model(p, threads, k, n, x, out_len)
            for mode in ("checked", "release"):
                if error and mode == "release":
                    continue  # undefined in release code: nothing to compare
                out = wp.zeros(out_len, dtype=float)
                try:
                    lims = wp.array(np.array([0 if p["down"] else p["lo"], n], dtype=np.int32))
                    launch_in_mode(kernel, mode, threads, [wp.array(x), k, n, lims, out])
                    raised = False
                except IndexError:
                    raised = True
                case = f"{name} {p} threads={threads} n={n} k={k} len(x)={x_len} len(out)={out_len} {mode}"
                if raised != error:
                    failures.append(f"{case}: IndexError {'raised' if raised else 'missing'}")
                elif not error and not np.allclose(out.numpy(), expect, rtol=1e-5, atol=1e-5):
                    failures.append(f"{case}: values differ")
    assert not failures, "\n".join(failures[:10])
