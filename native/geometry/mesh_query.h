// mesh_query.h: the iterating and counting queries of wp.Mesh, on top of mesh.h: faces near a
// box or a sphere (one MeshQuery type for both kinds, so a query variable may take either branch
// of an `if`), the furthest point, counting every hit along a ray, the sign by ray parity, and
// Warp's older out-parameter forms of the point and ray queries (bool result, outputs by reference).
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"
#include "geometry/bvh.h"
#include "geometry/mesh.h"
#include "arrays/array.h"

namespace wpnb {

// The root of `group` in a mesh built with groups (for the root argument of its queries); -1
// if the group is absent.
WPNB_FN int32 mesh_get_group_root(uint64 id, int32 group) { return bvh_group_root(mesh_of(id).bvh, group); }

// ---- box and sphere queries over faces ----

enum { kMeshAabb = 0, kMeshSphere = 1 };

struct mesh_query_aabb_t {
    const mesh_t* mesh;
    vec3f lo, hi;      // aabb: the box; sphere: centre (lo) and its bounding box corner (hi unused)
    float32 radius;
    int32 kind;
    int32 top, cur, end;
    int32 stack[geo::kStack];
};

namespace geo {
WPNB_FN mesh_query_aabb_t mesh_query_start(uint64 id, int32 kind, const vec3f& lo, const vec3f& hi, float32 radius,
                                           int32 root) {
    mesh_query_aabb_t q;
    q.mesh = &mesh_of(id);
    q.lo = lo; q.hi = hi; q.radius = radius; q.kind = kind;
    q.cur = q.end = 0;
    q.top = q.mesh->bvh.num_nodes > 0 ? 1 : 0;
    q.stack[0] = (root >= 0 && root < q.mesh->bvh.num_nodes) ? root : 0;
    return q;
}

// Whether face f passes the query: its bounding box overlaps the box, or the triangle itself
// comes within radius of the centre.
WPNB_FN bool mesh_face_hit(const mesh_query_aabb_t& q, int32 f) {
    vec3f a, b, c;
    tri(*q.mesh, f, a, b, c);
    if (q.kind == kMeshSphere) {
        float32 wa, wb;
        int32 region;
        closest_on_triangle(q.lo, a, b, c, wa, wb, region);
        const vec3f d = sub3(lerp_tri(a, b, c, wa, wb), q.lo);
        return dot3(d, d) <= q.radius * q.radius;
    }
    for (int k = 0; k < 3; ++k) {
        const float32 lo = fmin(a.c[k], fmin(b.c[k], c.c[k]));
        const float32 hi = fmax(a.c[k], fmax(b.c[k], c.c[k]));
        if (lo > q.hi.c[k] || hi < q.lo.c[k]) return false;
    }
    return true;
}

WPNB_FN bool mesh_node_hit(const mesh_query_aabb_t& q, const bvh_node_t& n) {
    if (q.kind == kMeshSphere) return box_dist2(n, q.lo) <= q.radius * q.radius;
    return box_overlap(n, q.lo, q.hi);
}
}  // namespace geo

// Faces whose bounding boxes overlap [low, high]; iterate with mesh_query_next.
WPNB_FN mesh_query_aabb_t mesh_query_aabb(uint64 id, const vec3f& low, const vec3f& high, int32 root) {
    return geo::mesh_query_start(id, kMeshAabb, low, high, 0.0f, root);
}
WPNB_FN mesh_query_aabb_t mesh_query_aabb(uint64 id, const vec3f& low, const vec3f& high) {
    return mesh_query_aabb(id, low, high, -1);
}

// Faces that come within radius of center (radius 0: the faces through the point).
WPNB_FN mesh_query_aabb_t mesh_query_sphere(uint64 id, const vec3f& center, float32 radius, int32 root) {
    return geo::mesh_query_start(id, kMeshSphere, center, center, radius, root);
}
WPNB_FN mesh_query_aabb_t mesh_query_sphere(uint64 id, const vec3f& center, float32 radius) {
    return mesh_query_sphere(id, center, radius, -1);
}

// The next face of a box or sphere query in `index`; false when done.
WPNB_FN bool mesh_query_next(mesh_query_aabb_t& q, int32& index) {
    const mesh_t& m = *q.mesh;
    for (;;) {
        while (q.cur < q.end) {
            const int32 f = m.bvh.items[q.cur++];
            if (geo::mesh_face_hit(q, f)) { index = f; return true; }
        }
        if (q.top == 0) return false;
        const bvh_node_t& n = m.bvh.nodes[q.stack[--q.top]];
        if (!geo::mesh_node_hit(q, n)) continue;
        if (n.count > 0) {
            q.cur = n.start;
            q.end = n.start + n.count;
        } else if (q.top + 2 <= geo::kStack) {
            q.stack[q.top++] = n.start + 1;
            q.stack[q.top++] = n.start;
        }
    }
}
WPNB_FN bool mesh_query_aabb_next(mesh_query_aabb_t& q, int32& index) { return mesh_query_next(q, index); }

// ---- furthest point ----

namespace geo {
// Squared distance from p to the farthest corner of the node's box.
WPNB_FN float32 box_max_dist2(const bvh_node_t& n, const vec3f& p) {
    float32 d2 = 0.0f;
    for (int a = 0; a < 3; ++a) {
        const float32 d = fmax(p.c[a] - n.lower[a], n.upper[a] - p.c[a]);
        d2 += d * d;
    }
    return d2;
}
}  // namespace geo

// The point of the mesh farthest from `point` (always a vertex: a triangle's farthest point is one
// of its corners), with its face and barycentric (u, v); faces closer than min_dist throughout are
// not considered.
WPNB_FN mesh_query_point_t mesh_query_furthest_point_no_sign(uint64 id, const vec3f& point, float32 min_dist) {
    const mesh_t& m = mesh_of(id);
    mesh_query_point_t r = geo::no_hit();
    if (m.bvh.num_nodes == 0) return r;
    float32 best = min_dist > 0.0f ? min_dist * min_dist : 0.0f;
    int32 stack[geo::kStack];
    int32 top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const bvh_node_t& n = m.bvh.nodes[stack[--top]];
        if (geo::box_max_dist2(n, point) < best) continue;
        if (n.count > 0) {
            for (int32 k = n.start; k < n.start + n.count; ++k) {
                const int32 f = m.bvh.items[k];
                for (int32 j = 0; j < 3; ++j) {
                    const vec3f d = geo::sub3(m.tris[3 * k + j], point);
                    const float32 d2 = geo::dot3(d, d);
                    if (d2 > best || (!r.result && d2 >= best)) {
                        best = d2; r.result = true; r.face = f;
                        r.u = j == 0 ? 1.0f : 0.0f;  // corner j has weights (1, 0), (0, 1) or (0, 0)
                        r.v = j == 1 ? 1.0f : 0.0f;
                    }
                }
            }
        } else if (top + 2 <= geo::kStack) {
            stack[top++] = n.start;
            stack[top++] = n.start + 1;
        }
    }
    return r;
}

// ---- every hit along a ray ----

// The number of faces the ray start + t * dir crosses for t >= 0 (not stopping at the first);
// root >= 0 confines it to a subtree. Odd: start is inside a closed mesh.
WPNB_FN int32 mesh_query_ray_count_intersections(uint64 id, const vec3f& start, const vec3f& dir, int32 root) {
    const mesh_t& m = mesh_of(id);
    if (m.bvh.num_nodes == 0) return 0;
    const vec3f inv = geo::safe_inverse(dir);
    int32 count = 0;
    int32 stack[geo::kStack];
    int32 top = 0;
    stack[top++] = (root >= 0 && root < m.bvh.num_nodes) ? root : 0;
    while (top > 0) {
        const bvh_node_t& n = m.bvh.nodes[stack[--top]];
        if (geo::box_ray(n.lower, n.upper, start, inv, 1e30f) < 0.0f) continue;
        if (n.count > 0) {
            for (int32 k = n.start; k < n.start + n.count; ++k) {
                const vec3f& a = m.tris[3 * k];
                const vec3f e1 = geo::sub3(m.tris[3 * k + 1], a), e2 = geo::sub3(m.tris[3 * k + 2], a);
                const vec3f pv = geo::cross3(dir, e2);
                const float32 det = geo::dot3(e1, pv);
                if (det == 0.0f || !(det == det)) continue;
                const float32 inv_det = 1.0f / det;
                const vec3f tv = geo::sub3(start, a);
                const float32 s = geo::dot3(tv, pv) * inv_det;
                if (s < 0.0f || s > 1.0f) continue;
                const vec3f qv = geo::cross3(tv, e1);
                const float32 w = geo::dot3(dir, qv) * inv_det;
                if (w < 0.0f || s + w > 1.0f) continue;
                if (geo::dot3(e2, qv) * inv_det >= 0.0f) ++count;
            }
        } else if (top + 2 <= geo::kStack) {
            stack[top++] = n.start;
            stack[top++] = n.start + 1;
        }
    }
    return count;
}
WPNB_FN int32 mesh_query_ray_count_intersections(uint64 id, const vec3f& start, const vec3f& dir) {
    return mesh_query_ray_count_intersections(id, start, dir, -1);
}

// Whether the ray start + t * dir hits any face with 0 <= t < max_t (stops at the first found).
WPNB_FN bool mesh_query_ray_anyhit(uint64 id, const vec3f& start, const vec3f& dir, float32 max_t, int32 root) {
    const mesh_t& m = mesh_of(id);
    if (m.bvh.num_nodes == 0) return false;
    const vec3f inv = geo::safe_inverse(dir);
    int32 stack[geo::kStack];
    int32 top = 0;
    stack[top++] = (root >= 0 && root < m.bvh.num_nodes) ? root : 0;
    while (top > 0) {
        const bvh_node_t& n = m.bvh.nodes[stack[--top]];
        if (geo::box_ray(n.lower, n.upper, start, inv, max_t) < 0.0f) continue;
        if (n.count > 0) {
            for (int32 k = n.start; k < n.start + n.count; ++k) {
                const vec3f& a = m.tris[3 * k];
                const vec3f e1 = geo::sub3(m.tris[3 * k + 1], a), e2 = geo::sub3(m.tris[3 * k + 2], a);
                const vec3f pv = geo::cross3(dir, e2);
                const float32 det = geo::dot3(e1, pv);
                if (det == 0.0f || !(det == det)) continue;
                const float32 inv_det = 1.0f / det;
                const vec3f tv = geo::sub3(start, a);
                const float32 s = geo::dot3(tv, pv) * inv_det;
                if (s < -1e-7f || s > 1.0f + 1e-7f) continue;
                const vec3f qv = geo::cross3(tv, e1);
                const float32 w = geo::dot3(dir, qv) * inv_det;
                if (w < -1e-7f || s + w > 1.0f + 1e-7f) continue;
                const float32 th = geo::dot3(e2, qv) * inv_det;
                if (th >= 0.0f && th < max_t) return true;
            }
        } else if (top + 2 <= geo::kStack) {
            stack[top++] = n.start;
            stack[top++] = n.start + 1;
        }
    }
    return false;
}
WPNB_FN bool mesh_query_ray_anyhit(uint64 id, const vec3f& start, const vec3f& dir, float32 max_t) {
    return mesh_query_ray_anyhit(id, start, dir, max_t, -1);
}

// The tree of a mesh as a wp.Bvh id: its items are the faces, with each face's bounding box.
WPNB_FN uint64 mesh_get_bvh(uint64 id) { return (uint64)&mesh_of(id).bvh; }

// The arrays of a mesh as a kernel sees them (wp.mesh_get(id).points[i] ...).
struct mesh_view_t {
    array_t<vec3f, 1> points;
    array_t<vec3f, 1> velocities;  // empty (null, shape 0) without velocities
    array_t<int32, 1> indices;
};

namespace geo {
template <typename T>
WPNB_FN array_t<T, 1> view1d(const T* data, int32 n) {
    array_t<T, 1> a;
    a.data = (T*)data; a.grad = nullptr;
    a.shape[0] = data ? n : 0;
    a.strides[0] = sizeof(T);
    return a;
}
}  // namespace geo

// The mesh's points, velocities and indices as arrays.
WPNB_FN mesh_view_t mesh_get(uint64 id) {
    const mesh_t& m = mesh_of(id);
    mesh_view_t v;
    v.points = geo::view1d(m.points, m.num_points);
    v.points.grad = m.points_grad;
    v.velocities = geo::view1d(m.velocities, m.num_points);
    v.velocities.grad = m.velocities ? m.velocities_grad : nullptr;
    v.indices = geo::view1d(m.indices, 3 * m.num_tris);
    return v;
}

// ---- sign by ray parity ----

namespace geo {
// A small deterministic generator for the perturbed ray directions (the same rays every call).
WPNB_FN float32 parity_random(uint32& state) {
    state = state * 1664525u + 1013904223u;
    return float32(state >> 8) * (1.0f / 16777216.0f);
}
}  // namespace geo

// Closest point; inside when at least half of n_sample rays from the point (directions (1, 1, 1)
// plus a per-axis offset drawn from [-perturbation_scale, perturbation_scale)) cross the mesh an
// odd number of times. n_sample <= 0 casts no ray and counts as inside.
WPNB_FN mesh_query_point_t mesh_query_point_sign_parity(uint64 id, const vec3f& point, float32 max_dist,
                                                        int32 n_sample, float32 perturbation_scale) {
    mesh_query_point_t r = mesh_query_point_no_sign(id, point, max_dist);
    if (!r.result) return r;
    uint32 state = 0x9e3779b9u;
    int32 odd = 0;
    for (int32 i = 0; i < n_sample; ++i) {
        vec3f d;
        for (int a = 0; a < 3; ++a) d.c[a] = 1.0f + (2.0f * geo::parity_random(state) - 1.0f) * perturbation_scale;
        odd += mesh_query_ray_count_intersections(id, point, d) & 1;
    }
    r.sign = 2 * odd >= n_sample ? -1.0f : 1.0f;
    return r;
}
WPNB_FN mesh_query_point_t mesh_query_point_sign_parity(uint64 id, const vec3f& point, float32 max_dist) {
    return mesh_query_point_sign_parity(id, point, max_dist, 1, 0.1f);
}

// ---- out-parameter forms: true when found, results written to the trailing arguments ----

namespace geo {
WPNB_FN bool unpack(const mesh_query_point_t& r, float32& inside, int32& face, float32& u, float32& v) {
    if (r.result) { inside = r.sign; face = r.face; u = r.u; v = r.v; }
    return r.result;
}
WPNB_FN bool unpack(const mesh_query_point_t& r, int32& face, float32& u, float32& v) {
    if (r.result) { face = r.face; u = r.u; v = r.v; }
    return r.result;
}
}  // namespace geo

WPNB_FN bool mesh_query_point(uint64 id, const vec3f& p, float32 max_dist, float32& inside, int32& face, float32& u,
                              float32& v) {
    return geo::unpack(mesh_query_point(id, p, max_dist), inside, face, u, v);
}
WPNB_FN bool mesh_query_point_no_sign(uint64 id, const vec3f& p, float32 max_dist, int32& face, float32& u,
                                      float32& v) {
    return geo::unpack(mesh_query_point_no_sign(id, p, max_dist), face, u, v);
}
WPNB_FN bool mesh_query_furthest_point_no_sign(uint64 id, const vec3f& p, float32 min_dist, int32& face, float32& u,
                                               float32& v) {
    return geo::unpack(mesh_query_furthest_point_no_sign(id, p, min_dist), face, u, v);
}
WPNB_FN bool mesh_query_point_sign_normal(uint64 id, const vec3f& p, float32 max_dist, float32& inside, int32& face,
                                          float32& u, float32& v, float32 epsilon) {
    return geo::unpack(mesh_query_point_sign_normal(id, p, max_dist, epsilon), inside, face, u, v);
}
WPNB_FN bool mesh_query_point_sign_normal(uint64 id, const vec3f& p, float32 max_dist, float32& inside, int32& face,
                                          float32& u, float32& v) {
    return mesh_query_point_sign_normal(id, p, max_dist, inside, face, u, v, 1e-3f);
}
WPNB_FN bool mesh_query_point_sign_winding_number(uint64 id, const vec3f& p, float32 max_dist, float32& inside,
                                                  int32& face, float32& u, float32& v, float32 accuracy,
                                                  float32 threshold) {
    return geo::unpack(mesh_query_point_sign_winding_number(id, p, max_dist, accuracy, threshold), inside, face, u, v);
}
WPNB_FN bool mesh_query_point_sign_winding_number(uint64 id, const vec3f& p, float32 max_dist, float32& inside,
                                                  int32& face, float32& u, float32& v) {
    return mesh_query_point_sign_winding_number(id, p, max_dist, inside, face, u, v, 2.0f, 0.5f);
}
WPNB_FN bool mesh_query_point_sign_parity(uint64 id, const vec3f& p, float32 max_dist, float32& inside, int32& face,
                                          float32& u, float32& v, int32 n_sample, float32 perturbation_scale) {
    return geo::unpack(mesh_query_point_sign_parity(id, p, max_dist, n_sample, perturbation_scale), inside, face, u, v);
}
WPNB_FN bool mesh_query_point_sign_parity(uint64 id, const vec3f& p, float32 max_dist, float32& inside, int32& face,
                                          float32& u, float32& v) {
    return mesh_query_point_sign_parity(id, p, max_dist, inside, face, u, v, 1, 0.1f);
}
WPNB_FN bool mesh_query_ray(uint64 id, const vec3f& start, const vec3f& dir, float32 max_t, float32& t, float32& u,
                            float32& v, float32& sign, vec3f& normal, int32& face, int32 root) {
    const mesh_query_ray_t r = mesh_query_ray(id, start, dir, max_t, root);
    if (r.result) { t = r.t; u = r.u; v = r.v; sign = r.sign; normal = r.normal; face = r.face; }
    return r.result;
}
WPNB_FN bool mesh_query_ray(uint64 id, const vec3f& start, const vec3f& dir, float32 max_t, float32& t, float32& u,
                            float32& v, float32& sign, vec3f& normal, int32& face) {
    return mesh_query_ray(id, start, dir, max_t, t, u, v, sign, normal, face, -1);
}

}  // namespace wpnb
