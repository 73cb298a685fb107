"""The operation section of an APIC `.wrp` file: operation records <-> bytes. Knows the record
layouts and checks every record against the memory regions it names; knows nothing about kernels
or arrays (a launch's arguments are its kernel's argument struct, with the addresses in it given
as region + offset relocations, so a loader can point them at its own memory).

The section is a u32 operation count, then records, each opening with u32 type and u32 byte size:
  1 launch    4 x u32 launch shape, u32 ndim, u32 kernel index, u32 adjoint, u32 block_dim,
              u32 argument-struct size, the struct, u32 relocation count, per relocation
              u32 struct offset, u32 region, u64 offset in the region, then u32 count and the u32
              struct offsets that hold mesh ids
  4 memcpy    i32 dst region, i32 src region, u64 dst offset, u64 src offset, u64 byte count
  5 memset    i32 region, u32 byte value, u64 offset, u64 byte count
  7 if / 8 while  `<iIQIIII>` condition region, pad, offset, then per branch its byte size and
              operation count; the branches' records follow (a while has its body as branch a)
  10 memtile  `<iIQQ>` region, value size, offset, repetitions, then the value's bytes
The layouts of memcpy, memset, the conditionals and memtile are those Warp's files have."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from .apic_format import U32, ApicFormatError

OP_LAUNCH, OP_MEMCPY, OP_MEMSET, OP_IF, OP_WHILE, OP_MEMTILE = 1, 4, 5, 7, 8, 10
OP_HEADER = struct.Struct("<II")
LAUNCH_HEAD = struct.Struct("<IIIIIIIII")
RELOCATION = struct.Struct("<IIQ")
MEMCPY = struct.Struct("<iiQQQ")
MEMSET = struct.Struct("<iIQQ")
COND = struct.Struct("<iIQIIII")
MEMTILE = struct.Struct("<iIQQ")
_U64_MAX = (1 << 64) - 1


@dataclass
class LaunchOp:
    shape: tuple  # the launch dim, 1 to 4 extents
    kernel: int  # index into the metadata's kernel records
    adjoint: bool
    block_dim: int
    args: bytes  # the kernel's argument struct
    relocations: list  # (struct offset, region, region offset): 64-bit addresses to fill in
    handles: list = field(default_factory=list)  # struct offsets of mesh ids (mapped by the metadata's meshes)


@dataclass
class CopyOp:
    dst: int
    src: int
    dst_offset: int
    src_offset: int
    nbytes: int


@dataclass
class SetOp:
    region: int
    value: int
    offset: int
    nbytes: int


@dataclass
class TileOp:
    """Repeat `value` `count` times from `offset` (a fill_ of a non-zero value)."""
    region: int
    offset: int
    count: int
    value: bytes


@dataclass
class CondOp:
    """capture_if (`loop` False: branch a when condition != 0, else b) or capture_while (`loop`: run
    a while the int32 at region + offset is non-zero)."""
    loop: bool
    region: int
    offset: int
    branch_a: list = field(default_factory=list)
    branch_b: list = field(default_factory=list)


def write_ops(ops: list) -> bytes:
    return U32.pack(len(ops)) + b"".join(_encode(op) for op in ops)


def _record(kind: int, body: bytes) -> bytes:
    return OP_HEADER.pack(kind, OP_HEADER.size + len(body)) + body


def _encode(op) -> bytes:
    if isinstance(op, LaunchOp):
        shape = tuple(op.shape) + (1,) * (4 - len(op.shape))
        relocs = b"".join(RELOCATION.pack(*r) for r in op.relocations)
        return _record(OP_LAUNCH, LAUNCH_HEAD.pack(*shape, len(op.shape), op.kernel, int(op.adjoint), op.block_dim,
                                                   len(op.args)) + op.args + U32.pack(len(op.relocations)) + relocs
                       + U32.pack(len(op.handles)) + b"".join(U32.pack(h) for h in op.handles))
    if isinstance(op, CopyOp):
        return _record(OP_MEMCPY, MEMCPY.pack(op.dst, op.src, op.dst_offset, op.src_offset, op.nbytes))
    if isinstance(op, SetOp):
        return _record(OP_MEMSET, MEMSET.pack(op.region, op.value, op.offset, op.nbytes))
    if isinstance(op, TileOp):
        return _record(OP_MEMTILE, MEMTILE.pack(op.region, len(op.value), op.offset, op.count) + op.value)
    if isinstance(op, CondOp):
        a, b = b"".join(map(_encode, op.branch_a)), b"".join(map(_encode, op.branch_b))
        head = COND.pack(op.region, 0, op.offset, len(a), len(op.branch_a), len(b), len(op.branch_b))
        return _record(OP_WHILE if op.loop else OP_IF, head + a + b)
    raise TypeError(f"no APIC record for operation {type(op).__name__}")


def read_ops(data: bytes, region_sizes: dict[int, int], kernel_count: int) -> list:
    """The operations of a section, each checked against the regions (ID -> byte size) and the number
    of kernel records; any inconsistency raises ApicFormatError('... operation stream failed validation')."""
    try:
        if len(data) < 4:
            raise ValueError("no operation count")
        count = U32.unpack_from(data)[0]
        ops, end = _decode_stream(data, 4, len(data), count, region_sizes, kernel_count)
        if end != len(data):
            raise ValueError("trailing bytes after the last operation")
        return ops
    except (ValueError, struct.error) as e:
        raise ApicFormatError(f"APIC operation stream failed validation: {e}") from None


def _decode_stream(data, pos, end, count, regions, kernels) -> tuple[list, int]:
    ops = []
    for _ in range(count):
        if end - pos < OP_HEADER.size:
            raise ValueError("truncated operation header")
        kind, size = OP_HEADER.unpack_from(data, pos)
        if size < OP_HEADER.size or size > end - pos:
            raise ValueError(f"operation of type {kind} has bad size {size}")
        ops.append(_decode(kind, data, pos + OP_HEADER.size, pos + size, regions, kernels))
        pos += size
    return ops, pos


def _span(regions, region, offset, nbytes, what) -> None:
    if region not in regions:
        raise ValueError(f"{what} names unknown region {region}")
    if offset > regions[region] or nbytes > regions[region] - offset:
        raise ValueError(f"{what} of {nbytes} bytes at {offset} exceeds region {region}")


def _decode(kind, data, pos, end, regions, kernels):
    body = bytes(data[pos:end])
    if kind == OP_LAUNCH:
        head = LAUNCH_HEAD.unpack_from(body)
        shape, ndim, kernel, adjoint, block_dim, nargs = head[:4], head[4], head[5], head[6], head[7], head[8]
        if not 1 <= ndim <= 4 or kernel >= kernels or adjoint > 1 or block_dim < 1:
            raise ValueError("bad launch record")
        at = LAUNCH_HEAD.size
        args = body[at:at + nargs]
        if len(args) != nargs:
            raise ValueError("truncated launch arguments")
        at += nargs
        nrel = U32.unpack_from(body, at)[0]
        at += 4
        if nrel * RELOCATION.size + 4 > len(body) - at:
            raise ValueError("bad launch relocations")
        relocs = [RELOCATION.unpack_from(body, at + k * RELOCATION.size) for k in range(nrel)]
        at += nrel * RELOCATION.size
        nhandles = U32.unpack_from(body, at)[0]
        at += 4
        if nhandles * 4 != len(body) - at:
            raise ValueError("bad launch handle slots")
        handles = [U32.unpack_from(body, at + 4 * k)[0] for k in range(nhandles)]
        if any(h + 8 > nargs for h in handles):
            raise ValueError("handle slot outside the launch arguments")
        for off, region, roff in relocs:
            if off + 8 > nargs:
                raise ValueError("relocation outside the launch arguments")
            _span(regions, region, roff, 0, "launch argument")
        return LaunchOp(shape[:ndim], kernel, bool(adjoint), block_dim, args, relocs, handles)
    if kind == OP_MEMCPY and len(body) == MEMCPY.size:
        op = CopyOp(*MEMCPY.unpack(body))
        _span(regions, op.dst, op.dst_offset, op.nbytes, "memcpy destination")
        _span(regions, op.src, op.src_offset, op.nbytes, "memcpy source")
        return op
    if kind == OP_MEMSET and len(body) == MEMSET.size:
        op = SetOp(*MEMSET.unpack(body))
        _span(regions, op.region, op.offset, op.nbytes, "memset")
        return op
    if kind == OP_MEMTILE and len(body) >= MEMTILE.size:
        region, srcsize, offset, count = MEMTILE.unpack_from(body)
        if srcsize == 0 or len(body) != MEMTILE.size + srcsize:
            raise ValueError("memtile value size does not match its record")
        if count and srcsize > _U64_MAX // count:
            raise ValueError("memtile span overflows")
        _span(regions, region, offset, srcsize * count, "memtile")
        return TileOp(region, offset, count, body[MEMTILE.size:])
    if kind in (OP_IF, OP_WHILE) and len(body) >= COND.size:
        region, _pad, offset, size_a, count_a, size_b, count_b = COND.unpack_from(body)
        _span(regions, region, offset, 4, "condition")
        if (size_a == 0) != (count_a == 0) or (size_b == 0) != (count_b == 0):
            raise ValueError("a conditional branch's operation count does not match its size")
        if COND.size + size_a + size_b != len(body) or (kind == OP_WHILE and count_b):
            raise ValueError("conditional branch sizes do not match the record")
        a_start, b_start = pos + COND.size, pos + COND.size + size_a
        branch_a, a_end = _decode_stream(data, a_start, b_start, count_a, regions, kernels)
        branch_b, b_end = _decode_stream(data, b_start, end, count_b, regions, kernels)
        if a_end != b_start or b_end != end:
            raise ValueError("conditional branch sizes do not match their operations")
        return CondOp(kind == OP_WHILE, region, offset, branch_a, branch_b)
    raise ValueError(f"unknown or malformed operation of type {kind}")
