"""Every builtin warp-lang exports to Python scope, called with random arguments by warp_nb and by
warp-lang, compared call by call.

CI has no warp-lang, so this is a tool, not a test: give it a Python that has warp-lang installed,
e.g. the conformance runner's baseline venv.

    python -m tests.fuzz.builtins_against_warp --seed 1 \
        --warp-python ~/.cache/warp_nb/conformance/venv-warp/bin/python

The cases come from warp-lang's own table of builtins (each exported overload whose parameters are
scalars, vectors, matrices, quaternions or transforms of the types below) and each of the builtins
it writes in Python (`FUNCTIONS`), eight random argument sets each, written to a JSON file; each side then calls `wp.<name>(*args)` in its own process and
writes one result (the values, flattened) or one error per case. warp-lang kills its process on an
integer division by zero (SIGFPE: `wp.div`, `wp.mod`, a `pnoise` period of 0, `randi(s, 2, 2)`),
so a side that dies is restarted after the case that killed it, which is reported as `crash`.
Python scope runs the kernels' code in both (warp-lang through its exported C functions, warp_nb
through a one-thread kernel or a numpy twin of it), so a difference is one of the builtin or of
its Python-scope twin. Exit status 1 when results differ (beyond rtol 2e-4, atol 2e-5) or only one
side raises; the differences are printed by overload."""

from __future__ import annotations

import argparse
import collections
import contextlib
import importlib
import io
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

from tests.fuzz import two_sides

#: type name -> number of values; int types draw in [-5, 5], unsigned in [0, 40)
TYPES = {"float16": 1, "float32": 1, "float64": 1, "int8": 1, "int32": 1, "int64": 1, "uint32": 1, "bool": 1,
         "vec2f": 2, "vec3f": 3, "vec4f": 4, "vec2d": 2, "vec3d": 3, "vec3i": 3, "mat22f": 4, "mat33f": 9,
         "mat44f": 16, "mat22d": 4, "mat33d": 9, "quatf": 4, "quatd": 4, "transformf": 7, "transformd": 7,
         "spatial_vectorf": 6}
#: Warp's builtins written in Python (@wp.func, callable from Python scope), which its table lists
#: without overloads: their parameters. "axes" is three int32 arguments, a permutation of (0, 1, 2).
FUNCTIONS = {
    "norm_l1": ["vec3f"], "norm_l2": ["vec3f"], "norm_huber": ["vec3f", "float32"],
    "norm_pseudo_huber": ["vec3f", "float32"], "smooth_normalize": ["vec3f", "float32"],
    "quat_from_euler": ["vec3f", "axes"], "quat_to_euler": ["quatf", "axes"], "quat_to_rpy": ["quatf"],
    "quat_twist": ["vec3f", "quatf"], "quat_twist_angle": ["vec3f", "quatf"], "quat_twist_angle_signed": ["vec3f", "quatf"],
    "transform_compose": ["vec3f", "quatf", "vec3f"], "transform_decompose": ["mat44f"],
    "transform_from_matrix": ["mat44f"], "transform_to_matrix": ["transformf"],
    "transform_twist": ["transformf", "spatial_vectorf"], "transform_wrench": ["transformf", "spatial_vectorf"],
    "velocity_at_point": ["spatial_vectorf", "vec3f"],
}
SKIPPED_PREFIXES = ("atomic", "tile", "print")  # side effects or kernel-only by nature


def generate(seed: int, path: str) -> None:
    """In warp-lang's Python: the cases, from its table of exported builtins."""
    import warp as wp
    from warp._src import context  # the oracle's own table: which overloads it exports

    by_type = {getattr(wp, name): name for name in TYPES}
    rng = np.random.default_rng(seed)
    cases = []
    for name, f in sorted(context.builtin_functions.items()):
        if not getattr(f, "export", False) or name.startswith(SKIPPED_PREFIXES):
            continue
        for overload in f.overloads:
            types = list((overload.input_types or {}).values())
            if not overload.export or not types or any(t not in by_type for t in types):
                continue
            for k in range(8):
                cases.append({"name": name, "types": [by_type[t] for t in types],
                              "args": [_draw(rng, by_type[t], k) for t in types]})
    for name, params in FUNCTIONS.items():
        for k in range(8):
            types, args = [], []
            for t in params:
                if t == "axes":
                    types += ["int32"] * 3
                    args += [[int(a)] for a in rng.permutation(3)]
                else:
                    types.append(t)
                    args.append(_draw(rng, t, k))
            cases.append({"name": name, "types": types, "args": args})
    Path(path).write_text(json.dumps(cases))


def _draw(rng, type_name: str, k: int) -> list:
    n = TYPES[type_name]
    if type_name in ("int8", "int32", "int64", "vec3i"):
        return [int(v) for v in rng.integers(-5, 6, n)]
    if type_name == "uint32":
        return [int(rng.integers(0, 40))]
    if type_name == "bool":
        return [bool(rng.integers(0, 2))]
    v = rng.standard_normal(n) * (2.0 if k % 2 else 0.7)
    if k == 7:
        v = np.round(v)  # small integers: ties, zeros, exact cases
    if type_name.startswith(("quat", "transform")) and k < 6:  # unit rotations, but for two cases
        v[-4:] /= max(np.linalg.norm(v[-4:]), 1e-3)
    return [float(np.float32(x)) for x in v]


def run_side(module: str, cases_path: str, out_path: str, start: int) -> None:
    """In this process: call each case from `start` on, appending one JSON line per case."""
    wp = importlib.import_module(module)
    wp.config.quiet = True
    cases = json.loads(Path(cases_path).read_text())

    def make(type_name, values):
        if type_name == "bool":
            return bool(values[0])
        if TYPES[type_name] == 1:
            return getattr(wp, type_name)(values[0])
        return getattr(wp, type_name)(*values)

    with open(out_path, "a") as out:
        for case in cases[start:]:
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    result = getattr(wp, case["name"])(*[make(t, v) for t, v in zip(case["types"], case["args"])])
                line = {"ok": _flat(result)}
            except Exception as e:  # noqa: BLE001  (any error is a result to compare)
                line = {"err": f"{type(e).__name__}: {str(e)[:100]}"}
            out.write(json.dumps(line) + "\n")
            out.flush()


def _flat(result) -> list:
    if isinstance(result, tuple):
        return [x for part in result for x in _flat(part)]
    return [float(x) for x in np.array(result, dtype=np.float64).ravel()]


def compare(cases: list, warp: list, ours: list) -> dict:
    """{overload: [(kind, warp's, warp_nb's, args)]} of the cases that differ."""
    found = collections.defaultdict(list)
    for case, w, b in zip(cases, warp, ours):
        key = f"{case['name']}({', '.join(case['types'])})"
        if "err" in w and "err" in b:
            continue
        if "err" in w or "err" in b:
            found[key].append(("error", w.get("err", "ok"), b.get("err", "ok"), case["args"]))
            continue
        a, d = np.array(w["ok"]), np.array(b["ok"])
        if a.shape != d.shape:
            found[key].append(("shape", a.shape, d.shape, case["args"]))
        elif not (np.isclose(a, d, rtol=2e-4, atol=2e-5) | (np.isnan(a) & np.isnan(d))).all():
            found[key].append(("value", a.round(6).tolist(), d.round(6).tolist(), case["args"]))
    return found


def main(argv=None) -> int:
    p = two_sides.parser(__doc__)
    p.add_argument("--cases", help=argparse.SUPPRESS)
    p.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--generate", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.generate:
        generate(args.seed, args.generate)
        return 0
    if args.side:
        run_side(args.side, args.cases, args.out, args.start)
        return 0
    with tempfile.TemporaryDirectory(prefix="wpnb-builtins-") as tmp:
        cases_path = os.path.join(tmp, "cases.json")
        two_sides.run_side(args.warp_python, "tests.fuzz.builtins_against_warp",
                           ["--seed", str(args.seed), "--generate", cases_path])
        cases = json.loads(Path(cases_path).read_text())
        warp, ours = (two_sides.run_restarting(python, "tests.fuzz.builtins_against_warp",
                                               ["--side", side, "--cases", cases_path],
                                               os.path.join(tmp, f"{side}.jsonl"), len(cases))
                      for side, python in (("warp", args.warp_python), ("warp_nb", sys.executable)))
    found = compare(cases, warp, ours)
    names = {c["name"] for c in cases}
    crashes = sum(1 for w in warp if w.get("err", "").startswith("crash"))
    print(f"seed {args.seed}: {len(cases)} calls of {len(names)} builtins; warp-lang's process died on {crashes}; "
          f"{len(found)} overloads differ")
    for key, diffs in sorted(found.items()):
        kind, w, b, call_args = diffs[0]
        print(f"  {key}: {len(diffs)} of 8, e.g. {kind}: warp-lang {w}, warp_nb {b}, arguments {call_args}"[:400])
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
