"""The finite-element benchmark (issue 23): a 2-D diffusion problem on N x N Q1 cells of a Grid2D
(N = 512 by default: 263k unknowns), assembled and solved the way Warp's example_diffusion does,
under `import warp as wp` for warp-lang and `import warp_nb as wp` for warp_nb, each in its own
process (warp-lang from .bench/venv, made by `benchmarks/run.py --setup`).

    python benchmarks/bench_fem.py [--n 512] [--frameworks warp_nb,warp] [--repeats 2]

Reported per framework: the first run (it builds every kernel, or loads it from the kernel cache), then the
best of `repeats` warm runs split into assembly (right-hand side, stiffness matrix, boundary
projector by nodal assembly, Dirichlet projection) and solve (`warp.optim.linear.cg`, relative
tolerance 1e-6). Both must reach the same solution: its maximum is printed beside the times."""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VENV_PY = os.path.join(os.path.dirname(HERE), ".bench", "venv", "bin", "python")

WORKER = r'''
import importlib, json, sys, time
wp = importlib.import_module(sys.argv[1])
fem = importlib.import_module(sys.argv[1] + ".fem")
cg = importlib.import_module(sys.argv[1] + ".optim.linear").cg
wp.config.quiet = True
N, REPEATS = int(sys.argv[2]), int(sys.argv[3])

@fem.integrand
def linear_form(s: fem.Sample, v: fem.Field):
    return v(s)

@fem.integrand
def diffusion_form(s: fem.Sample, u: fem.Field, v: fem.Field):
    return wp.dot(fem.grad(u, s), fem.grad(v, s))

@fem.integrand
def mass_form(s: fem.Sample, u: fem.Field, v: fem.Field):
    return u(s) * v(s)

def run():
    geo = fem.Grid2D(res=wp.vec2i(N))
    space = fem.make_polynomial_space(geo, degree=1)
    t0 = time.perf_counter()
    v, u = fem.make_test(space), fem.make_trial(space)
    rhs = fem.integrate(linear_form, fields={"v": v})
    matrix = fem.integrate(diffusion_form, fields={"u": u, "v": v})
    boundary = fem.BoundarySides(geo)
    projector = fem.integrate(mass_form, fields={"u": fem.make_trial(space, domain=boundary),
                                                 "v": fem.make_test(space, domain=boundary)}, assembly="nodal")
    fem.project_linear_system(matrix, rhs, projector)
    wp.synchronize()
    t1 = time.perf_counter()
    x = wp.zeros_like(rhs)
    iterations, residual, _ = cg(matrix, rhs, x, tol=1e-6, maxiter=5000)
    wp.synchronize()
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, int(iterations), float(abs(x.numpy()).max())

t = time.perf_counter()
first = run()
first_total = time.perf_counter() - t
warm = [run() for _ in range(REPEATS)]
print(json.dumps({"first_s": first_total, "assemble_s": min(w[0] for w in warm), "solve_s": min(w[1] for w in warm),
                  "iterations": warm[0][2], "max": warm[0][3]}))
'''


def measure(framework: str, n: int, repeats: int) -> dict:
    python, module = (sys.executable, "warp_nb") if framework == "warp_nb" else (VENV_PY, "warp")
    if not os.path.exists(python):
        return {"error": f"{python} is missing: run `python benchmarks/run.py --setup` first"}
    # a file, not `python -c`: kernels are read from their source file
    with tempfile.NamedTemporaryFile("w", suffix="_bench_fem_worker.py", delete=False) as f:
        f.write(WORKER)
    try:
        proc = subprocess.run([python, f.name, module, str(n), str(repeats)], capture_output=True, text=True,
                              check=False,
                              env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    finally:
        os.unlink(f.name)
    if proc.returncode != 0:
        return {"error": (proc.stderr or proc.stdout).strip().splitlines()[-1:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=512, help="cells per axis (default 512)")
    parser.add_argument("--frameworks", default="warp_nb,warp", help="comma-separated: warp_nb, warp")
    parser.add_argument("--repeats", type=int, default=2, help="warm runs; the best is reported")
    args = parser.parse_args()
    results = {}
    for framework in args.frameworks.split(","):
        t = time.perf_counter()
        print(f"{framework}: running ({args.n} x {args.n} Q1 cells) ...", flush=True)
        results[framework] = r = measure(framework.strip(), args.n, args.repeats)
        if "error" in r:
            print(f"  failed: {r['error']}")
            continue
        print(f"  first run {r['first_s']:.2f} s (kernels built or loaded from the cache), "
              f"warm: assemble {r['assemble_s'] * 1e3:.0f} ms, "
              f"solve {r['solve_s'] * 1e3:.0f} ms ({r['iterations']} CG iterations), max(u) {r['max']:.6g} "
              f"[{time.perf_counter() - t:.0f} s]")
    ok = {k: v for k, v in results.items() if "error" not in v}
    if "warp_nb" in ok and "warp" in ok:
        a, b = ok["warp"], ok["warp_nb"]
        print(f"warp-lang / warp_nb: assemble {a['assemble_s'] / b['assemble_s']:.1f}x, solve "
              f"{a['solve_s'] / b['solve_s']:.1f}x, assemble+solve "
              f"{(a['assemble_s'] + a['solve_s']) / (b['assemble_s'] + b['solve_s']):.1f}x, first run "
              f"{a['first_s'] / b['first_s']:.1f}x")


if __name__ == "__main__":
    main()
