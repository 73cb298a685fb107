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


def lanes_agree(fn) -> bool:
    """Whether every lane of a block computes the same thing in kernel `fn` (typed for blocks of
    several lanes) as long as the lanes read the same wp.tid() coordinates: no per-lane exchange
    (wp.tile(x) of lane values, wp.untile, per-lane writes into a tile, tile stacks, a lane's value
    by index, tiled queries), and no effect that each lane would repeat (atomics, prints; a plain
    store writes the same value to the same element from every lane, so one store is the same).
    Then the CPU can run one lane per block for them all (native/tiles/block_cpu.h): a block's
    tiles are computed once instead of once per lane."""
    return _agree(fn.body, set())


def _agree(body, seen: set) -> bool:
    from . import ir
    for s in body:
        if isinstance(s, ir.Print):
            return False
        for value in _values(s):
            if isinstance(value, ir.Call) and not _call_agrees(value):
                return False
            if isinstance(value, ir.CallFunc):
                inst = value.func
                if getattr(inst, "native", None) is not None:
                    return False  # C++ we cannot see into
                if id(inst) not in seen:
                    seen.add(id(inst))
                    if not _agree(inst.ir.body, seen):
                        return False
        if not all(_agree(block, seen) for block in ir.child_blocks(s)):
            return False
    return True


def _values(s):
    """The expressions a statement evaluates (a Let's or an Effect's value)."""
    value = getattr(s, "value", None)
    return (value,) if value is not None else ()


def _call_agrees(call) -> bool:
    b = call.builtin
    if b.name in ("untile", "tile_from_thread") or b.lanes == "lane_query":
        return False
    template = getattr(getattr(call.resolved, "overload", None), "template", None) or ""
    if "_lanes" in template or "from_lane" in template:
        return False
    return not (b.side_effects and b.lanes not in ("lead", "lead_adjoint"))
