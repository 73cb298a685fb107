// bvh.h: the kernel side of wp.Bvh and of every wp.Mesh's tree: the node layout that the
// builder (runtime/geometry.cpp) writes, small float3 helpers shared by the geometry headers,
// and the bvh_query_aabb / _ray / _sphere / _capsule iterators. A wp.Bvh's `id` is the address of a bvh_t
// owned by the Python object; kernels cast it back with bvh_of(id).
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"

namespace wpnb {

// One tree node (32 bytes). Inner node: count == 0, children at `start` and `start + 1`.
// Leaf: `count` items, their indices at items[start .. start + count).
struct bvh_node_t {
    float32 lower[3];
    int32 start;
    float32 upper[3];
    int32 count;
};

// A tree over item bounds. For a wp.Bvh, item k's box is lowers[k]..uppers[k]; a mesh's tree
// reads its triangles instead (lowers/uppers are null).
struct bvh_t {
    const bvh_node_t* nodes;  // root at 0
    const int32* items;       // leaf item indices
    const vec3f* lowers;
    const vec3f* uppers;
    int32 num_nodes;
    int32 num_items;
    const int32* group_ids;    // grouped trees: the group ids, sorted, and the root node of each
    const int32* group_roots;
    int32 num_groups;          // 0: not grouped
    int32 pad;
};

WPNB_FN const bvh_t& bvh_of(uint64 id) { return *(const bvh_t*)id; }

// The root node of a group's subtree in a grouped tree (a binary search of its ids); -1 when the
// tree has no such group.
WPNB_FN int32 bvh_group_root(const bvh_t& b, int32 group) {
    int32 lo = 0, hi = b.num_groups - 1;
    while (lo <= hi) {
        const int32 mid = (lo + hi) / 2;
        const int32 g = b.group_ids[mid];
        if (g == group) return b.group_roots[mid];
        if (g < group) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

// The root of `group` in the wp.Bvh `id` built with groups (start a query there to see that
// group only); -1 if the group is absent.
WPNB_FN int32 bvh_get_group_root(uint64 id, int32 group) { return bvh_group_root(bvh_of(id), group); }

namespace geo {
const int kStack = 96;  // traversal stack; the builder keeps trees shallower than this
WPNB_FN float32 fmin(float32 a, float32 b) { return a < b ? a : b; }
WPNB_FN float32 fmax(float32 a, float32 b) { return a > b ? a : b; }
WPNB_FN vec3f v3(float32 x, float32 y, float32 z) { vec3f r; r.c[0] = x; r.c[1] = y; r.c[2] = z; return r; }
WPNB_FN vec3f sub3(const vec3f& a, const vec3f& b) { return v3(a.c[0] - b.c[0], a.c[1] - b.c[1], a.c[2] - b.c[2]); }
WPNB_FN vec3f add3(const vec3f& a, const vec3f& b) { return v3(a.c[0] + b.c[0], a.c[1] + b.c[1], a.c[2] + b.c[2]); }
WPNB_FN vec3f scale3(const vec3f& a, float32 s) { return v3(a.c[0] * s, a.c[1] * s, a.c[2] * s); }
WPNB_FN float32 dot3(const vec3f& a, const vec3f& b) { return a.c[0] * b.c[0] + a.c[1] * b.c[1] + a.c[2] * b.c[2]; }
WPNB_FN vec3f cross3(const vec3f& a, const vec3f& b) {
    return v3(a.c[1] * b.c[2] - a.c[2] * b.c[1], a.c[2] * b.c[0] - a.c[0] * b.c[2], a.c[0] * b.c[1] - a.c[1] * b.c[0]);
}
WPNB_FN float32 len3(const vec3f& a) { return ::sqrtf(dot3(a, a)); }
WPNB_FN vec3f normalize3(const vec3f& a) {
    const float32 l = len3(a);
    return l > 0.0f ? scale3(a, 1.0f / l) : v3(0.0f, 0.0f, 0.0f);
}

// Squared distance from p to the node's box (0 inside).
WPNB_FN float32 box_dist2(const bvh_node_t& n, const vec3f& p) {
    float32 d2 = 0.0f;
    for (int a = 0; a < 3; ++a) {
        const float32 d = fmax(fmax(n.lower[a] - p.c[a], p.c[a] - n.upper[a]), 0.0f);
        d2 += d * d;
    }
    return d2;
}

// Whether the node's box overlaps [lo, hi].
WPNB_FN bool box_overlap(const bvh_node_t& n, const vec3f& lo, const vec3f& hi) {
    return !(n.lower[0] > hi.c[0] || n.lower[1] > hi.c[1] || n.lower[2] > hi.c[2] ||
             n.upper[0] < lo.c[0] || n.upper[1] < lo.c[1] || n.upper[2] < lo.c[2]);
}

// Slab test of a ray (origin o, inverse direction inv) against the node's box: the entry
// distance, or a negative value when it misses or enters beyond max_t.
WPNB_FN float32 box_ray(const float32 lower[3], const float32 upper[3], const vec3f& o, const vec3f& inv,
                        float32 max_t) {
    float32 t0 = 0.0f, t1 = max_t;
    for (int a = 0; a < 3; ++a) {
        if (inv.c[a] >= 1e30f || inv.c[a] <= -1e30f) {
            // a ray parallel to this slab: inside it for every t, or never (an origin on the slab's
            // face is inside; the product below would give 0 * 1e30 = 0 and clip t to 0)
            if (o.c[a] < lower[a] || o.c[a] > upper[a]) return -1.0f;
            continue;
        }
        float32 ta = (lower[a] - o.c[a]) * inv.c[a];
        float32 tb = (upper[a] - o.c[a]) * inv.c[a];
        if (ta > tb) { const float32 t = ta; ta = tb; tb = t; }
        // NaN (0 * inf on a slab boundary) keeps the previous bound
        t0 = ta > t0 ? ta : t0;
        t1 = tb < t1 ? tb : t1;
    }
    return t0 <= t1 ? t0 : -1.0f;
}

// 1/d per component, with a huge value for zero components (keeps the slab test finite).
WPNB_FN vec3f safe_inverse(const vec3f& d) {
    vec3f r;
    for (int a = 0; a < 3; ++a) {
        const float32 x = d.c[a];
        r.c[a] = (x > 1e-30f || x < -1e-30f) ? 1.0f / x : (x < 0.0f ? -1e30f : 1e30f);
    }
    return r;
}
}  // namespace geo

// ---- bvh_query_aabb / _ray / _sphere / _capsule: iterate items whose boxes a shape touches ----

// The kinds of bvh query; one query type holds any of them (Warp's erased BvhQuery), so a
// variable may take either branch of an `if`, and bvh_query_next dispatches on `kind`.
enum { kBvhAabb = 0, kBvhRay = 1, kBvhSphere = 2, kBvhCapsule = 3 };

// The state of a query loop over a tree: the shape, a DFS stack and the leaf being read.
struct bvh_query_t {
    const bvh_t* bvh;
    vec3f a, b;        // aabb: lower, upper; ray / capsule: origin, inverse direction; sphere: centre
    float32 radius;    // sphere and capsule
    int32 kind;
    int32 top;         // stack size
    int32 cur, end;    // items of the current leaf still to visit
    int32 stack[geo::kStack];
};

namespace geo {
WPNB_FN bvh_query_t bvh_query_start(uint64 id, int32 kind, const vec3f& a, const vec3f& b, float32 radius,
                                    int32 root) {
    bvh_query_t q;
    q.bvh = &bvh_of(id);
    q.a = a; q.b = b; q.radius = radius; q.kind = kind;
    q.cur = q.end = 0;
    q.top = q.bvh->num_nodes > 0 ? 1 : 0;
    // root >= 0: a subtree (a group's root); -1 (or out of range): the whole tree
    q.stack[0] = (root >= 0 && root < q.bvh->num_nodes) ? root : 0;
    return q;
}
}  // namespace geo

// Items of the wp.Bvh `id` whose boxes overlap [low, high]; iterate with bvh_query_next.
WPNB_FN bvh_query_t bvh_query_aabb(uint64 id, const vec3f& low, const vec3f& high, int32 root) {
    return geo::bvh_query_start(id, kBvhAabb, low, high, 0.0f, root);
}
WPNB_FN bvh_query_t bvh_query_aabb(uint64 id, const vec3f& low, const vec3f& high) {
    return bvh_query_aabb(id, low, high, -1);
}

// Items whose boxes the ray start + t dir passes through for 0 <= t (<= max_dist given to
// bvh_query_next).
WPNB_FN bvh_query_t bvh_query_ray(uint64 id, const vec3f& start, const vec3f& dir, int32 root) {
    return geo::bvh_query_start(id, kBvhRay, start, geo::safe_inverse(dir), 0.0f, root);
}
WPNB_FN bvh_query_t bvh_query_ray(uint64 id, const vec3f& start, const vec3f& dir) {
    return bvh_query_ray(id, start, dir, -1);
}

// Items whose boxes come within `radius` of `center` (squared distance to the box <= radius^2;
// radius 0 finds the boxes containing the point).
WPNB_FN bvh_query_t bvh_query_sphere(uint64 id, const vec3f& center, float32 radius, int32 root) {
    return geo::bvh_query_start(id, kBvhSphere, center, center, radius, root);
}
WPNB_FN bvh_query_t bvh_query_sphere(uint64 id, const vec3f& center, float32 radius) {
    return bvh_query_sphere(id, center, radius, -1);
}

// Items whose boxes, grown by `radius` on every side, the segment start + t dir meets for
// 0 <= t <= max_dist (given to bvh_query_next; unbounded without it). Conservative: a grown box
// also holds points up to radius * sqrt(3) away near its corners.
WPNB_FN bvh_query_t bvh_query_capsule(uint64 id, const vec3f& start, const vec3f& dir, float32 radius,
                                      int32 root) {
    return geo::bvh_query_start(id, kBvhCapsule, start, geo::safe_inverse(dir), radius, root);
}
WPNB_FN bvh_query_t bvh_query_capsule(uint64 id, const vec3f& start, const vec3f& dir, float32 radius) {
    return bvh_query_capsule(id, start, dir, radius, -1);
}

namespace geo {
// Whether the box [lo, hi] passes the query's test; max_t bounds rays and capsules.
WPNB_FN bool bvh_box_hit(const bvh_query_t& q, const float32 lo[3], const float32 hi[3], float32 max_t) {
    switch (q.kind) {
    case kBvhRay:
        return box_ray(lo, hi, q.a, q.b, max_t) >= 0.0f;
    case kBvhSphere: {
        float32 d2 = 0.0f;
        for (int a = 0; a < 3; ++a) {
            const float32 d = fmax(fmax(lo[a] - q.a.c[a], q.a.c[a] - hi[a]), 0.0f);
            d2 += d * d;
        }
        return d2 <= q.radius * q.radius;
    }
    case kBvhCapsule: {
        const float32 r = q.radius;
        const float32 glo[3] = {lo[0] - r, lo[1] - r, lo[2] - r};
        const float32 ghi[3] = {hi[0] + r, hi[1] + r, hi[2] + r};
        return box_ray(glo, ghi, q.a, q.b, max_t) >= 0.0f;
    }
    default:
        return !(lo[0] > q.b.c[0] || lo[1] > q.b.c[1] || lo[2] > q.b.c[2] ||
                 hi[0] < q.a.c[0] || hi[1] < q.a.c[1] || hi[2] < q.a.c[2]);
    }
}
}  // namespace geo

// Advance a bvh query: the next item's index in `index`; false when done. max_dist bounds the
// ray parameter t of ray and capsule queries (other kinds ignore it).
WPNB_FN bool bvh_query_next(bvh_query_t& q, int32& index, float32 max_dist) {
    const bvh_t& b = *q.bvh;
    for (;;) {
        while (q.cur < q.end) {
            const int32 k = b.items[q.cur++];
            if (geo::bvh_box_hit(q, b.lowers[k].c, b.uppers[k].c, max_dist)) { index = k; return true; }
        }
        if (q.top == 0) return false;
        const bvh_node_t& n = b.nodes[q.stack[--q.top]];
        if (!geo::bvh_box_hit(q, n.lower, n.upper, max_dist)) continue;
        if (n.count > 0) {
            q.cur = n.start;
            q.end = n.start + n.count;
        } else if (q.top + 2 <= geo::kStack) {
            q.stack[q.top++] = n.start + 1;
            q.stack[q.top++] = n.start;
        }
    }
}
WPNB_FN bool bvh_query_next(bvh_query_t& q, int32& index) { return bvh_query_next(q, index, 1e30f); }

}  // namespace wpnb
