"""The hash-grid kernel the geometry tests share: for each point, its neighbours within r (itself
included) and the candidates the query visited, on any device."""

import warp_nb as wp


@wp.kernel
def count_neighbours(grid: wp.uint64, pts: wp.array(dtype=wp.vec3), r: float, counts: wp.array(dtype=int),
                     candidates: wp.array(dtype=int)):
    t = wp.tid()
    i = wp.hash_grid_point_id(grid, t)
    p = pts[i]
    c = int(0)
    k = int(0)
    for j in wp.hash_grid_query(grid, p, r):
        k += 1
        if wp.length(pts[j] - p) <= r:
            c += 1
    counts[i] = c
    candidates[i] = k
