// bvh_builder.cpp (included by geometry.cpp after host_parallel.cpp): the tree builder behind
// wp.Bvh and wp.Mesh, writing the node layout of geometry/bvh.h.
//
// Top-down binned SAH: a node's items are binned by their centroids (16 bins along the longest
// axis of the centroid box), the split of least surface-area cost is taken and the items are
// partitioned in place; a median split when SAH finds nothing better or the tree gets deep, so
// traversal stacks stay bounded.
//
// Two phases, so that the tree is the same node for node whatever the number of threads:
//  1. the top of the tree is split on the calling thread (large nodes' binning passes in parallel
//     chunks) until every open node holds at most `subtree_items` items: these are the subtrees;
//  2. the subtrees are built at once on the pool, each into its own range of the node array
//     (a subtree of m items has at most 2m - 2 nodes below its root), and the ranges are then
//     closed up. The node array comes out dense, children always after their parent (refit
//     sweeps it backwards), each subtree's nodes together (what a query walks stays in cache).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

using wpnb::bvh_node_t;

const int kBins = 16;
const int kSmall = 16;  // nodes up to this many items are split by an exact SAH sweep, not by bins
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
    // half the surface area (the factor cancels in every comparison)
    float area() const {
        const v4 d = hi - lo;
        if (!(d[0] >= 0.0f)) return 0.0f;
        return d[0] * d[1] + d[1] * d[2] + d[2] * d[0];
    }
};

// An item while building: its box and index (32 bytes, moved by the partitions so that every
// pass reads memory in order). Centroids are used doubled (lo + hi).
struct Prim {
    v4 lo;  // lane 3: the item's index (its bits)
    v4 hi;  // lane 3: unused
    int32_t id() const { int32_t i; std::memcpy(&i, (const char*)&lo + 12, 4); return i; }
    void set(const float* l, const float* h, int32_t index) {
        lo = v4{l[0], l[1], l[2], 0.0f};
        hi = v4{h[0], h[1], h[2], 0.0f};
        std::memcpy((char*)&lo + 12, &index, 4);
    }
};

// Item boxes and centroid boxes gathered per bin.
struct Bins {
    VBox box[kBins], cbox[kBins];
    int32_t count[kBins];
    void reset() {
        for (int k = 0; k < kBins; ++k) { box[k].reset(); cbox[k].reset(); count[k] = 0; }
    }
    void merge(const Bins& o) {
        for (int k = 0; k < kBins; ++k) { box[k].grow(o.box[k]); cbox[k].grow(o.cbox[k]); count[k] += o.count[k]; }
    }
};

// Where items go: bin = (centroid - lo) * scale along one axis, clamped.
struct Binning {
    int axis;
    float lo, scale;
    int of(const Prim& p) const {
        const int k = int((p.lo[axis] + p.hi[axis] - lo) * scale);
        return k < 0 ? 0 : (k >= kBins ? kBins - 1 : k);
    }
};

// Bin p[0, n). Neighbouring items of a mesh usually fall into the same bin, and one set of bins
// would chain each update to the previous one through memory: past a few hundred items, even and
// odd items fill two sets.
void bin_items(const Prim* p, int64_t n, const Binning& bn, Bins& out) {
    out.reset();
    if (n < 256) {
        for (int64_t i = 0; i < n; ++i) {
            const int k = bn.of(p[i]);
            const v4 c = p[i].lo + p[i].hi;
            out.count[k]++;
            out.box[k].grow(p[i].lo, p[i].hi);
            out.cbox[k].grow(c, c);
        }
        return;
    }
    Bins other;
    other.reset();
    Bins* sets[2] = {&out, &other};
    for (int64_t i = 0; i < n; ++i) {
        Bins& b = *sets[i & 1];
        const int k = bn.of(p[i]);
        const v4 c = p[i].lo + p[i].hi;
        b.count[k]++;
        b.box[k].grow(p[i].lo, p[i].hi);
        b.cbox[k].grow(c, c);
    }
    out.merge(other);
}

// Box and centroid box of p[0, n).
void bounds_of(const Prim* p, int64_t n, VBox& b, VBox& cb) {
    b.reset();
    cb.reset();
    for (int64_t i = 0; i < n; ++i) {
        b.grow(p[i].lo, p[i].hi);
        const v4 c = p[i].lo + p[i].hi;
        cb.grow(c, c);
    }
}

// A node's split: mid < 0 makes it a leaf; else items [begin, mid) and [mid, end) with their
// boxes and centroid boxes.
struct Split {
    int32_t mid;
    VBox box[2], cbox[2];
};

struct Tree {
    Prim* prims;
    bvh_node_t* nodes;
    int leaf_size;

    // Object median along `axis`.
    void median(int32_t begin, int32_t end, int axis, Split& s) const {
        const int32_t m = begin + (end - begin) / 2;
        std::nth_element(prims + begin, prims + m, prims + end, [axis](const Prim& a, const Prim& b) {
            return a.lo[axis] + a.hi[axis] < b.lo[axis] + b.hi[axis];
        });
        bounds_of(prims + begin, m - begin, s.box[0], s.cbox[0]);
        bounds_of(prims + m, end - m, s.box[1], s.cbox[1]);
        s.mid = m;
    }

    // A small node: items sorted by centroid along `axis`, every split position's SAH cost from
    // prefix and suffix boxes (the exact SAH split on that axis; bins would cost more than the items).
    void sweep(int32_t begin, int32_t end, const VBox& b, int axis, Split& s) const {
        Prim* p = prims + begin;
        const int32_t n = end - begin;
        for (int32_t i = 1; i < n; ++i) {  // insertion sort: n <= kSmall
            const Prim x = p[i];
            const float key = x.lo[axis] + x.hi[axis];
            int32_t j = i - 1;
            for (; j >= 0 && p[j].lo[axis] + p[j].hi[axis] > key; --j) p[j + 1] = p[j];
            p[j + 1] = x;
        }
        float right_area[kSmall];
        VBox acc;
        acc.reset();
        for (int32_t i = n - 1; i > 0; --i) {
            acc.grow(p[i].lo, p[i].hi);
            right_area[i] = acc.area();
        }
        acc.reset();
        float best = INFINITY;
        int32_t best_i = 1;
        for (int32_t i = 1; i < n; ++i) {
            acc.grow(p[i - 1].lo, p[i - 1].hi);
            const float cost = acc.area() * i + right_area[i] * (n - i);
            if (cost < best) { best = cost; best_i = i; }
        }
        if (n <= leaf_size && best >= b.area() * (n - 1)) return;  // a leaf is cheaper than any split
        bounds_of(p, best_i, s.box[0], s.cbox[0]);
        bounds_of(p + best_i, n - best_i, s.box[1], s.cbox[1]);
        s.mid = begin + best_i;
    }

    // Split prims[begin, end) (box b, centroid box cb). threads > 1: bin in parallel chunks.
    void split(int32_t begin, int32_t end, const VBox& b, const VBox& cb, int depth, int threads, Split& s) const {
        const v4 ext3 = cb.hi - cb.lo;
        int axis = 0;
        float ext = ext3[0];
        if (ext3[1] > ext) { ext = ext3[1]; axis = 1; }
        if (ext3[2] > ext) { ext = ext3[2]; axis = 2; }
        const int32_t n = end - begin;
        s.mid = -1;
        if (!(ext > 0.0f)) {
            if (n > leaf_size) median(begin, end, axis, s);
            return;
        }
        if (depth > kMaxDepth - 8) return median(begin, end, axis, s);
        if (n <= kSmall) return sweep(begin, end, b, axis, s);
        const Binning bn{axis, cb.lo[axis], kBins / ext * 0.99999f};
        Bins bins;
        if (threads > 1 && n >= (1 << 18)) {  // (each parallel pass is a barrier: only near the root)
            const int64_t grain = (n + 4 * threads - 1) / (4 * threads);
            std::vector<Bins> part(size_t((n + grain - 1) / grain));
            parallel_chunks(n, grain, threads, [&](int64_t s0, int64_t e0) {
                bin_items(prims + begin + s0, e0 - s0, bn, part[size_t(s0 / grain)]);
            });
            bins = part[0];
            for (size_t k = 1; k < part.size(); ++k) bins.merge(part[k]);
        } else {
            bin_items(prims + begin, n, bn, bins);
        }
        // sweep: cost of each of the kBins - 1 splits (unit traversal and intersection costs)
        float right_area[kBins];
        int32_t right_count[kBins];
        VBox acc;
        acc.reset();
        int32_t c = 0;
        for (int k = kBins - 1; k > 0; --k) {
            acc.grow(bins.box[k]);
            c += bins.count[k];
            right_area[k] = acc.area();
            right_count[k] = c;
        }
        acc.reset();
        c = 0;
        float best = INFINITY;
        int best_k = -1;
        for (int k = 0; k < kBins - 1; ++k) {
            acc.grow(bins.box[k]);
            c += bins.count[k];
            if (c == 0 || right_count[k + 1] == 0) continue;
            const float cost = acc.area() * c + right_area[k + 1] * right_count[k + 1];
            if (cost < best) { best = cost; best_k = k; }
        }
        if (best_k < 0) return median(begin, end, axis, s);
        // a leaf is cheaper than any split: keep it
        if (n <= leaf_size && best >= b.area() * (n - 1)) return;
        Prim* mid = std::partition(prims + begin, prims + end, [&](const Prim& p) { return bn.of(p) <= best_k; });
        const int32_t m = int32_t(mid - prims);
        if (m == begin || m == end) return median(begin, end, axis, s);
        for (int side = 0; side < 2; ++side) { s.box[side].reset(); s.cbox[side].reset(); }
        for (int k = 0; k < kBins; ++k) {
            if (!bins.count[k]) continue;
            const int side = k <= best_k ? 0 : 1;
            s.box[side].grow(bins.box[k]);
            s.cbox[side].grow(bins.cbox[k]);
        }
        s.mid = m;
    }

    // Fill node `index` (its box, and leaf or child pair) and return the split.
    void set_node(int32_t index, int32_t begin, const VBox& b, const Split& s, int32_t n, int32_t child) const {
        bvh_node_t& node = nodes[index];
        for (int a = 0; a < 3; ++a) { node.lower[a] = b.lo[a]; node.upper[a] = b.hi[a]; }
        node.start = s.mid < 0 ? begin : child;
        node.count = s.mid < 0 ? n : 0;
    }

    // Build the subtree of prims[begin, end) at node `index`; child pairs come from *next.
    void build(int32_t index, int32_t begin, int32_t end, const VBox& b, const VBox& cb, int depth,
               int32_t* next) const {
        const int32_t n = end - begin;
        Split s;
        s.mid = -1;
        if (n > 1) split(begin, end, b, cb, depth, 1, s);
        const int32_t child = s.mid < 0 ? 0 : *next;
        if (s.mid >= 0) *next += 2;
        set_node(index, begin, b, s, n, child);
        if (s.mid < 0) return;
        build(child, begin, s.mid, s.box[0], s.cbox[0], depth + 1, next);
        build(child + 1, s.mid, end, s.box[1], s.cbox[1], depth + 1, next);
    }
};

// A subtree left for phase 2: its root node (already allocated), items and boxes.
struct Subtree {
    int32_t node, begin, end, depth;
    VBox box, cbox;
    int32_t base, used;  // its node range: first index, nodes written there
};

// Items below this count are built on the calling thread alone: the parallel gain is a
// millisecond at most, and on a busy machine a helper descheduled inside a chunk holds up the
// end of a pass for longer than that.
const int32_t kParallelItems = 1 << 16;

// The threads a build of n items uses.
int build_threads(int32_t n, int requested) { return n < kParallelItems ? 1 : requested; }

// Fill prims[0, n) with fill(k, prim) in parallel chunks and return the root's box and
// centroid box, gathered in the same pass.
template <class Fill> void fill_prims(Prim* prims, int32_t n, int t, VBox& box, VBox& cbox, const Fill& fill) {
    std::vector<VBox> part(size_t(chunk_count(n, t) * 2));
    for (VBox& v : part) v.reset();  // slots no chunk fills stay empty
    const int64_t grain = loop_grain(n, t);
    parallel_for(n, t, [&](int64_t s, int64_t e) {
        for (int64_t k = s; k < e; ++k) fill(k, prims[k]);
        const size_t slot = size_t(s / grain) * 2;
        bounds_of(prims + s, e - s, part[slot], part[slot + 1]);
    });
    box.reset();
    cbox.reset();
    for (size_t k = 0; k < part.size(); k += 2) {
        box.grow(part[k]);
        cbox.grow(part[k + 1]);
    }
}

// Build a tree over prims (filled by fill_prims, with the root's boxes); writes nodes (2n - 1
// room) and items (n), and calls finish(begin, end) once for each range of item positions as
// soon as its items are final (in the pool's tasks: per-item work that follows the build, such
// as a mesh's triangle soup, needs no pass of its own). Returns the node count.
template <class Finish>
int32_t build_prims(Prim* prims, int32_t n, int32_t leaf_size, bvh_node_t* nodes, int32_t* items, int t,
                    const VBox& box, const VBox& cbox, const Finish& finish) {
    if (n <= 0) return 0;
    const Tree tree{prims, nodes, std::max(1, int(leaf_size))};
    auto close_range = [&](int32_t begin, int32_t end) {
        for (int32_t i = begin; i < end; ++i) items[i] = prims[i].id();
        finish(begin, end);
    };
    // phase 1: the top of the tree (a fixed item count per subtree, so the tree does not depend on t)
    const int32_t subtree_items = std::max<int32_t>(2048, n / 64);
    std::vector<Subtree> open{Subtree{0, 0, n, 0, box, cbox, 0, 0}}, subtrees;
    int32_t top = 1;
    while (!open.empty()) {
        const Subtree st = open.back();
        open.pop_back();
        const int32_t m = st.end - st.begin;
        if (m <= subtree_items) {
            subtrees.push_back(st);
            continue;
        }
        Split s;
        tree.split(st.begin, st.end, st.box, st.cbox, st.depth, t, s);
        tree.set_node(st.node, st.begin, st.box, s, m, top);
        if (s.mid < 0) {  // a leaf this large (a huge leaf size): its items are final now
            close_range(st.begin, st.end);
            continue;
        }
        // right first: the stack then opens the left child first
        open.push_back(Subtree{top + 1, s.mid, st.end, st.depth + 1, s.box[1], s.cbox[1], 0, 0});
        open.push_back(Subtree{top, st.begin, s.mid, st.depth + 1, s.box[0], s.cbox[0], 0, 0});
        top += 2;
    }
    // phase 2: the subtrees, each into its own node range; the largest are taken first
    int32_t base = top;
    for (Subtree& st : subtrees) {
        st.base = base;
        base += std::max<int32_t>(0, 2 * (st.end - st.begin) - 2);
    }
    std::vector<int32_t> order(subtrees.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = int32_t(k);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
        return subtrees[a].end - subtrees[a].begin > subtrees[b].end - subtrees[b].begin;
    });
    parallel_chunks(int64_t(order.size()), 1, t, [&](int64_t s, int64_t e) {
        for (int64_t k = s; k < e; ++k) {
            Subtree& st = subtrees[order[k]];
            int32_t next = st.base;
            tree.build(st.node, st.begin, st.end, st.box, st.cbox, st.depth, &next);
            st.used = next - st.base;
            close_range(st.begin, st.end);
        }
    });
    // close up the ranges (in order: each moves down, never over a range not yet moved)
    int32_t count = top;
    for (const Subtree& st : subtrees) {
        const int32_t shift = st.base - count;
        if (shift) {
            std::memmove(nodes + count, nodes + st.base, sizeof(bvh_node_t) * size_t(st.used));
            if (nodes[st.node].count == 0) nodes[st.node].start -= shift;
            for (int32_t i = count; i < count + st.used; ++i) {
                if (nodes[i].count == 0) nodes[i].start -= shift;
            }
        }
        count += st.used;
    }
    return count;
}

}  // namespace
