"""Numba workers: `--variant serial` (@njit, plain loops) or `--variant parallel`
(@njit(parallel=True) with prange). Default numba options otherwise (no fastmath).

The tape workload is the loss as a reduction and its gradient written by hand (numba has no
autodiff). The atomic-sum workload is a scalar reduction (`s += x[i]`), which is what numba offers in
place of an atomic add; under prange numba turns it into a per-thread reduction.
"""

import numpy as np

import common

args = common.worker_args()
common.start_worker()
PARALLEL = args.variant == "parallel"
NAME = "numba_parallel" if PARALLEL else "numba_serial"

from numba import njit, prange  # noqa: E402

jit = njit(parallel=True) if PARALLEL else njit
loop = prange if PARALLEL else range

F0 = np.float32(0.0)
F2 = np.float32(2.0)
F4 = np.float32(4.0)
QUARTER = np.float32(0.25)
ONE = np.float32(1.0)

@jit
def inc_kernel(a):
    for i in loop(a.shape[0]):
        a[i] = a[i] + ONE

@jit
def saxpy_kernel(a, x, y):
    for i in loop(x.shape[0]):
        y[i] = a * x[i] + y[i]

@jit
def nbody_kernel(pos, mass, eps2, acc):
    n = pos.shape[0]
    for i in loop(n):
        px, py, pz = pos[i, 0], pos[i, 1], pos[i, 2]
        ax = F0
        ay = F0
        az = F0
        for j in range(n):
            dx = pos[j, 0] - px
            dy = pos[j, 1] - py
            dz = pos[j, 2] - pz
            r2 = dx * dx + dy * dy + dz * dz + eps2
            inv = ONE / np.sqrt(r2)
            w = mass[j] * inv * inv * inv
            ax += w * dx
            ay += w * dy
            az += w * dz
        acc[i, 0] = ax
        acc[i, 1] = ay
        acc[i, 2] = az

@jit
def mandel_kernel(x0, y0, dx, dy, max_iter, counts):
    h, w = counts.shape
    for i in loop(h):
        ci = y0 + np.float32(i) * dy
        for j in range(w):
            cr = x0 + np.float32(j) * dx
            zr = F0
            zi = F0
            n = 0
            while n < max_iter and zr * zr + zi * zi <= F4:
                t = zr * zr - zi * zi + cr
                zi = F2 * zr * zi + ci
                zr = t
                n += 1
            counts[i, j] = n

@jit
def sum_kernel(x):
    s = F0
    for i in loop(x.shape[0]):
        s += x[i]
    return s

@jit
def jacobi_kernel(src, dst):
    n, m = src.shape
    for i in loop(1, n - 1):
        for j in range(1, m - 1):
            dst[i, j] = QUARTER * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1])

@jit
def loss_kernel(x):
    s = F0
    for i in loop(x.shape[0]):
        s += np.sin(x[i]) * x[i]
    return s

@jit
def loss_grad_kernel(x, grad):  # the adjoint of loss_kernel, by hand (numba has no autodiff)
    for i in loop(x.shape[0]):
        grad[i] = np.cos(x[i]) * x[i] + np.sin(x[i])

def setup():
    import numba
    return {"version": numba.__version__, "threads": numba.get_num_threads() if PARALLEL else 1,
            "variant": args.variant or "serial"}

def bench_launch(ctx):
    a = np.zeros(1, dtype=np.float32)

    def run():
        for _ in range(common.N_LAUNCH):
            inc_kernel(a)

    reps = ctx["repeats"]["launch"]
    times = common.time_it(run, reps)
    check = common.check_scalar(a[0], (len(times) + 1) * common.N_LAUNCH, 0.0)
    return common.result("launch", times, check, per=common.N_LAUNCH)

def bench_saxpy(ctx):
    case = common.load_case("saxpy")
    x, y = case["x"], case["y"].copy()
    a = np.float32(common.SAXPY_A)
    saxpy_kernel(a, x, y)
    check = common.check_close(y, case["expected"], 1e-6, 1e-6)
    return common.result("saxpy", common.time_it(lambda: saxpy_kernel(a, x, y), ctx["repeats"]["saxpy"]), check)

def bench_nbody(ctx):
    case = common.load_case("nbody")
    pos, mass = case["pos"], case["mass"]
    acc = np.zeros_like(pos)
    eps2 = np.float32(common.NBODY_EPS2)
    times = common.time_it(lambda: nbody_kernel(pos, mass, eps2, acc), ctx["repeats"]["nbody"])
    return common.result("nbody", times, common.check_nbody(acc, case["expected"]))

def bench_mandelbrot(ctx):
    case = common.load_case("mandelbrot")
    x0, y0, dx, dy = common.mandel_params()
    counts = np.zeros((common.MANDEL_H, common.MANDEL_W), dtype=np.int32)
    times = common.time_it(lambda: mandel_kernel(x0, y0, dx, dy, common.MANDEL_MAXIT, counts),
                           ctx["repeats"]["mandelbrot"])
    return common.result("mandelbrot", times, common.check_mandel(counts, case["expected"]))

def bench_atomic_sum(ctx):
    case = common.load_case("atomic_sum")
    x = case["x"]
    out = []
    times = common.time_it(lambda: out.append(sum_kernel(x)), ctx["repeats"]["atomic_sum"])
    return common.result("atomic_sum", times, common.check_scalar(out[-1], case["expected"], 2e-3))

def bench_stencil(ctx):
    case = common.load_case("stencil")
    bufs = [case["grid"].copy(), case["grid"].copy()]

    def run():
        for _ in range(common.STENCIL_STEPS):
            jacobi_kernel(bufs[0], bufs[1])
            bufs.reverse()

    run()
    check = common.check_close(bufs[0], case["expected"], 1e-5, 1e-6)
    return common.result("stencil", common.time_it(run, ctx["repeats"]["stencil"], warmup=0), check)

def bench_tape(ctx):
    """Issue 21 item 3 compares warp_nb's Tape with numba here: the loss as a reduction, and its
    gradient written out by hand (what a numba user writes in place of tape.backward)."""
    case = common.load_case("tape")
    x = case["x"]
    grad = np.zeros_like(x)
    loss = []
    reps = ctx["repeats"]["tape"]
    fwd = common.time_it(lambda: loss.append(loss_kernel(x)), reps)
    bwd = common.time_it(lambda: loss_grad_kernel(x, grad), reps)
    return [common.result("tape_fwd", fwd, common.check_scalar(loss[-1], case["loss"], 2e-3),
                          note=("prange" if PARALLEL else "serial") + " reduction of sin(x)*x"),
            common.result("tape_bwd", bwd, common.check_close(grad, case["grad"], 1e-4, 1e-5),
                          note="hand-written gradient cos(x)*x + sin(x), no autodiff")]

BENCHES = {"launch": bench_launch, "saxpy": bench_saxpy, "nbody": bench_nbody, "mandelbrot": bench_mandelbrot,
           "atomic_sum": bench_atomic_sum, "stencil": bench_stencil, "tape": bench_tape}

if __name__ == "__main__":
    common.run_worker(NAME, setup, BENCHES, args)
