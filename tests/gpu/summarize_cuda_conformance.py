#!/usr/bin/env python
"""Summarise the CUDA cases of a conformance run (tests/warp_conformance/run.py --cuda-only) from
its per-file event logs (*.jsonl), so that a run cut off by its time limit still reports every
case it finished. Prints per-file counts and the commonest failure reasons.

    python tests/gpu/summarize_cuda_conformance.py RESULTS_DIR [--json OUT.json]
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import re


def read_events(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    return  # the last line of a killed child


def collect(results_dir):
    """{file key: {case id: (status, reason)}} over the CUDA cases (ids naming a cuda device); a
    case started but never finished (the process crashed or was killed) counts as 'crash'."""
    files = collections.defaultdict(dict)
    for path in sorted(glob.glob(os.path.join(results_dir, "*.jsonl"))):
        key = re.sub(r"\.\d+\.jsonl$", "", os.path.basename(path)).replace("__", "/")
        started = None
        for ev in read_events(path):
            if "start" in ev:
                started = ev["start"]
            elif "case" in ev:
                if "cuda" in ev["case"]:
                    files[key][ev["case"]] = (ev["status"], ev.get("reason", ""))
                started = None
            elif "import_error" in ev:
                files[key]["<import>"] = ("error", ev["import_error"])
        if started and "cuda" in started and started not in files[key]:
            files[key][started] = ("crash", "the process died or was killed in this case")
    return files


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results_dir")
    ap.add_argument("--json", help="also write {file: {case: [status, reason]}} here")
    args = ap.parse_args(argv)
    files = collect(args.results_dir)
    totals = collections.Counter()
    reasons = collections.Counter()
    print(f"{'file':48} pass fail skip crash")
    for key in sorted(files):
        c = collections.Counter(s if s in ("pass", "skip", "crash") else "fail" for s, _ in files[key].values())
        totals.update(c)
        if c["fail"] or c["crash"] or c["pass"]:
            print(f"{key:48} {c['pass']:4} {c['fail']:4} {c['skip']:4} {c['crash']:5}")
        for status, reason in files[key].values():
            if status not in ("pass", "skip"):
                reasons[re.sub(r"\d+", "N", reason)[:160]] += 1
    print(f"\nCUDA cases: {totals['pass']} pass, {totals['fail']} fail, {totals['skip']} skip, "
          f"{totals['crash']} crash, in {len(files)} files")
    print("\ncommonest failure reasons (digits as N):")
    for reason, n in reasons.most_common(40):
        print(f"{n:5}  {reason}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({k: {c: list(v) for c, v in cases.items()} for k, cases in files.items()}, f, indent=0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
