"""The kernels of geometry_against_warp.py, written once for both libraries: the module named by
GEOMETRY_AGAINST_WARP_MODULE (warp or warp_nb) is `wp` here. `build()` returns them."""

from __future__ import annotations

import importlib
import os
import types

wp = importlib.import_module(os.environ.get("GEOMETRY_AGAINST_WARP_MODULE", "warp_nb"))

POINT_OUTPUTS = {key: wp.float32 for key in (
    "d", "sign", "d_nosign", "d_normal", "sign_normal", "d_winding", "sign_winding", "d_parity", "sign_parity",
    "d_far")}
RAY_OUTPUTS = {"t": wp.float32, "face": wp.int32, "sign": wp.float32, "anyhit": wp.int32, "crossings": wp.int32}


@wp.func
def closest_distance(mesh: wp.uint64, p: wp.vec3, found: bool, face: int, u: float, v: float):
    if not found:
        return -1.0
    return wp.length(wp.mesh_eval_position(mesh, face, u, v) - p)


@wp.kernel
def point_queries(mesh: wp.uint64, q: wp.array(dtype=wp.vec3), max_dist: float,
                  d: wp.array(dtype=float), sign: wp.array(dtype=float), d_nosign: wp.array(dtype=float),
                  d_normal: wp.array(dtype=float), sign_normal: wp.array(dtype=float),
                  d_winding: wp.array(dtype=float), sign_winding: wp.array(dtype=float),
                  d_parity: wp.array(dtype=float), sign_parity: wp.array(dtype=float), d_far: wp.array(dtype=float)):
    i = wp.tid()
    p = q[i]
    r = wp.mesh_query_point(mesh, p, max_dist)
    d[i] = closest_distance(mesh, p, r.result, r.face, r.u, r.v)
    sign[i] = r.sign
    r = wp.mesh_query_point_no_sign(mesh, p, max_dist)
    d_nosign[i] = closest_distance(mesh, p, r.result, r.face, r.u, r.v)
    r = wp.mesh_query_point_sign_normal(mesh, p, max_dist)
    d_normal[i] = closest_distance(mesh, p, r.result, r.face, r.u, r.v)
    sign_normal[i] = r.sign
    r = wp.mesh_query_point_sign_winding_number(mesh, p, max_dist)
    d_winding[i] = closest_distance(mesh, p, r.result, r.face, r.u, r.v)
    sign_winding[i] = r.sign
    r = wp.mesh_query_point_sign_parity(mesh, p, max_dist)
    d_parity[i] = closest_distance(mesh, p, r.result, r.face, r.u, r.v)
    sign_parity[i] = r.sign
    r = wp.mesh_query_furthest_point_no_sign(mesh, p, 0.0)
    d_far[i] = closest_distance(mesh, p, r.result, r.face, r.u, r.v)


@wp.kernel
def ray_queries(mesh: wp.uint64, q: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3), max_t: float,
                t: wp.array(dtype=float), face: wp.array(dtype=int), sign: wp.array(dtype=float),
                anyhit: wp.array(dtype=int), crossings: wp.array(dtype=int)):
    i = wp.tid()
    r = wp.mesh_query_ray(mesh, q[i], dirs[i], max_t)
    if r.result:
        t[i] = r.t
        face[i] = r.face
        sign[i] = r.sign
    else:
        t[i] = -1.0
        face[i] = -1
    anyhit[i] = wp.where(wp.mesh_query_ray_anyhit(mesh, q[i], dirs[i], max_t), 1, 0)
    crossings[i] = wp.mesh_query_ray_count_intersections(mesh, q[i], dirs[i])


@wp.kernel
def aabb_queries(mesh: wp.uint64, lo: wp.array(dtype=wp.vec3), hi: wp.array(dtype=wp.vec3),
                 count: wp.array(dtype=int), total: wp.array(dtype=wp.int64)):
    i = wp.tid()
    query = wp.mesh_query_aabb(mesh, lo[i], hi[i])
    f = int(0)
    n = int(0)
    s = wp.int64(0)
    while wp.mesh_query_aabb_next(query, f):
        n += 1
        s += wp.int64(f * f + 1)
    count[i] = n
    total[i] = s


@wp.kernel
def bvh_aabb(bvh: wp.uint64, lo: wp.array(dtype=wp.vec3), hi: wp.array(dtype=wp.vec3),
             count: wp.array(dtype=int), total: wp.array(dtype=wp.int64)):
    i = wp.tid()
    query = wp.bvh_query_aabb(bvh, lo[i], hi[i])
    b = int(0)
    n = int(0)
    s = wp.int64(0)
    while wp.bvh_query_next(query, b):
        n += 1
        s += wp.int64(b * b + 1)
    count[i] = n
    total[i] = s


@wp.kernel
def bvh_ray(bvh: wp.uint64, q: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3),
            count: wp.array(dtype=int), total: wp.array(dtype=wp.int64)):
    i = wp.tid()
    query = wp.bvh_query_ray(bvh, q[i], dirs[i])
    b = int(0)
    n = int(0)
    s = wp.int64(0)
    while wp.bvh_query_next(query, b):
        n += 1
        s += wp.int64(b * b + 1)
    count[i] = n
    total[i] = s


@wp.kernel
def grid_neighbours(grid: wp.uint64, cloud: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.vec3), radius: float,
                    count: wp.array(dtype=int), total: wp.array(dtype=wp.int64)):
    i = wp.tid()
    p = q[i]
    query = wp.hash_grid_query(grid, p, radius)
    j = int(0)
    n = int(0)
    s = wp.int64(0)
    while wp.hash_grid_query_next(query, j):
        if wp.length(cloud[j] - p) <= radius:
            n += 1
            s += wp.int64(j * j + 1)
    count[i] = n
    total[i] = s


@wp.kernel
def volume_queries(volume: wp.uint64, q: wp.array(dtype=wp.vec3), linear: wp.array(dtype=float),
                   closest: wp.array(dtype=float), grad: wp.array(dtype=wp.vec3), world: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = wp.volume_world_to_index(volume, q[i])
    linear[i] = wp.volume_sample_f(volume, p, wp.Volume.LINEAR)
    closest[i] = wp.volume_sample_f(volume, p, wp.Volume.CLOSEST)
    g = wp.vec3()
    wp.volume_sample_grad_f(volume, p, wp.Volume.LINEAR, g)
    grad[i] = g
    world[i] = wp.volume_index_to_world(volume, p)


def build():
    return types.SimpleNamespace(point_queries=point_queries, ray_queries=ray_queries, aabb_queries=aabb_queries,
                                 bvh_aabb=bvh_aabb, bvh_ray=bvh_ray, grid_neighbours=grid_neighbours,
                                 volume_queries=volume_queries)
