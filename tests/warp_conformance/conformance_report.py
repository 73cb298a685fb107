"""Cases, the baseline (what warp-lang passes here), the expectations (what warp_nb is known not
to pass, and why), the --check verdict and the printed tables."""

import collections
import json
import math
import os
import re

IMPORT_CASE = "<import>"
KINDS = ("internal", "out-of-scope", "differs", "todo", "flaky")
# `flaky` is written by hand, never by --update-expectations: a case whose outcome depends on the
# machine (timing, thread scheduling). --check accepts it passing or failing; updates keep its line.
FLAKY = "flaky"
RTOL, ATOL = 1e-3, 1e-4  # example state: relative tolerance, absolute tolerance per unit of scale


# ---------------------------------------------------------------------------------------------
# cases of one run


def file_cases(result):
    """{case id: (status, reason)} for one test file's result; a file that did not import is the
    one case '<import>'."""
    if result.get("import_error"):
        return {IMPORT_CASE: ("error", result["import_error"])}
    return {cid: (c["status"], c.get("reason", "")) for cid, c in result["cases"].items()}


def example_cases(result, baseline_entry=None, ignore=()):
    """An example is two cases: 'run' (its __main__ finished) and 'state' (its final arrays
    match warp-lang's fingerprint; on the baseline side, that it left a fingerprint)."""
    if result.get("status") != "pass":
        reason = result.get("reason") or "failed"
        return {"run": ("error", reason), "state": ("error", "did not run: " + reason)}
    cases = {"run": ("pass", "")}
    fp = result.get("fingerprint")
    if not fp:
        cases["state"] = ("skip", result.get("note") or "no array attributes on the example object")
    elif baseline_entry is None:
        cases["state"] = ("pass", "")
    else:
        expected = {k: v for k, v in (baseline_entry.get("fingerprint") or {}).items() if k not in ignore}
        diffs = compare_fingerprints(expected, fp)
        cases["state"] = ("fail", "state differs: " + "; ".join(diffs[:3])) if diffs else ("pass", "")
    return cases


def compare_fingerprints(expected, actual):
    """Differences between two fingerprints: shapes and NaN counts exactly; mean, rms, min, max
    within RTOL relative plus ATOL times the array's scale (its largest magnitude, at least 1),
    so that large sums of float32 values are not held to an absolute 1e-4."""
    diffs = []
    for name, e in sorted(expected.items()):
        a = actual.get(name)
        if a is None:
            diffs.append(f"{name} missing")
            continue
        if a.get("shape") != e.get("shape"):
            diffs.append(f"{name} shape {a.get('shape')} != {e.get('shape')}")
            continue
        if a.get("nan") != e.get("nan"):
            diffs.append(f"{name} has {a.get('nan')} NaN/inf, warp-lang {e.get('nan')}")
            continue
        scale = max(1.0, abs(e.get("min", 0.0)), abs(e.get("max", 0.0)))
        for stat in ("mean", "rms", "min", "max"):
            if stat not in e:
                continue
            x, y = a.get(stat, math.nan), e[stat]
            if not abs(x - y) <= ATOL * scale + RTOL * abs(y):
                diffs.append(f"{name}.{stat} {x:.6g} != {y:.6g}")
                break
    return diffs


# ---------------------------------------------------------------------------------------------
# baseline


def load_json(path, default=None):
    if not os.path.exists(path):
        return default
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def baseline_file_entry(result):
    cases = file_cases(result)
    entry = {
        "cases": len(cases),
        "passed": sorted(c for c, (s, _) in cases.items() if s == "pass"),
        "failed": {c: r for c, (s, r) in sorted(cases.items()) if s in ("fail", "error")},
        "skipped": {c: r for c, (s, r) in sorted(cases.items()) if s == "skip"},
        "seconds": result["seconds"],
    }
    if result.get("problem"):
        entry["problem"] = result["problem"]
    return entry


def baseline_example_entry(result):
    entry = {k: result.get(k) for k in ("args", "status", "reason", "seconds", "fingerprint", "note")}
    return {k: v for k, v in entry.items() if v not in (None, "")}


def baseline_passing(baseline, key):
    """The case ids warp-lang passes in one file, or None when the baseline lacks the file."""
    if key.startswith("examples/"):
        entry = baseline.get("examples", {}).get(key[len("examples/"):])
        if entry is None:
            return None
        return sorted(c for c, (s, _) in example_cases(entry).items() if s == "pass")
    entry = baseline.get("files", {}).get(key)
    return None if entry is None else list(entry["passed"])


def dumps_compact(obj, indent=0, width=120):
    """JSON with one short value per line (a case id, a reason, one array's statistics): whatever
    fits in `width` characters stays on one line, so diffs show what changed."""
    flat = json.dumps(obj)
    if len(flat) + indent <= width or not isinstance(obj, (dict, list)) or not obj:
        return flat
    pad = " " * (indent + 1)
    if isinstance(obj, dict):
        items = [f"{pad}{json.dumps(k)}: {dumps_compact(v, indent + 1, width)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + dumps_compact(v, indent + 1, width) for v in obj]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def write_baseline(path, baseline):
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps_compact(baseline) + "\n")


# ---------------------------------------------------------------------------------------------
# expectations: `<file>::<case>  <kind>: <detail>`, one case per line


EXPECTATIONS_HEADER = """\
# Cases that warp-lang {version} passes on a CPU-only machine (baseline.json) and warp_nb does
# not pass. One case per line: `<file>::<Class.method>  <kind>: <detail>`, where <kind> is one of
#   internal      the test reaches into warp._src or private attributes
#   out-of-scope  warp_nb does not aim to provide this (say why)
#   differs       a documented difference of warp_nb (say which)
#   todo          not done yet (the observed error)
#   flaky         written by hand: passes or fails with the machine's timing; --check accepts both
# Example cases are `examples/<name>::run` and `examples/<name>::state`.
# `python tests/warp_conformance/run.py --check` fails when a case not listed here fails, or a
# listed case passes (then delete its line: this list only shrinks). `--update-expectations`
# rewrites the file for the files it ran, naming each reason by the rules of reasons.txt.
"""


def _listed(path):
    """(line number, [first word, rest]) of each line of a list file, blank lines and '#' comments
    skipped; nothing when the file does not exist."""
    if not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if line and not line.startswith("#"):
                yield n, line, line.split(None, 1)


def read_expectations(path):
    entries = {}
    for n, line, parts in _listed(path):
        if len(parts) != 2 or "::" not in parts[0] or ":" not in parts[1]:
            raise SystemExit(f"{path}:{n}: expected `<file>::<case>  <kind>: <detail>`, got {line!r}")
        kind = parts[1].split(":", 1)[0].strip()
        if kind not in KINDS:
            raise SystemExit(f"{path}:{n}: kind {kind!r} is not one of {', '.join(KINDS)}")
        entries[parts[0]] = parts[1]
    return entries


def write_expectations(path, entries, order, version):
    by_file = collections.defaultdict(list)
    for cid, reason in entries.items():
        by_file[cid.split("::", 1)[0]].append((cid, reason))
    keys = [k for k in order if k in by_file] + sorted(k for k in by_file if k not in order)
    lines = [EXPECTATIONS_HEADER.format(version=version)]
    for key in keys:
        lines.append(f"\n## {key}")
        for cid, reason in sorted(by_file[key]):
            lines.append(f"{cid}  {reason}")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


_PRIVATE = re.compile(r"_src\b|\bwarp\._|attribute '_[A-Za-z]|has no attribute '_")


_REASONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reasons.txt")


def _rules():
    rules = []
    if os.path.exists(_REASONS):
        with open(_REASONS, encoding="utf-8") as f:
            for line in f:
                if line.strip() and not line.lstrip().startswith("#"):
                    kind, pattern, why = (part.strip() for part in line.split(" | ", 2))
                    if kind not in KINDS:
                        raise SystemExit(f"{_REASONS}: kind {kind!r} is not one of {', '.join(KINDS)}")
                    rules.append((kind, re.compile(pattern), why))
    return rules


def classify(reason, case_id=""):
    """An expectation's reason: the first rule of reasons.txt that matches the case and its error,
    else internal when the error names warp._src or a private attribute, else todo with the error."""
    one_line = " ".join(reason.split())
    for kind, pattern, why in _rules():
        if pattern.search(f"{case_id} {one_line}"):
            return f"{kind}: {why} [{one_line[:160]}]"
    return ("internal: " if _PRIVATE.search(one_line) else "todo: ") + one_line


# ---------------------------------------------------------------------------------------------
# comparison


def compare(key, nb_cases, base_passing):
    """For one file: {case: (passes, reason)} over the baseline's passing cases, and the cases
    warp_nb passes that warp-lang does not."""
    out = {}
    import_error = nb_cases.get(IMPORT_CASE)
    for cid in base_passing:
        if import_error is not None:
            out[cid] = (False, "file did not import: " + import_error[1])
        elif cid not in nb_cases:
            out[cid] = (False, "case not generated by warp_nb")
        else:
            status, reason = nb_cases[cid]
            out[cid] = (status == "pass", reason if status != "skip" else "skipped: " + reason)
    extra = sorted(c for c, (s, _) in nb_cases.items() if s == "pass" and c not in set(base_passing))
    return out, extra


def strip_location(reason):
    """The error without the test-file location, for grouping."""
    r = re.sub(r" \[[^\]]*:\d+ in [^\]]*\]$", "", reason)
    r = re.sub(r"^subTest [^:]*\): ", "", r)
    r = re.sub(r"^(file did not import|did not run|skipped): ", "", r)
    return r


def group_failures(rows):
    """rows: [(key, case, reason)] -> [(reason, n_files, n_cases)] by n_cases."""
    groups = collections.defaultdict(lambda: [set(), 0])
    for key, _cid, reason in rows:
        g = groups[strip_location(reason.replace("file did not import: ", ""))]
        g[0].add(key)
        g[1] += 1
    return sorted(((r, len(f), n) for r, (f, n) in groups.items()), key=lambda t: (-t[2], -t[1], t[0]))


def print_table(rows, out=print):
    """rows: [(key, passed, of, base_cases, extra, seconds, note)]"""
    width = max([len(r[0]) for r in rows] + [4])
    out(f"{'file':<{width}}  {'passed':>6}  {'of':>5}  {'wl-cases':>8}  {'nb-only':>7}  {'time':>6}  note")
    for key, passed, of, base_cases, extra, seconds, note in rows:
        of_s = "-" if of is None else str(of)
        out(f"{key:<{width}}  {passed:>6}  {of_s:>5}  {base_cases:>8}  {extra:>7}  {seconds:>5.0f}s  {note}")


# ---------------------------------------------------------------------------------------------
# docs/compat.md


TABLE_START, TABLE_END = "<!-- conformance-table -->", "<!-- /conformance-table -->"
_ROW = re.compile(r"^\| `([^`]+)`(?: \(out of scope\))? \| (\d+) \| (\d+) \| \d+ \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|$")
_COLUMNS = ("todo", "internal", "out-of-scope", "differs")


def compat_rows(rows, expectations):
    """{file: (passed, of, Counter of its expectations' kinds)} for the rows of a run."""
    kinds = collections.defaultdict(collections.Counter)
    for cid, reason in expectations.items():
        kinds[cid.split("::", 1)[0]][reason.split(":", 1)[0]] += 1
    return {key: (passed, of, kinds[key]) for key, passed, of, *_ in rows if of}


def parse_compat_rows(text):
    """The rows of a table compat_table wrote (text between its markers), as compat_rows gives them."""
    out = {}
    for line in text.splitlines():
        m = _ROW.match(line.strip())
        if m:
            key, passed, of, *kinds = m.groups()
            out[key] = (int(passed), int(of), collections.Counter(dict(zip(_COLUMNS, map(int, kinds)))))
    return out


def compat_table(rows, date, out_of_scope=None):
    """The per-file markdown table for docs/compat.md (rows as compat_rows gives them): cases passed
    of those warp-lang passes, and how the rest are classified in expectations.txt; files of
    out_of_scope.txt marked, with their reasons below, and the files in scope under the target."""
    out_of_scope = out_of_scope or {}
    lines = [f"Run of {date}: cases passed by warp_nb of those warp-lang passes on this CPU; the others by "
             "their reason in `expectations.txt`.", "",
             "| file | passed | of | % | todo | internal | out-of-scope | differs |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    total = collections.Counter()
    for key, (passed, of, k) in rows.items():
        total.update({"passed": passed, "of": of, **k})
        mark = " (out of scope)" if key in out_of_scope else ""
        lines.append(f"| `{key}`{mark} | {passed} | {of} | {100 * passed / of:.0f} | {k['todo']} | {k['internal']} | "
                     f"{k['out-of-scope']} | {k['differs']} |")
    if total["of"]:
        lines.append(f"| **total** | **{total['passed']}** | **{total['of']}** | "
                     f"**{100 * total['passed'] / total['of']:.1f}** | {total['todo']} | {total['internal']} | "
                     f"{total['out-of-scope']} | {total['differs']} |")
    listed = [k for k in rows if k in out_of_scope]
    if listed:
        lines += ["", "Files marked (out of scope) test only Warp's own build machinery (`out_of_scope.txt`); they "
                  "are run and checked like the others and left out of the per-file target:"]
        lines += [f"- `{k}`: {out_of_scope[k]}" for k in listed]
    under = under_target(rows, out_of_scope)
    lines += ["", f"Files in scope under {TARGET:.0%} of warp-lang's passes: "
              + (", ".join(f"`{k}` {p}/{o}" for k, p, o in under) if under else "none") + "."]
    return "\n".join(lines)


def write_compat_rows(path, rows, date, out_of_scope=None, complete=True):
    """Write the table of `rows` into docs/compat.md; unless `complete` (a run of every file), the
    rows of the files run replace theirs in the table there and the others (and the date of the
    complete run the table was made by) are kept, the totals recomputed from all rows."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start, end = text.find(TABLE_START), text.find(TABLE_END)
    if start < 0 or end < start:
        raise SystemExit(f"{path}: markers {TABLE_START} ... {TABLE_END} not found")
    if not complete:
        old = text[start + len(TABLE_START):end]
        m = re.search(r"Run of ([0-9-]+)", old)
        merged = parse_compat_rows(old)
        merged.update(rows)
        rows, date = merged, (f"{m.group(1)} (rows of some files rerun on {date})" if m else date)
    write_compat_table(path, compat_table(rows, date, out_of_scope))


# ---------------------------------------------------------------------------------------------
# files out of scope and the per-file target


TARGET = 0.75  # issue 22: at least this share of warp-lang's passes in every file in scope


def read_out_of_scope(path):
    """{file: reason} of out_of_scope.txt (`<file>  <reason>` a line; '#' comments)."""
    entries = {}
    for n, line, parts in _listed(path):
        if len(parts) != 2:
            raise SystemExit(f"{path}:{n}: expected `<file>  <reason>`, got {line!r}")
        entries[parts[0]] = parts[1]
    return entries


def under_target(rows, out_of_scope):
    """[(file, passed, of)] of the files in scope whose passes are under TARGET of warp-lang's."""
    return [(k, p, o) for k, (p, o, *_) in rows.items() if k not in out_of_scope and p < TARGET * o]


def write_compat_table(path, table_text):
    """Replace the text between the table markers of `path` (docs/compat.md)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start, end = text.find(TABLE_START), text.find(TABLE_END)
    if start < 0 or end < start:
        raise SystemExit(f"{path}: markers {TABLE_START} ... {TABLE_END} not found")
    text = text[:start + len(TABLE_START)] + "\n" + table_text + "\n" + text[end:]
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
