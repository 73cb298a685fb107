"""`warp.sparse` (block sparse matrices) is not part of warp_nb yet. This module holds the one
piece other code already reaches for, `bsr_row_index`; anything else raises an error that says
so (see docs/compat.md)."""

from ..program.func import func
from ..types.array_type import ArrayType
from ..types.scalars import int32


@func
def bsr_row_index(offsets: ArrayType(int32, 1), row_count: int32, block_index: int32):
    """The row of a BSR matrix that holds block `block_index`: the row r with
    offsets[r] <= block_index < offsets[r + 1], or -1 when the index is past the last block."""
    lo = int(0)
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


def __getattr__(name):
    raise AttributeError(f"warp.sparse.{name} is not available in warp_nb yet: only bsr_row_index is "
                         "(block sparse matrices are planned; see docs/compat.md)")
