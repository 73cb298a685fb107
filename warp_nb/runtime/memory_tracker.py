"""Allocation tracking (Warp's `wp.ScopedMemoryTracker`, `wp.print_memory_report`,
`wp.config.track_memory`): while a tracker scope is open (or track_memory is set), every array
allocation is recorded with its size, device, label (`array[float32, 32]`, or `native:hashgrid` for
memory a geometry builder allocates), the scope path it was made in (`outer/inner`; each thread has
its own stack of scopes) and whether it is still alive; the counters (allocations, live ones,
current and peak bytes) answer Warp's `wp_alloc_tracker_*` queries. Tracking costs one check per
allocation when off. Knows nothing about kernels."""

from __future__ import annotations

import sys
import threading
import weakref

from .. import config

_lock = threading.Lock()
_local = threading.local()
_open_scopes = 0  # tracker scopes open in any thread
_records: list = []  # [path, label, device, nbytes, live]
_totals = {"count": 0, "bytes": 0, "current": 0, "peak": 0}
_switched_on = False  # Warp's native switch (core.wp_alloc_tracker_enable), beside scopes and the config


def enabled() -> bool:
    return _switched_on or _open_scopes > 0 or bool(getattr(config, "track_memory", False))


def switch(on: bool) -> None:
    """Turn tracking on or off with no scope open (Warp's `wp_alloc_tracker_enable(1/0)`): the
    counters then count every allocation until switched off; scopes and wp.config.track_memory
    still turn it on by themselves."""
    global _switched_on
    _switched_on = bool(on)


def _stack() -> list:
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def _label_stack() -> list:
    labels = getattr(_local, "labels", None)
    if labels is None:
        labels = _local.labels = []
    return labels


class native_label:
    """`with native_label("hashgrid"):` allocations made inside are a geometry builder's own memory."""

    def __init__(self, name: str):
        self.name = name

    def __enter__(self):
        _label_stack().append(f"native:{self.name}")

    def __exit__(self, *exc):
        _label_stack().pop()


def native_allocations(name: str):
    """Decorator: the allocations a geometry builder's method makes are labelled `native:<name>`."""
    def decorate(method):
        def tracked(*args, **kwargs):
            if not enabled():
                return method(*args, **kwargs)
            with native_label(name):
                return method(*args, **kwargs)
        tracked.__name__, tracked.__qualname__, tracked.__doc__ = method.__name__, method.__qualname__, method.__doc__
        tracked.__wrapped__ = method
        return tracked
    return decorate


def record(owner, nbytes: int, label: str, device: str) -> None:
    """Note an allocation of `nbytes` whose memory lives as long as `owner` (when tracking is on)."""
    if not enabled():
        return
    labels = _label_stack()
    if labels:
        label = f"{label} ({labels[-1]})"
    entry = ["/".join(_stack()) or "<global>", label, device, int(nbytes), True]
    with _lock:
        _records.append(entry)
        _totals["count"] += 1
        _totals["bytes"] += entry[3]
        _totals["current"] += entry[3]
        _totals["peak"] = max(_totals["peak"], _totals["current"])
    weakref.finalize(owner, _freed, entry)


def record_host(what: str, *buffers) -> None:
    """Note numpy buffers a geometry builder holds its structure in (host memory, labelled `what`)."""
    if enabled():
        for b in buffers:
            if b is not None:
                record(b, b.nbytes, what, "cpu")


def _freed(entry) -> None:
    with _lock:
        if entry[4]:
            entry[4] = False
            _totals["current"] -= entry[3]


def reset() -> None:
    """Forget every record and zero the counters."""
    with _lock:
        for entry in _records:
            entry[4] = False  # a later free of a forgotten allocation changes nothing
        _records.clear()
        _totals.update(count=0, bytes=0, current=0, peak=0)


def counters() -> dict:
    with _lock:
        live = sum(1 for e in _records if e[4])
        return dict(_totals, live=live)


def report_text(sort_order: int = 0, max_items: int = 10) -> str:
    """The report: totals, then the live allocations (largest first; by scope with sort_order 1,
    oldest first with 2), at most `max_items` of them (0: all)."""
    with _lock:
        live = [list(e) for e in _records if e[4]]
        totals = dict(_totals)
    if sort_order != 2:  # 2: chronological, the order they were made in
        live.sort(key=(lambda e: (e[0], -e[3])) if sort_order == 1 else (lambda e: -e[3]))
    shown = live if max_items <= 0 else live[:max_items]
    lines = ["Allocation Tracking Report", f"  Total allocations: {totals['count']} ({totals['bytes']} bytes)",
             f"  Live allocations: {len(live)} ({totals['current']} bytes, peak {totals['peak']} bytes)"]
    lines += [f"  {path:<32} {nbytes:>12} bytes  {device:<8} {label}" for path, label, device, nbytes, _ in shown]
    if len(shown) < len(live):
        lines.append(f"  ... {len(live) - len(shown)} more")
    return "\n".join(lines) + "\n"


class ScopedMemoryTracker:
    """`with wp.ScopedMemoryTracker("name"):` records the allocations made inside, under `name`
    (nested scopes give `outer/inner`); reports when the outermost scope of this tracker ends unless
    print=False: to report_func(text) if given, else to stdout. active=False makes the tracker a
    no-op (Warp's parameters; sort_order and max_items are warp_nb's, for the report). `report()`
    works after the scope has ended; `clear()` forgets everything."""

    def __init__(self, name: str = "root", active: bool = True, print: bool = True,  # noqa: A002
                 report_func=None, sort_order: int = 0, max_items: int = 10):
        self.name, self.active, self.print, self.report_func = name, active, print, report_func
        self.sort_order, self.max_items = sort_order, max_items

    def __enter__(self):
        global _open_scopes
        if self.active:
            with _lock:
                _open_scopes += 1
            _stack().append(self.name)
        return self

    def __exit__(self, *exc):
        global _open_scopes
        if not self.active:
            return
        _stack().pop()
        with _lock:
            _open_scopes -= 1
        if self.print:
            self.report()

    def report(self, file=None, sort: str | None = None, max_items: int | None = None,
               sort_order: int | None = None) -> None:
        """The report, to `file`, else report_func, else stdout; sort "size" (largest first) or
        "chronological" (oldest first) as in Warp, or warp_nb's sort_order (1: by scope)."""
        if sort not in (None, "size", "chronological"):
            raise ValueError(f"sort must be 'size' or 'chronological', got {sort!r}")
        order = {"size": 0, "chronological": 2}.get(sort, self.sort_order if sort_order is None else sort_order)
        text = report_text(order, self.max_items if max_items is None else max_items)
        if file is None and self.report_func is not None:
            self.report_func(text)
        else:
            (file or sys.stdout).write(text)

    def clear(self) -> None:
        reset()


def print_memory_report(sort_order: int = 0, max_items: int = 10, file=None) -> None:
    """Print the report of the open tracker scopes (RuntimeError when none is open)."""
    if not enabled():
        raise RuntimeError("memory tracking is not active: open a wp.ScopedMemoryTracker scope or set "
                           "wp.config.track_memory = True")
    (file or sys.stdout).write(report_text(sort_order, max_items))
