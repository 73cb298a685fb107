"""Runs the bad-input corpus, each case in its own process, and classifies what happened.

In: the cases of cases_kernel.py and cases_host.py (`(name, source)`, one line marked `# <-`).
Out: one record per case with its class:

- `good`      a clean exception whose message is clear and that points at the marked line (`line N`
              in the message, the innermost traceback frame in the script, or a SyntaxError's line);
              or, for a case marked `# expect: runs` / `# expect: either`, a clean run
- `unclear`   an exception of an internal kind (AttributeError, KeyError, AssertionError, ...) or
              whose message shows internals (`object has no attribute`, a warp_nb path, ...)
- `unlocated` a clear exception that does not point at the user's line
- `silent`    the script ran although its input is wrong (and no clean run was expected)
- `hang`      still running after the timeout (killed)
- `crash`     the process died of a signal or exited without a result

The parent imports warp_nb once (and warms it up), then forks one child per case, at most
`workers` at a time, so a case costs a fork rather than an interpreter start; the children share a
fresh kernel cache. Run it alone (`python -m tests.bad_input.runner`) for a table of every case.
It does not decide what is acceptable: test_bad_input.py does."""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

PRELUDE = "import warp_nb as wp\nimport numpy as np\n"

#: exception types that only ever come from a bug of ours, whatever the message
INTERNAL_TYPES = {"KeyError", "AssertionError", "UnboundLocalError", "RecursionError",
                  "ZeroDivisionError", "SystemError", "StopIteration", "UnicodeDecodeError", "ArgumentError"}
#: text in a message that shows our internals instead of the user's program
INTERNAL_TEXT = re.compile(
    r"object has no attribute|warp_nb[/\\]|'NoneType' object|list index out of range|tuple index out of range"
    r"|unhashable type|object is not subscriptable|object is not callable|object is not iterable|has no len\(\)"
    r"|unsupported operand type\(s\) for [^:]+: '(?!(?:float|int|bool|str)')"  # Python's words about our objects
    r"|Traceback \(most recent call last\)|\bctypes\b")


@dataclass
class Result:
    name: str
    outcome: str             # good, unclear, unlocated, silent, hang, crash
    detail: str              # the exception's type and message, the signal, ...
    seconds: float


def marked_lines(source: str) -> set[int]:
    """The line numbers (in the file with the prelude) of the lines marked `# <-`: the error may
    point at any of them (a recursion cycle has two ends, a constant may be refused where it is
    made or where a kernel uses it)."""
    lines = {number + PRELUDE.count("\n") for number, line in enumerate(source.splitlines(), start=1) if "# <-" in line}
    if not lines:
        raise ValueError("a case needs a line marked '# <-'")
    return lines


def expectation(source: str) -> str:
    match = re.search(r"# expect: (\w+)", source)
    return match.group(1) if match else "raises"


def _child(path: str, result_path: str, log_path: str) -> None:
    """Runs one case (in the forked child) and writes what happened as JSON; never returns."""
    import runpy
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    record: dict
    try:
        runpy.run_path(path, run_name="__main__")
        import warp_nb as wp
        wp.synchronize()
        record = {"raised": False}
    except BaseException as exc:  # noqa: BLE001 (every exception is a finding to classify)
        frames = [f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
        record = {"raised": True, "type": type(exc).__name__, "message": str(exc),
                  "case_lines": frames, "syntax_line": exc.lineno if isinstance(exc, SyntaxError) else None}
    try:
        Path(result_path).write_text(json.dumps(record))
    finally:
        os._exit(0)


def classify(source: str, record: dict | None, status: int | None, timed_out: bool) -> tuple[str, str]:
    if timed_out:
        return "hang", "killed after the timeout"
    if status is not None and os.WIFSIGNALED(status):
        return "crash", f"signal {signal.Signals(os.WTERMSIG(status)).name}"
    if record is None:
        code = os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else "?"
        return "crash", f"exited with status {code} and no result"
    expect = expectation(source)
    if not record["raised"]:
        return ("good", "ran") if expect in ("runs", "either") else ("silent", "no error")
    kind, message = record["type"], record["message"]
    detail = f"{kind}: {message}"
    if expect == "runs":
        return "unclear", "expected a clean run, got " + detail
    if kind in INTERNAL_TYPES or INTERNAL_TEXT.search(message) or not message.strip():
        return "unclear", detail
    lines = marked_lines(source)
    pointed = (any(re.search(rf"\bline {line}\b", message) for line in lines)
               or (record["case_lines"] and record["case_lines"][-1] in lines)
               or record["syntax_line"] in lines)
    return ("good", detail) if pointed else ("unlocated", f"(want line {sorted(lines)}) {detail}")


def run_cases(cases: list, workers: int = 2, timeout: float = 90.0) -> list[Result]:
    """Runs `cases` (name, source) in forked children, `workers` at a time."""
    work = Path(tempfile.mkdtemp(prefix="wpnb_bad_input_"))
    os.environ.setdefault("WARP_NB_CACHE_DIR", str(work / "cache"))
    import warp_nb as wp
    wp.config.kernel_cache_dir = os.environ["WARP_NB_CACHE_DIR"]
    try:
        from warp_nb.program.module import warm_up
        warm_up()  # the CPU runtime and the compiler's identity, once for every child
    except Exception:  # noqa: BLE001 (warming up is an optimisation)
        pass
    sys.stdout.flush()
    sys.stderr.flush()

    pending = list(cases)
    running: dict[int, tuple] = {}
    results: dict[str, Result] = {}
    while pending or running:
        while pending and len(running) < workers:
            name, source = pending.pop(0)
            path = work / f"case_{name}.py"
            path.write_text(PRELUDE + source)
            result_path, log_path = work / f"{name}.json", work / f"{name}.log"
            pid = os.fork()
            if pid == 0:
                _child(str(path), str(result_path), str(log_path))
            running[pid] = (name, source, result_path, time.monotonic())
        time.sleep(0.02)
        for pid, (name, source, result_path, started) in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            elapsed = time.monotonic() - started
            timed_out = False
            if done == 0:
                if elapsed < timeout:
                    continue
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                timed_out, status = True, None
            del running[pid]
            record = json.loads(result_path.read_text()) if result_path.exists() else None
            outcome, detail = classify(source, record, status, timed_out)
            results[name] = Result(name, outcome, detail, elapsed)
    return [results[name] for name, _ in cases]


def all_cases() -> tuple[list, list]:
    """(cases whose outcome is checked, undefined-behaviour cases that are only listed)."""
    from tests.bad_input.cases_host import HOST_CASES, UNDEFINED_CASES
    from tests.bad_input.cases_kernel import KERNEL_CASES
    return KERNEL_CASES + HOST_CASES, UNDEFINED_CASES


def main() -> None:
    checked, undefined = all_cases()
    only = set(sys.argv[1:])
    cases = [c for c in checked + undefined if not only or c[0] in only]
    start = time.monotonic()
    results = run_cases(cases)
    for r in results:
        print(f"{r.outcome:9} {r.seconds:5.1f}s {r.name:42} {r.detail[:300]!r}")
    counts: dict[str, int] = {}
    for r in results:
        counts[r.outcome] = counts.get(r.outcome, 0) + 1
    print(f"{len(results)} cases in {time.monotonic() - start:.0f} s: {counts}")


if __name__ == "__main__":
    main()
