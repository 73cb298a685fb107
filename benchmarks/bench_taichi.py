"""Taichi worker (CPU arch, all cores, default f32). Data lives in ti.field's, the way Taichi
programs usually hold it; kernels take fields as ti.template() arguments so the stencil can
ping-pong. The atomic sum is `total[None] += x[i]`, an atomic add that Taichi may lower to a
per-thread reduction.

fast_math is turned off (Taichi's default is on) so that all frameworks compute the same IEEE
float32 arithmetic: with it on, n-body runs ~2.5x faster here but ~0.2% of the mandelbrot pixels
change, which fails the exact check. The launch-overhead kernel's single-iteration loop is
serialized (ti.loop_config(serialize=True)) so that it runs on the calling thread like a 1-thread
Warp launch; left parallel, each launch wakes Taichi's thread pool and costs 15-80 us here, very
noisily.
"""

import os

import common

common.start_worker()
import taichi as ti  # noqa: E402

def setup():
    cache = os.environ.get("BENCH_KERNEL_CACHE")
    kw = {"offline_cache_file_path": cache} if cache else {}
    ti.init(arch=ti.cpu, fast_math=False, log_level=ti.WARN, **kw)
    threads = ti.lang.impl.current_cfg().cpu_max_num_threads
    return {"version": ".".join(str(v) for v in ti.__version__), "threads": threads}

@ti.kernel
def inc_kernel(a: ti.template()):
    ti.loop_config(serialize=True)
    for i in range(1):
        a[i] = a[i] + 1.0

@ti.kernel
def saxpy_kernel(a: ti.f32, x: ti.template(), y: ti.template()):
    for i in x:
        y[i] = a * x[i] + y[i]

@ti.kernel
def nbody_kernel(pos: ti.template(), mass: ti.template(), eps2: ti.f32, acc: ti.template()):
    n = pos.shape[0]
    for i in pos:
        p = pos[i]
        a = ti.Vector([0.0, 0.0, 0.0])
        for j in range(n):
            d = pos[j] - p
            r2 = d.dot(d) + eps2
            inv = 1.0 / ti.sqrt(r2)
            a += (mass[j] * inv * inv * inv) * d
        acc[i] = a

@ti.kernel
def mandel_kernel(x0: ti.f32, y0: ti.f32, dx: ti.f32, dy: ti.f32, max_iter: ti.i32, counts: ti.template()):
    for i, j in counts:
        cr = x0 + ti.cast(j, ti.f32) * dx
        ci = y0 + ti.cast(i, ti.f32) * dy
        zr = 0.0
        zi = 0.0
        n = 0
        while n < max_iter and zr * zr + zi * zi <= 4.0:
            t = zr * zr - zi * zi + cr
            zi = 2.0 * zr * zi + ci
            zr = t
            n += 1
        counts[i, j] = n

@ti.kernel
def sum_kernel(x: ti.template(), total: ti.template()):
    for i in x:
        total[None] += x[i]

@ti.kernel
def jacobi_kernel(src: ti.template(), dst: ti.template()):
    n, m = src.shape
    for i, j in ti.ndrange((1, n - 1), (1, m - 1)):
        dst[i, j] = 0.25 * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1])

def bench_launch(ctx):
    a = ti.field(ti.f32, shape=1)

    def run():
        for _ in range(common.N_LAUNCH):
            inc_kernel(a)
        ti.sync()

    reps = ctx["repeats"]["launch"]
    times = common.time_it(run, reps)
    check = common.check_scalar(a.to_numpy()[0], (len(times) + 1) * common.N_LAUNCH, 0.0)
    return common.result("launch", times, check, per=common.N_LAUNCH)


def bench_saxpy(ctx):
    case = common.load_case("saxpy")
    x = ti.field(ti.f32, shape=common.N_SAXPY)
    y = ti.field(ti.f32, shape=common.N_SAXPY)
    x.from_numpy(case["x"])
    y.from_numpy(case["y"])
    saxpy_kernel(common.SAXPY_A, x, y)
    ti.sync()
    check = common.check_close(y.to_numpy(), case["expected"], 1e-6, 1e-6)

    def run():
        saxpy_kernel(common.SAXPY_A, x, y)
        ti.sync()

    return common.result("saxpy", common.time_it(run, ctx["repeats"]["saxpy"]), check)

def bench_nbody(ctx):
    case = common.load_case("nbody")
    n = common.N_BODY
    pos = ti.Vector.field(3, ti.f32, shape=n)
    mass = ti.field(ti.f32, shape=n)
    acc = ti.Vector.field(3, ti.f32, shape=n)
    pos.from_numpy(case["pos"])
    mass.from_numpy(case["mass"])

    def run():
        nbody_kernel(pos, mass, common.NBODY_EPS2, acc)
        ti.sync()

    times = common.time_it(run, ctx["repeats"]["nbody"])
    return common.result("nbody", times, common.check_nbody(acc.to_numpy(), case["expected"]))

def bench_mandelbrot(ctx):
    case = common.load_case("mandelbrot")
    x0, y0, dx, dy = (float(v) for v in common.mandel_params())
    counts = ti.field(ti.i32, shape=(common.MANDEL_H, common.MANDEL_W))

    def run():
        mandel_kernel(x0, y0, dx, dy, common.MANDEL_MAXIT, counts)
        ti.sync()

    times = common.time_it(run, ctx["repeats"]["mandelbrot"])
    return common.result("mandelbrot", times, common.check_mandel(counts.to_numpy(), case["expected"]))

def bench_atomic_sum(ctx):
    case = common.load_case("atomic_sum")
    x = ti.field(ti.f32, shape=common.N_SUM)
    x.from_numpy(case["x"])
    total = ti.field(ti.f32, shape=())

    def run():
        total[None] = 0.0
        sum_kernel(x, total)
        ti.sync()

    times = common.time_it(run, ctx["repeats"]["atomic_sum"])
    return common.result("atomic_sum", times, common.check_scalar(total[None], case["expected"], 2e-3))

def bench_stencil(ctx):
    case = common.load_case("stencil")
    n = common.STENCIL_N
    bufs = [ti.field(ti.f32, shape=(n, n)), ti.field(ti.f32, shape=(n, n))]
    for b in bufs:
        b.from_numpy(case["grid"])

    def run():
        for _ in range(common.STENCIL_STEPS):
            jacobi_kernel(bufs[0], bufs[1])
            bufs.reverse()
        ti.sync()

    run()
    check = common.check_close(bufs[0].to_numpy(), case["expected"], 1e-5, 1e-6)
    return common.result("stencil", common.time_it(run, ctx["repeats"]["stencil"], warmup=0), check)

BENCHES = {"launch": bench_launch, "saxpy": bench_saxpy, "nbody": bench_nbody, "mandelbrot": bench_mandelbrot,
           "atomic_sum": bench_atomic_sum, "stencil": bench_stencil}

if __name__ == "__main__":
    common.run_worker("taichi", setup, BENCHES)
