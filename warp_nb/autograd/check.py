"""Gradient checks: the adjoint Jacobian against central differences, for one kernel launch or
Python function (`gradcheck`), or for every kernel launch recorded on a tape (`gradcheck_tape`).

An entry passes when |AD - FD| <= atol + rtol * |FD| and the adjoint is finite; entries left
out by max_inputs_per_var / max_outputs_per_var are not compared. `gradcheck` returns a bool, as
Warp's does; `gradcheck_report` (warp_nb's) returns the report it is made from, with the worst
entries, for tools such as the notebook's GradientInspector."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..compiler.param_access import param_access
from ..arrays.array import array
from .tape_records import LaunchRecord
from .jacobians import _differentiable, jacobian, jacobian_fd, make_job
from .metadata import FunctionMetadata


@dataclass
class GradcheckReport:
    passed: bool
    max_abs_error: float
    max_rel_error: float
    #: (abs error, input label, input scalar, output label, output scalar, adjoint, finite difference), worst first
    worst: list
    key: str = ""
    #: per (input, output) pair: (input label, output label, max abs error, its (row, column), AD there,
    #: FD there, max rel error, passed)
    pairs: list = field(default_factory=list)

    def __str__(self):
        lines = [(f"gradcheck of {self.key or 'the function'} {'passed' if self.passed else 'FAILED'}: max abs error "
                  f"{self.max_abs_error:.3g}, max rel error {self.max_rel_error:.3g}")]
        if self.pairs:
            lines.append(f"  {'input':<12} {'output':<12} {'max abs error':<24} {'AD there':>12} {'FD there':>12} "
                         f"{'max rel error':>14}  result")
            for iname, oname, err, at, ad, fd, rel, ok in self.pairs:
                where = f"{err:.3e} at {at}"
                lines.append(f"  {iname:<12} {oname:<12} {where:<24} {ad:>12.4e} {fd:>12.4e} {rel:>14.3e}  "
                             f"{'pass' if ok else 'FAIL'}")
        for err, iname, ie, oname, oe, ad, fd in self.worst:
            lines.append(f"  d {oname}[{oe}] / d {iname}[{ie}]: adjoint {ad:.6g}, finite difference {fd:.6g} "
                         f"(error {err:.3g})")
        return "\n".join(lines)

    def __bool__(self):
        return self.passed


def gradcheck(function, dim=None, inputs=None, outputs=None, *, eps: float = 1e-4, atol: float = 1e-3,
              rtol: float = 1e-2, raise_exception: bool = True, input_output_mask=None, device=None, max_blocks=0,
              block_dim=None, max_inputs_per_var=-1, max_outputs_per_var=-1, plot_relative_error=False,
              plot_absolute_error=False, show_summary: bool = True, restore_inputs: bool = True) -> bool:
    """Whether the adjoint Jacobian of a kernel launch (or of a Python function launching kernels)
    matches central finite differences. With raise_exception, a failure raises ValueError."""
    return gradcheck_report(function, dim, inputs, outputs, eps=eps, atol=atol, rtol=rtol,
                            raise_exception=raise_exception, input_output_mask=input_output_mask, device=device,
                            max_blocks=max_blocks, block_dim=block_dim, max_inputs_per_var=max_inputs_per_var,
                            max_outputs_per_var=max_outputs_per_var, plot_relative_error=plot_relative_error,
                            plot_absolute_error=plot_absolute_error, show_summary=show_summary,
                            restore_inputs=restore_inputs).passed


def gradcheck_report(function, dim=None, inputs=None, outputs=None, *, eps: float = 1e-4, atol: float = 1e-3,
                     rtol: float = 1e-2, raise_exception: bool = True, input_output_mask=None, device=None,
                     max_blocks=0, block_dim=None, max_inputs_per_var=-1, max_outputs_per_var=-1,
                     plot_relative_error=False, plot_absolute_error=False, show_summary: bool = False,
                     restore_inputs: bool = True, worst: int = 5) -> GradcheckReport:
    """gradcheck's comparison as a GradcheckReport (truthy when it passed; str() explains it)."""
    metadata = make_job(function, dim, inputs, outputs, device, max_blocks, block_dim, None).metadata
    common = {"input_output_mask": input_output_mask, "device": device, "max_blocks": max_blocks,
              "block_dim": block_dim, "metadata": metadata, "restore_inputs": restore_inputs}
    analytic = jacobian(function, dim, inputs, outputs, max_outputs_per_var=max_outputs_per_var, **common)
    numeric = jacobian_fd(function, dim, inputs, outputs, max_inputs_per_var=max_inputs_per_var, eps=eps, **common)
    report = compare(analytic, numeric, metadata, atol, rtol, max_inputs_per_var, max_outputs_per_var, worst)
    if show_summary:
        print(report)
    for wanted, what, errors in ((plot_relative_error, "relative", report.relative),
                                 (plot_absolute_error, "absolute", report.absolute)):
        if wanted:
            from .plot import jacobian_plot
            jacobian_plot(errors, metadata, inputs=inputs, title=f"{metadata.key} kernel Jacobian {what} error",
                          colormap="viridis")
    if raise_exception and not report.passed:
        raise ValueError(str(report))
    return report


def compare(analytic: dict, numeric: dict, metadata: FunctionMetadata, atol, rtol, max_inputs_per_var=-1,
            max_outputs_per_var=-1, worst: int = 5) -> GradcheckReport:
    rows, summary, relative, absolute = [], [], {}, {}
    passed, max_abs, max_rel = True, 0.0, 0.0
    ilabels, olabels = metadata.input_labels or [], metadata.output_labels or []
    for key in sorted(analytic):
        ad = analytic[key].numpy().astype(np.float64)
        fd = numeric[key].numpy().astype(np.float64)
        compared = np.ones(ad.shape, dtype=bool)  # the entries both Jacobians computed
        if max_outputs_per_var >= 0:
            compared[max_outputs_per_var:] = False
        if max_inputs_per_var >= 0:
            compared[:, max_inputs_per_var:] = False
        err = np.where(compared, np.abs(ad - fd), 0.0)
        bad = compared & ~(np.isfinite(ad) & np.isfinite(fd) & (err <= atol + rtol * np.abs(fd)))
        err = np.where(compared & ~np.isfinite(err), np.inf, err)
        rel = np.where(compared, err / np.maximum(np.abs(fd), 1e-12), 0.0)
        ok = not bad.any()
        passed &= ok
        iname = ilabels[key[0]] if key[0] < len(ilabels) else f"input {key[0]}"
        oname = olabels[key[1]] if key[1] < len(olabels) else f"output {key[1]}"
        at = np.unravel_index(int(np.argmax(err)), err.shape) if err.size else (0, 0)
        max_abs, max_rel = max(max_abs, float(err.max(initial=0.0))), max(max_rel, float(rel.max(initial=0.0)))
        summary.append((iname, oname, float(err[at]) if err.size else 0.0, tuple(int(v) for v in at),
                        float(ad[at]) if ad.size else 0.0, float(fd[at]) if fd.size else 0.0,
                        float(rel.max(initial=0.0)), ok))
        order = np.argsort(-np.where(bad, np.inf, err), axis=None)[:worst]
        for oe, ie in zip(*np.unravel_index(order, err.shape)):
            rows.append((float(err[oe, ie]), iname, int(ie), oname, int(oe), float(ad[oe, ie]), float(fd[oe, ie])))
        device = analytic[key].device
        relative[key] = array(np.where(compared, rel, np.nan), dtype=float, device=device)
        absolute[key] = array(np.where(compared, err, np.nan), dtype=float, device=device)
    rows.sort(key=lambda r: -r[0] if np.isfinite(r[0]) else -np.inf)
    report = GradcheckReport(bool(passed), max_abs, max_rel, rows[:worst], metadata.key or "", summary)
    report.relative, report.absolute = relative, absolute
    return report


def gradcheck_tape(tape, *, eps=1e-4, atol=1e-3, rtol=1e-2, raise_exception=True, input_output_masks=None,
                   blacklist_kernels=None, whitelist_kernels=None, max_inputs_per_var=-1, max_outputs_per_var=-1,
                   plot_relative_error=False, plot_absolute_error=False, show_summary: bool = True,
                   reverse_launches: bool = False, skip_to_launch_index: int = 0) -> bool:
    """gradcheck every kernel launch recorded on `tape` (with the arrays' current values). Launches
    of kernels whose backward pass is disabled, recorded Python functions and copies are skipped,
    as are kernels left out by the black/white lists (kernel names or kernels)."""
    names = lambda kernels: {getattr(k, "key", k) for k in kernels or ()}
    blacklist, whitelist = names(blacklist_kernels), names(whitelist_kernels)
    launches = [r for r in tape.launches if isinstance(r, LaunchRecord)]
    if reverse_launches:
        launches.reverse()
    failed = []
    for record in launches[skip_to_launch_index:]:
        kernel = record.kernel
        if kernel.key in blacklist or (whitelist and kernel.key not in whitelist) or not kernel.backward_enabled:
            continue
        inputs, outputs = _split(record)
        if not any(_differentiable(a) for a in inputs) or not any(_differentiable(a) for a in outputs):
            continue
        ok = gradcheck(kernel, record.dim, inputs, outputs, eps=eps, atol=atol, rtol=rtol, raise_exception=False,
                       input_output_mask=(input_output_masks or {}).get(kernel.key), device=record.device,
                       max_inputs_per_var=max_inputs_per_var, max_outputs_per_var=max_outputs_per_var,
                       plot_relative_error=plot_relative_error, plot_absolute_error=plot_absolute_error,
                       show_summary=show_summary)
        if not ok:
            failed.append(kernel.key)
    if failed and raise_exception:
        raise ValueError(f"gradcheck_tape: the gradients of {', '.join(f'`{k}`' for k in failed)} do not match "
                         "finite differences")
    return not failed


def _split(record):
    """A recorded launch's inputs and outputs; when everything was passed as inputs, the outputs
    are the trailing parameters the kernel writes."""
    if record.outputs:
        return list(record.inputs), list(record.outputs)
    args = list(record.inputs)
    _read, written = param_access(record.typed_ir())
    k = len(args)
    while k > 0 and k - 1 in written:
        k -= 1
    return args[:k], args[k:]
