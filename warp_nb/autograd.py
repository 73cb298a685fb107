"""Gradient checking for kernels (`warp_nb.autograd`, after Warp's module of the same name):
Jacobians from the adjoint code (`jacobian`), from central finite differences (`jacobian_fd`),
and `gradcheck`, which compares the two and reports the worst entries.

Jacobians are keyed by (input index, output index) over the kernel's argument list and are
numpy arrays of shape (output scalars, input scalars): vectors and matrices count as their
scalars. The user's arrays are not modified (gradients go to private buffers, and perturbed
inputs and outputs are restored)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import types as T
from .arrays.create import zeros
from .arrays.array import array
from .launcher import launch


def _float_array(a) -> bool:
    return isinstance(a, array) and T.scalar_type_of(a.dtype) is not None and T.scalar_type_of(a.dtype)._kind == "float"


def _scalars(a: array) -> np.ndarray:
    """A flat numpy view of the array's scalars (the array must be contiguous)."""
    if not a.is_contiguous:
        raise ValueError("gradient checking needs contiguous arrays; pass a.contiguous()")
    return a.numpy().reshape(-1)


def _with_private_grads(args):
    """The arguments with every float array replaced by a view with a fresh zero gradient."""
    out = []
    for a in args:
        if _float_array(a):
            view = array(ptr=a.ptr, dtype=a.dtype, shape=a.shape, strides=a.strides, device=a.device, owner=a)
            view.grad = zeros(a.shape, dtype=a.dtype, device=a.device)
            out.append(view)
        else:
            out.append(a)
    return out


def _split(kernel, inputs, outputs):
    args = list(inputs) + list(outputs)
    if len(args) != len(kernel.param_names):
        raise TypeError(f"kernel `{kernel.key}` takes {len(kernel.param_names)} arguments, got {len(args)}")
    n_in = len(inputs)
    ins = [k for k in range(n_in) if _float_array(args[k])]
    outs = [k for k in range(n_in, len(args)) if _float_array(args[k])]
    if not ins or not outs:
        raise ValueError("gradient checking needs at least one float array among the inputs and one among the outputs")
    return args, ins, outs


def jacobian(kernel, dim, inputs, outputs, device=None) -> dict:
    """d(outputs) / d(inputs) from the kernel's adjoint: one backward launch per output scalar."""
    args, ins, outs = _split(kernel, inputs, outputs)
    saved = {k: _scalars(args[k]).copy() for k in outs}
    work = _with_private_grads(args)
    launch(kernel, dim, inputs=work, device=device, record_tape=False)
    result = {(i, o): np.zeros((_scalars(args[o]).size, _scalars(args[i]).size)) for i in ins for o in outs}
    for o in outs:
        seed = _scalars(work[o].grad)
        for e in range(seed.size):
            for k in ins + outs:
                work[k].grad.zero_()
            seed[e] = 1.0
            launch(kernel, dim, inputs=work, device=device, adjoint=True, record_tape=False)
            for i in ins:
                result[(i, o)][e] = _scalars(work[i].grad)
            seed[e] = 0.0
    for k, values in saved.items():
        _scalars(args[k])[:] = values
    return result


def jacobian_fd(kernel, dim, inputs, outputs, eps: float = 1e-4, device=None) -> dict:
    """d(outputs) / d(inputs) by central differences: two forward launches per input scalar.
    Outputs are reset to their values before each launch, so accumulating kernels work too."""
    args, ins, outs = _split(kernel, inputs, outputs)
    saved = {k: _scalars(args[k]).copy() for k in outs}
    result = {}

    def run():
        for k, values in saved.items():
            _scalars(args[k])[:] = values
        launch(kernel, dim, inputs=args, device=device, record_tape=False)
        return {o: _scalars(args[o]).astype(np.float64).copy() for o in outs}

    for i in ins:
        x = _scalars(args[i])
        columns = {o: np.zeros((saved[o].size, x.size)) for o in outs}
        for e in range(x.size):
            original = x[e]
            x[e] = original + eps
            plus = run()
            x[e] = original - eps
            minus = run()
            x[e] = original
            # the step actually taken (eps rounds in float32/float16)
            step = float(np.float64(x.dtype.type(original + eps)) - np.float64(x.dtype.type(original - eps)))
            for o in outs:
                columns[o][:, e] = (plus[o] - minus[o]) / step
        for o in outs:
            result[(i, o)] = columns[o]
    for k, values in saved.items():
        _scalars(args[k])[:] = values
    return result


@dataclass
class GradcheckReport:
    passed: bool
    max_abs_error: float
    max_rel_error: float
    worst: list  # (abs error, input name, input scalar, output name, output scalar, adjoint, finite difference)

    def __str__(self):
        lines = [f"gradcheck {'passed' if self.passed else 'FAILED'}: max abs error {self.max_abs_error:.3g}, "
                 f"max rel error {self.max_rel_error:.3g}"]
        for err, iname, ie, oname, oe, ad, fd in self.worst:
            lines.append(f"  d {oname}[{oe}] / d {iname}[{ie}]: adjoint {ad:.6g}, finite difference {fd:.6g} "
                         f"(error {err:.3g})")
        return "\n".join(lines)

    def __bool__(self):
        return self.passed


def gradcheck(kernel, dim, inputs, outputs, eps: float = 1e-4, atol: float = 1e-3, rtol: float = 1e-2,
              raise_exception: bool = True, device=None, show_summary: bool = False, worst: int = 5):
    """Compare the adjoint Jacobian with central finite differences. An entry passes when
    |adjoint - fd| <= atol + rtol * |fd|. Returns a GradcheckReport (truthy when it passed);
    with raise_exception, a failure raises AssertionError carrying the report."""
    analytic = jacobian(kernel, dim, inputs, outputs, device)
    numeric = jacobian_fd(kernel, dim, inputs, outputs, eps, device)
    names = kernel.param_names
    rows, max_abs, max_rel, passed = [], 0.0, 0.0, True
    for key, a in analytic.items():
        f = numeric[key]
        err = np.abs(a - f)
        tol = atol + rtol * np.abs(f)
        passed &= bool((err <= tol).all())
        max_abs = max(max_abs, float(err.max(initial=0.0)))
        max_rel = max(max_rel, float((err / np.maximum(np.abs(f), 1e-12)).max(initial=0.0)))
        for oe, ie in zip(*np.unravel_index(np.argsort(-err, axis=None)[:worst], err.shape)):
            rows.append((float(err[oe, ie]), names[key[0]], int(ie), names[key[1]], int(oe), float(a[oe, ie]),
                         float(f[oe, ie])))
    rows.sort(key=lambda r: -r[0])
    report = GradcheckReport(passed, max_abs, max_rel, rows[:worst])
    if show_summary:
        print(report)
    if raise_exception and not passed:
        raise AssertionError(str(report))
    return report
