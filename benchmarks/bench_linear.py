"""warp_nb.optim.linear.cg against scipy.sparse.linalg.cg (and warp-lang's cg when its venv is
there) on the 2-d Poisson matrix (5-point Laplacian, Dirichlet) of an n x n grid: 1M unknowns
for n = 1000 (issue 22, item 3). Both run the same fixed number of iterations in float64
(the tolerance is out of reach, so neither stops early), unpreconditioned and with Jacobi;
the time is the solve only (matrix assembly and the first, compiling call are excluded).

    python benchmarks/bench_linear.py [--n 1000] [--iters 100] [--repeats 3] [--json out.json]
    BENCH_WP_MODULE=warp .bench/venv/bin/python benchmarks/bench_linear.py --only warp   # warp-lang

Prints one line per (framework, preconditioner): median seconds, seconds per iteration, and the
final residual norm (both sides must agree: it is the same algorithm in the same precision)."""

import argparse
import importlib
import json
import os
import statistics
import sys
import time
import warnings

import numpy as np


def poisson_coo(n):
    """Rows, columns and values of the 5-point Laplacian on an n x n grid (n^2 unknowns)."""
    idx = np.arange(n * n).reshape(n, n)
    rows, cols, vals = [idx.ravel()], [idx.ravel()], [np.full(n * n, 4.0)]
    for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        src = idx[max(0, -di):n - max(0, di), max(0, -dj):n - max(0, dj)]
        dst = idx[max(0, di):n - max(0, -di) or None, max(0, dj):n - max(0, -dj) or None]
        rows.append(src.ravel())
        cols.append(dst.ravel())
        vals.append(np.full(src.size, -1.0))
    return np.concatenate(rows).astype(np.int32), np.concatenate(cols).astype(np.int32), np.concatenate(vals)


def rhs(n):
    return np.random.default_rng(22).standard_normal(n * n)


def bench_scipy(n, iters, repeats, jacobi):
    import scipy.sparse as sps
    from scipy.sparse.linalg import cg

    r, c, v = poisson_coo(n)
    A = sps.csr_matrix((v, (r, c)), shape=(n * n, n * n))
    b = rhs(n)
    M = sps.diags(1.0 / A.diagonal()) if jacobi else None
    times, x = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        x, _ = cg(A, b, x0=np.zeros_like(b), rtol=1e-30, atol=0.0, maxiter=iters, M=M)
        times.append(time.perf_counter() - t)
    return times, float(np.linalg.norm(b - A @ x))


def bench_warp(module, n, iters, repeats, jacobi):
    wp = importlib.import_module(module)
    sparse = importlib.import_module(module + ".sparse")
    linear = importlib.import_module(module + ".optim.linear")
    wp.init() if hasattr(wp, "init") else None
    r, c, v = poisson_coo(n)
    A = sparse.bsr_from_triplets(n * n, n * n, wp.array(r, dtype=wp.int32), wp.array(c, dtype=wp.int32),
                                 wp.array(v, dtype=wp.float64))
    b = wp.array(rhs(n), dtype=wp.float64)
    M = linear.preconditioner(A, "diag") if jacobi else None
    x = wp.zeros_like(b)
    kwargs = dict(tol=1e-30, atol=0.0, maxiter=iters, M=M, check_every=iters, use_cuda_graph=False)
    with warnings.catch_warnings():  # the tolerance is unreachable on purpose: no "did not converge"
        warnings.simplefilter("ignore")
        linear.cg(A, b, x, **kwargs)  # compiles every kernel of the solve
        times = []
        for _ in range(repeats):
            x.zero_()
            wp.synchronize()
            t = time.perf_counter()
            _, err, _ = linear.cg(A, b, x, **kwargs)
            wp.synchronize()
            times.append(time.perf_counter() - t)
    return times, float(err)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="grid edge (n^2 unknowns; default 1000: 1M)")
    parser.add_argument("--iters", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default=None, help="comma-separated: warp_nb, warp, scipy")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    frameworks = args.only.split(",") if args.only else ["warp_nb", "scipy"]
    results = {}
    for fw in frameworks:
        for jacobi in (False, True):
            name = "%s cg_poisson_%dk%s" % (fw, args.n * args.n // 1000, "_jacobi" if jacobi else "")
            if fw == "scipy":
                times, res = bench_scipy(args.n, args.iters, args.repeats, jacobi)
            else:
                times, res = bench_warp(fw, args.n, args.iters, args.repeats, jacobi)
            med = statistics.median(times)
            results[name] = {"median_s": med, "per_iter_s": med / args.iters, "residual": res, "times": times}
            print("%-40s %8.3f s  %8.2f ms/iter  residual %.6g" % (name, med, 1e3 * med / args.iters, res))
            sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
