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
#include "geometry/bvh.h"
#include "geometry/mesh.h"
#include "geometry/hash_grid.h"
#include "geometry/volume.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
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

// 4-wide float vectors (GCC/clang vector extensions, portable across targets); lane 3 unused.
typedef float v4 __attribute__((vector_size(16)));
inline v4 vmin(v4 a, v4 b) { return a < b ? a : b; }
inline v4 vmax(v4 a, v4 b) { return a > b ? a : b; }

struct VBox {
    v4 lo, hi;
    void reset() {
        lo = v4{INFINITY, INFINITY, INFINITY, INFINITY};
        hi = v4{-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    }
    void grow(v4 l, v4 h) { lo = vmin(lo, l); hi = vmax(hi, h); }
    void grow(const VBox& b) { grow(b.lo, b.hi); }
    float area() const {
        const v4 d = hi - lo;
        if (!(d[0] >= 0.0f)) return 0.0f;
        return d[0] * d[1] + d[1] * d[2] + d[2] * d[0];
    }
};

// An item while building: its box and index (32 bytes, moved by the partitions so that every
// pass reads memory in order). Centroids are used doubled (lo + hi).
struct Prim {
    v4 lo;  // lane 3: unused
    v4 hi;  // lane 3: unused
    int32_t id() const { return tag(lo); }
    static int32_t tag(v4 v) { int32_t i; std::memcpy(&i, (const char*)&v + 12, 4); return i; }
    void set(const float* l, const float* h, int32_t index) {
        lo = v4{l[0], l[1], l[2], 0.0f};
        hi = v4{h[0], h[1], h[2], 0.0f};
        std::memcpy((char*)&lo + 12, &index, 4);
    }
};

struct Builder {
    Prim* prims;
    bvh_node_t* nodes;
    int leaf_size;
    int parallel_depth;
    std::atomic_int next_node{1};

    int alloc_pair() { return next_node.fetch_add(2); }

    static void bounds_of(const Prim* p, int n, VBox& b, VBox& cb) {
        b.reset();
        cb.reset();
        for (int i = 0; i < n; ++i) {
            b.grow(p[i].lo, p[i].hi);
            const v4 c = p[i].lo + p[i].hi;
            cb.grow(c, c);
        }
    }

    // Object median along `axis`: returns the split and the two halves' bounds.
    int median(int begin, int end, int axis, VBox* cbox, VBox* ccbox) {
        const int m = (begin + end) / 2;
        std::nth_element(prims + begin, prims + m, prims + end, [axis](const Prim& a, const Prim& b) {
            return a.lo[axis] + a.hi[axis] < b.lo[axis] + b.hi[axis];
        });
        bounds_of(prims + begin, m - begin, cbox[0], ccbox[0]);
        bounds_of(prims + m, end - m, cbox[1], ccbox[1]);
        return m;
    }

    // Split prims[begin, end) (box b, centroid box cb): the split position and the children's
    // boxes, or -1 for a leaf.
    int split(int begin, int end, const VBox& b, const VBox& cb, int depth, VBox* cbox, VBox* ccbox) {
        const v4 ext3 = cb.hi - cb.lo;
        int axis = 0;
        float ext = ext3[0];
        if (ext3[1] > ext) { ext = ext3[1]; axis = 1; }
        if (ext3[2] > ext) { ext = ext3[2]; axis = 2; }
        const int n = end - begin;
        if (!(ext > 0.0f)) return n <= leaf_size ? -1 : median(begin, end, axis, cbox, ccbox);
        if (depth > kMaxDepth - 8) return median(begin, end, axis, cbox, ccbox);
        VBox bins[kBins], cbins[kBins];
        int counts[kBins] = {0};
        for (int k = 0; k < kBins; ++k) { bins[k].reset(); cbins[k].reset(); }
        const float lo = cb.lo[axis];
        const float scale = kBins / ext * 0.99999f;
        for (int i = begin; i < end; ++i) {
            const Prim& p = prims[i];
            const v4 c = p.lo + p.hi;
            int k = int((c[axis] - lo) * scale);
            k = k < 0 ? 0 : (k >= kBins ? kBins - 1 : k);
            counts[k]++;
            bins[k].grow(p.lo, p.hi);
            cbins[k].grow(c, c);
        }
        float right_area[kBins];
        int right_count[kBins];
        VBox acc;
        acc.reset();
        int c = 0;
        for (int k = kBins - 1; k > 0; --k) {
            acc.grow(bins[k]);
            c += counts[k];
            right_area[k] = acc.area();
            right_count[k] = c;
        }
        acc.reset();
        c = 0;
        float best = INFINITY;
        int best_k = -1;
        for (int k = 0; k < kBins - 1; ++k) {
            acc.grow(bins[k]);
            c += counts[k];
            if (c == 0 || right_count[k + 1] == 0) continue;
            const float cost = acc.area() * c + right_area[k + 1] * right_count[k + 1];
            if (cost < best) { best = cost; best_k = k; }
        }
        if (best_k < 0) return median(begin, end, axis, cbox, ccbox);
        // a leaf is cheaper than any split: keep it (SAH with unit traversal and intersection costs)
        if (n <= leaf_size && best >= b.area() * (n - 1)) return -1;
        Prim* mid = std::partition(prims + begin, prims + end, [=](const Prim& p) {
            int k = int((p.lo[axis] + p.hi[axis] - lo) * scale);
            k = k < 0 ? 0 : (k >= kBins ? kBins - 1 : k);
            return k <= best_k;
        });
        const int m = int(mid - prims);
        if (m == begin || m == end) return median(begin, end, axis, cbox, ccbox);
        for (int side = 0; side < 2; ++side) {
            cbox[side].reset();
            ccbox[side].reset();
        }
        for (int k = 0; k < kBins; ++k) {
            const int side = k <= best_k ? 0 : 1;
            if (!counts[k]) continue;
            cbox[side].grow(bins[k]);
            ccbox[side].grow(cbins[k]);
        }
        return m;
    }

    void build(int node_index, int begin, int end, const VBox& b, const VBox& cb, int depth) {
        bvh_node_t& node = nodes[node_index];
        for (int a = 0; a < 3; ++a) { node.lower[a] = b.lo[a]; node.upper[a] = b.hi[a]; }
        const int n = end - begin;
        VBox cbox[2], ccbox[2];
        const int mid = n > 1 ? split(begin, end, b, cb, depth, cbox, ccbox) : -1;
        if (mid < 0) {
            node.start = begin;
            node.count = n;
            return;
        }
        const int child = alloc_pair();
        node.start = child;
        node.count = 0;
        if (depth < parallel_depth && n > 20000) {
            std::thread t([=] { build(child, begin, mid, cbox[0], ccbox[0], depth + 1); });
            build(child + 1, mid, end, cbox[1], ccbox[1], depth + 1);
            t.join();
        } else {
            build(child, begin, mid, cbox[0], ccbox[0], depth + 1);
            build(child + 1, mid, end, cbox[1], ccbox[1], depth + 1);
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

// Build a tree over prims (filled by the caller); writes nodes and items, returns the node count.
int32_t build_prims(std::vector<Prim>& prims, int32_t leaf_size, bvh_node_t* nodes, int32_t* items, int t) {
    const int32_t n = int32_t(prims.size());
    if (n <= 0) return 0;
    Builder b;
    b.prims = prims.data();
    b.nodes = nodes;
    b.leaf_size = std::max(1, int(leaf_size));
    b.parallel_depth = t <= 1 ? 0 : (t <= 2 ? 1 : (t <= 4 ? 2 : (t <= 8 ? 3 : 4)));
    VBox box, cbox;
    box.reset();
    cbox.reset();
    // root bounds, in parallel chunks
    std::vector<VBox> part(t), cpart(t);
    for (int k = 0; k < t; ++k) { part[k].reset(); cpart[k].reset(); }
    parallel_for(n, t, [&](int64_t s, int64_t e) {
        VBox pb, pc;
        Builder::bounds_of(prims.data() + s, int(e - s), pb, pc);
        const int slot = int(s * t / std::max<int64_t>(n, 1));
        part[slot] = pb;
        cpart[slot] = pc;
    });
    for (int k = 0; k < t; ++k) { box.grow(part[k]); cbox.grow(cpart[k]); }
    b.build(0, 0, n, box, cbox, 0);
    parallel_for(n, t, [&](int64_t s, int64_t e) {
        for (int64_t i = s; i < e; ++i) items[i] = prims[i].id();
    });
    return b.next_node.load();
}

// The message of the last failed build on this thread (an exception must not cross the C ABI
// into ctypes: it would terminate the process, and with it the notebook).
thread_local std::string last_error;

template <class F>
int32_t reporting_failure(F&& build) {
    try {
        return build();
    } catch (const std::exception& e) {
        last_error = e.what();
    } catch (...) {
        last_error = "unknown native error";
    }
    return 0;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) const char* wpnb_geometry_last_error() { return last_error.c_str(); }

// Build a tree over n item boxes (lo/hi: n x 3 floats). nodes must hold 2n - 1 entries, items n.
// Returns the number of nodes written (0 when the build failed: see wpnb_geometry_last_error).
__attribute__((visibility("default"))) int32_t wpnb_bvh_build(const float* lo, const float* hi, int32_t n,
                                                               int32_t leaf_size, bvh_node_t* nodes, int32_t* items,
                                                               int32_t threads) {
    if (n <= 0) return 0;
    return reporting_failure([&]() -> int32_t {
        const int t = thread_count(threads);
        std::vector<Prim> prims(n);
        parallel_for(n, t, [&](int64_t s, int64_t e) {
            for (int64_t k = s; k < e; ++k) {
                prims[k].set(lo + 3 * k, hi + 3 * k, int32_t(k));
            }
        });
        return build_prims(prims, leaf_size, nodes, items, t);
    });
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
    return reporting_failure([&]() -> int32_t {
        const int t = thread_count(threads);
        std::vector<Prim> prims(num_tris);
        std::vector<double> edge_sums(t, 0.0);
        parallel_for(num_tris, t, [&](int64_t s, int64_t e) {
            double edge = 0.0;
            for (int64_t f = s; f < e; ++f) {
                const float* p[3] = {pts + 3 * idx[3 * f], pts + 3 * idx[3 * f + 1], pts + 3 * idx[3 * f + 2]};
                float l[3], h[3];
                for (int a = 0; a < 3; ++a) {
                    l[a] = std::min(p[0][a], std::min(p[1][a], p[2][a]));
                    h[a] = std::max(p[0][a], std::max(p[1][a], p[2][a]));
                }
                prims[f].set(l, h, int32_t(f));
                for (int k = 0; k < 3; ++k) {
                    const float* a = p[k];
                    const float* c = p[(k + 1) % 3];
                    const float dx = a[0] - c[0], dy = a[1] - c[1], dz = a[2] - c[2];
                    edge += std::sqrt(dx * dx + dy * dy + dz * dz);
                }
            }
            edge_sums[int(s * t / std::max<int64_t>(num_tris, 1))] += edge;
        });
        double edge = 0.0;
        for (double x : edge_sums) edge += x;
        *avg_edge = num_tris > 0 ? float(edge / (3.0 * num_tris)) : 0.0f;
        return build_prims(prims, leaf_size, nodes, items, t);
    });
}

// Each triangle's box (lo/hi: num_tris x 3 floats): the mesh's tree seen as a wp.Bvh.
__attribute__((visibility("default"))) void wpnb_triangle_bounds(const float* pts, const int32_t* idx, int32_t num_tris,
                                                                  float* lo, float* hi, int32_t threads) {
    triangle_bounds(pts, idx, num_tris, lo, hi, thread_count(threads));
}

// The vertices of each tree item in tree order (9 floats per triangle), for fast leaf tests.
__attribute__((visibility("default"))) void wpnb_mesh_soup(const float* pts, const int32_t* idx, const int32_t* items,
                                                            int32_t num_tris, float* soup, int32_t threads) {
    parallel_for(num_tris, thread_count(threads), [&](int64_t s, int64_t e) {
        for (int64_t k = s; k < e; ++k) {
            const int32_t f = items[k];
            for (int v = 0; v < 3; ++v) {
                const float* p = pts + 3 * idx[3 * f + v];
                soup[9 * k + 3 * v] = p[0];
                soup[9 * k + 3 * v + 1] = p[1];
                soup[9 * k + 3 * v + 2] = p[2];
            }
        }
    });
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
// cell_starts/cell_ends (one per cell) the ranges, empty cells start == end. Returns -1.
__attribute__((visibility("default"))) int32_t wpnb_hash_grid_build(const char* points, int64_t stride, int32_t n,
                                                                     float cell_width_inv, int32_t dx, int32_t dy,
                                                                     int32_t dz, int32_t* point_ids,
                                                                     int32_t* cell_starts, int32_t* cell_ends,
                                                                     int32_t threads) {
    const int64_t cells = int64_t(dx) * dy * dz;
    const float inv = cell_width_inv;  // exactly the value kernels use
    std::vector<int32_t> key(n);
    const int t = thread_count(threads);
    // non-finite coordinates are allowed, as in Warp: NaN goes to cell 0, infinities to the edge cells
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
    return -1;
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
    out[4] = sizeof(wpnb::mesh_t);
}
