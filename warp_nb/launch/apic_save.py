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
from ..runtime import live_handles
from ..runtime.recording import Operation
from . import apic_format as F
from . import apic_ops as O
from .capture import Graph

_WORD = struct.Struct("<Q")


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
    base = base.removesuffix(".wrp")
    saver = _Saver(bool(source_fallback))
    saver.register(graph.operations)
    for value in list((inputs or {}).values()) + list((outputs or {}).values()):
        if isinstance(value, array):
            saver.region_of(value)
    ops = saver.ops(graph.operations)
    bindings = [saver.binding(name, value, False) for name, value in (inputs or {}).items()]
    bindings += [saver.binding(name, value, True) for name, value in (outputs or {}).items()]
    regions = saver.regions()
    meshes, handles = _mesh_handles(ops, regions)
    meta = F.Metadata(saver.modules, saver.kernels, bindings, meshes, handles, producer=config.version)
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
        """The region holding array `a`: its whole allocation, merged with every region it overlaps
        (two arrays wrapping the same numpy memory have no owner in common). Call it for every array
        before any offset is taken (register): a merge can move a region's start."""
        address, span = a.ptr or 0, _span(a)  # (None: an empty allocation)
        root = a._memory_owner()
        start, end = (root.ptr, root.ptr + root.capacity) if root.ptr and root.ptr <= address else (address, address)
        end = max(end, address + span)
        hits = [r for r in self._regions if (r[0] < end and start < r[0] + r[1]) or r[0] == start]
        if not hits:
            self._regions.append([start, end - start, _element_size(a), len(self._regions) + 1])
            return self._regions[-1][3]
        keep = hits[0]
        for r in hits:
            start, end = min(start, r[0]), max(end, r[0] + r[1])
        keep[0], keep[1] = start, end - start
        self._regions = [r for r in self._regions if r is keep or r not in hits]
        return keep[3]

    def register(self, operations) -> None:
        """Find the regions of every array the operations reach, before any is encoded."""
        for op in operations:
            if isinstance(op, Operation):
                for key in ("array", "dest", "src", "condition"):
                    if isinstance(op.fields.get(key), array):
                        self.region_of(op.fields[key])
                for key in ("on_true", "on_false", "body"):
                    if isinstance(op.fields.get(key), Graph):
                        self.register(op.fields[key].operations)
            elif hasattr(op, "kernel") and hasattr(op, "params"):
                arrays: list = []
                for p in list(op.args) + (list(op.adj_params) if op.adjoint else []):
                    _collect_arrays(p, arrays)
                for x in arrays:
                    self.region_of(x)

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
        _, offset = self.locate(value.ptr or 0, 0) or (rid, 0)
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
        return self.locate(a.ptr or 0, _span(a))

    def launch(self, op) -> O.LaunchOp:
        """A launch's argument struct as packed (its arrays' regions are registered already), each
        word that points into a region made a relocation."""
        launcher = op._launcher
        if op.adjoint and any(g is not None for g in op.adj_params):
            raise RuntimeError(f"wp.capture_save: the adjoint launch of kernel `{op.kernel.key}` was given explicit "
                               "adjoint arrays (adj_inputs/adj_outputs), which a saved graph cannot hold")
        _check_handle_arguments(op)
        packed = launcher.pack(*op.args)
        relocations = []
        others = live_handles.OTHERS
        for offset in range(0, len(packed) - 7, 8):
            word = _WORD.unpack_from(packed, offset)[0]
            where = self.locate(word) if word else None
            if where is not None:
                relocations.append((offset, where[0], where[1]))
            elif word in others:
                raise RuntimeError(f"wp.capture_save: kernel `{op.kernel.key}` is launched with the id of a "
                                   f"{type(others[word]).__name__}, which saved graphs do not carry yet (only "
                                   "wp.Mesh ids are saved)")
        dim = (op.dim,) if isinstance(op.dim, int) else tuple(int(d) for d in op.dim)
        return O.LaunchOp(dim, self._kernel(launcher, packed), bool(op.adjoint), launcher.block_dim, bytes(packed),
                          relocations)

    def _kernel(self, launcher, args: bytes) -> int:
        if launcher.deterministic:  # its launches need the runtime's ordered replay, which graphs do not carry
            raise RuntimeError(f"wp.capture_save: kernel `{launcher.kernel.key}` is compiled in deterministic mode, "
                               "whose float atomics a saved graph cannot replay in order yet; save it with the "
                               "module option deterministic=wp.DeterministicMode.NOT_GUARANTEED")
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
        self.kernels.append(F.KernelRecord(launcher.kernel.key, module, entry or "", "", len(args)))
        self._kernel_index[key] = len(self.kernels) - 1
        return self._kernel_index[key]


def _handle_parameters(kernel) -> list:
    """The names of the kernel's parameters annotated wp.handle in its Python signature (the
    compiled kernel sees uint64, so only the annotation says that the value is an object id)."""
    from ..types import handle
    found = []
    func = getattr(kernel, "func", None)
    for name, t in (getattr(func, "__annotations__", None) or {}).items():
        if isinstance(t, str):  # from __future__ import annotations
            try:
                t = eval(t, func.__globals__)
            except Exception:  # (an annotation naming a local type: not a handle)
                continue
        if t is handle:
            found.append(name)
    return found


def _check_handle_arguments(op) -> None:
    """A scalar wp.handle argument of a saved launch must be 0 or the id of a live wp.Mesh (the
    one kind of object a saved graph carries): refused here, before a loaded graph could replay a
    dangling id, as Warp's saver refuses it. (A uint64 argument may hold anything; one that equals
    a live mesh's id is remapped like a handle: _mesh_handles.)"""
    names = _handle_parameters(op.kernel)
    if not names:
        return
    values = dict(zip(op.kernel.param_names, op.args))
    for name in names:
        value = values.get(name)
        word = int(getattr(value, "value", value) or 0)
        if word and word not in live_handles.MESHES:
            raise RuntimeError(f"wp.capture_save: parameter `{name}` (a wp.handle) of kernel `{op.kernel.key}` holds "
                               f"{word:#x}, an invalid or expired mesh ID: a saved graph carries wp.Mesh objects "
                               "only, and the mesh must be alive when the graph is saved")


def _mesh_handles(ops, regions) -> tuple[list, list]:
    """The meshes the graph names and where: each 64-bit word of a launch's arguments or of a region's
    bytes that equals the id of a live wp.Mesh becomes a handle slot (launch) or a handle location
    (region), and each such mesh a record (its points and indices). warp_nb's wp.handle is uint64,
    so an integer equal to a live mesh's id (an address) is taken for that mesh (docs/compat.md)."""
    live = dict(live_handles.MESHES.items())
    used: dict = {}
    if not live:
        return [], []
    keys = np.array(list(live), dtype=np.uint64)

    def slots(data: bytes) -> np.ndarray:
        words = np.frombuffer(data[:len(data) // 8 * 8], dtype="<u8")
        return np.flatnonzero(np.isin(words, keys)) * 8

    def visit(ops):
        for op in ops:
            if isinstance(op, O.LaunchOp):
                op.handles = [int(k) for k in slots(op.args)]
                used.update((_WORD.unpack_from(op.args, k)[0], None) for k in op.handles)
            elif isinstance(op, O.CondOp):
                visit(op.branch_a)
                visit(op.branch_b)
    visit(ops)
    locations = []
    for r in regions:
        if not r.data:
            continue
        for k in slots(r.data):
            used[_WORD.unpack_from(r.data, int(k))[0]] = None
            locations.append(F.HandleLocation(r.id, int(k), 8, 1))
    records = []
    for mesh_id in used:
        mesh = live[mesh_id]
        points = np.ascontiguousarray(mesh.points.numpy(), dtype=np.float32).tobytes()
        indices = np.ascontiguousarray(mesh.indices.numpy(), dtype=np.int32).tobytes()
        records.append(F.MeshRecord(mesh_id, bool(mesh.support_winding_number), points, indices))
    return records, locations


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
        placed = False
        try:
            os.replace(modules, target_modules)
            placed = True
            os.replace(graph_file, base + ".wrp")
        except OSError:
            # put the earlier export back as it was (its folder is in the staging folder, about to go)
            if placed:
                os.replace(target_modules, modules)
            if old is not None:
                os.replace(old, target_modules)
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
