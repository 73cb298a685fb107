"""Gradient checks for every differentiable builtin in the registry.

Every overload of every builtin with `differentiable=True` is instantiated with float types
(float32 and float64; vector lengths 2/3/4; matrix shapes from builtin_cases; quaternions and
transforms), called from a kernel built from source text (out[i] = wp.<name>(a0[i], a1[i], ...),
and the operator syntax for operators), and its adjoint is compared with central finite
differences over several random input points in a domain without kinks (builtin_cases supplies
the type instantiation and the kernel text; the domains are in gradient_cases.py, the
harness in gradient_harness.py).

The Jacobians are computed per thread: every thread reads its own element of each input and
writes its own element of each output, so one adjoint launch seeded with component e of every
output gives row e of every point's Jacobian at once, and one pair of forward launches with
input scalar m of every point moved by +-eps gives column m. Several cases share a kernel (they
are independent too). A test for warp_nb.autograd.gradcheck itself runs the same kind of
kernel through it, and contended atomics (threads sharing an output) go through gradcheck.

float64 (eps 1e-6, tight tolerances) is the main check: it catches wrong formulas. float32
(eps 1e-3, loose tolerances) is a smoke check of the float32 instantiations.

tests/test_subgradients.py evaluates adjoints exactly at the non-smooth points listed in
docs/subgradients.md and compares them with the table's values (subgradient_cases.py).

Cases that fail because of a bug in warp_nb are listed in KNOWN_BROKEN_GRADIENTS: they are left
out of the passing tests and run as strict expected failures (a fix shows as XPASS and fails
the run: then remove the entry)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import warp_nb as wp
from warp_nb import autograd
from warp_nb.builtins import registry as R
from warp_nb.builtins.registry import BUILTINS

from tests.support import builtin_cases as bc
from tests.support.gradient_cases import GRAD_NAMES, GradCase, KNOWN_BROKEN_GRADIENTS, P, grad_cases, uni
from tests.support.gradient_harness import _Batch, _compare, check_cases, report
from tests.support.subgradient_cases import SUBGRADIENT_ROWS

f64 = bc.f64


# --- tests: finite differences ------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.needs_cxx
@pytest.mark.parametrize("name", GRAD_NAMES)
def test_gradients(name, tmp_path):
    """The adjoint of every float overload of wp.<name> matches central finite differences at
    P random points (float64: tight; float32: a smoke check)."""
    cases = [c for c in grad_cases(name) if c.id not in KNOWN_BROKEN_GRADIENTS]
    if not cases:
        pytest.skip(f"every gradient case of wp.{name} is in KNOWN_BROKEN_GRADIENTS")
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), f"duplicate case ids: {sorted({i for i in ids if ids.count(i) > 1})}"
    results = check_cases(cases, tmp_path, name)
    assert set(results) == set(ids)
    assert not any(results.values()), report(results, cases)


def _all_case_ids() -> dict:
    return {c.id: name for name in GRAD_NAMES for c in grad_cases(name)}


def test_every_differentiable_overload_is_checked():
    """Coverage: every overload of every differentiable builtin has a gradient case (builtins
    without overloads, typed by name, have hand-written ones)."""
    missing = []
    for name in GRAD_NAMES:
        covered = {cov for c in grad_cases(name) for cov in c.covers}
        b = BUILTINS[name]
        wanted = [(name, k) for k, o in enumerate(b.overloads)
                  if not any(isinstance(p, R.Tile) for p in o.params)] if b.overloads else [(name, None)]
        # (operators on tiles: tests/e2e/test_tile*.py, against finite differences)
        missing += [f"wp.{n} overload {k}" for n, k in wanted if (n, k) not in covered]
    assert not missing, "overloads without a gradient case: " + ", ".join(missing)


def test_known_broken_entries_exist():
    ids = set(_all_case_ids()) | {r.id for r in SUBGRADIENT_ROWS}
    stale = [cid for cid in KNOWN_BROKEN_GRADIENTS if cid not in ids]
    assert not stale, f"KNOWN_BROKEN_GRADIENTS names cases that do not exist: {stale}"


def _find_case(case_id: str) -> GradCase:
    for r in SUBGRADIENT_ROWS:
        if r.id == case_id:
            return r
    name = _all_case_ids()[case_id]
    return next(c for c in grad_cases(name) if c.id == case_id)


@pytest.mark.needs_cxx
@pytest.mark.parametrize("case_id", [pytest.param(cid, marks=pytest.mark.xfail(reason=why, strict=True))
                                     for cid, why in KNOWN_BROKEN_GRADIENTS.items()])
def test_known_broken_gradient(case_id, tmp_path):
    case = _find_case(case_id)
    results = check_cases([case], tmp_path, "broken")
    assert not results[case_id], report(results, [case])


# --- tests: the harness and autograd.gradcheck -------------------------------------------------------


def test_comparison_can_fail():
    """The comparison is not vacuous: a 1e-4 relative error in one entry fails a float64 case."""
    case = grad_cases("sin")[1]
    assert case.scalar is f64

    class _Fake:
        out_index, in_index = [[("out", 0)]], [[("a0", 0)]]
        arrays = [{"a0": wp.array(np.ones(P), dtype=f64), "out": wp.zeros(P, dtype=f64)}]
        cases = [case]

        def forward(self):
            pass

        def outputs(self, ci):
            return np.ones((P, 1))

    fd = np.full((P, 1, 1), 0.5)
    assert _compare(case, _Fake(), 0, fd.copy(), fd) == []
    bad = fd.copy()
    bad[3, 0, 0] *= 1 + 1e-4
    errors = _compare(case, _Fake(), 0, bad, fd)
    assert errors and "point 3" in errors[1], errors


@pytest.mark.needs_cxx
def test_harness_catches_a_wrong_custom_gradient(tmp_path):
    """A @wp.func with a deliberately wrong custom adjoint (2x instead of 3x^2 for x^3, correct
    at x = +-2/3 only) fails the check; with the right adjoint it passes."""
    source = textwrap.dedent("""
        import warp_nb as wp

        @wp.func
        def cube(x: wp.float64):
            return x * x * x

        @wp.func_grad(cube)
        def adj_cube(x: wp.float64, adj_ret: wp.float64):
            wp.adjoint[x] += WRONG * adj_ret

        @wp.kernel
        def k0(a: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
            i = wp.tid()
            out[i] = cube(a[i])
    """)
    rng = np.random.default_rng(0)
    for wrong, should_pass in (("2.0 * x", False), ("3.0 * x * x", True)):
        module = bc.import_source(tmp_path / f"cube_{should_pass}.py", source.replace("WRONG", wrong))
        params = [bc.Param("a0", f64, uni(f64, rng, 0.8, 2.0), (P,)), bc.Param("out", f64, None, (P,))]
        case = GradCase(f"cube {wrong}", "cube", params, lambda n: "", ("a0",), ("out",), f64)
        batch = _Batch(module.k0, [case])
        errors = _compare(case, batch, 0, batch.adjoint_jacobians()[0], batch.fd_jacobians()[0])
        assert (errors == []) == should_pass, errors


@pytest.mark.slow
@pytest.mark.needs_cxx
def test_autograd_gradcheck_agrees(tmp_path):
    """warp_nb.autograd.gradcheck (full Jacobian over the launch, one adjoint launch per output
    scalar) on a few of the generated kernels: it passes on correct adjoints, and jacobian /
    jacobian_fd have the per-point blocks of this file's batched computation on the diagonal and
    nothing elsewhere."""
    picks = [("cross", "cross(vec3d, vec3d)"), ("inverse", "inverse(mat33d)"),
             ("quat_rotate", "quat_rotate(quatd, vec3d)")]
    for name, cid in picks:
        case = next(c for c in grad_cases(name) if c.id == cid)
        text = bc.KernelModule([[case.as_case()]])
        module = bc.import_source(tmp_path / f"gc_{name}.py", text.source())
        batch = _Batch(module.k0, [case])
        ins = [batch.arrays[0][p.key] for p in case.params if p.key not in case.outs]
        outs = [batch.arrays[0][k] for k in case.outs]
        rep = autograd.gradcheck_report(module.k0, P, ins, outs, eps=1e-6, atol=1e-7, rtol=1e-6, raise_exception=False)
        assert rep.passed, f"{cid}:\n{rep}"
        for full, mine, tol in ((autograd.jacobian(module.k0, P, ins, outs), batch.adjoint_jacobians()[0], 1e-12),
                                (autograd.jacobian_fd(module.k0, P, ins, outs, eps=1e-6), batch.fd_jacobians()[0],
                                 1e-8)):
            no, col = mine.shape[1], 0
            for k, p in enumerate(p for p in case.params if p.key not in case.outs):
                ni = int(np.prod(bc.inner_shape(p.type), dtype=int))
                blk = full[(k, 0)].numpy().astype(np.float64)  # (P * outputs, P * inputs)
                for pt in range(P):
                    np.testing.assert_allclose(blk[pt * no:(pt + 1) * no, pt * ni:(pt + 1) * ni],
                                               mine[pt, :, col:col + ni], rtol=tol, atol=tol)
                    blk[pt * no:(pt + 1) * no, pt * ni:(pt + 1) * ni] = 0
                assert not blk.any(), f"{cid}: a thread's output depends on another thread's input"
                col += ni


@pytest.mark.needs_cxx
@pytest.mark.parametrize("name", ["atomic_add", "atomic_sub", "atomic_min", "atomic_max"])
def test_contended_atomics_gradcheck(name, tmp_path):
    """Several threads into one element (gradcheck over the whole launch): add/sub pass the
    element's gradient to every value; min/max only to the value that ends up stored."""
    source = textwrap.dedent(f"""
        import warp_nb as wp

        @wp.kernel
        def k(a: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
            i = wp.tid()
            wp.{name}(out, i % 3, a[i] * a[i])
    """)
    module = bc.import_source(tmp_path / f"contended_{name}.py", source)
    rng = np.random.default_rng(3)
    a = wp.array(np.sort(rng.uniform(0.5, 2.0, 9)), dtype=f64, requires_grad=True)  # distinct squares: no ties
    init = {"atomic_min": 3.0, "atomic_max": 0.5}.get(name, 0.25)
    out = wp.array(np.full(3, init) + np.array([0.0, 10.0, -10.0]) * (name in ("atomic_min", "atomic_max")),
                   dtype=f64, requires_grad=True)
    rep = autograd.gradcheck_report(module.k, 9, [a], [out], eps=1e-6, atol=1e-7, rtol=1e-6, raise_exception=False)
    assert rep.passed, str(rep)
    jac = autograd.jacobian(module.k, 9, [a], [out])[(0, 0)].numpy()
    if name in ("atomic_min", "atomic_max"):
        # slot 1 starts at init + 10 (min: every value wins at first; max: the initial value
        # stays), slot 2 at init - 10 (the reverse): the winners get the gradient 2 a
        assert (np.count_nonzero(jac, axis=1) <= 1).all(), jac
