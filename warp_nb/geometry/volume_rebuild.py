"""Rebuildable volumes (Warp's Volume.allocate_by_tiles / allocate_by_voxels with rebuildable=True,
then Volume.rebuild): the layout of bricks and active voxels that a set of points asks for, the
capacities a rebuildable volume reserves, and the status bits a build reports. Knows nothing of
the native descriptor; volume.py applies a layout."""

from __future__ import annotations

from collections import namedtuple

import numpy as np


TILE = 8

#: what Volume.get_active_stats returns: the grid's actual topology
ActiveStats = namedtuple("ActiveStats", "voxel_count leaf_node_count lower_node_count upper_node_count")
#: what Volume.get_rebuild_info returns: the input kind ("tiles", "voxels" or None) and capacities
RebuildInfo = namedtuple("RebuildInfo", "input_kind max_active_voxels max_leaf_nodes max_lower_nodes max_upper_nodes")
NOT_REBUILDABLE = RebuildInfo(None, 0, 0, 0, 0)

# status bits written to a build's `status` array (uint32)
REBUILD_SUCCESS = 0
REBUILD_INVALID_INPUT = 1
REBUILD_VOXEL_CAPACITY_EXCEEDED = 2
REBUILD_LEAF_CAPACITY_EXCEEDED = 4
REBUILD_LOWER_CAPACITY_EXCEEDED = 8
REBUILD_UPPER_CAPACITY_EXCEEDED = 16


def tree_order(tiles: np.ndarray) -> np.ndarray:
    """The permutation that sorts brick coordinates (ijk // 8) in NanoVDB's tree order, the order in
    which Warp numbers an index volume's voxels: by upper node (4096 voxels), then lower node (128),
    then brick, each compared as signed (x, y, z) (checked against warp-lang: (16, 0, 0) comes before
    (0, 200, 0), which shares no lower node with it)."""
    tiles = np.asarray(tiles, np.int64).reshape(-1, 3)
    keys = [tiles[:, a] for a in (2, 1, 0)] + [tiles[:, a] >> 4 for a in (2, 1, 0)] + \
        [tiles[:, a] >> 9 for a in (2, 1, 0)]
    return np.lexsort(keys)


def layout(kind: str, ijk: np.ndarray):
    """(brick origins (n, 3), active voxels (n, 512) or None for all) of index-space points:
    the bricks containing them ("tiles"), or only the voxels themselves ("voxels"), in tree order."""
    if kind == "tiles":
        tiles = np.unique(ijk // TILE, axis=0).reshape(-1, 3)
        return tiles[tree_order(tiles)] * TILE, None
    tiles, which = np.unique(ijk // TILE, axis=0, return_inverse=True)
    tiles = tiles.reshape(-1, 3)
    order = tree_order(tiles)
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    tiles, which = tiles[order], rank[which.reshape(-1)]
    active = np.zeros((len(tiles), 512), bool)
    which = which.reshape(-1)
    local = ijk - tiles[which] * TILE
    active[which, (local[:, 0] << 6) | (local[:, 1] << 3) | local[:, 2]] = True
    return tiles * TILE, active


def stats(origins: np.ndarray, active_count: int) -> ActiveStats:
    def nodes(size):
        return len(np.unique(origins // size, axis=0)) if len(origins) else 0
    return ActiveStats(int(active_count), len(origins), nodes(128), nodes(4096))


def capacity(kind: str, max_voxels=None, max_leaf_nodes=None, max_lower_nodes=None, max_upper_nodes=None) -> RebuildInfo:
    """The capacities a rebuildable volume reserves (a tile volume holds 512 voxels per leaf)."""
    leaves = int(max_leaf_nodes or 0)
    voxels = leaves * 512 if kind == "tiles" else int(max_voxels or 0)
    return RebuildInfo(kind, voxels, leaves, int(max_lower_nodes or 0), int(max_upper_nodes or 0))


def exceeded(info: RebuildInfo, origins: np.ndarray, active_count: int) -> int:
    """The status bits of the capacities a layout exceeds (0: it fits)."""
    s = stats(origins, active_count)
    bits = 0
    if s.voxel_count > info.max_active_voxels:
        bits |= REBUILD_VOXEL_CAPACITY_EXCEEDED
    if s.leaf_node_count > info.max_leaf_nodes:
        bits |= REBUILD_LEAF_CAPACITY_EXCEEDED
    if s.lower_node_count > info.max_lower_nodes:
        bits |= REBUILD_LOWER_CAPACITY_EXCEEDED
    if s.upper_node_count > info.max_upper_nodes:
        bits |= REBUILD_UPPER_CAPACITY_EXCEEDED
    return bits


def report(status, bits: int) -> None:
    """Write a build's status into the user's `status` array (one uint32), when given."""
    if status is not None:
        status.fill_(bits)
