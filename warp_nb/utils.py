"""Small Python-side helpers that Warp programs commonly use: ScopedTimer and constants."""

from __future__ import annotations

import time


class ScopedTimer:
    """`with wp.ScopedTimer("step"):` prints how long the block took (print=False to only record).
    The elapsed milliseconds are in `.elapsed` afterwards."""

    def __init__(self, name: str = "", active: bool = True, print: bool = True, synchronize: bool = False,  # noqa: A002
                 dict=None, **kwargs):  # noqa: A002
        self.name, self.active, self.print, self.synchronize, self.dict = name, active, print, synchronize, dict
        self.elapsed = 0.0

    def __enter__(self):
        if self.synchronize:
            from .runtime.devices import synchronize
            synchronize()
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if self.synchronize:
            from .runtime.devices import synchronize
            synchronize()
        self.elapsed = (time.perf_counter() - self.start) * 1000.0
        if self.dict is not None:
            self.dict.setdefault(self.name, []).append(self.elapsed)
        if self.active and self.print:
            print(f"{self.name} took {self.elapsed:.2f} ms")


def constant(x):
    """Mark a global value as a kernel constant (any global number is one already)."""
    return x
