"""Every differentiable builtin of float arguments, called in a kernel by warp_nb and by warp-lang
and run backward through a Tape: values and gradients compared thread by thread.

CI has no warp-lang, so this is a tool, not a test: give it a Python that has warp-lang installed,
e.g. the conformance runner's baseline venv.

    python -m tests.fuzz.gradients_against_warp --seed 1 \
        --warp-python ~/.cache/warp_nb/conformance/venv-warp/bin/python

builtins_against_warp.py compares Python scope; this compares what kernels compute, forward and
backward, where the adjoint conventions at kinks and singular points (docs/subgradients.md) are
choices that a program's gradients depend on. The cases come from warp-lang's table of builtins:
each overload that it marks differentiable, whose parameters are all float32/float64 scalars,
vectors, matrices, quaternions, transforms or spatial vectors and whose result is one such value or
a tuple of them, plus the builtins of `FUNCTIONS`. Each case is one kernel, `r0[i] = wp.f(a0[i],
...)`, launched on 8 threads (8 random argument sets, the last of small integers: ties, zeros, exact
cases), then Tape.backward with random adjoints of its results. A kernel per builtin name goes into
one module per name (only the import line differs between the sides). A side whose process dies is
restarted after the case that killed it. Exit status 1 when values or gradients differ beyond
rtol 1e-3, atol 1e-4 times the largest magnitude of the compared values (at least 1) or only one
side raises."""

from __future__ import annotations

import argparse
import collections
import importlib
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

from tests.fuzz import two_sides
from tests.fuzz.builtins_against_warp import TYPES, _draw

THREADS = 8
FLOAT_TYPES = [t for t in TYPES if not t.startswith(("int", "uint", "bool", "float16", "vec3i"))]
#: builtins whose result type warp-lang's table does not give (a value_func, or a builtin written in
#: Python): name, parameters, results. A parameter "=<literal>" is written into the call as is.
FUNCTIONS = [
    ("quat_to_rpy", ["quatf"], ["vec3f"]), ("quat_twist", ["vec3f", "quatf"], ["quatf"]),
    ("quat_twist_angle", ["vec3f", "quatf"], ["float32"]), ("quat_twist_angle_signed", ["vec3f", "quatf"], ["float32"]),
    ("transform_twist", ["transformf", "spatial_vectorf"], ["spatial_vectorf"]),
    ("transform_wrench", ["transformf", "spatial_vectorf"], ["spatial_vectorf"]),
    ("velocity_at_point", ["spatial_vectorf", "vec3f"], ["vec3f"]),
    ("norm_l1", ["vec3f"], ["float32"]), ("norm_l2", ["vec3f"], ["float32"]),
    ("norm_huber", ["vec3f", "float32"], ["float32"]), ("norm_pseudo_huber", ["vec3f", "float32"], ["float32"]),
    ("smooth_normalize", ["vec3f", "float32"], ["vec3f"]),
    ("transform_compose", ["vec3f", "quatf", "vec3f"], ["transformf"]),
    ("transform_to_matrix", ["transformf"], ["mat44f"]),
    ("transform_decompose", ["mat44f"], ["vec3f", "quatf", "vec3f"]),
    ("transform_from_matrix", ["mat44f"], ["transformf"]),
    ("spatial_adjoint", ["mat33f", "mat33f"], ["spatial_matrixf"]),
    ("matrix_from_cols", ["vec3f", "vec3f", "vec3f"], ["mat33f"]),
    ("matrix_from_rows", ["vec2f", "vec2f", "vec2f"], ["mat32f"]),
    ("transformation", ["vec3f", "quatf"], ["transformf"]), ("spatial_vector", ["vec3f", "vec3f"], ["spatial_vectorf"]),
    ("quaternion", ["float32"] * 4, ["quatf"]), ("vector", ["float64"] * 3, ["vec3d"]),
    ("quat_from_euler", ["vec3f", "=0", "=1", "=2"], ["quatf"]),
    ("quat_to_euler", ["quatf", "=2", "=1", "=0"], ["vec3f"]),
    ("quat_to_euler", ["quatf", "=2", "=0", "=2"], ["vec3f"]),
    ("svd3", ["mat33f"], ["mat33f", "vec3f", "mat33f"]), ("svd2", ["mat22f"], ["mat22f", "vec2f", "mat22f"]),
    ("qr3", ["mat33f"], ["mat33f", "mat33f"]), ("eig3", ["mat33f"], ["mat33f", "vec3f"]),
]
#: builtins of symmetric matrices: their matrix arguments are made symmetric
SYMMETRIC = {"eig3"}
#: values of the types TYPES does not have
EXTRA_SIZES = {"spatial_matrixf": 36, "mat32f": 6}
SKIPPED_PREFIXES = ("atomic", "tile", "print")


def generate(seed: int, path: str) -> None:
    """In warp-lang's Python: the cases, from its table of builtins."""
    import warp as wp
    from warp._src import context  # the oracle's own table: which overloads it has

    by_type = {getattr(wp, name): name for name in FLOAT_TYPES}
    rng = np.random.default_rng(seed)
    signatures = []
    for name, f in sorted(context.builtin_functions.items()):
        if name.startswith(SKIPPED_PREFIXES) or name in {f[0] for f in FUNCTIONS}:
            continue
        for overload in getattr(f, "overloads", [f]):
            types = list((overload.input_types or {}).values())
            result = overload.value_type
            results = list(result) if isinstance(result, tuple) else [result]
            if not types or not overload.is_differentiable or any(t not in by_type for t in (*types, *results)):
                continue
            signatures.append((name, [by_type[t] for t in types], [by_type[t] for t in results]))
    signatures += FUNCTIONS
    cases = [{"name": name, "types": types, "results": results,
              "args": [None if t.startswith("=") else [_draw_any(rng, t, k) for k in range(THREADS)] for t in types],
              "seeds": [[_draw_any(rng, t, 0) for _ in range(THREADS)] for t in results]}
             for name, types, results in signatures]
    Path(path).write_text(json.dumps(cases))


def _draw_any(rng, type_name: str, k: int) -> list:
    if type_name in TYPES:
        return _draw(rng, type_name, k)
    return [float(np.float32(x)) for x in rng.standard_normal(EXTRA_SIZES[type_name])]


def _shape(type_name: str) -> tuple:
    """The shape of one value of a type."""
    if type_name == "spatial_matrixf":
        return (6, 6)
    if type_name.startswith("mat"):
        return (int(type_name[3]), int(type_name[4]))
    n = TYPES.get(type_name) or EXTRA_SIZES[type_name]
    return () if n == 1 else (n,)


def module_source(import_line: str, name: str, cases: list) -> str:
    """One module of the kernels of builtin `name`: kernel k{index} for case `index`."""
    lines = [import_line, ""]
    for index, case in cases:
        types = case["types"]
        params = [f"a{j}: wp.array(dtype=wp.{t})" for j, t in enumerate(types) if not t.startswith("=")]
        params += [f"r{j}: wp.array(dtype=wp.{t})" for j, t in enumerate(case["results"])]
        call = f"wp.{name}({', '.join(t[1:] if t.startswith('=') else f'a{j}[i]' for j, t in enumerate(types))})"
        lines += ["", "@wp.kernel", f"def k{index}({', '.join(params)}):", "    i = wp.tid()"]
        if len(case["results"]) == 1:
            lines.append(f"    r0[i] = {call}")
        else:
            values = [f"v{j}" for j in range(len(case["results"]))]
            lines.append(f"    {', '.join(values)} = {call}")
            lines += [f"    r{j}[i] = v{j}" for j in range(len(values))]
    return "\n".join(lines) + "\n"


def run_side(module: str, cases_path: str, out_path: str, start: int, workdir: str) -> None:
    """In this process: run each case from `start` on, appending one JSON line per case."""
    wp = importlib.import_module(module)
    wp.config.quiet = True
    cases = json.loads(Path(cases_path).read_text())
    by_name = collections.defaultdict(list)
    for index, case in enumerate(cases):
        by_name[case["name"]].append((index, case))
    modules = {}
    with open(out_path, "a") as out:
        for index in range(start, len(cases)):
            case = cases[index]
            try:
                if case["name"] not in modules:
                    modules[case["name"]] = two_sides.load_source(
                        Path(workdir) / f"{module}_{case['name']}.py",
                        module_source(f"import {module} as wp", case["name"], by_name[case["name"]]))
                line = {"ok": _run_case(wp, getattr(modules[case["name"]], f"k{index}"), case)}
            except Exception as e:  # noqa: BLE001  (any error is a result to compare)
                line = {"err": f"{type(e).__name__}: {str(e)[:160]}"}
            out.write(json.dumps(line) + "\n")
            out.flush()


def _run_case(wp, kernel, case) -> dict:
    def make(type_name, rows, grad):
        dtype = getattr(wp, type_name)
        np_dtype = np.float64 if type_name.endswith("d") or type_name == "float64" else np.float32
        data = np.array(rows, dtype=np_dtype).reshape(THREADS, *_shape(type_name))
        if case["name"] in SYMMETRIC and grad and type_name.startswith("mat"):
            data = (data + np.swapaxes(data, 1, 2)) / 2
        return wp.array(data, dtype=dtype, requires_grad=grad)

    inputs = [make(t, rows, True) for t, rows in zip(case["types"], case["args"]) if rows is not None]
    results = [wp.zeros(THREADS, dtype=getattr(wp, t), requires_grad=True) for t in case["results"]]
    tape = wp.Tape()
    with tape:
        wp.launch(kernel, dim=THREADS, inputs=[*inputs, *results])
    values = [r.numpy().reshape(THREADS, -1).tolist() for r in results]
    tape.backward(grads={r: make(t, rows, False) for r, t, rows in zip(results, case["results"], case["seeds"])})
    return {"values": values, "grads": [a.grad.numpy().reshape(THREADS, -1).tolist() for a in inputs]}


def _close(a, b) -> np.ndarray:
    """Per thread: do warp-lang's `a` and warp_nb's `b` agree (nan where both are nan)?"""
    a, b = np.array(a, dtype=np.float64), np.array(b, dtype=np.float64)
    finite = np.abs(np.where(np.isfinite(a), a, 0.0))
    scale = max(1.0, float(finite.max(initial=0.0)))
    same = np.isclose(a, b, rtol=1e-3, atol=1e-4 * scale) | (np.isnan(a) & np.isnan(b))
    return same.reshape(THREADS, -1).all(axis=1)


def compare(cases: list, warp: list, ours: list) -> dict:
    """{overload: [(what, thread, warp's, warp_nb's, arguments)]} of the cases that differ."""
    found = collections.defaultdict(list)
    for case, w, b in zip(cases, warp, ours):
        key = f"{case['name']}({', '.join(case['types'])})"
        if "err" in w or "err" in b:
            if not ("err" in w and "err" in b):
                found[key].append(("error", None, w.get("err", "ok"), b.get("err", "ok"), None))
            continue
        for what in ("values", "grads"):
            for j, (x, y) in enumerate(zip(w["ok"][what], b["ok"][what])):
                for thread in np.flatnonzero(~_close(x, y)):
                    args = [rows[thread] for rows in case["args"] if rows is not None]
                    found[key].append((f"{what}[{j}]", int(thread), np.round(x[thread], 5).tolist(),
                                       np.round(y[thread], 5).tolist(), args))
    return found


def main(argv=None) -> int:
    p = two_sides.parser(__doc__)
    p.add_argument("--only", nargs="*", help="builtin names to run (all when absent)")
    p.add_argument("--cases", help=argparse.SUPPRESS)
    p.add_argument("--workdir", help=argparse.SUPPRESS)
    p.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--generate", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.generate:
        generate(args.seed, args.generate)
        return 0
    if args.side:
        run_side(args.side, args.cases, args.out, args.start, args.workdir)
        return 0
    with tempfile.TemporaryDirectory(prefix="wpnb-gradients-") as tmp:
        cases_path = os.path.join(tmp, "cases.json")
        two_sides.run_side(args.warp_python, "tests.fuzz.gradients_against_warp",
                           ["--seed", str(args.seed), "--generate", cases_path])
        cases = json.loads(Path(cases_path).read_text())
        if args.only:
            cases = [c for c in cases if c["name"] in args.only]
            Path(cases_path).write_text(json.dumps(cases))
        warp, ours = (two_sides.run_restarting(python, "tests.fuzz.gradients_against_warp",
                                               ["--side", side, "--cases", cases_path, "--workdir", tmp],
                                               os.path.join(tmp, f"{side}.jsonl"), len(cases))
                      for side, python in (("warp", args.warp_python), ("warp_nb", sys.executable)))
    found = compare(cases, warp, ours)
    both = sum(1 for w, b in zip(warp, ours) if "err" in w and "err" in b)
    print(f"seed {args.seed}: {len(cases)} overloads of {len({c['name'] for c in cases})} builtins, "
          f"{THREADS} threads each; {both} raise on both sides; {len(found)} overloads differ")
    for key, diffs in sorted(found.items()):
        what, thread, w, b, call_args = diffs[0]
        print(f"  {key}: {len(diffs)} differences, e.g. {what} thread {thread}: warp-lang {w}, warp_nb {b}, "
              f"arguments {call_args}"[:600])
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
