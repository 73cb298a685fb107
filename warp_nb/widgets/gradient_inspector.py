"""GradientInspector: for a wp.Tape or a set of arrays, each array's values and `.grad` side by
side with statistics and histograms, NaN / Inf counts highlighted, and a button that checks the
gradients against finite differences: of a loss function along a random direction (`check=` a
callable that runs the forward pass and returns the loss), or of one kernel entry by entry
(`check=dict(kernel=..., dim=..., inputs=..., outputs=...)`, through warp_nb.autograd.gradcheck_report)."""

from __future__ import annotations

from dataclasses import dataclass

import ipywidgets as W
import numpy as np

from warp_nb import autograd
from warp_nb.arrays.array import array

from ._shared import Html, StaticFallback, as_numpy, esc, html_table, svg_histogram, user_names


@dataclass
class CheckResult:
    """A finite-difference check: passed, what was compared, and a sentence for people."""

    passed: bool
    analytic: float
    numeric: float
    rel_error: float
    text: str


def _tape_arrays(tape) -> list:
    seen = {}
    for record in getattr(tape, "launches", ()):
        for a in tuple(getattr(record, "inputs", ())) + tuple(getattr(record, "outputs", ())):
            if isinstance(a, array) and a.grad is not None:
                seen.setdefault(id(a), a)
    for a in getattr(tape, "gradients", {}):
        if isinstance(a, array) and a.grad is not None:
            seen.setdefault(id(a), a)
    return list(seen.values())


def _stats(v: np.ndarray) -> dict:
    v = np.asarray(v, dtype=np.float64).ravel()
    finite = v[np.isfinite(v)]
    return {"nan": int(np.isnan(v).sum()), "inf": int(np.isinf(v).sum()),
            "min": float(finite.min()) if finite.size else float("nan"),
            "max": float(finite.max()) if finite.size else float("nan"),
            "mean": float(finite.mean()) if finite.size else float("nan"),
            "norm": float(np.linalg.norm(finite)) if finite.size else float("nan")}


class GradientInspector(StaticFallback, W.VBox):
    """Values and gradients of arrays, and a finite-difference check.

        with tape: ...forward launches...
        tape.backward(loss)
        GradientInspector(tape, check=lambda: forward())   # forward() returns the loss
    """

    def __init__(self, source=None, arrays=None, check=None, eps: float = 1e-3, rtol: float = 2e-2,
                 bins: int = 20, max_values: int = 8, seed: int = 0, **kwargs):
        if arrays is None and isinstance(source, (dict, list, tuple)):
            source, arrays = None, source
        self.tape = source
        self.check = check
        self.eps, self.rtol, self.bins, self.max_values = eps, rtol, bins, max_values
        self.rng = np.random.default_rng(seed)
        self.arrays = self._collect(source, arrays)
        self.check_result: CheckResult | None = None
        self.summary = W.HTML()
        self.details = W.HTML()
        self.check_button = W.Button(description="finite-difference check", layout=W.Layout(width="200px"),
                                     disabled=check is None,
                                     tooltip="compare the gradients with central finite differences")
        self.refresh_button = W.Button(description="refresh", layout=W.Layout(width="80px"),
                                       tooltip="read the arrays' values and gradients again")
        self.check_output = W.HTML("" if check is not None else
                                   "<i>pass check=... to enable the finite-difference check</i>")
        self.check_button.on_click(lambda _: self.run_check())
        self.refresh_button.on_click(lambda _: self.refresh())
        super().__init__([self.summary, self.details, W.HBox([self.check_button, self.refresh_button]),
                          self.check_output], **kwargs)
        self.add_class("wpnb-gradient-inspector")
        self.refresh()

    # --- what is inspected ------------------------------------------------------------------
    def _collect(self, tape, arrays) -> dict:
        if isinstance(arrays, dict):
            return dict(arrays)
        items = list(arrays) if arrays is not None else _tape_arrays(tape) if tape is not None else []
        if not items:
            raise ValueError("GradientInspector needs a wp.Tape that recorded launches, or arrays "
                             "(a dict name -> array, or a list)")
        names = user_names(items)
        return {names.get(id(a), f"array {k}"): a for k, a in enumerate(items)}

    @property
    def rows(self) -> list[dict]:
        """Per array: name, shape, value and gradient statistics (nan / inf counts, min, max, ...)."""
        out = []
        for name, a in self.arrays.items():
            v = as_numpy(a)
            g = as_numpy(a.grad) if getattr(a, "grad", None) is not None else None
            row = {"name": name, "shape": tuple(v.shape), "dtype": str(v.dtype),
                   "value": _stats(v), "grad": _stats(g) if g is not None else None}
            row["bad"] = row["value"]["nan"] + row["value"]["inf"] + (
                (row["grad"]["nan"] + row["grad"]["inf"]) if g is not None else 0)
            out.append(row)
        return out

    # --- display --------------------------------------------------------------------------
    def refresh(self) -> None:
        self.summary.value = self._summary_html(self.rows)
        self.details.value = self._details_html()

    @staticmethod
    def _flag(n: int) -> Html:
        return Html(f"<span style='color:#fff;background:#d62728;padding:0 4px' class='wpnb-bad'>{n}</span>"
                    if n else "0")

    def _summary_html(self, rows) -> str:
        table = []
        for r in rows:
            v, g = r["value"], r["grad"]
            table.append([r["name"], "x".join(map(str, r["shape"])), f"{v['min']:.4g}", f"{v['max']:.4g}",
                          self._flag(v["nan"] + v["inf"]),
                          "-" if g is None else f"{g['min']:.4g}", "-" if g is None else f"{g['max']:.4g}",
                          "-" if g is None else f"{g['norm']:.4g}",
                          "-" if g is None else self._flag(g["nan"] + g["inf"])])
        return html_table(["array", "shape", "min", "max", "NaN/Inf", "grad min", "grad max", "|grad|",
                           "grad NaN/Inf"], table, "wpnb-grad-summary")

    def _details_html(self) -> str:
        parts = []
        for name, a in self.arrays.items():
            v = as_numpy(a).reshape(-1)
            g = as_numpy(a.grad).reshape(-1) if getattr(a, "grad", None) is not None else None
            n = min(self.max_values, v.size)
            rows = [[k, self._cell(v[k]), "-" if g is None else self._cell(g[k])] for k in range(n)]
            side = html_table(["i", "value", "grad"], rows, "wpnb-grad-values")
            more = f"<div style='font-size:smaller'>first {n} of {v.size}</div>" if v.size > n else ""
            hists = (f"<div>values<br>{svg_histogram(v, self.bins)}</div>"
                     + ("" if g is None else f"<div>grad<br>{svg_histogram(g, self.bins, color='#f58518')}</div>"))
            parts.append(f"<div style='display:flex;gap:16px;align-items:flex-start;margin:6px 0'>"
                         f"<div><b>{esc(name)}</b>{side}{more}</div>{hists}</div>")
        return "".join(parts)

    @staticmethod
    def _cell(x) -> Html:
        x = np.asarray(x)
        text = np.array2string(x, precision=4) if x.ndim else f"{float(x):.5g}"
        bad = not np.all(np.isfinite(x))
        return Html(f"<span style='background:#fdd' class='wpnb-bad'>{esc(text)}</span>" if bad else esc(text))

    def static_html(self) -> str:
        check = self.check_output.value if self.check_result is not None else ""
        return f"<div class='wpnb-gradient-inspector'>{self.summary.value}{self.details.value}{check}</div>"

    # --- the finite-difference check -------------------------------------------------------
    def run_check(self) -> CheckResult:
        """Run the check given as `check=` and show its result (the button does this)."""
        if self.check is None:
            raise ValueError("no check to run: create the inspector with check=loss_function or "
                             "check=dict(kernel=..., dim=..., inputs=..., outputs=...)")
        if isinstance(self.check, dict):
            check = dict(self.check)
            function = check.pop("kernel", None) or check.pop("function")  # kernel= (ours) or function= (Warp's name)
            report = autograd.gradcheck_report(function, raise_exception=False, **check)
            worst = report.worst[0] if report.worst else (0.0, "", 0, "", 0, 0.0, 0.0)
            result = CheckResult(bool(report.passed), worst[5], worst[6], report.max_rel_error, str(report))
        else:
            result = self._directional_check()
        self.check_result = result
        # the values and gradients shown next to the verdict are the ones it was computed from (after
        # Run All, the table would otherwise still show the arrays as they were when it was displayed)
        self.refresh()
        color = "#2ca02c" if result.passed else "#d62728"
        self.check_output.value = (f"<pre class='wpnb-check' style='color:{color}'>"
                                   f"{'PASSED' if result.passed else 'FAILED'}: {esc(result.text)}</pre>")
        return result

    def _directional_check(self) -> CheckResult:
        """d loss along a random direction u of the inputs: the gradients' sum(grad * u) against
        (loss(x + eps u) - loss(x - eps u)) / (2 eps), arrays restored afterwards. Arrays the forward
        pass writes (intermediates such as a prediction) are not inputs and are left out. Where the
        gradients shown are all zero (cleared by tape.zero(), or not computed yet), the check takes
        them from a fresh backward pass instead, and says so."""
        loss = self.check()  # the forward pass once: the array it returns is not an input
        targets = [(name, a) for name, a in self.arrays.items()
                   if a is not loss and getattr(a, "grad", None) is not None
                   and np.issubdtype(as_numpy(a).dtype, np.floating)]
        if not targets:
            raise ValueError("no array with a gradient to check")
        views = [as_numpy(a) for _, a in targets]
        saved = [v.copy() for v in views]
        dirs = [self.rng.standard_normal(v.shape) for v in views]
        norm = np.sqrt(sum(float((d * d).sum()) for d in dirs)) or 1.0
        dirs = [d / norm for d in dirs]
        scale = max(1.0, max(float(np.abs(s).max()) for s in saved))
        eps = self.eps * scale
        written = [False] * len(views)

        def loss_at(sign):
            for v, s, d in zip(views, saved, dirs):
                v[...] = (s + sign * eps * d).astype(v.dtype)
            shifted = [v.copy() for v in views]
            value = float(np.asarray(as_numpy(self.check()), dtype=np.float64).reshape(-1)[0])
            for k, (v, before) in enumerate(zip(views, shifted)):
                written[k] = written[k] or not np.array_equal(v, before)  # the forward pass wrote it
            return value

        try:
            numeric = (loss_at(+1) - loss_at(-1)) / (2 * eps)
        finally:
            for v, s in zip(views, saved):
                v[...] = s
            self.check()  # leave the forward values as they were
        inputs = [k for k in range(len(targets)) if not written[k]]
        if not inputs:
            raise ValueError("every array given is written by the forward pass: pass its inputs too")
        grads = [as_numpy(targets[k][1].grad).astype(np.float64) for k in inputs]
        source = "the gradients shown"
        if not any(np.any(g) for g in grads):
            grads = self._fresh_gradients([targets[k][1] for k in inputs])
            source = "a fresh backward pass (the gradients shown are all zero)"
        analytic = sum(float((g * dirs[k]).sum()) for g, k in zip(grads, inputs))
        err = abs(analytic - numeric) / max(abs(numeric), abs(analytic), 1e-12)
        passed = err <= self.rtol or abs(analytic - numeric) <= 1e-6
        names = ", ".join(targets[k][0] for k in inputs)
        text = (f"d loss along a random direction of ({names}): from {source} {analytic:.6g}, "
                f"finite difference {numeric:.6g}, relative error {err:.2g} (tolerance {self.rtol:g})")
        return CheckResult(passed, analytic, numeric, err, text)

    def _fresh_gradients(self, inputs: list) -> list:
        """The inputs' gradients from recording `check()` on a new Tape and running it backwards;
        every inspected array's `.grad` is left as it was."""
        from warp_nb.autograd.tape import Tape
        kept = [(a, as_numpy(a.grad).copy()) for a in self.arrays.values() if getattr(a, "grad", None) is not None]
        try:
            for a, _ in kept:
                a.grad.zero_()
            tape = Tape()
            with tape:
                loss = self.check()
            tape.backward(loss=loss)
            return [as_numpy(a.grad).astype(np.float64).copy() for a in inputs]
        finally:
            for a, g in kept:
                a.grad.assign(g)
