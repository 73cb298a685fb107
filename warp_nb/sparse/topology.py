"""Triplets (row, column, triplet index) -> a compact BSR topology, on the device, with no host
round trip: the one path every topology-changing operation goes through (triplet construction,
transpose, axpy, products, copies, compression).

Rows first, then a sort within each row:
  1. the valid triplets are grouped by row into buckets (buckets.py: two stable, cache-friendly
     counting passes), each as the key (column << 32 | triplet index);
  2. one thread per row sorts its bucket (insertion sort for short rows, heap sort for long
     ones) and counts distinct columns; keys are unique, so the order in which duplicates are
     summed is that of the input, whatever the thread count;
  3. a scan of the distinct counts gives the offsets, and one thread per row writes the columns,
     the sorted triplet order and where each block's triplets end.
A triplet is valid when it lies inside the shape (Warp drops the others silently), is below
`count` when a count array is given, and, when pruning, its block is not all zeros.

What comes out (`Compacted`) says which triplets make up each block; the values are summed by
the value kernels (values.py), so the topology kernels are compiled once for every block type."""

from __future__ import annotations

from dataclasses import dataclass

import warp_nb as wp

from ..arrays.array import array
from ._common import untaped
from .buckets import bucket_by_row

#: rows up to this length are sorted by insertion, longer ones by heap sort
_INSERTION_MAX = 24


@wp.func
def _swap(keys: wp.array(dtype=wp.int64), slots: wp.array(dtype=int), i: int, j: int):
    k = keys[i]
    keys[i] = keys[j]
    keys[j] = k
    s = slots[i]
    slots[i] = slots[j]
    slots[j] = s


@wp.func
def _sift_down(keys: wp.array(dtype=wp.int64), slots: wp.array(dtype=int), base: int, root_in: int, end: int):
    root = root_in
    done = 0
    while done == 0 and 2 * root + 1 < end:
        child = 2 * root + 1
        if child + 1 < end:  # noqa: SIM102 (in a kernel the inner read must not run when the outer test fails)
            if keys[base + child] < keys[base + child + 1]:
                child = child + 1
        if keys[base + root] < keys[base + child]:
            _swap(keys, slots, base + root, base + child)
            root = child
        else:
            done = 1


@wp.func
def _sort_range(keys: wp.array(dtype=wp.int64), slots: wp.array(dtype=int), lo: int, hi: int):
    """Sort keys[lo:hi] ascending, moving slots[lo:hi] along (keys are unique, so any sort is stable)."""
    n = hi - lo
    if n <= 24:  # (_INSERTION_MAX)
        for i in range(lo + 1, hi):
            k = keys[i]
            s = slots[i]
            j = i - 1
            while j >= lo and keys[j] > k:
                keys[j + 1] = keys[j]
                slots[j + 1] = slots[j]
                j = j - 1
            keys[j + 1] = k
            slots[j + 1] = s
    else:
        start = n // 2 - 1
        while start >= 0:
            _sift_down(keys, slots, lo, start, n)
            start = start - 1
        end = n - 1
        while end > 0:
            _swap(keys, slots, lo, lo + end)
            _sift_down(keys, slots, lo, 0, end)
            end = end - 1


@wp.kernel(enable_backward=False)
def _sort_rows(bucket_starts: wp.array(dtype=int), keys: wp.array(dtype=wp.int64), slots: wp.array(dtype=int),
               distinct: wp.array(dtype=int)):
    r = wp.tid()
    lo = bucket_starts[r]
    hi = bucket_starts[r + 1]
    for j in range(lo, hi):
        slots[j] = j
    _sort_range(keys, slots, lo, hi)
    u = 0
    prev = wp.int64(-1)
    for j in range(lo, hi):
        c = keys[j] >> wp.int64(32)
        if c != prev:
            u = u + 1
            prev = c
    distinct[r] = u


@wp.kernel(enable_backward=False)
def _emit_blocks(bucket_starts: wp.array(dtype=int), keys: wp.array(dtype=wp.int64), offsets: wp.array(dtype=int),
                 columns: wp.array(dtype=int), triplet_indices: wp.array(dtype=int), block_ends: wp.array(dtype=int),
                 triplet_blocks: wp.array(dtype=int), write_blocks: int):
    r = wp.tid()
    b = offsets[r] - 1
    prev = wp.int64(-1)
    for j in range(bucket_starts[r], bucket_starts[r + 1]):
        k = keys[j]
        c = k >> wp.int64(32)
        t = int(k - (c << wp.int64(32)))
        if c != prev:
            b = b + 1
            columns[b] = int(c)
            prev = c
        triplet_indices[j] = t
        block_ends[b] = j + 1
        if write_blocks != 0:
            triplet_blocks[t] = b


@dataclass
class Compacted:
    """A compact topology built from n triplets: offsets (nrow + 1), columns (n slots, the first
    offsets[nrow] used), and for block b the triplets triplet_indices[block_ends[b - 1]:block_ends[b]]
    (block_ends[-1] read as 0). triplet_blocks, when asked for, maps each triplet to its block
    (-1 for a dropped one)."""

    nrow: int
    ncol: int
    n: int
    offsets: array
    columns: array
    triplet_indices: array
    block_ends: array
    triplet_blocks: array | None = None
    #: when the values were copied into row buckets (compact_triplets(values2d=...)): the bucketed
    #: blocks, and for sorted position j the bucket slot holding its block; the sums read these
    bucketed: array | None = None
    slots: array | None = None

    def value_source(self, values2d):
        """(values, order): block b sums values[order[j]] over its triplets j."""
        if self.bucketed is not None:
            return self.bucketed, self.slots
        return values2d, self.triplet_indices


def compact_triplets(nrow: int, ncol: int, rows: array, cols: array, n: int, device, count: array | None = None,
                     keep: array | None = None, triplet_blocks: array | None = None,
                     block_ends: array | None = None, triplet_indices: array | None = None,
                     values2d: array | None = None, offsets: array | None = None) -> Compacted:
    """The compact topology of triplets [0, n) of rows/cols (int32 arrays); see the module doc.
    Storage for the mapping arrays may be passed in (BsrTripletMap reuses its own). With values2d
    (only when no gradient is to flow through them), the blocks are bucketed by row on the way.
    `offsets` (nrow + 1 ints) receives the offsets when given: a matrix keeps its offsets array."""
    with untaped():
        return _compact_triplets(nrow, ncol, rows, cols, n, device, count, keep, triplet_blocks, block_ends,
                                 triplet_indices, values2d, offsets)


def _compact_triplets(nrow, ncol, rows, cols, n, device, count, keep, triplet_blocks, block_ends, triplet_indices,
                      values2d, offsets):
    if offsets is None:
        offsets = wp.zeros(nrow + 1, dtype=int, device=device)
    else:
        offsets.zero_()  # (a fill, so that a replayed capture clears it too)
    columns = wp.empty(n, dtype=int, device=device)
    triplet_indices = wp.empty(n, dtype=int, device=device) if triplet_indices is None else triplet_indices
    block_ends = wp.empty(n, dtype=int, device=device) if block_ends is None else block_ends
    if triplet_blocks is not None:
        triplet_blocks.fill_(-1)
    if n == 0 or nrow == 0 or ncol == 0:
        return Compacted(nrow, ncol, n, offsets, columns, triplet_indices, block_ends, triplet_blocks)
    dummy = offsets[:1]
    bucket_starts, keys, bucketed = bucket_by_row(nrow, ncol, rows, cols, n, device, count, keep, values2d)
    distinct = wp.zeros(nrow + 1, dtype=int, device=device)
    slots = wp.empty(n, dtype=int, device=device)
    wp.launch(_sort_rows, nrow, inputs=[bucket_starts, keys, slots, distinct], device=device)
    wp.utils.array_scan(distinct, offsets, inclusive=False)
    wp.launch(_emit_blocks, nrow, inputs=[bucket_starts, keys, offsets, columns, triplet_indices, block_ends,
                                          dummy if triplet_blocks is None else triplet_blocks,
                                          int(triplet_blocks is not None)], device=device)
    return Compacted(nrow, ncol, n, offsets, columns, triplet_indices, block_ends, triplet_blocks, bucketed, slots)


# --- where compact blocks go in a destination that keeps its own storage ---------------------
@wp.kernel(enable_backward=False)
def _padded_layout(offsets: wp.array(dtype=int), columns: wp.array(dtype=int), dest_offsets: wp.array(dtype=int),
                   dest_row_counts: wp.array(dtype=int), dest_columns: wp.array(dtype=int),
                   dest_of: wp.array(dtype=int), status: wp.array(dtype=int)):
    r = wp.tid()
    begin = offsets[r]
    n = offsets[r + 1] - begin
    capacity = dest_offsets[r + 1] - dest_offsets[r]
    kept = n
    if n > capacity:
        kept = 0  # as Warp: a row that does not fit is left empty (not cut), and the status says so
        status[0] = 1  # BSR_STATUS_ROW_CAPACITY_EXCEEDED
    dest_row_counts[r] = kept
    for i in range(n):
        if i < kept:
            dest_of[begin + i] = dest_offsets[r] + i
            dest_columns[dest_offsets[r] + i] = columns[begin + i]
        else:
            dest_of[begin + i] = -1


@wp.func
def find_block(columns: wp.array(dtype=int), lo_in: int, hi_in: int, col: int):
    """The slot in [lo, hi) of a row whose column is col (columns sorted), or -1."""
    lo = lo_in
    hi = hi_in
    while lo < hi:
        mid = (lo + hi) // 2
        c = columns[mid]
        if c < col:
            lo = mid + 1
        else:
            hi = mid
    found = -1
    if lo < hi_in:  # noqa: SIM102 (in a kernel the inner read must not run when the outer test fails)
        if columns[lo] == col:
            found = lo
    return found


@wp.kernel(enable_backward=False)
def _masked_layout(offsets: wp.array(dtype=int), columns: wp.array(dtype=int), dest_offsets: wp.array(dtype=int),
                   dest_row_counts: wp.array(dtype=int), dest_padded: int, dest_columns: wp.array(dtype=int),
                   dest_of: wp.array(dtype=int)):
    r = wp.tid()
    lo = dest_offsets[r]
    hi = dest_offsets[r + 1]
    if dest_padded != 0:
        hi = lo + dest_row_counts[r]
    for b in range(offsets[r], offsets[r + 1]):
        dest_of[b] = find_block(dest_columns, lo, hi, columns[b])


def padded_layout(comp: Compacted, dest) -> array:
    """Write comp's columns into the reserved rows of padded `dest` (its row_counts too); returns
    where each compact block goes (-1 past a row's capacity, which sets dest's status)."""
    dest_of = wp.empty(max(comp.n, 1), dtype=int, device=dest.device)
    if comp.nrow:
        wp.launch(_padded_layout, comp.nrow, inputs=[comp.offsets, comp.columns, dest.offsets, dest.row_counts,
                                                     dest.columns, dest_of, dest._ensure_status()],
                  device=dest.device, record_tape=False)
    return dest_of


def masked_layout(comp: Compacted, dest) -> array:
    """Where each compact block goes in dest's existing topology (-1 where dest has no such block)."""
    dest_of = wp.empty(max(comp.n, 1), dtype=int, device=dest.device)
    if comp.nrow:
        counts = dest.row_counts if dest.padded else dest.offsets
        wp.launch(_masked_layout, comp.nrow, inputs=[comp.offsets, comp.columns, dest.offsets, counts,
                                                     int(dest.padded), dest.columns, dest_of], device=dest.device,
                  record_tape=False)
    return dest_of
