"""The tile group of the Warp-API benchmark: a tiled float32 matrix multiply, C = A @ B for square
matrices of 256, 512, 1024 and 2048, written once with Warp's tile API (`wp.launch_tiled`,
`wp.tile_load`, `wp.tile_matmul`, `wp.tile_store`) and run under `import warp as wp` and
`import warp_nb as wp` (bench_warp_api.py merges it into its worker); bench_numpy.py times
`np.matmul` beside it.

Both Warp implementations run the same kernel with the same square tiles, T x T x T for T = 128
(warp-lang's fastest on this machine among 16, 32, 64 and 128) and T = 64 (the next; warp_nb's
lead over warp-lang is larger there): rows `tile_matmul_<n>_t<T>` (see README.md).
A batch of 1-D FFTs: 8192 complex64 signals (`wp.vec2f`) of length 64 to 1024, each block loading
FFT_ROWS signals as one (FFT_ROWS, n) tile, `wp.tile_fft` along its rows, `wp.tile_store` back: rows
`tile_fft_<n>`, beside `np.fft.fft(x, axis=1)` on the same complex64 data.

Inputs and the float64 numpy oracle are made once per size and kept in .bench/oracle/tiles_*.npz."""

import os

import numpy as np

import common

SIZES = (256, 512, 1024, 2048)
TILES = (128, 64)  # tile edges in M, N and K; every size is a multiple of each
BLOCK_DIM = 64  # threads per block (Warp runs a CPU block on one thread whatever this is)


FFT_SIZES = (64, 256, 1024)  # signal lengths (powers of two, as Warp's tile_fft wants)
FFT_BATCH = 8192  # signals per launch
FFT_ROWS = 8  # signals per block (one (FFT_ROWS, n) tile)


def row_name(n, tile):
    return "tile_matmul_%d_t%d" % (n, tile)


def fft_row_name(n):
    return "tile_fft_%d" % n


#: result rows (name, workload that produces it, title)
ROWS = [(row_name(n, t), "tile_matmul", "tiled matmul %dx%d float32 (%dx%dx%d tiles, wp.launch_tiled)" % (
    n, n, t, t, t)) for t in TILES for n in SIZES]
ROWS += [(fft_row_name(n), "tile_fft", "batch of %d complex64 FFTs of length %d (wp.tile_fft, %d per block)" % (
    FFT_BATCH, n, FFT_ROWS)) for n in FFT_SIZES]
NAMES = [r[0] for r in ROWS]
NAMES_BY_WORKLOAD = {wl: [r[0] for r in ROWS if r[1] == wl] for wl in ("tile_matmul", "tile_fft")}


def workload_of(row):
    """The tile workload that produces result row `row` (None when it is not a tile row)."""
    return next((wl for wl, names in NAMES_BY_WORKLOAD.items() if row in names or row == wl), None)
FFT_REPEATS = {False: 10, True: 2}
REPEATS = {False: {256: 20, 512: 10, 1024: 5, 2048: 3}, True: {256: 3, 512: 2, 1024: 1, 2048: 1}}


def load(n):
    """(a, b, a @ b in float64) for size n, standard-normal float32 inputs."""
    path = os.path.join(common.ORACLE_DIR, "tiles_matmul_%d.npz" % n)
    if os.path.exists(path):
        with np.load(path) as z:
            return z["a"], z["b"], z["c"]
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n)).astype(np.float32)
    b = rng.standard_normal((n, n)).astype(np.float32)
    c = a.astype(np.float64) @ b.astype(np.float64)
    os.makedirs(common.ORACLE_DIR, exist_ok=True)
    tmp = "%s.%d.tmp.npz" % (path[:-4], os.getpid())
    np.savez(tmp, a=a, b=b, c=c)
    os.replace(tmp, path)
    return a, b, c


def load_fft(n):
    """(x, fft(x) in complex128) for FFT_BATCH standard-normal complex64 signals of length n."""
    path = os.path.join(common.ORACLE_DIR, "tiles_fft_%d.npz" % n)
    if os.path.exists(path):
        with np.load(path) as z:
            return z["x"], z["y"]
    rng = np.random.default_rng(1000 + n)
    x = (rng.standard_normal((FFT_BATCH, n)) + 1j * rng.standard_normal((FFT_BATCH, n))).astype(np.complex64)
    y = np.fft.fft(x.astype(np.complex128), axis=1)
    os.makedirs(common.ORACLE_DIR, exist_ok=True)
    tmp = "%s.%d.tmp.npz" % (path[:-4], os.getpid())
    np.savez(tmp, x=x, y=y)
    os.replace(tmp, path)
    return x, y


def check_fft(got, expected):
    # float32 butterflies: errors grow like log2(n) * eps * |X|, and |X| ~ sqrt(n) for unit-variance input
    n = expected.shape[1]
    return common.check_close(got, expected, 1e-4, 1e-5 * np.sqrt(n) * np.log2(n))


def check(got, expected):
    # float32 sums of n products of O(1) values: errors grow like sqrt(n) * eps * |C|
    return common.check_close(got, expected, 1e-4, 2e-3)


def make(wp, device):
    """The tile workloads for the module `wp` (warp or warp_nb): name -> fn(ctx)."""
    if not hasattr(wp, "launch_tiled"):  # (warp-lang's tile builtins are not module attributes)
        def missing(ctx):
            raise common.NotYet("wp.launch_tiled is missing")
        return {"tile_matmul": missing, "tile_fft": missing}

    def tiled_matmul_kernel(tile):
        """One block per tile x tile block of C; the tile shape is a constant of the closure."""
        @wp.kernel
        def tiled_matmul(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
            i, j = wp.tid()
            acc = wp.tile_zeros(shape=(tile, tile), dtype=float)
            for k in range(a.shape[1] // tile):
                ta = wp.tile_load(a, shape=(tile, tile), offset=(i * tile, k * tile))
                tb = wp.tile_load(b, shape=(tile, tile), offset=(k * tile, j * tile))
                wp.tile_matmul(ta, tb, acc)
            wp.tile_store(c, acc, offset=(i * tile, j * tile))
        return tiled_matmul

    kernels = {t: tiled_matmul_kernel(t) for t in TILES}

    def bench_matmul(ctx):
        recs = []
        config = getattr(wp, "config", None)
        threads_knob = getattr(config, "cpu_threads", None)  # warp_nb only: also time one thread, for scale
        for tile in TILES:
            for n in SIZES:
                a_np, b_np, expected = load(n)
                a, b = wp.array(a_np, dtype=float, device=device), wp.array(b_np, dtype=float, device=device)
                c = wp.zeros((n, n), dtype=float, device=device)

                def run(kernel=kernels[tile], dim=(n // tile, n // tile), args=(a, b, c)):
                    wp.launch_tiled(kernel, dim=dim, inputs=list(args), block_dim=BLOCK_DIM, device=device)
                    wp.synchronize()

                times = common.time_it(run, REPEATS[ctx["quick"]][n])
                got = check(c.numpy(), expected)
                extra = {"gflops": 2.0 * n ** 3 / sorted(times)[len(times) // 2] / 1e9}
                if threads_knob is not None:
                    config.cpu_threads = 1
                    try:
                        one = common.time_it(run, max(1, REPEATS[ctx["quick"]][n] // 2), warmup=0)
                    finally:
                        config.cpu_threads = threads_knob
                    extra["one_thread_median_s"] = sorted(one)[len(one) // 2]
                    extra["note"] = "one thread (wp.config.cpu_threads = 1): %.2f ms median" % (
                        extra["one_thread_median_s"] * 1e3)
                recs.append(common.result(row_name(n, tile), times, got, **extra))
        return recs

    def fft_kernel(n):
        """FFT_ROWS signals of length n per block, transformed in place in one tile."""
        @wp.kernel
        def batched_fft(x: wp.array2d(dtype=wp.vec2f), y: wp.array2d(dtype=wp.vec2f)):
            i = wp.tid()
            t = wp.tile_load(x, shape=(FFT_ROWS, n), offset=(i * FFT_ROWS, 0))
            wp.tile_fft(t)
            wp.tile_store(y, t, offset=(i * FFT_ROWS, 0))
        return batched_fft

    def bench_fft(ctx):
        recs = []
        for n in FFT_SIZES:
            x_np, expected = load_fft(n)
            pairs = np.ascontiguousarray(x_np.view(np.float32).reshape(FFT_BATCH, n, 2))
            x = wp.array(pairs, dtype=wp.vec2f, device=device)
            y = wp.zeros((FFT_BATCH, n), dtype=wp.vec2f, device=device)
            kernel = fft_kernel(n)

            def run(kernel=kernel, args=(x, y)):
                wp.launch_tiled(kernel, dim=FFT_BATCH // FFT_ROWS, inputs=list(args), block_dim=BLOCK_DIM,
                                device=device)
                wp.synchronize()

            times = common.time_it(run, FFT_REPEATS[ctx["quick"]])
            out = y.numpy().astype(np.float32)
            got = check_fft(out[..., 0] + 1j * out[..., 1], expected)
            recs.append(common.result(fft_row_name(n), times, got,
                                      gflops=5.0 * FFT_BATCH * n * np.log2(n) / sorted(times)[len(times) // 2] / 1e9))
        return recs

    return {"tile_matmul": bench_matmul, "tile_fft": bench_fft}


def bench_numpy(ctx):
    """np.matmul on the same float32 inputs (BLAS; its own threads)."""
    recs = []
    for n in SIZES:
        a, b, expected = load(n)
        out = np.empty((n, n), np.float32)
        times = common.time_it(lambda a=a, b=b, out=out: np.matmul(a, b, out=out), REPEATS[ctx["quick"]][n])
        for tile in TILES:  # the same numpy time beside each tile shape's row
            recs.append(common.result(row_name(n, tile), times, check(out, expected),
                                      note="np.matmul (BLAS, its own threads)" if tile == TILES[0] else None))
    return recs


def bench_numpy_fft(ctx):
    """np.fft.fft(x, axis=1) on the same complex64 signals (pocketfft; complex64 in, complex64 out)."""
    recs = []
    for n in FFT_SIZES:
        x, expected = load_fft(n)
        out = []
        times = common.time_it(lambda x=x: out.append(np.fft.fft(x, axis=1)), FFT_REPEATS[ctx["quick"]])
        recs.append(common.result(fft_row_name(n), times, check_fft(out[-1], expected),
                                  note="np.fft.fft(x, axis=1) (pocketfft)" if n == FFT_SIZES[0] else None))
        out.clear()
    return recs
