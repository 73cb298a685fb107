"""`warp.sparse`, Warp's block sparse row (BSR) matrices, written as warp_nb kernels: the matrix
type and its allocation (matrix.py), construction from triplets and compression (triplets.py),
copies, transposes and diagonals (structure.py), sums and products (arithmetic.py), the
matrix-vector product (mv.py) and the functions kernels call (funcs.py). Every topology change
goes through one device-side triplet compaction (buckets.py, topology.py, assemble.py), and every
value kernel is made per scalar type over blocks seen as rows of scalars (values.py)."""

from .arithmetic import bsr_axpy, bsr_axpy_work_arrays, bsr_mm, bsr_mm_work_arrays, bsr_scale  # noqa: F401
from .funcs import bsr_block_index, bsr_row_index  # noqa: F401
from .matrix import (  # noqa: F401
    BSR_STATUS_ROW_CAPACITY_EXCEEDED,
    BSR_STATUS_SUCCESS,
    BsrMatrix,
    bsr_matrix_t,
    bsr_set_zero,
    bsr_zeros,
)
from .mv import bsr_mv  # noqa: F401
from .structure import (  # noqa: F401
    bsr_assign,
    bsr_copy,
    bsr_diag,
    bsr_get_diag,
    bsr_identity,
    bsr_set_diag,
    bsr_set_identity,
    bsr_set_transpose,
    bsr_transposed,
)
from .triplets import (  # noqa: F401
    BsrTripletMap,
    bsr_compress,
    bsr_from_triplets,
    bsr_set_from_mapped_values,
    bsr_set_from_triplets,
)


def bsr_nnz(A: BsrMatrix) -> int:
    """The number of stored blocks (read from the device)."""
    return A.nnz_sync()
