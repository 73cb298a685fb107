"""The sequential algorithms behind `wp.utils.graph_coloring_*`, on numpy arrays: an adjacency in
CSR form, two orders for greedy coloring, and the balancing of color group sizes. Knows nothing
about warp arrays, devices or argument checks (graph_coloring.py does those).

Coloring gives each node, in a chosen order, the smallest color none of its already colored
neighbors has. GREEDY orders the nodes by decreasing degree; MCS (maximum cardinality search)
repeatedly takes the uncolored node with the most colored neighbors, which colors chordal graphs
(trees, triangulated polygons) with the fewest colors possible. Ties go to the smaller node index,
so both are deterministic. (Warp breaks ties otherwise, so its colorings can differ from these.)

Balancing moves one node per iteration into the smallest group (the lowest color on a tie). The
node comes from the largest group that has one able to move (no neighbor of the target color),
trying groups in decreasing size (lower color first on a tie) down to the target's size; within
a group, members are tried in list order, where a leaving member's slot is taken by the group's
last member and an arriving one is appended. It stops when the max/min size ratio is at most the
target, when the largest group exceeds the smallest by two nodes or fewer (one move would only
trade places), when no node can move, when a move would worsen the ratio (that move is undone),
or at the iteration limit. These rules, and the float32 ratio, are the ones Warp's balancing
follows observably (its tests compare exact colorings), so both give the same result."""

from __future__ import annotations

import heapq

import numpy as np


def adjacency(num_nodes: int, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, neighbors): the neighbors of node v are neighbors[offsets[v]:offsets[v + 1]], each
    edge listed at both ends; self loops are left out (no coloring can satisfy one)."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    edges = edges[edges[:, 0] != edges[:, 1]]
    ends = np.concatenate([edges[:, 0], edges[:, 1]])
    others = np.concatenate([edges[:, 1], edges[:, 0]])
    order = np.argsort(ends, kind="stable")
    counts = np.bincount(ends, minlength=num_nodes)
    offsets = np.zeros(num_nodes + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets, others[order]


def greedy_order(offsets: np.ndarray) -> np.ndarray:
    """Nodes by decreasing degree, the smaller index first among equals."""
    degree = np.diff(offsets)
    return np.argsort(-degree, kind="stable")


def mcs_order(offsets: np.ndarray, neighbors: np.ndarray) -> list:
    """Maximum cardinality search: each step takes the unvisited node with the most visited
    neighbors (the smaller index among equals)."""
    n = len(offsets) - 1
    weight = np.zeros(n, dtype=np.int64)
    visited = np.zeros(n, dtype=bool)
    heap = [(0, v) for v in range(n)]  # (-weight, node); stale entries are skipped when popped
    order = []
    while heap:
        w, v = heapq.heappop(heap)
        if visited[v] or -w != weight[v]:
            continue
        visited[v] = True
        order.append(v)
        for u in neighbors[offsets[v]:offsets[v + 1]]:
            if not visited[u]:
                weight[u] += 1
                heapq.heappush(heap, (-int(weight[u]), int(u)))
    return order


def color_in_order(order, offsets: np.ndarray, neighbors: np.ndarray) -> tuple[np.ndarray, int]:
    """Each node in `order` takes the smallest color unused by its colored neighbors: (colors, count)."""
    n = len(offsets) - 1
    colors = np.full(n, -1, dtype=np.int64)
    for v in order:
        taken = {int(c) for c in colors[neighbors[offsets[v]:offsets[v + 1]]] if c >= 0}
        c = 0
        while c in taken:
            c += 1
        colors[v] = c
    return colors, int(colors.max()) + 1 if n else 0


class _Groups:
    """The members of each color in their list order, each group a growable numpy buffer."""

    def __init__(self, colors: np.ndarray, color_count: int):
        self.members = [np.flatnonzero(colors == c) for c in range(color_count)]
        self.lengths = [len(m) for m in self.members]

    def first_movable(self, src: int, blocked: np.ndarray) -> int:
        """Position of the first member of `src` for which blocked[member] is False, or -1."""
        members = self.members[src][: self.lengths[src]]
        free = np.flatnonzero(~blocked[members])
        return int(free[0]) if len(free) else -1

    def move(self, src: int, position: int, dst: int) -> int:
        members = self.members[src]
        node = int(members[position])
        last = self.lengths[src] - 1
        members[position] = members[last]
        self.lengths[src] = last
        if self.lengths[dst] == len(self.members[dst]):
            grown = np.empty(max(2 * len(self.members[dst]), 4), dtype=np.int64)
            grown[: self.lengths[dst]] = self.members[dst]
            self.members[dst] = grown
        self.members[dst][self.lengths[dst]] = node
        self.lengths[dst] += 1
        return node


def _ratio(sizes: np.ndarray) -> np.float32:
    smallest = sizes.min()
    if smallest == 0:
        return np.float32(np.inf)
    return np.float32(sizes.max()) / np.float32(smallest)


def balance(offsets: np.ndarray, neighbors: np.ndarray, colors: np.ndarray, color_count: int,
            target_ratio: float, max_iterations: int) -> tuple[float, bool]:
    """Balance the group sizes of a valid coloring in place (colors: int64, values in
    [0, color_count)). Returns (max/min ratio reached, whether the iteration limit stopped it with
    a move left to make)."""
    n = len(colors)
    target = np.float32(target_ratio)
    # neighbor_colors[v, c]: how many neighbors of v have color c (a move keeps it current)
    neighbor_colors = np.zeros((n, color_count), dtype=np.int32)
    owners = np.repeat(np.arange(n), np.diff(offsets))
    np.add.at(neighbor_colors, (owners, colors[neighbors]), 1)
    sizes = np.bincount(colors, minlength=color_count).astype(np.int64)
    groups = _Groups(colors, color_count)
    ratio = _ratio(sizes)
    iterations = 0
    while ratio > target and sizes.max() > sizes.min() + 2:
        dst = int(np.argmin(sizes))
        blocked = neighbor_colors[:, dst] > 0
        move = None
        for src in sorted(range(color_count), key=lambda c: (-sizes[c], c)):
            if sizes[src] < sizes[dst]:
                break
            if src != dst:
                position = groups.first_movable(src, blocked)
                if position >= 0:
                    move = (src, position)
                    break
        if move is None:
            break
        if iterations >= max_iterations:
            return float(ratio), True
        src, position = move
        node = groups.move(src, position, dst)
        _recolor(node, src, dst, colors, sizes, neighbor_colors, neighbors[offsets[node]:offsets[node + 1]])
        iterations += 1
        new_ratio = _ratio(sizes)
        if new_ratio > ratio:  # worse than the best so far (every kept move is): undo it and stop
            _recolor(node, dst, src, colors, sizes, neighbor_colors, neighbors[offsets[node]:offsets[node + 1]])
            break
        ratio = new_ratio
    return float(ratio), False


def _recolor(node, old, new, colors, sizes, neighbor_colors, node_neighbors) -> None:
    colors[node] = new
    sizes[old] -= 1
    sizes[new] += 1
    np.subtract.at(neighbor_colors, (node_neighbors, old), 1)
    np.add.at(neighbor_colors, (node_neighbors, new), 1)
