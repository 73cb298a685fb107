"""Tiled matrix multiplication on the CPU: warp_nb's tile kernel (wp.tile_load / wp.tile_matmul),
the same product as a one-thread-per-element warp_nb kernel, and numpy's `@` (BLAS). Every result
is checked against numpy in float64. A standalone script (not a run.py workload):

    python benchmarks/bench_tiles.py [--size 256] [--repeats 5]
"""

import argparse
import time

import numpy as np

import warp_nb as wp

TM, TN, TK = wp.constant(16), wp.constant(16), wp.constant(16)


@wp.kernel
def tiled_matmul(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float), k_tiles: int):
    i, j = wp.tid()
    acc = wp.tile_zeros(shape=(TM, TN), dtype=float)
    for k in range(k_tiles):
        wp.tile_matmul(wp.tile_load(a, shape=(TM, TK), offset=(i * TM, k * TK)),
                       wp.tile_load(b, shape=(TK, TN), offset=(k * TK, j * TN)), acc)
    wp.tile_store(c, acc, offset=(i * TM, j * TN))


@wp.kernel
def element_matmul(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float), k: int):
    i, j = wp.tid()
    s = float(0.0)
    for q in range(k):
        s += a[i, q] * b[q, j]
    c[i, j] = s


def best_of(run, repeats: int) -> float:
    run()  # warm: compile and first touch
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=256, help="n for n x n matrices (a multiple of 16)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n = args.size
    rng = np.random.default_rng(0)
    a_np, b_np = rng.standard_normal((n, n)).astype(np.float32), rng.standard_normal((n, n)).astype(np.float32)
    oracle = a_np.astype(np.float64) @ b_np.astype(np.float64)
    a, b, c = wp.array(a_np), wp.array(b_np), wp.zeros((n, n), dtype=float)
    tiles = (n // TM, n // TN)

    results = {
        "warp_nb tiles": (lambda: (wp.launch_tiled(tiled_matmul, dim=tiles, inputs=[a, b, c, n // TK], block_dim=64),
                                   wp.synchronize()), lambda: c.numpy()),
        "warp_nb per element": (lambda: (wp.launch(element_matmul, dim=(n, n), inputs=[a, b, c, n]),
                                         wp.synchronize()), lambda: c.numpy()),
        "numpy @": (lambda: np.matmul(a_np, b_np), lambda: np.matmul(a_np, b_np)),
    }
    flops = 2.0 * n ** 3
    print(f"{n} x {n} float32 matrix product, best of {args.repeats}")
    for name, (run, value) in results.items():
        seconds = best_of(run, args.repeats)
        error = np.abs(value() - oracle).max() / np.abs(oracle).max()
        status = "ok" if error < 1e-5 else "WRONG"
        print(f"  {name:22s} {seconds * 1e3:9.2f} ms  {flops / seconds / 1e9:7.2f} GFLOP/s  rel. error {error:.1e} {status}")


if __name__ == "__main__":
    main()
