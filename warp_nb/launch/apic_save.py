"""`wp.capture_save(graph, path, inputs=, outputs=)`: a graph captured with `apic=True` -> records
(apic_format.py, apic_ops.py) -> `<path>.wrp` and the `<path>_modules` folder holding the compiled
kernel libraries (and their C++ source). Knows the recorded operations (launches and
recording.Operation) and arrays; knows nothing of the byte layout.

Memory: every block of memory an operation or a binding reaches (an array's whole allocation) becomes
a region, numbered in order of first use, saved with its bytes as they are now. A launch's argument
struct is saved as packed, with each 64-bit word that holds an address inside a region it reaches
turned into a relocation (region + offset), which is what makes the file independent of this process's
addresses. Publication is atomic: both parts are written beside the destination and renamed into
place, so a failed save leaves an earlier export as it was."""

from __future__ import annotations

import ctypes
import os
import shutil
import struct
import tempfile

import numpy as np

from .. import config
from ..arrays.array import array
from ..runtime.recording import Operation
from . import apic_format as F
from . import apic_ops as O
from .capture import Graph

_WORD = struct.Struct("<Q")
#: this process's token: a graph holding mesh ids (addresses of meshes alive here) loads only here
PROCESS_TOKEN = int.from_bytes(os.urandom(8), "little") | 1


def capture_save(graph, path, inputs=None, outputs=None, source_fallback=None, **warp_only) -> None:
    """Save `graph` (captured with `wp.ScopedCapture(apic=True)`) to `<path>.wrp` plus the compiled
    kernels in `<path>_modules/`; `inputs` / `outputs`: name -> array, the parameters a loaded graph
    reads and writes with set_param / get_param. `source_fallback=True` also stores each kernel
    module's C++ source, from which a loader rebuilds a library that does not load on its machine."""
    if not isinstance(graph, Graph):
        raise TypeError(f"wp.capture_save expects a graph from wp.ScopedCapture, got {type(graph).__name__}")
    if getattr(graph, "is_loaded", False):
        raise RuntimeError("wp.capture_save: this graph was loaded from a file; save the graph it was captured as")
    if not graph.apic:
        raise RuntimeError("wp.capture_save needs a graph captured with apic=True "
                           "(wp.ScopedCapture(device, apic=True)); this one was captured without it")
    if not graph.device.is_cpu:
        raise RuntimeError("wp.capture_save: warp_nb saves graphs captured on the CPU only")
    base = os.fspath(path)
    base = base[:-4] if base.endswith(".wrp") else base
    saver = _Saver(bool(source_fallback))
    ops = saver.ops(graph.operations)
    bindings = [saver.binding(name, value, False) for name, value in (inputs or {}).items()]
    bindings += [saver.binding(name, value, True) for name, value in (outputs or {}).items()]
    regions = saver.regions()
    meta = F.Metadata(saver.modules, saver.kernels, bindings, producer=config.version,
                      process=PROCESS_TOKEN if _holds_mesh_ids(ops, regions) else 0)
    sections = {F.SECTION_METADATA: F.write_metadata(meta), F.SECTION_MEMORY: F.write_memory(regions),
                F.SECTION_OPERATIONS: O.write_ops(ops)}
    _publish(base, F.write_container(sections), saver.files)


class _Saver:
    def __init__(self, with_source: bool):
        self.with_source = with_source  # keep each module's C++ source: a loader rebuilds it when needed
        self._regions: list = []  # [base address, byte size, element size, region id]
        self.modules: list = []
        self.kernels: list = []
        self.files: dict = {}  # file name in the modules folder -> path to copy, or bytes
        self._kernel_index: dict = {}

    # --- memory ------------------------------------------------------------------------------
    def region_of(self, a: array) -> int:
        """The region holding array `a` (made from its whole allocation on first sight)."""
        address = a.ptr
        for start, size, _, rid in self._regions:
            if start <= address and address + _span(a) <= start + size and (size or address == start):
                return rid
        root = a._memory_owner()
        start, size = (root.ptr, root.capacity) if root.ptr and root.ptr <= address else (address, _span(a))
        size = max(size, address + _span(a) - start)
        rid = len(self._regions) + 1
        self._regions.append([start, size, _element_size(a), rid])
        return rid

    def regions(self) -> list:
        return [F.Region(rid, elem, size, ctypes.string_at(start, size) if start and size else b"\0" * size)
                for start, size, elem, rid in self._regions]

    def locate(self, address: int, nbytes: int = 0):
        """(region, offset) of an address inside a known region, or None."""
        for start, size, _, rid in self._regions:
            if start <= address and address + nbytes <= start + size and address < start + max(size, 1):
                return rid, address - start
        return None

    def binding(self, name, value, is_output: bool) -> F.BindingRecord:
        if not isinstance(value, array):
            raise TypeError(f"wp.capture_save: parameter {name!r} must be a wp.array, got {type(value).__name__}")
        if not value.is_contiguous:
            raise ValueError(f"wp.capture_save: parameter {name!r} must be a contiguous array")
        rid = self.region_of(value)
        _, offset = self.locate(value.ptr, 0) or (rid, 0)
        from ..types import type_name
        return F.BindingRecord(name, rid, offset, _span(value), type_name(value.dtype), tuple(value.shape), is_output)

    # --- operations --------------------------------------------------------------------------
    def ops(self, operations) -> list:
        # a "check" validates arguments when a live graph runs; a saved graph has no such host step
        return [self.op(op) for op in operations if not (isinstance(op, Operation) and op.kind == "check")]

    def op(self, op):
        if isinstance(op, Operation):
            f = op.fields
            if op.kind in ("zero", "fill"):
                a = f["array"]
                rid, offset = self._window(a)
                if op.kind == "zero" or not any(f["value"]):
                    return O.SetOp(rid, 0, offset, _span(a))
                return O.TileOp(rid, offset, a.size, f["value"])
            if op.kind == "copy":
                dest, src = f["dest"], f["src"]
                elem = _element_size(dest)
                d_rid, d_off = self._window(dest)
                s_rid, s_off = self._window(src)
                return O.CopyOp(d_rid, s_rid, d_off + f["dest_offset"] * elem, s_off + f["src_offset"] * elem,
                                f["count"] * elem)
            if op.kind in ("if", "while"):
                rid, offset = self._window(f["condition"])
                if op.kind == "if":
                    return O.CondOp(False, rid, offset, self.ops(f["on_true"].operations),
                                    self.ops(f["on_false"].operations))
                return O.CondOp(True, rid, offset, self.ops(f["body"].operations))
            what = f.get("what", op.kind)
            raise RuntimeError(f"wp.capture_save: the graph records {what}, a host-side operation on process-local "
                               "memory that a saved graph cannot replay; run it outside the capture")
        if hasattr(op, "kernel") and hasattr(op, "_launcher"):
            return self.launch(op)
        raise RuntimeError("wp.capture_save: the graph holds an operation that cannot be saved "
                           "(a Python callback or a geometry build); capture only launches, copies and fills")

    def _window(self, a: array) -> tuple[int, int]:
        self.region_of(a)
        return self.locate(a.ptr, _span(a))

    def launch(self, op) -> O.LaunchOp:
        launcher = op._launcher
        arrays: list = []
        for p in op.params:
            _collect_arrays(p, arrays)
        if op.adjoint:
            for g in op.adj_params:
                _collect_arrays(g, arrays)
        for a in arrays:
            self.region_of(a)
        packed = launcher.pack(*op.params)
        relocations = []
        for offset in range(0, len(packed) - 7, 8):
            word = _WORD.unpack_from(packed, offset)[0]
            where = self.locate(word) if word else None
            if where is not None:
                relocations.append((offset, where[0], where[1]))
        dim = (op.dim,) if isinstance(op.dim, int) else tuple(int(d) for d in op.dim)
        return O.LaunchOp(dim, self._kernel(launcher), bool(op.adjoint), launcher.block_dim, bytes(packed), relocations)

    def _kernel(self, launcher) -> int:
        compiled = launcher.compiled
        key = (compiled.key, bool(launcher.entry == compiled.loaded.adjoint_entry))
        if key in self._kernel_index:
            return self._kernel_index[key]
        unit, path = compiled.unit, compiled.loaded.path
        name = f"{compiled.key}"
        library = f"{name}{os.path.splitext(str(path))[1] or '.so'}"
        if library not in self.files:
            self.files[library] = str(path)
            self.modules.append(F.ModuleRecord(name, library, unit.source if self.with_source else ""))
        module = [m.filename for m in self.modules].index(library)
        backward = launcher.entry == compiled.loaded.adjoint_entry
        entry = unit.backward_entry if backward else unit.entry
        self.kernels.append(F.KernelRecord(launcher.kernel.key, module, entry or "", ""))
        self._kernel_index[key] = len(self.kernels) - 1
        return self._kernel_index[key]


def _holds_mesh_ids(ops, regions) -> bool:
    """Whether a launch argument or a region's bytes hold the id of a live wp.Mesh (an address in this
    process: meshes are not serialised yet, so such a graph is refused by a loader elsewhere)."""
    from ..runtime.live_handles import live_mesh_ids
    ids = live_mesh_ids()
    if not ids:
        return False

    def words(data: bytes):
        return np.frombuffer(data[:len(data) // 8 * 8], dtype="<u8")

    def launches(ops):
        for op in ops:
            if isinstance(op, O.LaunchOp):
                yield op.args
            elif isinstance(op, O.CondOp):
                yield from launches(op.branch_a + op.branch_b)
    if any(np.isin(words(args), list(ids)).any() for args in launches(ops)):
        return True
    return any(r.data and np.isin(words(r.data), list(ids)).any() for r in regions)


def _span(a: array) -> int:
    """Bytes from an array's first element to the end of its last (0 when empty)."""
    if a.size == 0:
        return 0
    from ..types import type_size_in_bytes
    last = sum((n - 1) * s for n, s in zip(a.shape, a.strides))
    return last + type_size_in_bytes(a.dtype)


def _element_size(a: array) -> int:
    from ..types import type_size_in_bytes
    return type_size_in_bytes(a.dtype)


def _collect_arrays(value, out: list) -> None:
    """Arrays a launch argument reaches: the array and its gradient, a struct's array fields, an
    indexed array's data and indices."""
    if value is None:
        return
    if isinstance(value, array):
        out.append(value)
        if value.grad is not None and value.grad is not value:
            out.append(value.grad)
        return
    data = getattr(value, "indices", None)
    if data is not None and isinstance(getattr(value, "data", None), array):
        _collect_arrays(value.data, out)
        for idx in value.indices:
            _collect_arrays(idx, out)
        return
    fields = getattr(value, "_arrays", None)
    if isinstance(fields, dict):
        for v in fields.values():
            _collect_arrays(v, out)


def _publish(base: str, wrp: bytes, files: dict) -> None:
    """Write `<base>.wrp` and `<base>_modules/` beside the destination, then rename them into place;
    on failure remove what was written and leave what was there before."""
    folder = os.path.dirname(os.path.abspath(base))
    os.makedirs(folder, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".apic-", dir=folder)
    try:
        modules = os.path.join(staging, "modules")
        os.mkdir(modules)
        for name, source in files.items():
            if isinstance(source, bytes):
                with open(os.path.join(modules, name), "wb") as f:
                    f.write(source)
            else:
                shutil.copyfile(source, os.path.join(modules, name))
        graph_file = os.path.join(staging, "graph.wrp")
        with open(graph_file, "wb") as f:
            f.write(wrp)
        target_modules = base + "_modules"
        old = None
        if os.path.isdir(target_modules):
            old = os.path.join(staging, "old_modules")
            os.replace(target_modules, old)
        try:
            os.replace(modules, target_modules)
        except OSError:
            if old is not None:
                os.replace(old, target_modules)
            raise
        os.replace(graph_file, base + ".wrp")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
