"""What typing does differently in a kernel typed for blocks of several lanes (native/tiles/block.h), from
each builtin's `lanes` (registry.LANES): a builtin that has one makes the kernel depend on its lane
count, and the steps of tiled geometry queries give each lane its own result. (The tile rules
themselves choose their lanes' variants where they are typed: typecheck_tiles_*.py.)"""

from __future__ import annotations

import dataclasses

from .. import types as T
from ..types.tiles import TileType

def for_lanes(context, b, resolved):
    """A call of builtin `b` resolved for the kernel's lanes: noting that the kernel depends on them (a
    tile builtin, wp.block_dim(), a tiled query), and typing a query step per lane."""
    if b.lanes is not None:
        context.uses_blocks = True
        if context.block_dim > 1 and b.lanes == "lane_query":
            return lanes_query_step(resolved, context.block_dim, b.name)
    return resolved


def lanes_query_step(resolved, lanes: int, name: str):
    """A query step typed for a block of `lanes` lanes: a tile of `lanes` results (native/tiles/tile_query.h)."""
    result = TileType(T.int32, (lanes,))
    native = "wpnb::tile_mesh_query_aabb_next" if "mesh" in name else "wpnb::tile_bvh_query_next"
    overload = dataclasses.replace(resolved.overload, result=result, template=f"{native}_lanes<{lanes}>")
    return dataclasses.replace(resolved, overload=overload, result=result)
