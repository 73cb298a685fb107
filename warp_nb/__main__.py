"""`python -m warp_nb demo`: compile a small particle simulation, run it on the default device,
and print what it computed with the compile and launch times. `python -m warp_nb cache` shows
or clears the kernel cache."""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def demo(steps: int = 200, count: int = 100_000) -> int:
    import warp_nb as wp

    @wp.kernel
    def integrate(pos: wp.array(dtype=wp.vec3), vel: wp.array(dtype=wp.vec3), gravity: wp.vec3, dt: float,
                  restitution: float):
        i = wp.tid()
        v = vel[i] + gravity * dt
        p = pos[i] + v * dt
        if p[1] < 0.0:  # bounce on the floor y = 0, losing some energy
            p[1] = -p[1]
            v[1] = -v[1] * restitution
        pos[i] = p
        vel[i] = v

    @wp.kernel
    def energy(vel: wp.array(dtype=wp.vec3), pos: wp.array(dtype=wp.vec3), g: float, total: wp.array(dtype=float)):
        i = wp.tid()
        wp.atomic_add(total, 0, 0.5 * wp.length_sq(vel[i]) + g * pos[i][1])

    device = wp.get_device()
    rng = np.random.default_rng(42)
    pos = wp.array(rng.uniform([-1, 1, -1], [1, 3, 1], size=(count, 3)), dtype=wp.vec3, device=device)
    vel = wp.array(rng.normal(0.0, 0.5, size=(count, 3)), dtype=wp.vec3, device=device)
    total = wp.zeros(1, dtype=float, device=device)
    print(f"warp_nb {wp.__version__} demo: {count:,} particles bouncing under gravity, {steps} steps on "
          f"device '{device}' ({device.name})")

    from warp_nb.compiler import pipeline
    from warp_nb.toolchain import cache
    log_start = len(pipeline.compile_log)
    t0 = time.perf_counter()
    wp.load_module(device=device)
    compile_s = time.perf_counter() - t0
    # the demo's own kernels, counted the same way on every run (the runtime library is not a kernel)
    fresh = [now for _key, _seconds, now in pipeline.compile_log[log_start:]]
    print(f"compile: {compile_s * 1000:.0f} ms ({sum(fresh)} kernels compiled, {len(fresh) - sum(fresh)} from the "
          f"cache at {cache.cache_dir()})")

    g = 9.81
    wp.launch(energy, dim=count, inputs=[vel, pos, g, total], device=device)
    e0 = float(total.numpy()[0])
    t0 = time.perf_counter()
    for _ in range(steps):
        wp.launch(integrate, dim=count, inputs=[pos, vel, wp.vec3(0.0, -g, 0.0), 1.0 / 120.0, 0.8], device=device)
    wp.synchronize()
    run_s = time.perf_counter() - t0
    total.zero_()
    wp.launch(energy, dim=count, inputs=[vel, pos, g, total], device=device)
    e1 = float(total.numpy()[0])
    heights = pos.numpy()[:, 1]
    print(f"run: {steps} launches in {run_s * 1000:.1f} ms ({run_s / steps * 1e6:.0f} us per step, "
          f"{count * steps / run_s / 1e6:.0f} M particle-steps/s)")
    print(f"energy: {e0:,.1f} -> {e1:,.1f} (bounces lose energy); height: min {heights.min():.3f}, "
          f"mean {heights.mean():.3f}, max {heights.max():.3f}")
    ok = heights.min() >= 0.0 and e1 < e0
    print("check: all particles above the floor and energy decreased:", "ok" if ok else "FAILED")
    return 0 if ok else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m warp_nb", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    d = sub.add_parser("demo", help="compile and run a small simulation on the default device")
    d.add_argument("--steps", type=int, default=200)
    d.add_argument("--count", type=int, default=100_000)
    c = sub.add_parser("cache", help="show the kernel cache (--clear empties it)")
    c.add_argument("--clear", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "demo":
        return demo(args.steps, args.count)
    if args.command == "cache":
        from warp_nb.toolchain import cache
        if args.clear:
            print(f"removed {cache.clear()} compiled kernels from {cache.cache_dir()}")
        else:
            entries = cache.entries()
            print(f"{len(entries)} compiled kernels in {cache.cache_dir()}")
            for e in entries:
                print(f"  {e['name']:<40} {e['bytes'] / 1024:8.1f} KiB")
        return 0
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
