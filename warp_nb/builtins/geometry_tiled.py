"""Thread-block geometry queries (tile_query.h): wp.tile_bvh_query_aabb / _ray and
wp.tile_mesh_query_aabb, stepped by wp.tile_bvh_query_next / wp.tile_mesh_query_aabb_next, each
step a 1-D int tile of one result per thread of the block (negative: none), and looped with
`while wp.tile_query_valid(query)`. In a block of one lane (the CPU's default) a step is one result
of the per-thread query; in a block of several, a tile of one result per lane (compiler/lanes.py).
Warp's older names (bvh_query_aabb_tiled, ...) are the same builtins."""

from .. import types as T
from .geometry import U64, V3
from .registry import Exact, OpaqueType, Tile, builtin, ov

BvhQueryTiled = OpaqueType("BvhQueryTiled", "wpnb::bvh_query_tiled_t", "tiles/tile_query.h")
MeshQueryAABBTiled = OpaqueType("MeshQueryAABBTiled", "wpnb::mesh_query_aabb_tiled_t", "tiles/tile_query.h")

# one result per lane of the block: one lane here (blocks of several lanes retype it: compiler/lanes.py)
_STEP = Tile((1,), Exact(T.int32))
_q = dict(header="tiles/tile_query.h", category="tile", differentiable=False, lanes="uniform")  # kernels only, as tiles

_BOX = ("id", "low", "high")
_NEXT = "Test each index for >= 0 and loop while wp.tile_query_valid(query)."
for _name, _cpp in (("tile_bvh_query_aabb", None), ("bvh_query_aabb_tiled", "wpnb::tile_bvh_query_aabb")):
    builtin(_name, ov(U64, V3, V3, ret=BvhQueryTiled, names=_BOX), cpp=_cpp,
            doc="A wp.Bvh box query for a whole block (every thread passes the same id, low, high): items whose "
                "boxes overlap [low, high], handed out by wp.tile_bvh_query_next."
                + ("" if _cpp is None else " Warp's older name of wp.tile_bvh_query_aabb."), **_q)
for _name, _cpp in (("tile_bvh_query_ray", None), ("bvh_query_ray_tiled", "wpnb::tile_bvh_query_ray")):
    builtin(_name, ov(U64, V3, V3, ret=BvhQueryTiled, names=("id", "start", "dir")), cpp=_cpp,
            doc="A wp.Bvh ray query for a whole block: items whose boxes the ray start + t * dir (t >= 0) passes "
                "through, handed out by wp.tile_bvh_query_next."
                + ("" if _cpp is None else " Warp's older name of wp.tile_bvh_query_ray."), **_q)
for _name, _cpp in (("tile_bvh_query_next", None), ("bvh_query_next_tiled", "wpnb::tile_bvh_query_next")):
    builtin(_name, ov(Exact(BvhQueryTiled), ret=_STEP, names=("query",)), inout=(0,), cpp=_cpp,
            doc="Advance a block's bvh query: a 1-D int tile with one item index per thread (-1: none). " + _NEXT,
            **dict(_q, lanes="lane_query"))

for _name, _cpp in (("tile_mesh_query_aabb", None), ("mesh_query_aabb_tiled", "wpnb::tile_mesh_query_aabb")):
    builtin(_name, ov(U64, V3, V3, ret=MeshQueryAABBTiled, names=_BOX), cpp=_cpp,
            doc="A wp.Mesh box query for a whole block: faces whose bounding boxes overlap [low, high], handed out "
                "by wp.tile_mesh_query_aabb_next."
                + ("" if _cpp is None else " Warp's older name of wp.tile_mesh_query_aabb."), **_q)
for _name, _cpp in (("tile_mesh_query_aabb_next", None),
                    ("mesh_query_aabb_next_tiled", "wpnb::tile_mesh_query_aabb_next")):
    builtin(_name, ov(Exact(MeshQueryAABBTiled), ret=_STEP, names=("query",)), inout=(0,), cpp=_cpp,
            doc="Advance a block's mesh box query: a 1-D int tile with one face index per thread (-1: none). "
                + _NEXT, **dict(_q, lanes="lane_query"))

builtin("tile_query_valid", ov(Exact(BvhQueryTiled), ret=T.bool, names=("query",)),
        ov(Exact(MeshQueryAABBTiled), ret=T.bool, names=("query",)),
        doc="Whether a block's bvh or mesh query should go on: True at first and after a step that found a "
            "result, False after a step that found none (the same for every thread).", **_q)
