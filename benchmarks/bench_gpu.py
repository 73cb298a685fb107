"""GPU benchmarks, run on a machine with an NVIDIA GPU (tests/gpu/run_gpu_checks.sh calls this):
saxpy bandwidth against the GPU's memory bandwidth, per-launch overhead, all-pairs n-body, and a
tiled matmul (16, 32 and 64 square tiles split between a block's threads in shared memory, static
for the first two, dynamic for 64 x 64),
for warp_nb (checked, the default, and release) and warp-lang on the same GPU, each in its own process. Prints a table and JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

CHILD = r'''
import json, os, sys, time
import numpy as np
name, _, mode = os.environ["FRAMEWORK"].partition(":")
wp = __import__(name)
if mode == "release":
    wp.config.bounds_check = False
dev = "cuda:0"

@wp.kernel
def saxpy(a: float, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = a * x[i] + y[i]

@wp.kernel
def empty(a: wp.array(dtype=float)):
    pass

@wp.kernel
def nbody(pos: wp.array(dtype=wp.vec3), acc: wp.array(dtype=wp.vec3), n: int):
    i = wp.tid()
    p = pos[i]
    a = wp.vec3(0.0, 0.0, 0.0)
    for j in range(n):
        d = pos[j] - p
        r2 = wp.dot(d, d) + 0.01
        a = a + d * (1.0 / (r2 * wp.sqrt(r2)))
    acc[i] = a

def timed(fn, reps):
    fn(); wp.synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    wp.synchronize()
    return (time.perf_counter() - t0) / reps

n = 1 << 27
x, y = wp.ones(n, device=dev), wp.ones(n, device=dev)
t = timed(lambda: wp.launch(saxpy, dim=n, inputs=[2.0, x, y], device=dev), 20)
out = {"saxpy_s": t, "saxpy_GBps": 3 * 4 * n / t / 1e9}
small = wp.zeros(1, device=dev)
out["launch_us"] = timed(lambda: wp.launch(empty, dim=1, inputs=[small], device=dev), 10000) * 1e6
m = 1 << 15
pos = wp.array(np.random.default_rng(0).random((m, 3)), dtype=wp.vec3, device=dev)
acc = wp.zeros(m, dtype=wp.vec3, device=dev)
out["nbody_s"] = timed(lambda: wp.launch(nbody, dim=m, inputs=[pos, acc, m], device=dev), 5)

# a tiled float32 matmul (wp.launch_tiled; the same kernel in warp_nb and warp-lang): the block's
# uniform tiles are in shared memory, split between its threads (native/tiles/tile_coop.h); with
# T = 16 and 32 (3 tiles, 12 KiB) in static shared memory, with T = 64 (48 KiB) past warp_nb's static
# budget in dynamic shared memory (native/tiles/block.h)
def tiled_matmul(T):
    @wp.kernel
    def mm(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float)):
        i, j = wp.tid()
        acc = wp.tile_zeros(shape=(T, T), dtype=float)
        for k in range(a.shape[1] // T):
            wp.tile_matmul(wp.tile_load(a, shape=(T, T), offset=(i * T, k * T)),
                           wp.tile_load(b, shape=(T, T), offset=(k * T, j * T)), acc)
        wp.tile_store(c, acc, offset=(i * T, j * T))
    return mm

rng = np.random.default_rng(1)
for T in (16, 32, 64):
    kern = tiled_matmul(T)
    for n in (512, 2048):
        A, B = rng.standard_normal((n, n)).astype(np.float32), rng.standard_normal((n, n)).astype(np.float32)
        a, b, c = wp.array(A, device=dev), wp.array(B, device=dev), wp.zeros((n, n), dtype=float, device=dev)
        run = lambda: wp.launch_tiled(kern, dim=(n // T, n // T), inputs=[a, b, c], block_dim=64, device=dev)
        try:
            free = wp.get_device(dev).free_memory
            t = timed(run, 5)
            # what the first launches took of the device's memory: the driver reserves a kernel's local
            # memory (warp_nb: a thread's own tile frame, used when lanes keep tiles apart) for every
            # thread the device can hold
            out[f"matmul{n}_t{T}_took_mib"] = (free - wp.get_device(dev).free_memory) / 2**20
            err = float(np.abs(c.numpy() - A.astype(np.float64) @ B).max())
            out[f"matmul{n}_t{T}_ms"], out[f"matmul{n}_t{T}_maxerr"] = t * 1e3, err
        except Exception as e:  # one configuration failing keeps the others' numbers
            out[f"matmul{n}_t{T}_error"] = repr(e)[:200]
print(json.dumps(out))
'''


def run(framework: str) -> dict:
    env = dict(os.environ, FRAMEWORK=framework)
    with tempfile.TemporaryDirectory() as tmp:  # a file: kernels need their source (not `python -c`)
        script = os.path.join(tmp, "bench_gpu_child.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(CHILD)
        p = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True, timeout=600)
    if p.returncode:
        sys.stderr.write(f"--- {framework} failed (rc {p.returncode}):\n{p.stderr[-3000:]}\n")
        return {"error": p.stderr.strip().splitlines()[-1][:200] if p.stderr else f"rc={p.returncode}"}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> int:
    peak = float(os.environ.get("GPU_PEAK_GBPS", "4800"))  # H200: about 4.8 TB/s
    # warp_nb as a notebook runs it (bounds-checked, the default) and in release; warp-lang when installed
    results = {}
    for fw in ("warp_nb", "warp_nb:release", "warp"):
        results[fw] = run(fw)
        print(f"{fw}: {json.dumps(results[fw])}", flush=True)  # (what a time limit cutting the run short keeps)
    print(f"{'':16} {'saxpy GB/s':>12} {'% of peak':>10} {'launch us':>10} {'n-body 32k ms':>14}")
    for fw, r in results.items():
        if "error" in r:
            print(f"{fw:16} error: {r['error']}")
            continue
        print(f"{fw:16} {r['saxpy_GBps']:12.0f} {100 * r['saxpy_GBps'] / peak:9.0f}% {r['launch_us']:10.2f} "
              f"{r['nbody_s'] * 1e3:14.2f}")
    print(f"{'tiled matmul ms':16} " + " ".join(f"{k[6:-3]:>14}" for k in sorted(results.get("warp_nb", {}))
                                                 if k.startswith("matmul") and k.endswith("_ms")))
    for fw, r in results.items():
        keys = sorted(k for k in r if k.startswith("matmul") and k.endswith("_ms"))
        if keys:
            print(f"{fw:16} " + " ".join(f"{r[k]:14.3f}" for k in keys)
                  + "  (max |error|: " + ", ".join(f"{r[k[:-3] + '_maxerr']:.1e}" for k in keys) + ")")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
