"""The APIC container and records (launch/apic_format.py, apic_ops.py) without compiling anything:
records written and read back equal what was written, and each kind of damage is refused with a
RuntimeError naming it (never an IndexError or struct.error from deep inside)."""

import struct

import pytest

from warp_nb.launch import apic_format as F
from warp_nb.launch import apic_ops as O


def _file(regions=None, ops=None, bindings=None) -> bytes:
    regions = regions if regions is not None else [F.Region(1, 4, 16, bytes(range(16)))]
    meta = F.Metadata(bindings=bindings or [F.BindingRecord("x", 1, 4, 8, "float32", (2,), True)], producer="v")
    return F.write_container({F.SECTION_METADATA: F.write_metadata(meta), F.SECTION_MEMORY: F.write_memory(regions),
                              F.SECTION_OPERATIONS: O.write_ops(ops or [])})


def _read(data: bytes):
    sections = F.read_container(data)
    meta = F.read_metadata(sections[F.SECTION_METADATA], "v")
    regions = F.read_memory(sections[F.SECTION_MEMORY])
    ops = O.read_ops(sections[F.SECTION_OPERATIONS], {r: v.nbytes for r, v in regions.items()}, len(meta.kernels))
    return meta, regions, ops


def test_round_trip_of_every_record():
    ops = [O.SetOp(1, 0, 0, 16), O.TileOp(1, 4, 3, struct.pack("<f", 2.5)), O.CopyOp(1, 1, 0, 8, 8),
           O.CondOp(False, 1, 0, [O.SetOp(1, 0, 0, 4)], []), O.CondOp(True, 1, 12, [O.SetOp(1, 0, 12, 4)])]
    meta, regions, back = _read(_file(ops=ops))
    assert back == ops
    assert regions[1].data == bytes(range(16)) and regions[1].element_size == 4
    assert meta.bindings == [F.BindingRecord("x", 1, 4, 8, "float32", (2,), True)]
    header = F.FILE_HEADER.unpack_from(_file())
    assert header[0] == b"WRP1" and header[1] == F.FORMAT_VERSION and header[3] == 3


@pytest.mark.parametrize("damage, message", [
    (lambda d: d[:20], "truncated header"),
    (lambda d: b"XXXX" + d[4:], "bad magic"),
    (lambda d: d[:4] + struct.pack("<I", 17) + d[8:], "Unsupported WRP version 17"),
    (lambda d: d[:12] + struct.pack("<I", 0xFFFFFFFF) + d[16:], "section table is out of bounds"),
    (lambda d: d[:16] + struct.pack("<Q", 1 << 40) + d[24:], "section table is out of bounds"),
])
def test_damaged_container_is_refused(damage, message):
    with pytest.raises(RuntimeError, match=message):
        _read(damage(_file()))


def test_damaged_memory_records_are_refused():
    good = F.write_memory([F.Region(1, 4, 16, bytes(16))])
    duplicate = struct.pack("<I", 2) + good[4:] + good[4:]
    with pytest.raises(RuntimeError, match="duplicate region ID 1"):
        F.read_memory(duplicate)
    with pytest.raises(RuntimeError, match="region 1 initial data is truncated"):
        F.read_memory(good[:-1])
    with pytest.raises(RuntimeError, match="truncated region record"):
        F.read_memory(struct.pack("<I", 1) + bytes(10))
    bad_flag = struct.pack("<I", 1) + F.MEMORY_REGION.pack(7, 1, 0, 2)
    with pytest.raises(RuntimeError, match="region 7 has invalid initial-data flag 2"):
        F.read_memory(bad_flag)


@pytest.mark.parametrize("op", [
    O.TileOp(1, 0, 1 << 62, b"\0\0\0\0"),  # a span that overflows
    O.TileOp(1, 0, 1, b""),  # a zero-byte value
    O.SetOp(1, 0, 8, 16),  # past the region's end
    O.CopyOp(1, 2, 0, 0, 4),  # an unknown region
    O.LaunchOp((4,), 0, False, 1, bytes(8), []),  # a kernel the metadata does not hold
])
def test_inconsistent_operations_are_refused(op):
    with pytest.raises(RuntimeError, match="operation stream failed validation"):
        _read(_file(ops=[op]))


def test_branch_count_without_bytes_is_refused():
    data = bytearray(O.write_ops([O.CondOp(False, 1, 0, [], [])]))
    record = list(O.COND.unpack_from(data, 4 + O.OP_HEADER.size))
    record[4] = 1  # branch a now claims one operation, in zero bytes
    O.COND.pack_into(data, 4 + O.OP_HEADER.size, *record)
    with pytest.raises(RuntimeError, match="operation stream failed validation"):
        O.read_ops(bytes(data), {1: 16}, 0)


def test_truncated_metadata_names_the_record():
    meta = F.write_metadata(F.Metadata(bindings=[F.BindingRecord("x", 1, 0, 4, "float32", (1,), False)],
                                       producer="v"))
    header = 8 * 4 + 1
    with pytest.raises(RuntimeError, match="Invalid APIC metadata header"):
        F.read_metadata(meta[:header - 1], "v")
    with pytest.raises(RuntimeError, match="Invalid APIC binding record"):
        F.read_metadata(meta[:header + 2], "v")
    with pytest.raises(RuntimeError, match="produced by Warp v, but this loader is Warp w"):
        F.read_metadata(meta, "w")
