"""The fuzzer's kernels run by warp_nb and by the real warp-lang, compared thread by thread.

CI has no warp-lang, so this is a tool, not a test (test_fuzz.py compares with numpy float64 in
CI): give it a Python that has warp-lang installed, e.g. the conformance runner's baseline venv.

    python -m tests.fuzz.against_warp --count 1000 --seed 12 \
        --warp-python ~/.cache/warp_nb/conformance/venv-warp/bin/python

Each side runs in its own process (`--side` below) over the same generated module (only the import
line differs) and the same inputs, and writes every launch's outputs to an .npz file. A thread
differs when the two sides lie further apart than the fuzz test's own tolerance (4x the float32
error bound the numpy reference carries, plus a 1e-6 relative floor); each difference is then
judged against the numpy float64 reference: which side is off, and by how much. Threads whose
branch is too close to call in float32 (`unsure`) are left out, as in the fuzz test.
Exit status 1 when any thread differs."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

THREADS = 64
ROOT = Path(__file__).resolve().parents[2]


def _module_source(import_line: str, kernels) -> str:
    from tests.fuzz.kernel_fuzzer import HELPERS
    return import_line + "\n\n\n" + HELPERS + "\n\n".join(k.source for k in kernels)


def load_source(path: Path, source: str):
    """Write `source` to `path` and import it as a module of that name (kernels need a real file)."""
    import importlib.util
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def run_side(import_line: str, workdir: str, seed: int, count: int, out_path: str) -> None:
    """In this process: compile the seed's kernels (a kernel this side refuses is left out and its
    reason kept, then the rest compile again), launch each with n = 3 and n = 0, save the outputs."""
    from tests.fuzz.kernel_fuzzer import SLOTS, generate_module, inputs
    _, kernels = generate_module(seed, count)
    refused = {}
    t0 = time.perf_counter()
    for attempt in range(count + 1):
        module = load_source(Path(workdir) / f"fuzz_{seed}_try{attempt}.py", _module_source(import_line, kernels))
        wp = module.wp
        try:
            wp.load_module(module, device="cpu")
            break
        except Exception as exc:  # noqa: BLE001 (a refused kernel is a finding, recorded with its reason)
            names = [k.name for k in kernels if f'"{k.name}"' in str(exc) or f"`{k.name}`" in str(exc)]
            if not names:
                raise
            why = str(exc).strip().splitlines()[-1].lstrip(";")[:300]
            refused[names[0]] = re.sub(r"constant \w+ inside", "constant <name> inside", why)
            kernels = [k for k in kernels if k.name != names[0]]
    compile_s = time.perf_counter() - t0
    x_np, v_np = inputs(seed, THREADS)
    x, v = wp.array(x_np, dtype=wp.float32, device="cpu"), wp.array(v_np, dtype=wp.vec3, device="cpu")
    scratch = wp.zeros(THREADS * SLOTS, dtype=wp.float32, device="cpu")
    out, outv = wp.zeros(THREADS, dtype=wp.float32, device="cpu"), wp.zeros(THREADS, dtype=wp.vec3, device="cpu")
    results = {}
    for fk in kernels:
        for n in (3, 0):
            scratch.zero_()
            wp.launch(getattr(module, fk.name), dim=THREADS, inputs=[x, v, n, scratch, out, outv], device="cpu")
            results[f"{fk.name}_{n}_s"] = out.numpy().copy()
            results[f"{fk.name}_{n}_v"] = outv.numpy().copy()
    np.savez(out_path, compile_s=compile_s, refused=json.dumps(refused), **results)


def _side(python: str, import_line: str, workdir: Path, seed: int, count: int, out: Path, env: dict) -> float:
    t0 = time.perf_counter()
    workdir.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run([python, "-m", "tests.fuzz.against_warp", "--side", import_line, "--workdir", str(workdir),
                           "--seed", str(seed), "--count", str(count), "--out", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{python} failed:\n{proc.stderr[-4000:]}")
    return time.perf_counter() - t0


def _apart(a: np.ndarray, b: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """Where a and b differ by more than tol; equal infinities agree, two NaNs agree, a NaN or an
    infinity against anything else differs."""
    with np.errstate(invalid="ignore"):
        far = ~(np.abs(a - b) <= tol)
    return far & (a != b) & ~(np.isnan(a) & np.isnan(b))


def compare(seed: int, count: int, ours: dict, theirs: dict) -> tuple[list[str], dict]:
    """Thread by thread, over the kernels both sides compiled."""
    from tests.fuzz.kernel_fuzzer import generate_module, inputs
    _, kernels = generate_module(seed, count)
    x_np, v_np = inputs(seed, THREADS)
    diffs, stats = [], {"launches": 0, "threads": 0, "bitwise": 0, "unsure": 0}
    for fk in kernels:
        for n in (3, 0):
            key = f"{fk.name}_{n}"
            if key + "_s" not in ours or key + "_s" not in theirs:
                continue
            ref_s, ref_v, unsure = fk.reference(x_np, v_np, n)
            a_s, b_s = ours[key + "_s"].astype(np.float64), theirs[key + "_s"].astype(np.float64)
            a_v, b_v = ours[key + "_v"].astype(np.float64), theirs[key + "_v"].astype(np.float64)
            tol_s = 4.0 * ref_s.e + 1e-6 * (1.0 + np.abs(ref_s.v))
            tol_v = 4.0 * ref_v.e + 1e-6 * (1.0 + np.abs(ref_v.v))
            bad = _apart(a_s, b_s, tol_s) | _apart(a_v, b_v, tol_v).any(axis=1)
            same = (a_s == b_s) & (a_v == b_v).all(axis=1)
            stats["launches"] += 1
            stats["threads"] += int((~unsure).sum())
            stats["unsure"] += int(unsure.sum())
            stats["bitwise"] += int((same & ~unsure).sum())
            for t in np.flatnonzero(bad & ~unsure)[:1]:
                ours_off, theirs_off = abs(a_s[t] - ref_s.v[t]), abs(b_s[t] - ref_s.v[t])
                diffs.append(f"{fk.name} (n={n}) thread {t}: warp_nb {a_s[t]!r} {a_v[t]}, warp-lang {b_s[t]!r} {b_v[t]}, "
                             f"numpy float64 {ref_s.v[t]!r} {ref_v.v[t]} -> off from float64: warp_nb {ours_off:.3g}, "
                             f"warp-lang {theirs_off:.3g}\n{fk.source}")
    return diffs, stats


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--seed", type=int, default=12)
    p.add_argument("--warp-python", default=os.path.expanduser("~/.cache/warp_nb/conformance/venv-warp/bin/python"))
    p.add_argument("--side", help=argparse.SUPPRESS)
    p.add_argument("--out", help=argparse.SUPPRESS)
    p.add_argument("--workdir", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.side:
        run_side(args.side, args.workdir, args.seed, args.count, args.out)
        return 0
    if not Path(args.warp_python).exists():
        raise SystemExit(f"no Python with warp-lang at {args.warp_python}: pass --warp-python "
                         "(tests/warp_conformance/run.py --baseline creates one)")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env = dict(os.environ, PYTHONPATH=str(ROOT), CUDA_VISIBLE_DEVICES="", WARP_NB_CACHE_DIR=str(tmp / "cache-nb"))
        t_ours = _side(sys.executable, "import warp_nb as wp", tmp / "nb", args.seed, args.count, tmp / "ours.npz", env)
        t_theirs = _side(args.warp_python, "import warp as wp", tmp / "warp", args.seed, args.count, tmp / "theirs.npz",
                         dict(env, WARP_CACHE_PATH=str(tmp / "cache-warp")))
        ours, theirs = dict(np.load(tmp / "ours.npz")), dict(np.load(tmp / "theirs.npz"))
    diffs, stats = compare(args.seed, args.count, ours, theirs)
    refused = {"warp_nb": json.loads(str(ours["refused"])), "warp-lang": json.loads(str(theirs["refused"]))}
    print(f"{args.count} kernels (seed {args.seed}), {stats['launches']} launches, {stats['threads']} thread results "
          f"compared ({stats['unsure']} too close to call, left out); bitwise equal: {stats['bitwise']} "
          f"({100.0 * stats['bitwise'] / max(stats['threads'], 1):.1f}%); launches that differ: {len(diffs)}")
    print(f"compile + run, cold caches: warp_nb {t_ours:.1f} s (compile {float(ours['compile_s']):.1f} s), "
          f"warp-lang {t_theirs:.1f} s (compile {float(theirs['compile_s']):.1f} s)")
    for side, names in refused.items():
        reasons: dict[str, list[str]] = {}
        for name, why in names.items():
            reasons.setdefault(why, []).append(name)
        for why, which in reasons.items():
            print(f"refused by {side}: {len(which)} kernels ({', '.join(which[:5])}{' ...' if len(which) > 5 else ''}): {why}")
    for d in diffs[:10]:
        print("\n" + d)
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
