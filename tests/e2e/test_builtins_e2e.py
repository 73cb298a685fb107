"""End-to-end checks of every builtin in the registry: each overload is instantiated with
concrete types, called from a kernel built from source text on random inputs in a safe domain,
compiled with the C++ compiler, launched, and compared with numpy reference formulas
(builtin_cases.REFS; documented semantics such as integer division by zero, rounding of
halfway cases, sign(0), atomics' old values, the random number algorithm of random.h).
The Python-scope implementations (`b.python`) are checked against the same references.

Cases that fail because of a known bug are listed in builtin_cases.KNOWN_BROKEN: they are left
out of the passing tests and run as expected failures so that they stay visible."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import warp_nb as wp
from warp_nb.builtins import registry as R
from warp_nb.builtins.registry import BUILTINS

from tests.support import builtin_cases as bc
from tests.support.report import report_summary

REPO_ROOT = Path(__file__).resolve().parents[2]

#: builtins checked by a dedicated test instead of kernel cases
COVERED_ELSEWHERE = {
    "printf": "test_printf (the output goes to the process's stdout)",
    "array_is_valid": "tests/e2e/test_warp_api.py (needs None passed for an array)",
    "grad_view": "tests/e2e/test_tape_semantics.py (wp.adjoint[xs][i] in a @wp.func_grad)",
    "print": "tests/e2e/test_e2e_language.py (the output goes to the process's stdout)",
    "atomic_and": "tests/e2e/test_e2e_atomics_random.py (contended bit masks against numpy's reductions)",
    "atomic_or": "tests/e2e/test_e2e_atomics_random.py (contended bit masks against numpy's reductions)",
    "atomic_xor": "tests/e2e/test_e2e_atomics_random.py (contended bit masks against numpy's reductions)",
    "address_of": "tests/e2e/test_reference_adjoints_and_address_of.py (a wp.ref to an array element or a local)",
}
# texture lookups take a texture handle, which the generic value generators do not make
COVERED_ELSEWHERE.update({n: "tests/e2e/textures (against numpy's interpolation of the texel data)"
                          for n, b in BUILTINS.items() if b.category == "textures"})
# geometry queries take a live wp.Mesh / wp.Bvh / wp.HashGrid / wp.Volume handle (a random uint64
# would crash): tests/geometry checks each against numpy brute force
COVERED_ELSEWHERE.update({n: "tests/e2e/geometry" for n, b in BUILTINS.items() if b.category == "geometry"})
# in-kernel checks print their failures: tests/e2e/test_warp_api.py reads the process's stdout
COVERED_ELSEWHERE.update({n: "tests/e2e/test_warp_api.py" for n, b in BUILTINS.items() if b.category == "checks"})

# several results (svd3 ...) and the noise fields (no closed-form reference): tests/e2e/test_decompositions_noise.py
COVERED_ELSEWHERE.update({n: "tests/e2e/test_decompositions_noise.py" for n, b in BUILTINS.items()
                          if b.header in ("core/mat_decomp.h", "core/noise.h") or n in ("quat_to_axis_angle", "transform_decompose")})

COVERED_ELSEWHERE.update({n: "tests/e2e/test_array_search.py" for n in ("lower_bound", "sample_cdf")})
COVERED_ELSEWHERE["index"] = "tests/e2e/test_python_scope_builtins.py (a component of a matrix, vector, transform)"
# dense solves on arrays (Warp's dense_* of warp.optim.linear's tests), against numpy's linalg
COVERED_ELSEWHERE.update({n: "tests/e2e/test_dense_builtins.py"
                          for n in ("dense_gemm", "dense_chol", "dense_subs", "dense_solve")})
# bit reinterpretation, against numpy's views of the same bytes
COVERED_ELSEWHERE["cast"] = "tests/e2e/test_cast.py"
# Warp's call spelling of `not a` (a special form: numbers, bools, arrays that may be None)
COVERED_ELSEWHERE["unot"] = "tests/e2e/test_warp_public_names.py (against numpy's == 0 and the arrays given)"
# in-place updates of a transform variable
COVERED_ELSEWHERE.update({n: "tests/e2e/test_spatial_builtins.py"
                          for n in ("transform_set_translation", "transform_set_rotation")})

# tile builtins take and return tiles, which kernels build from arrays inside a tiled launch: each is
# checked against numpy (and its gradient against finite differences) in tests/e2e/test_tile*.py
COVERED_ELSEWHERE.update({n: "tests/e2e/test_tile*.py" for n, b in BUILTINS.items() if b.category == "tile"})
COVERED_ELSEWHERE.update({n: "tests/e2e/geometry/test_tiled_queries.py" for n, b in BUILTINS.items()
                          if b.header == "tiles/tile_query.h"})  # the thread-block geometry queries

E2E_NAMES = sorted(n for n in BUILTINS if n not in COVERED_ELSEWHERE)


def _report(results: dict, cases: list) -> str:
    by_id = {c.id: c for c in cases}
    failing = [cid for cid, errs in results.items() if errs]
    lines = [f"{len(failing)} of {len(results)} cases fail:"]
    for cid in failing:
        lines.append(f"- {cid}:")
        lines += ["    " + e.replace("\n", "\n    ") for e in results[cid][:3]]
    first = by_id.get(failing[0]) if failing else None
    if first is not None and first.source:
        lines += ["", f"kernel of {first.id}:", textwrap.indent(first.source, "    ")]
    return "\n".join(lines)


@pytest.mark.needs_cxx
@pytest.mark.parametrize("name", E2E_NAMES)
def test_builtin(name, tmp_path):
    cases = [c for c in bc.all_cases(name) if c.id not in bc.KNOWN_BROKEN]
    if not cases:
        pytest.skip(f"every case of wp.{name} is in KNOWN_BROKEN")
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), f"duplicate case ids: {sorted({i for i in ids if ids.count(i) > 1})}"
    results = bc.run_cases(cases, tmp_path, name)
    assert set(results) == set(ids)
    assert not any(results.values()), _report(results, cases)


@pytest.mark.needs_cxx
@pytest.mark.parametrize("name, arg_types", [("cross", (wp.vec3d, wp.vec3d)), ("mul", (wp.mat33f, wp.vec3f)),
                                             ("quat_rotate", (wp.quatd, wp.vec3d))])
def test_compile_call(name, arg_types, tmp_path):
    """The single-call helper: one kernel for wp.<name>(*arg_types), checked against the reference."""
    kernel, result, source = bc.compile_call(name, arg_types, tmp_path)
    assert f"wp.{name}(" in source and result is not None
    rng = np.random.default_rng(1)
    inputs = [bc.gen_value(t, rng) for t in arg_types]
    out = wp.zeros(bc.N, dtype=result)
    wp.launch(kernel, dim=bc.N, inputs=[*(wp.array(x, dtype=t) for x, t in zip(inputs, arg_types)), out])
    ref = bc.ref_for(name, arg_types)
    for i in range(bc.N):
        exp = ref(arg_types, *[bc.to_ref_value(x[i], t) for x, t in zip(inputs, arg_types)])
        assert bc.values_close(out.numpy()[i], exp, result), (i, out.numpy()[i], exp)


# --- known bugs: expected failures -----------------------------------------------------------------


def _run_isolated(case_id: str, tmp_path: Path) -> list:
    """Run one case in a child process (for cases that kill the process)."""
    code = textwrap.dedent(f"""
        import sys, pathlib
        sys.path.insert(0, {str(REPO_ROOT)!r})
        import warp_nb as wp
        from tests.support import builtin_cases as bc
        case = bc.find_case({case_id!r})
        errors = bc.run_cases([case], pathlib.Path({str(tmp_path)!r}), "isolated")[case.id]
        print("ERRORS:" + repr(errors))
    """)
    env = dict(os.environ, WARP_NB_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    if out.returncode != 0:
        return [f"the process died (exit status {out.returncode}): {out.stderr[-1500:]}"]
    marker = [ln for ln in out.stdout.splitlines() if ln.startswith("ERRORS:")]
    return eval(marker[-1][len("ERRORS:"):]) if marker else [f"no result: {out.stdout[-500:]} {out.stderr[-1500:]}"]


_E2E_BROKEN = sorted(k for k in bc.KNOWN_BROKEN if not k.startswith(("python:", "cpp:")))


@pytest.mark.needs_cxx
@pytest.mark.parametrize("case_id", [pytest.param(k, marks=pytest.mark.xfail(reason=bc.KNOWN_BROKEN[k], strict=False))
                                     for k in _E2E_BROKEN])
def test_known_broken(case_id, tmp_path):
    """The cases of KNOWN_BROKEN, still run: expected to fail until fixed (then XPASS: remove
    the entry)."""
    if bc.KNOWN_BROKEN[case_id].startswith("CRASH"):
        errors = _run_isolated(case_id, tmp_path)
    else:
        case = bc.find_case(case_id)
        errors = bc.run_cases([case], tmp_path, "known_broken")[case.id]
    assert not errors, "\n".join(errors[:4])


def test_known_broken_entries_exist():
    """Every KNOWN_BROKEN key names a case that is generated (no stale entries)."""
    stale = []
    for key in bc.KNOWN_BROKEN:
        if key.startswith("cpp:"):
            name = key[4:].split("[")[0]
            if name not in BUILTINS:
                stale.append(key)
            continue
        case_id = key[len("python:"):] if key.startswith("python:") else key
        try:
            bc.find_case(case_id)
        except KeyError:
            stale.append(key)
    assert not stale, f"KNOWN_BROKEN entries that match no case: {stale}"


# --- Python-scope implementations ----------------------------------------------------------------

PY_NAMES = sorted(n for n, b in BUILTINS.items() if b.python is not None and n not in bc.HAND_WRITTEN
                  and n not in COVERED_ELSEWHERE)


@pytest.mark.parametrize("name", PY_NAMES)
def test_python_scope(name):
    """wp.<name>(...) called from Python agrees with the reference on the kernel cases' inputs."""
    failures = {}
    for inst in bc.instances(name)[0]:
        if inst.has_array or f"python:{inst.id}" in bc.KNOWN_BROKEN:
            continue
        errors = bc.python_scope_errors(inst)
        if errors:
            failures[inst.id] = errors
    assert not failures, "\n".join(f"{k}: {v[:2]}" for k, v in failures.items())


_PY_BROKEN = sorted(k for k in bc.KNOWN_BROKEN if k.startswith("python:"))


@pytest.mark.parametrize("key", [pytest.param(k, marks=pytest.mark.xfail(reason=bc.KNOWN_BROKEN[k], strict=False))
                                 for k in _PY_BROKEN])
def test_python_scope_known_broken(key):
    case_id = key[len("python:"):]
    inst = next(i for i in bc.instances(case_id.split("(")[0])[0] if i.id == case_id)
    errors = bc.python_scope_errors(inst)
    assert not errors, "\n".join(errors[:3])


def test_python_scope_special_forms():
    m = wp.identity(3, wp.float64)
    assert type(m) is wp.mat33d and np.array_equal(np.asarray(m), np.eye(3))
    assert type(wp.identity(2)) is wp.mat22f
    q = wp.quat_identity()
    assert type(q) is wp.quatf and np.array_equal(np.asarray(q), [0, 0, 0, 1])
    assert type(wp.quat_identity(wp.float64)) is wp.quatd
    t = wp.transform_identity(dtype=wp.float64)
    assert type(t) is wp.transformd and np.array_equal(np.asarray(t), [0, 0, 0, 0, 0, 0, 1])
    a, b = wp.vec3(1.0, 2.0, 3.0), wp.vec3(4.0, 5.0, 6.0)
    rows = wp.matrix_from_rows(a, b)
    assert np.array_equal(np.asarray(rows), [[1, 2, 3], [4, 5, 6]])
    cols = wp.matrix_from_cols(a, b)
    assert np.array_equal(np.asarray(cols), [[1, 4], [2, 5], [3, 6]])
    sentinel = object()
    assert wp.static(sentinel) is sentinel


# --- printf -------------------------------------------------------------------------------------

PRINTF_SOURCE = '''
import warp_nb as wp


@wp.kernel
def show(x: wp.array(dtype=wp.float32), n: wp.array(dtype=wp.int32)):
    i = wp.tid()
    wp.printf("printf-test %d %d %.3f\\n", i, n[i], x[i])
'''


@pytest.mark.needs_cxx
def test_printf(tmp_path, capfd):
    module = bc.import_source(tmp_path / "mod_printf.py", PRINTF_SOURCE)
    x = wp.array(np.array([0.5, -1.25, 2.0], np.float32), dtype=wp.float32)
    n = wp.array(np.array([7, -8, 9], np.int32), dtype=wp.int32)
    wp.launch(module.show, dim=3, inputs=[x, n])
    wp.synchronize()
    out = capfd.readouterr().out
    lines = sorted(ln for ln in out.splitlines() if ln.startswith("printf-test"))
    assert lines == ["printf-test 0 7 0.500", "printf-test 1 -8 -1.250", "printf-test 2 9 2.000"], out


# --- coverage -----------------------------------------------------------------------------------


def coverage() -> dict:
    """Per builtin: overloads (index, or None for a special form) with a passing case, with only
    known-broken cases, and without any case."""
    report = {}
    for name, b in BUILTINS.items():
        if b.category == "external":  # registered at run time by a test (tests/e2e/test_external_builtins.py)
            continue
        units = list(range(len(b.overloads))) or [None]
        ok, broken = set(), set()
        # operators on tiles (tile + tile, scalar * tile, ...): tests/e2e/test_tile*.py, against numpy
        ok.update(k for k, o in enumerate(b.overloads) if any(isinstance(p, R.Tile) for p in o.params))
        if name in COVERED_ELSEWHERE:
            ok.update(units)
        else:
            for c in bc.all_cases(name):
                for _, oi in c.covers:
                    (broken if c.id in bc.KNOWN_BROKEN else ok).add(oi)
        report[name] = {"ok": ok, "broken": broken - ok, "missing": [u for u in units if u not in ok | broken],
                        "units": units}
    return report


def _builtin_of(key: str) -> str:
    key = key.split(":", 1)[1] if key.startswith(("python:", "cpp:")) else key
    return key.split("(")[0].split("[")[0].split(" ")[0]


def test_coverage():
    """Every overload of every builtin has a case (or a dedicated test, COVERED_ELSEWHERE); the
    summary is printed at the end of the test run (tests/support/report.py)."""
    report = coverage()
    missing = {n: r["missing"] for n, r in report.items() if r["missing"]}
    total = sum(len(r["units"]) for r in report.values())
    ok = sum(len(r["ok"]) for r in report.values())
    broken = {n: sorted(r["broken"], key=str) for n, r in report.items() if r["broken"]}
    with_known_bugs = sorted({_builtin_of(k) for k in bc.KNOWN_BROKEN})
    summary = (f"builtin coverage: {sum(1 for r in report.values() if r['ok'])}/{len(report)} builtins and "
               f"{ok}/{total} overloads (a special form counts as one) have passing end-to-end cases; "
               f"overloads with only known-broken cases: {broken}; builtins with KNOWN_BROKEN entries: "
               f"{with_known_bugs}; checked by dedicated tests: {COVERED_ELSEWHERE}")
    report_summary(summary)
    assert not missing, f"overloads without any case: {missing}"
