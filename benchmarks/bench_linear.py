"""The linear-solver workload of the sparse group: `warp.optim.linear.cg` under `import warp as
wp` and `import warp_nb as wp` (bench_warp_api.py merges it into its worker), and
`scipy.sparse.linalg.cg` beside it in the numpy worker (bench_numpy.py).

    linear_cg   ITERS iterations of unpreconditioned CG on the 5-point 2-D Poisson matrix of a
                1000 x 1000 grid (1M unknowns, 5.0M non-zeros), float64, from x = 0; the
                tolerance is out of reach, so every side runs exactly ITERS iterations. The
                matrix is assembled once outside the timing (bsr_from_triplets / CSR).

The check compares x with a numpy CG of the same iterations (.bench/oracle/linear_cg.npz).
Standalone, `python benchmarks/bench_linear.py [--n 1000] [--iters 50] [--jacobi]` prints
warp_nb's and scipy's times side by side without the suite."""

import argparse
import importlib
import os
import statistics
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from bench_sparse import GRID, poisson_triplets  # noqa: E402

ITERS = 50
ROWS = [("linear_cg", "linear_cg", "cg: %d iterations, 2-D Poisson CSR, 1M unknowns, float64 (scipy.sparse.linalg.cg)"
         % ITERS)]
NAMES = [r[0] for r in ROWS]
REPEATS = {False: 3, True: 1}


def rhs(n):
    return np.random.default_rng(22).standard_normal(n * n)


def _csr(n):
    import scipy.sparse as sp

    rows, cols, vals = poisson_triplets(n)
    return sp.csr_matrix((vals.astype(np.float64), (rows, cols)), shape=(n * n, n * n))


def numpy_cg(A, b, iters, jacobi=False):
    """Textbook (preconditioned) CG from x = 0, iters iterations: the oracle."""
    d = 1.0 / A.diagonal() if jacobi else np.ones_like(b)
    x = np.zeros_like(b)
    r = b.copy()
    z = d * r
    p = z.copy()
    rz = r @ z
    for _ in range(iters):
        ap = A @ p
        alpha = rz / (p @ ap)
        x += alpha * p
        r -= alpha * ap
        z = d * r
        rz, rz_old = r @ z, rz
        p = z + (rz / rz_old) * p
    return x


def load():
    path = os.path.join(common.ORACLE_DIR, "linear_cg.npz")
    if os.path.exists(path):
        with np.load(path) as z:
            return {k: z[k] for k in z.files}
    b = rhs(GRID)
    case = {"b": b, "x": numpy_cg(_csr(GRID), b, ITERS)}
    os.makedirs(common.ORACLE_DIR, exist_ok=True)
    tmp = "%s.%d.tmp.npz" % (path[:-4], os.getpid())
    np.savez(tmp, **case)
    os.replace(tmp, path)
    return case


def check(x, case):
    return common.check_close(np.asarray(x, dtype=np.float64), case["x"], 1e-6, 1e-8)


def _warp_solver(wp, device, n, jacobi=False):
    """(solve(), x) for warp or warp_nb: the assembled matrix and a closure running cg."""
    sparse = importlib.import_module(wp.__name__ + ".sparse")
    linear = importlib.import_module(wp.__name__ + ".optim.linear")
    rows, cols, vals = poisson_triplets(n)
    A = sparse.bsr_from_triplets(n * n, n * n, wp.array(rows, dtype=wp.int32, device=device),
                                 wp.array(cols, dtype=wp.int32, device=device),
                                 wp.array(vals.astype(np.float64), dtype=wp.float64, device=device))
    b = wp.array(rhs(n), dtype=wp.float64, device=device)
    x = wp.zeros_like(b)
    M = linear.preconditioner(A, "diag") if jacobi else None

    def solve(iters=ITERS):
        x.zero_()
        with warnings.catch_warnings():  # the tolerance is out of reach on purpose
            warnings.simplefilter("ignore")
            linear.cg(A, b, x, tol=1e-30, atol=0.0, maxiter=iters, M=M, check_every=iters, use_cuda_graph=False)
        wp.synchronize()

    return solve, x


def make(wp, device):
    """The linear-solver workload for the module `wp` (warp or warp_nb): name -> fn(ctx)."""
    try:
        importlib.import_module(wp.__name__ + ".optim.linear").cg  # noqa: B018
        importlib.import_module(wp.__name__ + ".sparse").bsr_from_triplets  # noqa: B018
    except (ImportError, AttributeError) as e:
        def missing(ctx, _e=e):
            raise common.NotYet("warp.optim.linear: " + common.short_error(_e))
        return {"linear_cg": missing}

    def bench_cg(ctx):
        case = load()
        solve, x = _warp_solver(wp, device, GRID)
        times = common.time_it(solve, REPEATS[ctx["quick"]])
        return common.result("linear_cg", times, check(x.numpy(), case))

    return {"linear_cg": bench_cg}


def bench_scipy_cg(ctx):
    """scipy.sparse.linalg.cg beside warp's cg (in the numpy worker)."""
    try:
        from scipy.sparse.linalg import cg
    except ImportError as e:
        raise common.NotYet("scipy is not installed: " + str(e)) from None
    case = load()
    A, b, out = _csr(GRID), case["b"], []
    times = common.time_it(lambda: out.append(cg(A, b, x0=np.zeros_like(b), rtol=1e-30, atol=0.0, maxiter=ITERS)[0]),
                           REPEATS[ctx["quick"]])
    return common.result("linear_cg", times, check(out[-1], case), note="scipy.sparse.linalg.cg (one thread)")


def main(argv=None):
    parser = argparse.ArgumentParser(description="cg on the 2-d Poisson matrix: warp_nb beside scipy")
    parser.add_argument("--n", type=int, default=GRID, help="grid edge (n^2 unknowns; default 1000: 1M)")
    parser.add_argument("--iters", type=int, default=ITERS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jacobi", action="store_true", help="with the Jacobi preconditioner (scipy: M = D^-1)")
    args = parser.parse_args(argv)
    import scipy.sparse as sp
    from scipy.sparse.linalg import cg

    import warp_nb as wp

    solve, x = _warp_solver(wp, "cpu", args.n, args.jacobi)
    solve(2)  # compiles every kernel of the solve
    A, b = _csr(args.n), rhs(args.n)
    M = sp.diags(1.0 / A.diagonal()) if args.jacobi else None
    reference = numpy_cg(A, b, args.iters, args.jacobi)
    for name, run, result in (("warp_nb", lambda: solve(args.iters), lambda: x.numpy()),
                              ("scipy", lambda: cg(A, b, x0=np.zeros_like(b), rtol=1e-30, atol=0.0,
                                                   maxiter=args.iters, M=M)[0], None)):
        times, got = [], None
        for _ in range(args.repeats):
            t = time.perf_counter()
            got = run()
            times.append(time.perf_counter() - t)
        got = result() if result else got
        err = np.abs(got - reference).max() / np.abs(reference).max()
        med = statistics.median(times)
        print("%-8s cg %dk unknowns%s: %.3f s (%.2f ms/iteration), max rel. deviation from numpy CG %.1e"
              % (name, args.n * args.n // 1000, " jacobi" if args.jacobi else "", med, 1e3 * med / args.iters, err))


if __name__ == "__main__":
    main()
