"""Timing, as Warp offers it: `wp.ScopedTimer` (how long a block took, optionally with cProfile
statistics and the activities launched inside it) and the activity timing API
(`wp.timing_begin(cuda_filter=...)`, `wp.timing_end()`, `wp.timing_print(results)`).

Activities are recorded through the launcher's listener hook (`warp_nb.launch.launcher.listeners`): every
kernel launch made while timing is on becomes one `TimingResult` with the time the launch took.
On the CPU a launch returns when the kernel is done, so that is the kernel's duration; on a CUDA
device it is the time to enqueue the launch unless the device is synchronized (pass
`synchronize=True`). Copies and memsets are not recorded: the filter flags for them are accepted
and match nothing."""

from __future__ import annotations

import builtins
import dataclasses
import sys
import time

from ..launch import launcher

TIMING_KERNEL = 1
TIMING_KERNEL_BUILTIN = 2
TIMING_MEMCPY = 4
TIMING_MEMSET = 8
TIMING_GRAPH = 16
TIMING_ALL = 0xFFFFFFFF


@dataclasses.dataclass
class TimingResult:
    """One recorded activity: where it ran, what it was, which filter flag it matches, milliseconds."""

    device: object
    name: str
    filter: int
    elapsed: float


class _Recorder:
    """Collects the launches reported by the launcher while at least one timing scope is open.
    Scopes nest: each has its own list and filter; the listener is installed while any is open."""

    def __init__(self):
        self.scopes: list = []  # [(filter, results list)], innermost last

    def listen(self, kernel, dim, device, seconds, adjoint) -> None:
        module = getattr(getattr(kernel, "module", None), "name", "") or ""
        # kernels of warp_nb itself (array_scan, radix_sort_pairs, ...) play the role of Warp's builtin kernels
        kind = TIMING_KERNEL_BUILTIN if module.startswith("warp_nb.") else TIMING_KERNEL
        name = ("backward " if adjoint else "") + getattr(kernel, "key", getattr(kernel, "__name__", str(kernel)))
        for flags, results in self.scopes:
            if flags & kind:
                results.append(TimingResult(device, name, kind, seconds * 1000.0))

    def open(self, flags: int) -> list:
        results: list = []
        self.scopes.append((int(flags), results))
        if self.listen not in launcher.listeners:
            launcher.listeners.append(self.listen)
        return results

    def close(self, results=None) -> list:
        if not self.scopes:
            raise RuntimeError("wp.timing_end() called without a matching wp.timing_begin()")
        index = len(self.scopes) - 1
        if results is not None:
            index = next(i for i, (_, r) in enumerate(self.scopes) if r is results)
        _, out = self.scopes.pop(index)
        if not self.scopes:
            while self.listen in launcher.listeners:
                launcher.listeners.remove(self.listen)
        return out


_recorder = _Recorder()


def _synchronize() -> None:
    from ..runtime.devices import synchronize
    synchronize()


def timing_begin(cuda_filter: int = TIMING_ALL, synchronize: bool = True) -> None:
    """Begin recording activities (kernel launches) that match `cuda_filter` (TIMING_* flags)."""
    if synchronize:
        _synchronize()
    _recorder.open(cuda_filter)


def timing_end(synchronize: bool = True) -> list:
    """End the recording begun by the matching timing_begin(); returns its list of TimingResult."""
    if synchronize:
        _synchronize()
    return _recorder.close()


_FILTER_NAMES = {TIMING_KERNEL: "Kernel", TIMING_KERNEL_BUILTIN: "Builtin kernel", TIMING_MEMCPY: "Memcpy",
                 TIMING_MEMSET: "Memset", TIMING_GRAPH: "Graph"}


def timing_print(results, indent: str = "") -> None:
    """Print a summary of TimingResults: per activity name and device, the count, average and
    total milliseconds, then one line per activity kind."""
    if not results:
        print(f"{indent}No activity")
        return
    groups: dict = {}
    for r in results:
        groups.setdefault((r.filter, r.name, str(r.device)), []).append(r.elapsed)
    print(f"{indent}{'Count':>7} {'Avg (ms)':>12} {'Total (ms)':>12}  {'Device':<8} Activity")
    for (flags, name, device), times in sorted(groups.items(), key=lambda kv: -sum(kv[1])):
        total = sum(times)
        print(f"{indent}{len(times):7d} {total / len(times):12.6f} {total:12.6f}  {device:<8} {name}")
    kinds: dict = {}
    for r in results:
        kinds.setdefault(r.filter, []).append(r.elapsed)
    for flags, times in sorted(kinds.items()):
        print(f"{indent}{_FILTER_NAMES.get(flags, str(flags))}: {len(times)} activities, {sum(times):.6f} ms total")


class ScopedTimer:
    """`with wp.ScopedTimer("step"):` prints how long the block took, as "step took 1.23 ms".

    Warp's options: `active` (False: do nothing), `print` (False: only record), `detailed`
    (profile the block with cProfile and print its statistics), `dict` (append the milliseconds
    to dict[name]), `synchronize` (wait for the devices before and after), `cuda_filter` (record
    the kernel launches of the block as `timing_results`, printed with `report_func` or
    wp.timing_print), `use_nvtx`, `color` and `skip_tape` (accepted; there are no NVTX ranges here).
    The elapsed milliseconds are in `.elapsed` afterwards."""

    enabled = True  # Warp's class switch: False turns every timer off
    indent = -1  # nesting depth of the timers open now (nested reports are indented)

    def __init__(self, name: str = "", active: bool = True, print: bool = True, detailed: bool = False,
                 dict=None, use_nvtx: bool = False, color="rapids", synchronize: bool = False,
                 cuda_filter: int = 0, report_func=None, skip_tape: bool = False, **kwargs):
        self.name, self.active, self.print, self.detailed = name, active and ScopedTimer.enabled, print, detailed
        self.dict, self.use_nvtx, self.color, self.synchronize = dict, use_nvtx, color, synchronize
        self.cuda_filter, self.report_func, self.skip_tape = cuda_filter, report_func, skip_tape
        self.elapsed = 0.0
        self.timing_results: list = []
        self.extra_msg = ""  # Warp appends this to the printed line
        self._profile = None
        self._results = None

    def __enter__(self):
        if not self.active:
            return self
        ScopedTimer.indent += 1
        if self.synchronize:
            _synchronize()
        if self.cuda_filter:
            self._results = _recorder.open(self.cuda_filter)
        if self.detailed:
            import cProfile
            self._profile = cProfile.Profile()
            self._profile.enable()
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc):
        if not self.active:
            return
        if self.synchronize:
            _synchronize()
        self.elapsed = (time.perf_counter() - self.start) * 1000.0
        if self._profile is not None:
            self._profile.disable()
        if self._results is not None:
            self.timing_results = _recorder.close(self._results)
            self._results = None
        ScopedTimer.indent -= 1
        if self.dict is not None:
            self.dict.setdefault(self.name, []).append(self.elapsed)
        if not self.print:
            return
        pad = "  " * max(ScopedTimer.indent + 1, 0)
        if self._profile is not None:
            import pstats
            pstats.Stats(self._profile, stream=sys.stdout).sort_stats(pstats.SortKey.CUMULATIVE).print_stats()
        if self.cuda_filter:
            (self.report_func or timing_print)(self.timing_results, pad + "  ")
        builtins.print(f"{pad}{self.name} took {self.elapsed:.2f} ms{self.extra_msg}")


def constant(x):
    """Mark a global value as a kernel constant (any global number is one already). Like Warp, only
    values kernels can hold are accepted: numbers, wp scalars, vectors, matrices, ... and struct
    instances. A constant made after kernels compiled may be a new value for a name they read (a
    re-run cell): they compile again at their next launch."""
    import numpy as np
    from ..types import Composite, Scalar
    if not isinstance(x, (int, float, Scalar, Composite, np.number, np.bool_)) \
            and not hasattr(x, "_struct"):  # a @wp.struct instance
        raise TypeError(f"Invalid constant type: {type(x)}")
    from ..program import redefinition
    redefinition.constant_defined()
    return x
