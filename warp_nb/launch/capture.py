"""Graph capture (Warp's `wp.ScopedCapture`, `capture_begin`/`capture_end`, `capture_launch`) on
any device: while a capture is open, launches, copies, fills and HashGrid builds are recorded
instead of run; the graph replays them, in order, as often as wanted, with the arrays (pointers)
and values they were recorded with. Arrays allocated inside the capture are allocated once, when recorded. On a GPU this
is a replay from Python, not a CUDA graph (docs/compat.md)."""

from __future__ import annotations

import enum

from ..runtime import recording
from ..runtime.devices import get_cuda_driver_version, get_device, is_cuda_available


class CaptureMode(enum.IntEnum):
    """CUDA's stream-capture modes (Warp's wp.CaptureMode, cudaStreamCaptureMode's values). warp_nb
    records a capture in Python on every device, not with CUDA stream capture, so no runtime call
    is refused during one in any mode; the mode is checked and kept on the graph."""

    GLOBAL = 0
    THREAD_LOCAL = 1
    RELAXED = 2


class Graph:
    """A recorded sequence of operations; `wp.capture_launch(graph)` runs it."""

    def __init__(self, device, apic: bool = False):
        self.device = device
        self.capture_mode = CaptureMode.THREAD_LOCAL
        #: Warp's "saveable" capture of host-side API calls (apic=True): operations that cannot be
        #: serialised (HashGrid.build) refuse to be recorded into it
        self.apic = bool(apic)
        self.operations: list = []  # callables, or wp.Launch objects (with .launch())

    def record(self, operation) -> None:
        self.operations.append(operation)

    def launch(self) -> None:
        for op in self.operations:
            op.launch() if hasattr(op, "launch") else op()

    # the named parameters of a graph loaded with wp.capture_load (launch/apic_load.py)
    def get_param(self, name: str, out) -> None:
        raise RuntimeError("get_param() is only available on loaded APIC graphs (wp.capture_load)")

    def set_param(self, name: str, value) -> None:
        raise RuntimeError("set_param() is only available on loaded APIC graphs (wp.capture_load)")

    def get_param_ptr(self, name: str):
        raise RuntimeError("get_param_ptr() is only available on loaded APIC graphs (wp.capture_load)")


def refuse_foreign_descriptors(kernel, args) -> None:
    """In an APIC capture (which saves each array by its own storage), refuse an application's
    array subclass whose `__ctype__()` describes other memory (another data or grad address than
    its own): the saved graph could not name that memory. Outside such a capture the launch uses
    that descriptor, as Warp does."""
    from ..types.array_family import native_family, subclass_descriptor
    for name, value in zip(kernel.param_names, args):
        family = None if value is None or isinstance(value, type) else native_family(value)
        if family is None or type(value) is family:
            continue
        if subclass_descriptor(value, family) != bytes(family.__ctype__(value)):
            raise RuntimeError(f"APIC capture of kernel `{kernel.key}`: argument `{name}` is a {type(value).__name__} "
                               "whose __ctype__() describes memory other than its own storage; a saved graph records "
                               "arrays by their own storage: pass the array that owns that memory")


def capture_begin(device=None, stream=None, force_module_load=None, external=False, apic=None,
                  capture_mode: CaptureMode = CaptureMode.THREAD_LOCAL) -> None:
    """Start recording launches, copies, fills and HashGrid builds into a graph (see capture_end)."""
    if not isinstance(capture_mode, CaptureMode):
        raise TypeError(f"capture_mode must be a wp.CaptureMode (GLOBAL, THREAD_LOCAL or RELAXED), "
                        f"got {capture_mode!r}")
    if recording.capture is not None:
        raise RuntimeError("a graph capture is already active; end it with wp.capture_end() first")
    if recording.paused_capture is not None:
        raise RuntimeError("a graph capture is paused; resume it with capture_resume() and end it first")
    recording.capture = Graph(get_device(device), apic=bool(apic))
    recording.capture.capture_mode = capture_mode


def capture_end(device=None, stream=None) -> Graph:
    """Stop recording; returns the graph."""
    graph = recording.capture
    if graph is None:
        if recording.paused_capture is not None:
            raise RuntimeError("wp.capture_end(): the graph capture is paused; resume it with capture_resume() first")
        raise RuntimeError("wp.capture_end() without a wp.capture_begin()")
    recording.capture = None
    return graph


def capture_pause(device=None, stream=None) -> Graph:
    """Suspend the active graph capture (Warp's `warp._src.context.capture_pause`, which programs such
    as Newton use): until `capture_resume(graph)`, launches, copies, fills and allocations run now
    and are not recorded, so neither a replay nor a saved graph (`wp.capture_save`) holds them.
    Returns the graph being recorded, to hand to `capture_resume`."""
    graph = recording.capture
    if graph is None:
        raise RuntimeError(f"capture_pause: no graph capture is active on {get_device(device)}")
    recording.capture, recording.paused_capture = None, graph
    return graph


def capture_resume(graph: Graph, device=None, stream=None) -> None:
    """Continue recording into `graph`, the capture `capture_pause` suspended."""
    if recording.paused_capture is None:
        raise RuntimeError(f"capture_resume: the graph capture on {get_device(device)} is not paused")
    if graph is not recording.paused_capture:
        raise RuntimeError("capture_resume: `graph` is not the graph capture_pause() returned")
    recording.capture, recording.paused_capture = graph, None


def capture_launch(graph: Graph, stream=None) -> None:
    """Run a captured graph."""
    if not isinstance(graph, Graph):
        raise TypeError(f"wp.capture_launch expects a graph from wp.ScopedCapture or wp.capture_end, got "
                        f"{type(graph).__name__}")
    graph.launch()


def capture_if(condition, on_true=None, on_false=None, stream=None, **kwargs) -> None:
    """Warp's conditional graph node: run `on_true` when condition[0] (a one-element int array) is
    nonzero, else `on_false`; each a function (called with **kwargs) or a captured Graph. In a capture
    the condition is read each time the graph runs; outside one, now."""
    if recording.capture is None:
        branch = on_true if _is_true(condition) else on_false
        _run(branch, kwargs)
        return
    then_graph, else_graph = _subgraph(on_true, kwargs), _subgraph(on_false, kwargs)
    recording.capture.record(recording.Operation(
        "if", lambda: (then_graph if _is_true(condition) else else_graph).launch(),
        condition=condition, on_true=then_graph, on_false=else_graph))


def capture_while(condition, while_body, stream=None, **kwargs) -> None:
    """Warp's while graph node: run `while_body` (a function called with **kwargs, or a Graph) as long
    as condition[0] is nonzero; the body is expected to update the condition. In a capture the loop
    runs each time the graph runs; outside one, now."""
    if recording.capture is None:
        while _is_true(condition):
            _run(while_body, kwargs)
        return
    body = _subgraph(while_body, kwargs)

    def loop():
        while _is_true(condition):
            body.launch()
    recording.capture.record(recording.Operation("while", loop, condition=condition, body=body))


def is_conditional_graph_supported() -> bool:
    """Whether CUDA graphs may hold conditional nodes (Warp: a CUDA 12.4+ driver). warp_nb replays
    capture_if/capture_while from Python on every device, but Warp's programs ask this to choose a
    CUDA-graph path, and without a GPU Warp answers False; so does warp_nb."""
    return is_cuda_available() and get_cuda_driver_version() >= 12040


def _is_true(condition) -> bool:
    return bool(condition.numpy().reshape(-1)[0])


def _run(branch, kwargs) -> None:
    if isinstance(branch, Graph):
        branch.launch()
    elif branch is not None:
        branch(**kwargs)


def _subgraph(branch, kwargs) -> Graph:
    """What `branch` records, as a graph of its own (a Graph is used as it is)."""
    if isinstance(branch, Graph):
        return branch
    outer = recording.capture
    recording.capture = Graph(outer.device, apic=outer.apic)
    try:
        if branch is not None:
            branch(**kwargs)
        return recording.capture
    finally:
        recording.capture = outer


class ScopedCapture:
    """`with wp.ScopedCapture() as capture: ...` records the block; `capture.graph` replays it."""

    def __init__(self, device=None, stream=None, force_module_load=None, external=False, apic=None,
                 capture_mode: CaptureMode = CaptureMode.THREAD_LOCAL):
        self.device = device
        self.apic = apic
        self.capture_mode = capture_mode
        self.graph = None

    def __enter__(self):
        capture_begin(self.device, apic=self.apic, capture_mode=self.capture_mode)
        return self

    def __exit__(self, *exc):
        self.graph = capture_end(self.device)


def capture_debug_dot_print(graph: Graph, path: str, verbose: bool = True) -> None:
    """Write `graph` as a Graphviz DOT file (Warp's, for CUDA graphs): one node per recorded
    operation, in replay order, each a kernel launch (name, dim, forward or backward; with
    `verbose`, its arguments) or a memory operation; a conditional's or a loop's graphs are
    subgraphs of their node."""
    if not isinstance(graph, Graph):
        raise TypeError(f"capture_debug_dot_print expects a graph from wp.ScopedCapture or wp.capture_end, got "
                        f"{type(graph).__name__}")
    lines = ["digraph warp_nb_graph {", "  node [shape=box, fontname=monospace];"]
    _dot_nodes(graph, "n", lines, verbose, "  ")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def _dot_nodes(graph: Graph, prefix: str, lines: list, verbose: bool, pad: str) -> None:
    previous = None
    for k, op in enumerate(graph.operations):
        name = f"{prefix}{k}"
        lines.append(f'{pad}{name} [label="{_dot_label(op, verbose)}"];')
        if previous is not None:
            lines.append(f"{pad}{previous} -> {name};")
        for part, sub in getattr(op, "fields", {}).items():
            if isinstance(sub, Graph):  # the branches of capture_if, the body of capture_while
                lines.append(f'{pad}subgraph cluster_{name}_{part} {{ label="{part}";')
                _dot_nodes(sub, f"{name}_{part}_", lines, verbose, pad + "  ")
                lines.append(f"{pad}}}")
                if sub.operations:
                    lines.append(f"{pad}{name} -> {name}_{part}_0 [style=dashed];")
        previous = name


def _dot_label(op, verbose: bool) -> str:
    kernel = getattr(op, "kernel", None)
    if kernel is not None:  # a wp.Launch
        direction = "backward " if getattr(op, "adjoint", False) else ""
        label = f"{direction}launch {kernel.key}\\ndim={getattr(op, 'dim', '?')}"
        if verbose:
            label += "".join(f"\\n{name}" for name in kernel.param_names)
        return label.replace('"', "'")
    kind = getattr(op, "kind", type(op).__name__)
    return str(kind).replace('"', "'")
