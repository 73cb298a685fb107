"""The bad-input corpus (cases_kernel.py, cases_host.py): each case runs in its own process
(runner.py) and must end in a clear exception pointing at the user's line, or in a clean run where
one is allowed. No crash, no hang, no silent acceptance, no message that shows our internals.

KNOWN lists, with the reason, the cases that fail today for a reason tracked elsewhere; such a
case may fail only in its listed way, and the test says when it passes so the entry can go.
The undefined-behaviour cases (a made-up mesh id, raw pointers) are run and listed, never judged."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.report import report_summary

pytestmark = [pytest.mark.needs_cxx, pytest.mark.slow]

#: case -> (the outcome it has today, why)
KNOWN: dict[str, tuple[str, str]] = {}

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def corpus_results(tmp_path_factory):
    """Runs the whole corpus once, in a fresh process that forks one child per case."""
    out = tmp_path_factory.mktemp("bad_input") / "results.txt"
    env = dict(os.environ, WARP_NB_CACHE_DIR=str(out.parent / "cache"), PYTHONPATH=str(ROOT))
    script = ("import sys, json; from tests.bad_input.runner import run_cases, all_cases\n"
              "checked, undefined = all_cases()\n"
              "res = run_cases(checked + undefined, workers=2, timeout=90)\n"
              "json.dump([r.__dict__ for r in res], open(sys.argv[1], 'w'))\n")
    proc = subprocess.run([sys.executable, "-c", script, str(out)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    import json
    return {r["name"]: r for r in json.loads(out.read_text())}


def test_corpus_is_large_and_well_formed():
    from tests.bad_input.runner import all_cases, marked_lines
    checked, undefined = all_cases()
    names = [name for name, _ in checked + undefined]
    assert len(checked) >= 150 and len(set(names)) == len(names)
    for name, source in checked + undefined:
        assert marked_lines(source), name
        compile("import warp_nb as wp\n" + source, name, "exec") if "global a" not in source else None
    assert set(KNOWN) <= set(names)


def test_no_crash_hang_silence_or_unclear_message(corpus_results):
    from tests.bad_input.runner import all_cases
    checked, undefined = all_cases()
    counts: dict[str, int] = {}
    bad, fixed = [], []
    for name, _ in checked:
        r = corpus_results[name]
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
        known = KNOWN.get(name)
        if r["outcome"] == "good":
            if known:
                fixed.append(name)
        elif not known or r["outcome"] != known[0]:
            bad.append(f"{r['outcome']:9} {name}: {r['detail'][:400]}")
    listed = ", ".join(f"{name}: {corpus_results[name]['outcome']}" for name, _ in undefined)
    report_summary(f"bad-input corpus: {len(checked)} cases {counts}; {len(KNOWN)} known ({', '.join(KNOWN)}); "
                   f"undefined behaviour, listed only: {listed}"
                   + (f"; now passing, remove from KNOWN: {', '.join(fixed)}" if fixed else ""))
    assert not bad, f"{len(bad)} bad-input cases end badly:\n" + "\n".join(bad)


def test_classifier_can_fail():
    """The classifier itself: each bad outcome is recognised."""
    import signal

    from tests.bad_input.runner import classify
    src = "x = 1  # <-\n"  # marked line 3 (after the two prelude lines)
    ok = {"raised": True, "type": "ValueError", "message": "bad value", "case_lines": [3], "syntax_line": None}
    assert classify(src, ok, 0, False)[0] == "good"
    assert classify(src, dict(ok, case_lines=[9]), 0, False)[0] == "unlocated"
    assert classify(src, dict(ok, message="bad (f.py, line 3, in k)", case_lines=[9]), 0, False)[0] == "good"
    assert classify(src, dict(ok, type="KeyError"), 0, False)[0] == "unclear"
    assert classify(src, dict(ok, message="'Value' object has no attribute 'type'"), 0, False)[0] == "unclear"
    assert classify(src, dict(ok, message="unsupported operand type(s) for +: 'Var' and 'int'"), 0, False)[0] == "unclear"
    assert classify(src, {"raised": False}, 0, False)[0] == "silent"
    assert classify(src + "# expect: either\n", {"raised": False}, 0, False)[0] == "good"
    assert classify(src, None, None, True)[0] == "hang"
    assert classify(src, None, signal.SIGSEGV, False)[0] == "crash"  # a raw wait status: killed by SIGSEGV
