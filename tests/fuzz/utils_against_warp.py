"""Random arrays through warp.utils' data functions, by warp_nb and by warp-lang, compared result by
result.

CI has no warp-lang, so this is a tool, not a test: give it a Python that has warp-lang installed,
e.g. the conformance runner's baseline venv (CPU only).

    python -m tests.fuzz.utils_against_warp --seed 1 \
        --warp-python ~/.cache/warp_nb/conformance/venv-warp/bin/python

Each case (utils_cases.run_case) calls, on arrays drawn at random (sizes 0, 1, 2 or 3, small odd
ones, a few hundred and a few thousand):
- `array_scan`, inclusive and exclusive, of int32, int64, float32, float64, vectors of them, and
  types Warp refuses (uint32, float16, int8, mat22, quat); one-dimensional, two-dimensional and
  strided arrays; an output of another dtype, size or shape now and then. Values: multiples of
  1/8, uniform floats, integers near their type's limits (sums wrap), +-0, +-inf, NaN, denormals.
- `radix_sort_pairs` of int32, uint32, float32, int64, uint64 and float64 keys (and int8 / float16,
  refused) with values of 4 or 8 bytes (int8: refused) numbered in their input order (so stability
  is seen), keys with duplicates, the full integer range, and -0.0, +-inf, NaNs of both signs and
  denormals; counts of 0, negative ones, capacity 2 * count, more, or one short; 2-d keys;
  `begin_bit` / `end_bit`, valid and not. Compared: the first `count` keys and values bit for bit,
  and the elements past 2 * count (left alone).
- `segmented_sort_pairs` of int32 / float32 keys (and refused types), 1-d or 2-d, segments given
  as offsets (covering all or not) or as start and end arrays (in random order, with gaps and empty
  segments), keys with duplicates, +-0.0 and specials; a segment out of range now and then.
- `runlength_encode` of int32 runs (and int64 / float32, refused), 1-d, 2-d or strided,
  `value_count` none, within the input, negative or past it, outputs of the input's size, of
  value_count's, larger or too small, `run_count` given or not: the return value's kind, the count
  and the whole output arrays (slots past the runs must be left alone), and numpy's encoding.
- `array_sum` and `array_inner` of float32, float64, vectors, matrices, quaternions and transforms
  of them (and float16, int32, vec2h: refused) of 1 to 4 dimensions (some of extent 0), axis None,
  each axis, negative and out of range, `value_count` / `count` within, past the size and negative,
  `out=` of the right shape and type or not, strided inputs, a second operand of another shape or
  dtype: the values, numpy's sums, and what is returned ("out", a new array of which shape, or a
  scalar of which type).
- `array_cast` between scalar types, vectors, and shapes of other lengths (vec2 -> float32,
  float32 -> mat22), 1-d, 2-d, 2-d into 1-d, 1-d into 2-d, 2-d into another 2-d shape, strided
  input or output, `count` none, within or past the size, or negative, outputs of other sizes:
  the output bit for bit.
- `graph_coloring_assign` (MCS, GREEDY): that the coloring is valid (the colorings themselves
  differ by design, compat.md: Graph coloring, so they are notes); `graph_coloring_balance` from
  one coloring made here, and `graph_coloring_get_groups` of its result (numpy and warp arrays).

Integers and bit patterns are compared exactly, floats within 16 * sqrt(n + 1) epsilons of the sum
of the finite terms' magnitudes (the order of summation differs; values drawn as multiples of 1/8
make most sums exact in both, so a real difference stands far outside). An operation that raises on
one side only, or raises other classes, is a difference (messages are not compared; warp_nb raising
a subclass of warp-lang's class is no difference). What is warp-lang 1.19's own bug (compat.md, The
fuzzer against warp-lang: array utilities) is printed as a note and not counted: where warp_nb gives
numpy's answer and warp-lang not, for strided inputs and counts past the end; strided scalar-level
casts; empty arrays it cannot take; value_count past the values, which warp_nb refuses.
Exit status 1 when something differs. A seed of the default 12 cases takes some 5 s once both
sides' kernels are cached (the first run compiles them, a few minutes)."""

from __future__ import annotations

import importlib
import sys

import numpy as np

from tests.fuzz import two_sides

META = (".about", ".input", ".scale", ".count_n", ".eps", ".ref", ".mro")
# colorings differ from Warp's by design (compat.md, Graph coloring): what differs there is a note
NOTE_ONLY = (".MCS.colors", ".MCS.color_count", ".GREEDY.colors", ".GREEDY.color_count")


def known_warp_bug(base: str, about: str, ea, eb) -> str | None:
    """Why warp-lang 1.19's result is not the one to follow here (compat.md, Array utilities), or
    None. What is checked: the kind of case, and for errors which side raised what."""
    op = base.split(".")[1]
    if ea is not None and ("unsupported operand type(s) for +: 'NoneType' and 'int'" in str(ea) or
                           str(ea).startswith("ArgumentError: argument 1: TypeError: wrong type")):
        return "warp-lang fails on an empty array (its pointer is None)"
    if op == "runlength" and ea is None and "exceeds the number of values" in str(eb):
        return "warp-lang reads past the end of values when value_count exceeds their number"
    if ea is None and eb is None and op == "cast" and "layout=strided" in about and element_shapes_differ(about):
        return "warp-lang's scalar-level cast reads and writes strided storage as if it were contiguous"
    return None


def element_shapes_differ(about: str) -> bool:
    """Whether a cast's element types have other shapes ("vec2 -> float32")."""
    from tests.fuzz.utils_cases import TYPES
    src, _, dst = about.split(" ")[:3]
    return TYPES[src][1] != TYPES[dst][1]


def same_class(ea, eb, mro_b) -> bool:
    """Whether warp_nb raised warp-lang's class (or a subclass of a class of that name)."""
    ca = str(ea).split(":")[0]
    return ca == str(eb).split(":")[0] or ca in str(mro_b).split()


def run_side(module: str, seed: int, out: str, cases: int, only) -> None:
    wp = importlib.import_module(module)
    importlib.import_module(f"{module}.utils")
    wp.config.quiet = True
    wp.init()
    np.seterr(all="ignore")  # the references meet infs and NaNs on purpose
    from tests.fuzz import utils_cases
    rec = utils_cases.Recorder(wp, seed)
    with wp.ScopedDevice("cpu"):
        for i in range(cases):
            utils_cases.run_case(rec, i, only)
    np.savez(out, **rec.out)


def run_key(key: str) -> str:
    """The key an operation's error is recorded under: c3.scan for c3.scan.values."""
    parts = key.split(".")
    return ".".join(parts[:3] if parts[1] == "coloring" and len(parts) > 2 and parts[2] in
                    ("MCS", "GREEDY", "balance") else parts[:2])


def tolerance(a: dict, key: str):
    """The absolute tolerance of a float result (None: compared exactly)."""
    base = run_key(key)
    op = base.split(".")[1]
    if op == "scan" and key == base:
        x = a[f"{base}.input"]
        if x.dtype.kind != "f":
            return None
        n = len(x)
        terms = np.abs(x.astype(np.float64))
        mag = np.cumsum(np.where(np.isfinite(terms), terms, 0.0), axis=0)  # (infs and NaNs agree or not exactly)
        return 16 * np.sqrt(n + 1) * np.finfo(x.dtype).eps * mag
    if op in ("sum", "inner") and key == base:
        eps = float(a[f"{base}.eps"])
        n = int(a[f"{base}.count_n"])
        return 16 * np.sqrt(n + 1) * eps * float(a[f"{base}.scale"]) + 1e-30
    return None


def compare(a: dict, b: dict) -> list:
    """The differences between warp-lang's results `a` and warp_nb's `b`, as lines to print; a
    line starting with "(note)" is not counted (a difference by design, or warp-lang's bug)."""
    lines, colorings = [], [0, 0]  # assignments compared, assignments differing (by design: summed up)
    keys = sorted(set(a) | set(b))
    bases = sorted({run_key(k.rsplit(".", 1)[0] if k.endswith((".err", ".mro")) else k) for k in keys})
    for base in bases:
        about = str(a.get(f"{base}.about", a.get(f"{base.rsplit('.', 1)[0]}.about", "")))
        ea, eb = a.get(f"{base}.err"), b.get(f"{base}.err")
        bug = known_warp_bug(base, about, ea, eb)
        note = f"(note) {bug}: " if bug else ""
        if (ea is None) != (eb is None):
            lines.append(f"{note}{base} [{about}]: raises on one side only: warp-lang {ea}, warp_nb {eb}")
            continue
        if ea is not None:
            if not same_class(ea, eb, b.get(f"{base}.mro")):
                lines.append(f"{note}{base} [{about}]: both raise, other classes: warp-lang {ea}, warp_nb {eb}")
            continue
        for key in (k for k in keys if run_key(k) == base and not k.endswith((".err", *META))):
            va, vb = a.get(key), b.get(key)
            if key.endswith(NOTE_ONLY):
                if key.endswith(".colors"):
                    colorings[0] += 1
                    colorings[1] += va is None or vb is None or not np.array_equal(va, vb)
                continue
            line_note = note
            if va is None or vb is None or va.shape != vb.shape:
                lines.append(f"{line_note}{key} [{about}]: warp-lang {describe(va)}, warp_nb {describe(vb)}")
                continue
            tol = tolerance(a, key)
            bad = differ(va, vb, tol)
            if bad.any():
                i = np.unravel_index(int(np.flatnonzero(bad)[0]), va.shape) if va.ndim else ()
                ref = a.get(f"{key}.ref")
                if not line_note and ref is not None and ref.size == va.size:
                    # warp_nb gives numpy's answer and warp-lang does not, in cases of warp-lang's known
                    # bugs: whole-array reductions and run-length encodings of strided arrays (it reads
                    # their storage as if contiguous), reductions with a count past the end or the axis
                    ref = ref.reshape(va.shape)
                    if not differ(ref, vb, tol).any() and ("strided=True" in about or "layout=strided" in about
                                                           or count_past_end(about)):
                        line_note = "(note) warp-lang differs from numpy, warp_nb does not: "
                lines.append(f"{line_note}{key} [{about}]: {int(bad.sum())} of {va.size} differ, e.g. at {i}: "
                             f"warp-lang {va[i]}, warp_nb {vb[i]}")
    if colorings[1]:
        lines.append(f"(note) graph_coloring_assign: {colorings[1]} of {colorings[0]} colorings are not warp-lang's "
                     "(valid, but another order: by design, compat.md)")
    return lines


def differ(va: np.ndarray, vb: np.ndarray, tol) -> np.ndarray:
    """Where va and vb differ: exactly, or beyond tol (absolute, per element or one) for floats;
    NaN equals NaN."""
    if va.dtype.kind not in "fc":
        return np.asarray(va != vb)
    same = (va == vb) | (np.isnan(va) & np.isnan(vb))
    if tol is None:
        return np.asarray(~same)
    tol = np.reshape(tol, va.shape) if np.size(tol) == va.size else tol
    with np.errstate(invalid="ignore"):
        return np.asarray(~(same | (np.abs(va - vb) <= tol)))


def count_past_end(about: str) -> bool:
    """Whether a reduction was given a count past the array's size (or the axis' length)."""
    fields = dict(f.split("=", 1) for f in about.split() if "=" in f)
    if fields.get("count") in (None, "None"):
        return False
    shape = [int(v) for v in fields["shape"].split("x")]
    length = int(np.prod(shape)) if fields["axis"] == "None" else shape[int(fields["axis"])]
    return int(fields["count"]) > length


def describe(v) -> str:
    if v is None:
        return "nothing"
    return repr(v.tolist()) if v.size <= 8 else f"shape {v.shape}"


def main(argv=None) -> int:
    p = two_sides.parser(__doc__)
    p.add_argument("--cases", type=int, default=12, help="cases per seed")
    p.add_argument("--only", help="comma-separated operations (scan,radix,segmented,runlength,sum,inner,cast,"
                                  "coloring)")
    args = p.parse_args(argv)
    only = args.only.split(",") if args.only else None
    if args.side:
        run_side(args.side, args.seed, args.out, args.cases, only)
        return 0
    extra = ["--only", args.only] if args.only else []
    results = two_sides.run_both_npz("tests.fuzz.utils_against_warp", args.warp_python,
                                     ["--seed", str(args.seed), "--cases", str(args.cases), *extra], "wpnb-utils-")
    with np.errstate(all="ignore"):
        lines = compare(results["warp"], results["warp_nb"])
    for line in lines:
        print("  " + line)
    differ = sum(1 for line in lines if not line.startswith("(note)"))
    print(f"seed {args.seed}: {args.cases} cases, {len(results['warp'])} results; {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
