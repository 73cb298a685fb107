"""Dirichlet conditions by projection, as Warp's fem does it: a projector matrix P (assembled from
a boundary integrand, one diagonal block per constrained node) and fixed values g give
    system <- (I - P) system (I - P) + P
    rhs    <- (I - P) (rhs - system P g) + P g.
`normalize_dirichlet_projector` first scales P's diagonal blocks so that P is idempotent (each
block B becomes B B^+, the projector onto its range) and g by the same scaling (g <- B^+ g), so
that integrals of the boundary value give the value itself. That scaling runs on the host with
numpy over the diagonal blocks; the projections are warp_nb.sparse products."""

from __future__ import annotations

import functools

import numpy as np

import warp_nb as wp

from .. import types as T

from ..sparse import BsrMatrix, bsr_assign, bsr_axpy, bsr_identity, bsr_mm, bsr_mv


def _check_projector(P) -> None:
    if not isinstance(P, BsrMatrix):
        raise TypeError(f"the projector must be a warp.sparse BsrMatrix, got {type(P).__name__}")
    if P.nrow != P.ncol:
        raise ValueError(f"the projector must be square, got {P.nrow} x {P.ncol} blocks")


def _block_rows(P) -> tuple:
    """(rows, columns, values) of P's stored blocks, on the host."""
    offsets = P.offsets.numpy()[:P.nrow + 1]
    counts = np.diff(offsets)
    if P.row_counts is not None:
        counts = np.minimum(counts, P.row_counts.numpy()[:P.nrow])
    rows = np.repeat(np.arange(P.nrow), np.diff(offsets))
    slots = np.arange(offsets[-1]) - np.repeat(offsets[:-1], np.diff(offsets))
    active = slots < np.repeat(counts, np.diff(offsets))
    return rows, P.columns.numpy()[:offsets[-1]], active


def normalize_dirichlet_projector(projector_matrix, fixed_value=None) -> None:
    """Scale the projector's diagonal blocks so that it becomes idempotent, and `fixed_value` by the
    same scaling (both in place). Off-diagonal blocks are left as they are."""
    P = projector_matrix
    _check_projector(P)
    rows, cols, active = _block_rows(P)
    values = P.values.numpy()
    count = len(rows)
    blocks = values[:count]
    diagonal = np.nonzero((rows == cols) & active)[0]
    fixed = None
    if fixed_value is not None:
        if fixed_value.shape[0] != P.nrow:
            raise ValueError(f"fixed_value must have one entry per row of the projector ({P.nrow}), got "
                             f"{fixed_value.shape[0]}")
        fixed = fixed_value.numpy().copy()
    if blocks.ndim == 1:  # scalar blocks
        b = blocks[diagonal].astype(np.float64)
        safe = np.where(b != 0.0, b, 1.0)
        blocks[diagonal] = np.where(b != 0.0, 1.0, 0.0)
        if fixed is not None:
            r = rows[diagonal]
            fixed[r] = np.where(b != 0.0, fixed[r] / safe, fixed[r])
    else:
        b = blocks[diagonal].astype(np.float64)
        # eigenvalues at the rounding level of the stored blocks are zero: a rank-1 block n n^T in float32
        # keeps ~1e-8 eigenvalues that numpy's default cut (1e-15) would turn into spurious directions
        eps = np.finfo(blocks.dtype if blocks.dtype.kind == "f" else np.float32).eps
        pinv = np.linalg.pinv(b, rcond=10.0 * b.shape[-1] * eps, hermitian=True)
        blocks[diagonal] = np.einsum("nij,njk->nik", b, pinv)
        if fixed is not None:
            r = rows[diagonal]
            shape = fixed[r].shape
            fixed[r] = np.einsum("nij,nj->ni", pinv, fixed[r].reshape(len(r), -1)).reshape(shape)
    values[:count] = blocks
    P.values.assign(values)
    if fixed is not None:
        fixed_value.assign(fixed)


def project_system_rhs(system_matrix, system_rhs, projector_matrix, fixed_value=None) -> None:
    """rhs <- (I - P) (rhs - system P g) + P g, in place (g: fixed_value, zero if not given)."""
    _check_projector(projector_matrix)
    P = projector_matrix
    rhs = system_rhs
    if fixed_value is None:
        fixed_value = wp.zeros_like(rhs)
    pg = bsr_mv(P, fixed_value)
    residual = wp.clone(rhs)
    bsr_mv(system_matrix, pg, residual, alpha=-1.0, beta=1.0)  # rhs - S P g
    p_res = bsr_mv(P, residual)
    out = residual.numpy() - p_res.numpy() + pg.numpy()
    rhs.assign(out.astype(rhs.numpy().dtype))


def _is_block_diagonal(P) -> bool:
    rows, cols, active = _block_rows(P)
    return bool(np.all((rows == cols) | ~active))


@functools.cache
def _diagonal_projection_kernel(block_type):
    """Per block (r, c) of the system: (I - P_r) S_rc (I - P_c), plus P_r on the diagonal."""
    scalar = T.type_is_float(block_type) or T.type_is_int(block_type)
    rows = 1 if scalar else block_type._shape_[0]
    scalar_type = block_type if scalar else T.type_scalar_type(block_type)

    def project(offsets: wp.array(dtype=int), columns: wp.array(dtype=int), values: wp.array(dtype=block_type),
                diag: wp.array(dtype=block_type)):
        r = wp.tid()
        pr = diag[r]
        for b in range(offsets[r], offsets[r + 1]):
            c = columns[b]
            pc = diag[c]
            if wp.static(scalar):
                v = (block_type(1.0) - pr) * values[b] * (block_type(1.0) - pc)
            else:
                one = wp.identity(n=rows, dtype=scalar_type)
                v = (one - pr) * values[b] * (one - pc)
            if c == r:
                v = v + pr
            values[b] = v

    return wp.kernel(project, key=f"fem_project_block_diagonal_{T.type_name(block_type)}")


def project_system_matrix(system_matrix, projector_matrix, projector_structure: str = "general") -> None:
    """system <- (I - P) system (I - P) + P, in place. A block-diagonal projector (what nodal
    assembly makes; `projector_structure="block_diagonal"` asserts it) is applied block by block in
    one kernel, keeping the system's sparsity; any other takes sparse products."""
    _check_projector(projector_matrix)
    if projector_structure not in ("general", "block_diagonal"):
        raise ValueError(f"projector_structure must be 'general' or 'block_diagonal', got {projector_structure!r}")
    P, S = projector_matrix, system_matrix
    if (projector_structure == "block_diagonal" or _is_block_diagonal(P)) and S.row_counts is None \
            and S.values.dtype == P.values.dtype:
        from ..sparse import bsr_get_diag
        wp.launch(_diagonal_projection_kernel(S.values.dtype), dim=S.nrow, device=S.device,
                  inputs=[S.offsets, S.columns, S.values, bsr_get_diag(P)])
        return
    complement = bsr_identity(P.nrow, block_type=P.values.dtype, device=P.device)
    bsr_axpy(P, complement, alpha=-1.0, beta=1.0)  # I - P
    left = bsr_mm(complement, S)
    result = bsr_mm(left, complement)
    bsr_axpy(P, result)
    bsr_assign(dest=S, src=result)


def project_linear_system(system_matrix, system_rhs, projector_matrix, fixed_value=None,
                          normalize_projector: bool = True, projector_structure: str = "general") -> None:
    """Both projections (the right-hand side first, with the system as given), after normalising
    the projector when `normalize_projector`."""
    if normalize_projector:
        normalize_dirichlet_projector(projector_matrix, fixed_value)
    project_system_rhs(system_matrix, system_rhs, projector_matrix, fixed_value)
    project_system_matrix(system_matrix, projector_matrix, projector_structure)


__all__ = ["normalize_dirichlet_projector", "project_linear_system", "project_system_matrix", "project_system_rhs"]
