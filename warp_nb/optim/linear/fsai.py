"""`FSAI`: an adaptive factorized sparse approximate inverse of an SPD BSR matrix, M = G^T G with
G sparse lower triangular, applied as two sparse products (no triangular solves).

Row i of G is chosen greedily on the equilibrated matrix E = D^-1/2 A D^-1/2 (D = diag A; blocks
are expanded into scalars): the support starts at {i}, and each step adds the at most
`max_step_size` columns c < i adjacent (in A's stored pattern) to the support with the largest
|E[c, S] z| (ties: smaller column first; zero scores never), where z solves E[S, S] z = e_i. Growth
stops at `max_row_size` entries, when no candidate is left, or when a step improves the local
energy z_i by a relative amount at most `kap_tolerance` (0 disables this test). A step whose
Cholesky pivot (in growth order, on E's scale) is at or below `pivot_floor` is taken back and the
row ends there (`truncated_rows` counts such rows). Then G[i, S] = z / sqrt(z_i D[S]).

Where warp_nb differs from Warp: the pattern selection and the local solves run on the host in
numpy (one small dense solve per row), not in a device kernel, so construction and `update` cost
host time proportional to the rows (fine for the small and medium systems of the tests and labs,
slow for millions of rows) and read the matrix back; the application is warp_nb kernels.
`defer_pattern` (M is the identity until the first `update` selects the pattern) and
`regularize_refit` (a row that cannot be refit keeps its diagonal; `update_status` counts such
rows) follow Warp's tests."""

import functools
import math

import numpy as np

import warp_nb as wp

from ... import types as T
from .operator import LinearOperator, is_bsr, scalars

_NUMPY = {wp.float16: np.float16, wp.float32: np.float32, wp.float64: np.float64}


class FSAI(LinearOperator):
    """Adaptive FSAI preconditioner of the SPD BsrMatrix A (square blocks, float16/32/64).
    `G` and `GT` are the factor and its transpose (scalar BsrMatrix, `factor_dtype`); `matvec`
    computes z = alpha G^T G x + beta y. With `reuse_pattern`, `update(A)` refits the values on
    the same pattern (A of the same shape, dtype, device and sparsity)."""

    def __init__(self, A, max_row_size=8, kap_tolerance=1.0e-3, pivot_floor=None, factor_dtype=None,
                 reuse_pattern=False, max_step_size=1, regularize_refit=False, validate_topology=True,
                 defer_pattern=False):
        for name, value in (("max_row_size", max_row_size), ("max_step_size", max_step_size)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value <= 64:
                raise ValueError(f"FSAI: {name} must be an integer in [1, 64], got {value!r}")
        if not (isinstance(kap_tolerance, (int, float)) and math.isfinite(kap_tolerance)
                and 0.0 <= kap_tolerance < 1.0):
            raise ValueError(f"FSAI: kap_tolerance must be in [0, 1), got {kap_tolerance!r}")
        if pivot_floor is not None and not (isinstance(pivot_floor, (int, float)) and 0.0 < pivot_floor < 1.0):
            raise ValueError(f"FSAI: pivot_floor must be in (0, 1), got {pivot_floor!r}")
        if defer_pattern and not reuse_pattern:
            raise ValueError("FSAI: defer_pattern needs reuse_pattern=True (the deferred pattern is kept for refits)")
        scalar = _check_matrix(A, check_values=not defer_pattern)
        if factor_dtype is None:
            factor_dtype = scalar
        allowed = (scalar,) if scalar is not wp.float64 else (wp.float64, wp.float32)
        if factor_dtype not in allowed:
            raise ValueError(f"FSAI: factor_dtype must be one of {[T.type_name(t) for t in allowed]} for a "
                             f"{T.type_name(scalar)} matrix, got {getattr(factor_dtype, '__name__', factor_dtype)}")
        if reuse_pattern and A.row_counts is not None:
            raise ValueError("FSAI: reuse_pattern needs a compact matrix (row_counts is None); compact it with "
                             "warp.sparse.bsr_compress first")
        self.max_row_size, self.max_step_size = int(max_row_size), int(max_step_size)
        self.kap_tolerance = float(kap_tolerance)
        self.pivot_floor = float(pivot_floor) if pivot_floor is not None else _default_pivot_floor(scalar)
        self.factor_dtype = factor_dtype
        self.reuse_pattern = bool(reuse_pattern)
        self.validate_topology = bool(validate_topology)
        self.regularize_refit = bool(regularize_refit)
        self.source = A
        n = A.shape[0]
        super().__init__((n, n), scalar, A.device, self._apply)
        self._refit = _Refit()
        self.update_status = wp.zeros(4, dtype=wp.int32, device=A.device)
        self.pattern_status = wp.zeros(2, dtype=wp.int32, device=A.device)
        self.pattern_ready = wp.zeros(1, dtype=wp.int32, device=A.device)
        self._tmp = {}
        # the block topology refits are compared against (on the device)
        self._block_topology = (wp.clone(A.offsets), wp.clone(A.columns[:max(A.nnz_sync(), 0)]))
        self._topology = _scalar_csr(A)[:2]
        if defer_pattern:  # G = I (M is the identity) until the first update brings the values
            n = self.shape[0]
            self._supports, self.truncated_rows = [np.array([i]) for i in range(n)], None
            self._build(np.ones(n, dtype=_NUMPY[factor_dtype]))
        else:
            self._select_and_build(A)

    def _select_and_build(self, A, regularize=False):
        offsets, columns, values = _scalar_csr(A)
        if self.shape[0] and not regularize:
            _check_diagonal(offsets, columns, values)
        supports, truncated = _select(offsets, columns, values, self.max_row_size, self.max_step_size,
                                      self.kap_tolerance, self.pivot_floor)
        g, status = _factor_values(supports, offsets, columns, values, self.pivot_floor, self.factor_dtype,
                                   strict=False, regularize=regularize)
        self.update_status.assign(status)
        self._supports, self.truncated_rows = supports, truncated
        self._build(g)
        self.pattern_ready.fill_(1)
        self.pattern_status.assign(np.array([0, truncated], dtype=np.int32))

    def update(self, A=None):
        """Refit G's values to A (or to `source`'s current values) on the pattern chosen at
        construction; returns self. A matrix whose local systems are not SPD, whose sparsity
        differs, or whose factor does not fit `factor_dtype` raises ValueError and leaves G as it was."""
        if not self.reuse_pattern:
            raise ValueError("FSAI.update needs reuse_pattern=True at construction")
        if A is None:
            A = self.source
        if not is_bsr(A):
            raise ValueError(f"FSAI.update takes a warp.sparse BSR matrix, got {type(A).__name__}")
        if tuple(A.shape) != self.shape or A.scalar_type is not self.scalar_type or A.device != self.device \
                or A.block_shape[0] != A.block_shape[1]:
            raise ValueError("FSAI.update: the matrix must keep the construction's shape, dtype, device and "
                             "square blocks")
        if self.shape[0] == 0:
            return self
        if self.validate_topology and not self._same_topology(A):
            raise ValueError("FSAI.update: the matrix's sparsity pattern differs from the construction's")
        if self.pattern_ready.numpy()[0] == 0:  # deferred: this update chooses the pattern
            self._select_and_build(A, regularize=self.regularize_refit)
            self.source = A
            return self
        offsets, columns, values = _scalar_csr(A)
        if not self.regularize_refit:
            self.update_status.zero_()
            _check_diagonal(offsets, columns, values)
        g, status = _factor_values(self._supports, offsets, columns, values, self.pivot_floor, self.factor_dtype,
                                   strict=True, regularize=self.regularize_refit)
        self.update_status.assign(status)
        self.G.values.assign(g)
        self.GT.values.assign(g[self._transpose_order])
        self.source = A
        return self

    def _same_topology(self, A) -> bool:
        offsets, columns = self._block_topology
        nnz = A.nnz_sync()
        if A.row_counts is not None or A.offsets.shape[0] < offsets.shape[0] or nnz != columns.shape[0]:
            return False
        mismatch = wp.zeros(1, dtype=wp.int32, device=self.device)
        for mine, theirs in ((offsets, A.offsets), (columns, A.columns)):
            if mine.shape[0]:
                wp.launch(_compare_topology, dim=mine.shape[0], inputs=[mine, theirs, mismatch], device=self.device)
        return int(mismatch.numpy()[0]) == 0

    # -- the factor and its application ---------------------------------------------------

    def _build(self, g):
        from ...sparse import bsr_from_triplets, bsr_zeros

        n = self.shape[0]
        rows = np.repeat(np.arange(n, dtype=np.int32), [len(s) for s in self._supports]) if n else \
            np.zeros(0, np.int32)
        cols = np.concatenate([np.sort(s) for s in self._supports]).astype(np.int32) if n else np.zeros(0, np.int32)
        if n == 0:
            self.G = bsr_zeros(0, 0, self.factor_dtype, device=self.device)
            self.GT = bsr_zeros(0, 0, self.factor_dtype, device=self.device)
            self._transpose_order = np.zeros(0, np.int64)
            return
        # G's entries in row-major order; GT's are the same values in column-major order
        self._transpose_order = np.lexsort((rows, cols))
        fdt = self.factor_dtype

        def make(r, c, v):
            return bsr_from_triplets(n, n, wp.array(r, dtype=wp.int32, device=self.device),
                                     wp.array(c, dtype=wp.int32, device=self.device),
                                     wp.array(v, dtype=fdt, device=self.device), prune_numerical_zeros=False)

        self.G = make(rows, cols, g)
        order = self._transpose_order
        self.GT = make(cols[order], rows[order], g[order])

    def _apply(self, x, y, z, alpha, beta):
        n = self.shape[0]
        if n == 0:
            return
        xs, ys, zs = scalars(x), scalars(y), scalars(z)
        tmp_t = _tmp_type(self.factor_dtype, xs.dtype)
        tmp = self._tmp.get(tmp_t)
        if tmp is None:
            tmp = self._tmp[tmp_t] = wp.empty(n, dtype=tmp_t, device=self.device)
        # tmp = G x, then z = alpha G^T tmp + beta y (alpha = 0 never reads x: it may hold NaN)
        wp.launch(_matvec_kernel(self.factor_dtype, xs.dtype), dim=n,
                  inputs=[self.G.offsets, self.G.columns, self.G.values, xs, 0, tmp, xs, xs, float(alpha), 0.0],
                  device=self.device)
        wp.launch(_matvec_kernel(self.factor_dtype, xs.dtype), dim=n,
                  inputs=[self.GT.offsets, self.GT.columns, self.GT.values, xs, 1, tmp, ys, zs, float(alpha),
                          float(beta)], device=self.device)


class _Refit:
    """What Warp's refit machinery exposes to its tests: here the pattern selection is a host
    function (`select`), never a kernel launch, and a refit's checks run on the host."""

    select = None


@wp.kernel(enable_backward=False)
def _compare_topology(mine: wp.array(dtype=wp.int32), theirs: wp.array(dtype=wp.int32),
                      mismatch: wp.array(dtype=wp.int32)):
    i = wp.tid()
    if mine[i] != theirs[i]:
        mismatch[0] = 1


def _tmp_type(factor, scalar):
    """G x is kept in float64 when the factor or the vectors are float64, else in float32."""
    return wp.float64 if wp.float64 in (factor, scalar) else wp.float32


@functools.cache
def _matvec_kernel(factor, scalar):
    tmp_t = _tmp_type(factor, scalar)
    acc = tmp_t

    def fsai_product(offsets: wp.array(dtype=wp.int32), columns: wp.array(dtype=wp.int32),
                     values: wp.array(dtype=factor), x: wp.array(dtype=scalar), second: int,
                     tmp: wp.array(dtype=tmp_t), y: wp.array(dtype=scalar), z: wp.array(dtype=scalar),
                     alpha: wp.float64, beta: wp.float64):
        # first pass: tmp = G x; second: z = alpha GT tmp + beta y
        i = wp.tid()
        s = acc(0.0)
        if second == 0 or alpha != 0.0:
            for k in range(offsets[i], offsets[i + 1]):
                c = columns[k]
                if second == 0:
                    s += acc(values[k]) * acc(x[c])
                else:
                    s += acc(values[k]) * acc(tmp[c])
        if second == 0:
            tmp[i] = tmp_t(s)
        else:
            v = acc(alpha) * s
            if beta != 0.0:
                v += acc(beta) * acc(y[i])
            z[i] = scalar(v)

    return wp.kernel(fsai_product, key=f"fsai_product_{T.type_name(factor)}_{T.type_name(scalar)}",
                     enable_backward=False)


# -- host side: the matrix as scalar CSR, pattern selection, local solves ---------------------

def _check_matrix(A, check_values=True):
    if A is None or not is_bsr(A):
        raise ValueError(f"FSAI needs a square warp.sparse BsrMatrix, got {type(A).__name__}")
    if A.block_shape[0] != A.block_shape[1] or A.nrow != A.ncol:
        raise ValueError(f"FSAI needs a square matrix with square blocks, got shape {tuple(A.shape)} with blocks of "
                         f"{tuple(A.block_shape)}")
    scalar = A.scalar_type
    if scalar not in _NUMPY:
        raise TypeError(f"FSAI supports float16, float32 and float64 matrices, got {T.type_name(scalar)}")
    if A.shape[0] and check_values:
        _check_diagonal(*_scalar_csr(A))
    return scalar


def _default_pivot_floor(scalar) -> float:
    # pivots are on the equilibrated scale (unit diagonal); below eps^(3/4) a step is noise
    return float(np.finfo(_NUMPY[scalar]).eps) ** 0.75


def _scalar_csr(A):
    """(offsets, columns, values as float64) of A expanded to scalars, used slots only, columns sorted."""
    bs = A.block_shape[0]
    nrow = A.nrow
    offsets = A.offsets.numpy()[:nrow + 1].astype(np.int64)
    counts = np.diff(offsets) if A.row_counts is None else A.row_counts.numpy()[:nrow].astype(np.int64)
    nnz = int(offsets[-1]) if nrow else 0
    block_cols = A.columns.numpy()[:max(nnz, 0)].astype(np.int64)
    values = A.values.numpy()[:max(nnz, 0)].astype(np.float64).reshape(-1, bs, bs)
    rows, cols, vals = [], [], []
    for r in range(nrow):
        slots = np.arange(offsets[r], offsets[r] + counts[r])
        for i in range(bs):
            rows.append(np.full(len(slots) * bs, r * bs + i))
            cols.append((block_cols[slots][:, None] * bs + np.arange(bs)[None, :]).ravel())
            vals.append(values[slots, i, :].ravel())
    n = nrow * bs
    if not rows:
        return np.zeros(n + 1, np.int64), np.zeros(0, np.int64), np.zeros(0)
    rows, cols, vals = np.concatenate(rows), np.concatenate(cols), np.concatenate(vals)
    order = np.lexsort((cols, rows))
    rows, cols, vals = rows[order], cols[order], vals[order]
    return np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))]), cols, vals


def _diagonal(offsets, columns, values):
    n = len(offsets) - 1
    d = np.zeros(n)
    for i in range(n):
        cols = columns[offsets[i]:offsets[i + 1]]
        hit = np.flatnonzero(cols == i)
        d[i] = values[offsets[i] + hit[0]] if len(hit) else 0.0
    return d


def _check_diagonal(offsets, columns, values):
    d = _diagonal(offsets, columns, values)
    if not np.all(np.isfinite(d) & (d > 0)):
        raise ValueError("FSAI needs a matrix with finite positive diagonals (an SPD matrix)")
    return d


def _local_solve(E, support, pivot_floor):
    """z with E[S, S] z = e_0 (S in growth order, its first entry the row), or None when a
    Cholesky pivot of E[S, S] in that order (the squared diagonal of its factor) is at or below
    pivot_floor."""
    sub = _block(E, support, support)
    try:
        L = np.linalg.cholesky(sub)
    except np.linalg.LinAlgError:
        return None
    pivots = np.diag(L) ** 2
    if not np.all(pivots > pivot_floor):  # NaN pivots fail too
        return None
    rhs = np.zeros(len(support))
    rhs[0] = 1.0
    return np.linalg.solve(sub, rhs)


def _block(E, rows, cols):
    """E[rows, cols] as a small dense matrix (E[r] maps a column to the equilibrated entry)."""
    return np.array([[E[r].get(c, 0.0) for c in cols] for r in rows], dtype=np.float64).reshape(len(rows), len(cols))


def _equilibrated(offsets, columns, values):
    """(diagonal, valid diagonals, E): E[r] maps column c to a_rc / sqrt(d_r d_c), for rows and
    columns whose diagonal is finite and positive (the others are left out)."""
    d = _diagonal(offsets, columns, values)
    n = len(d)
    valid = np.isfinite(d) & (d > 0)
    s = np.where(valid, 1.0 / np.sqrt(np.where(valid, d, 1.0)), 0.0)
    rows = np.repeat(np.arange(n), np.diff(offsets))
    scaled = values * s[rows] * s[columns]
    keep = (valid[rows] & valid[columns]).tolist()
    cols, vals = columns.tolist(), scaled.tolist()
    E = []
    for r in range(n):
        lo, hi = int(offsets[r]), int(offsets[r + 1])
        E.append({cols[k]: vals[k] for k in range(lo, hi) if keep[k]})
    return d, valid, E


def _select(offsets, columns, values, max_row_size, max_step_size, kap_tolerance, pivot_floor):
    """Each row's support (growth order, the row first) and the count of rows a pivot truncated.
    A row or column without a valid diagonal is never a candidate (its own row stays {i})."""
    n = len(offsets) - 1
    _, valid, E = _equilibrated(offsets, columns, values)
    supports, truncated = [], 0
    for i in range(n):
        support, z = [i], np.ones(1)
        while valid[i] and len(support) < max_row_size:
            # scores |E[c, S] z| of the columns c < i next to the support (E is symmetric: summed
            # over the support's rows)
            members = set(support)
            scores = {}
            for k, row in enumerate(support):
                zk = float(z[k])
                for c, e in E[row].items():
                    if c < i and c not in members:
                        scores[c] = scores.get(c, 0.0) + e * zk
            scored = sorted(((abs(v), c) for c, v in scores.items()), key=lambda t: (-t[0], t[1]))
            chosen = [c for score, c in scored if score > 0][:min(max_step_size, max_row_size - len(support))]
            if not chosen:
                break
            znew = _local_solve(E, support + chosen, pivot_floor)
            if znew is None:
                truncated += 1
                break
            old = z[0]
            support, z = support + chosen, znew
            if kap_tolerance > 0 and 1.0 - old / z[0] <= kap_tolerance:
                break
        supports.append(np.array(support, dtype=np.int64))
    return supports, truncated


def _factor_values(supports, offsets, columns, values, pivot_floor, factor_dtype, strict, regularize=False):
    """(G's values: rows in order, columns ascending, in factor_dtype; status). strict: a local
    system with a pivot at or below pivot_floor raises. regularize: such a row, or one whose
    support meets an invalid diagonal, keeps only its diagonal 1/sqrt(a_ii) (a unit diagonal when
    a_ii itself is invalid), and status counts [0, invalid diagonals, rows meeting one, rows
    whose local system was rejected]."""
    d, valid, E = _equilibrated(offsets, columns, values)
    status = np.zeros(4, dtype=np.int32)
    status[1] = int(np.count_nonzero(~valid)) if regularize else 0
    out = []
    for i, support in enumerate(supports):
        order = np.argsort(support)
        diagonal_only = np.zeros(len(support))
        diagonal_only[0] = 1.0 / math.sqrt(d[i]) if valid[i] else 1.0
        if regularize and not np.all(valid[support]):
            status[2] += 1
            out.append(diagonal_only[order])
            continue
        z = _local_solve(E, list(support), pivot_floor if (strict or regularize) else 0.0)
        if z is None:
            if regularize:
                status[3] += 1
                out.append(diagonal_only[order])
                continue
            if strict:
                raise ValueError(f"FSAI.update: the local system of row {i} is not SPD (a pivot at or below "
                                 f"pivot_floor={pivot_floor:g}); the factor is unchanged")
            z = np.linalg.solve(_block(E, support, support), np.eye(len(support))[0])
        row = z / np.sqrt(z[0] * d[support])
        out.append(row[order])
    g = np.concatenate(out) if out else np.zeros(0)
    with np.errstate(over="ignore", under="ignore"):
        cast = g.astype(_NUMPY[factor_dtype])
    ends = np.cumsum([len(s) for s in supports])
    diag_slots = (ends - 1).astype(np.int64)  # the diagonal is each row's last (largest) column
    if not np.all(np.isfinite(cast)) or (len(diag_slots) and not np.all(cast[diag_slots] > 0)):
        raise ValueError(f"FSAI: the factor does not fit factor_dtype {T.type_name(factor_dtype)} with a positive "
                         "diagonal (the matrix is too badly scaled for it)")
    return cast, status
