"""Run the warp_nb benchmark suite: every framework in its own process, side by side.

    python benchmarks/run.py [--quick] [--only saxpy,nbody] [--frameworks warp_nb,warp,numba]
                             [--json out.json] [--setup]

warp_nb and numpy run under the main python3; warp-lang, numba and taichi under the venv in
.bench/venv (made on first use, or with --setup). See benchmarks/README.md.
"""

import argparse
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_geometry  # noqa: E402
import bench_linear  # noqa: E402
import bench_sparse  # noqa: E402
import bench_tiles  # noqa: E402
import common  # noqa: E402
import coldstart  # noqa: E402

STATE = common.BENCH_DIR
VENV = os.path.join(STATE, "venv")
VENV_PY = os.path.join(VENV, "bin", "python")
VENV_PACKAGES = ["warp-lang==1.19.0", "numba", "taichi", "numpy"]
MAIN_PY = os.environ.get("BENCH_MAIN_PYTHON") or shutil.which("python3") or sys.executable

FRAMEWORKS = ["warp_nb", "warp_nb_checked", "warp", "numba_serial", "numba_parallel", "taichi", "numpy"]
ALIASES = {"numba": ["numba_serial", "numba_parallel"], "warp-lang": ["warp"], "warp_lang": ["warp"]}
# framework -> (interpreter, script args, extra environment)
WORKERS = {
    "warp_nb": ("main", ["bench_warp_api.py"], {"BENCH_WP_MODULE": "warp_nb", "WARP_NB_BOUNDS_CHECK": "0"}),
    # the default: bounds-checked access (what every process runs unless told otherwise)
    "warp_nb_checked": ("main", ["bench_warp_api.py"], {"BENCH_WP_MODULE": "warp_nb", "WARP_NB_BOUNDS_CHECK": "1"}),
    "warp": ("venv", ["bench_warp_api.py"], {"BENCH_WP_MODULE": "warp"}),
    "numba_serial": ("venv", ["bench_numba.py", "--variant", "serial"], {}),
    "numba_parallel": ("venv", ["bench_numba.py", "--variant", "parallel"], {}),
    "taichi": ("venv", ["bench_taichi.py"], {}),
    "numpy": ("main", ["bench_numpy.py"], {}),
}
TAPE_FRAMEWORKS = ("warp_nb", "warp_nb_checked", "warp", "numba_serial", "numba_parallel", "numpy")
TILE_FRAMEWORKS = ("warp_nb", "warp_nb_checked", "warp", "numpy")  # the others have no tile workload
SPARSE_FRAMEWORKS = ("warp_nb", "warp_nb_checked", "warp", "numpy")  # numpy's worker times scipy.sparse
# rows of the report: (result name, workload that produces it, title)
ROWS = [("launch", "launch", "per launch"), ("saxpy", "saxpy", None), ("nbody", "nbody", None),
        ("mandelbrot", "mandelbrot", None), ("atomic_sum", "atomic_sum", None), ("stencil", "stencil", None),
        ("tape_fwd", "tape", "Tape forward: loss = sum(sin(x)*x), 1M float32, atomic_add"),
        ("tape_bwd", "tape", "Tape backward: tape.backward(loss) -> x.grad, 1M float32"),
        ("cold_compile", "coldstart", "cold compile: 5-kernel module, empty cache, fresh process"),
        ("warm_start", "coldstart", "warm start: 5-kernel module, cache hit, fresh process")]
ROWS += bench_geometry.ROWS  # the geometry group (warp and warp_nb)
ROWS += bench_tiles.ROWS  # the tile group (warp, warp_nb and numpy)
ROWS += bench_sparse.ROWS  # the sparse group (warp, warp_nb and scipy in the numpy worker)
ROWS += bench_linear.ROWS  # ... and its solver workload (warp.optim.linear.cg beside scipy's cg)
WORKLOAD_ALIASES = {"geometry": list(common.GEOMETRY), "tiles": list(common.TILES), "sparse": list(common.SPARSE)}


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


# ------------------------------------------------------------------ environment
def setup_venv(force=False):
    """Make .bench/venv with warp-lang, numba, taichi and numpy. Returns an error string or None."""
    if os.path.exists(VENV_PY) and not force:
        return None
    log("setting up %s (%s) ..." % (VENV, " ".join(VENV_PACKAGES)))
    os.makedirs(STATE, exist_ok=True)
    logf = os.path.join(STATE, "setup.log")
    with open(logf, "w") as f:
        steps = [] if os.path.exists(VENV_PY) else [[MAIN_PY, "-m", "venv", VENV]]
        steps.append([VENV_PY, "-m", "pip", "install", "-q"] + VENV_PACKAGES)
        for cmd in steps:
            if subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode != 0:
                return "venv setup failed (see %s)" % logf
    return None


def machine_info():
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), "?")
    except OSError:
        pass
    try:
        nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    except OSError:
        nproc = str(os.cpu_count())
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {"nproc": nproc, "cpu": cpu, "platform": platform.platform(), "python": platform.python_version(),
            "main_python": MAIN_PY, "venv_python": VENV_PY, "loadavg_at_start": load,
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}


# ------------------------------------------------------------------ running the workers
def _spawn(cmd, env, logf, timeout):
    """One worker process: returns (meta, results by name, done, why-not-done)."""
    try:
        p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=logf, timeout=timeout)
        out, why = p.stdout, "crashed (rc=%s)" % p.returncode
    except subprocess.TimeoutExpired as e:
        out, why = e.stdout or b"", "timed out (budget left: %ds)" % timeout
    meta, results, done = {}, {}, False
    for line in out.decode(errors="replace").splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if obj.get("type") == "meta":
            meta = obj
        elif obj.get("type") == "result":
            results[obj["workload"]] = obj
        elif obj.get("type") == "done":
            done = True
    return meta, results, done, why


def run_worker(fw, args, workloads, venv_error):
    """Runs the framework's worker; if it dies (crash, timeout) on a workload, that workload is
    reported as such and a new worker goes on with the ones after it, within one time budget."""
    kind, script, extra = WORKERS[fw]
    python = MAIN_PY if kind == "main" else VENV_PY
    if kind == "venv" and (venv_error or not os.path.exists(VENV_PY)):
        meta, results = {"error": venv_error or "venv missing (run with --setup)"}, {}
        workloads = []
    else:
        meta, results = {}, {}
    env = dict(os.environ, **extra)
    env["BENCH_KERNEL_CACHE"] = os.path.join(STATE, "kcache", fw)
    if fw.startswith("warp_nb"):
        env["WARP_NB_CACHE_DIR"] = env["BENCH_KERNEL_CACHE"]
    os.makedirs(os.path.join(STATE, "logs"), exist_ok=True)
    logpath = os.path.join(STATE, "logs", fw + ".log")
    t0 = time.time()
    remaining = list(workloads)
    with open(logpath, "w") as logf:
        while remaining:
            budget = int(args.timeout - (time.time() - t0))
            if budget < 5:
                for w in remaining:
                    results[w] = {"workload": w, "status": "error", "error": "timed out (time budget spent)"}
                break
            cmd = [python, os.path.join(HERE, script[0])] + script[1:] + ["--only", ",".join(remaining)]
            cmd += ["--quick"] if args.quick else []
            m, res, done, why = _spawn(cmd, env, logf, budget)
            meta = meta or m
            results.update(res)
            if done or "error" in m:
                break
            log("  %-15s died: %s (log: %s)" % (fw, why, logpath))
            got = {"tape" if r.startswith("tape") else "hash_grid" if r.startswith("hash_") else
                   bench_tiles.workload_of(r) or r for r in results}
            idx = next((i for i, w in enumerate(remaining) if w not in got), len(remaining))
            if idx < len(remaining):
                results[remaining[idx]] = {"workload": remaining[idx], "status": "error", "error": why}
            remaining = remaining[idx + 1:]
    log("  %-15s %6.1f s" % (fw, time.time() - t0))
    if not meta:
        meta = {"error": "worker produced no output (log: %s)" % logpath}
    if "error" in meta:  # the framework did not start: say why in every table it belongs to
        for name, wl, _ in ROWS:
            if wl in workloads and name not in results and (wl != "tape" or fw in TAPE_FRAMEWORKS) and (
                    wl not in common.TILES or fw in TILE_FRAMEWORKS) and (
                    wl not in common.SPARSE or fw in SPARSE_FRAMEWORKS):
                results[name] = {"workload": name, "status": "error", "error": meta["error"]}
    for wl in common.TILES:  # one record for every size: an error, "not yet" or "n/a"
        if wl in results:
            rec = results.pop(wl)
            for name in bench_tiles.NAMES_BY_WORKLOAD[wl]:
                results.setdefault(name, dict(rec, workload=name))
    if "tape" in results:  # one record for both rows: an error, "not yet" or "n/a"
        rec = results.pop("tape")
        results.setdefault("tape_fwd", dict(rec, workload="tape_fwd"))
        results.setdefault("tape_bwd", dict(rec, workload="tape_bwd"))
    return meta, results


def run_coldstart(fw, args, venv_error):
    kind = WORKERS[fw][0]
    if kind == "venv" and (venv_error or not os.path.exists(VENV_PY)):
        err = venv_error or "venv missing"
        return {n: {"workload": n, "status": "error", "error": err} for n in ("cold_compile", "warm_start")}
    python = MAIN_PY if kind == "main" else VENV_PY
    reps = 1 if args.quick else 5
    t0 = time.time()
    recs = coldstart.measure(fw, python, os.path.join(STATE, "coldstart", fw), reps, reps,
                             timeout=45 if args.quick else 120)
    log("  %-15s %6.1f s (coldstart)" % (fw, time.time() - t0))
    return {r["workload"]: r for r in recs}


# ------------------------------------------------------------------ report
def fmt_time(s):
    if s is None:
        return "-"
    if s < 1e-3:
        return "%.2f us" % (s * 1e6)
    if s < 1.0:
        return "%.2f ms" % (s * 1e3)
    return "%.3f s" % s


def valid(rec):
    return bool(rec) and rec.get("status") == "ok" and str(rec.get("check", "ok")).startswith("ok")


def reference_times(results, name):
    warp = results.get("warp", {}).get(name)
    nb = [results.get(f, {}).get(name) for f in ("numba_serial", "numba_parallel")]
    nb = [r["median_s"] for r in nb if valid(r)]
    return (warp["median_s"] if valid(warp) else None), (min(nb) if nb else None)


def parallel_time(results, name):
    """numba-parallel's time (issue 21's reference for throughput workloads), or None."""
    rec = results.get("numba_parallel", {}).get(name)
    return rec["median_s"] if valid(rec) else None


def ratio(a, b):
    return a / b if a and b else None


def report(frameworks, metas, results, rows, info, quick):
    lines = []
    lines.append("warp_nb benchmarks%s  --  %s, nproc=%s, %s" % (" (--quick)" if quick else "", info["cpu"],
                                                                  info["nproc"], info["date"]))
    for fw in frameworks:
        m = metas.get(fw, {})
        desc = "error: %s" % m["error"] if "error" in m else "version %s, threads=%s%s" % (
            m.get("version", "?"), m.get("threads", "?"), ", " + m["module_file"] if m.get("module_file") else "")
        lines.append("  %-15s %s" % (fw, desc))
    lines.append("Times are medians of the repeats (min beside); x warp = time / warp-lang's time, x numba ="
                 " time / the faster numba's time, x nb-par = time / numba-parallel's time (below 1 = faster).")
    notes = []
    for name, wl, title in rows:
        title = title if name != "launch" else common.WORKLOADS["launch"]
        lines.append("")
        lines.append("== %s: %s" % (name, title or common.WORKLOADS[wl]))
        lines.append("  %-15s %11s %11s %8s %8s %8s  %s" % ("framework", "median", "min", "x warp", "x numba",
                                                          "x nb-par", "check"))
        ref_w, ref_n = reference_times(results, name)
        ref_p = parallel_time(results, name)
        for fw in frameworks:
            rec = results.get(fw, {}).get(name)
            if rec is None:
                continue
            st = rec.get("status")
            if st != "ok":
                label = "not yet" if st == "not yet" else "n/a" if st == "n/a" else "error"
                msg = label + (": " + rec["error"] if rec.get("error") and st != "n/a" else "")
                if st == "n/a" and fw not in ("warp", "warp_nb"):
                    continue
                lines.append("  %-15s %s" % (fw, msg[:110]))
                continue
            med = rec["median_s"]
            rw, rn, rp = ratio(med, ref_w), ratio(med, ref_n), ratio(med, ref_p)
            check = rec.get("check", "ok")
            lines.append("  %-15s %11s %11s %8s %8s %8s  %s" % (
                fw, fmt_time(med), fmt_time(rec["min_s"]), "%.2f" % rw if rw else "-", "%.2f" % rn if rn else "-",
                "%.2f" % rp if rp else "-", check if check.startswith("ok") else "WRONG" + check[5:]))
            if rec.get("note"):
                notes.append("%s/%s: %s" % (fw, name, rec["note"]))
            if "init_s" in rec and not fw.startswith("numba"):
                notes.append("%s/%s: init (wp.init / ti.init, not timed) %s" % (fw, name, fmt_time(rec["init_s"])))
    if notes:
        lines.append("")
        lines.append("Notes:")
        lines.extend("  " + n for n in notes)
    lines.append("")
    lines.append("Summary: geometric mean over the throughput workloads (saxpy, nbody, mandelbrot, atomic_sum,"
                 " stencil) of time / reference time")
    summary = {}
    for fw in frameworks:
        rw, rn = [], []
        for name in common.THROUGHPUT:
            rec = results.get(fw, {}).get(name)
            if not valid(rec):
                continue
            ref_w, ref_n = reference_times(results, name)
            if ref_w:
                rw.append(rec["median_s"] / ref_w)
            if ref_n:
                rn.append(rec["median_s"] / ref_n)
        gw = math.exp(sum(map(math.log, rw)) / len(rw)) if rw else None
        gn = math.exp(sum(map(math.log, rn)) / len(rn)) if rn else None
        summary[fw] = {"geomean_vs_warp": gw, "n_vs_warp": len(rw), "geomean_vs_numba": gn, "n_vs_numba": len(rn)}
        lines.append("  %-15s x warp %s (%d/5 workloads)   x best numba %s (%d/5)" % (
            fw, "%.2f" % gw if gw else "-", len(rw), "%.2f" % gn if gn else "-", len(rn)))
    geo = [n for n, wl, _ in bench_geometry.ROWS if any(r[0] == n for r in rows)]
    if geo:
        lines.append("Geometry group (%s): time / warp-lang's time, geometric mean" % ", ".join(geo))
        for fw in frameworks:
            rw = [results[fw][n]["median_s"] / reference_times(results, n)[0] for n in geo
                  if valid(results.get(fw, {}).get(n)) and reference_times(results, n)[0]]
            if rw and fw != "warp":
                g = math.exp(sum(map(math.log, rw)) / len(rw))
                summary.setdefault(fw, {})["geometry_geomean_vs_warp"] = g
                lines.append("  %-15s x warp %.2f (%d/%d workloads; below 1 = faster)" % (fw, g, len(rw), len(geo)))
    for wl, key in (("tile_matmul", "tiles_geomean_vs_warp"), ("tile_fft", "tile_fft_geomean_vs_warp")):
        tiles = [n for n in bench_tiles.NAMES_BY_WORKLOAD[wl] if any(r[0] == n for r in rows)]
        if not tiles:
            continue
        lines.append("Tile group, %s (%s): time / warp-lang's time, geometric mean" % (wl, ", ".join(tiles)))
        for fw in frameworks:
            rw = [results[fw][n]["median_s"] / reference_times(results, n)[0] for n in tiles
                  if valid(results.get(fw, {}).get(n)) and reference_times(results, n)[0]]
            if rw and fw != "warp":
                g = math.exp(sum(map(math.log, rw)) / len(rw))
                summary.setdefault(fw, {})[key] = g
                lines.append("  %-15s x warp %.2f (%d/%d sizes; below 1 = faster)" % (fw, g, len(rw), len(tiles)))
    return "\n".join(lines), summary


# ------------------------------------------------------------------ main
def parse_list(text, known, aliases=None):
    out = []
    for item in [t.strip() for t in text.split(",") if t.strip()]:
        names = (aliases or {}).get(item, [item])
        for n in names:
            if n not in known:
                sys.exit("unknown name %r; choose from %s" % (n, ", ".join(known)))
            if n not in out:
                out.append(n)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer repeats (about 3 minutes)")
    ap.add_argument("--only", default="", help="workloads: " + ",".join(common.WORKLOADS) + " (geometry = "
                    + ",".join(common.GEOMETRY) + ", tiles = " + ",".join(common.TILES) + ", sparse = "
                    + ",".join(common.SPARSE) + ")")
    ap.add_argument("--frameworks", default="", help="frameworks: " + ",".join(FRAMEWORKS) + " (numba = both)")
    ap.add_argument("--json", help="also write all results to this JSON file")
    ap.add_argument("--setup", action="store_true", help="create/update the venv in .bench/venv and exit")
    ap.add_argument("--timeout", type=int, default=0, help="seconds for one framework's steady-state workloads (default 300, quick 90)")
    args = ap.parse_args()
    args.timeout = args.timeout or (90 if args.quick else 300)
    if args.setup:
        err = setup_venv(force=True)
        log(err or "venv ready: %s" % VENV_PY)
        sys.exit(1 if err else 0)

    workloads = parse_list(args.only, list(common.WORKLOADS), WORKLOAD_ALIASES) or list(common.WORKLOADS)
    frameworks = sorted(parse_list(args.frameworks, FRAMEWORKS, ALIASES) or FRAMEWORKS, key=FRAMEWORKS.index)
    t_start = time.time()
    venv_error = None
    if any(WORKERS[f][0] == "venv" for f in frameworks):
        venv_error = setup_venv()
    info = machine_info()
    log("machine: %s, nproc=%s" % (info["cpu"], info["nproc"]))
    for w in workloads:  # inputs and numpy oracles, computed once into .bench/oracle
        if w in ("saxpy", "nbody", "mandelbrot", "atomic_sum", "stencil", "tape"):
            common.load_case(w)
    steady = [w for w in workloads if w != "coldstart"]
    metas, results = {}, {}
    for fw in frameworks:
        metas[fw], results[fw] = ({}, {}) if not steady else run_worker(fw, args, steady, venv_error)
        if "coldstart" in workloads and fw not in ("numpy", "warp_nb_checked"):
            results[fw].update(run_coldstart(fw, args, venv_error))
    rows = [r for r in ROWS if r[1] in workloads]
    text, summary = report(frameworks, metas, results, rows, info, args.quick)
    print(text)
    log("total %.0f s" % (time.time() - t_start))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": info, "quick": args.quick, "workloads": workloads, "frameworks": frameworks,
                       "meta": metas, "results": results, "summary": summary}, f, indent=1)


if __name__ == "__main__":
    main()
