"""Integrals whose test or trial field is over a space partition (fields made with
`space_partition=`): the kernels assemble in the whole space's node numbering, then the rows (and
columns) of the partition's nodes are kept, renumbered as the partition numbers them. Entries of
nodes outside the partition (none, for a partition with its halo) are dropped."""

from __future__ import annotations

import numpy as np

import warp_nb as wp

from .types import NULL_NODE_INDEX


def field_partition(field):
    """The space partition of a test or trial field, None for the whole space."""
    part = getattr(field, "space_partition", None)
    return None if part is None or part.is_identity() else part


def gather_partition_rows(full, partition, output, add: bool):
    """The entries of `full` (one per space node) at the partition's nodes, into `output` if given."""
    nodes = partition.space_node_indices().numpy()
    values = full.numpy()
    picked = np.zeros((len(nodes),) + values.shape[1:], dtype=values.dtype)
    valid = nodes != NULL_NODE_INDEX
    picked[valid] = values[nodes[valid]]
    if output is None:
        return wp.array(picked, dtype=full.dtype, device=full.device)
    if output.shape != (len(nodes),):
        raise ValueError(f"fem.integrate: `output` must have shape ({len(nodes)},) (the nodes of the test field's "
                         f"space partition), got {output.shape}")
    output.assign(output.numpy() + picked if add else picked)
    return output


def partition_triplets(rows, cols, shape, test_partition, trial_partition):
    """Triplet rows and columns in the partitions' numbering (-1 outside them), and the matrix shape."""
    rows_np, cols_np = rows.numpy(), cols.numpy()
    nrow, ncol = shape
    if test_partition is not None:
        rows_np, nrow = _renumber(rows_np, test_partition), test_partition.node_count()
    if trial_partition is not None:
        cols_np, ncol = _renumber(cols_np, trial_partition), trial_partition.node_count()
    keep = (rows_np >= 0) & (cols_np >= 0)
    rows_np, cols_np = np.where(keep, rows_np, -1), np.where(keep, cols_np, -1)
    device = rows.device
    return (wp.array(rows_np.astype(np.int32), dtype=wp.int32, device=device),
            wp.array(cols_np.astype(np.int32), dtype=wp.int32, device=device), (nrow, ncol))


def _renumber(nodes: np.ndarray, partition) -> np.ndarray:
    to_partition = partition._space_to_partition.numpy().astype(np.int64)
    valid = (nodes >= 0) & (nodes < len(to_partition))
    out = np.full(nodes.shape, -1, dtype=np.int64)
    out[valid] = to_partition[nodes[valid]]
    out[out == NULL_NODE_INDEX] = -1
    return out
