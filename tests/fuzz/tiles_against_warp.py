"""Random tile kernels (wp.tile_* launched with wp.launch_tiled) run by warp_nb and by warp-lang on
the CPU, forward and backward through a wp.Tape, their results and input gradients compared.

CI has no warp-lang, so this is a tool, not a test: give it a Python that has warp-lang installed,
e.g. the conformance runner's baseline venv.

    python -m tests.fuzz.tiles_against_warp --seed 1 \
        --warp-python ~/.cache/warp_nb/conformance/venv-warp/bin/python

The kernels come from the templates of tile_cases.py, each drawn for float32, float64 and (where
the op takes it) int32, with random tile shapes (non-powers of two, tiles that do not divide the
array, offsets that run past its end): tile_load / tile_store (1-D, 2-D, 3-D, register and shared,
partial tiles), tile_load_indexed, tile_zeros / ones / full / arange, tile arithmetic and tile_map
of builtins and of a @wp.func, tiles of vec3 (cross, dot, sum), tile_broadcast / transpose /
reshape / squeeze, tile_view / slices / tile_assign / tile_extract / t[i, j] and element writes
(=, +=, -=), tile_sum (whole, per axis) / min / max / argmin / argmax / tile_reduce (add, mul, min,
max, a @wp.func) with ties, the four scans, tile_sort (tied keys, values), tile_matmul (returning,
accumulating, alpha / beta, in a K-loop), tile_cholesky (lower, upper) / cholesky_solve /
lower_solve / upper_solve, tile_atomic_add (and its result), tile_astype, tiles carried through a
dynamic loop, and wp.tile / wp.untile of per-thread values. Each template's kernels share one module
and one block_dim (1, 8 or 64). Every case runs twice: with wp.config.enable_cpu_blocks off (a
block of one lane, the CPU's default) and on (`--no-blocks` skips that pass). Float outputs get
random adjoints and the gradients of the float inputs are compared, except through the ops that
warp-lang does not differentiate (it gives zeros where warp_nb gives the true gradient): tile_min /
max / argmin / argmax / tile_reduce, the scans, tile_cholesky_solve, tile_upper_solve, tile_sort,
tile_from_thread, tile_diag_add (and tile_scatter_masked from several lanes, where warp-lang's
adjoint credits the wrong lane).
Where Warp leaves a result unspecified, the comparison allows any valid one: the order of values
among equal sort keys, and which of tied extremes argmin / argmax picks. A seed takes about a minute
and a half on two cores, most of it warp-lang's compiles.

Exit status 1 when a result differs beyond rtol = atol (times the compared values' largest
magnitude, at least 1) of 1e-5 for float32 (1e-4 for tile_matmul and the Cholesky ops), 1e-12 for
float64, exactly for int32, or when one side raises and the other does not."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

import numpy as np

from tests.fuzz import two_sides
from tests.fuzz.tile_cases import cases as draw_cases


def run_side(module: str, cases_path: str, out: str, blocks: bool, group: str | None = None) -> None:
    """In this process: every case (of `group`, when given), its final arrays and input gradients (or
    its error) into `out`."""
    wp = importlib.import_module(module)
    wp.config.quiet = True
    wp.config.enable_cpu_blocks = blocks
    cases = json.loads(Path(cases_path).read_text())
    data = dict(np.load(cases_path + ".npz"))
    results, modules, workdir = {}, {}, Path(cases_path).parent
    for index, case in enumerate(cases):
        if group is not None and case["group"] != group:
            continue
        try:
            name = case["group"]
            if name not in modules:
                src = "\n\n".join(c["src"] for c in cases if c["group"] == name)
                modules[name] = two_sides.load_source(workdir / f"{module}_{name}_{int(blocks)}.py",
                                                      f"import {module} as wp\n\n\n{src}\n")
            results.update(_run_case(wp, getattr(modules[name], f"k{index}"), index, case, data))
        except Exception as e:  # noqa: BLE001  (any error is a result to compare)
            last = traceback.extract_tb(e.__traceback__)[-1]
            results[f"{index}.err"] = np.array(f"{type(e).__name__}: {str(e)[:300]} ({Path(last.filename).name}:{last.lineno})")
    np.savez(out, **results)


def _run_case(wp, kernel, index, case, data) -> dict:
    arrays = {}
    for a in case["arrays"]:
        float_in = a["dtype"] != "int32" and case["backward"]
        arrays[a["name"]] = wp.array(data[f"{index}.{a['name']}"], dtype=getattr(wp, a["dtype"]), requires_grad=float_in)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(kernel, dim=case["dim"], inputs=list(arrays.values()), block_dim=case["block_dim"], device="cpu")
    got = {f"{index}.{name}": arr.numpy() for name, arr in arrays.items()}
    if case["backward"]:
        try:
            tape.backward(grads={arrays[a["name"]]: wp.array(data[f"{index}.{a['name']}.adj"], dtype=getattr(wp, a["dtype"]))
                                 for a in case["arrays"] if a["role"] == "out" and a["dtype"] != "int32"})
            got.update({f"{index}.{a['name']}.grad": arrays[a["name"]].grad.numpy()
                        for a in case["arrays"] if a["role"] == "in" and a["dtype"] != "int32"})
        except Exception as e:  # noqa: BLE001
            got[f"{index}.backward_err"] = np.array(f"{type(e).__name__}: {str(e)[:300]}")
    return got


def _close(a, b, dtype: str, tol: float) -> np.ndarray:
    if a.shape != b.shape:
        return np.zeros(1, dtype=bool)
    if a.dtype.kind in "iub":
        return a == b
    rel = 1e-12 if dtype == "float64" else tol
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    scale = max(1.0, float(np.abs(np.where(np.isfinite(a64), a64, 0.0)).max(initial=0.0)))
    return np.isclose(a64, b64, rtol=rel, atol=rel * scale) | (np.isnan(a64) & np.isnan(b64))


def compare(cases: list, warp: dict, ours: dict) -> list:
    """[(case index, key, message)] of what differs."""
    found = []
    for index, case in enumerate(cases):
        keys = sorted(k for k in set(warp) | set(ours) if k.split(".")[0] == str(index))
        if not keys:  # neither side ran it: a fault of this tool
            found.append((index, "-", "no results from either side"))
            continue
        err = f"{index}.err"
        if (err in warp) != (err in ours):  # one side raised: its message says it all
            side, have = ("warp-lang", warp) if err in warp else ("warp_nb", ours)
            found.append((index, err, f"only {side} raises: {str(have[err]).splitlines()[-1][:300]}"))
            continue
        for key in keys:
            if key not in warp or key not in ours:
                have = warp if key in warp else ours
                found.append((index, key, f"only {'warp-lang' if have is warp else 'warp_nb'} has it: "
                                          f"{str(have[key])[:300]}"))
                continue
            a, b = warp[key], ours[key]
            tied_to = case["ties"].get(key.split(".", 1)[1])
            if tied_to:  # each side's values sorted within its runs of equal keys
                a, b = (np.array(v)[np.lexsort((v, side[f"{index}.{tied_to}"]))] for v, side in ((a, warp), (b, ours)))
            points_into = case["args"].get(key.split(".", 1)[1])
            if points_into:  # block k's index j: element (k * M + j // N, j % N) of the array
                src, m, n = points_into
                arr = warp[f"{index}.{src}"]
                a, b = ([arr[k * m + j // n, j % n] if 0 <= j < m * n else np.nan for k, j in enumerate(v)] for v in (a, b))
                a, b = np.array(a, dtype=np.float64), np.array(b, dtype=np.float64)
            if a.dtype.kind in "US":
                continue  # both raised: the messages may differ
            ok = _close(a, b, case["dtype"], case["tol"])
            if not ok.all():
                where = np.argwhere(~ok)[0] if ok.shape == a.shape else None
                at = tuple(int(x) for x in where) if where is not None else None
                detail = (f"shapes {a.shape} vs {b.shape}" if at is None else
                          f"{int((~ok).sum())} of {a.size} elements, e.g. {at}: warp-lang {a[at]!r}, warp_nb {b[at]!r}")
                found.append((index, key, detail))
    return found


def _run(python, side, cases, cases_path, blocks, out) -> dict:
    """One side's results; when its process dies (warp-lang has aborted on a double free), each group
    in a process of its own, a group whose process dies recorded as its cases' error."""
    args = ["--side", side, "--cases", cases_path, "--blocks", str(blocks)]
    try:
        two_sides.run_side(python, "tests.fuzz.tiles_against_warp", [*args, "--out", out + ".npz"])
        return dict(np.load(out + ".npz"))
    except subprocess.CalledProcessError:
        pass
    results = {}
    for group in dict.fromkeys(c["group"] for c in cases):
        try:
            two_sides.run_side(python, "tests.fuzz.tiles_against_warp", [*args, "--group", group, "--out", f"{out}.{group}.npz"])
            results.update(np.load(f"{out}.{group}.npz"))
        except subprocess.CalledProcessError as e:
            for index, case in enumerate(cases):
                if case["group"] == group:
                    results[f"{index}.err"] = np.array(f"crash: the process died ({e.returncode})")
    return results


def main(argv=None) -> int:
    p = two_sides.parser(__doc__)
    p.add_argument("--cases", help=argparse.SUPPRESS)
    p.add_argument("--blocks", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--group", help=argparse.SUPPRESS)
    p.add_argument("--no-blocks", action="store_true", help="skip the pass with wp.config.enable_cpu_blocks on")
    p.add_argument("--only", nargs="*", help="template names to run (all when absent)")
    p.add_argument("--show", action="store_true", help="print the source of each case that differs")
    args = p.parse_args(argv)
    if args.side:
        run_side(args.side, args.cases, args.out, bool(args.blocks), args.group)
        return 0
    cases, data = draw_cases(args.seed)
    if args.only:
        keep = [i for i, c in enumerate(cases) if c["group"] in args.only]
        renumber = {old: new for new, old in enumerate(keep)}
        data = {f"{renumber[int(k.split('.')[0])]}.{k.split('.', 1)[1]}": v for k, v in data.items()
                if int(k.split(".")[0]) in renumber}
        cases = [dict(cases[i], src=cases[i]["src"].replace(f"def k{i}(", f"def k{renumber[i]}(")) for i in keep]
    total = 0
    with tempfile.TemporaryDirectory(prefix="wpnb-tiles-") as tmp:
        cases_path = os.path.join(tmp, "cases.json")
        Path(cases_path).write_text(json.dumps(cases))
        np.savez(cases_path + ".npz", **data)
        for blocks in ((0,) if args.no_blocks else (0, 1)):
            results = {}
            for side, python in (("warp", args.warp_python), ("warp_nb", sys.executable)):
                results[side] = _run(python, side, cases, cases_path, blocks, os.path.join(tmp, f"{side}{blocks}"))
            found = compare(cases, results["warp"], results["warp_nb"])
            raised = sum(1 for i in range(len(cases)) if f"{i}.err" in results["warp"] and f"{i}.err" in results["warp_nb"])
            print(f"seed {args.seed}, enable_cpu_blocks={bool(blocks)}: {len(cases)} kernels; {raised} raise on both "
                  f"sides; {len(found)} results differ")
            for index, key, detail in found:
                case = cases[index]
                print(f"  {case['name']} ({case['dtype']}, block_dim {case['block_dim']}) {key}: {detail}")
                if args.show:
                    print("    " + case["src"].replace("\n", "\n    "))
            total += len(found)
    return 1 if total else 0


if __name__ == "__main__":
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    sys.exit(main())
