"""A reader and writer for NanoVDB (.nvdb) grids of float, double, int32, Vec3f/d and Vec4f/d
values, FpN grids (read as float) and OnIndex grids (active voxels numbered, no values), with
their blind data (feature arrays), written from NanoVDB's documented memory layout: file header,
per-grid metadata and name, then the grid buffers (uncompressed, or zlib with codec ZIP). The
tree is flattened into what wp.Volume stores: 8^3 leaf bricks, and constant regions for the
tiles of the lower (8^3), upper (128^3) and root (4096^3) levels. nvdb_validate checks a grid's
structure before parse_grid walks it; every read here is bounds-checked as well, so a truncated
or corrupt file raises NanoVDBError (a RuntimeError and a ValueError), never reads past the data."""

from __future__ import annotations

import struct
import zlib

import numpy as np

from .volume_rebuild import tree_order

FILE_MAGIC = 0x304244566F6E614E  # "NanoVDB0"
GRID_MAGIC = 0x314244566F6E614E  # "NanoVDB1"
GRID_TYPES = {0: "Unknown", 1: "Float", 2: "Double", 3: "Int16", 4: "Int32", 5: "Int64", 6: "Vec3f", 7: "Vec3d",
              8: "Mask", 9: "Half", 10: "UInt32", 11: "Boolean", 12: "RGBA8", 13: "Fp4", 14: "Fp8", 15: "Fp16",
              16: "FpN", 17: "Vec4f", 18: "Vec4d", 19: "Index", 20: "OnIndex"}
CODECS = {0: "none", 1: "zip", 2: "blosc"}

def _up(n: int, a: int) -> int:
    return (n + a - 1) // a * a


class ValueType:
    """The layout of a grid's value type in NanoVDB's nodes: value size and alignment, and the size
    of the FloatType that holds the average and standard deviation (double for 8-byte scalars)."""

    def __init__(self, np_type, inner: tuple):
        self.np_type, self.inner = np.dtype(np_type), inner
        self.size = self.np_type.itemsize * int(np.prod(inner, dtype=int))
        self.align = self.np_type.itemsize
        self.stat = 8 if self.np_type.itemsize == 8 else 4
        # leaf: origin, bbox extent, flags, value mask (80 bytes), min, max, average, deviation, 512 values
        stats_end = _up(80 + 2 * self.size, self.stat) + 2 * self.stat
        self.leaf_values = _up(stats_end, 32)  # the values are 32-byte aligned
        self.leaf_size = _up(self.leaf_values + 512 * self.size, 32)
        # root: bbox, table size, background, min, max, average, deviation
        self.root_background = _up(28, self.align)
        self.root_header = _up(_up(self.root_background + 3 * self.size, self.stat) + 2 * self.stat, 32)
        self.root_tile = _up(_up(20, self.align) + self.size, 32)
        self.root_tile_value = _up(20, self.align)
        # internal nodes: a table of unions of a value and a child offset
        self.table_entry = _up(max(self.size, 8), max(self.align, 8))

    def internal_table_at(self, mask_bytes: int) -> int:
        end = _up(32 + 2 * mask_bytes + 2 * self.size, self.stat) + 2 * self.stat
        return _up(end, 32)

    def read(self, buf, count: int, offset: int, stride: int | None = None) -> np.ndarray:
        """count values at offset (each stride bytes apart, default packed), shaped (count, *inner)."""
        if stride is None or stride == self.size:
            raw = np.frombuffer(buf, np.uint8, count * self.size, offset)
        else:
            raw = np.frombuffer(buf, np.uint8, count * stride, offset).reshape(count, stride)[:, :self.size]
        return np.ascontiguousarray(raw).view(self.np_type).reshape((count,) + self.inner)


#: NanoVDB grid types wp.Volume reads, by type code
VALUE_TYPES = {1: ValueType(np.float32, ()), 2: ValueType(np.float64, ()), 4: ValueType(np.int32, ()),
               6: ValueType(np.float32, (3,)), 7: ValueType(np.float64, (3,)), 17: ValueType(np.float32, (4,)),
               18: ValueType(np.float64, (4,)), 20: ValueType(np.uint64, ())}
#: FpN grids (variable-bit quantized floats): float root and internal nodes; each leaf is its
#: header and value mask (80 bytes), minimum and quantum (floats), four uint16 statistics, then 512
#: codes of 1 << (flags >> 5) bits, so leaves differ in size; a value is minimum + quantum * code
FPN, FPN_LEAF_HEADER = 16, 96
#: the types whose tree parse_grid walks (FpN reads as float)
TREE_TYPES = {**VALUE_TYPES, FPN: ValueType(np.float32, ())}
#: OnIndex grids: the tree holds voxel indices instead of values; a leaf is its header and value
#: mask (80 bytes), then the index of its first active voxel and a prefix sum (8 bytes each)
ON_INDEX, INDEX_LEAF_SIZE = 20, 96

GRID_HEADER = 672   # GridData
TREE_HEADER = 64    # TreeData


class NanoVDBError(ValueError, RuntimeError):
    """A .nvdb file or buffer that warp_nb cannot read (truncated, corrupt or unsupported). Warp
    reports these as RuntimeError; ValueError is kept for code written against warp_nb."""


def _need(buf, offset: int, size: int, what: str) -> None:
    if offset < 0 or offset + size > len(buf):
        raise NanoVDBError(f"NanoVDB data is truncated: {what} needs bytes {offset}..{offset + size}, the data has "
                           f"{len(buf)}")


def read_file(data: bytes) -> bytes:
    """The first grid's buffer from the bytes of a .nvdb file (decompressed)."""
    return read_grids(data, 1)[0]


def read_grids(data: bytes, limit: int | None = None, grid_buffer: bool = False) -> list:
    """The grid buffers (decompressed) of a .nvdb file, or the buffer itself when `data` is one
    raw grid; at most `limit` of them. With `grid_buffer` (wp.Volume(data)), bytes that start like a
    grid are one even when more grids follow it. A file is a header, one metadata record (176 bytes and the
    name) per grid, then the grids' payloads in the same order."""
    _need(data, 0, 16, "the file header")
    magic, version, grid_count, codec = struct.unpack_from("<QIHH", data, 0)
    if magic == GRID_MAGIC or (magic == FILE_MAGIC and len(data) >= 672 and _looks_like_grid(data, grid_buffer)):
        return [data]  # a raw grid buffer
    if magic != FILE_MAGIC:
        raise NanoVDBError("not a NanoVDB file (bad magic number)")
    if grid_count < 1:
        raise NanoVDBError("the NanoVDB file holds no grid")
    metas, at = [], 16
    for _ in range(grid_count):
        _need(data, at, 176, "the grid metadata")
        grid_size, file_size = struct.unpack_from("<QQ", data, at)
        name_size, = struct.unpack_from("<I", data, at + 136)
        grid_codec, = struct.unpack_from("<H", data, at + 168)
        # the record's grid type is not trusted (writers leave it Unknown): the grid's own header decides
        metas.append((grid_size, file_size, grid_codec))
        at += 176 + name_size
    grids = []
    for grid_size, file_size, grid_codec in metas[:limit]:
        grids.append(_payload(data, at, grid_size, grid_codec))
        at += file_size
    return grids


def _payload(data: bytes, start: int, grid_size: int, grid_codec: int) -> bytes:
    if grid_codec == 0:
        _need(data, start, grid_size, "the grid")
        return data[start:start + grid_size]
    if grid_codec == 1:
        _need(data, start, 8, "the compressed grid's size")
        size, = struct.unpack_from("<Q", data, start)
        _need(data, start + 8, size, "the compressed grid")
        try:
            out = zlib.decompress(data[start + 8:start + 8 + size])
        except zlib.error as e:
            raise NanoVDBError(f"the compressed NanoVDB grid is corrupt ({e})") from None
        if len(out) != grid_size:
            raise NanoVDBError(f"the NanoVDB grid decompressed to {len(out)} bytes, expected {grid_size}")
        return out
    raise NanoVDBError(f"unsupported NanoVDB codec {CODECS.get(grid_codec, grid_codec)} (warp_nb reads none and zip)")


def _looks_like_grid(data: bytes, grid_buffer: bool = False) -> bool:
    """Whether bytes starting with "NanoVDB0" are a grid buffer (older grids use the file's magic):
    a grid's own size sits at offset 32 and matches a plausible buffer, a file header's grid count
    and codec sit at offset 12."""
    grid_size, = struct.unpack_from("<Q", data, 32)
    if grid_buffer and 736 <= grid_size <= len(data) and struct.unpack_from("<I", data, 636)[0] in TREE_TYPES:
        return True
    count, codec = struct.unpack_from("<HH", data, 12)
    return grid_size == len(data) and not (1 <= count <= 1024 and codec <= 2 and len(data) != grid_size)


def _decode_key(key: int):
    """Root tile key -> origin of its 4096^3 region. NanoVDB keys hold uint32(coordinate) >> 12 per
    axis (21-bit fields), so a negative coordinate's field is its two's complement bits shifted."""
    def field(v):
        u = ((v & 0x1FFFFF) << 12) & 0xFFFFFFFF
        return u - (1 << 32) if u >= (1 << 31) else u
    return field(key >> 42), field(key >> 21), field(key)


def parse_grid(buf: bytes) -> dict:
    """Flatten a grid buffer: bricks (origins (n, 3) int32, values (n, 512, *inner) of the value
    type), constant regions per level [(origins, values)] for sizes 8, 128, 4096, the background,
    the index-to-world matrix and translation, and the grid's type code."""
    _need(buf, 0, GRID_HEADER + TREE_HEADER, "the grid header")
    magic, = struct.unpack_from("<Q", buf, 0)
    if magic not in (GRID_MAGIC, FILE_MAGIC):  # grids written before NanoVDB 32.6 carry "NanoVDB0" too
        raise NanoVDBError("not a NanoVDB grid (bad magic number)")
    grid_size, = struct.unpack_from("<Q", buf, 32)
    if grid_size > len(buf):
        raise NanoVDBError(f"NanoVDB grid is truncated: it declares {grid_size} bytes, the data has {len(buf)}")
    grid_class, grid_type = struct.unpack_from("<II", buf, 632)
    vt = TREE_TYPES.get(grid_type)
    if vt is None:
        raise NanoVDBError(f"unsupported NanoVDB grid type {GRID_TYPES.get(grid_type, grid_type)}: warp_nb reads "
                           f"{', '.join(GRID_TYPES[t] for t in VALUE_TYPES)} grids")
    mat = np.array(struct.unpack_from("<9d", buf, 296 + 88), np.float64).reshape(3, 3)
    vec = np.array(struct.unpack_from("<3d", buf, 296 + 88 + 144), np.float64)
    tree = GRID_HEADER
    offsets = struct.unpack_from("<4Q", buf, tree)
    counts = struct.unpack_from("<3I", buf, tree + 32)
    root = tree + offsets[3]
    _need(buf, root, vt.root_header, "the root node")
    table_size, = struct.unpack_from("<I", buf, root + 24)
    background = vt.read(buf, 1, root + vt.root_background)[0]
    _need(buf, root + vt.root_header, table_size * vt.root_tile, "the root tiles")
    consts = {8: ([], []), 128: ([], []), 4096: ([], [])}
    uppers = []
    for t in range(table_size):
        at = root + vt.root_header + t * vt.root_tile
        key, child, state = struct.unpack_from("<QqI", buf, at)
        value = vt.read(buf, 1, at + vt.root_tile_value)[0]
        origin = _decode_key(key)
        if child:
            uppers.append((root + child, origin))
        elif state or np.any(value != background):
            consts[4096][0].append(origin)
            consts[4096][1].append(value)
    lowers = []
    for addr, origin in uppers:
        lowers += _internal(buf, vt, addr, origin, 5, 128, background, consts[128])
    leaves = []
    for addr, origin in lowers:
        leaves += _internal(buf, vt, addr, origin, 4, 8, background, consts[8])
    n_leaves = counts[0]
    leaf0 = tree + offsets[0]
    if grid_type == ON_INDEX:
        out = _index_leaves(buf, leaf0, n_leaves, mat, vec, grid_class)
        _unique_origins(out["origins"])
        return out
    # leaves are taken where the tree points and placed where it puts them, as a lookup through
    # the tree finds them (a leaf's own origin field is not trusted; unreferenced leaves are dropped)
    n_leaves = len(leaves)
    tree_origins = np.array([o for _, o in leaves], np.int32).reshape(-1, 3)
    if grid_type == FPN:  # variable-size leaves
        origins, values = _fpn_leaves(buf, leaves)
    else:
        addrs = np.array([a for a, _ in leaves], np.int64)
        if n_leaves:
            lo, hi = int(addrs.min()), int(addrs.max()) + vt.leaf_size
            _need(buf, lo, hi - lo, "the leaf nodes")
        span = leaf0 + vt.leaf_size * np.arange(n_leaves)
        if np.array_equal(addrs, span):  # the usual breadth-first order: one strided read
            raw = np.frombuffer(buf, np.uint8, n_leaves * vt.leaf_size, leaf0).reshape(n_leaves, vt.leaf_size)
            values = np.ascontiguousarray(raw[:, vt.leaf_values:vt.leaf_values + 512 * vt.size]).view(vt.np_type)
        else:
            values = np.stack([vt.read(buf, 512, int(a) + vt.leaf_values) for a in addrs]) if n_leaves else \
                np.zeros((0, 512) + vt.inner, vt.np_type)
        origins = tree_origins
    _unique_origins(origins)
    levels = [(np.array(o, np.int32).reshape(-1, 3), np.array(v, vt.np_type).reshape((-1,) + vt.inner))
              for o, v in (consts[8], consts[128], consts[4096])]
    return {"origins": origins, "values": values.reshape((n_leaves, 512) + vt.inner).copy(), "levels": levels,
            "background": background, "xform": mat, "translation": vec, "grid_class": grid_class,
            "grid_type": grid_type, "blind": blind_data(buf)}


def _unique_origins(origins: np.ndarray) -> None:
    """Two leaves at one origin would make a voxel's value ambiguous: a corrupt grid."""
    if len(np.unique(origins, axis=0)) != len(origins):
        raise NanoVDBError("Invalid NanoVDB grid structure: two leaf nodes have the same origin")


def _fpn_leaves(buf, leaves: list):
    """Origins (n, 3) and decoded float values (n, 512) of the FpN leaves [(address, origin)]."""
    origins, values = np.zeros((len(leaves), 3), np.int32), np.zeros((len(leaves), 512), np.float32)
    for k, (at, origin) in enumerate(leaves):
        _need(buf, at, FPN_LEAF_HEADER, "an FpN leaf")
        bits = 1 << (buf[at + 15] >> 5)
        _need(buf, at + FPN_LEAF_HEADER, 64 * bits, "an FpN leaf's values")
        origins[k] = origin
        minimum, quantum = struct.unpack_from("<ff", buf, at + 80)
        raw = np.frombuffer(buf, np.uint8, 64 * bits, at + FPN_LEAF_HEADER)
        if bits >= 8:  # whole bytes: little-endian codes
            codes = raw.view(np.uint8 if bits == 8 else np.uint16)
        else:  # codes packed from the low bits of each byte up
            codes = np.unpackbits(raw, bitorder="little").reshape(512, bits) @ (1 << np.arange(bits))
        values[k] = minimum + quantum * codes.astype(np.float32)
    return origins, values


def _index_leaves(buf, leaf0: int, n_leaves: int, mat, vec, grid_class) -> dict:
    """An OnIndex grid's leaves: bricks with their active voxels (numbered in leaf order by the
    volume itself), no values; the grid's blind data (feature arrays) come along as bytes."""
    _need(buf, leaf0, n_leaves * INDEX_LEAF_SIZE, "the leaf nodes")
    raw = np.frombuffer(buf, np.uint8, n_leaves * INDEX_LEAF_SIZE, leaf0).reshape(n_leaves, INDEX_LEAF_SIZE)
    origins = np.ascontiguousarray(raw[:, :12]).view(np.int32).reshape(n_leaves, 3) & ~7
    active = np.unpackbits(raw[:, 16:80], axis=1, bitorder="little").astype(bool)
    empty = (np.zeros((0, 3), np.int32), np.zeros(0, np.uint64))
    return {"origins": origins, "values": np.zeros((n_leaves, 512), np.uint64), "levels": [empty] * 3,
            "background": np.uint64(0), "xform": mat, "translation": vec, "grid_class": grid_class,
            "grid_type": ON_INDEX, "active": active, "blind": blind_data(buf)}


def blind_data(buf: bytes) -> list:
    """The grid's blind data arrays: [(name, value size, value count, bytes, data type code)]. Each
    288-byte metadata record (data offset relative to itself, count, size, semantic, class, type,
    name) follows the grid's blind-metadata offset; records and data must lie within the grid."""
    offset, count = struct.unpack_from("<qI", buf, 640)
    buf = memoryview(buf)[:struct.unpack_from("<Q", buf, 32)[0]]
    out = []
    for k in range(count):
        at = offset + 288 * k
        _need(buf, at, 288, "a blind metadata record")
        data_offset, value_count, value_size, data_type = struct.unpack_from("<qQI8xI", buf, at)
        name = bytes(buf[at + 32:at + 288]).split(b"\0", 1)[0].decode("utf-8", "replace")
        _need(buf, at + data_offset, value_count * value_size, "blind data")
        data = bytes(buf[at + data_offset:at + data_offset + value_count * value_size])
        out.append((name, value_size, value_count, data, data_type))
    return out


def _internal(buf, vt: ValueType, addr, origin, log2dim, child_size, background, out):
    """Read an internal node: its constant tiles go to `out`, returns [(child address, origin)]."""
    n = 1 << (3 * log2dim)
    mask_bytes = n // 8
    table_at = vt.internal_table_at(mask_bytes)
    _need(buf, addr, table_at + vt.table_entry * n, "an internal node")
    value_mask = np.unpackbits(np.frombuffer(buf, np.uint8, mask_bytes, addr + 32), bitorder="little").astype(bool)
    child_mask = np.unpackbits(np.frombuffer(buf, np.uint8, mask_bytes, addr + 32 + mask_bytes),
                               bitorder="little").astype(bool)
    children = np.frombuffer(buf, np.uint8, vt.table_entry * n, addr + table_at).reshape(n, vt.table_entry)
    children = np.ascontiguousarray(children[:, :8]).view(np.int64).reshape(n)
    values = vt.read(buf, n, addr + table_at, vt.table_entry)
    k = np.arange(n)
    dim = 1 << log2dim
    local = np.stack([k >> (2 * log2dim), (k >> log2dim) & (dim - 1), k & (dim - 1)], 1) * child_size
    origins = local + np.asarray(origin)
    differs = (values != background).reshape(n, -1).any(axis=1)
    tiles = ~child_mask & (value_mask | differs)
    out[0].extend(origins[tiles].tolist())
    out[1].extend(list(values[tiles]))
    kids = np.nonzero(child_mask)[0]
    return [(addr + int(children[c]), tuple(int(x) for x in origins[c])) for c in kids]


# --- writer ---------------------------------------------------------------------------------------

_FILE_VERSION = 0x04000C03
_GRID_VERSION = 0x04002000


def _mask(bits: np.ndarray) -> bytes:
    return np.packbits(bits.astype(np.uint8), bitorder="little").tobytes()


def _bbox_bytes(lo, hi) -> bytes:
    return struct.pack("<6i", *[int(v) for v in lo], *[int(v) for v in hi])


def write_grid(origins, values, levels, background, xform, translation, grid_type: int = 1, active=None) -> bytes:
    """A NanoVDB grid buffer of grid_type (a VALUE_TYPES code; breadth-first: grid, tree, root,
    upper, lower and leaf nodes) from 8^3 bricks (with their active voxels, default all) and
    constant regions [(origins, values)] of 8^3, 128^3 and 4096^3 voxels."""
    vt = VALUE_TYPES[grid_type]
    origins = np.asarray(origins, np.int64).reshape(-1, 3)
    values = np.asarray(values, vt.np_type).reshape((-1, 512) + vt.inner)
    active = np.ones((len(origins), 512), bool) if active is None else np.asarray(active, bool).reshape(-1, 512)
    levels = list(levels) + [(np.zeros((0, 3)), np.zeros((0,) + vt.inner))] * (3 - len(levels))
    c8, c128, c4096 = [(np.asarray(o, np.int64).reshape(-1, 3), np.asarray(v, vt.np_type).reshape((-1,) + vt.inner))
                       for o, v in levels]
    bg = np.asarray(background, vt.np_type).reshape(vt.inner)
    is_index = grid_type == ON_INDEX
    leaf_size = INDEX_LEAF_SIZE if is_index else vt.leaf_size
    # the nodes each brick and tile needs
    uppers = sorted({tuple(o) for o in (np.concatenate([origins, c8[0], c128[0]]) & ~4095).tolist()})
    # nodes and leaves in tree order (by upper node, then lower node, then brick), the order in which an
    # index volume numbers its voxels (volume_rebuild.tree_order), so that a grid reads back as it was
    lowers = sorted({tuple(o) for o in (np.concatenate([origins, c8[0]]) & ~127).tolist()},
                    key=lambda o: (o[0] >> 12, o[1] >> 12, o[2] >> 12, o))
    up_index = {o: k for k, o in enumerate(uppers)}
    low_index = {o: k for k, o in enumerate(lowers)}
    order = tree_order(origins >> 3) if len(origins) else np.zeros(0, int)
    origins, values, active = origins[order], values[order], active[order]
    tree_at = GRID_HEADER
    root_at = tree_at + TREE_HEADER
    n_root = len(uppers) + len(c4096[0])
    upper_at = root_at + vt.root_header + vt.root_tile * n_root
    upper_size = vt.internal_table_at(4096) + vt.table_entry * 32768
    lower_size = vt.internal_table_at(512) + vt.table_entry * 4096
    lower_at = upper_at + upper_size * len(uppers)
    leaf_at = lower_at + lower_size * len(lowers)
    grid_size = leaf_at + leaf_size * len(origins)
    buf = bytearray(grid_size)
    # active index bounding box
    pts = [origins, origins + 7, c8[0], c8[0] + 7, c128[0], c128[0] + 127, c4096[0], c4096[0] + 4095]
    allp = np.concatenate([p for p in pts if len(p)]) if any(len(p) for p in pts) else np.zeros((1, 3), np.int64)
    lo, hi = allp.min(0), allp.max(0)
    # leaves
    first = 1  # an index grid numbers its active voxels from 1 (0 is the background)
    for k, (o, v) in enumerate(zip(origins, values)):
        at = leaf_at + leaf_size * k
        struct.pack_into("<3i3BB", buf, at, *[int(x) for x in o], 7, 7, 7, 2)
        buf[at + 16:at + 80] = _mask(active[k])
        if is_index:  # the first index, then the active voxels up to each of words 0..6 (9 bits each)
            words = active[k].reshape(8, 64).sum(axis=1)
            prefix = sum(int(c) << (9 * w) for w, c in enumerate(np.cumsum(words)[:7]))
            struct.pack_into("<QQ", buf, at + 80, first, prefix)
            first += int(words.sum())
        else:
            buf[at + vt.leaf_values:at + vt.leaf_values + 512 * vt.size] = v.tobytes()

    def internal(at, origin, log2dim, child_size, children, tiles):
        n = 1 << (3 * log2dim)
        dim = 1 << log2dim
        table = np.zeros((n, vt.table_entry), np.uint8)
        table[:, :vt.size] = np.frombuffer(bg.tobytes(), np.uint8)
        child = np.zeros(n, bool)
        tile_on = np.zeros(n, bool)

        def slot(p):
            q = (np.asarray(p) - np.asarray(origin)) // child_size
            return int((q[0] * dim + q[1]) * dim + q[2])
        for p, child_at in children:
            s = slot(p)
            child[s] = True
            table[s, :8] = np.frombuffer(struct.pack("<q", child_at - at), np.uint8)
            table[s, 8:] = 0
        for p, value in tiles:
            s = slot(p)
            tile_on[s] = True
            table[s] = 0
            table[s, :vt.size] = np.frombuffer(np.asarray(value, vt.np_type).tobytes(), np.uint8)
        size = child_size << log2dim
        mask_bytes = n // 8
        buf[at:at + 24] = _bbox_bytes(np.maximum(lo, origin), np.minimum(hi, np.asarray(origin) + size - 1))
        buf[at + 32:at + 32 + mask_bytes] = _mask(tile_on)
        buf[at + 32 + mask_bytes:at + 32 + 2 * mask_bytes] = _mask(child)
        table_at = vt.internal_table_at(mask_bytes)
        buf[at + table_at:at + table_at + vt.table_entry * n] = table.tobytes()

    leaf_lower = (origins & ~127).tolist()
    for k, o in enumerate(lowers):
        kids = [(tuple(origins[i]), leaf_at + leaf_size * i) for i in range(len(origins)) if tuple(leaf_lower[i]) == o]
        tiles = [(tuple(p), v) for p, v in zip(c8[0].tolist(), c8[1]) if tuple(np.array(p) & ~127) == o]
        internal(lower_at + lower_size * k, o, 4, 8, kids, tiles)
    for k, o in enumerate(uppers):
        kids = [(lo_o, lower_at + lower_size * low_index[lo_o]) for lo_o in lowers if tuple(np.array(lo_o) & ~4095) == o]
        tiles = [(tuple(p), v) for p, v in zip(c128[0].tolist(), c128[1]) if tuple(np.array(p) & ~4095) == o]
        internal(upper_at + upper_size * k, o, 5, 128, kids, tiles)
    # root: one tile per upper node (children) and per 4096^3 constant region
    struct.pack_into("<6iI", buf, root_at, *[int(x) for x in lo], *[int(x) for x in hi], n_root)
    buf[root_at + vt.root_background:root_at + vt.root_background + vt.size] = bg.tobytes()

    def key(o):
        return sum(((int(o[a]) & 0xFFFFFFFF) >> 12) << (42 - 21 * a) for a in range(3))
    entries = [(key(o), upper_at + upper_size * up_index[o] - root_at, 0, bg) for o in uppers]
    entries += [(key(o), 0, 1, v) for o, v in zip(c4096[0].tolist(), c4096[1])]
    for t, (k, child_at, state, value) in enumerate(sorted(entries, key=lambda e: e[0])):
        at = root_at + vt.root_header + vt.root_tile * t
        struct.pack_into("<QqI", buf, at, k, child_at, state)
        raw = np.asarray(value, vt.np_type).tobytes()
        buf[at + vt.root_tile_value:at + vt.root_tile_value + vt.size] = raw
    # tree and grid headers
    struct.pack_into("<4Q3I3IQ", buf, tree_at, leaf_at - tree_at, lower_at - tree_at, upper_at - tree_at,
                     root_at - tree_at, len(origins), len(lowers), len(uppers), len(origins), len(lowers),
                     len(uppers), int(active.sum()))
    xform = np.asarray(xform, np.float64).reshape(3, 3)
    inv = np.linalg.inv(xform)
    vec = np.asarray(translation, np.float64).reshape(3)
    struct.pack_into("<QQIIIIQ", buf, 0, GRID_MAGIC, 0xFFFFFFFFFFFFFFFF, _GRID_VERSION, 0x22, 0, 1, grid_size)
    struct.pack_into("<9f9f3ff9d9d3dd", buf, 296, *xform.ravel(), *inv.ravel(), *vec, 1.0, *xform.ravel(), *inv.ravel(),
                     *vec, 1.0)
    corners = np.array([[x, y, z] for x in (lo[0], hi[0] + 1) for y in (lo[1], hi[1] + 1) for z in (lo[2], hi[2] + 1)])
    world = corners @ xform.T + vec
    voxel = np.linalg.norm(xform, axis=0)
    # an index grid: class IndexGrid (8), and its value count (active voxels and the background) in mData1
    struct.pack_into("<6d3dIIqIIQQ", buf, 560, *world.min(0), *world.max(0), *voxel, 8 if is_index else 0, grid_type,
                     grid_size, 0, 0, int(active.sum()) + 1 if is_index else 0, 0)
    return bytes(buf), (lo, hi, world.min(0), world.max(0), voxel)


def write_file(grid: bytes, info, codec: str = "none", grid_type: int = 1) -> bytes:
    """A .nvdb file holding one grid (codec "none" or "zip")."""
    return write_files([(grid, info, grid_type)], codec)


def grid_info(buf: bytes):
    """(index bbox low, high, world bbox low, high, voxel size) of a grid buffer, as write_grid returns them."""
    _need(buf, 0, GRID_HEADER + TREE_HEADER, "the grid header")
    root = GRID_HEADER + struct.unpack_from("<4Q", buf, GRID_HEADER)[3]
    _need(buf, root, 24, "the root node")
    box = struct.unpack_from("<6i", buf, root)
    world = struct.unpack_from("<6d", buf, 560)
    return box[:3], box[3:], world[:3], world[3:], struct.unpack_from("<3d", buf, 608)


def write_files(grids: list, codec: str = "none") -> bytes:
    """A .nvdb file holding grids [(grid buffer, grid_info, type code)]: the header, one metadata
    record per grid, then the payloads in the same order (codec "none" or "zip")."""
    if codec not in ("none", "zip"):
        raise ValueError(f"unsupported NanoVDB codec {codec!r} (warp_nb writes none and zip)")
    code = 0 if codec == "none" else 1
    metas, payloads = [], []
    for grid, (lo, hi, wlo, whi, voxel), grid_type in grids:
        data = grid if codec == "none" else zlib.compress(grid)
        payload = data if codec == "none" else struct.pack("<Q", len(data)) + data
        metas.append(struct.pack("<QQQQII6d6i3dI4I3IHHI", len(grid), len(payload), 0, 0, grid_type, 0, *wlo, *whi,
                                 *[int(x) for x in lo], *[int(x) for x in hi], *voxel, 1, 0, 0, 0, 0, 0, 0, 0, code, 0,
                                 _FILE_VERSION) + b"\0")
        payloads.append(payload)
    head = struct.pack("<QIHH", FILE_MAGIC, _FILE_VERSION, len(grids), code)
    return head + b"".join(metas) + b"".join(payloads)
