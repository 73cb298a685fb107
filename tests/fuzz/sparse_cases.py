"""The work one side of sparse_against_warp does, for whichever module it is given as `wp` (warp or
warp_nb): random BSR matrices through every `warp.sparse` operation, and random systems through
`warp.optim.linear`'s solvers, each result recorded as plain numpy arrays under a key.

Every operation draws its random numbers from a generator of its own, seeded by (seed, case, name),
so that an operation that raises on one side does not shift the numbers the next one draws."""

from __future__ import annotations

import numpy as np

from tests.fuzz.two_sides import hash_str

BLOCK_SHAPES = ((1, 1), (2, 2), (3, 3), (2, 3), (3, 1))
PRECONDITIONERS = (None, "diag", "diag_abs", "block_jacobi_direct", "block_jacobi_sequential",
                   "block_jacobi_tile", "fsai")


class Recorder:
    """Results by key: a matrix as its dense array and its structure, an array as numpy, an
    operation that raised as `key.err` (the exception's class and message)."""

    def __init__(self, wp, seed: int):
        self.wp, self.seed, self.out = wp, seed, {}

    def rng(self, *path) -> np.random.Generator:
        return np.random.default_rng([self.seed, *[abs(hash_str(p)) for p in path]])

    def run(self, key: str, fn):
        """fn() under key; an exception is recorded, not raised. Returns fn's result or None."""
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 - what raised is the result
            self.out[f"{key}.err"] = np.array(f"{type(e).__name__}: {str(e)[:160]}")
            return None

    def matrix(self, key: str, M, values: bool = True) -> None:
        """M's structure, nnz and properties; its values and dense array unless `values` is False
        (storage Warp leaves uninitialized)."""
        if M is None:
            return
        self.run(key, lambda: self._matrix(key, M, values))

    def _matrix(self, key: str, M, values: bool) -> None:
        if not hasattr(M, "nnz_sync"):  # Warp's lazy expressions (`2.0 * A`) evaluate when asked
            M = M.eval()
        # whether the host-side nnz bound is 0 (Warp's bsr_axpy and bsr_mm take shortcuts on it)
        self.out[f"{key}.bound0"] = np.array([M.nnz == 0])
        nrow, ncol = M.nrow, M.ncol
        bs = tuple(M.block_shape)
        nnz = M.nnz_sync()
        offsets = M.offsets.numpy()[: nrow + 1].astype(np.int64)
        counts = M.row_counts.numpy()[:nrow] if getattr(M, "row_counts", None) is not None else np.diff(offsets)
        slots = np.concatenate([np.arange(b, b + n) for b, n in zip(offsets[:-1], counts)] or [np.zeros(0, int)])
        slots = slots.astype(np.int64)
        cols = M.columns.numpy()[slots].astype(np.int64)
        self.out[f"{key}.meta"] = np.array([nrow, ncol, *bs, nnz, np.dtype(self.np_scalar(M.scalar_type)).itemsize,
                                            *M.shape])
        self.out[f"{key}.structure"] = np.concatenate([offsets, counts, cols]).astype(np.int64)
        if values:
            vals = M.values.numpy().reshape(-1, *bs)[slots].astype(np.float64) if len(slots) else np.zeros((0, *bs))
            dense = np.zeros((nrow * bs[0], ncol * bs[1]))
            for r, c, v in zip(np.repeat(np.arange(nrow), counts), cols, vals):
                dense[r * bs[0]: (r + 1) * bs[0], c * bs[1]: (c + 1) * bs[1]] += v
            self.out[f"{key}.values"] = vals
            self.out[f"{key}.dense"] = dense

    def array(self, key: str, a) -> None:
        if a is not None:
            self.run(key, lambda: self.out.__setitem__(key, np.asarray(a.numpy(), dtype=np.float64)))

    def np_scalar(self, s):
        return np.float32 if s is self.wp.float32 else np.float64 if s is self.wp.float64 else np.float16


def draw_values(rng, shape, dyadic: bool) -> np.ndarray:
    """Values in [-2, 2]: multiples of 1/8 when dyadic (sums and products of a few are exact in
    float32, so results agree to the bit whatever the summation order), else uniform."""
    if dyadic:
        return rng.integers(-16, 17, shape) / 8.0
    return rng.uniform(-2, 2, shape)


def draw_triplets(rng, nrow: int, ncol: int, bs: tuple, dyadic: bool):
    """Triplets with duplicates, explicit zero blocks, pairs that cancel and rows left empty."""
    n = int(rng.integers(0, min(3, ncol) * max(nrow, 1) + 2)) if nrow and ncol else 0
    rows = rng.integers(0, max(nrow, 1), n)
    cols = rng.integers(0, max(ncol, 1), n)
    vals = draw_values(rng, (n, *bs), dyadic)
    if n:
        vals[rng.random(n) < 0.2] = 0.0  # explicit zero blocks
        k = int(rng.integers(0, 3))  # duplicates that cancel each other
        pick = rng.integers(0, n, k)
        rows, cols, vals = np.concatenate([rows, rows[pick]]), np.concatenate([cols, cols[pick]]), \
            np.concatenate([vals, -vals[pick]])
        perm = rng.permutation(len(rows))
        rows, cols, vals = rows[perm], cols[perm], vals[perm]
    return rows.astype(np.int32), cols.astype(np.int32), vals


class Case:
    """One block shape and scalar type: the side's module, its scalar and block types, and helpers
    to make matrices and vectors of them from numpy data."""

    def __init__(self, rec: Recorder, name: str, bs: tuple, f64: bool, dyadic: bool):
        wp = self.wp = rec.wp
        self.rec, self.name, self.bs, self.dyadic = rec, name, bs, dyadic
        self.scalar = wp.float64 if f64 else wp.float32
        self.other_scalar = wp.float32 if f64 else wp.float64
        self.np = np.float64 if f64 else np.float32

    def block_type(self, bs, scalar=None):
        scalar = scalar or self.scalar
        return scalar if bs == (1, 1) else self.wp.types.matrix(shape=bs, dtype=scalar)

    def values_array(self, vals, bs, as_blocks: bool):
        """Triplet values as a 3-d scalar array, or as a 1-d array of blocks (scalars for 1 x 1)."""
        wp = self.wp
        if bs == (1, 1):
            return wp.array(vals.reshape(-1).astype(self.np), dtype=self.scalar)
        if as_blocks:
            return wp.array(vals.astype(self.np), dtype=self.block_type(bs))
        return wp.array(vals.astype(self.np), dtype=self.scalar)

    def from_triplets(self, tag, nrow, ncol, bs, prune=True):
        rows, cols, vals = draw_triplets(self.rec.rng(self.name, tag), nrow, ncol, bs, self.dyadic)
        wp = self.wp
        return self.wp.sparse.bsr_from_triplets(nrow, ncol, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                                                self.values_array(vals, bs, False), prune_numerical_zeros=prune)

    def vector(self, tag, n, length):
        rng = self.rec.rng(self.name, tag)
        v = draw_values(rng, (n, length), self.dyadic).astype(self.np)
        if length == 1:
            return self.wp.array(v.reshape(-1), dtype=self.scalar)
        return self.wp.array(v, dtype=self.wp.types.vector(length=length, dtype=self.scalar))

    def scalars(self, tag, k):
        """k factors (alpha, beta): multiples of 1/8, one in six 0 and one in six 1, where Warp's
        operations take shortcuts."""
        rng = self.rec.rng(self.name, tag)
        special = rng.choice([0.0, 1.0, np.nan], k, p=[1 / 6, 1 / 6, 2 / 3])
        return [float(v if not np.isnan(v) else a) for v, a in zip(special, draw_values(rng, k, True))]


def sparse_case(rec: Recorder, index: int) -> None:
    """One block shape, scalar type and size through every operation of warp.sparse."""
    wp, rng = rec.wp, rec.rng("sparse", index)
    bs = BLOCK_SHAPES[int(rng.integers(len(BLOCK_SHAPES)))]
    f64, dyadic = bool(rng.integers(2)), bool(rng.random() < 0.7)
    nrow, ncol = (int(v) for v in rng.integers(0, 8, 2))
    if rng.random() < 0.9:  # a matrix with no rows or no columns one case in ten or so
        nrow, ncol = max(nrow, 1), max(ncol, 1)
    if rng.random() < 0.25:  # and one in four larger, with long rows (sorting, products)
        nrow, ncol = (int(v) for v in rng.integers(8, 41, 2))
    c = Case(rec, f"sparse{index}", bs, f64, dyadic)
    sp, k = wp.sparse, c.name
    rec.out[f"{k}.about"] = np.array(f"block {bs}, {'float64' if f64 else 'float32'}, {nrow} x {ncol} blocks, "
                                     f"{'dyadic' if dyadic else 'uniform'} values")
    rec.matrix(f"{k}.zeros", rec.run(f"{k}.zeros", lambda: sp.bsr_zeros(nrow, ncol, c.block_type(bs))))

    # construction from triplets: pruned or not, from scalar or block arrays, into an existing matrix
    A = rec.run(f"{k}.A", lambda: c.from_triplets("A", nrow, ncol, bs, prune=True))
    if A is not None:  # the host-side bound before any read-back (Warp's operations look at it)
        rec.out[f"{k}.A.nnz_bound"] = np.array([A.nnz])
    rec.matrix(f"{k}.A", A)
    A_kept = rec.run(f"{k}.A_kept", lambda: c.from_triplets("A", nrow, ncol, bs, prune=False))
    rec.matrix(f"{k}.A_kept", A_kept)
    for prune in (True, False):
        def set_from(prune=prune):
            rows, cols, vals = draw_triplets(rec.rng(k, "set"), nrow, ncol, bs, dyadic)
            M = sp.bsr_from_triplets(nrow, ncol, wp.array([0], dtype=int), wp.array([0], dtype=int),
                                     c.values_array(np.ones((1, *bs)), bs, False)) if nrow and ncol else \
                sp.bsr_zeros(nrow, ncol, c.block_type(bs))
            sp.bsr_set_from_triplets(M, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                                     c.values_array(vals, bs, True), prune_numerical_zeros=prune)
            return M
        rec.matrix(f"{k}.set_prune{prune}", rec.run(f"{k}.set_prune{prune}", set_from))

    def set_masked():
        M = c.from_triplets("mask", nrow, ncol, bs, prune=False)
        rows, cols, vals = draw_triplets(rec.rng(k, "masked"), nrow, ncol, bs, dyadic)
        sp.bsr_set_from_triplets(M, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                                 c.values_array(vals, bs, False), topology="masked")
        return M
    rec.matrix(f"{k}.set_masked", rec.run(f"{k}.set_masked", set_masked))
    if A is None:
        return
    B = rec.run(f"{k}.B", lambda: c.from_triplets("B", nrow, ncol, bs, prune=bool(rng.integers(2))))
    rec.matrix(f"{k}.B", B)
    rec.out[f"{k}.props"] = np.array([A.nrow, A.ncol, *A.block_shape, A.block_size, *A.shape,
                                      int(A.scalar_type is wp.float64)])

    structure_ops(rec, c, A, B, nrow, ncol)
    arithmetic_ops(rec, c, A, B, nrow, ncol)
    more_ops(rec, c, A, nrow, ncol)


def structure_ops(rec, c: Case, A, B, nrow, ncol) -> None:
    """Copies, assignments to other block shapes and scalar types, transposes and diagonals."""
    sp, k, bs = rec.wp.sparse, c.name, c.bs
    rec.matrix(f"{k}.copy", rec.run(f"{k}.copy", lambda: sp.bsr_copy(A)))
    rec.matrix(f"{k}.copy_scalar", rec.run(f"{k}.copy_scalar", lambda: sp.bsr_copy(A, scalar_type=c.other_scalar)))
    # block shapes a copy may take: both dimensions divide, or are multiples of, A's (and its size)
    total = (nrow * bs[0], ncol * bs[1])
    shapes = [(a, b) for a in (1, 2, 3, 4, 6) for b in (1, 2, 3, 4, 6)
              if (a, b) != bs and all((s % d == 0 or d % s == 0) and (t % d == 0 if t else True)
                                      for s, d, t in zip(bs, (a, b), total))]
    if shapes:
        new = shapes[int(rec.rng(k, "reblock").integers(len(shapes)))]
        rec.out[f"{k}.reblock_shape"] = np.array(new)
        rec.matrix(f"{k}.copy_block", rec.run(f"{k}.copy_block", lambda: sp.bsr_copy(A, block_shape=new)))

        def assign_reblock():
            D = sp.bsr_zeros(total[0] // new[0], total[1] // new[1], c.block_type(new, c.other_scalar))
            sp.bsr_assign(D, A)
            return D
        rec.matrix(f"{k}.assign_block_scalar", rec.run(f"{k}.assign_block_scalar", assign_reblock))

    def assign_masked():
        D = c.from_triplets("assign_mask", nrow, ncol, bs, prune=False)
        sp.bsr_assign(D, A, topology="masked")
        return D
    rec.matrix(f"{k}.assign_masked", rec.run(f"{k}.assign_masked", assign_masked))
    rec.matrix(f"{k}.transposed", rec.run(f"{k}.transposed", lambda: sp.bsr_transposed(A)))
    rec.matrix(f"{k}.transposed_kept", rec.run(f"{k}.transposed_kept", lambda: sp.bsr_transposed(B)))
    rec.array(f"{k}.get_diag", rec.run(f"{k}.get_diag", lambda: sp.bsr_get_diag(A)))
    rec.array(f"{k}.get_diag_B", rec.run(f"{k}.get_diag_B", lambda: sp.bsr_get_diag(B)))
    n = min(nrow, ncol)
    dvals = draw_values(rec.rng(k, "diag"), (n, *bs), c.dyadic)
    rec.matrix(f"{k}.diag", rec.run(f"{k}.diag", lambda: sp.bsr_diag(c.values_array(dvals, bs, True))))
    one = dvals[0] if n else np.ones(bs)
    block = float(one.reshape(-1)[0]) if bs == (1, 1) else c.block_type(bs)(*one.astype(c.np).reshape(-1).tolist())
    rec.matrix(f"{k}.diag_const", rec.run(f"{k}.diag_const", lambda: sp.bsr_diag(block, rows_of_blocks=nrow,
                                                                                  cols_of_blocks=ncol)))
    if bs[0] == bs[1]:
        rec.matrix(f"{k}.identity", rec.run(f"{k}.identity", lambda: sp.bsr_identity(nrow, c.block_type(bs))))
        # diag=None: the diagonal topology, values left uninitialized by Warp
        rec.matrix(f"{k}.diag_empty", rec.run(f"{k}.diag_empty", lambda: sp.bsr_diag(rows_of_blocks=nrow,
                                                                                      block_type=c.block_type(bs))),
                   values=False)


def arithmetic_ops(rec, c: Case, A, B, nrow, ncol) -> None:
    """Scaling, zeroing, sums, products and the operators."""
    wp, sp, k, bs = rec.wp, rec.wp.sparse, c.name, c.bs
    alpha, beta, gamma = c.scalars("scalars", 3)
    rec.out[f"{k}.scalars"] = np.array([alpha, beta, gamma])

    def scaled(s):
        C = sp.bsr_copy(A)
        return sp.bsr_scale(C, s)
    rec.matrix(f"{k}.scale", rec.run(f"{k}.scale", lambda: scaled(alpha)))
    rec.matrix(f"{k}.scale0", rec.run(f"{k}.scale0", lambda: scaled(0.0)))

    def zeroed(*shape):
        C = sp.bsr_copy(A)
        sp.bsr_set_zero(C, *shape)
        return C
    rec.matrix(f"{k}.set_zero", rec.run(f"{k}.set_zero", zeroed))
    rec.matrix(f"{k}.set_zero_resized", rec.run(f"{k}.set_zero_resized", lambda: zeroed(nrow + 1, ncol + 2)))

    def axpy(topology=None, y=True, alias=False):
        if alias:
            Y = sp.bsr_copy(A)
            return sp.bsr_axpy(Y, Y, alpha, beta)
        Y = sp.bsr_copy(B) if y else None
        return sp.bsr_axpy(A, Y, alpha, beta, topology=topology)
    rec.matrix(f"{k}.axpy", rec.run(f"{k}.axpy", axpy))
    rec.matrix(f"{k}.axpy_new", rec.run(f"{k}.axpy_new", lambda: axpy(y=False)))
    rec.matrix(f"{k}.axpy_masked", rec.run(f"{k}.axpy_masked", lambda: axpy("masked")))
    rec.matrix(f"{k}.axpy_alias", rec.run(f"{k}.axpy_alias", lambda: axpy(alias=True)))

    # products: A (nrow x ncol blocks of bs) times Y (ncol x m blocks of bs[1] x b2)
    r2 = rec.rng(k, "mm")
    m, b2 = int(r2.integers(1, 6)), (1, 2, 3)[int(r2.integers(3))]
    Y = rec.run(f"{k}.Y", lambda: c.from_triplets("Y", ncol, m, (bs[1], b2)))
    Z = rec.run(f"{k}.Z", lambda: c.from_triplets("Z", nrow, m, (bs[0], b2), prune=False))
    rec.matrix(f"{k}.Y", Y)
    rec.matrix(f"{k}.Z", Z)
    if Y is not None and Z is not None:
        rec.matrix(f"{k}.mm", rec.run(f"{k}.mm", lambda: sp.bsr_mm(A, Y)))
        rec.matrix(f"{k}.mm_ab", rec.run(f"{k}.mm_ab", lambda: sp.bsr_mm(A, Y, sp.bsr_copy(Z), alpha, beta)))
        rec.matrix(f"{k}.mm_masked", rec.run(f"{k}.mm_masked",
                                             lambda: sp.bsr_mm(A, Y, sp.bsr_copy(Z), alpha, beta, topology="masked")))
        rec.matrix(f"{k}.mm_op", rec.run(f"{k}.mm_op", lambda: A @ Y))
    if nrow == ncol and bs[0] == bs[1]:
        def mm_alias():
            C = sp.bsr_copy(B)
            return sp.bsr_mm(A, C, C, alpha, beta)
        rec.matrix(f"{k}.mm_alias", rec.run(f"{k}.mm_alias", mm_alias))

    # matrix-vector products
    x, y = c.vector("x", ncol, bs[1]), c.vector("y", nrow, bs[0])
    rec.array(f"{k}.mv", rec.run(f"{k}.mv", lambda: sp.bsr_mv(A, x)))
    rec.array(f"{k}.mv_ab", rec.run(f"{k}.mv_ab", lambda: sp.bsr_mv(A, x, wp.clone(y), alpha, beta)))
    rec.array(f"{k}.mv_t", rec.run(f"{k}.mv_t", lambda: sp.bsr_mv(A, y, wp.clone(x), alpha, beta, transpose=True)))
    rec.array(f"{k}.mv_kept", rec.run(f"{k}.mv_kept", lambda: sp.bsr_mv(B, x, wp.clone(y), alpha, 0.0)))
    rec.array(f"{k}.op_Ax", rec.run(f"{k}.op_Ax", lambda: A @ x))
    rec.array(f"{k}.op_yA", rec.run(f"{k}.op_yA", lambda: y @ A))

    # operators
    rec.matrix(f"{k}.op_add", rec.run(f"{k}.op_add", lambda: A + B))
    rec.matrix(f"{k}.op_sub", rec.run(f"{k}.op_sub", lambda: A - B))
    rec.matrix(f"{k}.op_rmul", rec.run(f"{k}.op_rmul", lambda: gamma * A))
    rec.matrix(f"{k}.op_mul", rec.run(f"{k}.op_mul", lambda: A * gamma))
    rec.matrix(f"{k}.op_neg", rec.run(f"{k}.op_neg", lambda: -A))
    # nonzero factors: Warp's `0.0 * B` is a lazy expression a sum leaves out (no blocks of B's
    # pattern), warp_nb's a zeroed copy of B whose blocks the sum keeps (a known difference)
    rec.matrix(f"{k}.op_combo", rec.run(f"{k}.op_combo", lambda: (alpha or 0.5) * A - (beta or 1.5) * B))

    def iadd():
        C = sp.bsr_copy(B)
        C += A
        return C
    rec.matrix(f"{k}.op_iadd", rec.run(f"{k}.op_iadd", iadd))
    rec.matrix(f"{k}.op_transpose", rec.run(f"{k}.op_transpose", lambda: sp.bsr_copy((gamma * A).transpose())))


def system(rng, n: int, b: int, spd: bool, dyadic: bool) -> np.ndarray:
    """A dense (n*b) x (n*b) matrix with a random block sparsity pattern (every diagonal block
    present): symmetric and diagonally dominant (so SPD) when spd, else non-symmetric with a
    weaker diagonal."""
    N = n * b
    pattern = rng.random((n, n)) < min(0.5, 3.0 / n)
    mask = np.kron(pattern | np.eye(n, dtype=bool), np.ones((b, b), dtype=bool))
    A = np.where(mask, draw_values(rng, (N, N), dyadic), 0.0)
    np.fill_diagonal(A, 0.0)
    if spd:  # diagonally dominant by a small margin: SPD, with a condition number in the hundreds
        A = A + A.T
        np.fill_diagonal(A, np.abs(A).sum(axis=1) + rng.uniform(0.01, 0.3))
    else:
        # a positive dominant diagonal: with an indefinite or nearly singular matrix BiCGSTAB
        # amplifies rounding 10-100x an iteration, and its iteration count then says nothing
        # (numpy's own BiCGSTAB takes 47 to 50 iterations by summation order on such a system)
        np.fill_diagonal(A, np.abs(A).sum(axis=1) * rng.uniform(1.0, 1.3, N) + 0.1)
    return A


def solver_case(rec: Recorder, index: int) -> None:
    """One SPD system through cg and cr, one non-symmetric through bicgstab and gmres (left and right
    preconditioned), with no preconditioner and each kind `preconditioner` offers."""
    wp, rng = rec.wp, rec.rng("solver", index)
    from importlib import import_module
    linear = import_module(f"{wp.__name__}.optim.linear")
    b = (1, 2, 3)[int(rng.integers(3))]
    f64, dyadic = bool(rng.integers(2)), bool(rng.random() < 0.5)
    n = int(rng.integers(3, 41))
    c = Case(rec, f"solver{index}", (b, b), f64, dyadic)
    k = c.name
    tol = 1e-10 if f64 else 1e-5
    # checked every iteration, or every 10 (Warp's default: iterations past convergence must move nothing)
    every = int(rec.rng(k, "every").choice([1, 10]))
    rec.out[f"{k}.about"] = np.array(f"block {b}x{b}, {'float64' if f64 else 'float32'}, {n} x {n} blocks, "
                                     f"tol {tol}, check_every={every}")
    for spd in (True, False):
        dense = system(rec.rng(k, "A", spd), n, b, spd, dyadic)
        blocks = dense.reshape(n, b, n, b).transpose(0, 2, 1, 3)
        rows, cols = np.nonzero(np.abs(blocks).sum(axis=(2, 3)))
        A = rec.run(f"{k}.A{spd}", lambda rows=rows, cols=cols, blocks=blocks: wp.sparse.bsr_from_triplets(
            n, n, wp.array(rows.astype(np.int32), dtype=int), wp.array(cols.astype(np.int32), dtype=int),
            c.values_array(blocks[rows, cols], (b, b), False)))
        rec.matrix(f"{k}.A{spd}", A)
        if A is None:
            continue
        rhs = c.vector(f"rhs{spd}", n, b)
        solvers = (("cg", {}), ("cr", {}), ("cg", {"restart": 8}), ("cr", {"restart": 8})) if spd else \
            (("bicgstab", {}), ("bicgstab", {"is_left_preconditioner": True}),
             ("gmres", {"restart": 8}), ("gmres", {"is_left_preconditioner": True}))
        for ptype in PRECONDITIONERS:
            if ptype == "fsai" and not spd:
                continue  # FSAI is defined for SPD matrices only (Warp's docs)
            M = rec.run(f"{k}.{spd}.{ptype}", lambda A=A, ptype=ptype: linear.preconditioner(A, ptype)) if ptype \
                else None
            if ptype and M is None:
                continue
            for name, kw in solvers:
                key = f"{k}.{name}{''.join(f'.{a}={v}' for a, v in kw.items())}.{ptype}"
                x = wp.zeros_like(rhs)

                def solve(name=name, kw=kw, x=x, A=A, rhs=rhs, M=M):
                    it, res, atol = getattr(linear, name)(A, rhs, x, tol=tol, maxiter=8 * n * b, M=M,
                                                          check_every=every, **kw)
                    return np.array([float(it), float(res), float(atol)])
                out = rec.run(key, solve)
                if out is not None:
                    rec.out[f"{key}.result"] = out
                    rec.array(f"{key}.x", x)
                if out is not None and every > 1 and name != "gmres" and not kw.get("restart"):
                    # CG, CR and BiCGSTAB move nothing past convergence: checked every iteration,
                    # the same solve ends on the same bits
                    x1 = wp.zeros_like(rhs)
                    getattr(linear, name)(A, rhs, x1, tol=tol, maxiter=8 * n * b, M=M, check_every=1, **kw)
                    rec.out[f"{key}.same_as_every_1"] = np.array([np.array_equal(x.numpy(), x1.numpy())])


def padded(rec, c: Case, tag, nrow, ncol, bs, capacity):
    """A padded matrix of `capacity` slots a row holding random triplets (rows past it stay empty)."""
    wp, sp = rec.wp, rec.wp.sparse
    rows, cols, vals = draw_triplets(rec.rng(c.name, tag), nrow, ncol, bs, c.dyadic)
    M = sp.bsr_zeros(nrow, ncol, c.block_type(bs), row_capacity=capacity)
    sp.bsr_set_from_triplets(M, wp.array(rows, dtype=int), wp.array(cols, dtype=int), c.values_array(vals, bs, False),
                             topology="padded")
    return M


def more_ops(rec, c: Case, A, nrow, ncol) -> None:
    """Triplets outside the shape and a `count`, masked transposes, padded storage (construction,
    copies, sums, products, status, as an operand), compression, mapped triplets, structure-only
    copies, uncompress_rows, set_transpose into a matrix, get_diag into `out`, aliased mv."""
    wp, sp, k, bs = rec.wp, rec.wp.sparse, c.name, c.bs
    alpha, beta = c.scalars("more", 2)
    rng = rec.rng(k, "outside")
    rows, cols, vals = draw_triplets(rng, nrow, ncol, bs, c.dyadic)
    if len(rows):  # some triplets outside the shape (Warp drops them)
        rows[rng.random(len(rows)) < 0.2] = rng.choice([-1, nrow, nrow + 3])
        cols[rng.random(len(cols)) < 0.2] = rng.choice([-2, ncol, ncol + 1])
    count = int(rng.integers(0, len(rows) + 1))

    def with_count():
        M = sp.bsr_zeros(nrow, ncol, c.block_type(bs))
        sp.bsr_set_from_triplets(M, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                                 c.values_array(vals, bs, False), count=wp.array([count], dtype=int))
        return M
    rec.matrix(f"{k}.outside", rec.run(f"{k}.outside", lambda: sp.bsr_from_triplets(
        nrow, ncol, wp.array(rows, dtype=int), wp.array(cols, dtype=int), c.values_array(vals, bs, False))))
    rec.matrix(f"{k}.count", rec.run(f"{k}.count", with_count))

    def transpose_masked():
        D = c.from_triplets("tmask", ncol, nrow, bs[::-1], prune=False)
        sp.bsr_set_transpose(D, A, topology="masked")
        return D
    rec.matrix(f"{k}.transpose_masked", rec.run(f"{k}.transpose_masked", transpose_masked))

    # padded storage: capacities that fit some rows and not others
    cap = int(rec.rng(k, "cap").integers(0, 4))
    P = rec.run(f"{k}.padded", lambda: padded(rec, c, "padded", nrow, ncol, bs, cap))
    rec.matrix(f"{k}.padded", P)
    if P is not None:
        rec.out[f"{k}.padded.status"] = np.array([P.status_sync()])
    rec.matrix(f"{k}.copy_padded", rec.run(f"{k}.copy_padded", lambda: sp.bsr_copy(P, topology="padded")))

    def into_padded(op):
        # room for every row: warp-lang's padded axpy writes wrong values into rows that fit when
        # another row overflows (a warp-lang bug, see compat.md); overflow is fuzzed by `padded`
        Q = padded(rec, c, "padded_dest", nrow, ncol, bs, max(ncol, 1))
        op(Q)
        rec.out[f"{k}.{op.__name__}.status"] = np.array([Q.status_sync()])
        return Q

    def assign_padded(Q):
        sp.bsr_assign(Q, A, topology="padded")

    def axpy_padded(Q):
        # scalar blocks only: warp-lang's padded axpy of larger blocks shifts values by a scalar
        # instead of a block where a block is inserted before another (a warp-lang bug, compat.md)
        if bs == (1, 1):
            sp.bsr_axpy(A, Q, alpha, beta, topology="padded")

    def mm_padded(Q):
        if nrow == ncol and bs[0] == bs[1]:
            sp.bsr_mm(A, A, Q, alpha, beta, topology="padded")

    def compress_padded(Q):
        sp.bsr_compress(Q, inplace=True, topology="padded")
    for op in (assign_padded, axpy_padded, mm_padded, compress_padded):
        rec.matrix(f"{k}.{op.__name__}", rec.run(f"{k}.{op.__name__}", lambda op=op: into_padded(op)))

    def compress(key, make, **kw):
        def run():
            M = make()
            rec.out[f"{key}.in_bound0"] = np.array([M.nnz == 0])  # warp-lang raises on these (compat.md)
            return sp.bsr_compress(M, **kw)
        rec.matrix(key, rec.run(key, run))
    compress(f"{k}.compress", lambda: sp.bsr_copy(P))
    compress(f"{k}.compress_kept", lambda: c.from_triplets("A", nrow, ncol, bs, prune=False))
    compress(f"{k}.compress_inplace", lambda: padded(rec, c, "padded", nrow, ncol, bs, cap), inplace=True)

    def mapped():
        rows, cols, vals = draw_triplets(rec.rng(k, "map"), nrow, ncol, bs, c.dyadic)
        M = sp.bsr_zeros(nrow, ncol, c.block_type(bs))
        mapping = sp.bsr_set_from_triplets(M, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                                           c.values_array(vals, bs, False), prune_numerical_zeros=False,
                                           build_mapping=True)
        new = draw_values(rec.rng(k, "map2"), vals.shape, c.dyadic)
        sp.bsr_set_from_mapped_values(M, mapping, c.values_array(new, bs, False))
        return M
    rec.matrix(f"{k}.mapped", rec.run(f"{k}.mapped", mapped))

    def get_diag_out():
        out = wp.array(np.full((min(nrow, ncol), *bs), 7.0, dtype=c.np).reshape(-1) if bs == (1, 1) else
                       np.full((min(nrow, ncol), *bs), 7.0, dtype=c.np), dtype=c.block_type(bs))
        return sp.bsr_get_diag(A, out=out)
    rec.array(f"{k}.get_diag_out", rec.run(f"{k}.get_diag_out", get_diag_out))
    # a padded matrix as an operand, structure-only copies, row indices, transpose into a matrix
    if P is not None:
        rec.matrix(f"{k}.padded_transposed", rec.run(f"{k}.padded_transposed", lambda: sp.bsr_transposed(P)))
        rec.array(f"{k}.padded_mv", rec.run(f"{k}.padded_mv", lambda: sp.bsr_mv(P, c.vector("x", ncol, bs[1]))))
        rec.array(f"{k}.padded_mv_t", rec.run(f"{k}.padded_mv_t", lambda: sp.bsr_mv(
            P, c.vector("y", nrow, bs[0]), transpose=True)))
        rec.array(f"{k}.padded_get_diag", rec.run(f"{k}.padded_get_diag", lambda: sp.bsr_get_diag(P)))
        rec.matrix(f"{k}.padded_axpy_into", rec.run(f"{k}.padded_axpy_into", lambda: sp.bsr_axpy(
            P, sp.bsr_copy(A), alpha, beta)))
        rec.matrix(f"{k}.mm_of_padded", rec.run(f"{k}.mm_of_padded", lambda: sp.bsr_mm(P, sp.bsr_transposed(A))))
    rec.matrix(f"{k}.copy_structure", rec.run(f"{k}.copy_structure", lambda: sp.bsr_copy(A, structure_only=True)),
               values=False)
    # (sliced on the host: warp-lang's arrays refuse an empty slice, `a[:0]`, warp_nb's allow it)
    rec.run(f"{k}.uncompress_rows",
            lambda: rec.out.__setitem__(f"{k}.uncompress_rows", A.uncompress_rows().numpy()[:A.nnz_sync()]))

    def set_transpose():
        D = c.from_triplets("tdest", ncol, nrow, bs[::-1])
        sp.bsr_set_transpose(D, A)
        return D
    rec.matrix(f"{k}.set_transpose", rec.run(f"{k}.set_transpose", set_transpose))
    if nrow == ncol and bs[0] == bs[1]:
        def mv_alias():
            v = c.vector("alias", nrow, bs[0])
            return sp.bsr_mv(A, v, v, alpha, beta)
        rec.array(f"{k}.mv_alias", rec.run(f"{k}.mv_alias", mv_alias))
