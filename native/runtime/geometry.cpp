// geometry.cpp: the CPU builders behind wp.Mesh, wp.Bvh, wp.HashGrid and wp.Volume. Compiled
// once per machine and loaded with ctypes (warp_nb/geometry/native.py), like cpu_runtime.cpp.
// It writes the layouts the kernel-side headers read (bvh.h, hash_grid.h, volume.h are included
// here so both sides share one definition); all memory is allocated by Python (numpy) and
// passed in. CPU only, so it may use the C++ standard library.
//
// BVH: top-down binned SAH (16 bins on the longest centroid axis), children built in parallel
// on std::threads near the root; a median split when SAH finds nothing better or the tree
// gets deep, so traversal stacks stay bounded. Refit is one bottom-up sweep (children always
// have higher indices than their parent).
#include "bvh.h"
#include "hash_grid.h"
#include "volume.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

using wpnb::bvh_node_t;

namespace {

struct Box {
    float lo[3], hi[3];
    void reset() {
        for (int a = 0; a < 3; ++a) { lo[a] = INFINITY; hi[a] = -INFINITY; }
    }
    void grow(const float* l, const float* h) {
        for (int a = 0; a < 3; ++a) { lo[a] = std::min(lo[a], l[a]); hi[a] = std::max(hi[a], h[a]); }
    }
    void grow_point(const float* p) { grow(p, p); }
    float area() const {
        const float dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
        if (!(dx >= 0.0f)) return 0.0f;
        return dx * dy + dy * dz + dz * dx;
    }
};

const int kBins = 16;
const int kMaxDepth = 60;  // well under the traversal stack of bvh.h

struct Builder {
    const float* lo;   // item bounds, 3 floats each
    const float* hi;
    std::vector<float> cen;  // centroids
    int32_t* items;    // item order (output)
    bvh_node_t* nodes;
    int leaf_size;
    int parallel_depth;
    std::atomic_int next_node{1};

    int alloc_pair() { return next_node.fetch_add(2); }

    void set_bounds(bvh_node_t& n, int begin, int end) {
        Box b;
        b.reset();
        for (int i = begin; i < end; ++i) {
            const int k = items[i];
            b.grow(lo + 3 * k, hi + 3 * k);
        }
        for (int a = 0; a < 3; ++a) { n.lower[a] = b.lo[a]; n.upper[a] = b.hi[a]; }
    }

    // Split items[begin, end): returns the split position (begin < mid < end).
    int split(int begin, int end, const bvh_node_t& node, int depth) {
        Box cb;
        cb.reset();
        for (int i = begin; i < end; ++i) cb.grow_point(&cen[3 * items[i]]);
        int axis = 0;
        float ext = cb.hi[0] - cb.lo[0];
        for (int a = 1; a < 3; ++a)
            if (cb.hi[a] - cb.lo[a] > ext) { ext = cb.hi[a] - cb.lo[a]; axis = a; }
        const int n = end - begin;
        if (!(ext > 0.0f) || depth > kMaxDepth - 8) return median(begin, end, axis);
        Box bins[kBins];
        int counts[kBins] = {0};
        for (int b = 0; b < kBins; ++b) bins[b].reset();
        const float scale = kBins / ext * 0.99999f;
        for (int i = begin; i < end; ++i) {
            const int k = items[i];
            int b = int((cen[3 * k + axis] - cb.lo[axis]) * scale);
            b = std::min(std::max(b, 0), kBins - 1);
            counts[b]++;
            bins[b].grow(lo + 3 * k, hi + 3 * k);
        }
        float right_area[kBins];
        int right_count[kBins];
        Box acc;
        acc.reset();
        int c = 0;
        for (int b = kBins - 1; b > 0; --b) {
            acc.grow(bins[b].lo, bins[b].hi);
            c += counts[b];
            right_area[b] = acc.area();
            right_count[b] = c;
        }
        acc.reset();
        c = 0;
        float best = INFINITY;
        int best_b = -1;
        for (int b = 0; b < kBins - 1; ++b) {
            acc.grow(bins[b].lo, bins[b].hi);
            c += counts[b];
            if (c == 0 || right_count[b + 1] == 0) continue;
            const float cost = acc.area() * c + right_area[b + 1] * right_count[b + 1];
            if (cost < best) { best = cost; best_b = b; }
        }
        if (best_b < 0) return median(begin, end, axis);
        Box nb;
        for (int a = 0; a < 3; ++a) { nb.lo[a] = node.lower[a]; nb.hi[a] = node.upper[a]; }
        // a leaf is cheaper than any split: keep it (SAH with unit traversal/intersection costs)
        if (n <= leaf_size && best >= nb.area() * (n - 1)) return -1;
        int* mid = std::partition(items + begin, items + end, [&](int k) {
            int b = int((cen[3 * k + axis] - cb.lo[axis]) * scale);
            b = std::min(std::max(b, 0), kBins - 1);
            return b <= best_b;
        });
        const int m = int(mid - items);
        if (m == begin || m == end) return median(begin, end, axis);
        return m;
    }

    int median(int begin, int end, int axis) {
        const int m = (begin + end) / 2;
        std::nth_element(items + begin, items + m, items + end,
                         [&](int a, int b) { return cen[3 * a + axis] < cen[3 * b + axis]; });
        return m;
    }

    void build(int node_index, int begin, int end, int depth) {
        bvh_node_t& node = nodes[node_index];
        set_bounds(node, begin, end);
        const int n = end - begin;
        int mid = -1;
        if (n > 1) mid = split(begin, end, node, depth);
        if (mid < 0 || (n <= leaf_size && n <= 1)) {
            node.start = begin;
            node.count = n;
            return;
        }
        const int child = alloc_pair();
        node.start = child;
        node.count = 0;
        if (depth < parallel_depth && n > 20000) {
            std::thread t([=] { build(child, begin, mid, depth + 1); });
            build(child + 1, mid, end, depth + 1);
            t.join();
        } else {
            build(child, begin, mid, depth + 1);
            build(child + 1, mid, end, depth + 1);
        }
    }
};

int thread_count(int requested) {
    int hw = int(std::thread::hardware_concurrency());
    if (hw <= 0) hw = 1;
    return requested > 0 ? std::min(requested, hw) : hw;
}

template <typename F> void parallel_for(int64_t n, int threads, F fn) {
    threads = int(std::min<int64_t>(threads, std::max<int64_t>(1, n / 4096)));
    if (threads <= 1) { fn(0, n); return; }
    std::vector<std::thread> pool;
    const int64_t chunk = (n + threads - 1) / threads;
    for (int t = 1; t < threads; ++t) {
        const int64_t b = t * chunk, e = std::min(n, b + chunk);
        if (b < e) pool.emplace_back([=] { fn(b, e); });
    }
    fn(0, std::min(n, chunk));
    for (auto& th : pool) th.join();
}

// Bounds and centroids of triangles.
void triangle_bounds(const float* pts, const int32_t* idx, int32_t n, float* lo, float* hi, int threads) {
    parallel_for(n, threads, [&](int64_t b, int64_t e) {
        for (int64_t f = b; f < e; ++f) {
            const float* p[3] = {pts + 3 * idx[3 * f], pts + 3 * idx[3 * f + 1], pts + 3 * idx[3 * f + 2]};
            for (int a = 0; a < 3; ++a) {
                lo[3 * f + a] = std::min(p[0][a], std::min(p[1][a], p[2][a]));
                hi[3 * f + a] = std::max(p[0][a], std::max(p[1][a], p[2][a]));
            }
        }
    });
}

}  // namespace

extern "C" {

// Build a tree over n item boxes (lo/hi: n x 3 floats). nodes must hold 2n - 1 entries, items n.
// Returns the number of nodes written.
__attribute__((visibility("default"))) int32_t wpnb_bvh_build(const float* lo, const float* hi, int32_t n,
                                                               int32_t leaf_size, bvh_node_t* nodes, int32_t* items,
                                                               int32_t threads) {
    if (n <= 0) return 0;
    Builder b;
    b.lo = lo; b.hi = hi; b.items = items; b.nodes = nodes;
    b.leaf_size = std::max(1, leaf_size);
    const int t = thread_count(threads);
    b.parallel_depth = t <= 1 ? 0 : (t <= 2 ? 1 : (t <= 4 ? 2 : (t <= 8 ? 3 : 4)));
    b.cen.resize(size_t(n) * 3);
    parallel_for(n, t, [&](int64_t s, int64_t e) {
        for (int64_t k = s; k < e; ++k) {
            items[k] = int32_t(k);
            for (int a = 0; a < 3; ++a) b.cen[3 * k + a] = 0.5f * (lo[3 * k + a] + hi[3 * k + a]);
        }
    });
    b.build(0, 0, n, 0);
    return b.next_node.load();
}

// Recompute every node's box from its items' boxes (children first: they have higher indices).
__attribute__((visibility("default"))) void wpnb_bvh_refit(bvh_node_t* nodes, int32_t num_nodes, const int32_t* items,
                                                            const float* lo, const float* hi) {
    for (int32_t i = num_nodes - 1; i >= 0; --i) {
        bvh_node_t& n = nodes[i];
        Box b;
        b.reset();
        if (n.count > 0) {
            for (int32_t k = n.start; k < n.start + n.count; ++k) b.grow(lo + 3 * items[k], hi + 3 * items[k]);
        } else {
            const bvh_node_t& l = nodes[n.start];
            const bvh_node_t& r = nodes[n.start + 1];
            b.grow(l.lower, l.upper);
            b.grow(r.lower, r.upper);
        }
        for (int a = 0; a < 3; ++a) { n.lower[a] = b.lo[a]; n.upper[a] = b.hi[a]; }
    }
}

// A mesh's tree: triangle boxes from points (3 floats each) and indices (3 per triangle).
// Returns the node count; *avg_edge receives the mean edge length.
__attribute__((visibility("default"))) int32_t wpnb_mesh_build(const float* pts, const int32_t* idx, int32_t num_tris,
                                                                int32_t leaf_size, bvh_node_t* nodes, int32_t* items,
                                                                float* avg_edge, int32_t threads) {
    std::vector<float> lo(size_t(num_tris) * 3), hi(size_t(num_tris) * 3);
    const int t = thread_count(threads);
    triangle_bounds(pts, idx, num_tris, lo.data(), hi.data(), t);
    double edge = 0.0;
    for (int32_t f = 0; f < num_tris; ++f) {
        const float* p[3] = {pts + 3 * idx[3 * f], pts + 3 * idx[3 * f + 1], pts + 3 * idx[3 * f + 2]};
        for (int e = 0; e < 3; ++e) {
            const float* a = p[e];
            const float* c = p[(e + 1) % 3];
            const float dx = a[0] - c[0], dy = a[1] - c[1], dz = a[2] - c[2];
            edge += std::sqrt(double(dx * dx + dy * dy + dz * dz));
        }
    }
    *avg_edge = num_tris > 0 ? float(edge / (3.0 * num_tris)) : 0.0f;
    return wpnb_bvh_build(lo.data(), hi.data(), num_tris, leaf_size, nodes, items, t);
}

// Refit a mesh's tree after its points moved; with dipoles (8 floats per node), also the
// winding-number data: area-weighted centre, area-weighted normal (half the cross product),
// radius around the centre, area.
__attribute__((visibility("default"))) void wpnb_mesh_refit(const float* pts, const int32_t* idx, int32_t num_tris,
                                                             bvh_node_t* nodes, int32_t num_nodes, const int32_t* items,
                                                             float* dipoles, int32_t threads) {
    std::vector<float> lo(size_t(num_tris) * 3), hi(size_t(num_tris) * 3);
    triangle_bounds(pts, idx, num_tris, lo.data(), hi.data(), thread_count(threads));
    wpnb_bvh_refit(nodes, num_nodes, items, lo.data(), hi.data());
    if (!dipoles) return;
    for (int32_t i = num_nodes - 1; i >= 0; --i) {
        const bvh_node_t& n = nodes[i];
        float* d = dipoles + 8 * i;
        double c[3] = {0, 0, 0}, nn[3] = {0, 0, 0}, area = 0;
        if (n.count > 0) {
            for (int32_t k = n.start; k < n.start + n.count; ++k) {
                const int32_t f = items[k];
                const float* a = pts + 3 * idx[3 * f];
                const float* b = pts + 3 * idx[3 * f + 1];
                const float* cc = pts + 3 * idx[3 * f + 2];
                const double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
                const double e2[3] = {cc[0] - a[0], cc[1] - a[1], cc[2] - a[2]};
                const double cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                                      e1[0] * e2[1] - e1[1] * e2[0]};
                const double ar = 0.5 * std::sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
                for (int q = 0; q < 3; ++q) {
                    nn[q] += 0.5 * cr[q];
                    c[q] += ar * (a[q] + b[q] + cc[q]) / 3.0;
                }
                area += ar;
            }
            for (int q = 0; q < 3; ++q) c[q] = area > 0 ? c[q] / area : 0.5 * (n.lower[q] + n.upper[q]);
            double r = 0;
            for (int32_t k = n.start; k < n.start + n.count; ++k) {
                for (int v = 0; v < 3; ++v) {
                    const float* p = pts + 3 * idx[3 * items[k] + v];
                    const double dx = p[0] - c[0], dy = p[1] - c[1], dz = p[2] - c[2];
                    r = std::max(r, std::sqrt(dx * dx + dy * dy + dz * dz));
                }
            }
            d[6] = float(r);
        } else {
            const float* l = dipoles + 8 * n.start;
            const float* rr = dipoles + 8 * (n.start + 1);
            area = double(l[7]) + double(rr[7]);
            for (int q = 0; q < 3; ++q) {
                nn[q] = double(l[3 + q]) + rr[3 + q];
                c[q] = area > 0 ? (double(l[q]) * l[7] + double(rr[q]) * rr[7]) / area : 0.5 * (l[q] + rr[q]);
            }
            double r = 0;
            for (const float* ch : {l, rr}) {
                const double dx = ch[0] - c[0], dy = ch[1] - c[1], dz = ch[2] - c[2];
                r = std::max(r, std::sqrt(dx * dx + dy * dy + dz * dz) + ch[6]);
            }
            d[6] = float(r);
        }
        for (int q = 0; q < 3; ++q) { d[q] = float(c[q]); d[3 + q] = float(nn[q]); }
        d[7] = float(area);
    }
}

// Hash grid: sort n points (stride in bytes) into cells of size 1 / cell_width_inv, hashed onto a
// dim_x * dim_y * dim_z table. point_ids (n) receives point indices in cell order;
// cell_starts/cell_ends (one per cell) the ranges, empty cells start == end.
__attribute__((visibility("default"))) void wpnb_hash_grid_build(const char* points, int64_t stride, int32_t n,
                                                                  float cell_width_inv, int32_t dx, int32_t dy, int32_t dz,
                                                                  int32_t* point_ids, int32_t* cell_starts,
                                                                  int32_t* cell_ends, int32_t threads) {
    const int64_t cells = int64_t(dx) * dy * dz;
    const float inv = cell_width_inv;  // exactly the value kernels use
    std::vector<int32_t> key(n);
    const int t = thread_count(threads);
    parallel_for(n, t, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
            const float* p = (const float*)(points + i * stride);
            key[i] = wpnb::hash_grid_cell(p[0], p[1], p[2], inv, dx, dy, dz);
        }
    });
    std::fill(cell_ends, cell_ends + cells, 0);
    for (int32_t i = 0; i < n; ++i) cell_ends[key[i]]++;  // counts
    int32_t run = 0;
    for (int64_t c = 0; c < cells; ++c) {
        const int32_t cnt = cell_ends[c];
        cell_starts[c] = run;
        run += cnt;
        cell_ends[c] = cell_starts[c];  // becomes the end while scattering
    }
    for (int32_t i = 0; i < n; ++i) point_ids[cell_ends[key[i]]++] = i;
}

// Volume: fill an open-addressing table (capacity a power of two) mapping n packed tile keys
// (see volume.h) to values 0..n-1.
__attribute__((visibility("default"))) int32_t wpnb_volume_table_build(const int32_t* coords, int32_t n, int32_t shift,
                                                                        wpnb::uint64* keys, int32_t* values,
                                                                        int32_t log2_capacity) {
    const wpnb::uint64 cap = wpnb::uint64(1) << log2_capacity;
    for (wpnb::uint64 s = 0; s < cap; ++s) keys[s] = ~wpnb::uint64(0);
    for (int32_t i = 0; i < n; ++i) {
        const wpnb::uint64 key = wpnb::volume_key(coords[3 * i] >> shift, coords[3 * i + 1] >> shift,
                                                  coords[3 * i + 2] >> shift);
        wpnb::uint64 s = wpnb::volume_hash(key, 64 - log2_capacity);
        for (wpnb::uint64 probe = 0;; ++probe) {
            if (probe >= cap) return -1;
            if (keys[s] == ~wpnb::uint64(0)) { keys[s] = key; values[s] = i; break; }
            if (keys[s] == key) return -2;  // duplicate
            s = (s + 1) & (cap - 1);
        }
    }
    return 0;
}

}  // extern "C"

// Sizes of the shared descriptors, checked by Python against its ctypes mirrors.
extern "C" __attribute__((visibility("default"))) void wpnb_geometry_sizes(int64_t* out) {
    out[0] = sizeof(wpnb::bvh_t);
    out[1] = sizeof(wpnb::hash_grid_t);
    out[2] = sizeof(wpnb::volume_t);
    out[3] = sizeof(wpnb::bvh_node_t);
}
