"""`wp.capture_load(path)` / `wp.capture_load_from_bytes(wrp, modules)`: a `.wrp` file (checked by
apic_format.py and apic_ops.py) -> a LoadedGraph that `wp.capture_launch` replays, in this process or
another one. Its memory regions are allocated and filled with the saved bytes; its kernels come from
the saved libraries (rebuilt from the saved C++ source when a library does not load); a launch's
argument struct gets this graph's addresses written into its relocations. Knows nothing of the byte
layout, nor of Python kernels: a loaded graph needs none of the code that captured it."""

from __future__ import annotations

import ctypes
import os
import struct
import tempfile

import numpy as np

from .. import config
from ..arrays.array import array
from ..runtime import native
from ..runtime.devices import get_device
from ..runtime.launch_layout import LAUNCH_T
from ..runtime.native import KernelStats
from . import apic_format as F
from . import apic_ops as O
from .capture import Graph

_BOUNDS = LAUNCH_T  # the launch bounds (runtime/launch_layout.py, as launcher.py packs them)
_WORD = struct.Struct("<Q")


def capture_load(path, device=None, **warp_only) -> LoadedGraph:
    """Load a graph saved with wp.capture_save (`path` with or without `.wrp`) for `device` (the CPU)."""
    base = os.fspath(path)
    wrp_path = base if base.endswith(".wrp") else base + ".wrp"
    base = wrp_path[:-4]
    try:
        with open(wrp_path, "rb") as f:
            wrp = f.read()
    except OSError as e:
        raise RuntimeError(f"Failed to load APIC graph from {wrp_path}: {e.strerror or e}") from None
    folder = base + "_modules"
    modules = {}
    if os.path.isdir(folder):
        for name in os.listdir(folder):
            with open(os.path.join(folder, name), "rb") as f:
                modules[name] = f.read()
    return _load(wrp, modules, device, wrp_path)


def capture_load_from_bytes(wrp, modules=None, device=None, **warp_only) -> LoadedGraph:
    """Load a graph from the bytes of its `.wrp` file and its module files ({file name: bytes}; any
    contiguous buffer: bytes, memoryview, a numpy array), as wp.capture_save wrote them."""
    data = _as_bytes(wrp, "wrp")
    if modules is not None and not isinstance(modules, dict):
        raise TypeError(f"wp.capture_load_from_bytes: modules must be a dict of file name -> bytes, got "
                        f"{type(modules).__name__}")
    entries = {}
    for name, value in (modules or {}).items():
        if not isinstance(name, str):
            raise TypeError(f"wp.capture_load_from_bytes: module file names must be str, got {type(name).__name__}")
        entries[name] = _as_bytes(value, f"module {name!r}")
    return _load(data, entries, device, "bytes")


def _as_bytes(value, what: str) -> bytes:
    if isinstance(value, str):
        raise TypeError(f"wp.capture_load_from_bytes: {what} must be bytes or a buffer, got str")
    try:
        view = memoryview(value)
    except TypeError:
        raise TypeError(f"wp.capture_load_from_bytes: {what} must be bytes or a buffer, got "
                        f"{type(value).__name__}") from None
    if not view.contiguous:
        raise ValueError(f"wp.capture_load_from_bytes: {what} must be a contiguous buffer")
    return view.tobytes()


def _load(wrp: bytes, modules: dict, device, where: str) -> LoadedGraph:
    device = get_device(device)
    if not device.is_cpu:
        raise RuntimeError(f"Failed to load APIC graph from {where}: warp_nb loads saved graphs on the CPU only")
    try:
        sections = F.read_container(wrp)
        meta = F.read_metadata(sections[F.SECTION_METADATA], config.version)
        regions = F.read_memory(sections[F.SECTION_MEMORY])
        sizes = {rid: r.nbytes for rid, r in regions.items()}
        for b in meta.bindings:
            if b.region not in sizes or b.offset > sizes[b.region] or b.nbytes > sizes[b.region] - b.offset:
                raise F.ApicFormatError(f"Invalid APIC binding record: {b.name!r} lies outside its region")
        ops = O.read_ops(sections[F.SECTION_OPERATIONS], sizes, len(meta.kernels))
        for h in meta.handles:
            F.check_handle_location(h, sizes)
        if any(len(op.args) != meta.kernels[op.kernel].args_size for op in _launches(ops)):
            raise F.ApicFormatError("APIC operation stream failed validation: a launch's arguments do not match "
                                    "its kernel's")
        saved_ids = {m.saved_id for m in meta.meshes}
        if any(_WORD.unpack_from(op.args, k)[0] not in saved_ids for op in _launches(ops) for k in op.handles):
            raise F.ApicFormatError("APIC operation stream failed validation: a launch names a mesh the file lacks")
    except F.ApicFormatError as e:
        raise RuntimeError(f"Failed to load APIC graph from {where}: {e}") from None
    kernels = _Kernels(meta, modules, where)
    return LoadedGraph(device, meta, regions, ops, kernels)


def _launches(ops):
    for op in ops:
        if isinstance(op, O.LaunchOp):
            yield op
        elif isinstance(op, O.CondOp):
            yield from _launches(op.branch_a + op.branch_b)


def _rebuild_meshes(meta: F.Metadata, device) -> dict:
    """saved mesh id -> a wp.Mesh made here from the saved points and indices."""
    from ..runtime import live_handles
    meshes = {}
    for m in meta.meshes:
        points = np.frombuffer(m.points, dtype=np.float32).reshape(-1, 3).copy()
        indices = np.frombuffer(m.indices, dtype=np.int32).copy()
        try:
            meshes[m.saved_id] = live_handles.make_mesh(points, indices, m.winding)
        except (ValueError, TypeError) as e:
            raise RuntimeError(f"Failed to load APIC graph: a saved mesh is invalid ({e})") from None
    return meshes


class _Kernels:
    """The graph's kernel entry points, from its module files (kept loaded while the graph lives)."""

    def __init__(self, meta: F.Metadata, modules: dict, where: str):
        self._folder = tempfile.TemporaryDirectory(prefix="wpnb-apic-") if meta.modules else None
        libraries = []
        for m in meta.modules:
            libraries.append(self._library(m, modules, where))
        self.entries = []
        for k in meta.kernels:
            lib = libraries[k.module]
            try:
                address = ctypes.cast(getattr(lib, k.forward), ctypes.c_void_p).value
            except AttributeError:
                raise RuntimeError(f"Failed to load APIC graph from {where}: kernel {k.key!r} has no entry point "
                                   f"{k.forward!r} in module {meta.modules[k.module].filename!r}") from None
            self.entries.append((address, KernelStats()))
        self.libraries = libraries

    def _library(self, m: F.ModuleRecord, modules: dict, where: str):
        data = modules.get(m.filename)
        if data is None:
            raise RuntimeError(f"Failed to load APIC graph from {where}: module file {m.filename!r} is missing")
        path = os.path.join(self._folder.name, m.filename)
        with open(path, "wb") as f:
            f.write(data)
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            if not m.source:
                raise RuntimeError(f"Failed to load APIC graph from {where}: module {m.filename!r} does not load "
                                   f"({e})") from None
        return ctypes.CDLL(str(_rebuild(m, where)))


class LoadedGraph(Graph):
    """A graph loaded with wp.capture_load: replayed by wp.capture_launch; its named parameters are
    read with get_param and written with set_param."""

    def __init__(self, device, meta: F.Metadata, regions: dict, ops: list, kernels: _Kernels):
        super().__init__(device, apic=True)
        self.is_loaded = True
        self._kernels = kernels
        # one buffer per region, holding the saved bytes (zeros where none were saved)
        self._buffers = {rid: np.zeros(max(r.nbytes, 1), dtype=np.uint8) for rid, r in regions.items()}
        for rid, r in regions.items():
            if r.data:
                self._buffers[rid][:r.nbytes] = np.frombuffer(r.data, dtype=np.uint8)
        self._base = {rid: buf.ctypes.data for rid, buf in self._buffers.items()}
        # meshes rebuilt here; the ids saved in array data are replaced by theirs
        self._meshes = _rebuild_meshes(meta, device)
        for h in meta.handles:
            for k in range(h.count):
                view = self._buffers[h.region][h.offset + k * h.stride:h.offset + k * h.stride + 8].view(np.uint64)
                mesh = self._meshes.get(int(view[0]))
                if mesh is not None:
                    view[0] = mesh.id
        self._bindings = {b.name: b for b in meta.bindings}
        self.params = {b.name: {"dtype": b.dtype, "shape": tuple(b.shape), "output": b.is_output}
                       for b in meta.bindings}
        self.operations = [self._prepare(op) for op in ops]

    # --- replay ------------------------------------------------------------------------------
    def _prepare(self, op):
        """A callable running `op` on this graph's memory."""
        if isinstance(op, O.LaunchOp):
            args = bytearray(op.args)
            for offset, rid, roff in op.relocations:
                _WORD.pack_into(args, offset, self._base[rid] + roff)
            for offset in op.handles:
                _WORD.pack_into(args, offset, self._meshes[_WORD.unpack_from(args, offset)[0]].id)
            packed = bytes(args)
            entry, stats = self._kernels.entries[op.kernel]
            shape = tuple(op.shape) + (1,) * (4 - len(op.shape))
            threads = int(np.prod(op.shape, dtype=np.int64))
            size = (threads + op.block_dim - 1) // op.block_dim
            bounds = _BOUNDS.pack(*shape, len(op.shape), 0, size)
            address = ctypes.addressof(stats)
            return lambda: native.launch(entry, packed, bounds, _threads(), address)
        if isinstance(op, O.CopyOp):
            dst, src = self._base[op.dst] + op.dst_offset, self._base[op.src] + op.src_offset
            return lambda: ctypes.memmove(dst, src, op.nbytes)
        if isinstance(op, O.SetOp):
            dst = self._base[op.region] + op.offset
            return lambda: ctypes.memset(dst, op.value & 0xFF, op.nbytes)
        if isinstance(op, O.TileOp):
            view = self._buffers[op.region][op.offset:op.offset + len(op.value) * op.count]
            pattern = np.frombuffer(op.value, dtype=np.uint8)

            def tile():
                view.reshape(op.count, len(op.value))[:] = pattern
            return tile
        if isinstance(op, O.CondOp):
            flag = self._buffers[op.region][op.offset:op.offset + 4].view(np.int32)
            branch_a = [self._prepare(o) for o in op.branch_a]
            branch_b = [self._prepare(o) for o in op.branch_b]
            if op.loop:
                def loop():
                    while flag[0]:
                        for run in branch_a:
                            run()
                return loop

            def cond():
                for run in (branch_a if flag[0] else branch_b):
                    run()
            return cond
        raise TypeError(f"unknown APIC operation {type(op).__name__}")

    def launch(self) -> None:
        for run in self.operations:
            run()

    # --- parameters --------------------------------------------------------------------------
    def _binding(self, name: str) -> F.BindingRecord:
        if name not in self._bindings:
            raise KeyError(f"loaded graph has no parameter {name!r} (its parameters: {', '.join(self._bindings)})")
        return self._bindings[name]

    def get_param(self, name: str, out) -> None:
        """Copy parameter `name` into the array `out` (of the parameter's size)."""
        b = self._binding(name)
        _check_array(name, out, b.nbytes)
        ctypes.memmove(out.ptr, self._base[b.region] + b.offset, b.nbytes)

    def set_param(self, name: str, value) -> None:
        """Copy the array `value` (of the parameter's size) into parameter `name`."""
        b = self._binding(name)
        _check_array(name, value, b.nbytes)
        ctypes.memmove(self._base[b.region] + b.offset, value.ptr, b.nbytes)

    def get_param_ptr(self, name: str):
        """The address of parameter `name` in the graph's memory, or None for an unknown name."""
        b = self._bindings.get(name)
        return None if b is None else self._base[b.region] + b.offset


def _rebuild(m: F.ModuleRecord, where: str):
    """A module's library compiled again from the C++ source the file holds (a library built on
    another machine, or damaged), through the kernel cache."""
    from ..compiler.emit.cpp import EmitResult
    from ..compiler.pipeline import CompileOptions, fetch_or_build
    from ..toolchain import cache
    target = get_device("cpu").target
    options = CompileOptions()
    key = cache.make_key(m.source, m.name, "apic")
    try:
        path, _ = fetch_or_build(f"apic_{m.name[:16]}", key, EmitResult(source=m.source), target, options)
    except (RuntimeError, OSError, ValueError) as e:  # a compiler error: not a source this build compiles
        raise RuntimeError(f"Failed to load APIC graph from {where}: module {m.filename!r} does not load and "
                           f"its source does not build ({str(e).splitlines()[0] if str(e) else e})") from None
    return path


def _check_array(name: str, a, nbytes: int) -> None:
    if not isinstance(a, array):
        raise TypeError(f"parameter {name!r}: expected a wp.array, got {type(a).__name__}")
    if not a.device.is_cpu:
        raise ValueError(f"parameter {name!r}: the array must be on the CPU, like the loaded graph")
    if not a.is_contiguous or a.capacity < nbytes:
        raise ValueError(f"parameter {name!r}: expected a contiguous array of {nbytes} bytes, got {a.capacity}")


def _threads() -> int:
    from .launcher import Launcher
    return Launcher.threads()
