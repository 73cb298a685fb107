"""Triplets -> row buckets: the valid triplets (inside the shape, below `count`, not pruned) grouped
by row, each as the key (column << 32 | triplet index), optionally with its block copied along.
The first step of topology.compact_triplets.

Scattering 5M triplets straight into 1M row buckets touches memory at random, which is what
costs on a CPU. So it goes in two stable counting passes that each stay within a small window:
  1. rows are cut into at most 4096 groups of 2^shift consecutive rows; P chunks of the triplets
     count their valid triplets per group (a chunk's counters stay in its cache), a scan turns
     the counts into one cursor per (chunk, group), and each chunk appends its triplets, in order,
     to its slice of their group's range (4096 sequential write streams instead of random ones);
  2. one thread per group, whose triplets now lie together, counts them per row, lays out the
     rows' buckets and moves each triplet's key into its row's bucket, in order; the blocks
     follow in a separate, fully parallel move (one thread per scalar).
Both passes are deterministic (no atomics), so each row's bucket lists its triplets in input
order; the sort that follows keys on (column, triplet index) anyway."""

from __future__ import annotations

import warp_nb as wp

from .. import types as T
from ..arrays.array import array
from ._common import kernel_cache, unsigned

_MAX_GROUPS = 256
_CHUNK_MIN = 8192  # triplets per chunk at least; at most 256 chunks


@wp.func
def triplet_is_valid(t: int, rows: wp.array(dtype=int), cols: wp.array(dtype=int), count: wp.array(dtype=int),
                     use_count: int, nrow: int, ncol: int, keep: wp.array(dtype=int), use_keep: int):
    valid = 1
    if use_count != 0:  # noqa: SIM102 (in a kernel the inner read must not run when the outer test fails)
        if t >= count[0]:
            valid = 0
    if valid != 0:
        r = rows[t]
        c = cols[t]
        if r < 0 or r >= nrow or c < 0 or c >= ncol:
            valid = 0
        elif use_keep != 0:  # noqa: SIM102 (in a kernel the inner read must not run when the outer test fails)
            if keep[t] == 0:
                valid = 0
    return valid


@wp.kernel(enable_backward=False)
def _count_groups(rows: wp.array(dtype=int), cols: wp.array(dtype=int), count: wp.array(dtype=int), use_count: int,
                  nrow: int, ncol: int, keep: wp.array(dtype=int), use_keep: int, n: int, chunk: int, shift: int,
                  groups: int, counts: wp.array(dtype=int)):
    p = wp.tid()
    base = p * groups  # chunk-major: this chunk's counters lie together
    for g in range(groups):
        counts[base + g] = 0  # here, not at allocation: a replayed capture counts afresh
    for t in range(p * chunk, wp.min(n, (p + 1) * chunk)):
        if triplet_is_valid(t, rows, cols, count, use_count, nrow, ncol, keep, use_keep) != 0:
            g = base + (rows[t] >> shift)
            counts[g] = counts[g] + 1


@wp.kernel(enable_backward=False)
def _group_totals(counts: wp.array(dtype=int), chunks: int, groups: int, totals: wp.array(dtype=int)):
    g = wp.tid()
    s = 0
    for p in range(chunks):
        s = s + counts[p * groups + g]
    totals[g] = s


@wp.kernel(enable_backward=False)
def _chunk_cursors(counts: wp.array(dtype=int), chunks: int, groups: int, group_starts: wp.array(dtype=int)):
    g = wp.tid()
    at = group_starts[g]
    for p in range(chunks):
        c = counts[p * groups + g]
        counts[p * groups + g] = at  # the counts become each (chunk, group)'s next slot
        at = at + c


@wp.kernel(enable_backward=False)
def _scatter_to_rows(group_starts: wp.array(dtype=int), groups: int, shift: int, nrow: int,
                     group_rows: wp.array(dtype=wp.uint32), group_keys: wp.array(dtype=wp.int64),
                     row_cursor: wp.array(dtype=wp.uint32), bucket_starts: wp.array(dtype=int),
                     keys: wp.array(dtype=wp.int64)):
    g = wp.tid()
    lo = group_starts[g]
    hi = group_starts[g + 1]
    r0 = g << shift
    r1 = wp.min(nrow, (g + 1) << shift)
    for r in range(r0, r1):
        row_cursor[r] = wp.uint32(0)
    for j in range(lo, hi):
        u = group_rows[j]
        row_cursor[u] = row_cursor[u] + wp.uint32(1)
    at = lo
    for r in range(r0, r1):
        c = int(row_cursor[r])
        bucket_starts[r] = at
        row_cursor[r] = wp.uint32(at)
        at = at + c
    if g == groups - 1:
        bucket_starts[nrow] = hi
    for j in range(lo, hi):
        u = group_rows[j]
        slot = row_cursor[u]
        row_cursor[u] = slot + wp.uint32(1)
        keys[slot] = group_keys[j]
        group_rows[j] = slot  # where the block goes (move_values); the row is no longer needed


@kernel_cache
def _bucket_kernels(scalar):
    """The scatter into groups (moving blocks of `scalar` along when with_values is set) and the
    move of the blocks into their row buckets."""
    def scatter_to_groups(rows: wp.array(dtype=int), cols: wp.array(dtype=int), count: wp.array(dtype=int),
                          use_count: int, nrow: int, ncol: int, keep: wp.array(dtype=int), use_keep: int, n: int,
                          chunk: int, shift: int, groups: int, cursors: wp.array(dtype=wp.uint32),
                          values: wp.array2d(dtype=scalar), with_values: int, group_rows: wp.array(dtype=wp.uint32),
                          group_keys: wp.array(dtype=wp.int64), group_values: wp.array2d(dtype=scalar)):
        p = wp.tid()
        base = p * groups
        for t in range(p * chunk, wp.min(n, (p + 1) * chunk)):
            if triplet_is_valid(t, rows, cols, count, use_count, nrow, ncol, keep, use_keep) != 0:
                r = rows[t]
                g = base + (r >> shift)
                slot = cursors[g]  # (indices typed uint32 throughout: see _common.unsigned)
                cursors[g] = slot + wp.uint32(1)
                group_rows[slot] = wp.uint32(r)
                group_keys[slot] = (wp.int64(cols[t]) << wp.int64(32)) + wp.int64(t)
                if with_values != 0:
                    for k in range(values.shape[1]):
                        group_values[slot, k] = values[t, k]

    def move_values(group_starts: wp.array(dtype=int), groups: int, group_rows: wp.array(dtype=wp.uint32),
                    group_values: wp.array2d(dtype=scalar), bucketed: wp.array2d(dtype=scalar)):
        j, k = wp.tid()
        if j < group_starts[groups]:  # (slots past the valid triplets hold nothing)
            bucketed[group_rows[j], k] = group_values[j, k]  # group_rows holds each triplet's bucket slot now

    name = T.type_name(scalar)
    return (wp.kernel(scatter_to_groups, key=f"bsr_scatter_to_groups_{name}", enable_backward=False),
            wp.kernel(move_values, key=f"bsr_move_values_{name}", enable_backward=False))


def bucket_by_row(nrow: int, ncol: int, rows: array, cols: array, n: int, device, count: array | None,
                  keep: array | None, values2d: array | None):
    """(bucket_starts (nrow + 1), keys (n; the first bucket_starts[nrow] used), bucketed values or None)."""
    shift = 0
    while (nrow + (1 << shift) - 1) >> shift > _MAX_GROUPS:
        shift += 1
    groups = (nrow + (1 << shift) - 1) >> shift
    chunks = max(1, min(256, n // _CHUNK_MIN))
    chunk = (n + chunks - 1) // chunks
    chunks = (n + chunk - 1) // chunk
    dummy = wp.zeros(1, dtype=int, device=device)
    head = [rows, cols, dummy if count is None else count, int(count is not None), nrow, ncol,
            dummy if keep is None else keep, int(keep is not None), n, chunk, shift, groups]
    counts = wp.empty(chunks * groups, dtype=int, device=device)
    wp.launch(_count_groups, chunks, inputs=head + [counts], device=device)
    totals = wp.zeros(groups + 1, dtype=int, device=device)
    wp.launch(_group_totals, groups, inputs=[counts, chunks, groups, totals], device=device)
    group_starts = wp.empty(groups + 1, dtype=int, device=device)
    wp.utils.array_scan(totals, group_starts, inclusive=False)
    wp.launch(_chunk_cursors, groups, inputs=[counts, chunks, groups, group_starts], device=device)

    scalar = T.float32 if values2d is None else values2d.dtype
    block = 1 if values2d is None else values2d.shape[1]
    scratch = wp.empty((1, block), dtype=scalar, device=device)
    to_groups, move_values = _bucket_kernels(scalar)
    group_rows = wp.empty(n, dtype=int, device=device)
    group_keys = wp.empty(n, dtype=wp.int64, device=device)
    group_values = scratch if values2d is None else wp.empty((n, block), dtype=scalar, device=device)
    with_values = int(values2d is not None)
    group_slots = unsigned(group_rows)
    wp.launch(to_groups, chunks, inputs=head + [unsigned(counts), scratch if values2d is None else values2d,
                                                with_values, group_slots, group_keys, group_values], device=device)
    bucket_starts = wp.empty(nrow + 1, dtype=int, device=device)
    keys = wp.empty(n, dtype=wp.int64, device=device)
    row_cursor = wp.empty(nrow, dtype=int, device=device)
    wp.launch(_scatter_to_rows, groups, inputs=[group_starts, groups, shift, nrow, group_slots, group_keys,
                                                unsigned(row_cursor), bucket_starts, keys], device=device)
    if values2d is None:
        return bucket_starts, keys, None
    bucketed = wp.empty((n, block), dtype=scalar, device=device)
    wp.launch(move_values, (n, block), inputs=[group_starts, groups, group_slots, group_values, bucketed],
              device=device)
    return bucket_starts, keys, bucketed
