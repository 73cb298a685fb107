"""Warp's value types in Python scope (vectors, matrices, quaternions, transforms, spatial types,
@wp.struct instances), exercised by the same random programs in warp_nb and in warp-lang and
compared program by program.

CI has no warp-lang, so this is a tool, not a test: give it a Python that has warp-lang installed,
e.g. the conformance runner's baseline venv (CPU only).

    python -m tests.fuzz.values_against_warp --seed 1 \
        --warp-python ~/.cache/warp_nb/conformance/venv-warp/bin/python

The programs (value_programs, drawn per seed and case number) construct values every way Warp's
constructors take (scalars, one scalar, lists, tuples, numpy arrays, other composites, wrong
counts, floats into integer types, rows and columns, quaternion and transform forms), index them
(items, negative indices, slices, matrix pairs, rows, out of range, bad keys, setting items and
slices, .x/.p attributes), combine them (+ - * / // % @, unary operators, scalars of every kind on
either side, other scalar types, comparisons, hash, bool, in-place operators, division by zero,
integer wrap-around), convert them (list, tuple, numpy, str, repr, type queries, copy, deepcopy,
pickle) and build structs (defaults, field assignment of every kind, nested structs, array
fields, numpy_value). Each side runs each program in its own process and records its `r`: kind,
type (by kind, shape and scalar type: Warp names anonymous classes vec_t), the stored values read
from the bytes, text with addresses masked; or the exception's class and message start. Results
are compared exactly (within rounding where a program sums products: @, quaternion and transform
products). Exit status 1 when a program gives different results, or raises on one side only; the
differences known and documented (KNOWN, docs/compat.md) are counted apart and not printed unless
--show-known. warp-lang kills its process on an integer division by zero, so its side is
restarted after such a program, which is reported as `crash`."""

from __future__ import annotations

import argparse
import collections
import contextlib
import copy
import importlib
import io
import json
import math
import os
import pickle
import sys
import tempfile
import types
import warnings
from pathlib import Path

from tests.fuzz import two_sides, value_cases


def run_side(module: str, cases_path: str, out_path: str, start: int) -> None:
    """In this process: run each program from `start` on, appending one JSON line per program."""
    import numpy as np
    wp = importlib.import_module(module)
    wp.config.quiet = True
    wp.init()
    cases = json.loads(Path(cases_path).read_text())
    with open(out_path, "a") as out:
        for i, case in enumerate(cases[start:], start):
            # a module of its own, so that @wp.struct finds the class's module as a real one
            mod = types.ModuleType(f"values_case_{i}")
            sys.modules[mod.__name__] = mod
            mod.__dict__.update(wp=wp, np=np, copy=copy, pickle=pickle, math=math)
            with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(io.StringIO()):
                warnings.simplefilter("always")
                try:
                    exec(compile(case["src"], f"<values case {i}>", "exec"), mod.__dict__)
                    line = {"ok": value_cases.describe(mod.__dict__.get("r"))}
                except Exception as e:  # noqa: BLE001 - what raised is the result
                    line = {"err": type(e).__name__, "msg": str(e)[:120],
                            "mro": [c.__name__ for c in type(e).__mro__]}
            line["warn"] = sorted({w.category.__name__ for w in caught})
            del sys.modules[mod.__name__]
            out.write(json.dumps(line) + "\n")
            out.flush()


def close(a, b, approx: bool, rtol: float) -> bool:
    """Results equal (floats within rtol where approx)."""
    if a == b:
        return True
    if not approx or type(a) is not type(b):
        return False
    if isinstance(a, list):
        if len(a) == 2 and a[0] == "f" and b[0] == "f":
            x, y = float(a[1]), float(b[1])
            return math.isclose(x, y, rel_tol=rtol, abs_tol=rtol) or (math.isnan(x) and math.isnan(y))
        return len(a) == len(b) and all(close(x, y, approx, rtol) for x, y in zip(a, b))
    return False


# Differences known and documented in docs/compat.md ("Python-scope values"), each a test of
# (case, warp-lang's line, warp_nb's line).
def _msg(line, *parts) -> bool:
    return "err" in line and any(part in line.get("msg", "") for part in parts)


def _ok(line, *kinds) -> bool:
    return "ok" in line and (not kinds or line["ok"][0] in kinds)


def _flat(x) -> list:
    """The numbers of a described value, in order."""
    if isinstance(x, list) and len(x) == 2 and x[0] in ("f", "i", "b"):
        return [x]
    return [n for e in x for n in _flat(e)] if isinstance(x, list) else []


def _rounded(scalar: str, number) -> str:
    """A float's text once rounded to a 16- or 32-bit scalar type."""
    import numpy as np
    value = float(number[1])
    return repr(float(getattr(np, scalar)(value))) if scalar in ("float16", "float32") else repr(value)


def _fewer_args(line) -> bool:
    """A constructor refused for its count of arguments where it was given fewer than the components
    (vec4(vec2, vec2)): the arguments are composites or sequences, which warp_nb flattens."""
    import re
    found = re.search(r"constructor, expected (\d+) elements, got (\d+)", line.get("msg", ""))
    return bool(found) and int(found[2]) < int(found[1])


def _kindless(x) -> str:
    """A described value with vectors, quaternions and transforms alike (vec_t(4,)float16 ...)."""
    import re
    return re.sub(r"(vec|quat|transform)_t", "v", json.dumps(x))


def _prod(line) -> int:
    """The product of the numbers in a line (a shape's size)."""
    return math.prod(int(n[1]) for n in _flat(line["ok"]))


KNOWN = (
    # Warp's matrices have no __repr__ of their own
    ("warp-lang's matrix repr is object.__repr__", lambda c, w, b: _ok(w, "str") and " object at 0x?" in w["ok"][1]),
    # operands Warp's Python scope has no overload for (an int for a float composite, a float for a float64 one,
    # lists, composites of other lengths, integer matrices) and warp_nb computes
    ("warp_nb computes an operator warp-lang's Python scope lacks", lambda c, w, b: "ok" in c["tags"] and _ok(b)
     and _msg(w, "Couldn't find a function", "non-Warp array types")),
    ("warp-lang dies of SIGFPE (integer division by zero)", lambda c, w, b: w.get("err", "").startswith("crash")),
    # numpy sees a matrix as rows x cols in warp_nb, as a flat array in warp-lang
    ("np.array(matrix) is rows x cols", lambda c, w, b: "np_matrix" in c["tags"] and (
        _flat(w.get("ok")) == _flat(b.get("ok")) or _ok(w, "tuple") and _ok(b, "tuple") and _prod(w) == _prod(b)
        or "err" in b or "err" in w)),
    ("warp-lang's transformd.p / .q are float32", lambda c, w, b: "transform_parts" in c["tags"] and _ok(w) and _ok(b)
     and "float32" in json.dumps(w["ok"]) and _flat(w["ok"]) == _flat(b["ok"])),
    ("warp-lang refuses an empty matrix slice", lambda c, w, b: "x[" in c["src"] and _ok(b, "comp") and b["ok"][2] == []
     and (_msg(w, "Invalid row index") or _ok(w, "str", "obj"))),
    ("warp_nb refuses an attribute a matrix does not have", lambda c, w, b: "matrix_attr" in c["tags"] and _ok(w)
     and b.get("err") == "AttributeError"),
    ("warp_nb's type factories return one class per combination", lambda c, w, b: " is wp.types." in c["src"]
     and _ok(w) and _ok(b)),
    ("warp_nb's struct takes fields as arguments", lambda c, w, b: _msg(w, "Struct.__call__()") and _ok(b)),
    ("warp_nb's transform takes its 7 values as one sequence", lambda c, w, b: _msg(
        w, "Can only assign sequence of same size") and _ok(b) and ("transform" in c["src"])),
    ("warp-lang cannot convert a generic matrix to another scalar type", lambda c, w, b: _msg(
        w, "incompatible types, vec_t instance instead of", "argument 1: TypeError: wrong type") and _ok(b)
     and "matrix(" in c["src"]),
    ("warp-lang's column assignment of an n x 1 matrix", lambda c, w, b: _msg(
        w, "isn't compatible with the given slice") and _ok(b)),
    ("warp_nb takes numpy integers as indices", lambda c, w, b: _msg(w, "expected int or slice") and _ok(b)
     and "np.int" in c["src"]),
    # 2.0 - quat and transform / 2.0 are vectors in Warp, +vec4h a quaternion: its overload resolution
    ("warp-lang's operator result has another kind", lambda c, w, b: c["kind"].startswith("o_") and _ok(w) and
     _ok(b) and _flat(w["ok"]) == _flat(b["ok"]) and _kindless(w["ok"]) == _kindless(b["ok"])),
    # warp_nb's float scalars hold their value rounded to the type (wp.float32(0.1).value), Warp's the value given
    ("warp_nb's float scalars are rounded", lambda c, w, b: _ok(w, "scalar") and _ok(b, "scalar") and
     w["ok"][1] == b["ok"][1] and _rounded(w["ok"][1], w["ok"][2]) == _rounded(b["ok"][1], b["ok"][2])),
    ("warp_nb's constructors take mixed and nested arguments", lambda c, w, b: _ok(b) and (_msg(
        w, "must be real number, not list", "only 0-dimensional arrays", "'list' object cannot be interpreted")
        or _fewer_args(w))),
    ("warp_nb pickles any composite", lambda c, w, b: _msg(w, "Can't pickle local object") and _ok(b)),
    ("warp_nb fills a slice from a numpy number", lambda c, w, b: _msg(
        w, "Expected to assign a slice from a sequence of values but got") and _ok(b)),
    ("warp-lang's slices of a non-square matrix", lambda c, w, b: "nonsquare_slice" in c["tags"]),
    ("warp-lang raises AttributeError for a composite given to a scalar field", lambda c, w, b: _msg(
        w, "object has no attribute 'value'") and b.get("err") == "TypeError"),
    ("warp-lang does not check a matrix's indices as a pair", lambda c, w, b: _ok(w) and _msg(
        b, "out of bounds for axis") and ("mat" in c["src"] or "matrix" in c["src"])),
    # a bad value at a bad index: Warp's vector types check one or the other first, type by type
    ("a bad value at a bad index", lambda c, w, b: {w.get("err"), b.get("err")} == {"IndexError", "TypeError"}),
    ("warp-lang's ctypes ArgumentError", lambda c, w, b: w.get("err") == "ArgumentError"
     and b.get("err") == "TypeError"),
    ("warp-lang has no numpy_value for a nested struct", lambda c, w, b: _msg(
        w, "'StructType' object has no attribute 'numpy_value'") and _ok(b)),
    # an array field is warp_nb's descriptor (data, grad, shape, strides), not Warp's
    ("array descriptors differ", lambda c, w, b: "wp.array(" in c["src"] and ("numpy_dtype" in c["src"] or
     "type_size_in_bytes(Outer)" in c["src"] or "numpy_value" in c["src"] or "repr(o)" in c["src"])),
    # numpy_dtype() and numpy_value() give the record layout of a struct array's numpy() (float16 as its
    # bits), which Warp's array tests compare them with; Warp's are its text formats and a tuple of values
    ("struct records keep warp_nb's layout", lambda c, w, b: "numpy_dtype" in c["src"] or "numpy_value" in c["src"]),
    # a bool field reads a bool (so wp.static(s).flag types as the field); Warp gives back the number assigned
    ("a bool field reads a bool", lambda c, w, b: _ok(b, "b") and _ok(w, "i", "f") and "@wp.struct" in c["src"]),
)


def compare(cases: list, warp: list, ours: list) -> tuple:
    """([(case index, what)], {known name: count})."""
    found, known = [], collections.Counter()
    for i, (case, w, b) in enumerate(zip(cases, warp, ours)):
        # float16 products round at every step, in an order of each implementation's own
        rtol = 1e-2 if "16" in case["src"] or "h(" in case["src"] else 1e-5 if "float64" not in case["src"] else 1e-12
        if "err" in w and "err" in b:  # one class, or warp_nb's a subclass of Warp's (ArgumentTypeError)
            same = w["err"] in b.get("mro", [b["err"]])
        elif "ok" in w and "ok" in b:
            same = close(w["ok"], b["ok"], case["approx"], rtol)
        else:
            same = False
        if not same or w.get("warn") != b.get("warn"):
            name = next((n for n, test in KNOWN if test(case, w, b)), None)
            if name:
                known[name] += 1
            else:
                found.append((i, "values" if not same else "warnings"))
    return found, known


def show(case, w, b) -> str:
    def text(x):
        if "err" in x:
            return f"raises {x['err']}: {x.get('msg', '')}"
        return json.dumps(x["ok"])[:300] + (f" warns {x['warn']}" if x.get("warn") else "")
    src = "\n      ".join(case["src"].splitlines())
    return f"[{case['kind']}]\n      {src}\n    warp-lang: {text(w)}\n    warp_nb:   {text(b)}"


def main(argv=None) -> int:
    p = two_sides.parser(__doc__)
    p.add_argument("--cases", type=int, default=400, help="programs per seed")
    p.add_argument("--show-known", action="store_true", help="print the known differences too")
    p.add_argument("--case-file", help=argparse.SUPPRESS)
    p.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.side:
        run_side(args.side, args.case_file, args.out, args.start)
        return 0
    os.environ["CUDA_VISIBLE_DEVICES"] = ""  # warp-lang on the CPU, and quiet about it
    cases = [value_cases.case(args.seed, i) for i in range(args.cases)]
    with tempfile.TemporaryDirectory(prefix="wpnb-values-") as tmp:
        cases_path = os.path.join(tmp, "cases.json")
        Path(cases_path).write_text(json.dumps(cases))
        warp, ours = (two_sides.run_restarting(python, "tests.fuzz.values_against_warp",
                                               ["--side", side, "--case-file", cases_path],
                                               os.path.join(tmp, f"{side}.jsonl"), len(cases))
                      for side, python in (("warp", args.warp_python), ("warp_nb", sys.executable)))
    found, known = compare(cases, warp, ours)
    if args.show_known:
        for i, (case, w, b) in enumerate(zip(cases, warp, ours)):
            if any(test(case, w, b) for _, test in KNOWN):
                print(f"  #{i} (known) {show(case, w, b)}")
    for i, what in found:
        print(f"  #{i} {what}: {show(cases[i], warp[i], ours[i])}")
    crashes = sum(1 for w in warp if w.get("err", "").startswith("crash"))
    by_kind = collections.Counter(cases[i]["kind"] for i, _ in found)
    print(f"seed {args.seed}: {len(cases)} programs; warp-lang's process died on {crashes}; {len(found)} differ "
          f"{dict(by_kind) if by_kind else ''}; known and documented: {dict(known) if known else 0}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
