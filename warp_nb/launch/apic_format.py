"""The APIC container (Warp's `.wrp` file of `wp.capture_save`): bytes <-> sections, and the metadata
and memory sections <-> Python records. Knows the byte layout and its validation; knows nothing about
graphs, kernels or arrays (apic_save.py and apic_load.py turn those into records and back). The
operation section has its own module (apic_ops.py).

Layout, little-endian and packed, as Warp's tests read it (`_find_apic_section` ...):
  header      "WRP1", u32 format version, u32 flags, u32 section count, u64 section-table offset,
              zero padding to 64 bytes
  sections    raw bytes, each found through the table
  table       per section: u32 type, u32 flags, u64 offset, u64 stored size, u64 uncompressed size
Metadata:  u32 version, u32 producer length, producer, u32 architecture, five u32 record counts
           (modules, kernels, bindings, meshes, handle locations), then the records in that order. A
           mesh record is its id when saved, the winding-number flag, its points and triangle indices; a
           handle location `<IQQQ>` (region, offset, stride, count) is where array data holds mesh ids,
           which a loader replaces by the ids of the meshes it rebuilt.
Memory:    u32 region count, then per region `<IIQB7x>` (ID, element size, byte size, initial-data
           flag) followed by the initial bytes when the flag is 1.
Every read is bounds-checked: a malformed file raises ApicFormatError (a RuntimeError) naming what
is wrong, never reads past the data."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

MAGIC = b"WRP1"
FORMAT_VERSION = 18
SECTION_METADATA, SECTION_MEMORY, SECTION_OPERATIONS = 1, 2, 3
HEADER_SIZE = 64

FILE_HEADER = struct.Struct("<4sIIIQ")
SECTION_ENTRY = struct.Struct("<IIQQQ")
MEMORY_REGION = struct.Struct("<IIQB7x")
HANDLE_LOCATION = struct.Struct("<IQQQ")
U32 = struct.Struct("<I")
U64 = struct.Struct("<Q")


class ApicFormatError(RuntimeError):
    """A `.wrp` file that is not a valid APIC graph (truncated, corrupted or of another version)."""


class Reader:
    """Bounds-checked little-endian reads over bytes; `what` names the record in errors."""

    def __init__(self, data: bytes, what: str):
        self.data, self.pos, self.what = memoryview(data), 0, what

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ApicFormatError(f"Invalid APIC {self.what}")
        out = bytes(self.data[self.pos:self.pos + n])
        self.pos += n
        return out

    def u32(self) -> int:
        return U32.unpack(self.take(4))[0]

    def u64(self) -> int:
        return U64.unpack(self.take(8))[0]

    def text(self) -> str:
        return self.take(self.u32()).decode("utf-8", errors="replace")

    def remaining(self) -> int:
        return len(self.data) - self.pos


def _text(s: str) -> bytes:
    raw = s.encode("utf-8")
    return U32.pack(len(raw)) + raw


# --- container -----------------------------------------------------------------------------------
def write_container(sections: dict[int, bytes]) -> bytes:
    """The file's bytes: header, the sections in type order, then the table."""
    body, entries, offset = [], [], HEADER_SIZE
    for kind in sorted(sections):
        data = sections[kind]
        entries.append(SECTION_ENTRY.pack(kind, 0, offset, len(data), len(data)))
        body.append(data)
        offset += len(data)
    header = FILE_HEADER.pack(MAGIC, FORMAT_VERSION, 0, len(sections), offset).ljust(HEADER_SIZE, b"\0")
    return header + b"".join(body) + b"".join(entries)


def read_container(data: bytes) -> dict[int, bytes]:
    """Section type -> bytes, after checking the header, the table and each section's bounds."""
    if len(data) < HEADER_SIZE:
        raise ApicFormatError("Invalid APIC file: truncated header")
    magic, version, _flags, count, table = FILE_HEADER.unpack_from(data)
    if magic != MAGIC:
        raise ApicFormatError("Invalid APIC file: bad magic (not a .wrp graph)")
    if version != FORMAT_VERSION:
        raise ApicFormatError(f"Unsupported WRP version {version} (this loader reads version {FORMAT_VERSION})")
    if table > len(data) or count * SECTION_ENTRY.size > len(data) - table:
        raise ApicFormatError("Invalid APIC file: section table is out of bounds")
    sections: dict[int, bytes] = {}
    for k in range(count):
        kind, _flags, offset, size, _raw = SECTION_ENTRY.unpack_from(data, table + k * SECTION_ENTRY.size)
        if offset > len(data) or size > len(data) - offset:
            raise ApicFormatError(f"Invalid APIC file: section {k} is out of bounds")
        if kind in sections:
            raise ApicFormatError(f"Invalid APIC file: duplicate section of type {kind}")
        sections[kind] = bytes(data[offset:offset + size])
    for kind, name in ((SECTION_METADATA, "metadata"), (SECTION_MEMORY, "memory"), (SECTION_OPERATIONS, "operations")):
        if kind not in sections:
            raise ApicFormatError(f"Invalid APIC file: no {name} section")
    return sections


# --- metadata ------------------------------------------------------------------------------------
@dataclass
class ModuleRecord:
    """One compiled kernel library of the graph: the file beside the graph that holds it."""
    name: str  # the kernel module's key (hash)
    filename: str  # in the `<path>_modules` folder: the shared library
    source: str = ""  # its C++ source (rebuilt from it when the library does not load here), or ""


@dataclass
class KernelRecord:
    key: str
    module: int  # index into the module records
    forward: str  # the entry symbol the launches call (a backward launch: the adjoint's)
    backward: str
    args_size: int = 0  # bytes of its argument struct: every launch of it must give that many


@dataclass
class BindingRecord:
    """A named parameter (`inputs=` / `outputs=`): a window of a memory region with its array's type."""
    name: str
    region: int
    offset: int
    nbytes: int
    dtype: str  # the element type's name (wp.float32 ...)
    shape: tuple
    is_output: bool


@dataclass
class MeshRecord:
    """A wp.Mesh the graph's handles name: rebuilt by the loader from its points and indices."""
    saved_id: int
    winding: bool
    points: bytes  # float32 x 3 per point
    indices: bytes  # int32, 3 per triangle


@dataclass
class HandleLocation:
    """`count` 64-bit mesh ids in a region, `stride` bytes apart from `offset`."""
    region: int
    offset: int
    stride: int
    count: int


def check_handle_location(h: HandleLocation, region_sizes: dict) -> None:
    """Refuse a location that reaches outside its region (with overflow-safe arithmetic)."""
    size = region_sizes.get(h.region)
    last = h.offset + (h.count - 1) * h.stride if h.count else 0
    if size is None or h.count == 0 or (h.count > 1 and h.stride < 8) or last + 8 > size:
        raise ApicFormatError(f"Invalid APIC handle relocation: region {h.region}, offset {h.offset}, stride "
                              f"{h.stride}, count {h.count} is out of bounds")


@dataclass
class Metadata:
    modules: list = field(default_factory=list)
    kernels: list = field(default_factory=list)
    bindings: list = field(default_factory=list)
    meshes: list = field(default_factory=list)
    handles: list = field(default_factory=list)
    architecture: int = 0
    producer: str = ""  # the version of the package that wrote the file (wp.config.version)


def write_metadata(meta: Metadata) -> bytes:
    out = [U32.pack(FORMAT_VERSION), _text(meta.producer), U32.pack(meta.architecture),
           U32.pack(len(meta.modules)), U32.pack(len(meta.kernels)), U32.pack(len(meta.bindings)),
           U32.pack(len(meta.meshes)), U32.pack(len(meta.handles))]
    for m in meta.modules:
        out += [_text(m.name), _text(m.filename), _text(m.source)]
    for k in meta.kernels:
        out += [_text(k.key), U32.pack(k.module), _text(k.forward), _text(k.backward), U32.pack(k.args_size)]
    for b in meta.bindings:
        out += [_text(b.name), U32.pack(b.region), U64.pack(b.offset), U64.pack(b.nbytes), _text(b.dtype),
                U32.pack(len(b.shape)), *(U64.pack(d) for d in b.shape), U32.pack(int(b.is_output))]
    for m in meta.meshes:
        out += [U64.pack(m.saved_id), U32.pack(int(m.winding)), U64.pack(len(m.points) // 12), m.points,
                U64.pack(len(m.indices) // 4), m.indices]
    out += [HANDLE_LOCATION.pack(h.region, h.offset, h.stride, h.count) for h in meta.handles]
    return b"".join(out)


def read_metadata(data: bytes, expected_producer: str) -> Metadata:
    r = Reader(data, "metadata header")
    if r.u32() != FORMAT_VERSION:
        raise ApicFormatError("Invalid APIC metadata header: version mismatch")
    producer = r.text()
    if producer != expected_producer:
        raise ApicFormatError(f"the graph was produced by Warp {producer}, but this loader is Warp {expected_producer}")
    arch = r.u32()
    n_modules, n_kernels, n_bindings, n_meshes, n_handles = (r.u32() for _ in range(5))
    meta = Metadata(architecture=arch, producer=producer)
    r.what = "module record"
    for _ in range(n_modules):
        meta.modules.append(ModuleRecord(r.text(), r.text(), r.text()))
    r.what = "kernel record"
    for _ in range(n_kernels):
        kernel = KernelRecord(r.text(), r.u32(), r.text(), r.text(), r.u32())
        if kernel.module >= n_modules:
            raise ApicFormatError(f"Invalid APIC kernel record: {kernel.key!r} names module {kernel.module}")
        meta.kernels.append(kernel)
    r.what = "binding record"
    for _ in range(n_bindings):
        name, region, offset, nbytes, dtype = r.text(), r.u32(), r.u64(), r.u64(), r.text()
        ndim = r.u32()
        if ndim > 4:
            raise ApicFormatError("Invalid APIC binding record")
        shape = tuple(r.u64() for _ in range(ndim))
        meta.bindings.append(BindingRecord(name, region, offset, nbytes, dtype, shape, bool(r.u32())))
    r.what = "mesh record"
    for _ in range(n_meshes):
        saved_id, winding, n_points = r.u64(), r.u32(), r.u64()
        points = r.take(n_points * 12) if n_points <= r.remaining() // 12 else r.take(-1)
        n_indices = r.u64()
        indices = r.take(n_indices * 4) if n_indices <= r.remaining() // 4 else r.take(-1)
        meta.meshes.append(MeshRecord(saved_id, bool(winding), points, indices))
    r.what = "handle location record"
    for _ in range(n_handles):
        meta.handles.append(HandleLocation(*HANDLE_LOCATION.unpack(r.take(HANDLE_LOCATION.size))))
    if r.remaining():
        raise ApicFormatError("Invalid APIC metadata: trailing bytes after the last record")
    return meta


# --- memory --------------------------------------------------------------------------------------
@dataclass
class Region:
    """A block of memory the graph uses; `data`: its bytes when saved (None: left uninitialised)."""
    id: int
    element_size: int
    nbytes: int
    data: bytes | None


def write_memory(regions: list) -> bytes:
    out = [U32.pack(len(regions))]
    for reg in regions:
        out.append(MEMORY_REGION.pack(reg.id, reg.element_size, reg.nbytes, 1 if reg.data is not None else 0))
        if reg.data is not None:
            out.append(reg.data)
    return b"".join(out)


def read_memory(data: bytes) -> dict[int, Region]:
    """Region ID -> Region; duplicate IDs, truncated records or payloads and bad flags are refused
    before anything is allocated."""
    if len(data) < 4:
        raise ApicFormatError("Invalid APIC memory section: truncated region count")
    count, pos, regions = U32.unpack_from(data)[0], 4, {}
    for _ in range(count):
        if len(data) - pos < MEMORY_REGION.size:
            raise ApicFormatError("Invalid APIC memory section: truncated region record")
        rid, elem, nbytes, flag = MEMORY_REGION.unpack_from(data, pos)
        pos += MEMORY_REGION.size
        if rid in regions:
            raise ApicFormatError(f"Invalid APIC memory section: duplicate region ID {rid}")
        if flag not in (0, 1):
            raise ApicFormatError(f"Invalid APIC memory section: region {rid} has invalid initial-data flag {flag}")
        payload = None
        if flag:
            if nbytes > len(data) - pos:
                raise ApicFormatError(f"Invalid APIC memory section: region {rid} initial data is truncated")
            payload = bytes(data[pos:pos + nbytes])
            pos += nbytes
        regions[rid] = Region(rid, elem, nbytes, payload)
    return regions
