"""`wp.utils.graph_coloring_assign`, `graph_coloring_balance`, `graph_coloring_get_groups` and
`GraphColoringAlgorithm`, as Warp offers them: colorings of an undirected graph given as a
(edge_count, 2) int32 CPU array of node pairs, so that no edge joins two nodes of one color (what
lets a solver process each color's nodes in parallel).

This module checks the arguments, with Warp's messages, and moves data between warp arrays and
the numpy algorithms of coloring_algorithms.py (sequential by nature: each node's color depends on
the ones before it). It also holds the entry points Warp's tests call on its native core
(`wp_graph_coloring`, `wp_balance_coloring`), which the compatibility runtime
(_src/runtime_object.py) registers under those names: they take array descriptors and report
failure by a sentinel and a message instead of raising."""

from __future__ import annotations

import enum
import math

import numpy as np

from .. import types as T
from ..arrays.array import array
from ..errors import warn
from . import coloring_algorithms as algorithms

_INT32_LIMIT = 2**31


class GraphColoringAlgorithm(enum.IntEnum):
    """Graph coloring algorithm selection."""

    #: Maximum Cardinality Search based coloring algorithm.
    MCS = 0
    #: Degree-ordered greedy coloring algorithm.
    GREEDY = 1


class GraphColoringError(RuntimeError):
    """A graph or coloring the algorithms cannot take; the message is Warp's native diagnostic."""


def _check_array(value, name: str, ndim: int | None = None) -> np.ndarray:
    """The contents of a CPU int32 warp array, refused with Warp's messages otherwise."""
    if not isinstance(value, array):
        raise TypeError(f"{name} must be a warp array (int32, on the CPU), got {type(value).__name__}")
    if not value.device.is_cpu:
        raise RuntimeError(f"{name} array must be a CPU array, got device {value.device}")
    if value.dtype != T.int32:
        raise RuntimeError(f"{name} array must have dtype int32, got {T.type_name(value.dtype)}")
    if name == "edges" and (value.ndim != 2 or value.shape[1] != 2):
        raise RuntimeError(f"edges array must have shape (edge_count, 2), got shape {tuple(value.shape)}")
    if ndim is not None and value.ndim != ndim:
        raise RuntimeError(f"{name} array must have {ndim} dimension(s), got shape {tuple(value.shape)}")
    return value.numpy()


def _check_edge_endpoints(edges: np.ndarray, num_nodes: int) -> None:
    bad = np.flatnonzero(((edges < 0) | (edges >= num_nodes)).any(axis=1))
    if len(bad):
        i = int(bad[0])
        raise GraphColoringError(f"Graph edge {i} has endpoints ({int(edges[i, 0])}, {int(edges[i, 1])}), but valid "
                                 f"node indices are in the range [0, {num_nodes}).")


def _check_node_colors(colors: np.ndarray, color_count: int) -> None:
    bad = np.flatnonzero((colors < 0) | (colors >= color_count))
    if len(bad):
        i = int(bad[0])
        raise GraphColoringError(f"Node {i} has color {int(colors[i])}, but valid colors are in the range "
                                 f"[0, {color_count}).")


def _color(num_nodes: int, edges: np.ndarray, algorithm: int) -> tuple[np.ndarray, int]:
    if algorithm not in (GraphColoringAlgorithm.MCS, GraphColoringAlgorithm.GREEDY):
        raise GraphColoringError(f"Unrecognized coloring algorithm number: {algorithm}!")
    _check_edge_endpoints(edges, num_nodes)  # before the algorithms index by them
    offsets, neighbors = algorithms.adjacency(num_nodes, edges)
    if algorithm == GraphColoringAlgorithm.MCS:
        order = algorithms.mcs_order(offsets, neighbors)
    else:
        order = algorithms.greedy_order(offsets)
    return algorithms.color_in_order(order, offsets, neighbors)


def _store(node_colors: array, values: np.ndarray) -> None:
    node_colors.assign(np.ascontiguousarray(values, dtype=np.int32))


def graph_coloring_assign(edges: array, node_colors: array,
                          algorithm: GraphColoringAlgorithm = GraphColoringAlgorithm.MCS) -> int:
    """Color the nodes of the graph `edges` ((edge_count, 2) int32 pairs, CPU) into `node_colors`
    ((node_count,) int32, CPU; its size is the node count) so that no edge joins two nodes of one
    color. Returns the number of colors used."""
    edges_np = _check_array(edges, "edges")
    _check_array(node_colors, "node_colors", ndim=1)
    num_nodes = node_colors.shape[0]
    if num_nodes == 0:
        raise RuntimeError("Cannot color an empty graph")
    if isinstance(algorithm, bool) or not isinstance(algorithm, (int, np.integer)):
        raise TypeError(f"algorithm must be a wp.utils.GraphColoringAlgorithm, got {algorithm!r}")
    try:
        colors, count = _color(num_nodes, edges_np, int(algorithm))
    except GraphColoringError as e:
        raise RuntimeError(f"Graph coloring failed: {e}") from None
    _store(node_colors, colors)
    return count


def _check_max_iterations(max_iterations, num_nodes: int) -> int:
    if max_iterations is None:
        return num_nodes
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)):
        raise TypeError(f"max_iterations must be a non-negative int or None, got {max_iterations!r}")
    if not 0 <= max_iterations < _INT32_LIMIT:
        raise ValueError(f"max_iterations must be non-negative and fit in a signed 32-bit integer, got {max_iterations}")
    return int(max_iterations)


def _balance(num_nodes: int, edges: np.ndarray, colors: np.ndarray, color_count: int, target: float,
             max_iterations: int) -> tuple[float, np.ndarray, bool]:
    """(ratio reached, balanced colors, stopped by the iteration limit); raises GraphColoringError."""
    _check_edge_endpoints(edges, num_nodes)
    _check_node_colors(colors, color_count)
    offsets, neighbors = algorithms.adjacency(num_nodes, edges)
    balanced = colors.astype(np.int64)
    ratio, at_limit = algorithms.balance(offsets, neighbors, balanced, color_count, target, max_iterations)
    return ratio, balanced, at_limit


def graph_coloring_balance(edges: array, node_colors: array, color_count: int, target_max_min_ratio: float, *,
                           max_iterations: int | None = None) -> float:
    """Move nodes between the color groups of the valid coloring `node_colors` (in place) to even
    out the group sizes, keeping the coloring valid, until the largest group is at most
    `target_max_min_ratio` times the smallest, no move helps, or `max_iterations` recolorings
    (default: the node count) are done; a warning says when the limit stopped it. Returns the
    max/min size ratio reached (float32 precision; inf when a color is unused)."""
    edges_np = _check_array(edges, "edges")
    colors_np = _check_array(node_colors, "node_colors", ndim=1)
    if isinstance(color_count, bool) or not isinstance(color_count, (int, np.integer)) or color_count < 1:
        raise ValueError(f"color_count must be a positive int (the count graph_coloring_assign returned), "
                         f"got {color_count!r}")
    if math.isnan(float(target_max_min_ratio)):
        raise ValueError("target_max_min_ratio must be a number, got nan")
    limit = _check_max_iterations(max_iterations, node_colors.shape[0])
    try:
        ratio, balanced, at_limit = _balance(node_colors.shape[0], edges_np, colors_np, int(color_count),
                                             float(target_max_min_ratio), limit)
    except GraphColoringError as e:
        raise RuntimeError(f"Graph coloring balance failed: {e}") from None
    if at_limit:
        warn(f"Graph coloring stopped because it reached the {limit}-iteration limit (achieved ratio {ratio:g}, "
             f"target {float(target_max_min_ratio):g}).")
    _store(node_colors, balanced)
    return ratio


def graph_coloring_get_groups(node_colors: array, color_count: int, return_wp_array: bool = True, device="cpu"):
    """The node indices of each color, ascending: a tuple of `color_count` int32 arrays (warp arrays
    on `device`, or numpy arrays when return_wp_array is False)."""
    colors = _check_array(node_colors, "node_colors", ndim=1)
    if isinstance(color_count, bool) or not isinstance(color_count, (int, np.integer)) or color_count < 0:
        raise ValueError(f"color_count must be a non-negative int, got {color_count!r}")
    groups = tuple(np.flatnonzero(colors == c).astype(np.int32) for c in range(int(color_count)))
    if not return_wp_array:
        return groups
    return tuple(array(g, dtype=T.int32, device=device) for g in groups)


# --- Warp's native entry points (runtime.core.wp_graph_coloring / wp_balance_coloring) ------------
def _described(descriptor):
    """The warp array behind an array descriptor (array.__ctype__()), or None."""
    return getattr(descriptor, "_wp_value", None)


def _native_edges(descriptor, message: str) -> np.ndarray:
    edges = _described(descriptor)
    if edges is None or edges.ndim != 2 or edges.shape[1] != 2:
        raise GraphColoringError(message)
    return edges.numpy().reshape(-1, 2)


def native_graph_coloring(num_nodes: int, edges_descriptor, algorithm: int, colors_descriptor) -> int:
    """Warp's `wp_graph_coloring`: the color count; raises GraphColoringError with its message."""
    edges = _described(edges_descriptor)
    if edges is None or edges.ndim != 2:
        raise GraphColoringError("The edges array must have 2 dimensions!")
    edges_np = _native_edges(edges_descriptor, "The edges array must have shape (edge_count, 2)!")
    node_colors = _described(colors_descriptor)
    if node_colors is None or tuple(node_colors.shape) != (num_nodes,):
        raise GraphColoringError("The node_colors array must have the preallocated shape of (num_nodes,)!")
    if num_nodes == 0:
        raise GraphColoringError("Empty graph!")
    colors, count = _color(num_nodes, edges_np, algorithm)
    _store(node_colors, colors)
    return count


def native_balance_coloring(num_nodes: int, edges_descriptor, color_count: int, target: float, max_iterations: int,
                            colors_descriptor, limit_reached=None) -> float:
    """Warp's `wp_balance_coloring`: the ratio reached; raises GraphColoringError with its message.
    (`limit_reached`, an optional out-pointer in Warp, is not written.)"""
    if num_nodes < 0:
        raise GraphColoringError(f"The num_nodes value must be non-negative, got {num_nodes}!")
    if max_iterations < 0:
        raise GraphColoringError(f"The max_iterations value must be non-negative, got {max_iterations}!")
    edges_np = _native_edges(edges_descriptor, "The edges array must have shape (edge_count, 2)!")
    node_colors = _described(colors_descriptor)
    if node_colors is None or tuple(node_colors.shape) != (num_nodes,):
        raise GraphColoringError("The node_colors array must have the preallocated shape of (num_nodes,)!")
    ratio, balanced, _ = _balance(num_nodes, edges_np, node_colors.numpy(), color_count, target, max_iterations)
    _store(node_colors, balanced)
    return ratio
