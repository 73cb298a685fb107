"""Functions kernels call on a matrix's arrays (Warp's kernel API of warp.sparse): the row that
holds a block, and the block at a (row, column)."""

import warp_nb as wp


@wp.func
def bsr_row_index(offsets: wp.array(dtype=int), row_count: int, block_index: int):
    """The row of a BSR matrix that holds block `block_index`: the row r with
    offsets[r] <= block_index < offsets[r + 1], or -1 when the index is past the last block."""
    lo = 0
    hi = row_count
    if block_index >= offsets[row_count] or block_index < 0:
        return -1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if offsets[mid] <= block_index:
            lo = mid
        else:
            hi = mid
    return lo


@wp.func
def bsr_block_index(row: int, col: int, bsr_offsets: wp.array(dtype=int), bsr_columns: wp.array(dtype=int)):
    """The index of the block at (row, col), or -1 when the matrix has none there (the row's
    columns are sorted, as warp.sparse stores them)."""
    if row < 0:
        return -1
    lo = bsr_offsets[row]
    hi = bsr_offsets[row + 1]
    while lo < hi:
        mid = (lo + hi) // 2
        if bsr_columns[mid] < col:
            lo = mid + 1
        else:
            hi = mid
    found = -1
    if lo < bsr_offsets[row + 1]:  # noqa: SIM102 (in a kernel the inner read must not run when the outer test fails)
        if bsr_columns[lo] == col:
            found = lo
    return found
