#!/usr/bin/env python
"""Warp conformance runner: Warp's own test suite (and its examples), from the pinned warp-lang
wheel, run against warp_nb with only the import changed.

    python tests/warp_conformance/run.py                     # warp_nb over files.txt, table
    python tests/warp_conformance/run.py --examples          # the examples in examples.txt
    python tests/warp_conformance/run.py --all --check       # both; exit 1 on any regression
    python tests/warp_conformance/run.py --update-expectations
    python tests/warp_conformance/run.py --baseline --all    # real warp-lang -> baseline.json
    python tests/warp_conformance/run.py --files 'test_vec*' 'matrix/test_mat*' -j 2

See README.md in this folder.
"""

import argparse
import concurrent.futures
import datetime
import fnmatch
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import conformance_exec as cexec
import conformance_report as rep
import conformance_setup as setup

BASELINE = os.path.join(HERE, "baseline.json")
EXPECTATIONS = os.path.join(HERE, "expectations.txt")
COMPAT = os.path.join(HERE, "..", "..", "docs", "compat.md")
FILES = os.path.join(HERE, "files.txt")
EXAMPLES = os.path.join(HERE, "examples.txt")
OPTIONAL = os.path.join(HERE, "optional.txt")
OUT_OF_SCOPE = os.path.join(HERE, "out_of_scope.txt")


def example_options(name):
    """The runner's options for example `name` in examples.txt (see setup.example_entries): the
    arrays its state comparison leaves out (buffers allocated with wp.empty and only filled when it
    renders hold whatever the memory held), the globals holding its state, the device flag."""
    for n, _, opts in setup.example_entries(EXAMPLES):
        if n == name:
            return opts
    return {"ignore": set(), "state": None, "printed": None, "device": "cpu"}
EXIT_NO_WHEEL = 3
# files run at once: the files are compile-bound, and each compiles its kernels' bundles on every core; two
# keep a 2-core machine busy between compiles, more cores take more (at most 8: each holds its memory)
DEFAULT_JOBS = max(2, min(os.cpu_count() or 2, 8))  # the wheel could not be downloaded (the pytest entry skips on this)


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    what = ap.add_argument_group("what to run")
    what.add_argument("--files", nargs="+", metavar="NAME",
                      help="test files relative to warp/tests (globs allowed: 'test_vec*', 'matrix/test_mat*'); "
                           "default: all of files.txt")
    what.add_argument("--examples", action="store_true", help="run the examples of examples.txt instead of tests")
    what.add_argument("--all", action="store_true", help="run the test files and the examples")
    what.add_argument("--example-names", nargs="+", metavar="NAME",
                      help="examples to run (globs against examples.txt names, e.g. 'core/example_dem')")
    mode = ap.add_argument_group("mode")
    mode.add_argument("--baseline", action="store_true",
                      help="run the real warp-lang (in its own venv) and record what it passes in baseline.json")
    mode.add_argument("--check", action="store_true",
                      help="exit 1 if a baseline-passing case fails and is not in expectations.txt, "
                           "or a listed case passes")
    mode.add_argument("--update-expectations", action="store_true",
                      help="rewrite expectations.txt for the results of the files run")
    mode.add_argument("--fetch-only", action="store_true",
                      help="only make sure the wheel is downloaded and unpacked (exit 3 if it cannot be)")
    opts = ap.add_argument_group("options")
    opts.add_argument("-j", "--jobs", type=int, default=DEFAULT_JOBS,
                      help=f"files run in parallel (default: the machine's cores, from 2 to 8; here {DEFAULT_JOBS})")
    opts.add_argument("--timeout", type=float, default=600, help="seconds per file or example (default 600)")
    opts.add_argument("--python", help="interpreter for the warp_nb side (default: this one)")
    opts.add_argument("--wheel", help=f"an existing warp-lang wheel (or set {setup.WHEEL_ENV})")
    opts.add_argument("--cache", help=f"cache folder (or set {setup.CACHE_ENV}; default ~/.cache/warp_nb/conformance)")
    opts.add_argument("--results", help="folder for this run's logs and results (default: in the cache)")
    opts.add_argument("--probe", action="store_true",
                      help="diagnostic: give warp_nb stand-ins for what Warp's test harness itself needs "
                           "(is_cpu_available, config.enable_cpu_blocks) when it lacks them, to see the next "
                           "errors; not allowed with --check, --update-expectations or --baseline")
    opts.add_argument("--cuda-only", action="store_true",
                      help="diagnostic, on a machine with a GPU: run only the CUDA cases (Warp's harness is told "
                           "there is no CPU test device); not with --check, --update-expectations or --baseline")
    opts.add_argument("--from-results", metavar="DIR",
                      help="use the results of an earlier run (its logs folder) instead of running again")
    opts.add_argument("-v", "--verbose", action="store_true", help="print every failing case")
    return ap.parse_args(argv)


def select(keys, patterns):
    if not patterns:
        return keys
    chosen = []
    for p in patterns:
        p = p.removesuffix(".py")
        hits = [k for k in keys if fnmatch.fnmatchcase(k, p)]
        if not hits:
            raise SystemExit(f"--files {p!r} matches nothing in files.txt")
        chosen += [k for k in hits if k not in chosen]
    return chosen


def main(argv=None):
    args = parse_args(argv)
    log = print
    if args.probe and (args.check or args.update_expectations or args.baseline):
        raise SystemExit("--probe is a diagnostic: not with --check, --update-expectations or --baseline")
    os.environ.pop("WARP_NB_CONFORMANCE_PROBE", None)
    os.environ.pop(cexec.CUDA_ONLY_ENV, None)
    if args.cuda_only:
        if args.check or args.update_expectations or args.baseline:
            raise SystemExit("--cuda-only is a diagnostic: not with --check, --update-expectations or --baseline")
        os.environ[cexec.CUDA_ONLY_ENV] = "1"
    if args.probe:
        os.environ["WARP_NB_CONFORMANCE_PROBE"] = "1"
    cache = setup.cache_dir(args.cache)
    try:
        wheel = setup.ensure_wheel(cache, args.wheel, log=log)
    except setup.WheelUnavailable as e:
        print(f"warp-lang {setup.WARP_VERSION} wheel unavailable: {e}", file=sys.stderr)
        return EXIT_NO_WHEEL
    data_dir = args.data_dir = setup.ensure_data(cache, wheel, log=log)
    if args.fetch_only:
        print(f"wheel: {wheel}\ndata: {data_dir}")
        return 0

    run_tests = not args.examples or args.all
    run_examples = args.examples or args.all or bool(args.example_names)
    if args.example_names and not (args.files or args.all):
        run_tests = False
    keys = select(setup.list_test_files(data_dir, FILES), args.files) if run_tests else []
    examples = []
    if run_examples:
        examples = [(n, a) for n, a, _ in setup.example_entries(EXAMPLES)]
        if args.example_names:
            examples = [e for e in examples if any(fnmatch.fnmatchcase(e[0], p) for p in args.example_names)]

    if args.from_results:
        return from_results(args, keys, examples)
    if args.cuda_only:
        examples = []  # the examples run on "cpu"; every file is run (warp-lang's CPU passes say nothing here)
    elif not args.baseline:
        # what warp-lang itself fails here (an example needing a GPU, pyglet or usd-core) has no case to
        # pass: not run (it would only cost time; the baseline records why it failed)
        baseline = rep.load_json(BASELINE, default={}) or {}
        known = baseline.get("examples", {})
        examples = [(n, a) for n, a in examples if n not in known or known[n].get("status") == "pass"]
        files = baseline.get("files", {})
        keys = [k for k in keys if k not in files or files[k].get("passed")]
    side = "warp-lang" if args.baseline else "warp_nb"
    python = setup.ensure_warp_venv(cache, wheel, log=log) if args.baseline else (args.python or sys.executable)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    tag = "-probe" if args.probe else "-cuda" if args.cuda_only else ""
    out_dir = args.results or os.path.join(cache, "results", f"{side}{tag}-{stamp}")
    os.makedirs(out_dir, exist_ok=True)
    log(f"{side}: {len(keys)} test files, {len(examples)} examples, -j {args.jobs}, timeout {args.timeout:g} s; "
        f"python {python}\nlogs: {out_dir}")

    t0 = time.monotonic()
    results, ex_results = {}, {}
    jobs = [("file", k, None) for k in keys] + [("example", n, a) for n, a in examples]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {}
        for kind, name, extra in jobs:
            if kind == "file":
                fut = pool.submit(cexec.run_test_file, name, python, side_key(side), data_dir, cache, out_dir,
                                  args.timeout)
            else:
                opts = example_options(name)
                fut = pool.submit(cexec.run_example, name, extra, python, side_key(side), data_dir, cache,
                                  out_dir, args.timeout, state=opts["state"], printed=opts["printed"],
                                  device=opts["device"])
            futures[fut] = (kind, name)
        for fut in concurrent.futures.as_completed(futures):
            kind, name = futures[fut]
            res = fut.result()
            if kind == "file":
                results[name] = res
                cases = rep.file_cases(res)
                n_pass = sum(1 for s, _ in cases.values() if s == "pass")
                note = res.get("import_error") or res.get("problem") or ""
                log(f"  {name}: {n_pass}/{len(cases)} pass ({res['seconds']:.0f} s) {note[:120]}")
            else:
                ex_results[name] = res
                log(f"  examples/{name}: {res.get('status')} ({res['seconds']:.0f} s) {res.get('reason', '')[:120]}")
    elapsed = time.monotonic() - t0
    with open(os.path.join(out_dir, "summary.json"), "w", encoding="utf-8") as f:
        json.dump({"side": side, "probe": args.probe, "cuda_only": args.cuda_only, "python": python, "seconds": elapsed,
                   "files": results, "examples": ex_results}, f)
    first_header = next((r["header"] for r in results.values() if r.get("header")), None)
    if first_header:
        log(f"warp is {first_header.get('warp_name')} {first_header.get('warp_version')} "
            f"from {first_header.get('warp')}")

    if args.cuda_only:
        print(f"CUDA cases: tests/gpu/summarize_cuda_conformance.py {out_dir}")
        return 0
    if args.baseline:
        return write_baseline(keys, examples, results, ex_results, elapsed, python)
    return report(args, keys, examples, results, ex_results, elapsed, out_dir)


def from_results(args, keys, examples):
    """Report (and --check, --update-expectations, or --baseline) from an earlier run's
    summary.json instead of running again; --files/--examples select from it as usual."""
    with open(os.path.join(args.from_results, "summary.json"), encoding="utf-8") as f:
        saved = json.load(f)
    if (saved["side"] == "warp-lang") != bool(args.baseline):
        raise SystemExit(f"{args.from_results} is a {saved['side']} run")
    if (saved.get("probe") or saved.get("cuda_only")) and (args.check or args.update_expectations):
        raise SystemExit(f"{args.from_results} is a diagnostic run: not for --check or --update-expectations")
    keys = [k for k in keys if k in saved["files"]]
    examples = [(n, a) for n, a in examples if n in saved["examples"]]
    if args.baseline:
        return write_baseline(keys, examples, saved["files"], saved["examples"], saved["seconds"], saved["python"])
    return report(args, keys, examples, saved["files"], saved["examples"], saved["seconds"], args.from_results)


def side_key(side):
    return "warp_nb" if side == "warp_nb" else "warp-lang"


def write_baseline(keys, examples, results, ex_results, elapsed, python):
    base = rep.load_json(BASELINE, default=None) or {}
    base.setdefault("warp_lang", setup.WARP_VERSION)
    base["machine"] = (f"{platform.machine()}, {os.cpu_count()} CPU cores, no GPU used (CUDA_VISIBLE_DEVICES=''), "
                       f"Python {platform.python_version()}")
    runs = base.setdefault("runs", [])
    runs.append({"date": datetime.date.today().isoformat(), "files": len(keys), "examples": len(examples),
                 "seconds": round(elapsed)})
    # a file or example of optional.txt whose package warp-lang's venv lacks keeps the entry it has (a
    # venv made afresh has warp-lang, numpy and Pillow only: jax or usd-core is installed there by hand)
    missing = missing_optional(python)
    kept = []
    files = base.setdefault("files", {})
    for k in keys:
        if k in missing and k in files:
            kept.append(f"{k} ({missing[k]})")
        else:
            files[k] = rep.baseline_file_entry(results[k])
    exs = base.setdefault("examples", {})
    for name, _ in examples:
        if "examples/" + name in missing and name in exs:
            kept.append(f"examples/{name} ({missing['examples/' + name]})")
        else:
            exs[name] = rep.baseline_example_entry(ex_results[name])
    if kept:
        print(f"kept the baseline entries of {', '.join(kept)}: the package is not installed in {python}")
    base["files"] = dict(sorted(files.items()))
    base["examples"] = dict(sorted(exs.items()))
    rep.write_baseline(BASELINE, base)
    n_pass = sum(len(files[k]["passed"]) for k in keys)
    n_all = sum(files[k]["cases"] for k in keys)
    ex_pass = sum(1 for n, _ in examples if exs[n].get("status") == "pass")
    print(f"warp-lang {setup.WARP_VERSION} passes {n_pass} of {n_all} cases in {len(keys)} files"
          f" and runs {ex_pass} of {len(examples)} examples ({elapsed:.0f} s); written to {BASELINE}")
    return 0


def report(args, keys, examples, results, ex_results, elapsed, out_dir):
    baseline = rep.load_json(BASELINE, default={}) or {}
    expectations = rep.read_expectations(EXPECTATIONS)
    out_of_scope = rep.read_out_of_scope(OUT_OF_SCOPE)
    unknown = sorted(set(out_of_scope) - set(setup.list_test_files(args.data_dir, FILES)))
    if unknown:
        raise SystemExit(f"{OUT_OF_SCOPE}: not test files of files.txt: {', '.join(unknown)}")
    table, failures, extra_all, missing_baseline = [], [], [], []
    now_failing = {}  # full case id -> reason, over baseline-passing cases
    ran_keys = list(keys) + ["examples/" + n for n, _ in examples]
    total_pass = total_of = 0
    for key in ran_keys:
        if key.startswith("examples/"):
            name = key[len("examples/"):]
            nb_cases = rep.example_cases(ex_results[name], baseline.get("examples", {}).get(name),
                                         example_options(name)["ignore"])
            seconds = ex_results[name]["seconds"]
            note = ex_results[name].get("reason", "")
            base_cases = 2 if name in baseline.get("examples", {}) else 0
        else:
            nb_cases = rep.file_cases(results[key])
            seconds = results[key]["seconds"]
            note = results[key].get("import_error") or results[key].get("problem") or ""
            base_cases = baseline.get("files", {}).get(key, {}).get("cases", 0)
        passing = rep.baseline_passing(baseline, key)
        if passing is None:
            missing_baseline.append(key)
            n_pass = sum(1 for s, _ in nb_cases.values() if s == "pass")
            table.append((key, n_pass, None, 0, 0, seconds, "no baseline " + note[:60]))
            continue
        cmp, extra = rep.compare(key, nb_cases, passing)
        n_pass = sum(1 for ok, _ in cmp.values() if ok)
        total_pass += n_pass
        total_of += len(cmp)
        for cid, (ok, reason) in cmp.items():
            if not ok:
                now_failing[f"{key}::{cid}"] = reason
                failures.append((key, cid, reason))
        extra_all += [f"{key}::{c}" for c in extra]
        if key in out_of_scope:
            note = "out of scope " + note
        table.append((key, n_pass, len(cmp), base_cases, len(extra), seconds, note[:70]))

    print()
    rep.print_table(table)
    print(f"\npassed {total_pass} of {total_of}  (cases warp-lang {setup.WARP_VERSION} passes on this machine; "
          f"{len(ran_keys)} files/examples, {elapsed:.0f} s)")
    run_rows = rep.compat_rows(table, {})
    scoped_out = [k for k in run_rows if k in out_of_scope]
    if scoped_out:
        print(f"out of scope (only Warp's own build machinery, out_of_scope.txt; run and checked, not in the "
              f"per-file target): {', '.join(scoped_out)}")
    under = rep.under_target(run_rows, out_of_scope)
    print(f"files in scope under {rep.TARGET:.0%} of warp-lang's passes: "
          + (", ".join(f"{k} {p}/{o}" for k, p, o in under) if under else "none"))
    if extra_all:
        print(f"warp_nb also passes {len(extra_all)} cases that warp-lang does not pass here:")
        for c in extra_all[:40]:
            print(f"  {c}")
        if len(extra_all) > 40:
            print(f"  ... and {len(extra_all) - 40} more")
    if missing_baseline:
        print(f"no baseline for: {' '.join(missing_baseline)} (run --baseline for them)")
    if failures:
        print("\nmost common failures (cases, files):")
        for reason, n_files, n_cases in rep.group_failures(failures)[:20]:
            print(f"  {n_cases:5d} {n_files:3d}  {reason[:160]}")
    if args.verbose:
        for key, cid, reason in failures:
            print(f"  FAIL {key}::{cid}: {reason[:200]}")
    print(f"logs and results: {out_dir}")

    ran = set(ran_keys)
    if args.update_expectations:
        kept = {c: r for c, r in expectations.items()
                if c.split("::", 1)[0] not in ran or _kind(r) == rep.FLAKY}
        for cid, reason in now_failing.items():
            if cid not in kept:
                kept[cid] = rep.classify(reason, cid)  # recomputed from reasons.txt: never a stale error
        # files and examples warp-lang passes nothing of here are not run (see main)
        base_files = baseline.get("files", {})
        order = [k for k in setup.list_test_files(args.data_dir, FILES)
                 if k not in base_files or base_files[k].get("passed")]
        known = baseline.get("examples", {})
        order += ["examples/" + e[0] for e in setup.read_entries(EXAMPLES)
                  if e[0] not in known or known[e[0]].get("status") == "pass"]
        rep.write_expectations(EXPECTATIONS, kept, order, setup.WARP_VERSION)
        print(f"wrote {len(kept)} expectations to {EXPECTATIONS} "
              f"({len(now_failing)} for the {len(ran)} files/examples run)")
        # a complete run writes the table of docs/compat.md; a partial one the rows of the files it ran
        complete = set(order) <= ran
        rep.write_compat_rows(COMPAT, rep.compat_rows(table, kept), datetime.date.today().isoformat(),
                              out_of_scope, complete=complete)
        print(f"wrote the per-file table to {COMPAT}" if complete else
              f"wrote the rows of the {len(ran)} files/examples run into the per-file table of {COMPAT}")
        return 0
    if args.check:
        return check(expectations, now_failing, baseline, ran, missing_baseline, missing_optional(args.python or sys.executable))
    return 0


def _kind(expectation):
    return expectation.split(":", 1)[0].strip()


def optional_entries() -> list:
    """(file or case-id prefix, package) of optional.txt."""
    return [tuple(line.split()[:2]) for line in open(OPTIONAL) if line.strip() and not line.startswith("#")]


def missing_optional(python) -> dict:
    """The entries of optional.txt whose package does not import in `python`: {prefix: package}."""
    entries = optional_entries()
    packages = sorted({pkg for _, pkg in entries})
    code = "import importlib.util, sys; print(' '.join(p for p in sys.argv[1:] if importlib.util.find_spec(p) is None))"
    out = subprocess.run([python, "-c", code, *packages], capture_output=True, text=True, check=False)
    absent = set(out.stdout.split())
    return {prefix: pkg for prefix, pkg in entries if pkg in absent}


def _needs(cid: str, missing: dict):
    """The missing package a case needs, if any (its file, or a prefix of its id, is in optional.txt)."""
    key = cid.split("::", 1)[0]
    return next((pkg for prefix, pkg in missing.items() if key == prefix or cid.startswith(prefix)), None)


def check(expectations, now_failing, baseline, ran, missing_baseline, missing=None):
    problems, skipped = [], {}
    for cid, reason in sorted(now_failing.items()):
        if cid not in expectations:
            needs = _needs(cid, missing or {})
            if needs is not None:
                skipped.setdefault(needs, []).append(cid)
                continue
            problems.append(f"FAILS (not in expectations.txt): {cid}: {reason[:200]}")
    for package, cases in sorted(skipped.items()):
        print(f"\nskipped {len(cases)} cases that need {package}, which is not installed (optional.txt): "
              f"{', '.join(cases[:3])}{' ...' if len(cases) > 3 else ''}")
    for cid in sorted(expectations):
        key = cid.split("::", 1)[0]
        if key not in ran or _kind(expectations[cid]) == rep.FLAKY:
            continue
        if cid not in now_failing:
            passing = rep.baseline_passing(baseline, key) or []
            if cid.split("::", 1)[1] in passing:
                problems.append(f"PASSES NOW (delete its line from expectations.txt): {cid}")
            else:
                problems.append(f"STALE (warp-lang does not pass it; delete its line): {cid}")
    for key in missing_baseline:
        problems.append(f"NO BASELINE for {key}: run `run.py --baseline --files {key}`")
    if problems:
        print(f"\nconformance check FAILED ({len(problems)}):")
        for p in problems:
            print("  " + p)
        return 1
    print("\nconformance check passed: every baseline-passing case passes or is listed in expectations.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
