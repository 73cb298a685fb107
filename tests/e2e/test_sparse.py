"""warp_nb.sparse against scipy.sparse and numpy: construction from triplets (duplicates, dropped and
pruned triplets), every operation on scalar (CSR) and block matrices in float32 and float64,
padded and masked topologies, gradients, and the messages bad input gets."""

import numpy as np
import pytest
import scipy.sparse as sp

import warp_nb as wp
from warp_nb import sparse as wps

RNG = np.random.default_rng(7)


def dense(A) -> np.ndarray:
    """A's active blocks as a dense numpy matrix (the oracle side reads the raw storage)."""
    out = np.zeros(A.shape)
    r, c = A.block_shape
    offsets, columns = A.offsets.numpy(), A.columns.numpy()
    values = A.values.numpy().reshape(-1, r, c)
    counts = None if A.row_counts is None else A.row_counts.numpy()
    for row in range(A.nrow):
        end = offsets[row + 1] if counts is None else offsets[row] + counts[row]
        for b in range(offsets[row], end):
            out[row * r:(row + 1) * r, columns[b] * c:(columns[b] + 1) * c] += values[b]
    return out


def random_triplets(nrow, ncol, n, block_shape, scalar=np.float32):
    rows = RNG.integers(0, nrow, n).astype(np.int32)
    cols = RNG.integers(0, ncol, n).astype(np.int32)
    vals = RNG.standard_normal((n, *block_shape)).astype(scalar)
    return rows, cols, vals


def reference(nrow, ncol, rows, cols, vals) -> np.ndarray:
    r, c = vals.shape[1:]
    out = np.zeros((nrow * r, ncol * c))
    for i, j, v in zip(rows, cols, vals):
        out[i * r:(i + 1) * r, j * c:(j + 1) * c] += v
    return out


def build(nrow, ncol, n, block_shape, wp_scalar=wp.float32):
    np_scalar = np.float64 if wp_scalar is wp.float64 else np.float32
    rows, cols, vals = random_triplets(nrow, ncol, n, block_shape, np_scalar)
    A = wps.bsr_from_triplets(nrow, ncol, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                              wp.array(vals if block_shape != (1, 1) else vals.reshape(n), dtype=wp_scalar))
    return A, reference(nrow, ncol, rows, cols, vals)


CASES = [((1, 1), wp.float32), ((2, 3), wp.float32), ((3, 3), wp.float64)]


@pytest.mark.parametrize("block_shape,scalar", CASES)
def test_from_triplets_sums_duplicates_like_scipy(block_shape, scalar):
    A, ref = build(7, 5, 60, block_shape, scalar)  # 60 triplets on 35 positions: many duplicates
    np.testing.assert_allclose(dense(A), ref, rtol=1e-5, atol=1e-5)
    assert A.nnz == 60 and A.nnz_sync() == np.count_nonzero(np.abs(ref.reshape(7, block_shape[0], 5, block_shape[1])
                                                                   ).sum(axis=(1, 3)))
    offsets, columns = A.offsets.numpy(), A.columns.numpy()
    for r in range(A.nrow):  # each row's columns sorted and distinct
        assert np.all(np.diff(columns[offsets[r]:offsets[r + 1]]) > 0)


def test_csr_structure_matches_scipy_coo_to_csr():
    rows, cols, vals = random_triplets(50, 40, 400, (1, 1))
    A = wps.bsr_from_triplets(50, 40, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                              wp.array(vals.reshape(-1), dtype=float))
    S = sp.coo_matrix((vals.reshape(-1), (rows, cols)), shape=(50, 40)).tocsr()
    S.sum_duplicates()
    S.sort_indices()
    n = A.nnz_sync()
    np.testing.assert_array_equal(A.offsets.numpy(), S.indptr)
    np.testing.assert_array_equal(A.columns.numpy()[:n], S.indices)
    np.testing.assert_allclose(A.values.numpy()[:n], S.data, rtol=1e-5)


def test_many_rows_and_chunks_match_scipy():
    # past 256 rows the rows are grouped (2^shift rows a group) and past 16k triplets chunked:
    # both stable passes of the bucketing run for real
    nrow, ncol, n = 5003, 301, 60000
    rows, cols, vals = random_triplets(nrow, ncol, n, (1, 1), np.float64)
    rows[::97] = -1  # dropped
    A = wps.bsr_from_triplets(nrow, ncol, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                              wp.array(vals.reshape(-1), dtype=wp.float64))
    keep = rows >= 0
    S = sp.coo_matrix((vals.reshape(-1)[keep], (rows[keep], cols[keep])), shape=(nrow, ncol)).tocsr()
    S.sum_duplicates()
    S.sort_indices()
    m = A.nnz_sync()
    np.testing.assert_array_equal(A.offsets.numpy(), S.indptr)
    np.testing.assert_array_equal(A.columns.numpy()[:m], S.indices)
    np.testing.assert_allclose(A.values.numpy()[:m], S.data, rtol=1e-12)


def test_triplets_outside_the_shape_past_count_and_zero_blocks_are_dropped():
    rows = wp.array([0, -1, 2, 5, 1, 1], dtype=int)
    cols = wp.array([0, 0, 2, 0, 9, 1], dtype=int)
    vals = wp.array([1.0, 2.0, 0.0, 4.0, 5.0, 6.0], dtype=float)
    A = wps.bsr_zeros(3, 3, float)
    wps.bsr_set_from_triplets(A, rows, cols, vals)  # pruning zeros is Warp's default
    assert A.nnz_sync() == 2
    np.testing.assert_allclose(dense(A), np.array([[1, 0, 0], [0, 6, 0], [0, 0, 0]]))
    wps.bsr_set_from_triplets(A, rows, cols, vals, prune_numerical_zeros=False)
    assert A.nnz_sync() == 3
    wps.bsr_set_from_triplets(A, rows, cols, vals, count=wp.array([1], dtype=int))
    assert A.nnz_sync() == 1


def test_long_rows_use_the_heap_sort_and_stay_exact():
    n = 3000  # one row with far more blocks than the insertion-sort limit
    cols = RNG.permutation(np.repeat(np.arange(1000), 3)).astype(np.int32)
    vals = RNG.standard_normal(n).astype(np.float64)
    A = wps.bsr_from_triplets(1, 1000, wp.zeros(n, dtype=int), wp.array(cols, dtype=int),
                              wp.array(vals, dtype=wp.float64))
    assert A.nnz_sync() == 1000
    np.testing.assert_array_equal(A.columns.numpy()[:1000], np.arange(1000))
    np.testing.assert_allclose(A.values.numpy()[:1000], np.bincount(cols, vals, minlength=1000), rtol=1e-12)


@pytest.mark.parametrize("block_shape,scalar", CASES)
def test_mv_and_transposed_mv_match_numpy(block_shape, scalar):
    A, ref = build(6, 4, 20, block_shape, scalar)
    np_scalar = np.float64 if scalar is wp.float64 else np.float32
    x = RNG.standard_normal(ref.shape[1]).astype(np_scalar)
    y0 = RNG.standard_normal(ref.shape[0]).astype(np_scalar)
    y = wp.array(y0, dtype=scalar)
    wps.bsr_mv(A, wp.array(x, dtype=scalar), y, alpha=2.0, beta=-0.5)
    np.testing.assert_allclose(y.numpy(), 2.0 * ref @ x - 0.5 * y0, rtol=1e-4, atol=1e-4)
    out = wps.bsr_mv(A, wp.array(y0, dtype=scalar), transpose=True)
    np.testing.assert_allclose(out.numpy().reshape(-1), ref.T @ y0, rtol=1e-4, atol=1e-4)


def test_mv_takes_vector_arrays_and_aliasing_x_and_y():
    A, ref = build(5, 5, 15, (3, 3), wp.float64)
    x = RNG.standard_normal((5, 3))
    y = wp.array(x, dtype=wp.vec3d)
    wps.bsr_mv(A, y, y, alpha=1.0, beta=1.0)  # x is y: read through a copy
    np.testing.assert_allclose(y.numpy().reshape(-1), ref @ x.reshape(-1) + x.reshape(-1), rtol=1e-10)


@pytest.mark.parametrize("block_shape,scalar", CASES)
def test_axpy_scale_and_operators(block_shape, scalar):
    X, xr = build(4, 5, 12, block_shape, scalar)
    Y, yr = build(4, 5, 12, block_shape, scalar)
    np.testing.assert_allclose(dense(X + Y), xr + yr, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dense(X - 2.0 * Y), xr - 2.0 * yr, rtol=1e-5, atol=1e-5)
    wps.bsr_axpy(X, Y, alpha=3.0, beta=-1.0)
    np.testing.assert_allclose(dense(Y), 3.0 * xr - yr, rtol=1e-5, atol=1e-5)
    wps.bsr_scale(Y, 0.5)
    np.testing.assert_allclose(dense(Y), 0.5 * (3.0 * xr - yr), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dense(X), xr, rtol=1e-6)  # operands untouched


@pytest.mark.parametrize("block_shape,scalar", CASES)
def test_mm_matches_scipy(block_shape, scalar):
    X, xr = build(5, 4, 12, block_shape, scalar)
    Y, yr = build(4, 6, 12, block_shape[::-1], scalar)
    Z, zr = build(5, 6, 8, (block_shape[0], block_shape[0]), scalar)
    expected = (sp.csr_matrix(xr) @ sp.csr_matrix(yr)).toarray()
    np.testing.assert_allclose(dense(X @ Y), expected, rtol=1e-4, atol=1e-4)
    wps.bsr_mm(X, Y, Z, alpha=2.0, beta=3.0)
    np.testing.assert_allclose(dense(Z), 2.0 * expected + 3.0 * zr, rtol=1e-4, atol=1e-4)


def _structure(A):
    n = A.nnz_sync()
    return A.offsets.numpy()[:A.nrow + 1].tolist(), A.columns.numpy()[:n].tolist()


def _csr(n, rows, cols, vals):
    return wps.bsr_from_triplets(n, n, wp.array(rows, dtype=int), wp.array(cols, dtype=int),
                                 wp.array(vals, dtype=float), prune_numerical_zeros=False)


def test_zero_alpha_or_an_empty_product_keeps_the_result_topology():
    # Warp forms no x term when alpha is 0 (axpy, mm) or when no block pair of x @ y meets: the
    # result is beta * (its own blocks), so blocks of x's or x @ y's pattern are not added as
    # explicit zeros, and with beta 0 the result keeps its blocks, zeroed (sparse_against_warp)
    X = _csr(2, [0], [0], [2.0])
    Y = _csr(2, [0, 1], [0, 1], [3.0, 4.0])
    disjoint = _csr(2, [1], [1], [3.0])  # X's column 0 meets no block of row 0
    xr, yr = dense(X), dense(Y)

    def z():
        return _csr(2, [0, 1], [1, 0], [5.0, 6.0])
    zr, z_structure = dense(z()), _structure(z())
    for alpha, beta, out, ref in ((0.0, 2.0, wps.bsr_axpy(X, z(), 0.0, 2.0), 2.0 * zr),
                                  (0.0, 2.0, wps.bsr_mm(X, Y, z(), 0.0, 2.0), 2.0 * zr),
                                  (0.0, 0.0, wps.bsr_mm(X, Y, z(), 0.0, 0.0), 0.0 * zr),
                                  (1.0, 0.0, wps.bsr_mm(X, disjoint, z(), 1.0, 0.0), xr @ dense(disjoint)),
                                  (1.0, 0.0, wps.bsr_mm(wps.bsr_zeros(2, 2, float), Y, z(), 1.0, 0.0), 0.0 * zr)):
        np.testing.assert_allclose(dense(out), ref)
        assert _structure(out) == z_structure, (alpha, beta)
    empty = wps.bsr_mm(X, Y, None, 0.0)
    assert empty.nnz_sync() == 0
    # an operand of nnz 0 skips the product in padded storage too: z's rows keep their blocks
    zp = wps.bsr_zeros(2, 2, float, row_capacity=2)
    wps.bsr_set_from_triplets(zp, wp.array([0, 1], dtype=int), wp.array([1, 0], dtype=int),
                              wp.array([5.0, 6.0], dtype=float), topology="padded")
    wps.bsr_mm(wps.bsr_zeros(2, 2, float), Y, zp, 1.0, 0.0, topology="padded")
    assert zp.row_counts.numpy().tolist() == [1, 1] and not dense(zp).any()
    # a product that has blocks still replaces z's topology when beta is 0, and axpy with beta 0
    # takes x's pattern (scaled by alpha, 0 included)
    out = wps.bsr_mm(X, Y, z(), 1.0, 0.0)
    np.testing.assert_allclose(dense(out), xr @ yr)
    assert _structure(out) == _structure(X)
    for y in (z(), wps.bsr_zeros(2, 2, float)):  # beta 0, or a y of nnz 0 (Warp's bound, not read back)
        out = wps.bsr_axpy(X, y, 0.0, 0.0 if y.nnz else 3.0)
        assert _structure(out) == _structure(X) and not dense(out).any()


def test_transpose_copy_reblock_and_scalar_type_change():
    A, ref = build(4, 6, 18, (2, 3), wp.float32)
    np.testing.assert_allclose(dense(wps.bsr_transposed(A)), ref.T, rtol=1e-6)
    B = wps.bsr_copy(A, scalar_type=wp.float64, block_shape=(1, 1))
    assert B.scalar_type is wp.float64 and B.block_shape == (1, 1)
    np.testing.assert_allclose(dense(B), ref, rtol=1e-6)
    C = wps.bsr_copy(A, block_shape=(4, 6))
    np.testing.assert_allclose(dense(C), ref, rtol=1e-6)


def test_diag_identity_and_get_diag():
    A, ref = build(4, 4, 16, (3, 3), wp.float64)
    diag = wps.bsr_get_diag(A).numpy()
    for i in range(4):
        np.testing.assert_allclose(diag[i], ref[3 * i:3 * i + 3, 3 * i:3 * i + 3])
    D = wps.bsr_diag(wp.array(diag, dtype=wp.mat33d))
    np.testing.assert_allclose(dense(D), sp.block_diag(list(diag)).toarray())
    identity = wps.bsr_identity(5, block_type=wp.mat22)
    np.testing.assert_allclose(dense(identity), np.eye(10))


def test_padded_and_masked_topologies():
    rows = wp.array([0, 0, 1, 1, 1], dtype=int)
    cols = wp.array([2, 0, 1, 2, 1], dtype=int)
    vals = wp.array([1.0, 2.0, 3.0, 4.0, 5.0], dtype=float)
    P = wps.bsr_zeros(2, 3, float, row_capacity=3)
    wps.bsr_set_from_triplets(P, rows, cols, vals, topology="padded")
    np.testing.assert_array_equal(P.offsets.numpy(), [0, 3, 6])
    np.testing.assert_array_equal(P.row_counts.numpy(), [2, 2])
    np.testing.assert_allclose(dense(P), [[2, 0, 1], [0, 8, 4]])
    assert P.status_sync() == wps.BSR_STATUS_SUCCESS
    small = wps.bsr_zeros(2, 3, float, row_capacity=1)
    wps.bsr_set_from_triplets(small, rows, cols, vals, topology="padded")
    assert small.status_sync() == wps.BSR_STATUS_ROW_CAPACITY_EXCEEDED
    mask = wps.bsr_diag(rows_of_blocks=2, cols_of_blocks=3, block_type=wp.float32)
    wps.bsr_set_from_triplets(mask, rows, cols, vals, topology="masked")
    np.testing.assert_allclose(dense(mask), [[2, 0, 0], [0, 8, 0]])  # (0, 2) is outside the mask


def test_gradients_flow_through_triplets_axpy_and_mv():
    rows = wp.array([0, 1, 1, 0], dtype=int)
    cols = wp.array([1, 0, 0, 1], dtype=int)
    v0 = RNG.standard_normal(4)
    vals = wp.array(v0, dtype=wp.float64, requires_grad=True)
    x = wp.array([1.5, -2.0], dtype=wp.float64, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)

    @wp.kernel
    def sum_squares(y: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
        i = wp.tid()
        wp.atomic_add(out, 0, y[i] * y[i])

    tape = wp.Tape()
    with tape:
        A = wps.bsr_from_triplets(2, 2, rows, cols, vals)
        B = wps.bsr_axpy(A, wps.bsr_copy(A), alpha=2.0, beta=1.0)  # 3 A
        y = wps.bsr_mv(B, x)
        wp.launch(sum_squares, 2, inputs=[y, loss])
    tape.backward(loss)

    def f(v, xx):
        M = np.zeros((2, 2))
        for r, c, a in zip([0, 1, 1, 0], [1, 0, 0, 1], v):
            M[r, c] += a
        return np.sum((3.0 * M @ xx) ** 2)

    eps = 1e-6
    for arr, base, which in ((vals, v0, 0), (x, np.array([1.5, -2.0]), 1)):
        direction = RNG.standard_normal(base.shape)
        args_p = [v0, np.array([1.5, -2.0])]
        args_m = [v0, np.array([1.5, -2.0])]
        args_p[which] = base + eps * direction
        args_m[which] = base - eps * direction
        fd = (f(*args_p) - f(*args_m)) / (2 * eps)
        np.testing.assert_allclose(arr.grad.numpy() @ direction, fd, rtol=1e-5)


def test_gradients_flow_through_products_and_transposes():
    rows = np.array([0, 1, 2, 2, 0], np.int32)
    cols = np.array([1, 0, 2, 0, 1], np.int32)
    v0 = RNG.standard_normal((5, 2, 2))

    @wp.kernel
    def weighted_sum(v: wp.array(dtype=wp.mat22d), w: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
        i = wp.tid()
        m = v[i]
        wp.atomic_add(out, 0, w[i] * (m[0, 0] + 2.0 * m[0, 1] - m[1, 0] + 0.5 * m[1, 1]))

    def dense_of(v):
        return reference(3, 3, rows, cols, v)

    def f(v):  # the same loss on dense matrices: C = 2 A A^T, loss = sum over C's blocks
        A = dense_of(v)
        C = 2.0 * A @ A.T
        weights = np.array([[1.0, 2.0], [-1.0, 0.5]])
        return sum(np.sum(C[2 * i:2 * i + 2, 2 * j:2 * j + 2] * weights) for i in range(3) for j in range(3))

    vals = wp.array(v0, dtype=wp.mat22d, requires_grad=True)
    loss = wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        A = wps.bsr_from_triplets(3, 3, wp.array(rows, dtype=int), wp.array(cols, dtype=int), vals)
        C = wps.bsr_mm(A, wps.bsr_transposed(A), alpha=2.0)
    nnz = C.nnz_sync()
    with tape:
        wp.launch(weighted_sum, nnz, inputs=[C.values, wp.ones(nnz, dtype=wp.float64), loss])
    tape.backward(loss)
    direction = RNG.standard_normal(v0.shape)
    eps = 1e-6
    fd = (f(v0 + eps * direction) - f(v0 - eps * direction)) / (2 * eps)
    np.testing.assert_allclose(np.sum(vals.grad.numpy() * direction), fd, rtol=1e-6)


def test_kernel_functions_find_blocks_and_rows():
    A = wps.bsr_from_triplets(3, 3, wp.array([0, 0, 2], dtype=int), wp.array([0, 2, 1], dtype=int),
                              wp.array([1.0, 2.0, 3.0], dtype=float))

    @wp.kernel
    def lookup(offsets: wp.array(dtype=int), columns: wp.array(dtype=int), out: wp.array(dtype=int),
               rows: wp.array(dtype=int)):
        i = wp.tid()
        out[i] = wps.bsr_block_index(i // 3, i % 3, offsets, columns)
        rows[i] = wps.bsr_row_index(offsets, 3, i)

    out = wp.zeros(9, dtype=int)
    rows = wp.zeros(9, dtype=int)
    wp.launch(lookup, 9, inputs=[A.offsets, A.columns, out, rows])
    np.testing.assert_array_equal(out.numpy(), [0, -1, 1, -1, -1, -1, -1, 2, -1])
    np.testing.assert_array_equal(rows.numpy(), [0, 0, 2] + [-1] * 6)


# --- bad input ---------------------------------------------------------------------------------
def test_bad_triplets_name_the_argument():
    A = wps.bsr_zeros(3, 3, wp.mat22)
    ints = wp.array([0, 1], dtype=int)
    with pytest.raises(ValueError, match="rows and columns must have the same length.*2 rows and 3 columns"):
        wps.bsr_set_from_triplets(A, ints, wp.array([0, 1, 2], dtype=int))
    with pytest.raises(TypeError, match="Rows and columns arrays must be of type int32"):
        wps.bsr_set_from_triplets(A, wp.array([0.0, 1.0], dtype=float), ints)
    with pytest.raises(ValueError, match="values must hold one block per triplet"):
        wps.bsr_set_from_triplets(A, ints, ints, wp.zeros(3, dtype=wp.mat22))
    with pytest.raises(ValueError, match="values: blocks of type mat33f do not match the matrix's block type mat22f"):
        wps.bsr_set_from_triplets(A, ints, ints, wp.zeros(2, dtype=wp.mat33))
    with pytest.raises(ValueError, match="values must be contiguous"):
        wps.bsr_set_from_triplets(A, ints, ints, wp.zeros(4, dtype=wp.mat22)[::2])
    with pytest.raises(ValueError, match="block type must be either warp matrix or scalar"):
        wps.bsr_zeros(2, 2, wp.vec3)


def test_bad_operands_name_the_argument():
    A, _ = build(3, 4, 6, (1, 1))
    with pytest.raises(ValueError, match="Incompatible 'x'.*needs 4 scalars.*holds 3"):
        wps.bsr_mv(A, wp.zeros(3, dtype=float))
    with pytest.raises(ValueError, match="Incompatible 'y'"):
        wps.bsr_mv(A, wp.zeros(4, dtype=float), wp.zeros(4, dtype=float))
    with pytest.raises(ValueError, match="Incompatible 'x'.*scalar type float64"):
        wps.bsr_mv(A, wp.zeros(4, dtype=wp.float64))
    with pytest.raises(ValueError, match="same number of rows and columns"):
        wps.bsr_axpy(A, wps.bsr_zeros(4, 4, float))
    with pytest.raises(ValueError, match="same block type"):
        wps.bsr_axpy(A, wps.bsr_zeros(3, 4, wp.float64))
    with pytest.raises(ValueError, match="Incompatible number of rows/columns"):
        wps.bsr_mm(A, A)
    with pytest.raises(ValueError, match="topology must be one of"):
        wps.bsr_axpy(A, A, topology="sparse")


# --- graph capture on the CPU: recorded, run at capture_launch ---------------------------------
@wp.kernel
def _diagonal_triplets(rows: wp.array(dtype=int), cols: wp.array(dtype=int), vals: wp.array(dtype=float)):
    i = wp.tid()
    rows[i] = i
    cols[i] = i
    vals[i] = float(i + 1)


def test_captured_assembly_and_transpose_rebuild_on_replay():
    n = 6
    rows, cols, vals = wp.zeros(n, dtype=int), wp.zeros(n, dtype=int), wp.zeros(n, dtype=float)
    A = wps.bsr_zeros(n, n, float)
    At = wps.bsr_zeros(n, n, float)
    dest = wps.bsr_from_triplets(2, 2, wp.array([0], dtype=int), wp.array([0], dtype=int),
                                 wp.array([1.0], dtype=float))
    with wp.ScopedCapture(force_module_load=False) as capture:
        wp.launch(_diagonal_triplets, n, inputs=[rows, cols, vals])  # the triplets exist only on replay
        wps.bsr_set_from_triplets(A, rows, cols, vals)
        wps.bsr_set_transpose(At, A)
        wps.bsr_assign(dest, wps.bsr_zeros(2, 2, float))
        with pytest.raises(NotImplementedError, match="recorded a topology update"):
            A.nnz_sync()
    np.testing.assert_array_equal(dest.offsets.numpy(), [0, 1, 1])  # nothing ran yet
    for M in (A, At):
        M.offsets.zero_()
        M.columns.fill_(-1)
    wp.capture_launch(capture.graph)
    for M in (A, At):
        assert M.nnz_sync() == n
        np.testing.assert_allclose(dense(M), np.diag(np.arange(1.0, n + 1)))
    np.testing.assert_array_equal(dest.offsets.numpy(), [0, 0, 0])


def test_padded_rows_past_capacity_stay_empty_and_status_is_not_read_in_a_capture():
    P = wps.bsr_zeros(2, 3, float, row_capacity=1)
    wps.bsr_set_from_triplets(P, wp.array([0, 0, 1], dtype=int), wp.array([0, 2, 1], dtype=int),
                              wp.array([1.0, 2.0, 3.0], dtype=float), topology="padded")
    np.testing.assert_array_equal(P.row_counts.numpy(), [0, 1])
    assert P.status_sync() == wps.BSR_STATUS_ROW_CAPACITY_EXCEEDED
    with wp.ScopedCapture(force_module_load=False):
        assert P.nnz_sync() == 2  # read now: nothing recorded changes it
        with pytest.raises(NotImplementedError, match="cannot read sparse status during a live graph capture"):
            P.status_sync()
