"""Geometry builtins (bvh.h, mesh.h, hash_grid.h, volume.h): queries on wp.Mesh, wp.Bvh,
wp.HashGrid and wp.Volume objects, which kernels receive as their uint64 `id`. Query results
are opaque native structs with readable fields (wp.MeshQueryPoint: result, sign, face, u, v);
iterable queries (`for i in wp.hash_grid_query(...)`) name the builtin that advances them."""

from .. import types as T
from ..types.array_type import ArrayType
from .registry import Array, Exact, OpaqueType, builtin, ov

U64, V3, F, I = Exact(T.uint64), Exact(T.vec3f), Exact(T.float32), Exact(T.int32)
_OUT_SIGN = dict(inout=(3, 4, 5, 6), ret=T.bool)  # (id, point, max_dist, inside, face, u, v, ...) -> found

MeshQueryPoint = OpaqueType("MeshQueryPoint", "wpnb::mesh_query_point_t", "geometry/mesh.h", {
    "result": T.bool, "sign": T.float32, "face": T.int32, "u": T.float32, "v": T.float32})
MeshQueryRay = OpaqueType("MeshQueryRay", "wpnb::mesh_query_ray_t", "geometry/mesh.h", {
    "result": T.bool, "sign": T.float32, "face": T.int32, "t": T.float32, "u": T.float32, "v": T.float32,
    "normal": T.vec3f})
MeshQuery = OpaqueType("MeshQuery", "wpnb::mesh_query_aabb_t", "geometry/mesh_query.h")
MeshQueryAABB = MeshQuery  # Warp's older name: box and sphere queries share one type
MeshView = OpaqueType("Mesh", "wpnb::mesh_view_t", "geometry/mesh_query.h", {
    "points": ArrayType(T.vec3f, 1), "velocities": ArrayType(T.vec3f, 1), "indices": ArrayType(T.int32, 1)})
BvhQuery = OpaqueType("BvhQuery", "wpnb::bvh_query_t", "geometry/bvh.h")
HashGridQuery = OpaqueType("HashGridQuery", "wpnb::hash_grid_query_t", "geometry/hash_grid.h")
# queries of float16 and float64 grids: the same native query, told apart by the type checker
HashGridQuery.variants.update({T.float32: HashGridQuery,
                               **{t: OpaqueType("HashGridQuery", "wpnb::hash_grid_query_t", "geometry/hash_grid.h")
                                  for t in (T.float16, T.float64)}})

# --- mesh ------------------------------------------------------------------------------------
_m = dict(header="geometry/mesh.h", category="geometry")
# the point and ray queries: their out-parameter forms too
_mp = dict(header="geometry/mesh_query.h", category="geometry")
_OUT = ("id", "point", "max_dist", "inside", "face", "bary_u", "bary_v")
builtin("mesh_query_point", ov(U64, V3, F, ret=MeshQueryPoint, names=("id", "point", "max_dist")),
        ov(U64, V3, F, F, I, F, F, names=_OUT, **_OUT_SIGN),
        doc="The closest point on mesh `id` to `point` within max_dist (result, face, barycentric u, v); sign is "
            "-1 inside and +1 outside, by a majority vote of three axis-aligned rays (watertight meshes). "
            "Differentiable in point through u and v.", **_mp)
builtin("mesh_query_point_no_sign", ov(U64, V3, F, ret=MeshQueryPoint, names=("id", "point", "max_dist")),
        ov(U64, V3, F, I, F, F, names=("id", "point", "max_dist", "face", "bary_u", "bary_v"), inout=(3, 4, 5),
           ret=T.bool),
        doc="The closest point on mesh `id` within max_dist, without inside/outside (sign 0); the fastest query. "
            "Differentiable in point through u and v.", **_mp)
builtin("mesh_query_point_sign_normal",
        ov(U64, V3, F, ret=MeshQueryPoint, names=("id", "point", "max_dist")),
        ov(U64, V3, F, F, ret=MeshQueryPoint, names=("id", "point", "max_dist", "epsilon")),
        ov(U64, V3, F, F, I, F, F, names=_OUT, **_OUT_SIGN),
        ov(U64, V3, F, F, I, F, F, F, names=_OUT + ("epsilon",), **_OUT_SIGN),
        doc="The closest point; sign from the angle-weighted pseudo-normal at the closest point (watertight, "
            "non-self-intersecting meshes). epsilon (default 1e-3): barycentric weight below which the closest "
            "point counts as on an edge or vertex.", **_mp)
builtin("mesh_query_point_sign_winding_number",
        ov(U64, V3, F, ret=MeshQueryPoint, names=("id", "point", "max_dist")),
        ov(U64, V3, F, F, F, ret=MeshQueryPoint, names=("id", "point", "max_dist", "accuracy", "threshold")),
        ov(U64, V3, F, F, I, F, F, names=_OUT, **_OUT_SIGN),
        ov(U64, V3, F, F, I, F, F, F, F, names=_OUT + ("accuracy", "threshold"), **_OUT_SIGN),
        doc="The closest point; inside where the generalised winding number exceeds threshold (default 0.5), with "
            "a dipole approximation for tree nodes farther than accuracy (default 2) times their radius. Needs "
            "wp.Mesh(..., support_winding_number=True); otherwise the sign comes from the ray vote.", **_mp)
builtin("mesh_query_ray",
        ov(U64, V3, V3, F, ret=MeshQueryRay, names=("id", "start", "dir", "max_t")),
        ov(U64, V3, V3, F, I, ret=MeshQueryRay, names=("id", "start", "dir", "max_t", "root")),
        ov(U64, V3, V3, F, F, F, F, F, V3, I, names=("id", "start", "dir", "max_t", "t", "bary_u", "bary_v", "sign",
                                                   "normal", "face"), inout=(4, 5, 6, 7, 8, 9), ret=T.bool),
        ov(U64, V3, V3, F, F, F, F, F, V3, I, I, names=("id", "start", "dir", "max_t", "t", "bary_u", "bary_v", "sign",
                                                      "normal", "face", "root"), inout=(4, 5, 6, 7, 8, 9), ret=T.bool),
        doc="The closest hit of start + t * dir with 0 <= t < max_t: result, face, t, barycentric u, v, the unit "
            "face normal, and sign (+1 front face, -1 back face). Differentiable in start and dir through t.", **_mp)
_mq = dict(header="geometry/mesh_query.h", category="geometry", differentiable=False)
builtin("mesh_query_aabb", ov(U64, V3, V3, ret=MeshQuery, names=("id", "low", "high")),
        ov(U64, V3, V3, I, ret=MeshQuery, names=("id", "low", "high", "root")), iterator_next="mesh_query_next",
        doc="Faces whose bounding boxes overlap [low, high]: `for face in wp.mesh_query_aabb(id, low, high)`.", **_mq)
builtin("mesh_query_sphere", ov(U64, V3, F, ret=MeshQuery, names=("id", "center", "radius")),
        ov(U64, V3, F, I, ret=MeshQuery, names=("id", "center", "radius", "root")), iterator_next="mesh_query_next",
        doc="Faces that come within radius of center (radius 0: faces through the point): "
            "`for face in wp.mesh_query_sphere(id, c, r)`.", **_mq)
builtin("mesh_get_group_root", ov(U64, I, ret=T.int32, names=("id", "group")),
        doc="The root node of `group` in a wp.Mesh built with groups (for a query's root argument); -1 if absent.",
        **_mq)
builtin("mesh_query_next", ov(Exact(MeshQuery), I, ret=T.bool, names=("query", "index")), inout=(0, 1),
        doc="Advance a mesh box or sphere query: the next face in index; False when done.", **_mq)
builtin("mesh_query_aabb_next", ov(Exact(MeshQuery), I, ret=T.bool, names=("query", "index")), inout=(0, 1),
        doc="wp.mesh_query_next under Warp's older name.", **_mq)
builtin("mesh_query_furthest_point_no_sign",
        ov(U64, V3, F, ret=MeshQueryPoint, names=("id", "point", "min_dist")),
        ov(U64, V3, F, I, F, F, names=("id", "point", "min_dist", "face", "bary_u", "bary_v"), inout=(3, 4, 5),
           ret=T.bool),
        doc="The point of the mesh farthest from point (a vertex), its face and barycentric u, v; faces closer "
            "than min_dist are not considered.", **_mq)
builtin("mesh_query_ray_count_intersections",
        ov(U64, V3, V3, ret=T.int32, names=("id", "start", "dir")),
        ov(U64, V3, V3, I, ret=T.int32, names=("id", "start", "dir", "root")),
        doc="How many faces the ray start + t * dir crosses for t >= 0 (every hit, not the first); odd means "
            "start is inside a closed mesh.", **_mq)
builtin("mesh_query_ray_anyhit",
        ov(U64, V3, V3, F, ret=T.bool, names=("id", "start", "dir", "max_t")),
        ov(U64, V3, V3, F, I, ret=T.bool, names=("id", "start", "dir", "max_t", "root")),
        doc="Whether the ray start + t * dir hits any face with 0 <= t < max_t (stops at the first found).", **_mq)
builtin("mesh_get", ov(U64, ret=MeshView, names=("id",)),
        doc="The mesh's arrays as a kernel sees them: .points (vec3), .velocities (vec3; empty without "
            "velocities) and .indices (int32, 3 per face).", **_mq)
builtin("mesh_get_bvh", ov(U64, ret=T.uint64, names=("id",)),
        doc="The mesh's tree as a wp.Bvh id (its items are the faces, each with its bounding box), for "
            "wp.bvh_query_* loops.", **_mq)
builtin("mesh_query_point_sign_parity",
        ov(U64, V3, F, ret=MeshQueryPoint, names=("id", "point", "max_dist")),
        ov(U64, V3, F, I, F, ret=MeshQueryPoint, names=("id", "point", "max_dist", "n_sample", "perturbation_scale")),
        ov(U64, V3, F, F, I, F, F, names=("id", "point", "max_dist", "inside", "face", "bary_u", "bary_v"),
           **_OUT_SIGN),
        ov(U64, V3, F, F, I, F, F, I, F, names=("id", "point", "max_dist", "inside", "face", "bary_u", "bary_v",
                                               "n_sample", "perturbation_scale"), **_OUT_SIGN),
        doc="The closest point; inside when at least half of n_sample rays (default 1) from the point, along "
            "(1, 1, 1) perturbed per axis within perturbation_scale (default 0.1), cross the mesh an odd number "
            "of times.", **_mq)

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
_b = dict(header="geometry/bvh.h", category="geometry", differentiable=False)
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
builtin("bvh_get_group_root", ov(U64, I, ret=T.int32, names=("id", "group")),
        doc="The root node of `group` in a wp.Bvh built with groups (pass it as a query's root to see that "
            "group only); -1 if the group is absent.", **_b)
builtin("bvh_query_next", ov(Exact(BvhQuery), I, ret=T.bool, names=("query", "index")),
        ov(Exact(BvhQuery), I, F, ret=T.bool, names=("query", "index", "max_dist")), inout=(0, 1),
        doc="Advance a bvh query (any kind: one BvhQuery type holds each): the next item in index; False when "
            "done. max_dist bounds the ray parameter of ray and capsule queries.", **_b)

# --- hash grid ---------------------------------------------------------------------------------
_h = dict(header="geometry/hash_grid.h", category="geometry", differentiable=False)
_HQ = {t: HashGridQuery[t] for t in (T.float32, T.float16, T.float64)}
_HV = {T.float32: T.vec3f, T.float16: T.vec3h, T.float64: T.vec3d}
builtin("hash_grid_query",
        *(o for t in (T.float32, T.float16, T.float64) for o in (
            ov(U64, Exact(_HV[t]), Exact(t), ret=_HQ[t], names=("id", "point", "max_dist")),
            ov(U64, Exact(_HV[t]), Exact(t), I, ret=_HQ[t], names=("id", "point", "max_dist", "group")))),
        iterator_next="hash_grid_query_next",
        doc="Candidate neighbours of point: every point in the cells that [point - max_dist, point + max_dist] "
            "touches (test the distance yourself): `for j in wp.hash_grid_query(grid, p, r)`. With group, only the "
            "points of that group (a grid built with groups). Points and max_dist are of the grid's precision "
            "(vec3h/float16, vec3f/float32, vec3d/float64).", **_h)
builtin("hash_grid_query_next", *(ov(Exact(q), I, ret=T.bool, names=("query", "index")) for q in _HQ.values()),
        inout=(0, 1), doc="Advance a hash grid query: the next candidate's index (into the built points); False when "
                          "done.", **_h)
builtin("hash_grid_point_id", ov(U64, I, ret=T.int32, names=("id", "index")),
        doc="The point at position `index` of the grid's cell order (launch in this order for coherent "
            "neighbour loops).", **_h)

# --- volume ------------------------------------------------------------------------------------
_v = dict(header="geometry/volume.h", category="geometry")
_vn = dict(_v, differentiable=False)


def _grad_type(value_type):
    """The gradient a sample of value_type comes with: a vec3 for scalars, the N x 3 Jacobian for vectors."""
    if T.kind_of(value_type) != "vector":
        return T.vector(3, value_type)
    return T.matrix((value_type._shape_[0], 3), value_type._wp_scalar_type_)


def _explain_grad(expected):
    def explain(arg_types):
        got = arg_types[3] if len(arg_types) == 4 else None
        if got is not None and not T.types_equal(got, expected):
            return f"Incompatible gradient type, expected {T.type_name(expected)}, got {T.type_name(got)}"
        return None
    return explain


_VOXEL_TYPES = {T.float32: "f", T.int32: "i", T.vec3f: "v", T.float64: "d", T.vec3d: "vd", T.vec4f: "v4",
                T.vec4d: "v4d"}
builtin("volume_sample_f", ov(U64, V3, I, ret=T.float32, names=("id", "uvw", "sampling_mode")),
        doc="Sample a float volume at index-space uvw: wp.Volume.CLOSEST (nearest voxel) or wp.Volume.LINEAR "
            "(trilinear). Differentiable in uvw (LINEAR).", **_v)
builtin("volume_sample_v", ov(U64, V3, I, ret=T.vec3f, names=("id", "uvw", "sampling_mode")),
        doc="Sample a vec3 volume at index-space uvw (CLOSEST or LINEAR, per component). Differentiable in uvw "
            "(LINEAR).", **_v)
builtin("volume_sample_i", ov(U64, V3, ret=T.int32, names=("id", "uvw")),
        doc="The voxel nearest index-space uvw of an int32 volume.", **_vn)
builtin("volume_sample_grad_f", ov(U64, V3, I, V3, ret=T.float32, names=("id", "uvw", "sampling_mode", "grad")),
        inout=(3,), adjoint_inout=True, explain=_explain_grad(T.vec3f),
        doc="volume_sample_f, also writing the index-space gradient of the interpolant into grad. Differentiable "
            "in uvw (LINEAR): the value through the gradient, grad through the interpolant's Hessian.", **_v)
builtin("volume_sample_grad_v", ov(U64, V3, I, Exact(T.mat33f), ret=T.vec3f, names=("id", "uvw", "sampling_mode", "grad")),
        inout=(3,), export=False, explain=_explain_grad(T.mat33f),
        doc="volume_sample_v, also writing grad[r][c], the derivative of component r along index axis c.", **_vn)

_GRAD_VARIANTS = {T.float32: "volume_sample_grad_f", T.vec3f: "volume_sample_grad_v"}
for _t, _suffix in ((T.vec3d, "vd"), (T.vec4f, "v4"), (T.vec4d, "v4d")):  # float64 volumes: no gradient yet
    _GRAD_VARIANTS[_t] = f"volume_sample_grad_{_suffix}"
    builtin(_GRAD_VARIANTS[_t], ov(U64, V3, I, Exact(_grad_type(_t)), ret=_t,
                                   names=("id", "uvw", "sampling_mode", "grad")),
            inout=(3,), export=False, explain=_explain_grad(_grad_type(_t)),
            doc=f"Sample a {T.type_name(_t)} volume and its Jacobian (grad[r][c]: component r along index axis c).",
            **_vn)
builtin("volume_lookup_f", ov(U64, I, I, I, ret=T.float32, names=("id", "i", "j", "k")),
        doc="The value of voxel (i, j, k) of a float volume (the background outside allocated tiles).", **_vn)
builtin("volume_lookup_i", ov(U64, I, I, I, ret=T.int32, names=("id", "i", "j", "k")),
        doc="The value of voxel (i, j, k) of an int32 volume.", **_vn)
builtin("volume_lookup_v", ov(U64, I, I, I, ret=T.vec3f, names=("id", "i", "j", "k")),
        doc="The value of voxel (i, j, k) of a vec3 volume.", **_vn)
for _t, _suffix in _VOXEL_TYPES.items():
    if _suffix not in ("f", "i", "v"):  # the other voxel types, reached through volume_lookup(..., dtype=)
        builtin(f"volume_lookup_{_suffix}", ov(U64, I, I, I, ret=_t, names=("id", "i", "j", "k"),
                                               template=f"wpnb::volume_lookup_t<wpnb::{T.type_name(_t)}>"),
                export=False, cpp="wpnb::volume_lookup_t", doc=f"The value of voxel (i, j, k) of a {T.type_name(_t)} volume.", **_vn)
    if _suffix not in ("f", "v", "i"):
        builtin(f"volume_sample_{_suffix}", ov(U64, V3, I, ret=_t, names=("id", "uvw", "sampling_mode"),
                                               template=f"wpnb::volume_sample_t<wpnb::{T.type_name(_t)}>"),
                export=False, cpp="wpnb::volume_sample_t", doc=f"Sample a {T.type_name(_t)} volume (CLOSEST or LINEAR).", **_vn)
builtin("volume_sample_i_mode", ov(U64, V3, I, ret=T.int32, names=("id", "uvw", "sampling_mode"),
                                   template="wpnb::volume_sample_t<wpnb::int32>"),
        export=False, cpp="wpnb::volume_sample_t", doc="Sample an int32 volume (its voxels are read as they are; use CLOSEST).", **_vn)
builtin("volume_lookup", ov(U64, I, I, I, ret=T.float32, names=("id", "i", "j", "k")),
        by_dtype={t: f"volume_lookup_{x}" for t, x in _VOXEL_TYPES.items()}, cpp="wpnb::volume_lookup_f",
        doc="The value of voxel (i, j, k): `wp.volume_lookup(id, i, j, k, dtype=wp.vec3)` for a volume of that type "
            "(float32 without dtype).", **_vn)
builtin("volume_sample", ov(U64, V3, I, ret=T.float32, names=("id", "uvw", "sampling_mode")),
        by_dtype={**{t: f"volume_sample_{x}" for t, x in _VOXEL_TYPES.items()}, T.int32: "volume_sample_i_mode"},
        cpp="wpnb::volume_sample_f",
        doc="Sample at index-space uvw: `wp.volume_sample(id, uvw, wp.Volume.LINEAR, dtype=wp.vec3)` for a volume "
            "of that type (float32 without dtype; differentiable in uvw like volume_sample_f).", **_v)
builtin("volume_sample_grad", ov(U64, V3, I, V3, ret=T.float32, names=("id", "uvw", "sampling_mode", "grad")),
        inout=(3,), by_dtype=_GRAD_VARIANTS,
        cpp="wpnb::volume_sample_grad_f",
        doc="Sample and the index-space gradient (into grad: a vec3 for float volumes, a mat33 for vec3 volumes): "
            "`wp.volume_sample_grad(id, uvw, mode, grad, dtype=wp.vec3)`.", **_vn)
_vi = dict(header="geometry/volume_index.h", category="geometry")
builtin("volume_lookup_index", ov(U64, I, I, I, ret=T.int32, names=("id", "i", "j", "k")), differentiable=False,
        doc="The linear index of active voxel (i, j, k) (its row in Volume.get_voxels()), or -1 when it is inactive.",
        **_vi)
builtin("volume_voxel_count", ov(U64, ret=T.int32, names=("id",)), differentiable=False,
        doc="The number of active (indexable) voxels: the size of a voxel_data array for volume_sample_index.", **_vi)
_INDEX_VALUE_TYPES = (T.float32, T.float64, T.vec3f, T.vec3d, T.vec4f, T.vec4d)
builtin("volume_sample_index",
        *(ov(U64, V3, I, Array(Exact(t), 1), Exact(t), ret=t,
             names=("id", "uvw", "sampling_mode", "voxel_data", "background")) for t in _INDEX_VALUE_TYPES),
        doc="Sample per-voxel data at index-space uvw: voxel_data[volume_lookup_index(...)] at active voxels, "
            "background elsewhere; CLOSEST or LINEAR. Differentiable in uvw, voxel_data and background.", **_vi)
builtin("volume_sample_grad_index",
        *(ov(U64, V3, I, Array(Exact(t), 1), Exact(t), Exact(_grad_type(t)), ret=t,
             names=("id", "uvw", "sampling_mode", "voxel_data", "background", "grad")) for t in _INDEX_VALUE_TYPES),
        inout=(5,), adjoint_inout=True,
        explain=lambda types: _explain_grad(_grad_type(types[4]))(types[:3] + types[5:]) if len(types) == 6 else None,
        doc="volume_sample_index, also writing the index-space gradient into grad (a vec3 for scalar data, the "
            "N x 3 Jacobian for vectors). Differentiable like volume_sample_index.", **_vi)
builtin("volume_store_f", ov(U64, I, I, I, F, names=("id", "i", "j", "k", "value")), side_effects=True,
        doc="Store into voxel (i, j, k) of a float volume if its tile is allocated.", **_vn)
builtin("volume_store_i", ov(U64, I, I, I, I, names=("id", "i", "j", "k", "value")), side_effects=True,
        doc="Store into voxel (i, j, k) of an int32 volume if its tile is allocated.", **_vn)
builtin("volume_store_v", ov(U64, I, I, I, V3, names=("id", "i", "j", "k", "value")), side_effects=True,
        doc="Store into voxel (i, j, k) of a vec3 volume if its tile is allocated.", **_vn)
builtin("volume_store", *(ov(U64, I, I, I, Exact(t), names=("id", "i", "j", "k", "value")) for t in _VOXEL_TYPES),
        side_effects=True, doc="Store value into voxel (i, j, k) if its tile is allocated; the volume must hold "
                               "values of value's type.", **_vn)
builtin("volume_world_to_index", ov(U64, V3, ret=T.vec3f, names=("id", "xyz")),
        doc="World-space point -> index space.", **_v)
builtin("volume_index_to_world", ov(U64, V3, ret=T.vec3f, names=("id", "uvw")),
        doc="Index-space point -> world space.", **_v)
builtin("volume_world_to_index_dir", ov(U64, V3, ret=T.vec3f, names=("id", "xyz")),
        doc="World-space direction -> index space (no translation).", **_v)
builtin("volume_index_to_world_dir", ov(U64, V3, ret=T.vec3f, names=("id", "uvw")),
        doc="Index-space direction -> world space (no translation).", **_v)
