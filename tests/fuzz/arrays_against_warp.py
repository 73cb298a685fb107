"""Random Python-scope programs on wp.array (what user code does with arrays outside kernels) run by
warp_nb and by warp-lang, compared result by result.

CI has no warp-lang, so this is a tool, not a test: give it a Python that has warp-lang installed,
e.g. the conformance runner's baseline venv (CPU only).

    python -m tests.fuzz.arrays_against_warp --seed 1 \
        --warp-python ~/.cache/warp_nb/conformance/venv-warp/bin/python

Each case (array_cases.case) draws a dtype (int8 to uint64, float16/32/64, bool, vectors of several
scalar types, mat22/33, quat, transform) and a shape (1 to 4 dimensions, one in eight with a zero
dimension), makes an array one of the ways of array_ops.MAKERS (wp.array from numpy data, cast or
strided numpy data, nested lists and tuples, lists of vector objects, a scalar, data with shape=,
data of the wrong size or whose rows are not whole elements, wp.zeros / ones / full (value given as
a scalar, vector object, list, tuple or numpy array; dtype given or inferred) / empty, the *_like
forms and wp.clone, wp.from_numpy with and without a dtype, wp.array(ptr=...), requires_grad=True,
copy=False), then takes random steps (array_ops.OPS): indexing and slicing (ints, negative ints,
out-of-range ints, slices with steps of both signs and ends past either side, Ellipsis, None, too
many indices), reshape (with -1, sizes that do not fit, of strided views), view(dtype), transpose
(with and without axes, bad axes), flatten, contiguous, numpy() (and a write into it, seen or not by
the array), np.asarray / np.array, list(), a[i, j] read and written, fill_ (scalars, vector objects,
lists, tuples, numpy values, values of the wrong length), zero_, assign (numpy, lists, arrays,
strided arrays, other shapes and dtypes), wp.copy either way between the array and another one
(contiguous or strided, another shape or dtype, offsets and counts in and out of range),
str / repr, ==, !=, hash, to("cpu"), clone and the *_like forms, requires_grad = True, and
arithmetic (+, -, *, unary -, +=) for a few dtypes. A view becomes the current array one time in
two; writes through it are checked in the first array too.

Compared exactly: values (as bytes: float16 and NaN alike), numpy dtypes, shapes, strides, capacity,
contiguity, dtypes (by structure: Warp names the vector types it makes on the fly vec_t), whether
an operation raises and the builtin class of what it raises (a warp_nb error that is both a
ValueError and a RuntimeError matches Warp's RuntimeError). What warp_nb does on purpose (docs/
compat.md, "Arrays in Python scope") is left out as a note.

Slices warp-lang refuses are compared with numpy's result for the key instead (warp_nb slices as
Python does), and a view by such a key never becomes the current array; after a step that raises on
one side only for a reason compat.md gives, the rest of that case is noted, not compared (the sides
hold different arrays).

Exit status 1 when something differs. A seed of the default 40 cases of 12 steps takes about 5 s on
two cores once both sides' arithmetic kernels are cached (the first run compiles them)."""

from __future__ import annotations

import importlib
import sys

import numpy as np

from tests.fuzz import two_sides


def run_side(module: str, seed: int, out: str, cases: int, steps: int) -> None:
    wp = importlib.import_module(module)
    wp.config.quiet = True
    wp.init()
    from tests.fuzz import array_cases
    rec = array_cases.Recorder(wp, seed)
    with wp.ScopedDevice("cpu"):
        for i in range(cases):
            array_cases.case(rec, i, steps)
    np.savez(out, **rec.out)


SUFFIXES = (".err", ".errmro", ".meta")
SKIP = (".what", ".about", ".numpy_agrees")  # (read by known())

#: warp-lang's errors where warp_nb does what the operation asks, on purpose (docs/compat.md, Arrays in
#: Python scope): (the step's operation, the start of warp-lang's message, why)
KNOWN_WARP_ERRORS = (
    (".", ("ValueError: Failed to convert the value to the array data type: Can only assign sequence of same "
           "size"), "warp-lang's transform cannot be filled from a list, tuple or numpy array of its 7 components"),
    (".arith", "RuntimeError: Object and coefficient must have the same scalar type", ("Python-scope arithmetic "
     "takes a Python scalar of another type (a vector array times 2)")),
    (".arith", "RuntimeError: Input types must be the same", ("Python-scope arithmetic takes a Python scalar of "
                                                               "another type (a float array times 2)")),
    (".make", "ValueError: Invalid value type for Warp array", "wp.full infers its dtype from a numpy scalar too"),
    (".", "TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'",
     "warp-lang fails on copying into or out of an empty array past its end; warp_nb says what is wrong"),
)


def _agrees(d: dict, base: str) -> bool:
    return bool(d.get(f"{base}.numpy_agrees", np.array(False)))


def known(base: str, a: dict, b: dict, problem: str):
    """Why a difference is by design (docs/compat.md, Arrays in Python scope), or None."""
    ea, eb = a.get(f"{base}.err"), b.get(f"{base}.err")
    if ".index" in base and eb is None and _agrees(b, base):
        if ea is not None and str(ea).startswith(("RuntimeError: Invalid indexing in slice",
                                                  "ValueError: Array shapes must be non-negative")):
            return "warp_nb slices as Python does, where warp-lang refuses the slice"
        if ea is None and not _agrees(a, base):
            return "warp_nb slices as Python does, where warp-lang's negative step goes wrong"
    if ea is not None:
        for part, message, why in KNOWN_WARP_ERRORS:
            if part in base and str(ea).startswith(message):
                return why
    what = _what(a, base)
    if eb is not None and "cannot have no components" in str(eb):
        return "wp.from_numpy of rows of no values is refused (warp-lang fails, or makes vectors of 0 components)"
    if ea is None and eb is not None:
        if ".transpose" in base and "for an array of 1 dimensions" in str(eb) or \
                ".transpose" in base and "are not a permutation" in str(eb):
            return "warp_nb refuses transpose axes that are not a permutation (Warp ignores them for 1-D arrays)"
        if ".fill" in base and "a.fill_([" in what and "data type bool" in str(eb):
            return "warp_nb refuses to fill a bool array with a list (Warp takes the list's truth value)"
    if eb is None and ea is not None and ".copy" in base and str(ea).startswith("RuntimeError: Trying to copy") \
            and "'count': 0" in what and "'src_offset': 0" not in what:
        return "count=0 copies the rest of the source after src_offset (Warp: the whole source, so it fails)"
    if base.endswith(".make") and "copy=False" in what and "size=0 " in problem and ".meta" in problem:
        return "warp-lang gives an empty numpy array taken without a copy all-zero strides"
    if base.endswith(".make") and "objects]" in what and "dtype=" not in what and " mat" in what:
        return "a list of matrices without dtype keeps their rows (warp-lang reads them flat)"
    return None


def _raises(a: dict, b: dict, base: str):
    """A line when the two sides disagree on whether `base` raised or with what class, else None."""
    ea, eb = a.get(f"{base}.err"), b.get(f"{base}.err")
    if (ea is None) != (eb is None):
        return f"raises on one side only: warp-lang {ea}, warp_nb {eb}"
    if ea is None:
        return None
    mro_a = str(a[f"{base}.errmro"]).split(",")
    mro_b = str(b[f"{base}.errmro"]).split(",")
    if str(ea).split(":")[0] in mro_b or mro_a[0] in mro_b:
        return None
    return f"both raise, other classes: warp-lang {ea}, warp_nb {eb}"


def _same(va, vb) -> bool:
    if va is None or vb is None:
        return va is None and vb is None
    if va.dtype.kind == "U" or vb.dtype.kind == "U":
        return va.dtype.kind == vb.dtype.kind and str(va) == str(vb)
    return va.dtype == vb.dtype and va.shape == vb.shape and va.tobytes() == vb.tobytes()


def _show(v) -> str:
    if v is None:
        return "None"
    if v.dtype.kind == "U":
        return str(v)[:300]
    return f"{v.dtype}{v.shape} {np.array2string(v.reshape(-1)[:12], threshold=12, max_line_width=10**6)}"


def _what(d: dict, base: str) -> str:
    """The step that made `base`: the longest prefix of it with a `.what`."""
    parts = base.split(".")
    for n in range(len(parts), 0, -1):
        w = d.get(".".join(parts[:n]) + ".what")
        if w is not None:
            return str(w)
    return ""


def compare(a: dict, b: dict) -> list:
    """The differences between warp-lang's results `a` and warp_nb's `b`, as lines to print (notes
    for those docs/compat.md explains). Once a step of a case raises on one side only for a noted
    reason, the two sides go on from different arrays: the rest of that case is noted, not compared."""
    lines, diverged = [], {}
    bases = set()
    for k in set(a) | set(b):
        if k.endswith(SKIP):
            continue
        bases.add(next((k[: -len(s)] for s in SUFFIXES if k.endswith(s)), k))
    for base in sorted(bases):
        problems = []
        raised = _raises(a, b, base)
        if raised:
            problems.append(raised)
        elif a.get(f"{base}.err") is None:
            for suffix in (".meta", ""):
                va, vb = a.get(base + suffix), b.get(base + suffix)
                if not _same(va, vb):
                    problems.append(f"{suffix or 'values'}: warp-lang {_show(va)}, warp_nb {_show(vb)}")
        if not problems:
            continue
        case = base.split(".")[0]
        about = a.get(f"{case}.about", b.get(f"{case}.about", ""))
        for p in problems:
            reason = known(base, a, b, p)
            if reason is None and case in diverged:
                reason = f"after {diverged[case]}, the sides hold different arrays"
            if reason and (p.startswith("raises on one side") or base.endswith(".make")) and case not in diverged \
                    and ".index" not in base:
                diverged[case] = base
            what = " ".join((_what(a, base) or _what(b, base)).split())
            lines.append(f"{base} [{about}] {what}: "
                         f"{'(note: ' + reason + ') ' if reason else ''}{p}")
    return lines


def main(argv=None) -> int:
    p = two_sides.parser(__doc__)
    p.add_argument("--cases", type=int, default=40, help="cases per seed")
    p.add_argument("--steps", type=int, default=12, help="steps per case")
    p.add_argument("--first", type=int, default=0, help="print at most this many differences per case (0: all)")
    args = p.parse_args(argv)
    if args.side:
        run_side(args.side, args.seed, args.out, args.cases, args.steps)
        return 0
    results = two_sides.run_both_npz("tests.fuzz.arrays_against_warp", args.warp_python,
                                     ["--seed", str(args.seed), "--cases", str(args.cases), "--steps", str(args.steps)],
                                     "wpnb-arrays-")
    lines = compare(results["warp"], results["warp_nb"])
    shown = {}
    for line in lines:
        case = line.split(".")[0]
        shown[case] = shown.get(case, 0) + 1
        if not args.first or shown[case] <= args.first:
            print("  " + line)
    differ = sum(1 for line in lines if "(note:" not in line)
    print(f"seed {args.seed}: {args.cases} cases of {args.steps} steps, {len(results['warp'])} results; "
          f"{differ} differ, {len(lines) - differ} noted")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
