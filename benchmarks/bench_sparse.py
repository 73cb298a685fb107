"""The sparse group of the Warp-API benchmark: `warp.sparse` under `import warp as wp` and
`import warp_nb as wp` (bench_warp_api.py merges these workloads into its worker), scipy.sparse
beside them in the numpy worker (bench_numpy.py).

    sparse_mv        y = A @ x for the 5-point 2-D Poisson matrix of a 1000 x 1000 grid (1M
                     unknowns, 5.0M non-zeros, float32 CSR): bsr_mv / scipy's CSR matvec
    sparse_triplets  a CSR matrix from 5.0M COO triplets (that Poisson matrix's entries in random
                     order): bsr_from_triplets / scipy's coo_matrix(...).tocsr() (both sort each row
                     and sum duplicates; Warp's call also checks each block for zeros)

Inputs and the float64 oracle are made once and kept in .bench/oracle/sparse.npz."""

import importlib
import os

import common
import numpy as np

GRID = 1000  # 1000 x 1000 unknowns
ROWS = [("sparse_mv", "sparse_mv", "bsr_mv: 2-D Poisson CSR, 1M unknowns, 5.0M non-zeros, float32 (scipy: CSR @ x)"),
        ("sparse_triplets", "sparse_triplets",
         "bsr_from_triplets: 5.0M COO triplets -> CSR, 1M x 1M, float32 (scipy: coo_matrix.tocsr)")]
NAMES = [r[0] for r in ROWS]
REPEATS = {False: {"sparse_mv": 20, "sparse_triplets": 5}, True: {"sparse_mv": 5, "sparse_triplets": 2}}


def poisson_triplets(n):
    """The 5-point Laplacian of an n x n grid as COO triplets (int32 rows, cols, float32 values)."""
    idx = np.arange(n * n).reshape(n, n)
    rows, cols, vals = [idx.ravel()], [idx.ravel()], [np.full(n * n, 4.0)]
    for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        a = idx[max(di, 0):n + min(di, 0), max(dj, 0):n + min(dj, 0)].ravel()
        b = idx[max(-di, 0):n + min(-di, 0), max(-dj, 0):n + min(-dj, 0)].ravel()
        rows.append(a)
        cols.append(b)
        vals.append(np.full(a.size, -1.0))
    return (np.concatenate(rows).astype(np.int32), np.concatenate(cols).astype(np.int32),
            np.concatenate(vals).astype(np.float32))


def load():
    path = os.path.join(common.ORACLE_DIR, "sparse.npz")
    if os.path.exists(path):
        with np.load(path) as z:
            return {k: z[k] for k in z.files}
    rng = np.random.default_rng(5)
    rows, cols, vals = poisson_triplets(GRID)
    perm = rng.permutation(rows.size)
    rows, cols, vals = rows[perm], cols[perm], vals[perm]
    x = rng.standard_normal(GRID * GRID).astype(np.float32)
    # the oracle: y = A x in float64, and the CSR row pointer (per-row counts) of A
    y = np.zeros(GRID * GRID)
    np.add.at(y, rows, vals.astype(np.float64) * x[cols].astype(np.float64))
    indptr = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=GRID * GRID)))).astype(np.int32)
    case = {"rows": rows, "cols": cols, "vals": vals, "x": x, "y": y, "indptr": indptr}
    os.makedirs(common.ORACLE_DIR, exist_ok=True)
    tmp = f"{path[:-4]}.{os.getpid()}.tmp.npz"
    np.savez(tmp, **case)
    os.replace(tmp, path)
    return case


def check_mv(y, case):
    return common.check_close(np.asarray(y, dtype=np.float64), case["y"], 1e-4, 1e-4)


def check_csr(indptr, row_sums, case):
    """The row pointer matches, and each row's values sum to the Poisson row sum."""
    if not np.array_equal(np.asarray(indptr), case["indptr"]):
        return "WRONG: row pointer differs"
    expected = np.zeros(GRID * GRID)
    np.add.at(expected, case["rows"], case["vals"].astype(np.float64))
    return common.check_close(row_sums, expected, 1e-5, 1e-5)


def make(wp, device):
    """The sparse workloads for the module `wp` (warp or warp_nb): name -> fn(ctx)."""
    try:
        sparse = importlib.import_module(wp.__name__ + ".sparse")
        sparse.bsr_from_triplets  # noqa: B018 (warp_nb before warp.sparse existed refused this name)
    except (ImportError, AttributeError) as e:
        def missing(ctx, _e=e):
            raise common.NotYet("warp.sparse: " + common.short_error(_e))
        return {name: missing for name in NAMES}

    def upload(case):
        return (wp.array(case["rows"], dtype=int, device=device), wp.array(case["cols"], dtype=int, device=device),
                wp.array(case["vals"], dtype=float, device=device))

    def bench_mv(ctx):
        case = load()
        n = GRID * GRID
        A = sparse.bsr_from_triplets(n, n, *upload(case))
        x = wp.array(case["x"], dtype=float, device=device)
        y = wp.zeros(n, dtype=float, device=device)

        def run():
            sparse.bsr_mv(A, x, y)
            wp.synchronize()

        times = common.time_it(run, REPEATS[ctx["quick"]]["sparse_mv"])
        return common.result("sparse_mv", times, check_mv(y.numpy(), case))

    def bench_triplets(ctx):
        case = load()
        n = GRID * GRID
        rows, cols, vals = upload(case)
        out = []

        def run():
            out[:] = [sparse.bsr_from_triplets(n, n, rows, cols, vals)]
            wp.synchronize()

        times = common.time_it(run, REPEATS[ctx["quick"]]["sparse_triplets"])
        A = out[0]
        nnz = A.nnz_sync()
        row_of = np.repeat(np.arange(n), np.diff(A.offsets.numpy()))
        sums = np.bincount(row_of, A.values.numpy()[:nnz].astype(np.float64), minlength=n)
        return common.result("sparse_triplets", times, check_csr(A.offsets.numpy(), sums, case))

    return {"sparse_mv": bench_mv, "sparse_triplets": bench_triplets}


def _scipy():
    try:
        import scipy.sparse as sp
    except ImportError as e:
        raise common.NotYet("scipy is not installed: " + str(e)) from None
    return sp


def bench_scipy_mv(ctx):
    """scipy's CSR matvec beside bsr_mv (in the numpy worker)."""
    sp = _scipy()
    case = load()
    n = GRID * GRID
    A = sp.coo_matrix((case["vals"], (case["rows"], case["cols"])), shape=(n, n)).tocsr()
    x, ys = case["x"], []
    times = common.time_it(lambda: ys.append(A @ x), REPEATS[ctx["quick"]]["sparse_mv"])
    return common.result("sparse_mv", times, check_mv(ys[-1], case), note="scipy.sparse CSR @ x (one thread)")


def bench_scipy_triplets(ctx):
    """scipy's COO -> CSR (duplicates summed, rows sorted) beside bsr_from_triplets."""
    sp = _scipy()
    case = load()
    n = GRID * GRID
    coo, out = (case["vals"], (case["rows"], case["cols"])), []
    times = common.time_it(lambda: out.append(sp.coo_matrix(coo, shape=(n, n)).tocsr()),
                           REPEATS[ctx["quick"]]["sparse_triplets"])
    A = out[-1]
    sums = np.asarray(A.sum(axis=1), dtype=np.float64).ravel()
    return common.result("sparse_triplets", times, check_csr(A.indptr, sums, case),
                         note="scipy.sparse.coo_matrix((v, (i, j))).tocsr() (one thread)")
