"""numpy worker: the vectorised way to write each workload (one thread; numpy's own loops).

- launch: one in-place ufunc on a 1-element array (`a += 1`), numpy's per-call overhead;
- n-body: float32, chunked over 256 bodies at a time (the float64 version is the oracle);
- mandelbrot: float32 escape-time loop over the whole image, compacting the active set;
- atomic_sum: x.sum() (a pairwise float32 sum, not atomics);
- tape: the forward value and the analytic gradient (cos(x)*x + sin(x)), the oracle of the
  Warp Tape workload, timed for scale;
- tile_matmul: np.matmul on the same float32 matrices (BLAS, with its own threads).
"""

import numpy as np

import bench_linear
import bench_sparse
import bench_tiles
import common


def setup():
    return {"version": np.__version__, "threads": 1}


def bench_launch(ctx):
    a = np.zeros(1, dtype=np.float32)
    one = np.float32(1.0)

    def run():
        for _ in range(common.N_LAUNCH):
            np.add(a, one, out=a)

    reps = ctx["repeats"]["launch"]
    times = common.time_it(run, reps)
    check = common.check_scalar(a[0], (len(times) + 1) * common.N_LAUNCH, 0.0)
    return common.result("launch", times, check, per=common.N_LAUNCH, note="np.add(a, 1, out=a) on 1 element")


def bench_saxpy(ctx):
    case = common.load_case("saxpy")
    x, y = case["x"], case["y"].copy()
    a = np.float32(common.SAXPY_A)

    def run():
        y[:] = a * x + y

    run()
    check = common.check_close(y, case["expected"], 1e-6, 1e-6)
    return common.result("saxpy", common.time_it(run, ctx["repeats"]["saxpy"]), check)


def bench_nbody(ctx):
    case = common.load_case("nbody")
    out = []

    def run():
        out.append(common.nbody_numpy(case["pos"], case["mass"], common.NBODY_EPS2, np.float32))

    times = common.time_it(run, ctx["repeats"]["nbody"])
    return common.result("nbody", times, common.check_nbody(out[-1], case["expected"]))


def bench_mandelbrot(ctx):
    case = common.load_case("mandelbrot")
    out = []
    times = common.time_it(lambda: out.append(common.mandel_numpy()), ctx["repeats"]["mandelbrot"])
    return common.result("mandelbrot", times, common.check_mandel(out[-1], case["expected"]))


def bench_atomic_sum(ctx):
    case = common.load_case("atomic_sum")
    x = case["x"]
    out = []
    times = common.time_it(lambda: out.append(x.sum()), ctx["repeats"]["atomic_sum"])
    return common.result("atomic_sum", times, common.check_scalar(out[-1], case["expected"], 2e-3),
                         note="x.sum(), pairwise")


def bench_stencil(ctx):
    case = common.load_case("stencil")
    bufs = [case["grid"].copy(), case["grid"].copy()]

    def run():
        for _ in range(common.STENCIL_STEPS):
            common.stencil_step_numpy(bufs[0], bufs[1])
            bufs.reverse()

    run()
    check = common.check_close(bufs[0], case["expected"], 1e-5, 1e-6)
    return common.result("stencil", common.time_it(run, ctx["repeats"]["stencil"], warmup=0), check)


def bench_tape(ctx):
    case = common.load_case("tape")
    x = case["x"]
    loss, grad = [], []
    reps = ctx["repeats"]["tape"]
    fwd = common.time_it(lambda: loss.append(np.sum(np.sin(x) * x)), reps)
    bwd = common.time_it(lambda: grad.append(np.cos(x) * x + np.sin(x)), reps)
    return [common.result("tape_fwd", fwd, common.check_scalar(loss[-1], case["loss"], 2e-3),
                          note="np.sum(np.sin(x) * x)"),
            common.result("tape_bwd", bwd, common.check_close(grad[-1], case["grad"], 1e-4, 1e-5),
                          note="analytic gradient np.cos(x) * x + np.sin(x)")]


BENCHES = {"launch": bench_launch, "saxpy": bench_saxpy, "nbody": bench_nbody, "mandelbrot": bench_mandelbrot,
           "atomic_sum": bench_atomic_sum, "stencil": bench_stencil, "tape": bench_tape}
BENCHES["tile_matmul"] = bench_tiles.bench_numpy  # np.matmul beside the tiled matmul
BENCHES["tile_fft"] = bench_tiles.bench_numpy_fft  # np.fft.fft beside the batched tile_fft
BENCHES["sparse_mv"] = bench_sparse.bench_scipy_mv  # scipy.sparse beside warp.sparse
BENCHES["sparse_triplets"] = bench_sparse.bench_scipy_triplets
BENCHES["linear_cg"] = bench_linear.bench_scipy_cg  # scipy.sparse.linalg.cg beside warp.optim.linear.cg

if __name__ == "__main__":
    common.run_worker("numpy", setup, BENCHES)
