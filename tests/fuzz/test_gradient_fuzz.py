"""The differential fuzzer, backward: the fuzzer's random kernels (branches, constant and dynamic
loops, break/continue, values reassigned in loops, array stores read back) run through a Tape, and
each input's gradient is compared with central differences of the numpy float64 reference.

All kernels are recorded on one Tape (each with its own arrays), so one backward pass builds their
backward code together, in bundles. Threads are left unchecked where the difference quotient does
not stand for the derivative: a branch too close to call in float32 (the forward fuzz test's
`unsure`), a value near a kink (abs at 0, a min/max tie, a clamp bound: the reference's `kinks`),
one-sided quotients that disagree (a kink within the step), or a store into a scratch element the
thread has read (`overwrites`: as in Warp, whose verify_autograd_array_access reports them, the
backward pass reads arrays as the forward pass left them, so such a gradient is not defined).

It runs a quarter of the forward test's kernel count (60 by default); `--fuzz-count N` and
`--fuzz-seed S` (as for the forward test) run more or another stream. A mismatch report prints
the kernel's source, the thread, its inputs and both gradients."""

from __future__ import annotations

import numpy as np
import pytest

import warp_nb as wp
from tests.fuzz.kernel_fuzzer import SLOTS, generate_module
from tests.fuzz.test_fuzz import _count, _import, _seed

pytestmark = [pytest.mark.needs_cxx, pytest.mark.slow]

THREADS = 32
STEP = 1e-6  # central differences in float64: truncation about 1e-12 |f'''|, rounding about 1e-10 |f|


def inputs(seed: int):
    """float32 inputs in [-2, 2], without the forward test's exact zeros and ones: a tie or a zero
    is a kink, whose threads a gradient check leaves out."""
    rs = np.random.default_rng(seed)
    return (rs.uniform(-2.0, 2.0, THREADS * SLOTS).astype(np.float32),
            rs.uniform(-2.0, 2.0, (THREADS, 3)).astype(np.float32))


def _loss(fk, x, v, n, gs, gv):
    """Per thread: gs * out + gv . outv of the float64 reference, and the reference's environment."""
    s, w, env = fk.reference_env(x, v, n)
    return gs * s.v + np.sum(gv * w.v, axis=1), env


def reference_gradients(fk, x, v, n, gs, gv):
    """d loss / d x (threads x SLOTS) and d loss / d v (threads x 3) by central differences in
    float64, and the threads where they do not stand for the derivative."""
    x64, v64 = x.astype(np.float64).reshape(THREADS, SLOTS), v.astype(np.float64)
    base, env = _loss(fk, x64, v64, n, gs, gv)
    skip = env.unsure | env.kinks
    grads = []
    for source, width in ((x64, SLOTS), (v64, 3)):
        g = np.zeros((THREADS, width))
        for c in range(width):
            quotients = []
            for sign in (1.0, -1.0):
                moved = source.copy()
                moved[:, c] += sign * STEP
                args = (moved, v64) if source is x64 else (x64, moved)
                loss, env_moved = _loss(fk, *args, n, gs, gv)
                skip |= env_moved.unsure
                quotients.append(sign * (loss - base) / STEP)
            right, left = quotients
            # one-sided quotients differ by about STEP * |f''| where f is smooth, by O(|f'|) across a kink
            skip |= np.abs(right - left) > 1e-4 * (1.0 + np.abs(right) + np.abs(left))
            g[:, c] = (right + left) / 2
        grads.append(g)
    return grads[0], grads[1], skip, env.overwrites


def _mismatches(got, want, skip):
    """Threads (not skipped) whose float32 gradient is off the float64 one by more than 2e-3 of its
    size (float32 rounding through a few dozen operations, with cancellation, stays well below)."""
    bad = np.abs(got - want) > 2e-3 * (1.0 + np.abs(want))
    return bad.any(axis=1) & ~skip


def test_random_kernels_gradients_match_central_differences(request, tmp_path):
    count, seed = max(_count(request.config) // 4, 1), _seed(request.config)
    source, kernels = generate_module(seed, count)
    module = _import(source, tmp_path)
    x_np, v_np = inputs(seed)
    rng = np.random.default_rng(seed)
    gs_np = rng.uniform(-1.0, 1.0, THREADS).astype(np.float32)
    gv_np = rng.uniform(-1.0, 1.0, (THREADS, 3)).astype(np.float32)

    failures, checked, skipped, overwrites, blind = [], 0, 0, 0, 0
    for n in (3, 0):
        tape, runs = wp.Tape(), []
        with tape:  # every kernel on one tape: their backward code builds together
            for fk in kernels:
                x = wp.array(x_np, dtype=wp.float32, requires_grad=True)
                v = wp.array(v_np, dtype=wp.vec3, requires_grad=True)
                scratch = wp.zeros(THREADS * SLOTS, dtype=wp.float32, requires_grad=True)
                out = wp.zeros(THREADS, dtype=wp.float32, requires_grad=True)
                outv = wp.zeros(THREADS, dtype=wp.vec3, requires_grad=True)
                wp.launch(getattr(module, fk.name), dim=THREADS, inputs=[x, v, n, scratch, out, outv])
                runs.append((fk, x, v, out, outv))
        grads = {}
        for _, _, _, out, outv in runs:
            grads[out] = wp.array(gs_np, dtype=wp.float32)
            grads[outv] = wp.array(gv_np, dtype=wp.vec3)
        tape.backward(grads=grads)
        for fk, x, v, _, _ in runs:
            want_x, want_v, skip, overwrite = reference_gradients(fk, x_np, v_np, n, gs_np.astype(np.float64),
                                                                  gv_np.astype(np.float64))
            got_x, got_v = x.grad.numpy().reshape(THREADS, SLOTS), v.grad.numpy()
            skipped += int((skip & ~overwrite).sum())
            overwrites += int(overwrite.sum())
            skip |= overwrite
            checked += int((~skip).sum())
            # the tolerance is not vacuous: a gradient off by 1e-2 (relative) must be caught
            nudged = _mismatches(got_x + 1e-2 * (1 + np.abs(got_x)), want_x, skip)
            blind += int((~skip).any() and not nudged.any())
            bad = np.flatnonzero(_mismatches(got_x, want_x, skip) | _mismatches(got_v, want_v, skip))
            if bad.size:
                t = int(bad[0])
                failures.append(f"{fk.name} (n={n}), {bad.size} threads, e.g. thread {t}: "
                                f"x={x_np[t * SLOTS:(t + 1) * SLOTS]} v={v_np[t]}\n"
                                f"  d/dx got {got_x[t]} want {want_x[t]}\n"
                                f"  d/dv got {got_v[t]} want {want_v[t]}\n{fk.source}")
    print(f"\ngradient fuzz: {count} kernels (seed {seed}), {checked} thread gradients checked, {skipped} "
          f"left unchecked (a branch too close to call or a kink) and {overwrites} (an overwrite), {blind} launches "
          f"blind to a 1e-2 error, {len(failures)} mismatches")
    assert blind == 0, f"{blind} launches would not notice a 1e-2 error"
    total = checked + skipped + overwrites
    assert skipped <= 0.15 * total and overwrites <= 0.3 * total, "too many threads unchecked: the check says little"
    assert not failures, (f"{len(failures)} of {2 * count} launches' gradients differ from central differences:\n\n"
                          + "\n\n".join(failures[:5]))
