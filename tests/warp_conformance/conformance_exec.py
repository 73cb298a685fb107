"""Running Warp test files and examples in child processes that can crash or stall without
stopping the run: each in its own process group, killed as a whole at its timeout."""

import json
import os
import signal
import subprocess
import sys
import time

from conformance_setup import CHILD_DIR, SHIM_DIR

MAX_RESTARTS = 3  # a file whose process crashes is resumed after the crashing case, this often


CUDA_ONLY_ENV = "WARP_NB_CONFORMANCE_CUDA_ONLY"  # set by run.py --cuda-only (a diagnostic run)


def child_env(side, data_dir, cache):
    env = dict(os.environ)
    if os.environ.get(CUDA_ONLY_ENV):
        env.pop("CUDA_VISIBLE_DEVICES", None)  # run.py --cuda-only: the GPU cases (hook hides the CPU)
    else:
        env["CUDA_VISIBLE_DEVICES"] = ""  # CPU only, on both sides
    env["MPLBACKEND"] = "Agg"
    env["PYTHONFAULTHANDLER"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("PYTHONSTARTUP", None)
    if side == "warp_nb":
        env["WARP_NB_CONFORMANCE_DATA"] = data_dir
        # the shim makes `import warp` in processes the tests start themselves resolve to warp_nb
        # (after them, the parent's own path: warp_nb run from a source tree, as on the GPU machine)
        env["PYTHONPATH"] = os.pathsep.join([SHIM_DIR, CHILD_DIR] + ([os.environ["PYTHONPATH"]]
                                                                    if os.environ.get("PYTHONPATH") else []))
        env["WARP_NB_CACHE_DIR"] = os.path.join(cache, "kernels-warp_nb")
    else:
        env["PYTHONPATH"] = CHILD_DIR
        env["WARP_CACHE_PATH"] = os.path.join(cache, "kernels-warp")
    return env


def _signal_name(rc):
    try:
        return signal.Signals(-rc).name
    except ValueError:
        return f"signal {-rc}"


def run_process(cmd, env, cwd, log_path, timeout):
    """Run cmd in a new session, output appended to log_path; kill its whole process group at the
    timeout. Returns (returncode or None on timeout, seconds)."""
    t0 = time.monotonic()
    with open(log_path, "ab") as log:
        log.write(f"$ {' '.join(cmd)}\n".encode())
        log.flush()
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            rc = proc.wait(timeout=max(1.0, timeout))
        except subprocess.TimeoutExpired:
            rc = None
        except BaseException:
            _kill_group(proc)
            raise
        # the test's own children (compilers, subprocess tests) go with it
        _kill_group(proc)
    return rc, time.monotonic() - t0


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass


def _read_jsonl(path):
    events = []
    if not os.path.exists(path):
        return events
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:
                pass  # a line cut by a crash
    return events


UNSAFE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "unsafe.txt")


def unsafe_cases(key):
    """{Class.method: why} for the cases of test file `key` listed in unsafe.txt: cases that read
    Warp's native memory layout through ctypes, so on warp_nb's handles they read garbage and may
    crash or loop forever. They are not run against warp_nb and fail with the reason given."""
    found = {}
    if os.path.exists(UNSAFE):
        with open(UNSAFE, encoding="utf-8") as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    cid, why = (line.split(None, 1) + [""])[:2]
                    if cid.split("::", 1)[0] == key:
                        found[cid.split("::", 1)[1]] = why
    return found


def run_test_file(key, python, side, data_dir, cache, out_dir, timeout):
    """Run warp/tests/<key>.py. Returns {"key", "cases": {id: {"status", "reason"}},
    "import_error", "problem", "seconds", "header"}."""
    safe = key.replace("/", "__")
    work = os.path.join(out_dir, "work", safe)
    os.makedirs(work, exist_ok=True)
    log_path = os.path.join(out_dir, safe + ".log")
    module = "warp.tests." + key.replace("/", ".")
    env = child_env(side, data_dir, cache)
    cases, header, import_error, problem = {}, None, None, None
    fixture_errors = []  # (description such as 'setUpClass (warp.tests.test_x.TestX)', reason)
    if side == "warp_nb":
        cases = {cid: {"status": "error", "reason": f"not run against warp_nb: {why}"}
                 for cid, why in unsafe_cases(key).items()}
    started = time.monotonic()
    attempt = 0
    while True:
        results = os.path.join(out_dir, f"{safe}.{attempt}.jsonl")
        skip_file = os.path.join(out_dir, f"{safe}.{attempt}.skip")
        with open(skip_file, "w") as f:
            f.write("\n".join(cases) + "\n")
        cmd = [python, os.path.join(CHILD_DIR, "run_test_file.py"), "--module", module, "--out", results,
               "--skip", skip_file]
        if side == "warp_nb":
            cmd.append("--hook")
        remaining = timeout - (time.monotonic() - started)
        rc, _ = run_process(cmd, env, work, log_path, remaining)
        in_progress, done = None, False
        for ev in _read_jsonl(results):
            if "header" in ev and header is None:
                header = ev["header"]
            elif "import_error" in ev:
                import_error = ev["import_error"]
            elif "start" in ev:
                in_progress = ev["start"]
            elif "case" in ev:
                cases[ev["case"]] = {"status": ev["status"], "reason": ev.get("reason", ""),
                                     "time": ev.get("time")}
                in_progress = None
            elif "fixture_error" in ev:
                fixture_errors.append((ev["fixture_error"], ev.get("reason", "")))
            elif "done" in ev:
                done = True
        if done:
            break
        if rc is None:
            what = f"timed out after {timeout:g} s"
        elif rc < 0:
            what = f"crashed ({_signal_name(rc)})"
        else:
            what = f"exited with code {rc} before finishing"
        if header is None and import_error is None:
            import_error = f"process {what} while importing the test file"
            break
        if in_progress is not None:
            cases[in_progress] = {"status": "error", "reason": f"process {what} during this case"}
        if rc is None:
            problem = f"{what}" + (f" during {in_progress}" if in_progress else "")
            break
        attempt += 1
        problem = f"{what}" + (f" during {in_progress}" if in_progress else "")
        if attempt > MAX_RESTARTS:
            problem += f"; gave up after {MAX_RESTARTS} restarts"
            break
    if header is not None:
        for cid in header["cases"]:
            if cid not in cases:
                cls = cid.split(".", 1)[0]
                fixture = [f"{d.split(' ')[0]} failed: {r}" for d, r in fixture_errors
                           if d.endswith(f".{cls})") or d.startswith("setUpModule")]
                reason = fixture[0] if fixture else f"not run: {problem or 'the file stopped early'}"
                cases[cid] = {"status": "error", "reason": reason}
    return {"key": key, "cases": cases, "import_error": import_error, "problem": problem, "header": header,
            "seconds": round(time.monotonic() - started, 1)}


def run_example(name, args, python, side, data_dir, cache, out_dir, timeout, state=None, printed=None,
                device="cpu"):
    """Run warp/examples/<name>.py as __main__ with args (and --device cpu unless device is
    'default'); its state is the arrays of the `example` instance, or of the globals named in state,
    and the numbers it prints on the lines the regex `printed` finds."""
    safe = "examples__" + name.replace("/", "__")
    work = os.path.join(out_dir, "work", safe)
    os.makedirs(work, exist_ok=True)
    log_path = os.path.join(out_dir, safe + ".log")
    result_path = os.path.join(out_dir, safe + ".json")
    module = "warp.examples." + name.replace("/", ".")
    cmd = [python, os.path.join(CHILD_DIR, "run_example.py"), "--module", module, "--out", result_path]
    if side == "warp_nb":
        cmd.append("--hook")
    if state:
        cmd += ["--state", ",".join(state)]
    if printed:
        cmd += ["--printed", printed]
    full_args = (["--device", "cpu"] if device == "cpu" else []) + list(args)
    cmd += ["--", *full_args]
    rc, seconds = run_process(cmd, child_env(side, data_dir, cache), work, log_path, timeout)
    result = {"status": "error", "reason": ""}
    if os.path.exists(result_path):
        with open(result_path, encoding="utf-8") as f:
            result = json.load(f)
    elif rc is None:
        result["reason"] = f"timed out after {timeout:g} s"
    elif rc < 0:
        result["reason"] = f"crashed ({_signal_name(rc)})"
    else:
        result["reason"] = f"exited with code {rc} without a result"
    result["args"] = full_args
    result["seconds"] = round(seconds, 1)
    return result


def python_of(side, explicit):
    return explicit or sys.executable
