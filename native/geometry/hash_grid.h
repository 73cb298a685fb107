// hash_grid.h: the kernel side of wp.HashGrid: points sorted into cubic cells of the build
// radius, the cells hashed onto a dim_x * dim_y * dim_z table (cell coordinates wrap around, so
// the grid covers all of space), and the hash_grid_query iterator, which yields the index of
// every point in the cells that the query's box [p - r, p + r] touches. Like Warp's, it yields
// candidates: the caller tests the distance. The grid's `id` is the address of a hash_grid_t
// owned by the Python object.
#pragma once
#include "core/prelude.h"
#include "core/scalar.h"
#include "core/vec.h"

namespace wpnb {

struct hash_grid_t {
    const int32* point_ids;    // point indices in cell order
    const int32* cell_starts;  // per cell: range in point_ids
    const int32* cell_ends;
    const int32* point_groups; // grouped grids: the group of each entry of point_ids (sorted within a cell); else null
    float64 cell_width_inv_d;  // 1 / cell width for float64 grids (float32 and float16 grids use cell_width_inv)
    float32 cell_width;
    float32 cell_width_inv;
    int32 dim_x, dim_y, dim_z;
    int32 num_points;          // 0 before the first build
};

WPNB_FN const hash_grid_t& hash_grid_of(uint64 id) { return *(const hash_grid_t*)id; }

// a mod n in [0, n).
WPNB_FN int32 hash_grid_wrap(int32 a, int32 n) {
    const int32 r = a % n;
    return r < 0 ? r + n : r;
}

// Cell coordinate of x: floor(x / cell_width), clamped to the int32 range (infinities go to the
// edge cells); NaN is cell 0.
WPNB_FN int32 hash_grid_coord(float32 x, float32 inv) {
    const float32 c = ::floorf(x * inv);
    if (!(c == c)) return 0;
    if (c >= 2147483647.0) return 2147483647;
    if (c <= -2147483648.0) return -2147483647 - 1;
    return int32(c);
}
// The same in double precision (float64 grids).
WPNB_FN int32 hash_grid_coord(float64 x, float64 inv) {
    const float64 c = ::floor(x * inv);
    if (!(c == c)) return 0;
    if (c >= 2147483647.0) return 2147483647;
    if (c <= -2147483648.0) return -2147483647 - 1;
    return int32(c);
}

// The table slot of the cell holding (x, y, z).
WPNB_FN int32 hash_grid_cell(float32 x, float32 y, float32 z, float32 inv, int32 dx, int32 dy, int32 dz) {
    return (hash_grid_wrap(hash_grid_coord(z, inv), dz) * dy + hash_grid_wrap(hash_grid_coord(y, inv), dy)) * dx +
           hash_grid_wrap(hash_grid_coord(x, inv), dx);
}

struct hash_grid_query_t {
    const hash_grid_t* grid;
    int64 lo[3], hi[3];  // cell range (inclusive), at most dim cells per axis (int64: hi may be INT_MAX)
    int64 c[3];          // current cell
    int32 w[3];          // its coordinates wrapped onto the table
    int32 w0[3];         // the wrapped coordinates of lo
    int32 cur, end;      // points of the current cell still to visit
    int32 done;
    int32 group;         // only this group's points (grouped grids), when grouped is 1
    int32 grouped;
};

namespace geo {
// The query's cell range from the per-axis bounds of [point - r, point + r] (cell coordinates).
WPNB_FN hash_grid_query_t hash_grid_query_cells(uint64 id, const int32 lo[3], const int32 hi[3], int32 group,
                                                int32 grouped) {
    hash_grid_query_t q;
    const hash_grid_t& g = hash_grid_of(id);
    q.grid = &g;
    q.cur = q.end = 0;
    q.done = g.num_points <= 0 ? 1 : 0;
    q.group = group;
    q.grouped = grouped && g.point_groups ? 1 : 0;
    const int32 dims[3] = {g.dim_x, g.dim_y, g.dim_z};
    for (int a = 0; a < 3; ++a) {
        q.lo[a] = lo[a];
        q.hi[a] = hi[a];
        if (q.hi[a] - q.lo[a] >= int64(dims[a])) q.hi[a] = q.lo[a] + dims[a] - 1;  // each slot once
        q.c[a] = q.lo[a];
        q.w0[a] = hash_grid_wrap(lo[a], dims[a]);
        q.w[a] = q.w0[a];
    }
    // the first call of next moves to the first cell
    q.c[0] = q.lo[0] - 1;
    q.w[0] = q.w0[0] - 1;
    return q;
}

template <typename F>
WPNB_FN hash_grid_query_t hash_grid_query_t3(uint64 id, const vec_t<3, F>& point, F max_dist, int32 group,
                                             int32 grouped) {
    const hash_grid_t& g = hash_grid_of(id);
    int32 lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
        if (sizeof(F) == 8) {
            lo[a] = hash_grid_coord(float64(point.c[a]) - float64(max_dist), g.cell_width_inv_d);
            hi[a] = hash_grid_coord(float64(point.c[a]) + float64(max_dist), g.cell_width_inv_d);
        } else {  // float32 and float16 grids hash in single precision
            lo[a] = hash_grid_coord(float32(point.c[a]) - float32(max_dist), g.cell_width_inv);
            hi[a] = hash_grid_coord(float32(point.c[a]) + float32(max_dist), g.cell_width_inv);
        }
    }
    return hash_grid_query_cells(id, lo, hi, group, grouped);
}
}  // namespace geo

// Points in the cells that [point - max_dist, point + max_dist] touches; iterate with
// hash_grid_query_next (a candidate list: test the distance yourself). With `group`, only the
// points built with that group id (grouped grids; an ungrouped grid ignores it). float16 and
// float64 grids take points and distances of their own precision.
WPNB_FN hash_grid_query_t hash_grid_query(uint64 id, const vec3f& point, float32 max_dist) {
    return geo::hash_grid_query_t3(id, point, max_dist, 0, 0);
}
WPNB_FN hash_grid_query_t hash_grid_query(uint64 id, const vec3f& point, float32 max_dist, int32 group) {
    return geo::hash_grid_query_t3(id, point, max_dist, group, 1);
}
WPNB_FN hash_grid_query_t hash_grid_query(uint64 id, const vec3d& point, float64 max_dist) {
    return geo::hash_grid_query_t3(id, point, max_dist, 0, 0);
}
WPNB_FN hash_grid_query_t hash_grid_query(uint64 id, const vec3d& point, float64 max_dist, int32 group) {
    return geo::hash_grid_query_t3(id, point, max_dist, group, 1);
}
WPNB_FN hash_grid_query_t hash_grid_query(uint64 id, const vec3h& point, half max_dist) {
    return geo::hash_grid_query_t3(id, point, max_dist, 0, 0);
}
WPNB_FN hash_grid_query_t hash_grid_query(uint64 id, const vec3h& point, half max_dist, int32 group) {
    return geo::hash_grid_query_t3(id, point, max_dist, group, 1);
}

namespace geo {
// [cur, end) narrowed to the entries of `group` (sorted by group within a cell).
WPNB_FN void hash_grid_group_range(const int32* groups, int32 group, int32& cur, int32& end) {
    int32 lo = cur, hi = end;
    while (lo < hi) { const int32 m = lo + (hi - lo) / 2; if (groups[m] < group) lo = m + 1; else hi = m; }
    int32 lo2 = lo, hi2 = end;
    while (lo2 < hi2) { const int32 m = lo2 + (hi2 - lo2) / 2; if (groups[m] <= group) lo2 = m + 1; else hi2 = m; }
    cur = lo; end = lo2;
}
}  // namespace geo

// The next candidate point's index (into the points given to build) in `index`; false when done.
// Cells are walked x fastest with wrapped coordinates kept incrementally (no division per cell).
WPNB_FN bool hash_grid_query_next(hash_grid_query_t& q, int32& index) {
    const hash_grid_t& g = *q.grid;
    while (q.cur >= q.end) {
        if (q.done) return false;
        if (++q.c[0] > q.hi[0]) {
            q.c[0] = q.lo[0];
            q.w[0] = q.w0[0];
            if (++q.c[1] > q.hi[1]) {
                q.c[1] = q.lo[1];
                q.w[1] = q.w0[1];
                if (++q.c[2] > q.hi[2]) { q.done = 1; return false; }
                if (++q.w[2] == g.dim_z) q.w[2] = 0;
            } else if (++q.w[1] == g.dim_y) {
                q.w[1] = 0;
            }
        } else if (++q.w[0] == g.dim_x) {
            q.w[0] = 0;
        }
        const int32 cell = (q.w[2] * g.dim_y + q.w[1]) * g.dim_x + q.w[0];
        q.cur = g.cell_starts[cell];
        q.end = g.cell_ends[cell];
        if (q.grouped) geo::hash_grid_group_range(g.point_groups, q.group, q.cur, q.end);
    }
    index = g.point_ids[q.cur++];
    return true;
}

// The index of the point at position `index` of the grid's cell order (launch over points in
// this order for cache-friendly neighbour loops).
WPNB_FN int32 hash_grid_point_id(uint64 id, int32 index) {
    const hash_grid_t& g = hash_grid_of(id);
    return g.num_points > 0 ? g.point_ids[index] : index;
}

}  // namespace wpnb
