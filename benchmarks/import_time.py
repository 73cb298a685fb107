"""Import time and warm start, each in fresh processes (the minimum of --runs, the measure that noise
on a shared machine disturbs least):

- `import`: `import warp_nb` (warp: `import warp; warp.init()`, which loads its native library);
- `warm start`: the import, then `@wp.kernel` saxpy, two 16-element arrays, and its first launch
  with the compiled kernel already in the cache (a second process of the same script), to
  `wp.synchronize()`.

Both sides are timed from before the import, with their bytecode compiled (pip compiles it when it
installs a wheel; an editable checkout under PYTHONDONTWRITEBYTECODE=1 recompiles every module at
each import and takes about twice as long). Also printed: how many modules `import` adds to the
ones numpy loads. Usage: python benchmarks/import_time.py [--runs 10] [--warp PYTHON_OF_A_WARP_VENV]
"""

import argparse
import os
import subprocess
import sys
import tempfile

CHILD = r'''
import sys, time
t0 = time.perf_counter()
if sys.argv[1] == "warp":
    import warp as wp
    wp.config.quiet = True
    wp.init()
else:
    import warp_nb as wp
t1 = time.perf_counter()
if sys.argv[2] == "warm":
    @wp.kernel
    def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = a * x[i] + y[i]

    x = wp.ones(16, dtype=float, device="cpu")
    y = wp.zeros(16, dtype=float, device="cpu")
    wp.launch(saxpy, dim=16, inputs=[2.0, x, y], device="cpu")
    wp.synchronize()
    assert y.numpy()[0] == 2.0
print(time.perf_counter() - t0, t1 - t0)
'''

COUNT = "import sys, numpy; n = len(sys.modules); import {0}; print(len(sys.modules) - n)"


def _compile_bytecode(python: str, package: str) -> None:
    code = f"import compileall, os, {package} as m; compileall.compile_dir(os.path.dirname(m.__file__), quiet=2)"
    subprocess.run([python, "-c", code], check=False, capture_output=True)


def measure(python: str, package: str, runs: int, script: str) -> dict:
    _compile_bytecode(python, package)
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache:
        env["WARP_NB_CACHE_DIR"] = cache  # warp_nb's cache; warp keeps its own (~/.cache/warp)
        subprocess.run([python, script, package, "warm"], env=env, check=True, capture_output=True)  # fills it
        out = {}
        for kind in ("import", "warm"):
            times = []
            for _ in range(runs):
                stdout = subprocess.run([python, script, package, kind], env=env, check=True, capture_output=True,
                                        text=True).stdout
                line = stdout.strip().splitlines()[-1].split()  # the last line: warp may print a banner first
                times.append(float(line[0]))
            out[kind] = min(times)
    modules = subprocess.run([python, "-c", COUNT.format(package)], check=True, capture_output=True, text=True)
    out["modules"] = int(modules.stdout.split()[-1])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--warp", default=os.path.expanduser("~/.cache/warp_nb/conformance/venv-warp/bin/python"),
                    help="the Python of a venv with warp-lang (skipped when missing)")
    args = ap.parse_args()
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(CHILD)
    try:
        rows = [("warp_nb", measure(sys.executable, "warp_nb", args.runs, f.name))]
        if os.path.exists(args.warp):
            rows.append(("warp", measure(args.warp, "warp", args.runs, f.name)))
    finally:
        os.unlink(f.name)
    print(f"{'':10}{'import s':>10}{'warm start s':>14}{'modules':>9}   (min of {args.runs} processes)")
    for name, r in rows:
        print(f"{name:10}{r['import']:10.3f}{r['warm']:14.3f}{r['modules']:9d}")
    if len(rows) == 2:
        print(f"{'ratio':10}{rows[0][1]['import'] / rows[1][1]['import']:10.2f}"
              f"{rows[0][1]['warm'] / rows[1][1]['warm']:14.2f}")


if __name__ == "__main__":
    main()
