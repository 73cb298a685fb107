"""Workload 8: cold compile and warm start of a generated module of 5 kernels.

Each measurement is a fresh process (`python coldstart.py child ...`). The child imports the
framework and initialises it (not timed, but reported as init_s), makes its inputs, then times
from before importing the generated module to after all 5 kernels have launched once and
finished. A cold run gets a new empty cache directory; a warm run reuses the cache the last cold
run filled. The cache directory is set with
  warp / warp_nb: wp.config.kernel_cache_dir = DIR before wp.init() (warp_nb: also WARP_NB_CACHE_DIR)
  numba:          @njit(cache=True) and NUMBA_CACHE_DIR=DIR
  taichi:         ti.init(offline_cache=True, offline_cache_file_path=DIR)
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

N = 4096
A = 1.5

WARP_SRC = '''import {module} as wp


@wp.kernel
def k_scale(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i]


@wp.kernel
def k_poly(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    y[i] = v * v * v - 2.0 * v + 1.0


@wp.kernel
def k_trig(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    for k in range(4):
        s = s + wp.sin(x[i] * float(k))
    y[i] = s


@wp.kernel
def k_branch(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    if x[i] > 0.5:
        y[i] = wp.sqrt(x[i])
    else:
        y[i] = wp.exp(x[i])


@wp.kernel
def k_dot(x: wp.array(dtype=float), y: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(total, 0, x[i] * y[i])
'''

NUMBA_SRC = '''import math
import numpy as np
from numba import njit, prange

jit = njit(cache=True, parallel={parallel})
loop = {loop}


@jit
def k_scale(x, y, a):
    for i in loop(x.shape[0]):
        y[i] = a * x[i]


@jit
def k_poly(x, y):
    for i in loop(x.shape[0]):
        v = x[i]
        y[i] = v * v * v - np.float32(2.0) * v + np.float32(1.0)


@jit
def k_trig(x, y):
    for i in loop(x.shape[0]):
        s = np.float32(0.0)
        for k in range(4):
            s += np.sin(x[i] * np.float32(k))
        y[i] = s


@jit
def k_branch(x, y):
    for i in loop(x.shape[0]):
        if x[i] > 0.5:
            y[i] = np.sqrt(x[i])
        else:
            y[i] = np.exp(x[i])


@jit
def k_dot(x, y, total):
    s = np.float32(0.0)
    for i in loop(x.shape[0]):
        s += x[i] * y[i]
    total[0] += s
'''

TAICHI_SRC = '''import taichi as ti

arr = ti.types.ndarray(dtype=ti.f32, ndim=1)


@ti.kernel
def k_scale(x: arr, y: arr, a: ti.f32):
    for i in x:
        y[i] = a * x[i]


@ti.kernel
def k_poly(x: arr, y: arr):
    for i in x:
        v = x[i]
        y[i] = v * v * v - 2.0 * v + 1.0


@ti.kernel
def k_trig(x: arr, y: arr):
    for i in x:
        s = 0.0
        for k in range(4):
            s += ti.sin(x[i] * ti.cast(k, ti.f32))
        y[i] = s


@ti.kernel
def k_branch(x: arr, y: arr):
    for i in x:
        if x[i] > 0.5:
            y[i] = ti.sqrt(x[i])
        else:
            y[i] = ti.exp(x[i])


@ti.kernel
def k_dot(x: arr, y: arr, total: arr):
    for i in x:
        total[0] += x[i] * y[i]
'''

FRAMEWORKS = ("warp_nb", "warp", "numba_serial", "numba_parallel", "taichi")


def source(framework):
    if framework in ("warp", "warp_nb"):
        return WARP_SRC.format(module=framework)
    if framework.startswith("numba"):
        par = framework == "numba_parallel"
        return NUMBA_SRC.format(parallel=par, loop="prange" if par else "range")
    return TAICHI_SRC


def expected(x):
    f = np.float32
    y1 = f(A) * x
    return [y1, x * x * x - f(2) * x + f(1), sum(np.sin(x * f(k)) for k in range(4)),
            np.where(x > 0.5, np.sqrt(x), np.exp(x)), np.array([np.dot(x.astype(np.float64), y1)])]


# ------------------------------------------------------------------ child (one fresh process)
def child(framework, module_file, cache):
    x = np.random.default_rng(8).random(N, dtype=np.float32)
    t_init = time.perf_counter()
    if framework in ("warp", "warp_nb"):
        try:
            wp = importlib.import_module(framework)
        except ImportError:
            if framework == "warp":
                raise
            sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # repo checkout
            wp = importlib.import_module(framework)
        if not hasattr(wp, "kernel"):
            raise ImportError("%s has no wp.kernel yet" % framework)
        if hasattr(wp, "config"):  # tolerated missing in warp_nb: WARP_NB_CACHE_DIR is set as well
            wp.config.kernel_cache_dir = cache
            wp.config.quiet = True
        t_init = time.perf_counter()
        if hasattr(wp, "init"):
            wp.init()
        xs = wp.array(x, dtype=float, device="cpu")
        ys = [wp.zeros(N, dtype=float, device="cpu") for _ in range(4)]
        total = wp.zeros(1, dtype=float, device="cpu")
    elif framework == "taichi":
        import taichi as ti
        t_init = time.perf_counter()
        ti.init(arch=ti.cpu, offline_cache=True, offline_cache_file_path=cache, fast_math=False, log_level=ti.WARN)
        xs, ys, total = x, [np.zeros_like(x) for _ in range(4)], np.zeros(1, dtype=np.float32)
    else:
        import numba  # noqa: F401  (NUMBA_CACHE_DIR is in the environment)
        t_init = time.perf_counter()
        xs, ys, total = x, [np.zeros_like(x) for _ in range(4)], np.zeros(1, dtype=np.float32)
    init_s = time.perf_counter() - t_init

    t0 = time.perf_counter()
    spec = importlib.util.spec_from_file_location(os.path.basename(module_file)[:-3], module_file)
    m = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = m
    spec.loader.exec_module(m)
    if framework in ("warp", "warp_nb"):
        wp.launch(m.k_scale, dim=N, inputs=[xs, ys[0], A], device="cpu")
        wp.launch(m.k_poly, dim=N, inputs=[xs, ys[1]], device="cpu")
        wp.launch(m.k_trig, dim=N, inputs=[xs, ys[2]], device="cpu")
        wp.launch(m.k_branch, dim=N, inputs=[xs, ys[3]], device="cpu")
        wp.launch(m.k_dot, dim=N, inputs=[xs, ys[0], total], device="cpu")
        wp.synchronize()
    else:
        m.k_scale(xs, ys[0], np.float32(A))
        m.k_poly(xs, ys[1])
        m.k_trig(xs, ys[2])
        m.k_branch(xs, ys[3])
        m.k_dot(xs, ys[0], total)
        if framework == "taichi":
            ti.sync()
    seconds = time.perf_counter() - t0

    got = [a.numpy() if hasattr(a, "numpy") and not isinstance(a, np.ndarray) else a for a in ys + [total]]
    bad = [i + 1 for i, (g, e) in enumerate(zip(got, expected(x))) if not np.allclose(g, e, rtol=1e-4, atol=1e-5)]
    check = "ok" if not bad else "WRONG: kernel(s) %s" % bad
    return {"seconds": seconds, "init_s": init_s, "check": check}


# ------------------------------------------------------------------ driver (called by run.py)
def _run_child(python, framework, module_file, cache, env, timeout):
    env = dict(env, PYTHONDONTWRITEBYTECODE="1")
    if framework.startswith("numba"):
        env["NUMBA_CACHE_DIR"] = cache
    if framework == "warp_nb":
        env["WARP_NB_CACHE_DIR"] = cache
    cmd = [python, os.path.abspath(__file__), "child", framework, module_file, cache]
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": "timeout after %ds" % timeout}
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    tail = [s for s in p.stderr.strip().splitlines() if s.strip()]
    return {"error": "rc=%d: %s" % (p.returncode, tail[-1][:160] if tail else "no output")}


def _compile_bytecode(python, framework, env):
    """Bytecode for the framework's own package, as `pip install` of a wheel writes it. The children
    run with PYTHONDONTWRITEBYTECODE (the generated module must be cold), so a package installed
    editable, or in a read-only place, would otherwise be compiled from source in every process:
    an import cost no installed user pays (warp-lang's venv has its bytecode from pip)."""
    package = {"warp_nb": "warp_nb", "warp": "warp"}.get(framework)
    if package is None:
        return
    code = ("import compileall, os, %s as m; compileall.compile_dir(os.path.dirname(m.__file__), quiet=2)" % package)
    clean = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([python, "-c", code], env=clean, capture_output=True, timeout=300)


def measure(framework, python, workdir, cold_reps, warm_reps, env=None, timeout=180):
    """Returns [cold_compile record, warm_start record] in the worker result format."""
    env = dict(os.environ if env is None else env)
    _compile_bytecode(python, framework, env)
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    module_file = os.path.join(workdir, "bench_module5_%s.py" % framework)
    with open(module_file, "w") as f:
        f.write(source(framework))
    out = []
    cache = None
    for kind, reps in (("cold_compile", cold_reps), ("warm_start", warm_reps)):
        times, inits, checks, err = [], [], [], None
        for r in range(reps):
            if kind == "cold_compile":
                cache = os.path.join(workdir, "cache%d" % r)
                os.makedirs(cache)
            res = _run_child(python, framework, module_file, cache, env, timeout)
            if "error" in res:
                err = res["error"]
                break
            times.append(res["seconds"])
            inits.append(res["init_s"])
            checks.append(res["check"])
        if err is not None or not times:
            out.append({"workload": kind, "status": "error", "error": err or "no runs"})
            if kind == "cold_compile":  # no filled cache: warm start cannot be measured
                out.append({"workload": "warm_start", "status": "error", "error": "cold compile failed"})
                break
            continue
        check = next((c for c in checks if c != "ok"), "ok")
        t = sorted(times)
        out.append({"workload": kind, "status": "ok", "check": check, "median_s": float(np.median(t)),
                    "min_s": t[0], "repeats": len(t), "init_s": float(np.median(inits))})
    return out


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "child":
        fw, mod_file, cache_dir = sys.argv[2:5]
        try:
            res = child(fw, mod_file, cache_dir)
        except Exception as e:  # noqa: BLE001
            lines = str(e).strip().splitlines()
            res = {"error": "%s: %s" % (type(e).__name__, lines[0][:160] if lines else "")}
        sys.stdout.write("\n" + json.dumps(res) + "\n")
    else:
        sys.exit("usage: coldstart.py child FRAMEWORK MODULE_FILE CACHE_DIR (run.py drives it)")
