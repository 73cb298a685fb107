"""Shared pieces of the benchmark suite: workload sizes, inputs, numpy oracles, checks, timing
and the worker protocol (one JSON object per line on stdout).

Every framework worker (bench_*.py) imports this module; it needs only numpy and the standard
library, so it runs under both the main python3 (warp_nb, numpy) and the benchmark venv
(warp-lang, numba, taichi).
"""

import argparse
import json
import os
import sys
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BENCH_DIR = os.environ.get("BENCH_STATE_DIR", os.path.join(REPO, ".bench"))
ORACLE_DIR = os.path.join(BENCH_DIR, "oracle")

# ---------------------------------------------------------------- workloads and sizes
# name -> title; "coldstart" is driven by run.py through coldstart.py, not by the workers.
WORKLOADS = {
    "launch": "per-launch overhead (10k launches of a 1-thread kernel; time per launch)",
    "saxpy": "saxpy 10M float32 (y = a*x + y)",
    "nbody": "all-pairs n-body, 4096 bodies, one step of accelerations (float32)",
    "mandelbrot": "mandelbrot 1024x1024, max 256 iterations (int32 counts)",
    "atomic_sum": "atomic sum of 10M float32 into one scalar",
    "stencil": "5-point Jacobi stencil 2048x2048 float32, 10 steps, ping-pong",
    "tape": "forward + Tape backward of loss = sum(sin(x)*x), 1M float32",
    "coldstart": "cold compile / warm start of a generated 5-kernel module (fresh process)",
    # the geometry group (bench_geometry.py; warp and warp_nb only)
    "bvh_build": "BVH build: wp.Mesh of 1M triangles",
    "mesh_query": "1M closest-point queries on a 100k-triangle mesh",
    "hash_grid": "hash grid of 1M points: build and neighbour counts",
    # the tile group (bench_tiles.py; warp, warp_nb and numpy)
    "tile_matmul": "tiled float32 matmul, 256 to 2048 (wp.launch_tiled, tile_load / tile_matmul / tile_store)",
    "tile_fft": "batch of 8192 complex64 1-D FFTs, length 64 to 1024 (wp.tile_fft)",
    # the sparse group (bench_sparse.py; warp, warp_nb and scipy in the numpy worker)
    "sparse_mv": "bsr_mv on the 2-D Poisson matrix, 1M unknowns (scipy: CSR matvec)",
    "sparse_triplets": "bsr_from_triplets of 5M COO triplets (scipy: COO -> CSR)",
    "linear_cg": "warp.optim.linear.cg, 50 iterations on the 1M-unknown Poisson matrix (scipy.sparse.linalg.cg)",
}
GEOMETRY = ["bvh_build", "mesh_query", "hash_grid"]
TILES = ["tile_matmul", "tile_fft"]
SPARSE = ["sparse_mv", "sparse_triplets", "linear_cg"]  # linear_cg: bench_linear.py
THROUGHPUT = ["saxpy", "nbody", "mandelbrot", "atomic_sum", "stencil"]

N_LAUNCH = 10_000
N_SAXPY = 10_000_000
SAXPY_A = 2.0
N_BODY = 4096
NBODY_EPS2 = 0.01  # softening squared
MANDEL_W = MANDEL_H = 1024
MANDEL_MAXIT = 256
MANDEL_X0, MANDEL_X1, MANDEL_Y0, MANDEL_Y1 = -2.0, 0.5, -1.25, 1.25
MANDEL_MAX_BAD = 64  # pixels allowed to differ (fp contraction on the set's boundary)
N_SUM = 10_000_000
STENCIL_N = 2048
STENCIL_STEPS = 10
N_TAPE = 1_000_000

# repeats (steady state, after warm-up); "launch" repeats are batches of N_LAUNCH launches
REPEATS = {
    False: {"launch": 10, "saxpy": 50, "nbody": 20, "mandelbrot": 15, "atomic_sum": 30, "stencil": 15, "tape": 30},
    True: {"launch": 3, "saxpy": 5, "nbody": 2, "mandelbrot": 2, "atomic_sum": 3, "stencil": 2, "tape": 3},
}


def mandel_params():
    """float32 origin and step of the mandelbrot grid: c = (x0 + j*dx, y0 + i*dy)."""
    f = np.float32
    dx = f((MANDEL_X1 - MANDEL_X0) / MANDEL_W)
    dy = f((MANDEL_Y1 - MANDEL_Y0) / MANDEL_H)
    return f(MANDEL_X0), f(MANDEL_Y0), dx, dy


# ---------------------------------------------------------------- numpy reference code
def nbody_numpy(pos, mass, eps2, dtype=np.float64, chunk=256):
    """a_i = sum_j m_j (p_j - p_i) / (|p_j - p_i|^2 + eps2)^(3/2), chunked over i."""
    p = pos.astype(dtype)
    m = mass.astype(dtype)
    out = np.empty_like(p)
    one = dtype(1.0)
    for s in range(0, p.shape[0], chunk):
        d = p[None, :, :] - p[s:s + chunk, None, :]
        r2 = (d * d).sum(axis=-1) + dtype(eps2)
        inv = one / np.sqrt(r2)
        w = m[None, :] * (inv * inv * inv)
        out[s:s + chunk] = (d * w[..., None]).sum(axis=1)
    return out


def mandel_numpy():
    """Vectorised float32 escape-time counts; the active set is compacted every iteration."""
    x0, y0, dx, dy = mandel_params()
    f = np.float32
    cr = np.tile(x0 + np.arange(MANDEL_W, dtype=f) * dx, MANDEL_H)
    ci = np.repeat(y0 + np.arange(MANDEL_H, dtype=f) * dy, MANDEL_W)
    idx = np.arange(MANDEL_W * MANDEL_H)
    zr = np.zeros_like(cr)
    zi = np.zeros_like(cr)
    count = np.zeros(MANDEL_W * MANDEL_H, dtype=np.int32)
    two, four = f(2.0), f(4.0)
    for _ in range(MANDEL_MAXIT):
        act = zr * zr + zi * zi <= four
        if not act.all():
            idx, zr, zi, cr, ci = idx[act], zr[act], zi[act], cr[act], ci[act]
        if idx.size == 0:
            break
        count[idx] += 1
        t = zr * zr - zi * zi + cr
        zi = two * zr * zi + ci
        zr = t
    return count.reshape(MANDEL_H, MANDEL_W)


def stencil_step_numpy(a, b):
    b[1:-1, 1:-1] = np.float32(0.25) * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])


def stencil_numpy(grid, steps):
    a = grid.copy()
    b = grid.copy()
    for _ in range(steps):
        stencil_step_numpy(a, b)
        a, b = b, a
    return a


# ---------------------------------------------------------------- cases (inputs + expected)
def _make_case(name):
    seeds = {"saxpy": 1, "nbody": 2, "mandelbrot": 3, "atomic_sum": 4, "stencil": 5, "tape": 6}
    rng = np.random.default_rng(seeds[name])
    f32 = np.float32
    if name == "saxpy":
        x = rng.random(N_SAXPY, dtype=f32)
        y = rng.random(N_SAXPY, dtype=f32)
        return {"x": x, "y": y, "expected": f32(SAXPY_A) * x + y}
    if name == "nbody":
        pos = rng.uniform(-1.0, 1.0, (N_BODY, 3)).astype(f32)
        mass = rng.uniform(0.5, 1.5, N_BODY).astype(f32)
        return {"pos": pos, "mass": mass, "expected": nbody_numpy(pos, mass, NBODY_EPS2, np.float64)}
    if name == "mandelbrot":
        return {"expected": mandel_numpy()}
    if name == "atomic_sum":
        x = rng.random(N_SUM, dtype=f32)
        return {"x": x, "expected": np.array(x.astype(np.float64).sum())}
    if name == "stencil":
        g = rng.random((STENCIL_N, STENCIL_N), dtype=f32)
        return {"grid": g, "expected": stencil_numpy(g, STENCIL_STEPS)}
    if name == "tape":
        x = rng.uniform(-2.0, 2.0, N_TAPE).astype(f32)
        xd = x.astype(np.float64)
        return {"x": x, "loss": np.array((np.sin(xd) * xd).sum()), "grad": np.cos(xd) * xd + np.sin(xd)}
    raise KeyError(name)


def load_case(name):
    """Inputs and oracle of a workload, computed once and kept in .bench/oracle/NAME.npz."""
    path = os.path.join(ORACLE_DIR, name + ".npz")
    if os.path.exists(path):
        with np.load(path) as z:
            return {k: z[k] for k in z.files}
    case = _make_case(name)
    os.makedirs(ORACLE_DIR, exist_ok=True)
    tmp = "%s.%d.tmp.npz" % (path[:-4], os.getpid())
    np.savez(tmp, **case)
    os.replace(tmp, path)
    return case


# ---------------------------------------------------------------- checks
def check_close(got, expected, rtol, atol):
    got = np.asarray(got, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    if got.shape != expected.shape:
        return "WRONG: shape %s, expected %s" % (got.shape, expected.shape)
    if np.allclose(got, expected, rtol=rtol, atol=atol):
        return "ok"
    err = np.abs(got - expected)
    k = int(np.nanargmax(np.where(np.isnan(err), np.inf, err)))
    return "WRONG: max |err| %.3g at %d (got %.6g, expected %.6g)" % (
        err.flat[k], k, got.flat[k], expected.flat[k])


def check_nbody(acc, expected):
    scale = float(np.sqrt(np.mean(expected ** 2)))
    return check_close(np.asarray(acc).reshape(expected.shape), expected, 1e-3, 1e-4 * scale)


def check_mandel(counts, expected):
    counts = np.asarray(counts).reshape(expected.shape)
    bad = int(np.count_nonzero(counts != expected))
    if bad <= MANDEL_MAX_BAD:
        return "ok" if bad == 0 else "ok (%d boundary px differ)" % bad
    return "WRONG: %d of %d pixels differ" % (bad, counts.size)


def check_scalar(value, expected, rtol):
    value, expected = float(value), float(expected)
    rel = abs(value - expected) / abs(expected)
    return "ok" if rel <= rtol else "WRONG: %.7g vs %.7g (rel err %.2g)" % (value, expected, rel)


# ---------------------------------------------------------------- timing
TIME_BUDGET_S = {False: 10.0, True: 4.0}  # per workload: a slow framework stops repeating early
_quick = False


def time_it(fn, repeats, warmup=1):
    """fn must block until its work is done. Returns the list of wall times (s); stops before
    `repeats` once the timed runs took longer than the budget (at least 3 runs, 1 with --quick)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        if sum(times) > TIME_BUDGET_S[_quick] and len(times) >= (1 if _quick else 3):
            break
    return times


def result(workload, times, check, per=1, **extra):
    t = sorted(x / per for x in times)
    rec = {"workload": workload, "status": "ok", "check": check, "median_s": float(np.median(t)),
           "min_s": t[0], "repeats": len(t)}
    rec.update(extra)
    return rec


class NotYet(Exception):
    """A feature the framework does not have (yet): reported as 'not yet', not as an error."""


def short_error(e):
    msg = str(e).strip().splitlines()
    return "%s: %s" % (type(e).__name__, msg[0][:160] if msg else "")


# ---------------------------------------------------------------- worker protocol
class Emitter:
    """Keeps the real stdout for JSON lines and sends everything else (prints of the framework,
    including C-level ones) to stderr."""

    def __init__(self):
        sys.stdout.flush()
        self.out = os.fdopen(os.dup(1), "w")
        os.dup2(2, 1)
        sys.stdout = sys.stderr

    def emit(self, obj):
        self.out.write(json.dumps(obj) + "\n")
        self.out.flush()


_emitter = None


def start_worker():
    """Call before importing the framework: its import-time prints then go to stderr too."""
    global _emitter
    if _emitter is None:
        _emitter = Emitter()
    return _emitter


def worker_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", default="")
    p.add_argument("--variant", default="")
    a, _ = p.parse_known_args(argv)
    return a


def run_worker(framework, setup, benches, args=None):
    """setup() -> dict of meta (version, threads...) or raises; benches: name -> fn(ctx) returning
    one result dict or a list of them."""
    args = args or worker_args()
    em = start_worker()
    only = [w for w in args.only.split(",") if w] or [w for w in WORKLOADS if w != "coldstart"]
    try:
        meta = setup() or {}
    except Exception as e:  # framework cannot even start: one line says why
        traceback.print_exc()
        em.emit({"type": "meta", "framework": framework, "error": short_error(e)})
        em.emit({"type": "done"})
        return
    em.emit(dict({"type": "meta", "framework": framework}, **meta))
    global _quick
    _quick = args.quick
    ctx = {"quick": args.quick, "repeats": REPEATS[args.quick]}
    for name in only:
        if name == "coldstart" or name not in WORKLOADS:
            continue
        if name not in benches:
            em.emit({"type": "result", "workload": name, "status": "n/a"})
            continue
        sys.stderr.write("[%s] %s ...\n" % (framework, name))
        sys.stderr.flush()
        try:
            recs = benches[name](ctx)
            for r in recs if isinstance(recs, list) else [recs]:
                em.emit(dict({"type": "result"}, **r))
        except NotYet as e:
            em.emit({"type": "result", "workload": name, "status": "not yet", "error": str(e)})
        except Exception as e:
            traceback.print_exc()
            em.emit({"type": "result", "workload": name, "status": "error", "error": short_error(e)})
    em.emit({"type": "done"})
