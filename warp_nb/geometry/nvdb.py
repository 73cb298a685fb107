"""A reader for NanoVDB (.nvdb) float grids, written from NanoVDB's documented memory layout:
file header, per-grid metadata and name, then the grid buffer (uncompressed, or zlib with
codec ZIP). The tree is flattened into what wp.Volume stores: 8^3 leaf bricks, and constant
regions for the tiles of the lower (8^3), upper (128^3) and root (4096^3) levels. Every read is
bounds-checked, so a truncated or corrupt file raises a ValueError, never reads past the data."""

from __future__ import annotations

import struct
import zlib

import numpy as np

FILE_MAGIC = 0x304244566F6E614E  # "NanoVDB0"
GRID_MAGIC = 0x314244566F6E614E  # "NanoVDB1"
GRID_TYPES = {0: "Unknown", 1: "Float", 2: "Double", 3: "Int16", 4: "Int32", 5: "Int64", 6: "Vec3f", 7: "Vec3d",
              8: "Mask", 9: "Half", 10: "UInt32", 11: "Boolean", 12: "RGBA8", 13: "Fp4", 14: "Fp8", 15: "Fp16",
              16: "FpN", 17: "Vec4f", 18: "Vec4d", 19: "Index", 20: "OnIndex"}
CODECS = {0: "none", 1: "zip", 2: "blosc"}

_GRID_HEADER = 672   # GridData
_TREE_HEADER = 64    # TreeData
_ROOT_HEADER = 64    # RootData<float> (aligned to 32)
_ROOT_TILE = 32
_LEAF_SIZE = 2144    # LeafData<float>: origin, bbox, flags, mask, stats, 512 values
_LEAF_VALUES = 96
_INTERNAL = {5: (8256, 4096), 4: (1088, 512)}  # log2dim -> (table offset, mask bytes)


class NanoVDBError(ValueError):
    """A .nvdb file or buffer that warp_nb cannot read (truncated, corrupt or unsupported)."""


def _need(buf, offset: int, size: int, what: str) -> None:
    if offset < 0 or offset + size > len(buf):
        raise NanoVDBError(f"NanoVDB data is truncated: {what} needs bytes {offset}..{offset + size}, the data has "
                           f"{len(buf)}")


def read_file(data: bytes) -> bytes:
    """The first grid's buffer from the bytes of a .nvdb file (decompressed)."""
    _need(data, 0, 16, "the file header")
    magic, version, grid_count, codec = struct.unpack_from("<QIHH", data, 0)
    if magic == GRID_MAGIC:
        return data  # a raw grid buffer
    if magic != FILE_MAGIC:
        raise NanoVDBError("not a NanoVDB file (bad magic number)")
    if grid_count < 1:
        raise NanoVDBError("the NanoVDB file holds no grid")
    _need(data, 16, 176, "the grid metadata")
    grid_size, file_size = struct.unpack_from("<QQ", data, 16)
    grid_type, = struct.unpack_from("<I", data, 16 + 32)
    name_size, = struct.unpack_from("<I", data, 16 + 136)
    grid_codec, = struct.unpack_from("<H", data, 16 + 168)
    if grid_type != 1:
        raise NanoVDBError(f"unsupported NanoVDB grid type {GRID_TYPES.get(grid_type, grid_type)}: warp_nb reads "
                           "float grids")
    start = 16 + 176 + name_size
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


def _decode_key(key: int):
    """Root tile key -> origin of its 4096^3 region. NanoVDB keys hold uint32(coordinate) >> 12 per
    axis (21-bit fields), so a negative coordinate's field is its two's complement bits shifted."""
    def field(v):
        u = ((v & 0x1FFFFF) << 12) & 0xFFFFFFFF
        return u - (1 << 32) if u >= (1 << 31) else u
    return field(key >> 42), field(key >> 21), field(key)


def parse_grid(buf: bytes) -> dict:
    """Flatten a float grid buffer: bricks (origins (n, 3) int32, values (n, 512) float32),
    constant regions per level [(origins, values)] for sizes 8, 128, 4096, the background, the
    index-to-world matrix and translation."""
    _need(buf, 0, _GRID_HEADER + _TREE_HEADER, "the grid header")
    magic, = struct.unpack_from("<Q", buf, 0)
    if magic != GRID_MAGIC:
        raise NanoVDBError("not a NanoVDB grid (bad magic number)")
    grid_size, = struct.unpack_from("<Q", buf, 32)
    if grid_size > len(buf):
        raise NanoVDBError(f"NanoVDB grid is truncated: it declares {grid_size} bytes, the data has {len(buf)}")
    grid_class, grid_type = struct.unpack_from("<II", buf, 632)
    if grid_type != 1:
        raise NanoVDBError(f"unsupported NanoVDB grid type {GRID_TYPES.get(grid_type, grid_type)}: warp_nb reads "
                           "float grids")
    mat = np.array(struct.unpack_from("<9d", buf, 296 + 88), np.float64).reshape(3, 3)
    vec = np.array(struct.unpack_from("<3d", buf, 296 + 88 + 144), np.float64)
    tree = _GRID_HEADER
    offsets = struct.unpack_from("<4Q", buf, tree)
    counts = struct.unpack_from("<3I", buf, tree + 32)
    root = tree + offsets[3]
    _need(buf, root, _ROOT_HEADER, "the root node")
    table_size, background = struct.unpack_from("<If", buf, root + 24)
    _need(buf, root + _ROOT_HEADER, table_size * _ROOT_TILE, "the root tiles")
    consts = {8: ([], []), 128: ([], []), 4096: ([], [])}
    uppers = []
    for t in range(table_size):
        key, child, state, value = struct.unpack_from("<QqIf", buf, root + _ROOT_HEADER + t * _ROOT_TILE)
        origin = _decode_key(key)
        if child:
            uppers.append((root + child, origin))
        elif state or value != background:
            consts[4096][0].append(origin)
            consts[4096][1].append(value)
    lowers = []
    for addr, origin in uppers:
        lowers += _internal(buf, addr, origin, 5, 128, background, consts[128])
    for addr, origin in lowers:
        _internal(buf, addr, origin, 4, 8, background, consts[8])
    n_leaves = counts[0]
    leaf0 = tree + offsets[0]
    _need(buf, leaf0, n_leaves * _LEAF_SIZE, "the leaf nodes")
    raw = np.frombuffer(buf, dtype=np.uint8, count=n_leaves * _LEAF_SIZE, offset=leaf0).reshape(n_leaves, _LEAF_SIZE)
    origins = np.ascontiguousarray(raw[:, :12]).view(np.int32).reshape(n_leaves, 3) & ~7
    values = np.ascontiguousarray(raw[:, _LEAF_VALUES:_LEAF_VALUES + 2048]).view(np.float32).reshape(n_leaves, 512)
    levels = [(np.array(o, np.int32).reshape(-1, 3), np.array(v, np.float32)) for o, v in
              (consts[8], consts[128], consts[4096])]
    return {"origins": origins, "values": values.copy(), "levels": levels, "background": float(background),
            "xform": mat, "translation": vec, "grid_class": grid_class}


def _internal(buf, addr, origin, log2dim, child_size, background, out):
    """Read an internal node: its constant tiles go to `out`, returns [(child address, origin)]."""
    table_at, mask_bytes = _INTERNAL[log2dim]
    n = 1 << (3 * log2dim)
    _need(buf, addr, table_at + 8 * n, "an internal node")
    value_mask = np.unpackbits(np.frombuffer(buf, np.uint8, mask_bytes, addr + 32), bitorder="little").astype(bool)
    child_mask = np.unpackbits(np.frombuffer(buf, np.uint8, mask_bytes, addr + 32 + mask_bytes),
                               bitorder="little").astype(bool)
    table = np.frombuffer(buf, np.uint8, 8 * n, addr + table_at)
    children = table.view(np.int64)
    values = table.reshape(n, 8)[:, :4].copy().view(np.float32).reshape(n)
    k = np.arange(n)
    dim = 1 << log2dim
    local = np.stack([k >> (2 * log2dim), (k >> log2dim) & (dim - 1), k & (dim - 1)], 1) * child_size
    origins = local + np.asarray(origin)
    tiles = ~child_mask & (value_mask | (values != np.float32(background)))
    out[0].extend(origins[tiles].tolist())
    out[1].extend(values[tiles].tolist())
    kids = np.nonzero(child_mask)[0]
    return [(addr + int(children[c]), tuple(int(x) for x in origins[c])) for c in kids]


# --- writer ---------------------------------------------------------------------------------------

_FILE_VERSION = 0x04000C03
_GRID_VERSION = 0x04002000


def _mask(bits: np.ndarray) -> bytes:
    return np.packbits(bits.astype(np.uint8), bitorder="little").tobytes()


def _bbox_bytes(lo, hi) -> bytes:
    return struct.pack("<6i", *[int(v) for v in lo], *[int(v) for v in hi])


def write_grid(origins, values, levels, background, xform, translation) -> bytes:
    """A NanoVDB float grid buffer (breadth-first: grid, tree, root, upper, lower and leaf nodes) from
    8^3 bricks and constant regions [(origins, values)] of 8^3, 128^3 and 4096^3 voxels."""
    origins = np.asarray(origins, np.int64).reshape(-1, 3)
    values = np.asarray(values, np.float32).reshape(-1, 512)
    levels = list(levels) + [(np.zeros((0, 3)), np.zeros(0))] * (3 - len(levels))
    c8, c128, c4096 = [(np.asarray(o, np.int64).reshape(-1, 3), np.asarray(v, np.float32).reshape(-1)) for o, v in levels]
    bg = np.float32(background)
    # the nodes each brick and tile needs
    uppers = sorted({tuple(o) for o in (np.concatenate([origins, c8[0], c128[0]]) & ~4095).tolist()})
    lowers = sorted({tuple(o) for o in (np.concatenate([origins, c8[0]]) & ~127).tolist()})
    up_index = {o: k for k, o in enumerate(uppers)}
    low_index = {o: k for k, o in enumerate(lowers)}
    order = np.lexsort((origins[:, 2], origins[:, 1], origins[:, 0])) if len(origins) else np.zeros(0, int)
    origins, values = origins[order], values[order]
    tree_at = _GRID_HEADER
    root_at = tree_at + _TREE_HEADER
    n_root = len(uppers) + len(c4096[0])
    upper_at = root_at + _ROOT_HEADER + _ROOT_TILE * n_root
    upper_size, lower_size = 8256 + 8 * 32768, 1088 + 8 * 4096
    lower_at = upper_at + upper_size * len(uppers)
    leaf_at = lower_at + lower_size * len(lowers)
    grid_size = leaf_at + _LEAF_SIZE * len(origins)
    buf = bytearray(grid_size)
    # active index bounding box
    pts = [origins, origins + 7, c8[0], c8[0] + 7, c128[0], c128[0] + 127, c4096[0], c4096[0] + 4095]
    allp = np.concatenate([p for p in pts if len(p)]) if any(len(p) for p in pts) else np.zeros((1, 3), np.int64)
    lo, hi = allp.min(0), allp.max(0)
    # leaves
    for k, (o, v) in enumerate(zip(origins, values)):
        at = leaf_at + _LEAF_SIZE * k
        struct.pack_into("<3i3BB", buf, at, *[int(x) for x in o], 7, 7, 7, 2)
        buf[at + 16:at + 80] = b"\xff" * 64
        buf[at + _LEAF_VALUES:at + _LEAF_VALUES + 2048] = v.tobytes()

    def internal(at, origin, log2dim, child_size, children, tiles):
        n = 1 << (3 * log2dim)
        dim = 1 << log2dim
        table = np.zeros(n, np.int64)
        table.view(np.float32)[0::2] = bg
        child = np.zeros(n, bool)
        active = np.zeros(n, bool)

        def slot(p):
            q = (np.asarray(p) - np.asarray(origin)) // child_size
            return int((q[0] * dim + q[1]) * dim + q[2])
        for p, child_at in children:
            s = slot(p)
            child[s] = True
            table[s] = child_at - at
        for p, value in tiles:
            s = slot(p)
            active[s] = True
            table.view(np.float32)[2 * s] = value
            table.view(np.float32)[2 * s + 1] = 0.0
        size = child_size << log2dim
        mask_bytes = n // 8
        buf[at:at + 24] = _bbox_bytes(np.maximum(lo, origin), np.minimum(hi, np.asarray(origin) + size - 1))
        buf[at + 32:at + 32 + mask_bytes] = _mask(active)
        buf[at + 32 + mask_bytes:at + 32 + 2 * mask_bytes] = _mask(child)
        table_at = _INTERNAL[log2dim][0]
        buf[at + table_at:at + table_at + 8 * n] = table.tobytes()

    leaf_lower = (origins & ~127).tolist()
    for k, o in enumerate(lowers):
        kids = [(tuple(origins[i]), leaf_at + _LEAF_SIZE * i) for i in range(len(origins)) if tuple(leaf_lower[i]) == o]
        tiles = [(tuple(p), v) for p, v in zip(c8[0].tolist(), c8[1].tolist()) if tuple(np.array(p) & ~127) == o]
        internal(lower_at + lower_size * k, o, 4, 8, kids, tiles)
    for k, o in enumerate(uppers):
        kids = [(lo_o, lower_at + lower_size * low_index[lo_o]) for lo_o in lowers if tuple(np.array(lo_o) & ~4095) == o]
        tiles = [(tuple(p), v) for p, v in zip(c128[0].tolist(), c128[1].tolist()) if tuple(np.array(p) & ~4095) == o]
        internal(upper_at + upper_size * k, o, 5, 128, kids, tiles)
    # root: one tile per upper node (children) and per 4096^3 constant region
    struct.pack_into("<6iIf", buf, root_at, *[int(x) for x in lo], *[int(x) for x in hi], n_root, float(bg))

    def key(o):
        return sum(((int(o[a]) & 0xFFFFFFFF) >> 12) << (42 - 21 * a) for a in range(3))
    entries = [(key(o), upper_at + upper_size * up_index[o] - root_at, 0, 0.0) for o in uppers]
    entries += [(key(o), 0, 1, float(v)) for o, v in zip(c4096[0].tolist(), c4096[1].tolist())]
    for t, e in enumerate(sorted(entries)):
        struct.pack_into("<QqIf", buf, root_at + _ROOT_HEADER + _ROOT_TILE * t, *e)
    # tree and grid headers
    struct.pack_into("<4Q3I3IQ", buf, tree_at, leaf_at - tree_at, lower_at - tree_at, upper_at - tree_at,
                     root_at - tree_at, len(origins), len(lowers), len(uppers), len(origins), len(lowers),
                     len(uppers), 512 * len(origins))
    xform = np.asarray(xform, np.float64).reshape(3, 3)
    inv = np.linalg.inv(xform)
    vec = np.asarray(translation, np.float64).reshape(3)
    struct.pack_into("<QQIIIIQ", buf, 0, GRID_MAGIC, 0xFFFFFFFFFFFFFFFF, _GRID_VERSION, 0x22, 0, 1, grid_size)
    struct.pack_into("<9f9f3ff9d9d3dd", buf, 296, *xform.ravel(), *inv.ravel(), *vec, 1.0, *xform.ravel(), *inv.ravel(),
                     *vec, 1.0)
    corners = np.array([[x, y, z] for x in (lo[0], hi[0] + 1) for y in (lo[1], hi[1] + 1) for z in (lo[2], hi[2] + 1)])
    world = corners @ xform.T + vec
    voxel = np.linalg.norm(xform, axis=0)
    struct.pack_into("<6d3dIIqIIQQ", buf, 560, *world.min(0), *world.max(0), *voxel, 0, 1, grid_size, 0, 0, 0, 0)
    return bytes(buf), (lo, hi, world.min(0), world.max(0), voxel)


def write_file(grid: bytes, info, codec: str = "none") -> bytes:
    """A .nvdb file holding one grid (codec "none" or "zip")."""
    lo, hi, wlo, whi, voxel = info
    if codec not in ("none", "zip"):
        raise ValueError(f"unsupported NanoVDB codec {codec!r} (warp_nb writes none and zip)")
    data = grid if codec == "none" else zlib.compress(grid)
    payload = data if codec == "none" else struct.pack("<Q", len(data)) + data
    code = 0 if codec == "none" else 1
    head = struct.pack("<QIHH", FILE_MAGIC, _FILE_VERSION, 1, code)
    meta = struct.pack("<QQQQII6d6i3dI4I3IHHI", len(grid), len(data), 0, 0, 1, 0, *wlo, *whi, *[int(x) for x in lo],
                       *[int(x) for x in hi], *voxel, 1, 0, 0, 0, 0, 0, 0, 0, code, 0, _FILE_VERSION)
    return head + meta + b"\0" + payload
