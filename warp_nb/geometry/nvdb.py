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
    """Root tile key -> origin of its 4096^3 region."""
    def field(v):
        v &= 0x1FFFFF
        return (v - (1 << 21) if v >= (1 << 20) else v) << 12
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
