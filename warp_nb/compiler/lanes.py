"""What typing does differently in a kernel typed for blocks of several lanes (native/tiles/block.h):
the steps of tiled geometry queries give each lane its own result. (The tile forms themselves
choose their lanes' variants where they are typed: typecheck_tile*.py.)"""

from __future__ import annotations

import dataclasses

from .. import types as T
from ..types.tiles import TileType

#: the tiled geometry queries' steps: in a block of several lanes, one result per lane per step
LANE_QUERY_STEPS = frozenset({"tile_bvh_query_next", "bvh_query_next_tiled", "tile_mesh_query_aabb_next",
                              "mesh_query_aabb_next_tiled"})


def for_lanes(context, name: str, resolved):
    """A builtin call resolved for the kernel's lanes: noting that the kernel depends on them (a
    tile builtin, wp.block_dim(), a tiled query), and typing a query step per lane."""
    if name == "block_dim" or name.startswith("tile") or name in LANE_QUERY_STEPS:
        context.uses_blocks = True
        if context.block_dim > 1 and name in LANE_QUERY_STEPS:
            return lanes_query_step(resolved, context.block_dim, name)
    return resolved


def lanes_query_step(resolved, lanes: int, name: str):
    """A query step typed for a block of `lanes` lanes: a tile of `lanes` results (native/tiles/tile_query.h)."""
    result = TileType(T.int32, (lanes,))
    native = "wpnb::tile_mesh_query_aabb_next" if "mesh" in name else "wpnb::tile_bvh_query_next"
    overload = dataclasses.replace(resolved.overload, result=result, template=f"{native}_lanes<{lanes}>")
    return dataclasses.replace(resolved, overload=overload, result=result)
