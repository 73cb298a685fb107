"""warp_nb.optim.linear against numpy/scipy: each solver, with and without preconditioners, in
float32 and float64, on dense, diagonal, custom and BSR operators, batched systems, a solve
that does not converge, and bad input."""

import numpy as np
import pytest
import scipy.sparse as sps

import warp_nb as wp
from warp_nb.optim.linear import (
    CG,
    GMRES,
    LinearOperator,
    aslinearoperator,
    bicgstab,
    cg,
    cr,
    gmres,
    preconditioner,
)

pytestmark = pytest.mark.needs_cxx

SYMMETRIC = (cg, cr)
GENERAL = (bicgstab, gmres)


def spd(n, seed):
    rng = np.random.default_rng(seed)
    C = rng.standard_normal((n, n))
    return C @ C.T + n * np.eye(n) * np.diag(rng.uniform(0.5, 2.0, n)), rng.standard_normal(n)


def nonsymmetric(n, seed):
    A, b = spd(n, seed)
    rng = np.random.default_rng(seed + 1)
    return A + 0.5 * np.triu(rng.standard_normal((n, n)), 1), b


def solve(solver, A_np, b_np, dtype, M=None, **kwargs):
    A = wp.array(A_np, dtype=dtype)
    b = wp.array(b_np, dtype=dtype)
    x = wp.zeros_like(b)
    M = preconditioner(A, M) if isinstance(M, str) else M
    result = solver(A, b, x, M=M, maxiter=500, **kwargs)
    return result, x.numpy().astype(np.float64)


@pytest.mark.parametrize("dtype", [wp.float32, wp.float64])
@pytest.mark.parametrize("ptype", [None, "diag", "diag_abs", "id"])
@pytest.mark.parametrize("solver", SYMMETRIC + GENERAL)
def test_solution_matches_numpy(solver, ptype, dtype):
    A_np, b_np = spd(40, 3) if solver in SYMMETRIC else nonsymmetric(40, 3)
    tol = 1e-5 if dtype == wp.float32 else 1e-10
    (niter, err, atol), x = solve(solver, A_np, b_np, dtype, ptype, tol=tol)
    expected = np.linalg.solve(A_np, b_np)
    assert 0 < niter <= 500 + 31
    assert err <= atol
    assert atol == pytest.approx(tol * np.linalg.norm(b_np), rel=1e-3)
    # the solver's residual is what A x - b really is (up to the drift of an updated residual)
    assert np.linalg.norm(A_np @ x - b_np) <= (50.0 if dtype == wp.float32 else 2.0) * atol
    np.testing.assert_allclose(x, expected, rtol=0, atol=(1e-3 if dtype == wp.float32 else 1e-8))


@pytest.mark.parametrize("solver", GENERAL)
def test_left_preconditioner(solver):
    A_np, b_np = nonsymmetric(30, 5)
    (_, err, atol), x = solve(solver, A_np, b_np, wp.float64, "diag", tol=1e-10, is_left_preconditioner=True)
    assert err <= atol
    np.testing.assert_allclose(x, np.linalg.solve(A_np, b_np), atol=1e-8)


def _bicgstab_split(A, b, m, iterations, left):
    """BiCGSTAB (van der Vorst 1992) with the preconditioner diag(m): x += alpha M p + omega M s on
    the unpreconditioned residual; omega = (t.s)/(t.t) for a right preconditioner and, for a left
    one, (M t . M s)/(M t . M t), which minimises the preconditioned residual |M r|."""
    x, r = np.zeros_like(b), b.copy()
    r0, p, rho = r.copy(), r.copy(), r @ r
    for _ in range(iterations):
        y = m * p
        v = A @ y
        alpha = rho / (r0 @ v)
        s = r - alpha * v
        z = m * s
        t = A @ z
        omega = ((m * t) @ z) / ((m * t) @ (m * t)) if left else (t @ s) / (t @ t)
        x = x + alpha * y + omega * z
        r = s - omega * t
        rho, rho_old = r0 @ r, rho
        p = r + rho / rho_old * alpha / omega * (p - omega * v)
    return x


@pytest.mark.parametrize("left", [False, True])
def test_preconditioned_bicgstab_iterates_are_van_der_vorsts(left):
    # a left preconditioner changes how omega is chosen, not the recurrences, as in Warp (whose
    # iterates and iteration counts sparse_against_warp compares): not BiCGSTAB run on M A x = M b
    A_np, b_np = nonsymmetric(30, 5)
    A_np = A_np * np.random.default_rng(6).uniform(0.2, 5.0, 30)[:, None]  # rows scaled: M matters
    m = 1.0 / np.diag(A_np)
    for iterations in (1, 2, 5):
        A, b = wp.array(A_np, dtype=wp.float64), wp.array(b_np, dtype=wp.float64)
        x = wp.zeros_like(b)
        with pytest.warns(RuntimeWarning, match="did not converge"):
            niter, err, _ = bicgstab(A, b, x, tol=1e-30, maxiter=iterations, M=preconditioner(A, "diag"),
                                     check_every=1, is_left_preconditioner=left)
        expected = _bicgstab_split(A_np, b_np, m, iterations, left)
        assert niter == iterations
        np.testing.assert_allclose(x.numpy(), expected, rtol=1e-10, atol=1e-12)
        assert err == pytest.approx(np.linalg.norm(b_np - A_np @ expected), rel=1e-8)


def test_scipy_agrees_on_a_sparse_poisson_system():
    from scipy.sparse.linalg import cg as scipy_cg

    from warp_nb.sparse import bsr_from_triplets

    n = 30
    lap = sps.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(n, n))
    A_sp = (sps.kron(sps.eye(n), lap) + sps.kron(lap, sps.eye(n))).tocoo()
    b_np = np.random.default_rng(0).standard_normal(n * n)
    A = bsr_from_triplets(n * n, n * n, wp.array(A_sp.row, dtype=wp.int32), wp.array(A_sp.col, dtype=wp.int32),
                          wp.array(A_sp.data, dtype=wp.float64))
    b = wp.array(b_np, dtype=wp.float64)
    x = wp.zeros_like(b)
    _, err, atol = cg(A, b, x, tol=1e-10, maxiter=2000, M=preconditioner(A, "diag"))
    reference, info = scipy_cg(A_sp.tocsr(), b_np, rtol=1e-12, maxiter=5000)
    assert info == 0 and err <= atol
    np.testing.assert_allclose(x.numpy(), reference, atol=1e-7)


def test_custom_operator_and_callback():
    d = np.linspace(1.0, 4.0, 12)

    @wp.kernel
    def scaled(d: wp.array(dtype=float), x: wp.array(dtype=float), y: wp.array(dtype=float), z: wp.array(dtype=float),
               alpha: float, beta: float):
        i = wp.tid()
        z[i] = alpha * d[i] * x[i] + beta * y[i]

    dw = wp.array(d, dtype=float)

    def matvec(x, y, z, alpha, beta):
        wp.launch(scaled, dim=12, inputs=[dw, x, y, z, alpha, beta])

    A = LinearOperator((12, 12), wp.float32, dw.device, matvec)
    b = wp.array(np.ones(12), dtype=float)
    x = wp.zeros_like(b)
    seen = []
    niter, err, atol = cg(A, b, x, tol=1e-6, check_every=1, callback=lambda i, r, t: seen.append((i, r, t)))
    np.testing.assert_allclose(x.numpy(), 1.0 / d, rtol=1e-5)
    assert seen[0][0] == 0 and seen[-1][0] == niter
    assert seen[-1][1] == pytest.approx(err) and seen[-1][2] == pytest.approx(atol)
    assert seen[0][1] == pytest.approx(np.sqrt(12.0), rel=1e-6)


def test_batched_systems_converge_independently():
    sizes = [5, 9, 1, 7]
    blocks = [spd(n, 10 + n) for n in sizes]
    n = sum(sizes)
    A_np = np.zeros((n + 2, n + 2))  # two inactive unknowns at the end
    b_np = np.zeros(n + 2)
    start = 0
    for (A_i, b_i), m in zip(blocks, sizes):
        A_np[start:start + m, start:start + m] = A_i
        b_np[start:start + m] = b_i
        start += m
    A_np[n:, n:] = np.eye(2)
    b_np[n:] = 5.0
    offsets = wp.array(np.concatenate([[0], np.cumsum(sizes)]), dtype=wp.int32)
    for solver in SYMMETRIC + GENERAL:
        A = aslinearoperator(wp.array(A_np, dtype=wp.float64), batch_offsets=offsets, max_batch_length=9)
        assert A.batch_count == 4
        x = wp.array(np.r_[np.zeros(n), 7.0, 8.0], dtype=wp.float64)
        _, err, atol = solver(A, wp.array(b_np, dtype=wp.float64), x, tol=1e-10, maxiter=200)
        assert err <= atol, solver.__name__
        np.testing.assert_allclose(x.numpy()[:n], np.linalg.solve(A_np[:n, :n], b_np[:n]), atol=1e-8)
        np.testing.assert_array_equal(x.numpy()[n:], [7.0, 8.0])  # the inactive tail is left alone


def test_iterations_past_convergence_change_nothing():
    # Warp's CG, CR and BiCGSTAB leave x alone once the residual is within the tolerance, so a
    # solve checked every 7 iterations ends where one checked every iteration does; it only
    # reports the later check's iteration count
    for solver, (A_np, b_np) in ((cg, spd(60, 5)), (cr, spd(60, 5)), (bicgstab, nonsymmetric(60, 5))):
        A = wp.array(A_np, dtype=wp.float64)
        ends = {}
        for every in (1, 7):
            x = wp.zeros(60, dtype=wp.float64)
            niter, err, atol = solver(A, wp.array(b_np, dtype=wp.float64), x, tol=1e-9, maxiter=200,
                                      check_every=every, M=preconditioner(A, "diag"))
            assert err <= atol, solver.__name__
            ends[every] = niter, x.numpy()
        (n1, x1), (n7, x7) = ends[1], ends[7]
        assert n1 % 7 != 0 and n7 == -(-n1 // 7) * 7, (solver.__name__, n1, n7)  # iterations past n1 ran
        np.testing.assert_array_equal(x7, x1, err_msg=solver.__name__)


def test_a_converged_batch_stays_where_it_converged():
    rng = np.random.default_rng(3)
    n1, n2 = 6, 30
    Q = rng.standard_normal((n2, n2))
    A_np = np.zeros((n1 + n2, n1 + n2))
    A_np[:n1, :n1] = np.diag(np.linspace(1.0, 1.2, n1)) + 0.05 * np.ones((n1, n1))
    A_np[n1:, n1:] = Q @ Q.T + 0.5 * np.eye(n2)  # much slower to converge
    b_np = rng.standard_normal(n1 + n2)
    offsets = wp.array([0, n1, n1 + n2], dtype=wp.int32)
    for solver in (cg, cr, bicgstab):
        easy, hard = [], []
        for maxiter in range(1, 16):
            A = aslinearoperator(wp.array(A_np, dtype=wp.float64), batch_offsets=offsets, max_batch_length=n2)
            x = wp.zeros(n1 + n2, dtype=wp.float64)
            solver(A, wp.array(b_np, dtype=wp.float64), x, tol=1e-6, maxiter=maxiter, check_every=0)
            easy.append(x.numpy()[:n1])
            hard.append(x.numpy()[n1:])
        residual = [np.linalg.norm(A_np[:n1, :n1] @ e - b_np[:n1]) for e in easy]
        first = next(i for i, r in enumerate(residual) if r <= 1e-6 * np.linalg.norm(b_np[:n1]))
        assert first < 10, solver.__name__
        for later in easy[first + 1:]:
            np.testing.assert_array_equal(later, easy[first], err_msg=solver.__name__)
        assert not np.array_equal(hard[first], hard[-1]), solver.__name__  # the other batch went on


def test_cycles_are_checked_after_each_multiple_of_check_every_they_reach():
    # Warp's schedule: restarted solvers count whole cycles, and the check comes after the cycle
    # that reaches or passes the next multiple of check_every (8-iteration cycles, every 10: 16, 24,
    # 32, 40, then 56, as 48 passes no new multiple), and at the last cycle
    A_np, b_np = spd(30, 2)
    for solver in (cg, gmres):
        seen = []
        with pytest.warns(RuntimeWarning, match="did not converge"):
            niter, _, _ = solver(wp.array(A_np, dtype=wp.float32), wp.array(b_np, dtype=wp.float32),
                                 wp.zeros(30, dtype=wp.float32), tol=0.0, atol=1e-30, maxiter=76, restart=8,
                                 check_every=10, callback=lambda i, r, t: seen.append(i))
        assert seen == [0, 16, 24, 32, 40, 56, 64, 72, 80], solver.__name__
        assert niter == 80


def _bicgstab_reference(A, b, iterations):
    """Textbook BiCGSTAB without a preconditioner, float64: per iteration the half-step iterate
    and residual norm |s|, then the full step's iterate and |r|."""
    x = np.zeros_like(b)
    r = b - A @ x
    r0, p, rho = r.copy(), r.copy(), r @ r
    steps = []
    for _ in range(iterations):
        v = A @ p
        alpha = rho / (r0 @ v)
        s = r - alpha * v
        x_half = x + alpha * p
        t = A @ s
        omega = (t @ s) / (t @ t)
        x = x_half + omega * s
        r = s - omega * t
        rho, rho_old = r0 @ r, rho
        p = r + (rho / rho_old) * (alpha / omega) * (p - omega * v)
        steps.append((x_half, np.linalg.norm(s), x.copy(), np.linalg.norm(r)))
    return steps


def test_bicgstab_stops_at_the_half_step_once_s_is_within_the_tolerance():
    A_np, b_np = nonsymmetric(40, 11)
    steps = _bicgstab_reference(A_np, b_np, 8)
    # a tolerance just above |s| of the fourth iteration and below every residual before it
    k = 3
    atol = steps[k][1] * (1 + 1e-6)
    assert all(min(s_norm, r_norm) > atol for _, s_norm, _, r_norm in steps[:k])
    x = wp.zeros(40, dtype=wp.float64)
    niter, err, tol = bicgstab(wp.array(A_np, dtype=wp.float64), wp.array(b_np, dtype=wp.float64), x, tol=0.0,
                               atol=atol, maxiter=50, check_every=1)
    assert niter == k + 1
    assert err == pytest.approx(steps[k][1], rel=1e-8)  # the half step's residual, not the full step's
    np.testing.assert_allclose(x.numpy(), steps[k][0], rtol=1e-9, atol=1e-12)
    assert not np.allclose(steps[k][0], steps[k][2], rtol=1e-6)  # the full step would have moved x further


def test_vector_unknowns():
    diag = wp.array(np.array([[2.0, 4.0], [5.0, 8.0], [1.0, 3.0]]), dtype=wp.vec2d)
    b = wp.array(np.array([[2.0, 2.0], [10.0, 4.0], [3.0, 3.0]]), dtype=wp.vec2d)
    for solver in SYMMETRIC + GENERAL:
        x = wp.zeros_like(b)
        _, err, atol = solver(diag, b, x, tol=1e-12, maxiter=20, M=preconditioner(diag, "diag"))
        assert err <= atol
        np.testing.assert_allclose(x.numpy(), [[1.0, 0.5], [2.0, 0.5], [3.0, 1.0]])


def test_not_converging_warns_and_reports():
    A_np, b_np = nonsymmetric(60, 7)
    for solver in SYMMETRIC + GENERAL:
        A = wp.array(A_np, dtype=wp.float64)
        b = wp.array(b_np, dtype=wp.float64)
        x = wp.zeros_like(b)
        kwargs = {"restart": 2} if solver is gmres else {}
        with pytest.warns(RuntimeWarning, match=f"{solver.__name__} did not converge"):
            niter, err, atol = solver(A, b, x, tol=1e-14, maxiter=2, check_every=1, **kwargs)
        assert niter == 2
        assert err > atol
        assert err == pytest.approx(np.linalg.norm(A_np @ x.numpy() - b_np), rel=1e-6)


def test_check_every_zero_returns_device_arrays():
    A_np, b_np = spd(10, 1)
    A, b = wp.array(A_np, dtype=wp.float64), wp.array(b_np, dtype=wp.float64)
    x = wp.zeros_like(b)
    state = cg(A, b, x, maxiter=30, check_every=0, run=False)
    assert isinstance(state, CG)
    niter, r_sq, atol_sq = state()
    # it stops once converged (CG on a 10 x 10 SPD system: at most 10 iterations in exact arithmetic),
    # as Warp's device-side test does, instead of running on to maxiter
    assert niter.numpy()[0] <= 11
    assert r_sq.numpy()[0] <= atol_sq.numpy()[0]
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(A_np, b_np), atol=1e-8)
    # without time to converge it runs maxiter iterations
    x.zero_()
    niter, r_sq, atol_sq = cg(A, b, x, maxiter=3, check_every=0)
    assert niter.numpy()[0] == 3 and r_sq.numpy()[0] > atol_sq.numpy()[0]


def test_state_reuse_with_new_operands():
    A1, b1 = nonsymmetric(16, 1)
    A2, b2 = nonsymmetric(16, 2)
    b = wp.array(b1, dtype=wp.float64)
    x = wp.zeros_like(b)
    state = gmres(wp.array(A1, dtype=wp.float64), b, x, tol=1e-10, restart=8, maxiter=200, run=False)
    assert isinstance(state, GMRES)
    state()
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(A1, b1), atol=1e-8)
    x2 = wp.zeros_like(b)
    state(A=wp.array(A2, dtype=wp.float64), b=wp.array(b2, dtype=wp.float64), x=x2)
    np.testing.assert_allclose(x2.numpy(), np.linalg.solve(A2, b2), atol=1e-8)


def test_bad_input_names_the_argument():
    A = wp.array(np.eye(4), dtype=wp.float64)
    b = wp.zeros(4, dtype=wp.float64)
    with pytest.raises(ValueError, match="square"):
        cg(wp.zeros((4, 3), dtype=wp.float64), b, wp.zeros_like(b))
    with pytest.raises(ValueError, match="b has 5 scalars"):
        cg(A, wp.zeros(5, dtype=wp.float64), wp.zeros(4, dtype=wp.float64))
    with pytest.raises(ValueError, match="x has 3 scalars"):
        cr(A, b, wp.zeros(3, dtype=wp.float64))
    with pytest.raises(ValueError, match="b holds float32"):
        bicgstab(A, wp.zeros(4, dtype=wp.float32), wp.zeros(4, dtype=wp.float32))
    with pytest.raises(TypeError, match="aslinearoperator"):
        aslinearoperator([[1.0]])
    with pytest.raises(ValueError, match="unknown preconditioner type 'ilu'"):
        preconditioner(A, "ilu")
    with pytest.raises(ValueError, match="requires batch_offsets"):
        aslinearoperator(A, max_batch_length=2)
    with pytest.raises(TypeError, match="restart"):
        cg(A, b, wp.zeros_like(b), restart=2.5)
    with pytest.raises(ValueError, match="restart"):
        gmres(A, b, wp.zeros_like(b), restart=0)


def _bsr(a, dtype=wp.float64, block=1):
    from warp_nb.sparse import bsr_copy, bsr_from_triplets

    rows, cols = np.nonzero(a)
    A = bsr_from_triplets(a.shape[0], a.shape[1], wp.array(rows, dtype=wp.int32), wp.array(cols, dtype=wp.int32),
                          wp.array(a[rows, cols], dtype=dtype))
    return bsr_copy(A, block_shape=(block, block)) if block > 1 else A


@pytest.mark.parametrize("ptype", ["block_jacobi_direct", "block_jacobi_sequential", "block_jacobi_tile"])
def test_block_jacobi_applies_the_inverse_diagonal_blocks(ptype):
    rng = np.random.default_rng(4)
    blocks = [(lambda c: c @ c.T + 3 * np.eye(3))(rng.standard_normal((3, 3))) for _ in range(4)]
    a = np.zeros((12, 12))
    for k, blk in enumerate(blocks):
        a[3 * k:3 * k + 3, 3 * k:3 * k + 3] = blk
    a[0, 11] = a[11, 0] = 0.3  # off the block diagonal: ignored by the preconditioner
    M = preconditioner(_bsr(a, block=3), ptype)
    x_np = rng.standard_normal(12)
    y_np = rng.standard_normal(12)
    x, z = wp.array(x_np, dtype=wp.float64), wp.array(y_np, dtype=wp.float64)
    M.matvec(x, z, z, 2.0, -0.5)
    expected = 2.0 * np.concatenate([np.linalg.solve(blk, x_np[3 * k:3 * k + 3]) for k, blk in enumerate(blocks)])
    np.testing.assert_allclose(z.numpy(), expected - 0.5 * y_np, atol=1e-10)


def test_fsai_factor_solves_its_local_systems_and_preconditions_cg():
    from warp_nb.optim.linear import FSAI

    n = 20
    a = 3 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1) + 0.5 * np.eye(n, k=3) + 0.5 * np.eye(n, k=-3)
    scale = np.geomspace(1.0, 100.0, n)  # badly scaled: what FSAI's equilibration and factor undo
    a = a * scale[:, None] * scale[None, :]
    pre = FSAI(_bsr(a), max_row_size=4, kap_tolerance=0)
    offsets, columns, values = pre.G.offsets.numpy(), pre.G.columns.numpy(), pre.G.values.numpy()
    for i in range(n):
        support = columns[offsets[i]:offsets[i + 1]]
        assert support[-1] == i and len(support) <= 4
        e = np.zeros(len(support))
        e[-1] = 1.0
        z = np.linalg.solve(a[np.ix_(support, support)], e)  # G's row: A_SS^-1 e_i / sqrt of its last entry
        np.testing.assert_allclose(values[offsets[i]:offsets[i + 1]], z / np.sqrt(z[-1]), rtol=1e-10)
    b = wp.array(np.ones(n), dtype=wp.float64)
    iterations = []
    for M in (None, pre):
        x = wp.zeros_like(b)
        niter, err, atol = cg(_bsr(a), b, x, M=M, tol=1e-10, maxiter=1000, check_every=1)
        assert err <= atol
        iterations.append(niter)
        np.testing.assert_allclose(a @ x.numpy(), 1.0, atol=1e-7)
    assert iterations[1] < iterations[0]


def test_solver_kernels_compile_for_sm90_with_nvrtc():
    """The CUDA half: every solver kernel this file ran on the CPU, compiled for sm_90 by NVRTC."""
    import importlib

    from tests.support.nvrtc_sm90 import compile_for_sm90
    from warp_nb.optim.linear import _kernels, block_jacobi, fsai, operator

    gmres = importlib.import_module("warp_nb.optim.linear.gmres")  # the package's `gmres` is the function

    made = []
    for scalar in (wp.float32, wp.float64):
        made += list(_kernels.kernels(scalar).values()) + list(gmres._gmres_kernels(scalar).values())
        made += list(operator._product_kernels(scalar).values()) + list(block_jacobi._kernels(scalar).values())
        made.append(fsai._matvec_kernel(scalar, scalar))
    made.append(fsai._compare_topology)
    ran = [k for k in made if list(k.compiled_options("cpu"))]
    assert len(ran) > 20  # the tests above ran most of them
    compile_for_sm90(ran)
