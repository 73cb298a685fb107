"""The side topology of an unstructured mesh, built with numpy when the mesh is constructed: which
cells share each side, in which order the sides are numbered, and which are on the boundary.

Numbering (Warp's, checked against warp-lang): a side is listed in the first cell that has it
(cells in order, each cell's sides in its local order), and the sides are then sorted, stably, by
their smallest vertex index. The side keeps the vertex order it has in that first cell, its inner
cell; the second cell that has it is the outer cell (the inner cell again on the boundary). The
geometry classes orient the sides further where the normal requires it. Also here: the checks of
the arguments every mesh constructor takes. Nothing here runs on a device."""

from typing import NamedTuple

import numpy as np

import warp_nb as wp


def check_vertex_indices(name: str, indices, vertex_count: int, per_cell: int) -> np.ndarray:
    """`indices` (a wp.array or array-like) as an (n, per_cell) numpy int array, or a ValueError naming
    the first bad vertex index, worded as Warp's."""
    indices = indices.numpy() if isinstance(indices, wp.array) else np.asarray(indices)
    if indices.ndim != 2 or indices.shape[1] != per_cell:
        raise ValueError(f"`{name}` must be a 2-D array of {per_cell} vertex indices per cell, got shape "
                         f"{indices.shape}")
    flat = indices.reshape(-1).astype(np.int64)
    bad = np.flatnonzero((flat < 0) | (flat >= vertex_count))
    if len(bad):
        k = int(bad[0])
        raise ValueError(f"Vertex index {int(flat[k])} at flattened array index {k} is out of bounds; expected a "
                         f"value in [0, {vertex_count})")
    return indices.astype(np.int32)


class Sides(NamedTuple):
    vertices: np.ndarray  # (m, s): each side's vertices, in its inner cell's order
    cells: np.ndarray  # (m, 2): inner and outer cell (the inner one twice on the boundary)
    local: np.ndarray  # (m, 2): the side's local index in each of those cells
    boundary: np.ndarray  # the indices of the sides with a single cell, ascending
    of_cell: np.ndarray  # (n, k): the side index of each cell's local sides


def build_sides(cells: np.ndarray, local_sides: list[tuple[int, ...]], manifold: bool = True) -> Sides:
    """The sides of `cells` ((n, k) vertex indices), each cell having the sides `local_sides` (tuples
    of local vertex indices). With `manifold=False` (the edges of a volume mesh) a side may belong to
    any number of cells; `cells`, `local` and `boundary` then only hold its first cell."""
    n = len(cells)
    k = len(local_sides)
    local = np.array(local_sides, dtype=np.int64)
    occurrences = cells[:, local].reshape(n * k, -1).astype(np.int64)  # (cell, local side) order
    key = np.sort(occurrences, axis=1)
    _, first, inverse, counts = np.unique(key, axis=0, return_index=True, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    if manifold and np.any(counts > 2):
        raise ValueError("the mesh is not a manifold: a side is shared by more than two cells")
    # number the sides by (smallest vertex, first occurrence)
    order = np.lexsort((first, key[first, 0]))
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    side_of_occurrence = rank[inverse]
    m = len(order)
    first_occ = first[order]
    side_vertices = occurrences[first_occ]
    side_cells = np.empty((m, 2), dtype=np.int64)
    side_local = np.empty((m, 2), dtype=np.int64)
    side_cells[:, 0] = first_occ // k
    side_local[:, 0] = first_occ % k
    side_cells[:, 1] = side_cells[:, 0]
    side_local[:, 1] = side_local[:, 0]
    # the other occurrence of each shared side names its outer cell
    is_second = np.ones(n * k, dtype=bool)
    is_second[first_occ] = False
    second = np.flatnonzero(is_second)
    if manifold:
        side_cells[side_of_occurrence[second], 1] = second // k
        side_local[side_of_occurrence[second], 1] = second % k
    boundary = np.flatnonzero(side_cells[:, 0] == side_cells[:, 1])
    return Sides(side_vertices.astype(np.int32), side_cells.astype(np.int32), side_local.astype(np.int32),
                 boundary.astype(np.int32), side_of_occurrence.reshape(n, k).astype(np.int32))


def orient_edges_outwards(edges, edge_cells, cells, points):
    """In the plane: `edges` with those whose normal `(F.y, -F.x)` would point into their inner cell
    (a clockwise cell) reversed, so that every normal leaves its inner cell."""
    a, b = points[edges[:, 0]], points[edges[:, 1]]
    normal = np.stack([b[:, 1] - a[:, 1], a[:, 0] - b[:, 0]], -1)
    centre = points[cells[edge_cells[:, 0]]].mean(axis=1)
    inward = np.einsum("ed,ed->e", normal, 0.5 * (a + b) - centre) < 0.0
    edges = edges.copy()
    edges[inward] = edges[inward][:, ::-1]
    return edges


def mesh_positions(name: str, positions, dim: int):
    """Check a mesh's `positions` argument: a wp.array of vec{dim}."""
    vec = wp.types.vector(dim, wp.float32)
    if not isinstance(positions, wp.array) or positions.dtype != vec:
        raise TypeError(f"{name}: `positions` must be a wp.array of wp.vec{dim}, got "
                        f"{getattr(positions, 'dtype', type(positions)).__name__ if positions is not None else None}")
    return positions


def check_mesh_options(name: str, temporary_store, cell_env, env_count):
    """Nothing to check before the cells are known (`cell_env` / `env_count`: environments.py)."""
