"""Child process of the conformance runner: run one Warp example as ``__main__`` and fingerprint
the state it leaves.

    python run_example.py --module warp.examples.core.example_dem --out result.json [--hook] -- ARGS...

The example runs through runpy.run_module(run_name="__main__") with sys.argv set to its path and
ARGS, exactly as ``python -m warp.examples.core.example_dem ARGS`` would run it. run_module returns
the module's globals once the ``__main__`` block is done; every Warp example binds its instance to
the global ``example`` there, so its array attributes (warp arrays through ``.numpy()``, numpy
arrays as they are) are the final state. An example that binds no instance (Warp's smaller tile
examples) is given ``--state NAME,...``: the named globals, arrays themselves or objects holding
arrays, are its state instead; a dotted name (``example.iso``) reaches an attribute. An example that
keeps its results in locals and prints them is given ``--printed REGEX``: the numbers on the lines of its
standard output that REGEX finds are one more array, ``printed``. Each array is summarized by shape,
mean, RMS, min, max and NaN count, which the runner compares with the baseline's within a tolerance.
"""

import argparse
import faulthandler
import json
import math
import os
import re
import runpy
import sys
import time
import traceback

from run_test_file import summarize


def _to_numpy(value):
    import numpy as np

    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "numpy") and hasattr(value, "shape") and hasattr(value, "dtype") and not isinstance(value, type):
        try:
            return np.asarray(value.numpy())
        except Exception:  # noqa: BLE001  (a non-contiguous or device-only array: not comparable)
            return None
    return None


def _g(x):
    return float(f"{float(x):.7g}")  # float32 precision is all there is to compare


def fingerprint(obj):
    prints = {}
    for name in sorted(vars(obj)):
        stats = _summary(getattr(obj, name))
        if stats is not None:
            prints[name] = stats
    return prints


def fingerprint_globals(g, names):
    """The state of an example that binds no `example` instance: each named global that is an
    array under its name, and the arrays of each named object as NAME.attr."""
    prints = {}
    for name in names:
        head, *attrs = name.split(".")
        value = g.get(head)
        for attr in attrs:
            value = getattr(value, attr, None)
        stats = _summary(value)
        if stats is not None:
            prints[name] = stats
        elif value is not None and hasattr(value, "__dict__") and not isinstance(value, type):
            prints.update({f"{name}.{k}": v for k, v in fingerprint(value).items()})
    return prints


# a number as Python and numpy print them (an integer, a decimal, an exponent); digits inside a word do
# not count (`example1`, `vec3`)
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])")


class _Tee:
    """sys.stdout while the example runs: what it prints still goes to the log, and is kept."""

    def __init__(self, stream):
        self.stream, self.lines = stream, []

    def write(self, text):
        self.lines.append(text)
        return self.stream.write(text)

    def __getattr__(self, name):
        return getattr(self.stream, name)


def printed_numbers(text, pattern):
    """The numbers on the lines of `text` that the regex `pattern` finds, in order."""
    found = re.compile(pattern)
    return [float(n) for line in text.splitlines() if found.search(line) for n in _NUMBER.findall(line)]


def _summary(value):
    """Shape, NaN count, mean, RMS, min and max of an array value; None for anything else."""
    import numpy as np

    if hasattr(value, "dof_values") and not isinstance(value, type):  # a warp.fem discrete field: its node values
        value = value.dof_values
    arr = _to_numpy(value)
    if arr is None or arr.dtype.kind not in "biuf" or arr.size == 0:
        return None
    a = arr.astype(np.float64).ravel()
    finite = a[np.isfinite(a)]
    stats = {"shape": list(arr.shape), "nan": int(a.size - finite.size)}
    if finite.size:
        stats.update(mean=_g(finite.mean()), rms=_g(math.sqrt(float(np.mean(finite * finite)))),
                     min=_g(finite.min()), max=_g(finite.max()))
    return stats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--module", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--hook", action="store_true")
    ap.add_argument("--state", help="comma-separated globals whose arrays are the state (default: `example`)")
    ap.add_argument("--printed", help="regex: the numbers on the printed lines it finds are state too")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    example_args = a.args[1:] if a.args[:1] == ["--"] else a.args

    faulthandler.enable()
    if a.hook:
        import warp_conformance_hook

        warp_conformance_hook.install()

    result = {"module": a.module, "args": example_args}
    t0 = time.perf_counter()
    spec = None
    try:
        import importlib.util

        spec = importlib.util.find_spec(a.module)
        sys.argv = [spec.origin if spec else a.module, *example_args]
        tee = sys.stdout = _Tee(sys.stdout)
        try:
            g = runpy.run_module(a.module, run_name="__main__", alter_sys=True)
        except SystemExit as e:
            if e.code not in (None, 0):
                raise
            g = {}
        finally:
            sys.stdout = tee.stream
        result["status"] = "pass"
        example = g.get("example")
        if a.state and g:
            result["fingerprint"] = fingerprint_globals(g, a.state.split(","))
            if not result["fingerprint"]:
                result["note"] = f"no arrays in the globals {a.state}: no state to compare"
        elif example is None:
            result["fingerprint"] = None
            result["note"] = "no global 'example' after __main__: no state to compare"
        else:
            result["fingerprint"] = fingerprint(example)
        if a.printed:
            import numpy as np

            numbers = _summary(np.array(printed_numbers("".join(tee.lines), a.printed)))
            if numbers is None:
                raise RuntimeError(f"no numbers on the printed lines that {a.printed!r} finds")
            result["fingerprint"] = {**(result["fingerprint"] or {}), "printed": numbers}
            result.pop("note", None)
    except BaseException as e:  # noqa: BLE001
        result["status"] = "error"
        result["reason"] = summarize(type(e), e, e.__traceback__, spec.origin if spec else None)
        traceback.print_exc()
    result["time"] = round(time.perf_counter() - t0, 3)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(result, f)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
