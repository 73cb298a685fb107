// geometry.cpp: the CPU builders behind wp.Mesh, wp.Bvh, wp.HashGrid and wp.Volume. Compiled
// once per machine and loaded with ctypes (warp_nb/geometry/native.py), like cpu_runtime.cpp.
// It writes the layouts the kernel-side headers read (bvh.h, hash_grid.h, volume.h are included
// here so both sides share one definition); all memory that outlives a call is allocated by
// Python (numpy) and passed in. CPU only, so it may use the C++ standard library.
//
// The tree builder is bvh_builder.cpp; parallel loops run on the CPU runtime's thread pool
// (host_parallel.cpp). Refit is a parallel pass over the leaves, then one bottom-up sweep over
// the inner nodes (children always have higher indices than their parent).
#include "geometry/bvh.h"
#include "geometry/mesh.h"
#include "geometry/hash_grid.h"
#include "geometry/volume.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "runtime/host_parallel.cpp"
#include "runtime/bvh_builder.cpp"

namespace {

struct Box {
    float lo[3], hi[3];
    void reset() {
        for (int a = 0; a < 3; ++a) { lo[a] = INFINITY; hi[a] = -INFINITY; }
    }
    void grow(const float* l, const float* h) {
        for (int a = 0; a < 3; ++a) { lo[a] = std::min(lo[a], l[a]); hi[a] = std::max(hi[a], h[a]); }
    }
};

int thread_count(int requested) {
    int hw = int(std::thread::hardware_concurrency());
    if (hw <= 0) hw = 1;
    return requested > 0 ? std::min(requested, hw) : hw;
}

// The box of triangle f (its three points' min and max).
inline void triangle_box(const float* pts, const int32_t* idx, int64_t f, float* l, float* h) {
    const float* p[3] = {pts + 3 * idx[3 * f], pts + 3 * idx[3 * f + 1], pts + 3 * idx[3 * f + 2]};
    for (int a = 0; a < 3; ++a) {
        l[a] = std::min(p[0][a], std::min(p[1][a], p[2][a]));
        h[a] = std::max(p[0][a], std::max(p[1][a], p[2][a]));
    }
}

// The vertices of tree items [begin, end) in tree order (9 floats per triangle), for fast leaf tests.
void soup_range(const float* pts, const int32_t* idx, const int32_t* items, int64_t begin, int64_t end, float* soup) {
    for (int64_t k = begin; k < end; ++k) {
        const int32_t f = items[k];
        for (int v = 0; v < 3; ++v) std::memcpy(soup + 9 * k + 3 * v, pts + 3 * idx[3 * f + v], 3 * sizeof(float));
    }
}

void triangle_soup(const float* pts, const int32_t* idx, const int32_t* items, int32_t n, float* soup, int threads) {
    parallel_for(n, threads, [&](int64_t s, int64_t e) { soup_range(pts, idx, items, s, e, soup); });
}

// Every inner node's box from its children's, in one backward sweep (children have higher indices).
void refit_inner(bvh_node_t* nodes, int32_t num_nodes) {
    for (int32_t i = num_nodes - 1; i >= 0; --i) {
        bvh_node_t& n = nodes[i];
        if (n.count > 0) continue;
        const bvh_node_t& l = nodes[n.start];
        const bvh_node_t& r = nodes[n.start + 1];
        for (int a = 0; a < 3; ++a) {
            n.lower[a] = std::min(l.lower[a], r.lower[a]);
            n.upper[a] = std::max(l.upper[a], r.upper[a]);
        }
    }
}

// Item storage for a build: not zeroed (every entry is written before it is read).
std::unique_ptr<Prim[]> make_prims(int32_t n) { return std::unique_ptr<Prim[]>(new Prim[size_t(n)]); }

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
        const int t = build_threads(n, thread_count(threads));
        std::unique_ptr<Prim[]> prims = make_prims(n);
        VBox box, cbox;
        fill_prims(prims.get(), n, t, box, cbox,
                   [&](int64_t k, Prim& p) { p.set(lo + 3 * k, hi + 3 * k, int32_t(k)); });
        return build_prims(prims.get(), n, leaf_size, nodes, items, t, box, cbox, [](int32_t, int32_t) {});
    });
}

// Recompute every node's box from its items' boxes: the leaves in parallel, then the inner nodes
// in one backward sweep (children first: they have higher indices).
__attribute__((visibility("default"))) void wpnb_bvh_refit(bvh_node_t* nodes, int32_t num_nodes, const int32_t* items,
                                                            const float* lo, const float* hi, int32_t threads) {
    parallel_for(num_nodes, build_threads(num_nodes, thread_count(threads)), [&](int64_t s, int64_t e) {
        for (int64_t i = s; i < e; ++i) {
            bvh_node_t& n = nodes[i];
            if (n.count == 0) continue;
            Box b;
            b.reset();
            for (int32_t k = n.start; k < n.start + n.count; ++k) b.grow(lo + 3 * items[k], hi + 3 * items[k]);
            for (int a = 0; a < 3; ++a) { n.lower[a] = b.lo[a]; n.upper[a] = b.hi[a]; }
        }
    });
    refit_inner(nodes, num_nodes);
}

// A mesh's tree from points (3 floats each) and indices (3 per triangle), in one call: the
// triangles' boxes into face_lo/face_hi (num_tris x 3: the tree seen as a wp.Bvh), the tree into
// nodes (2 num_tris - 1 room) and items, the triangles in tree order into soup (9 floats each),
// the mean edge length into *avg_edge. Returns the node count (0 when the build failed).
__attribute__((visibility("default"))) int32_t wpnb_mesh_build(const float* pts, const int32_t* idx, int32_t num_tris,
                                                                int32_t leaf_size, bvh_node_t* nodes, int32_t* items,
                                                                float* face_lo, float* face_hi, float* soup,
                                                                float* avg_edge, int32_t threads) {
    if (num_tris <= 0) return 0;
    return reporting_failure([&]() -> int32_t {
        const int t = build_threads(num_tris, thread_count(threads));
        std::unique_ptr<Prim[]> prims = make_prims(num_tris);
        std::vector<double> edge_sums(size_t(chunk_count(num_tris, t)), 0.0);
        const int64_t grain = loop_grain(num_tris, t);
        VBox box, cbox;
        fill_prims(prims.get(), num_tris, t, box, cbox, [&](int64_t f, Prim& prim) {
            float* l = face_lo + 3 * f;
            float* h = face_hi + 3 * f;
            triangle_box(pts, idx, f, l, h);
            prim.set(l, h, int32_t(f));
            const float* p[3] = {pts + 3 * idx[3 * f], pts + 3 * idx[3 * f + 1], pts + 3 * idx[3 * f + 2]};
            double edge = 0.0;
            for (int k = 0; k < 3; ++k) {
                const float* a = p[k];
                const float* c = p[(k + 1) % 3];
                const float dx = a[0] - c[0], dy = a[1] - c[1], dz = a[2] - c[2];
                edge += std::sqrt(dx * dx + dy * dy + dz * dz);
            }
            edge_sums[size_t(f / grain)] += edge;  // one slot per chunk: no two threads share one
        });
        double edge = 0.0;
        for (double x : edge_sums) edge += x;
        *avg_edge = float(edge / (3.0 * num_tris));
        // the soup of each subtree is written by the task that built it
        return build_prims(prims.get(), num_tris, leaf_size, nodes, items, t, box, cbox,
                           [&](int32_t begin, int32_t end) { soup_range(pts, idx, items, begin, end, soup); });
    });
}

// The vertices of each tree item in tree order (9 floats per triangle), for fast leaf tests (a
// grouped tree's items, after wpnb_mesh_build's own).
__attribute__((visibility("default"))) void wpnb_mesh_soup(const float* pts, const int32_t* idx, const int32_t* items,
                                                            int32_t num_tris, float* soup, int32_t threads) {
    triangle_soup(pts, idx, items, num_tris, soup, thread_count(threads));
}

// Refit a mesh's tree after its points moved: the triangles' boxes (face_lo/face_hi), the soup
// in tree order, the nodes' boxes; with dipoles (8 floats per node), also the winding-number
// data: area-weighted centre, area-weighted normal (half the cross product), radius around the
// centre, area.
__attribute__((visibility("default"))) void wpnb_mesh_refit(const float* pts, const int32_t* idx, int32_t num_tris,
                                                             bvh_node_t* nodes, int32_t num_nodes, const int32_t* items,
                                                             float* face_lo, float* face_hi, float* soup,
                                                             float* dipoles, int32_t threads) {
    const int t = build_threads(num_tris, thread_count(threads));
    // one pass over the leaves: their triangles into the soup (tree order), each triangle's box
    // from the points just copied, the leaf's box; then the inner nodes
    parallel_for(num_nodes, t, [&](int64_t s, int64_t e) {
        for (int64_t i = s; i < e; ++i) {
            bvh_node_t& n = nodes[i];
            if (n.count == 0) continue;
            Box b;
            b.reset();
            for (int32_t k = n.start; k < n.start + n.count; ++k) {
                const int32_t f = items[k];
                float* v = soup + 9 * int64_t(k);
                for (int c = 0; c < 3; ++c) std::memcpy(v + 3 * c, pts + 3 * idx[3 * f + c], 3 * sizeof(float));
                float* l = face_lo + 3 * int64_t(f);
                float* h = face_hi + 3 * int64_t(f);
                for (int a = 0; a < 3; ++a) {
                    l[a] = std::min(v[a], std::min(v[3 + a], v[6 + a]));
                    h[a] = std::max(v[a], std::max(v[3 + a], v[6 + a]));
                }
                b.grow(l, h);
            }
            for (int a = 0; a < 3; ++a) { n.lower[a] = b.lo[a]; n.upper[a] = b.hi[a]; }
        }
    });
    refit_inner(nodes, num_nodes);
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
