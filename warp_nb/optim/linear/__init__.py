"""`warp.optim.linear`: iterative solvers of linear systems with Warp's interface.

    x = wp.zeros_like(b)
    iterations, residual, tolerance = warp_nb.optim.linear.cg(A, b, x, M=preconditioner(A, "diag"))

A is a `warp.sparse` BsrMatrix, a dense 2-d array, a diagonal 1-d array or a `LinearOperator`
(any matvec); `batch_offsets` on the operator solves several independent systems together.
`cg` and `cr` (symmetric systems), `bicgstab` and `gmres` (general square systems), and their
reusable states `CG`, `CR`, `BiCGSTAB`, `GMRES`, are written as warp_nb kernels (_kernels.py)
driven by a host loop that synchronises only to check convergence (state.py)."""

from .fsai import FSAI  # noqa: F401
from .gmres import GMRES, gmres  # noqa: F401
from .krylov import CG, CR, BiCGSTAB, bicgstab, cg, cr  # noqa: F401
from .operator import LinearOperator, aslinearoperator  # noqa: F401
from .preconditioners import preconditioner  # noqa: F401
from .state import LinearSolverState  # noqa: F401

__all__ = ["BiCGSTAB", "CG", "CR", "FSAI", "GMRES", "LinearOperator", "LinearSolverState", "aslinearoperator", "bicgstab",
           "cg", "cr", "gmres", "preconditioner"]
