// mesh.h: the kernel side of wp.Mesh: closest-point queries (with four ways to tell inside
// from outside), ray casts, box queries over triangles, and evaluation of positions, velocities
// and normals on faces, with adjoints for the differentiable ones. A mesh's `id` is the address
// of a mesh_t owned by the Python object (points, indices and the tree stay owned by it too).
//
// Barycentric convention (Warp's): a point on face f with coordinates (u, v) is
// u * p0 + v * p1 + (1 - u - v) * p2, where p0, p1, p2 are the face's vertices in index order.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"
#include "geometry/bvh.h"

namespace wpnb {

struct mesh_t {
    bvh_t bvh;                 // leaves hold triangle indices
    const vec3f* points;
    const vec3f* velocities;   // may be null
    const int32* indices;      // 3 per triangle
    const float32* dipoles;    // 8 per node (centre, area-weighted normal, radius, area) or null
    const vec3f* tris;         // the vertices of items[k] at tris[3k..3k+2] (tree order, for fast leaves)
    int32 num_points;
    int32 num_tris;
    float32 average_edge_length;
    int32 pad;
    vec3f* points_grad;        // the points' gradient array (null without one): wp.mesh_get(id).points[i]
    vec3f* velocities_grad;    // is differentiable, as in Warp
};

WPNB_FN const mesh_t& mesh_of(uint64 id) { return *(const mesh_t*)id; }

// Result of the closest-point queries (wp.MeshQueryPoint).
struct mesh_query_point_t {
    bool result;     // a face lies within max_dist
    float32 sign;    // -1 inside, +1 outside (0 for the no_sign query)
    int32 face;
    float32 u, v;    // barycentric weights of the face's first and second vertex
};
WPNB_FN mesh_query_point_t add(const mesh_query_point_t& a, const mesh_query_point_t& b) {
    mesh_query_point_t r = a;
    r.sign = a.sign + b.sign; r.u = a.u + b.u; r.v = a.v + b.v;
    return r;
}

// Result of mesh_query_ray (wp.MeshQueryRay).
struct mesh_query_ray_t {
    bool result;
    float32 sign;    // +1 when the ray hits the face's front (dot(dir, normal) < 0), else -1
    int32 face;
    float32 t;       // hit = start + t * dir
    float32 u, v;
    vec3f normal;    // unit face normal, (p1 - p0) x (p2 - p0) normalised
};
WPNB_FN mesh_query_ray_t add(const mesh_query_ray_t& a, const mesh_query_ray_t& b) {
    mesh_query_ray_t r = a;
    r.sign = a.sign + b.sign; r.t = a.t + b.t; r.u = a.u + b.u; r.v = a.v + b.v;
    r.normal = geo::add3(a.normal, b.normal);
    return r;
}

namespace geo {
WPNB_FN void tri(const mesh_t& m, int32 f, vec3f& a, vec3f& b, vec3f& c) {
    a = m.points[m.indices[3 * f]];
    b = m.points[m.indices[3 * f + 1]];
    c = m.points[m.indices[3 * f + 2]];
}

// Closest point of triangle abc to p by Voronoi regions. Returns the weights of a and b (the
// weight of c is 1 - wa - wb) and the region: 0 face, 1/2/3 vertex a/b/c, 4 edge ab, 5 edge ac,
// 6 edge bc.
WPNB_FN void closest_on_triangle(const vec3f& p, const vec3f& a, const vec3f& b, const vec3f& c, float32& wa,
                                 float32& wb, int32& region) {
    const vec3f ab = sub3(b, a), ac = sub3(c, a), ap = sub3(p, a);
    const float32 d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0.0f && d2 <= 0.0f) { wa = 1.0f; wb = 0.0f; region = 1; return; }
    const vec3f bp = sub3(p, b);
    const float32 d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0.0f && d4 <= d3) { wa = 0.0f; wb = 1.0f; region = 2; return; }
    const float32 vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) {
        const float32 t = d1 / (d1 - d3);
        wa = 1.0f - t; wb = t; region = 4; return;
    }
    const vec3f cp = sub3(p, c);
    const float32 d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0.0f && d5 <= d6) { wa = 0.0f; wb = 0.0f; region = 3; return; }
    const float32 vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) {
        const float32 t = d2 / (d2 - d6);
        wa = 1.0f - t; wb = 0.0f; region = 5; return;
    }
    const float32 va = d3 * d6 - d5 * d4;
    if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f) {
        const float32 t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        wa = 0.0f; wb = 1.0f - t; region = 6; return;
    }
    const float32 denom = va + vb + vc;
    if (!(denom > 0.0f)) { wa = 1.0f; wb = 0.0f; region = 1; return; }  // degenerate triangle
    const float32 s = vb / denom, t = vc / denom;
    wa = 1.0f - s - t; wb = s; region = 0;
}

// Gradients of (wa, wb) with respect to p in the region found by closest_on_triangle.
WPNB_FN void closest_on_triangle_grad(const vec3f& a, const vec3f& b, const vec3f& c, int32 region, vec3f& dwa,
                                      vec3f& dwb) {
    dwa = v3(0.0f, 0.0f, 0.0f); dwb = dwa;
    if (region == 0) {
        const vec3f e1 = sub3(b, a), e2 = sub3(c, a);
        const float32 g00 = dot3(e1, e1), g01 = dot3(e1, e2), g11 = dot3(e2, e2);
        const float32 det = g00 * g11 - g01 * g01;
        if (!(det > 0.0f)) return;
        const float32 i00 = g11 / det, i01 = -g01 / det, i11 = g00 / det;
        const vec3f ds = add3(scale3(e1, i00), scale3(e2, i01));  // d(weight of b)
        const vec3f dt = add3(scale3(e1, i01), scale3(e2, i11));  // d(weight of c)
        dwb = ds;
        dwa = scale3(add3(ds, dt), -1.0f);
    } else if (region >= 4) {
        const vec3f o = region == 6 ? b : a;
        const vec3f e = region == 4 ? sub3(b, a) : (region == 5 ? sub3(c, a) : sub3(c, b));
        const float32 l2 = dot3(e, e);
        if (!(l2 > 0.0f)) return;
        const vec3f dt = scale3(e, 1.0f / l2);  // t = e.(p - o) / |e|^2
        (void)o;
        if (region == 4) { dwa = scale3(dt, -1.0f); dwb = dt; }
        else if (region == 5) { dwa = scale3(dt, -1.0f); }
        else { dwb = scale3(dt, -1.0f); }
    }
}

WPNB_FN vec3f lerp_tri(const vec3f& a, const vec3f& b, const vec3f& c, float32 wa, float32 wb) {
    const float32 wc = 1.0f - wa - wb;
    return v3(a.c[0] * wa + b.c[0] * wb + c.c[0] * wc, a.c[1] * wa + b.c[1] * wb + c.c[1] * wc,
              a.c[2] * wa + b.c[2] * wb + c.c[2] * wc);
}

// The closest face to p within max_dist: its index, weights and region; false if none.
WPNB_FN bool closest_face(const mesh_t& m, const vec3f& p, float32 max_dist, int32& face, float32& wa, float32& wb,
                          int32& region) {
    if (m.bvh.num_nodes == 0) return false;
    float32 best = max_dist * max_dist;
    if (!(best >= 0.0f)) return false;
    bool found = false;
    int32 stack[kStack];
    float32 dist[kStack];  // each entry's box distance, so a pop needs no recomputation
    int32 top = 0;
    const float32 d0 = box_dist2(m.bvh.nodes[0], p);
    if (d0 <= best) { stack[0] = 0; dist[0] = d0; top = 1; }
    while (top > 0) {
        --top;
        if (dist[top] > best) continue;
        const bvh_node_t& n = m.bvh.nodes[stack[top]];
        if (n.count > 0) {
            for (int32 k = n.start; k < n.start + n.count; ++k) {
                const int32 f = m.bvh.items[k];
                const vec3f& a = m.tris[3 * k];
                const vec3f& b = m.tris[3 * k + 1];
                const vec3f& c = m.tris[3 * k + 2];
                float32 fa, fb;
                int32 r;
                closest_on_triangle(p, a, b, c, fa, fb, r);
                const vec3f q = sub3(lerp_tri(a, b, c, fa, fb), p);
                const float32 d2 = dot3(q, q);
                if (d2 < best || (!found && d2 <= best)) {
                    best = d2; face = f; wa = fa; wb = fb; region = r; found = true;
                }
            }
        } else {
            const int32 l = n.start, r = n.start + 1;
            const float32 dl = box_dist2(m.bvh.nodes[l], p), dr = box_dist2(m.bvh.nodes[r], p);
            if (top + 2 > kStack) continue;
            // the nearer child goes on top
            const bool left_first = dl < dr;
            const int32 far_i = left_first ? r : l, near_i = left_first ? l : r;
            const float32 far_d = left_first ? dr : dl, near_d = left_first ? dl : dr;
            if (far_d <= best) { stack[top] = far_i; dist[top] = far_d; ++top; }
            if (near_d <= best) { stack[top] = near_i; dist[top] = near_d; ++top; }
        }
    }
    return found;
}

// Closest ray hit (Moller-Trumbore) with 0 <= t < max_t: face, t and the weights of p0, p1.
// root >= 0 confines the search to a subtree (a group's).
WPNB_FN bool ray_cast(const mesh_t& m, const vec3f& o, const vec3f& d, float32 max_t, int32& face, float32& t_hit,
                      float32& wa, float32& wb, int32 root = -1) {
    if (m.bvh.num_nodes == 0) return false;
    const vec3f inv = safe_inverse(d);
    float32 best = max_t;
    bool found = false;
    int32 stack[kStack];
    int32 top = 0;
    stack[top++] = (root >= 0 && root < m.bvh.num_nodes) ? root : 0;
    while (top > 0) {
        const bvh_node_t& n = m.bvh.nodes[stack[--top]];
        if (box_ray(n.lower, n.upper, o, inv, best) < 0.0f) continue;
        if (n.count > 0) {
            for (int32 k = n.start; k < n.start + n.count; ++k) {
                const int32 f = m.bvh.items[k];
                const vec3f& a = m.tris[3 * k];
                const vec3f e1 = sub3(m.tris[3 * k + 1], a), e2 = sub3(m.tris[3 * k + 2], a);
                const vec3f pv = cross3(d, e2);
                const float32 det = dot3(e1, pv);
                if (det == 0.0f || !(det == det)) continue;
                const float32 inv_det = 1.0f / det;
                const vec3f tv = sub3(o, a);
                const float32 s = dot3(tv, pv) * inv_det;
                if (s < -1e-7f || s > 1.0f + 1e-7f) continue;
                const vec3f qv = cross3(tv, e1);
                const float32 w = dot3(d, qv) * inv_det;
                if (w < -1e-7f || s + w > 1.0f + 1e-7f) continue;
                const float32 t = dot3(e2, qv) * inv_det;
                if (t < 0.0f || t >= best) continue;
                best = t; face = f; t_hit = t; wa = 1.0f - s - w; wb = s; found = true;
            }
        } else if (top + 2 <= kStack) {
            const float32 tl = box_ray(m.bvh.nodes[n.start].lower, m.bvh.nodes[n.start].upper, o, inv, best);
            const float32 tr = box_ray(m.bvh.nodes[n.start + 1].lower, m.bvh.nodes[n.start + 1].upper, o, inv, best);
            // the nearer child is visited first
            if (tl >= 0.0f && tr >= 0.0f) {
                if (tl < tr) { stack[top++] = n.start + 1; stack[top++] = n.start; }
                else { stack[top++] = n.start; stack[top++] = n.start + 1; }
            } else if (tl >= 0.0f) {
                stack[top++] = n.start;
            } else if (tr >= 0.0f) {
                stack[top++] = n.start + 1;
            }
        }
    }
    return found;
}

WPNB_FN vec3f face_normal(const mesh_t& m, int32 f) {
    vec3f a, b, c;
    tri(m, f, a, b, c);
    return normalize3(cross3(sub3(b, a), sub3(c, a)));
}

// Inside test by a majority vote of three axis-aligned rays: a ray whose closest hit is on a
// face's back side votes inside.
WPNB_FN bool inside_by_rays(const mesh_t& m, const vec3f& p) {
    int votes = 0;
    for (int a = 0; a < 3; ++a) {
        vec3f d = v3(0.0f, 0.0f, 0.0f);
        d.c[a] = 1.0f;
        int32 f; float32 t, wa, wb;
        if (ray_cast(m, p, d, 1e30f, f, t, wa, wb) && dot3(d, face_normal(m, f)) > 0.0f) ++votes;
    }
    return votes >= 2;
}

// Signed solid angle of triangle abc seen from the origin (a, b, c relative to the query point).
WPNB_FN float32 solid_angle(const vec3f& a, const vec3f& b, const vec3f& c) {
    const float32 la = len3(a), lb = len3(b), lc = len3(c);
    const float32 num = dot3(a, cross3(b, c));
    const float32 den = la * lb * lc + dot3(a, b) * lc + dot3(a, c) * lb + dot3(b, c) * la;
    return 2.0f * ::atan2f(num, den);
}

// Generalised winding number of the mesh at p: exact near p, a dipole per tree node farther
// than accuracy * (node radius) away.
WPNB_FN float32 winding_number(const mesh_t& m, const vec3f& p, float32 accuracy) {
    float32 sum = 0.0f;
    int32 stack[kStack];
    int32 top = 0;
    if (m.bvh.num_nodes > 0) stack[top++] = 0;
    while (top > 0) {
        const int32 ni = stack[--top];
        const bvh_node_t& n = m.bvh.nodes[ni];
        if (m.dipoles) {
            const float32* dp = m.dipoles + 8 * ni;
            const vec3f c = v3(dp[0], dp[1], dp[2]);
            const vec3f r = sub3(c, p);
            const float32 dist = len3(r);
            if (dist > accuracy * dp[6] && dist > 0.0f) {
                sum += dot3(v3(dp[3], dp[4], dp[5]), r) / (dist * dist * dist);
                continue;
            }
        }
        if (n.count > 0) {
            for (int32 k = n.start; k < n.start + n.count; ++k) {
                vec3f a, b, c;
                tri(m, m.bvh.items[k], a, b, c);
                sum += solid_angle(sub3(a, p), sub3(b, p), sub3(c, p));
            }
        } else if (top + 2 <= kStack) {
            stack[top++] = n.start;
            stack[top++] = n.start + 1;
        }
    }
    return sum * 0.07957747154594767f;  // 1 / (4 pi)
}

// Angle of triangle abc at its vertex a.
WPNB_FN float32 corner_angle(const vec3f& a, const vec3f& b, const vec3f& c) {
    const vec3f e1 = sub3(b, a), e2 = sub3(c, a);
    return ::atan2f(len3(cross3(e1, e2)), dot3(e1, e2));
}

// The angle-weighted pseudo-normal at the closest point cp on face f: the face normal inside
// the face, the sum of the adjacent faces' normals on an edge, their angle-weighted sum at a
// vertex. A weight below eps counts as zero (the point is on the edge or vertex).
WPNB_FN vec3f pseudo_normal(const mesh_t& m, int32 f, float32 wa, float32 wb, float32 eps) {
    const float32 w[3] = {wa, wb, 1.0f - wa - wb};
    int32 verts[3];
    int32 nv = 0;
    for (int k = 0; k < 3; ++k)
        if (w[k] > eps) verts[nv++] = m.indices[3 * f + k];
    if (nv >= 3 || nv == 0) return face_normal(m, f);
    // every face sharing the feature has the feature's vertices in its box: search around them
    vec3f lo = m.points[verts[0]], hi = lo;
    for (int q = 1; q < nv; ++q) {
        const vec3f& pq = m.points[verts[q]];
        for (int k = 0; k < 3; ++k) { lo.c[k] = fmin(lo.c[k], pq.c[k]); hi.c[k] = fmax(hi.c[k], pq.c[k]); }
    }
    const float32 r = 1e-6f * (m.average_edge_length + 1.0f);
    lo = sub3(lo, v3(r, r, r));
    hi = add3(hi, v3(r, r, r));
    vec3f sum = v3(0.0f, 0.0f, 0.0f);
    int32 stack[kStack];
    int32 top = 0;
    stack[top++] = 0;
    while (top > 0) {
        const bvh_node_t& n = m.bvh.nodes[stack[--top]];
        if (!box_overlap(n, lo, hi)) continue;
        if (n.count > 0) {
            for (int32 k = n.start; k < n.start + n.count; ++k) {
                const int32 g = m.bvh.items[k];
                const int32* ix = m.indices + 3 * g;
                int32 slot0 = -1, hits = 0;
                for (int s = 0; s < 3; ++s) {
                    for (int q = 0; q < nv; ++q) {
                        if (ix[s] == verts[q]) { ++hits; if (q == 0) slot0 = s; }
                    }
                }
                if (hits < nv) continue;
                const vec3f ng = face_normal(m, g);
                if (nv == 2) {
                    sum = add3(sum, ng);
                } else {
                    const vec3f p0 = m.points[ix[slot0]], p1 = m.points[ix[(slot0 + 1) % 3]], p2 = m.points[ix[(slot0 + 2) % 3]];
                    sum = add3(sum, scale3(ng, corner_angle(p0, p1, p2)));
                }
            }
        } else if (top + 2 <= kStack) {
            stack[top++] = n.start;
            stack[top++] = n.start + 1;
        }
    }
    return dot3(sum, sum) > 0.0f ? sum : face_normal(m, f);
}

WPNB_FN mesh_query_point_t no_hit() {
    mesh_query_point_t r;
    r.result = false; r.sign = 0.0f; r.face = -1; r.u = 0.0f; r.v = 0.0f;
    return r;
}
}  // namespace geo

// ---- closest-point queries ----

// Closest point on the mesh within max_dist, without inside/outside (sign is 0).
WPNB_FN mesh_query_point_t mesh_query_point_no_sign(uint64 id, const vec3f& point, float32 max_dist) {
    const mesh_t& m = mesh_of(id);
    mesh_query_point_t r = geo::no_hit();
    int32 region;
    r.result = geo::closest_face(m, point, max_dist, r.face, r.u, r.v, region);
    if (!r.result) r.face = -1;
    return r;
}

// Closest point; sign by a majority vote of three axis-aligned rays (watertight meshes).
WPNB_FN mesh_query_point_t mesh_query_point(uint64 id, const vec3f& point, float32 max_dist) {
    mesh_query_point_t r = mesh_query_point_no_sign(id, point, max_dist);
    if (r.result) r.sign = geo::inside_by_rays(mesh_of(id), point) ? -1.0f : 1.0f;
    return r;
}

// Closest point; sign from the angle-weighted pseudo-normal at the closest point (watertight,
// non-self-intersecting meshes). epsilon: barycentric weight under which the point counts as on
// an edge or vertex. A point on the surface (p - closest point orthogonal to the normal, or zero)
// counts as inside, as in Warp (warp-lang 1.19: -1 for points on faces, edges and vertices).
WPNB_FN mesh_query_point_t mesh_query_point_sign_normal(uint64 id, const vec3f& point, float32 max_dist,
                                                        float32 epsilon) {
    mesh_query_point_t r = mesh_query_point_no_sign(id, point, max_dist);
    if (r.result) {
        const mesh_t& m = mesh_of(id);
        vec3f a, b, c;
        geo::tri(m, r.face, a, b, c);
        const vec3f cp = geo::lerp_tri(a, b, c, r.u, r.v);
        const vec3f n = geo::pseudo_normal(m, r.face, r.u, r.v, epsilon);
        r.sign = geo::dot3(geo::sub3(point, cp), n) > 0.0f ? 1.0f : -1.0f;
    }
    return r;
}
WPNB_FN mesh_query_point_t mesh_query_point_sign_normal(uint64 id, const vec3f& point, float32 max_dist) {
    return mesh_query_point_sign_normal(id, point, max_dist, 1e-3f);
}

// Closest point; inside where the generalised winding number exceeds threshold (robust for
// open or messy meshes). Meshes built without support_winding_number use the ray vote.
WPNB_FN mesh_query_point_t mesh_query_point_sign_winding_number(uint64 id, const vec3f& point, float32 max_dist,
                                                                float32 accuracy, float32 threshold) {
    mesh_query_point_t r = mesh_query_point_no_sign(id, point, max_dist);
    if (r.result) {
        const mesh_t& m = mesh_of(id);
        const bool inside = m.dipoles ? geo::winding_number(m, point, accuracy) > threshold : geo::inside_by_rays(m, point);
        r.sign = inside ? -1.0f : 1.0f;
    }
    return r;
}
WPNB_FN mesh_query_point_t mesh_query_point_sign_winding_number(uint64 id, const vec3f& point, float32 max_dist) {
    return mesh_query_point_sign_winding_number(id, point, max_dist, 2.0f, 0.5f);
}

namespace geo {
// Shared adjoint of the closest-point queries: d(u, v)/d(point) at the face and region found.
WPNB_FN void adj_closest(uint64 id, const vec3f& point, float32 max_dist, vec3f& adj_point,
                         const mesh_query_point_t& adj_ret) {
    const mesh_t& m = mesh_of(id);
    int32 face, region;
    float32 wa, wb;
    if (!closest_face(m, point, max_dist, face, wa, wb, region)) return;
    vec3f a, b, c, dwa, dwb;
    tri(m, face, a, b, c);
    closest_on_triangle_grad(a, b, c, region, dwa, dwb);
    adj_point = add3(adj_point, add3(scale3(dwa, adj_ret.u), scale3(dwb, adj_ret.v)));
}
}  // namespace geo

WPNB_FN void adj_mesh_query_point_no_sign(uint64 id, const vec3f& point, float32 max_dist, uint64&, vec3f& adj_point,
                                          float32&, const mesh_query_point_t& adj_ret) {
    geo::adj_closest(id, point, max_dist, adj_point, adj_ret);
}
WPNB_FN void adj_mesh_query_point(uint64 id, const vec3f& point, float32 max_dist, uint64&, vec3f& adj_point,
                                  float32&, const mesh_query_point_t& adj_ret) {
    geo::adj_closest(id, point, max_dist, adj_point, adj_ret);
}
WPNB_FN void adj_mesh_query_point_sign_normal(uint64 id, const vec3f& point, float32 max_dist, float32, uint64&,
                                              vec3f& adj_point, float32&, float32&, const mesh_query_point_t& adj_ret) {
    geo::adj_closest(id, point, max_dist, adj_point, adj_ret);
}
WPNB_FN void adj_mesh_query_point_sign_normal(uint64 id, const vec3f& point, float32 max_dist, uint64&,
                                              vec3f& adj_point, float32&, const mesh_query_point_t& adj_ret) {
    geo::adj_closest(id, point, max_dist, adj_point, adj_ret);
}
WPNB_FN void adj_mesh_query_point_sign_winding_number(uint64 id, const vec3f& point, float32 max_dist, float32,
                                                      float32, uint64&, vec3f& adj_point, float32&, float32&,
                                                      float32&, const mesh_query_point_t& adj_ret) {
    geo::adj_closest(id, point, max_dist, adj_point, adj_ret);
}
WPNB_FN void adj_mesh_query_point_sign_winding_number(uint64 id, const vec3f& point, float32 max_dist, uint64&,
                                                      vec3f& adj_point, float32&, const mesh_query_point_t& adj_ret) {
    geo::adj_closest(id, point, max_dist, adj_point, adj_ret);
}

// ---- ray casts ----

// The closest hit of start + t * dir with 0 <= t < max_t.
WPNB_FN mesh_query_ray_t mesh_query_ray(uint64 id, const vec3f& start, const vec3f& dir, float32 max_t,
                                        int32 root) {
    const mesh_t& m = mesh_of(id);
    mesh_query_ray_t r;
    r.result = false; r.sign = 0.0f; r.face = -1; r.t = 0.0f; r.u = 0.0f; r.v = 0.0f;
    r.normal = geo::v3(0.0f, 0.0f, 0.0f);
    if (geo::ray_cast(m, start, dir, max_t, r.face, r.t, r.u, r.v, root)) {
        r.result = true;
        r.normal = geo::face_normal(m, r.face);
        r.sign = geo::dot3(dir, r.normal) < 0.0f ? 1.0f : -1.0f;
    } else {
        r.face = -1;
    }
    return r;
}
WPNB_FN mesh_query_ray_t mesh_query_ray(uint64 id, const vec3f& start, const vec3f& dir, float32 max_t) {
    return mesh_query_ray(id, start, dir, max_t, -1);
}

namespace geo {
// Adjoint of the hit distance t = n.(p0 - start) / n.dir (u, v and the normal are held fixed).
WPNB_FN void adj_ray(uint64 id, const vec3f& start, const vec3f& dir, float32 max_t, int32 root, vec3f& adj_start,
                     vec3f& adj_dir, const mesh_query_ray_t& adj_ret) {
    const mesh_query_ray_t r = mesh_query_ray(id, start, dir, max_t, root);
    if (!r.result) return;
    const float32 nd = dot3(r.normal, dir);
    if (nd == 0.0f) return;
    const float32 g = adj_ret.t / nd;
    adj_start = sub3(adj_start, scale3(r.normal, g));
    adj_dir = sub3(adj_dir, scale3(r.normal, g * r.t));
}
}  // namespace geo

WPNB_FN void adj_mesh_query_ray(uint64 id, const vec3f& start, const vec3f& dir, float32 max_t, uint64&,
                                vec3f& adj_start, vec3f& adj_dir, float32&, const mesh_query_ray_t& adj_ret) {
    geo::adj_ray(id, start, dir, max_t, -1, adj_start, adj_dir, adj_ret);
}
WPNB_FN void adj_mesh_query_ray(uint64 id, const vec3f& start, const vec3f& dir, float32 max_t, int32 root, uint64&,
                                vec3f& adj_start, vec3f& adj_dir, float32&, int32&, const mesh_query_ray_t& adj_ret) {
    geo::adj_ray(id, start, dir, max_t, root, adj_start, adj_dir, adj_ret);
}

// ---- evaluation on faces ----

// Position on face `face` at barycentric (bary_u, bary_v).
WPNB_FN vec3f mesh_eval_position(uint64 id, int32 face, float32 bary_u, float32 bary_v) {
    const mesh_t& m = mesh_of(id);
    vec3f a, b, c;
    geo::tri(m, face, a, b, c);
    return geo::lerp_tri(a, b, c, bary_u, bary_v);
}
WPNB_FN void adj_mesh_eval_position(uint64 id, int32 face, float32 bary_u, float32 bary_v, uint64&, int32&,
                                    float32& adj_u, float32& adj_v, const vec3f& adj_ret) {
    const mesh_t& m = mesh_of(id);
    vec3f a, b, c;
    geo::tri(m, face, a, b, c);
    (void)bary_u; (void)bary_v;
    adj_u += geo::dot3(geo::sub3(a, c), adj_ret);
    adj_v += geo::dot3(geo::sub3(b, c), adj_ret);
}

// Velocity on a face at (bary_u, bary_v), from the mesh's velocities (zero without them).
WPNB_FN vec3f mesh_eval_velocity(uint64 id, int32 face, float32 bary_u, float32 bary_v) {
    const mesh_t& m = mesh_of(id);
    if (!m.velocities) return geo::v3(0.0f, 0.0f, 0.0f);
    const int32* ix = m.indices + 3 * face;
    return geo::lerp_tri(m.velocities[ix[0]], m.velocities[ix[1]], m.velocities[ix[2]], bary_u, bary_v);
}
WPNB_FN void adj_mesh_eval_velocity(uint64 id, int32 face, float32, float32, uint64&, int32&, float32& adj_u,
                                    float32& adj_v, const vec3f& adj_ret) {
    const mesh_t& m = mesh_of(id);
    if (!m.velocities) return;
    const int32* ix = m.indices + 3 * face;
    const vec3f a = m.velocities[ix[0]], b = m.velocities[ix[1]], c = m.velocities[ix[2]];
    adj_u += geo::dot3(geo::sub3(a, c), adj_ret);
    adj_v += geo::dot3(geo::sub3(b, c), adj_ret);
}

// Unit normal of a face ((p1 - p0) x (p2 - p0), normalised).
WPNB_FN vec3f mesh_eval_face_normal(uint64 id, int32 face) { return geo::face_normal(mesh_of(id), face); }

// Point `index` of the mesh.
WPNB_FN vec3f mesh_get_point(uint64 id, int32 index) { return mesh_of(id).points[index]; }

// Velocity of point `index` (zero without velocities).
WPNB_FN vec3f mesh_get_velocity(uint64 id, int32 index) {
    const mesh_t& m = mesh_of(id);
    return m.velocities ? m.velocities[index] : geo::v3(0.0f, 0.0f, 0.0f);
}

// Entry `index` of the flattened index buffer (face index / 3, corner index % 3).
WPNB_FN int32 mesh_get_index(uint64 id, int32 index) { return mesh_of(id).indices[index]; }

}  // namespace wpnb
