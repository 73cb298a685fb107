"""Graph capture (Warp's `wp.ScopedCapture`, `capture_begin`/`capture_end`, `capture_launch`) on
any device: while a capture is open, launches, copies, fills and HashGrid builds are recorded
instead of run; the graph replays them, in order, as often as wanted, with the arrays (pointers)
and values they were recorded with. Arrays allocated inside the capture are allocated once, when recorded. On a GPU this
is a replay from Python, not a CUDA graph (docs/compat.md)."""

from __future__ import annotations

from . import recording
from .runtime.devices import get_device


class Graph:
    """A recorded sequence of operations; `wp.capture_launch(graph)` runs it."""

    def __init__(self, device, apic: bool = False):
        self.device = device
        #: Warp's "saveable" capture of host-side API calls (apic=True): operations that cannot be
        #: serialised (HashGrid.build) refuse to be recorded into it
        self.apic = bool(apic)
        self.operations: list = []  # callables, or wp.Launch objects (with .launch())

    def record(self, operation) -> None:
        self.operations.append(operation)

    def launch(self) -> None:
        for op in self.operations:
            op.launch() if hasattr(op, "launch") else op()


def capture_begin(device=None, stream=None, force_module_load=None, external=False, apic=None) -> None:
    """Start recording launches, copies, fills and HashGrid builds into a graph (see capture_end)."""
    if recording.capture is not None:
        raise RuntimeError("a graph capture is already active; end it with wp.capture_end() first")
    recording.capture = Graph(get_device(device), apic=bool(apic))


def capture_end(device=None, stream=None) -> Graph:
    """Stop recording; returns the graph."""
    graph = recording.capture
    if graph is None:
        raise RuntimeError("wp.capture_end() without a wp.capture_begin()")
    recording.capture = None
    return graph


def capture_launch(graph: Graph, stream=None) -> None:
    """Run a captured graph."""
    if not isinstance(graph, Graph):
        raise TypeError(f"wp.capture_launch expects a graph from wp.ScopedCapture or wp.capture_end, got "
                        f"{type(graph).__name__}")
    graph.launch()


class ScopedCapture:
    """`with wp.ScopedCapture() as capture: ...` records the block; `capture.graph` replays it."""

    def __init__(self, device=None, stream=None, force_module_load=None, external=False, apic=None):
        self.device = device
        self.apic = apic
        self.graph = None

    def __enter__(self):
        capture_begin(self.device, apic=self.apic)
        return self

    def __exit__(self, *exc):
        self.graph = capture_end(self.device)
