"""Strong and weak scaling of the slab-decomposed heat equation (warp_nb.kernels.heat_mpi) under
mpiexec, and the halo exchange's share of a step; the numbers behind docs/scaling.md.

    python benchmarks/bench_mpi_scaling.py                    # 1 and 2 ranks, 2048x2048, 3 repeats
    python benchmarks/bench_mpi_scaling.py --ranks 1,2,4 --size 1024 --json scaling.json

Each configuration runs `--repeats` times as its own mpiexec job; the table shows the run with the
lowest median time per step (the machine is shared: the other runs lost time to other processes),
and the load average before and after, so the reader can judge. One CPU thread per rank.
Needs `pip install 'warp_nb[mpi]'`."""

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path


def mpiexec() -> str:
    beside = Path(sys.executable).parent / "mpiexec"
    found = str(beside) if beside.exists() else shutil.which("mpiexec")
    if not found:
        sys.exit("no mpiexec: pip install 'warp_nb[mpi]' (mpi4py and Open MPI from PyPI)")
    return found


def run(ranks: int, rows: int, cols: int, steps: int, extra: list[str]) -> dict:
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    command = [mpiexec(), "--oversubscribe", "-n", str(ranks), sys.executable, "-m", "mpi4py", "-m",
               "warp_nb.kernels.heat_mpi", "--rows", str(rows), "--cols", str(cols), "--steps", str(steps), *extra]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        stdout, stderr = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        proc.terminate()  # mpiexec ends its ranks on SIGTERM (a SIGKILL would leave them running)
        proc.communicate()
        sys.exit(f"{' '.join(command)} ran past 600 s")
    if proc.returncode:
        sys.exit(f"{' '.join(command)} failed:\n{stderr[-3000:]}")
    return json.loads([line for line in stdout.splitlines() if line.startswith("{")][-1])


def best_of(repeats: int, *args) -> dict:
    return min((run(*args) for _ in range(repeats)), key=lambda r: r["median_ms_per_step"])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--ranks", default="1,2")
    p.add_argument("--size", type=int, default=2048, help="grid edge for strong scaling; rows per rank for weak")
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", help="write every number here")
    args = p.parse_args()
    ranks = [int(r) for r in args.ranks.split(",")]
    load_before = os.getloadavg()
    rows = {}
    for n in ranks:
        rows[n] = {
            "strong": best_of(args.repeats, n, args.size, args.size, args.steps, []),
            "strong_overlap": best_of(args.repeats, n, args.size, args.size, args.steps, ["--overlap"]),
            "weak": best_of(args.repeats, n, args.size // 2, args.size, args.steps, ["--weak"]),
        }
    load_after = os.getloadavg()
    print(f"heat equation, {args.size}x{args.size} float32, {args.steps} steps, best of {args.repeats}; "
          f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after, {os.cpu_count()} cores")
    print(f"{'ranks':>5} {'strong ms/step':>15} {'speed-up':>9} {'halo ms':>8} {'halo %':>7} "
          f"{'overlap ms/step':>16} {'weak ms/step':>13} {'efficiency':>11}")
    base = rows[ranks[0]]
    for n in ranks:
        s, o, w = rows[n]["strong"], rows[n]["strong_overlap"], rows[n]["weak"]
        print(f"{n:>5} {s['median_ms_per_step']:>15.3f} {base['strong']['median_ms_per_step'] / s['median_ms_per_step']:>9.2f} "
              f"{s['median_halo_ms_per_step']:>8.3f} {100 * s['median_halo_ms_per_step'] / s['median_ms_per_step']:>7.1f} "
              f"{o['median_ms_per_step']:>16.3f} {w['median_ms_per_step']:>13.3f} "
              f"{base['weak']['median_ms_per_step'] / w['median_ms_per_step']:>11.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"load_before": load_before, "load_after": load_after,
                                               "cores": os.cpu_count(), "runs": rows}, indent=1))


if __name__ == "__main__":
    main()
