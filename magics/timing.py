"""Launch timings for the notebook: a `LaunchRecorder` subscribes to the launcher's opt-in
listener list and keeps, per kernel, launches and last / mean / min / max seconds. Used by
`%wp_time`, `%%kernel --time` and the TimingPanel widget. Knows the launcher's hook; knows
nothing about widgets or IPython."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from warp_nb.launch import launcher
from warp_nb.compiler import pipeline


@dataclass
class KernelTiming:
    """What one kernel's launches cost so far."""

    key: str
    device: str = ""
    launches: int = 0
    total: float = 0.0
    last: float = 0.0
    min: float = math.inf
    max: float = 0.0
    adjoint_launches: int = 0
    kernel: object = field(default=None, repr=False)

    @property
    def mean(self) -> float:
        return self.total / self.launches if self.launches else 0.0

    def add(self, seconds: float) -> None:
        self.launches += 1
        self.total += seconds
        self.last = seconds
        self.min = min(self.min, seconds)
        self.max = max(self.max, seconds)

    def as_row(self) -> dict:
        return {"kernel": self.key, "device": self.device, "launches": self.launches,
                "adjoint_launches": self.adjoint_launches, "last_s": self.last, "mean_s": self.mean,
                "min_s": self.min if self.launches else 0.0, "compile_s": compile_seconds(self.key)}


def compile_seconds(key: str) -> float | None:
    """The time of the last compile (or cache load) of the kernel named `key` in this process."""
    for k, seconds, _ in reversed(pipeline.compile_log):
        if k == key:
            return seconds
    return None


class LaunchRecorder:
    """Per-kernel launch timings while started. `on_launch` callbacks run after each recorded
    launch (a widget refreshes itself there)."""

    def __init__(self, only: set | None = None):
        self.timings: dict[str, KernelTiming] = {}
        self.only = only  # kernel keys to record; None records every kernel
        self.callbacks: list = []
        self.started_at = time.perf_counter()

    @property
    def running(self) -> bool:
        return self._listen in launcher.listeners

    def start(self) -> "LaunchRecorder":
        if not self.running:
            launcher.listeners.append(self._listen)
        return self

    def stop(self) -> None:
        while self._listen in launcher.listeners:
            launcher.listeners.remove(self._listen)

    def reset(self) -> None:
        self.timings.clear()

    def _listen(self, kernel, dim, device, seconds, adjoint) -> None:
        key = getattr(kernel, "key", str(kernel))
        if self.only is not None and key not in self.only:
            return
        t = self.timings.get(key)
        if t is None:
            t = self.timings[key] = KernelTiming(key, getattr(device, "alias", str(device)), kernel=kernel)
        if adjoint:
            t.adjoint_launches += 1
        else:
            t.add(seconds)
        for callback in list(self.callbacks):
            callback(t)

    def rows(self) -> list[dict]:
        return [t.as_row() for t in self.timings.values()]

    def table(self) -> str:
        """A plain-text table of the timings (for %wp_time)."""
        if not self.timings:
            return "no launches recorded yet"
        lines = [f"{'kernel':<24} {'launches':>9} {'last':>10} {'mean':>10} {'min':>10} {'compile':>9}"]
        for r in self.rows():
            compile_s = "-" if r["compile_s"] is None else f"{r['compile_s']:.2f} s"
            lines.append(f"{r['kernel'][:24]:<24} {r['launches']:>9} {fmt_seconds(r['last_s']):>10} "
                         f"{fmt_seconds(r['mean_s']):>10} {fmt_seconds(r['min_s']):>10} {compile_s:>9}")
        return "\n".join(lines)


def fmt_seconds(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} us"


#: the recorder behind %wp_time and %%kernel --time
RECORDER = LaunchRecorder()
