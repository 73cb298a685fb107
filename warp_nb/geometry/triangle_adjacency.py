"""Triangle-triangle adjacency of a (num_tris, 3) int32 index array, as Warp's
`wp.geometry.tri_tri_adjacency`, built on the device by warp_nb kernels with no host round trip
(so it can be recorded in a graph capture), plus the kernel-side helper
`find_triangle_neighbor_edge_index`.

Local edge j of a triangle is the edge opposite its local vertex j, joining local vertices
(j + 1) % 3 and (j + 2) % 3. The build is four launches and a scan: count the corners at each
vertex, scan the counts into offsets, list the triangles around each vertex, then each half-edge
(a, b) walks the triangles around `a` for the one other triangle holding `b`. The lists are
filled with atomics, so their order varies between runs, but the answer does not: on an
edge-manifold mesh there is at most one such triangle, and on a non-manifold edge the one with
the smallest index is taken. Orientation is not looked at (Warp's contract: consistent
orientation is not required). A vertex index outside [0, vertex_count) joins no edge (it is not
written past the arrays sized by vertex_count)."""

from __future__ import annotations

import warp_nb as wp

from .. import types as T
from ..arrays.array import array, array2d
from ..program.func import func
from ..program.kernel import kernel
from ..runtime import recording
from ..types import type_name


@func
def find_triangle_neighbor_edge_index(triangle_neighbors: array2d(dtype=T.int32), triangle: T.int32,
                                      neighbor: T.int32) -> T.int32:
    """The local edge j of `triangle` with triangle_neighbors[triangle, j] == neighbor, -1 if none."""
    for j in range(3):
        if triangle_neighbors[triangle, j] == neighbor:
            return wp.int32(j)
    return wp.int32(-1)


@kernel
def _max_vertex(indices: array2d(dtype=T.int32), out: array(dtype=T.int32)):
    t, k = wp.tid()
    wp.atomic_max(out, 0, indices[t, k])


@kernel
def _count_corners(indices: array2d(dtype=T.int32), counts: array(dtype=T.int32)):
    t, k = wp.tid()
    v = indices[t, k]
    if v >= 0 and v < counts.shape[0]:  # an index past vertex_count is left out, never written past
        wp.atomic_add(counts, v, 1)


@kernel
def _list_corners(indices: array2d(dtype=T.int32), starts: array(dtype=T.int32),
                  cursor: array(dtype=T.int32), corner_tris: array(dtype=T.int32)):
    t, k = wp.tid()
    v = indices[t, k]
    if v >= 0 and v < cursor.shape[0]:
        slot = wp.atomic_add(cursor, v, 1)
        corner_tris[starts[v] + slot] = t


@kernel
def _match_edges(indices: array2d(dtype=T.int32), starts: array(dtype=T.int32),
                 counts: array(dtype=T.int32), corner_tris: array(dtype=T.int32),
                 with_edges: int, neighbors: array2d(dtype=T.int32),
                 neighbor_edges: array2d(dtype=T.int32)):
    t, j = wp.tid()
    a = indices[t, (j + 1) % 3]
    b = indices[t, (j + 2) % 3]
    found = int(-1)
    found_edge = int(-1)
    if a != b and a >= 0 and a < counts.shape[0]:
        for s in range(starts[a], starts[a] + counts[a]):
            u = corner_tris[s]
            if u != t and (found < 0 or u < found):
                ia = int(-1)
                ib = int(-1)
                for k in range(3):
                    w = indices[u, k]
                    if w == a:
                        ia = k
                    elif w == b:
                        ib = k
                if ia >= 0 and ib >= 0:
                    found = u
                    found_edge = 3 - ia - ib  # the local index that is neither a's nor b's
    neighbors[t, j] = found
    if with_edges != 0:
        neighbor_edges[t, j] = found_edge


def check_indices(indices, what: str = "indices") -> None:
    """Refuse anything but a (num_tris, 3) int32 warp array, naming the argument."""
    if not isinstance(indices, array):
        raise TypeError(f"{what} must be a warp array of shape (num_tris, 3) and dtype int32, got {type(indices).__name__}")
    if indices.ndim != 2 or indices.shape[1] != 3:
        raise ValueError(f"{what} must have shape (num_tris, 3), got shape {tuple(indices.shape)}")
    if indices.dtype != wp.int32:
        raise ValueError(f"{what} must have dtype int32, got {type_name(indices.dtype)}")


class _Corners:
    """The triangles around each vertex (a CSR list), with the scratch arrays to rebuild it; made
    once per call of the flipper and rebuilt every pass, so a captured graph reuses the arrays."""

    def __init__(self, indices: array, vertex_count: int):
        device = indices.device
        self.indices = indices
        self.counts = wp.empty(vertex_count, dtype=wp.int32, device=device)
        self.cursor = wp.empty(vertex_count, dtype=wp.int32, device=device)
        self.starts = wp.empty(vertex_count, dtype=wp.int32, device=device)
        self.corner_tris = wp.empty(indices.shape[0] * 3, dtype=wp.int32, device=device)

    def build(self) -> None:
        device = self.indices.device
        self.counts.zero_()
        self.cursor.zero_()
        wp.launch(_count_corners, dim=self.indices.shape, inputs=[self.indices, self.counts], device=device)
        wp.utils.array_scan(self.counts, self.starts, inclusive=False)
        wp.launch(_list_corners, dim=self.indices.shape, inputs=[self.indices, self.starts, self.cursor,
                                                                 self.corner_tris], device=device)

    def match(self, neighbors: array, neighbor_edges: array | None) -> None:
        with_edges = neighbor_edges is not None
        edges_out = neighbor_edges if with_edges else neighbors  # unused by the kernel when not asked for
        wp.launch(_match_edges, dim=self.indices.shape,
                  inputs=[self.indices, self.starts, self.counts, self.corner_tris, int(with_edges), neighbors,
                          edges_out], device=self.indices.device)


def infer_vertex_count(indices: array) -> int:
    """One plus the largest vertex index (a reduction on the device, read back: a host sync)."""
    if recording.capture is not None:
        raise RuntimeError("tri_tri_adjacency cannot infer vertex_count inside a graph capture (it reads the "
                           "largest index back to the host); pass vertex_count")
    if indices.shape[0] == 0:
        return 0
    largest = wp.full(1, -1, dtype=wp.int32, device=indices.device)
    wp.launch(_max_vertex, dim=indices.shape, inputs=[indices, largest], device=indices.device)
    return int(largest.numpy()[0]) + 1


def tri_tri_adjacency(indices: array, vertex_count: int | None = None, return_neighbor_edge_indices: bool = True):
    """Triangle-triangle adjacency: `triangle_neighbors[t, j]`, the triangle across the edge opposite
    local vertex j of triangle t (-1 on a boundary), and, unless return_neighbor_edge_indices is
    False, `neighbor_edge_indices[t, j]`, that edge's local index in the neighbor. Returns the pair,
    or the one array. vertex_count defaults to one plus the largest index (not inside a capture)."""
    check_indices(indices)
    if vertex_count is None:
        vertex_count = infer_vertex_count(indices)
    elif isinstance(vertex_count, bool) or not isinstance(vertex_count, int) or vertex_count < 0:
        raise ValueError(f"vertex_count must be a non-negative int or None, got {vertex_count!r}")
    device = indices.device
    neighbors = wp.empty(indices.shape, dtype=wp.int32, device=device)
    neighbor_edges = wp.empty(indices.shape, dtype=wp.int32, device=device) if return_neighbor_edge_indices else None
    if indices.shape[0] > 0:
        corners = _Corners(indices, max(int(vertex_count), 1))
        corners.build()
        corners.match(neighbors, neighbor_edges)
    return (neighbors, neighbor_edges) if return_neighbor_edge_indices else neighbors
