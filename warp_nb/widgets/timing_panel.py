"""TimingPanel: a live table of kernel launches, one row per kernel (launches, last / mean / min
time, compile time) with a bar per kernel, updated as launches happen. A lab pins the kernels it
compares: they come first, from the start, and set the bars' scale, so a one-off slow launch of
another kernel does not dwarf the comparison. It listens through the launcher's opt-in hook while it
is open; `close()` (or `stop()`) unhooks it, and launches cost nothing extra again."""

from __future__ import annotations

import time

import ipywidgets as W

from warp_nb.magics.timing import LaunchRecorder, fmt_seconds

from ._shared import Html, StaticFallback, bar, html_table


class TimingPanel(StaticFallback, W.VBox):
    """Per-kernel launch timings, live.

        panel = TimingPanel()
        panel                     # a table that fills in as kernels are launched
        panel.rows                # the same numbers as dicts, for tests and scripts
        panel.stop()

        TimingPanel(pin=[naive, tiled])   # these two first, their bars to their own scale
        TimingPanel(kernels=[naive])      # only this kernel's launches

    `kernels`: record only these kernels (or kernel names); `pin`: show these first, in this order,
    even before they launch, and scale every bar to the slowest of them (a bar past it is drawn full).
    """

    def __init__(self, kernels=None, refresh_seconds: float = 0.25, pin=None, **kwargs):
        only = None if kernels is None else {getattr(k, "key", k) for k in kernels}
        self.pinned = [getattr(k, "key", k) for k in (pin or ())]
        self.recorder = LaunchRecorder(only)
        self.refresh_seconds = refresh_seconds
        self._last_refresh = 0.0
        self.table = W.HTML()
        self.title = W.HTML("<b>kernel launches</b>")
        self.reset_button = W.Button(description="reset", layout=W.Layout(width="80px"),
                                     tooltip="forget the launches recorded so far")
        self.reset_button.on_click(lambda _: self.reset())
        super().__init__([W.HBox([self.title, self.reset_button]), self.table], **kwargs)
        self.add_class("wpnb-timing-panel")
        self.recorder.callbacks.append(self._on_launch)
        self.recorder.start()
        self.refresh()

    @property
    def rows(self) -> list[dict]:
        """One dict per kernel launched so far: the pinned ones first, in their order."""
        rows = self.recorder.rows()
        order = {key: k for k, key in enumerate(self.pinned)}
        return sorted(rows, key=lambda r: order.get(r["kernel"], len(order)))

    def _on_launch(self, timing) -> None:
        now = time.perf_counter()
        if now - self._last_refresh >= self.refresh_seconds:  # thousands of launches a second: throttle
            self.refresh()

    def refresh(self) -> None:
        self._last_refresh = time.perf_counter()
        self.table.value = self.static_html()

    def reset(self) -> None:
        self.recorder.reset()
        self.refresh()

    def stop(self) -> None:
        self.recorder.stop()
        self.refresh()

    def close(self) -> None:
        self.recorder.stop()
        super().close()

    def static_html(self) -> str:
        rows = {r["kernel"]: r for r in self.rows}
        if not rows and not self.pinned:
            return "<i>no launches yet: launch a kernel and this table fills in</i>"
        scale = [rows[k]["mean_s"] for k in self.pinned if k in rows] or [r["mean_s"] for r in rows.values()]
        slowest = max(scale, default=0.0) or 1.0
        out = []
        for key in [*self.pinned, *(k for k in rows if k not in self.pinned)]:
            r = rows.get(key)
            if r is None:  # pinned, not launched yet
                out.append([key, "", 0, "-", "-", "-", "-", bar(0.0)])
                continue
            compile_s = "-" if r["compile_s"] is None else f"{r['compile_s']:.2f} s"
            out.append([r["kernel"], r["device"], r["launches"], fmt_seconds(r["last_s"]), fmt_seconds(r["mean_s"]),
                        fmt_seconds(r["min_s"]), compile_s, bar(r["mean_s"] / slowest)])
        # "compile or load": this kernel's own last compile, or its load from the disk cache; a %%kernel
        # cell's "compiled in" line is the wall time of the whole cell (all its kernels, the runtime)
        return html_table(["kernel", "device", "launches", "last", "mean", "min", "compile or load",
                           Html("mean time")], out, "wpnb-timing")
