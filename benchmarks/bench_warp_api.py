"""The Warp-API benchmark, written once and run with either implementation:

    BENCH_WP_MODULE=warp     python bench_warp_api.py   # NVIDIA warp-lang
    BENCH_WP_MODULE=warp_nb  python bench_warp_api.py   # warp_nb, the drop-in

Kernels are plain module-level Warp kernels (wp.tid, wp.array, wp.launch(..., device="cpu"),
wp.synchronize, wp.Tape). Each workload's kernels sit in their own try block so that an
implementation missing one feature still runs the other workloads.
"""

import importlib
import os
import sys

import common

MODULE = os.environ.get("BENCH_WP_MODULE", "warp")
DEVICE = os.environ.get("BENCH_WP_DEVICE", "cpu")  # run.py --device cuda:0 on a GPU machine

_import_error = None
_def_errors = {}
common.start_worker()


def _import_wp():
    try:
        return importlib.import_module(MODULE)
    except ImportError:
        if MODULE == "warp":
            raise
        sys.path.append(common.REPO)  # not installed: the repository checkout, after site-packages
        return importlib.import_module(MODULE)


try:
    wp = _import_wp()
    if not hasattr(wp, "kernel"):
        raise ImportError("%s has no wp.kernel yet (%s)" % (MODULE, list(getattr(wp, "__path__", []))))
except Exception as e:  # noqa: BLE001 - reported by setup(), never raised here
    _import_error = e

if _import_error is None:
    try:
        @wp.kernel
        def inc_kernel(a: wp.array(dtype=float)):
            i = wp.tid()
            a[i] = a[i] + 1.0
    except Exception as e:  # noqa: BLE001
        _def_errors["launch"] = e

    try:
        @wp.kernel
        def saxpy_kernel(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
            i = wp.tid()
            y[i] = a * x[i] + y[i]
    except Exception as e:  # noqa: BLE001
        _def_errors["saxpy"] = e

    try:
        @wp.kernel
        def nbody_kernel(pos: wp.array(dtype=wp.vec3), mass: wp.array(dtype=float), eps2: float,
                         n: int, acc: wp.array(dtype=wp.vec3)):
            i = wp.tid()
            p = pos[i]
            a = wp.vec3(0.0, 0.0, 0.0)
            for j in range(n):
                d = pos[j] - p
                r2 = wp.dot(d, d) + eps2
                inv = 1.0 / wp.sqrt(r2)
                a = a + (mass[j] * inv * inv * inv) * d
            acc[i] = a
    except Exception as e:  # noqa: BLE001
        _def_errors["nbody"] = e

    try:
        @wp.kernel
        def mandel_kernel(x0: float, y0: float, dx: float, dy: float, max_iter: int,
                          counts: wp.array2d(dtype=int)):
            i, j = wp.tid()
            cr = x0 + float(j) * dx
            ci = y0 + float(i) * dy
            zr = float(0.0)
            zi = float(0.0)
            n = int(0)
            while n < max_iter and zr * zr + zi * zi <= 4.0:
                t = zr * zr - zi * zi + cr
                zi = 2.0 * zr * zi + ci
                zr = t
                n = n + 1
            counts[i, j] = n
    except Exception as e:  # noqa: BLE001
        _def_errors["mandelbrot"] = e

    try:
        @wp.kernel
        def sum_kernel(x: wp.array(dtype=float), total: wp.array(dtype=float)):
            i = wp.tid()
            wp.atomic_add(total, 0, x[i])
    except Exception as e:  # noqa: BLE001
        _def_errors["atomic_sum"] = e

    try:
        # launched over the interior (n-2) x (n-2), like the numba and taichi loops: the fixed
        # boundary is in both buffers from the start
        @wp.kernel
        def jacobi_kernel(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
            i, j = wp.tid()
            i += 1
            j += 1
            dst[i, j] = 0.25 * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1])
    except Exception as e:  # noqa: BLE001
        _def_errors["stencil"] = e

    try:
        @wp.kernel
        def loss_kernel(x: wp.array(dtype=float), loss: wp.array(dtype=float)):
            i = wp.tid()
            v = x[i]
            wp.atomic_add(loss, 0, wp.sin(v) * v)
    except Exception as e:  # noqa: BLE001
        _def_errors["tape"] = e


def _defined(name):
    if name in _def_errors:
        raise RuntimeError("kernel definition failed: " + common.short_error(_def_errors[name]))


def setup():
    if _import_error is not None:
        raise _import_error
    cache = os.environ.get("BENCH_KERNEL_CACHE")
    config = getattr(wp, "config", None)  # tolerated missing: warp_nb also reads WARP_NB_CACHE_DIR
    if config is not None:
        if cache:
            config.kernel_cache_dir = cache
        config.quiet = True
    if hasattr(wp, "init"):
        wp.init()
    meta = {"version": getattr(wp, "__version__", "?"), "module": MODULE,
            "module_file": getattr(wp, "__file__", None),
            # warp-lang runs CPU kernels on one thread; warp_nb uses every core unless told otherwise
            "threads": (getattr(config, "cpu_threads", 0) or os.cpu_count()) if MODULE == "warp_nb" else 1}
    return meta


def bench_launch(ctx):
    _defined("launch")
    a = wp.zeros(1, dtype=float, device=DEVICE)

    def run():
        for _ in range(common.N_LAUNCH):
            wp.launch(inc_kernel, dim=1, inputs=[a], device=DEVICE)
        wp.synchronize()

    reps = ctx["repeats"]["launch"]
    times = common.time_it(run, reps)
    got = float(a.numpy()[0])
    check = common.check_scalar(got, (len(times) + 1) * common.N_LAUNCH, 0.0)
    return common.result("launch", times, check, per=common.N_LAUNCH)


def bench_saxpy(ctx):
    _defined("saxpy")
    case = common.load_case("saxpy")
    x = wp.array(case["x"], dtype=float, device=DEVICE)
    y = wp.array(case["y"], dtype=float, device=DEVICE)
    wp.launch(saxpy_kernel, dim=common.N_SAXPY, inputs=[common.SAXPY_A, x, y], device=DEVICE)
    wp.synchronize()
    check = common.check_close(y.numpy(), case["expected"], 1e-6, 1e-6)

    def run():
        wp.launch(saxpy_kernel, dim=common.N_SAXPY, inputs=[common.SAXPY_A, x, y], device=DEVICE)
        wp.synchronize()

    return common.result("saxpy", common.time_it(run, ctx["repeats"]["saxpy"]), check)


def bench_nbody(ctx):
    _defined("nbody")
    case = common.load_case("nbody")
    n = common.N_BODY
    pos = wp.array(case["pos"], dtype=wp.vec3, device=DEVICE)
    mass = wp.array(case["mass"], dtype=float, device=DEVICE)
    acc = wp.zeros(n, dtype=wp.vec3, device=DEVICE)

    def run():
        wp.launch(nbody_kernel, dim=n, inputs=[pos, mass, common.NBODY_EPS2, n, acc], device=DEVICE)
        wp.synchronize()

    times = common.time_it(run, ctx["repeats"]["nbody"])
    return common.result("nbody", times, common.check_nbody(acc.numpy(), case["expected"]))


def bench_mandelbrot(ctx):
    _defined("mandelbrot")
    case = common.load_case("mandelbrot")
    x0, y0, dx, dy = (float(v) for v in common.mandel_params())
    counts = wp.zeros((common.MANDEL_H, common.MANDEL_W), dtype=int, device=DEVICE)

    def run():
        wp.launch(mandel_kernel, dim=(common.MANDEL_H, common.MANDEL_W),
                  inputs=[x0, y0, dx, dy, common.MANDEL_MAXIT, counts], device=DEVICE)
        wp.synchronize()

    times = common.time_it(run, ctx["repeats"]["mandelbrot"])
    return common.result("mandelbrot", times, common.check_mandel(counts.numpy(), case["expected"]))


def bench_atomic_sum(ctx):
    _defined("atomic_sum")
    case = common.load_case("atomic_sum")
    x = wp.array(case["x"], dtype=float, device=DEVICE)
    total = wp.zeros(1, dtype=float, device=DEVICE)

    def run():
        total.zero_()
        wp.launch(sum_kernel, dim=common.N_SUM, inputs=[x, total], device=DEVICE)
        wp.synchronize()

    times = common.time_it(run, ctx["repeats"]["atomic_sum"])
    return common.result("atomic_sum", times, common.check_scalar(total.numpy()[0], case["expected"], 2e-3))


def bench_stencil(ctx):
    _defined("stencil")
    case = common.load_case("stencil")
    n = common.STENCIL_N
    bufs = [wp.array(case["grid"], dtype=float, device=DEVICE), wp.array(case["grid"], dtype=float, device=DEVICE)]

    def run():
        for _ in range(common.STENCIL_STEPS):
            wp.launch(jacobi_kernel, dim=(n - 2, n - 2), inputs=[bufs[0], bufs[1]], device=DEVICE)
            bufs.reverse()
        wp.synchronize()

    run()  # first run from the initial grid: checked (and compiles)
    check = common.check_close(bufs[0].numpy(), case["expected"], 1e-5, 1e-6)
    times = common.time_it(run, ctx["repeats"]["stencil"], warmup=0)
    return common.result("stencil", times, check)


def bench_tape(ctx):
    _defined("tape")
    if not hasattr(wp, "Tape"):
        raise common.NotYet("wp.Tape is missing")
    import time
    case = common.load_case("tape")
    x = wp.array(case["x"], dtype=float, device=DEVICE, requires_grad=True)
    loss = wp.zeros(1, dtype=float, device=DEVICE, requires_grad=True)
    fwd, bwd = [], []
    reps = ctx["repeats"]["tape"]
    for r in range(reps + 1):  # the first round is the warm-up (compiles forward and adjoint)
        loss.zero_()
        x.grad.zero_()
        wp.synchronize()
        tape = wp.Tape()
        t0 = time.perf_counter()
        with tape:
            wp.launch(loss_kernel, dim=common.N_TAPE, inputs=[x, loss], device=DEVICE)
        wp.synchronize()
        t1 = time.perf_counter()
        tape.backward(loss=loss)
        wp.synchronize()
        t2 = time.perf_counter()
        if r == 0:
            check_f = common.check_scalar(loss.numpy()[0], case["loss"], 2e-3)
            check_b = common.check_close(x.grad.numpy(), case["grad"], 1e-4, 1e-5)
        else:
            fwd.append(t1 - t0)
            bwd.append(t2 - t1)
        tape.zero()
        if sum(fwd) + sum(bwd) > common.TIME_BUDGET_S[ctx["quick"]] and len(fwd) >= 3:
            break
    return [common.result("tape_fwd", fwd, check_f), common.result("tape_bwd", bwd, check_b)]


BENCHES = {"launch": bench_launch, "saxpy": bench_saxpy, "nbody": bench_nbody, "mandelbrot": bench_mandelbrot,
           "atomic_sum": bench_atomic_sum, "stencil": bench_stencil, "tape": bench_tape}
if _import_error is None:  # the geometry group (wp.Mesh, wp.HashGrid), same code for both modules
    try:
        import bench_geometry
        BENCHES.update(bench_geometry.make(wp, DEVICE))
    except Exception as e:  # noqa: BLE001 - reported per workload
        _geometry_error = e

        def _geometry_failed(ctx, _e=e):
            raise RuntimeError("geometry kernels failed to define: " + common.short_error(_e))
        BENCHES.update({k: _geometry_failed for k in common.GEOMETRY})
    try:  # the tile group (wp.launch_tiled, tile_matmul), same code for both modules
        import bench_tiles
        BENCHES.update(bench_tiles.make(wp, DEVICE))
    except Exception as e:  # noqa: BLE001 - reported per workload

        def _tiles_failed(ctx, _e=e):
            raise RuntimeError("tile kernels failed to define: " + common.short_error(_e))
        BENCHES.update({k: _tiles_failed for k in common.TILES})
    try:  # the sparse group (warp.sparse: bsr_mv, bsr_from_triplets), same code for both modules
        import bench_sparse
        BENCHES.update(bench_sparse.make(wp, DEVICE))
    except Exception as e:  # noqa: BLE001 - reported per workload

        def _sparse_failed(ctx, _e=e):
            raise RuntimeError("sparse workloads failed to define: " + common.short_error(_e))
        BENCHES.update({k: _sparse_failed for k in common.SPARSE})
    try:  # the sparse group's solver workload (warp.optim.linear.cg)
        import bench_linear
        BENCHES.update(bench_linear.make(wp, DEVICE))
    except Exception as e:  # noqa: BLE001 - reported per workload

        def _linear_failed(ctx, _e=e):
            raise RuntimeError("linear-solver workload failed to define: " + common.short_error(_e))
        BENCHES["linear_cg"] = _linear_failed

if __name__ == "__main__":
    common.run_worker(MODULE, setup, BENCHES)
