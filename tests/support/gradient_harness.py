"""The gradient harness: builds one kernel per batch of GradCases from source text, launches
it on P random points, computes each point's Jacobian from the adjoint (one launch per output
component) and from central finite differences (one pair of launches per input scalar), and
compares them with the tolerances of gradient_cases.PRECISION, describing each failing entry
with a reproducer."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np

import warp_nb as wp

from tests.support import builtin_cases as bc
from tests.support.gradient_cases import EXACT, GradCase, P, PER_KERNEL, PRECISION, _float_type


# --- the harness -------------------------------------------------------------------------------------


def _rows(a) -> np.ndarray:
    """The array's scalars as (points, scalars per point): a view (writes reach the array)."""
    return a.numpy().reshape(a.shape[0], -1)


def _make_arrays(case: GradCase) -> dict:
    out = {}
    for p in case.params:
        rg = _float_type(p.type)
        if p.data is None:
            out[p.key] = wp.zeros(p.shape, dtype=p.type, requires_grad=rg)
        else:
            out[p.key] = wp.array(p.data.reshape(p.shape + bc.inner_shape(p.type)), dtype=p.type, requires_grad=rg)
    return out


class _Batch:
    """The arrays of the cases of one kernel, and their Jacobians (per point)."""

    def __init__(self, kernel, cases: list):
        self.kernel, self.cases = kernel, cases
        self.arrays = [_make_arrays(c) for c in cases]
        self.flat = [arrs[p.key] for c, arrs in zip(cases, self.arrays) for p in c.params]
        self.initial = [{k: _rows(arrs[k]).copy() for k in c.outs} for c, arrs in zip(cases, self.arrays)]
        # (key, column) of every output scalar and every differentiated input scalar, per case
        self.out_index = [[(k, j) for k in c.outs for j in range(_rows(arrs[k]).shape[1])]
                          for c, arrs in zip(cases, self.arrays)]
        self.in_index = [[(k, j) for k in c.diff for j in range(_rows(arrs[k]).shape[1])]
                         for c, arrs in zip(cases, self.arrays)]

    def forward(self):
        for arrs, init in zip(self.arrays, self.initial):
            for k, v in init.items():
                _rows(arrs[k])[:] = v
        wp.launch(self.kernel, dim=P, inputs=self.flat)

    def outputs(self, ci) -> np.ndarray:
        c, arrs = self.cases[ci], self.arrays[ci]
        return np.concatenate([_rows(arrs[k]).astype(np.float64) for k in c.outs], axis=1)

    def adjoint_jacobians(self) -> list:
        """d outputs / d inputs per point from the backward code: (points, outputs, inputs)."""
        jac = [np.zeros((P, len(o), len(i))) for o, i in zip(self.out_index, self.in_index)]
        for e in range(max(len(o) for o in self.out_index)):
            self.forward()  # the backward code of atomic_min/max reads the stored result
            for a in self.flat:
                if a.grad is not None:
                    a.grad.zero_()
            for ci, arrs in enumerate(self.arrays):
                if e < len(self.out_index[ci]):
                    k, j = self.out_index[ci][e]
                    _rows(arrs[k].grad)[:, j] = 1.0
            wp.launch(self.kernel, dim=P, inputs=self.flat, adjoint=True)
            for ci, (c, arrs) in enumerate(zip(self.cases, self.arrays)):
                if e < len(self.out_index[ci]):
                    jac[ci][:, e, :] = np.concatenate([_rows(arrs[k].grad).astype(np.float64) for k in c.diff],
                                                      axis=1)
        return jac

    def fd_jacobians(self) -> list:
        """d outputs / d inputs per point by central differences, every point moved at once."""
        jac = [np.zeros((P, len(o), len(i))) for o, i in zip(self.out_index, self.in_index)]
        for m in range(max(len(i) for i in self.in_index)):
            moved = [ci for ci in range(len(self.cases)) if m < len(self.in_index[ci])]
            saved, step, values = {}, {}, {}
            for ci in moved:
                k, j = self.in_index[ci][m]
                col = _rows(self.arrays[ci][k])[:, j]
                saved[ci] = col.copy()
            for sign in (1.0, -1.0):
                for ci in moved:
                    k, j = self.in_index[ci][m]
                    x = _rows(self.arrays[ci][k])
                    x[:, j] = saved[ci] + sign * self._eps(ci)
                    step[ci] = step.get(ci, 0.0) + sign * (x[:, j].astype(np.float64) - saved[ci].astype(np.float64))
                self.forward()
                for ci in moved:
                    values[ci] = values.get(ci, 0.0) + sign * self.outputs(ci)
            for ci in moved:
                k, j = self.in_index[ci][m]
                _rows(self.arrays[ci][k])[:, j] = saved[ci]
                jac[ci][:, :, m] = values[ci] / step[ci][:, None]  # the step actually taken (rounded)
        return jac

    def _eps(self, ci) -> float:
        c = self.cases[ci]
        return c.eps if c.eps is not None else PRECISION[c.scalar]["eps"]


def _describe_point(case: GradCase, batch: _Batch, ci: int, p: int) -> str:
    """The inputs of point p (and the initial values of outputs that have them)."""
    parts = []
    for prm in case.params:
        if prm.key in case.outs:
            if prm.data is None:
                continue
            v, key = batch.initial[ci][prm.key][p], f"{prm.key} (initial)"
        else:
            v, key = _rows(batch.arrays[ci][prm.key])[p], prm.key
        parts.append(f"{key}={np.array2string(v, precision=10, separator=', ') if v.size > 1 else repr(v[0])}")
    return ", ".join(parts)


def reproducer(case: GradCase) -> str:
    """Standalone module text with a kernel of this case alone."""
    return bc.KernelModule([[case.as_case()]]).source()


def _compare(case: GradCase, batch: _Batch, ci: int, ad: np.ndarray, fd: np.ndarray | None) -> list:
    errors = []
    out_names = [f"{k}[{j}]" for k, j in batch.out_index[ci]]
    in_names = [f"{k}[{j}]" for k, j in batch.in_index[ci]]
    if fd is None:  # documented values
        ref = np.broadcast_to(case.expected, ad.shape)
        same_special = (np.isnan(ref) & np.isnan(ad)) | (np.isinf(ref) & (ad == ref))
        tol = EXACT[case.scalar] * (1 + np.abs(np.where(np.isfinite(ref), ref, 0)))
        with np.errstate(invalid="ignore"):
            ok = same_special | (np.abs(ad - ref) <= tol)
        label = "documented"
    else:
        ref = fd
        batch.forward()
        out = batch.outputs(ci)
        scale = float(np.max(np.abs(out[np.isfinite(out)]), initial=0.0))
        prec = PRECISION[case.scalar]
        tol = case.tol * (prec["atol"] * (1 + scale) + prec["rtol"] * np.abs(fd))
        with np.errstate(invalid="ignore"):
            ok = np.abs(ad - fd) <= tol
        label = "finite difference"
        if case.constant and np.any(fd != 0):
            errors.append("the finite differences are not 0 for a piecewise constant builtin: an input lies "
                          "on a jump (domain bug)")
        if not case.constant and not np.any(fd != 0):
            errors.append("the finite differences are all 0: the perturbed inputs do not reach the outputs "
                          "(harness bug)")
    if not ok.all():
        with np.errstate(invalid="ignore"):
            err = np.where(ok, 0.0, np.nan_to_num(np.abs(ad - ref), nan=np.inf, posinf=np.inf))
        worst = np.argsort(-err, axis=None)[:3]
        for flat in worst:
            p, o, i = np.unravel_index(flat, err.shape)
            if ok[p, o, i]:
                break
            errors.append(f"point {p}: d {out_names[o]} / d {in_names[i]}: adjoint {ad[p, o, i]:.10g}, "
                          f"{label} {ref[p, o, i]:.10g}   at {_describe_point(case, batch, ci, p)}")
        errors.insert(0, f"{int((~ok).sum())} of {ok.size} Jacobian entries differ")
    return errors


def check_cases(cases: list, directory: Path, name: str, per_kernel: int = PER_KERNEL) -> dict:
    """{case id: error strings} (empty when the case passed). Cases share kernels, `per_kernel` to
    one; a kernel that fails to build or launch is retried one case per kernel, so that the
    report names the failing overload."""
    groups = [cases[k:k + per_kernel] for k in range(0, len(cases), per_kernel)]
    results = _run_groups(groups, directory, name)
    retry = [g for g in groups if len(g) > 1 and any(_is_build_error(results[c.id]) for c in g)]
    if retry:
        results.update(_run_groups([[c] for g in retry for c in g], directory, name + "_isolated"))
    return results


def _is_build_error(errors) -> bool:
    return bool(errors) and errors[0].startswith("BUILD ")


def _run_groups(groups, directory: Path, name: str) -> dict:
    text = bc.KernelModule([[c.as_case() for c in g] for g in groups])
    module = bc.import_source(directory / f"grad_{name}.py", text.source())
    results = {}
    for g, cases in enumerate(groups):
        for c in cases:
            c.source = text.kernel_sources[g]
        try:
            batch = _Batch(getattr(module, f"k{g}"), cases)
            ad = batch.adjoint_jacobians()
            fd = batch.fd_jacobians() if any(c.expected is None for c in cases) else [None] * len(cases)
        except Exception as e:  # build errors (forward or backward code) and launch errors
            for c in cases:
                results[c.id] = [f"BUILD {type(e).__name__}: {e}"]
            continue
        for ci, c in enumerate(cases):
            try:
                results[c.id] = _compare(c, batch, ci, ad[ci], None if c.expected is not None else fd[ci])
            except Exception as e:  # a broken comparison fails its case, not the batch
                results[c.id] = [f"CHECK {type(e).__name__}: {e}"]
    return results


def report(results: dict, cases: list) -> str:
    by_id = {c.id: c for c in cases}
    failing = [cid for cid, errs in results.items() if errs]
    lines = [f"{len(failing)} of {len(results)} gradient cases fail:"]
    for cid in failing:
        lines.append(f"- {cid}:")
        lines += ["    " + e.replace("\n", "\n    ") for e in results[cid][:4]]
    if failing:
        lines += ["", f"reproducer for {failing[0]} (arguments: inputs, then outputs):",
                  textwrap.indent(reproducer(by_id[failing[0]]), "    ")]
    return "\n".join(lines)
