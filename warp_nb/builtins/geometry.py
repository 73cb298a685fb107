"""Geometry builtins (bvh.h, mesh.h, hash_grid.h, volume.h): queries on wp.Mesh, wp.Bvh,
wp.HashGrid and wp.Volume objects, which kernels receive as their uint64 `id`. Query results
are opaque native structs with readable fields (wp.MeshQueryPoint: result, sign, face, u, v);
iterable queries (`for i in wp.hash_grid_query(...)`) name the builtin that advances them."""

from .. import types as T
from .registry import Exact, OpaqueType, builtin, ov

U64, V3, F, I = Exact(T.uint64), Exact(T.vec3f), Exact(T.float32), Exact(T.int32)

MeshQueryPoint = OpaqueType("MeshQueryPoint", "wpnb::mesh_query_point_t", "mesh.h", {
    "result": T.bool, "sign": T.float32, "face": T.int32, "u": T.float32, "v": T.float32})
MeshQueryRay = OpaqueType("MeshQueryRay", "wpnb::mesh_query_ray_t", "mesh.h", {
    "result": T.bool, "sign": T.float32, "face": T.int32, "t": T.float32, "u": T.float32, "v": T.float32,
    "normal": T.vec3f})
MeshQueryAABB = OpaqueType("MeshQueryAABB", "wpnb::mesh_query_aabb_t", "mesh.h")
BvhQuery = OpaqueType("BvhQuery", "wpnb::bvh_query_t", "bvh.h")
HashGridQuery = OpaqueType("HashGridQuery", "wpnb::hash_grid_query_t", "hash_grid.h")

# --- mesh ------------------------------------------------------------------------------------
_m = dict(header="mesh.h", category="geometry")
builtin("mesh_query_point", ov(U64, V3, F, ret=MeshQueryPoint, names=("id", "point", "max_dist")),
        doc="The closest point on mesh `id` to `point` within max_dist (result, face, barycentric u, v); sign is "
            "-1 inside and +1 outside, by a majority vote of three axis-aligned rays (watertight meshes). "
            "Differentiable in point through u and v.", **_m)
builtin("mesh_query_point_no_sign", ov(U64, V3, F, ret=MeshQueryPoint, names=("id", "point", "max_dist")),
        doc="The closest point on mesh `id` within max_dist, without inside/outside (sign 0); the fastest query. "
            "Differentiable in point through u and v.", **_m)
builtin("mesh_query_point_sign_normal",
        ov(U64, V3, F, ret=MeshQueryPoint, names=("id", "point", "max_dist")),
        ov(U64, V3, F, F, ret=MeshQueryPoint, names=("id", "point", "max_dist", "epsilon")),
        doc="The closest point; sign from the angle-weighted pseudo-normal at the closest point (watertight, "
            "non-self-intersecting meshes). epsilon (default 1e-3): barycentric weight below which the closest "
            "point counts as on an edge or vertex.", **_m)
builtin("mesh_query_point_sign_winding_number",
        ov(U64, V3, F, ret=MeshQueryPoint, names=("id", "point", "max_dist")),
        ov(U64, V3, F, F, F, ret=MeshQueryPoint, names=("id", "point", "max_dist", "accuracy", "threshold")),
        doc="The closest point; inside where the generalised winding number exceeds threshold (default 0.5), with "
            "a dipole approximation for tree nodes farther than accuracy (default 2) times their radius. Needs "
            "wp.Mesh(..., support_winding_number=True); otherwise the sign comes from the ray vote.", **_m)
builtin("mesh_query_ray",
        ov(U64, V3, V3, F, ret=MeshQueryRay, names=("id", "start", "dir", "max_t")),
        ov(U64, V3, V3, F, I, ret=MeshQueryRay, names=("id", "start", "dir", "max_t", "root")),
        doc="The closest hit of start + t * dir with 0 <= t < max_t: result, face, t, barycentric u, v, the unit "
            "face normal, and sign (+1 front face, -1 back face). Differentiable in start and dir through t.", **_m)
builtin("mesh_query_aabb", ov(U64, V3, V3, ret=MeshQueryAABB, names=("id", "low", "high")),
        iterator_next="mesh_query_aabb_next", differentiable=False,
        doc="Faces whose bounding boxes overlap [low, high]: `for face in wp.mesh_query_aabb(id, low, high)`.", **_m)
builtin("mesh_query_aabb_next", ov(Exact(MeshQueryAABB), I, ret=T.bool, names=("query", "index")), inout=(0, 1),
        differentiable=False, doc="Advance a mesh_query_aabb: the next face in index; False when done.", **_m)
builtin("mesh_eval_position", ov(U64, I, F, F, ret=T.vec3f, names=("id", "face", "bary_u", "bary_v")),
        doc="u * p0 + v * p1 + (1 - u - v) * p2 on face `face`. Differentiable in u and v.", **_m)
builtin("mesh_eval_velocity", ov(U64, I, F, F, ret=T.vec3f, names=("id", "face", "bary_u", "bary_v")),
        doc="The mesh's velocities interpolated like mesh_eval_position (zero without velocities).", **_m)
builtin("mesh_eval_face_normal", ov(U64, I, ret=T.vec3f, names=("id", "face")), differentiable=False,
        doc="Unit normal (p1 - p0) x (p2 - p0) of a face.", **_m)
builtin("mesh_get_point", ov(U64, I, ret=T.vec3f, names=("id", "index")), differentiable=False,
        doc="Point `index` of the mesh.", **_m)
builtin("mesh_get_velocity", ov(U64, I, ret=T.vec3f, names=("id", "index")), differentiable=False,
        doc="Velocity of point `index` (zero without velocities).", **_m)
builtin("mesh_get_index", ov(U64, I, ret=T.int32, names=("id", "index")), differentiable=False,
        doc="Entry `index` of the flattened index buffer (face = index // 3).", **_m)

# --- bvh ---------------------------------------------------------------------------------------
_b = dict(header="bvh.h", category="geometry", differentiable=False)
builtin("bvh_query_aabb", ov(U64, V3, V3, ret=BvhQuery, names=("id", "low", "high")),
        ov(U64, V3, V3, I, ret=BvhQuery, names=("id", "low", "high", "root")), iterator_next="bvh_query_next",
        doc="Items of wp.Bvh `id` whose boxes overlap [low, high]: `for i in wp.bvh_query_aabb(id, lo, hi)`. "
            "root (default -1, the whole tree) starts the search at a subtree.", **_b)
builtin("bvh_query_ray", ov(U64, V3, V3, ret=BvhQuery, names=("id", "start", "dir")),
        ov(U64, V3, V3, I, ret=BvhQuery, names=("id", "start", "dir", "root")), iterator_next="bvh_query_next",
        doc="Items of wp.Bvh `id` whose boxes the ray start + t * dir (t >= 0) passes through; "
            "wp.bvh_query_next(q, i, max_dist) also bounds t <= max_dist.", **_b)
builtin("bvh_query_sphere", ov(U64, V3, F, ret=BvhQuery, names=("id", "center", "radius")),
        ov(U64, V3, F, I, ret=BvhQuery, names=("id", "center", "radius", "root")), iterator_next="bvh_query_next",
        doc="Items of wp.Bvh `id` whose boxes come within radius of center (radius 0: the boxes holding the "
            "point).", **_b)
builtin("bvh_query_capsule", ov(U64, V3, V3, F, ret=BvhQuery, names=("id", "start", "dir", "radius")),
        ov(U64, V3, V3, F, I, ret=BvhQuery, names=("id", "start", "dir", "radius", "root")),
        iterator_next="bvh_query_next",
        doc="Items of wp.Bvh `id` whose boxes, grown by radius, the segment start + t * dir meets for "
            "0 <= t <= max_dist (the max_dist of wp.bvh_query_next; 1 with dir = end - start bounds it to the "
            "segment). Conservative near box corners, as a broad phase should be.", **_b)
builtin("bvh_query_next", ov(Exact(BvhQuery), I, ret=T.bool, names=("query", "index")),
        ov(Exact(BvhQuery), I, F, ret=T.bool, names=("query", "index", "max_dist")), inout=(0, 1),
        doc="Advance a bvh query (any kind: one BvhQuery type holds each): the next item in index; False when "
            "done. max_dist bounds the ray parameter of ray and capsule queries.", **_b)

# --- hash grid ---------------------------------------------------------------------------------
_h = dict(header="hash_grid.h", category="geometry", differentiable=False)
builtin("hash_grid_query", ov(U64, V3, F, ret=HashGridQuery, names=("id", "point", "max_dist")),
        ov(U64, V3, F, I, ret=HashGridQuery, names=("id", "point", "max_dist", "group")),
        iterator_next="hash_grid_query_next",
        doc="Candidate neighbours of point: every point in the cells that [point - max_dist, point + max_dist] "
            "touches (test the distance yourself): `for j in wp.hash_grid_query(grid, p, r)`.", **_h)
builtin("hash_grid_query_next", ov(Exact(HashGridQuery), I, ret=T.bool, names=("query", "index")), inout=(0, 1),
        doc="Advance a hash grid query: the next candidate's index (into the built points); False when done.", **_h)
builtin("hash_grid_point_id", ov(U64, I, ret=T.int32, names=("id", "index")),
        doc="The point at position `index` of the grid's cell order (launch in this order for coherent "
            "neighbour loops).", **_h)

# --- volume ------------------------------------------------------------------------------------
_v = dict(header="volume.h", category="geometry")
builtin("volume_sample_f", ov(U64, V3, I, ret=T.float32, names=("id", "uvw", "sampling_mode")),
        doc="Sample a float volume at index-space uvw: wp.Volume.CLOSEST (nearest voxel) or wp.Volume.LINEAR "
            "(trilinear). Differentiable in uvw (LINEAR).", **_v)
builtin("volume_sample_grad_f", ov(U64, V3, I, V3, ret=T.float32, names=("id", "uvw", "sampling_mode", "grad")),
        inout=(3,), differentiable=False,
        doc="volume_sample_f, also writing the index-space gradient of the interpolant into grad.", **_v)
builtin("volume_lookup_f", ov(U64, I, I, I, ret=T.float32, names=("id", "i", "j", "k")), differentiable=False,
        doc="The value of voxel (i, j, k) (the background outside allocated tiles).", **_v)
builtin("volume_store_f", ov(U64, I, I, I, F, names=("id", "i", "j", "k", "value")), differentiable=False,
        side_effects=True, doc="Store into voxel (i, j, k) if its tile is allocated.", **_v)
builtin("volume_world_to_index", ov(U64, V3, ret=T.vec3f, names=("id", "xyz")),
        doc="World-space point -> index space.", **_v)
builtin("volume_index_to_world", ov(U64, V3, ret=T.vec3f, names=("id", "uvw")),
        doc="Index-space point -> world space.", **_v)
builtin("volume_world_to_index_dir", ov(U64, V3, ret=T.vec3f, names=("id", "xyz")),
        doc="World-space direction -> index space (no translation).", **_v)
builtin("volume_index_to_world_dir", ov(U64, V3, ret=T.vec3f, names=("id", "uvw")),
        doc="Index-space direction -> world space (no translation).", **_v)
