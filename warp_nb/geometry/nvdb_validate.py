"""Structural validation of one NanoVDB grid buffer before anything reads its tree: the header
(size, name, type), the node arrays the tree declares, every child reference, and the blind
(feature) data ranges. A grid that passes can be walked by nvdb.parse_grid without any offset
leaving the grid, so a corrupt or hostile file is refused with a message naming what is wrong
instead of being read out of bounds ("a notebook never dies").

The checks follow NanoVDB's breadth-first layout: grid header, tree header, root node and its
tiles, then the upper, lower and leaf node arrays in that order, then the blind metadata records.
Levels whose declared count is zero may carry any offset (writers leave them unset)."""

from __future__ import annotations

import struct

import numpy as np

from .nvdb import (
    FILE_MAGIC,
    FPN,
    GRID_HEADER,
    GRID_MAGIC,
    GRID_TYPES,
    INDEX_LEAF_SIZE,
    ON_INDEX,
    TREE_HEADER,
    TREE_TYPES,
    NanoVDBError,
)

INVALID = "Invalid NanoVDB grid structure"
UNSUPPORTED = "Unsupported NanoVDB tree layout"
_FPN_LEAF_HEADER = 96  # leaf header and mask (80), minimum and quantum (floats), min/max/avg/dev (uint16)
_BREADTH_FIRST = 1 << 5  # GridData flags: nodes stored level by level
_NAME, _NAME_SIZE = 40, 256
_BLIND_RECORD = 288


def _invalid(detail: str):
    raise NanoVDBError(f"{INVALID}: {detail}")


def tree_type(grid_type: int):
    vt = TREE_TYPES.get(grid_type)
    if vt is None:
        _invalid(f"grid type {GRID_TYPES.get(grid_type, grid_type)} is not one warp_nb reads "
                 f"({', '.join(GRID_TYPES[t] for t in sorted(TREE_TYPES))})")
    return vt


def is_breadth_first(buf) -> bool:
    return bool(struct.unpack_from("<I", buf, 20)[0] & _BREADTH_FIRST)


def check_header(buf, aligned: bool) -> int:
    """The grid's declared size after checking the header: magic, size within the buffer (and a
    multiple of 32 when `aligned`, as a serialized file's grids are), a terminated name."""
    if len(buf) < GRID_HEADER + TREE_HEADER:
        _invalid(f"the buffer holds {len(buf)} bytes, a grid and tree header need {GRID_HEADER + TREE_HEADER}")
    magic, = struct.unpack_from("<Q", buf, 0)
    if magic not in (GRID_MAGIC, FILE_MAGIC):  # grids written before NanoVDB 32.6 carry "NanoVDB0" too
        raise NanoVDBError("not a NanoVDB grid (bad magic number)")
    grid_size, = struct.unpack_from("<Q", buf, 32)
    if not GRID_HEADER + TREE_HEADER <= grid_size <= len(buf):
        _invalid(f"the grid declares {grid_size} bytes, the buffer holds {len(buf)} (at least "
                 f"{GRID_HEADER + TREE_HEADER} needed)")
    if aligned and grid_size % 32:
        _invalid(f"the grid size {grid_size} is not a multiple of 32 bytes")
    if 0 not in bytes(buf[_NAME:_NAME + _NAME_SIZE]):
        _invalid("the grid name (256 bytes at offset 40) has no terminating NUL")
    return grid_size


def check_blind(buf, grid_size: int, tree_end: int | None) -> None:
    """Blind metadata records and their data lie inside the grid; names are terminated. With
    `tree_end` (a validated tree), the records must also follow the leaves."""
    offset, count = struct.unpack_from("<qI", buf, 640)
    if count == 0 and (offset == 0 or tree_end is None):
        return  # legacy grids without blind data leave the offset zero
    lo = 0 if tree_end is None else tree_end
    if not lo <= offset or offset + _BLIND_RECORD * count > grid_size:
        _invalid(f"{count} blind metadata records at byte {offset} do not fit between byte {lo} and the grid's "
                 f"end at {grid_size}")
    for k in range(count):
        at = offset + _BLIND_RECORD * k
        data_offset, value_count, value_size = struct.unpack_from("<qQI", buf, at)
        if 0 not in bytes(buf[at + 32:at + _BLIND_RECORD]):
            _invalid(f"the name of feature array {k} has no terminating NUL")
        start, size = at + data_offset, value_count * value_size
        if start < 0 or start + size > grid_size:
            _invalid(f"feature array {k} ({value_count} values of {value_size} bytes at byte {start}) lies outside "
                     f"the grid's {grid_size} bytes")


def _fpn_leaves(buf, start: int, count: int, end: int) -> np.ndarray:
    """The start of each of `count` FpN leaves stored back to back from `start`; each leaf's bit
    width (1 << flags >> 5) sets its size, so they are found by walking."""
    if count * (_FPN_LEAF_HEADER + 64) > end - start:
        _invalid(f"{count} FpN leaves cannot fit in bytes {start}..{end}")
    starts, at = np.empty(count, np.int64), start
    for k in range(count):
        if at + _FPN_LEAF_HEADER > end:
            _invalid(f"FpN leaf {k} at byte {at} runs past byte {end}")
        log_bits = buf[at + 15] >> 5
        if log_bits > 4:
            _invalid(f"FpN leaf {k} declares {1 << log_bits}-bit values (1 to 16 are defined)")
        starts[k] = at
        at += _FPN_LEAF_HEADER + 64 * (1 << log_bits)
    if at > end:
        _invalid(f"FpN leaf {count - 1} runs past byte {end}")
    return starts


def _region(name, start, count, size, prev_end, prev_name, grid_size):
    end = start + count * size
    if start < prev_end:
        _invalid(f"the {name} nodes (from byte {start}) overlap the {prev_name} (ending at byte {prev_end})")
    if end > grid_size:
        _invalid(f"{count} {name} nodes of {size} bytes from byte {start} run past the grid's end at {grid_size}")
    return end


def _check_children(flat, nodes, node_size, log2dim, vt, targets, target_size, name):
    """Every child reference set in the child masks of `nodes` (addresses) points at the start of
    a node of the next level: `targets` is (first address, count) or an array of leaf starts."""
    if len(nodes) == 0:
        return
    n = 1 << (3 * log2dim)
    mask_bytes = n // 8
    table_at = vt.internal_table_at(mask_bytes)
    rows = nodes[:, None] + 32 + mask_bytes + np.arange(mask_bytes)
    mask = np.unpackbits(flat[rows], axis=1, bitorder="little").astype(bool)
    node_k, slot = np.nonzero(mask)
    if len(node_k) == 0:
        return
    at = nodes[node_k] + table_at + slot * vt.table_entry
    child = np.ascontiguousarray(flat[at[:, None] + np.arange(8)]).view(np.int64).reshape(-1)
    dest = at - table_at - slot * vt.table_entry + child
    if isinstance(targets, np.ndarray):
        ok = np.isin(dest, targets)
    else:
        first, count = targets
        rel = dest - (first if count else 0)
        ok = (rel >= 0) & (rel < count * target_size) & (rel % target_size == 0)
    if not ok.all():
        k = int(np.argmin(ok))
        _invalid(f"{name} node {int(node_k[k])} slot {int(slot[k])} refers to byte {int(dest[k])}, which is not the "
                 f"start of a node of the next level")


def check_grid(buf, aligned: bool = True) -> None:
    """Validate a breadth-first grid (see the module docstring); raises NanoVDBError."""
    grid_size = check_header(buf, aligned)
    grid_type, = struct.unpack_from("<I", buf, 636)
    vt = tree_type(grid_type)
    if not is_breadth_first(buf):
        raise NanoVDBError(f"{UNSUPPORTED}: the grid's nodes are not stored breadth-first (flags bit 5), the only "
                           "layout warp_nb reads")
    tree = GRID_HEADER
    leaf_off, lower_off, upper_off, root_off = struct.unpack_from("<4Q", buf, tree)
    n_leaf, n_lower, n_upper = struct.unpack_from("<3I", buf, tree + 32)
    root = tree + root_off
    if root < tree + TREE_HEADER or root + vt.root_header > grid_size:
        _invalid(f"the root node at byte {root} lies outside bytes {tree + TREE_HEADER}..{grid_size}")
    n_tiles, = struct.unpack_from("<I", buf, root + 24)
    end = _region("root tile", root + vt.root_header, n_tiles, vt.root_tile, root, "root", grid_size)
    upper_size = vt.internal_table_at(4096) + vt.table_entry * 32768
    lower_size = vt.internal_table_at(512) + vt.table_entry * 4096
    upper0, lower0, leaf0 = tree + upper_off, tree + lower_off, tree + leaf_off
    if n_upper:
        end = _region("upper", upper0, n_upper, upper_size, end, "root tiles", grid_size)
    if n_lower:
        end = _region("lower", lower0, n_lower, lower_size, end, "upper nodes" if n_upper else "root", grid_size)
    leaf_starts = None
    if n_leaf:
        _region("leaf", leaf0, 0, 1, end, "internal nodes", grid_size)
        if grid_type == FPN:
            leaf_starts = _fpn_leaves(buf, leaf0, n_leaf, grid_size)
            last = int(leaf_starts[-1])
            end = last + _FPN_LEAF_HEADER + 64 * (1 << (buf[last + 15] >> 5))
        else:
            leaf_size = INDEX_LEAF_SIZE if grid_type == ON_INDEX else vt.leaf_size
            end = _region("leaf", leaf0, n_leaf, leaf_size, end, "internal nodes", grid_size)
    flat = np.frombuffer(buf, np.uint8, grid_size)
    # root tiles: a nonzero child offset (relative to the root) must land on an upper node
    tiles = root + vt.root_header + vt.root_tile * np.arange(n_tiles, dtype=np.int64)
    child = np.ascontiguousarray(flat[tiles[:, None] + 8 + np.arange(8)]).view(np.int64).reshape(-1)
    dest = root + child[child != 0]
    rel = dest - (upper0 if n_upper else 0)
    bad = (rel < 0) | (rel >= n_upper * upper_size) | (rel % upper_size != 0)
    if bad.any():
        _invalid(f"a root tile refers to byte {int(dest[np.argmax(bad)])}, which is not the start of an upper node")
    # empty levels may carry any offset, even one past int64
    uppers = (upper0 if n_upper else 0) + upper_size * np.arange(n_upper, dtype=np.int64)
    lowers = (lower0 if n_lower else 0) + lower_size * np.arange(n_lower, dtype=np.int64)
    _check_children(flat, uppers, upper_size, 5, vt, (lower0, n_lower), lower_size, "upper")
    leaf_size = INDEX_LEAF_SIZE if grid_type == ON_INDEX else vt.leaf_size
    _check_children(flat, lowers, lower_size, 4, vt, leaf_starts if leaf_starts is not None else (leaf0, n_leaf),
                    leaf_size, "lower")
    check_blind(buf, grid_size, end)
