"""What every solver here shares: `LinearSolverState` (the problem, checked once, its work
vectors allocated once, and `__call__` running the solver, optionally on a new A, b, x or M of
the same layout), Warp's default tolerances, and the host loop `run_solver_loop` that runs a
solver's cycles and checks convergence about every `check_every` iterations.

The only host synchronisations of a solve are the convergence checks (one read of the per-batch
residuals and tolerances each). Between checks the iterations go on, but (as in Warp) one that
starts from a batch's converged residual moves nothing in that batch (`mark_live`), so where a
solve stops does not depend on `check_every`. With `check_every=0` none is reported: the solver
returns device arrays (squared residual, squared tolerance) as Warp's capturable mode does, and
stops once converged (a test before each cycle, outside graph captures; a captured solve runs
`maxiter`).
`use_cuda_graph` is accepted and has no effect: warp_nb launches each kernel of an iteration
directly (on the CPU there are no graphs; on CUDA the launches are ordered on the stream the same
way)."""

from __future__ import annotations

import math
import warnings

import numpy as np

import warp_nb as wp

from ... import types as T
from ...arrays.array import array
from . import _kernels as K
from .operator import FLOAT_SCALARS, LinearOperator, aslinearoperator, scalar_count, scalars

#: `M=_KEEP` in a call: the preconditioner given at construction
_KEEP = object()


def default_tolerances(scalar, tol, atol) -> tuple[float, float]:
    """Warp's defaults: with neither given, both relative and absolute tolerance are a fixed
    fraction of the type's precision (1e-3 for float16, 1e-6 for float32, 1e-12 for float64);
    one given stands for the other."""
    default = {wp.float16: 1.0e-3, wp.float32: 1.0e-6}.get(scalar, 1.0e-12)
    if tol is None and atol is None:
        return default, default
    if tol is None:
        return float(atol), float(atol)
    if atol is None:
        return float(tol), float(tol)
    return float(tol), float(atol)


def run_solver_loop(do_cycle, cycle_size, r_norm_sq, maxiter, atol_sq, callback, check_every, use_cuda_graph,
                    device, name="the solver"):
    """Run `do_cycle` (which performs `cycle_size` iterations and leaves the per-batch squared
    residuals in r_norm_sq) until every batch's residual is within its tolerance (atol_sq) or
    maxiter iterations are done. Checks (and calls callback(iteration, residual, tolerance))
    before the first cycle and after each cycle that reaches or passes a multiple of `check_every`.
    Returns (iterations, residual, tolerance) of the batch furthest from its tolerance; a solve
    that stops at maxiter without converging warns."""
    cycles = max(0, math.ceil(float(maxiter) / cycle_size))
    if not check_every or check_every <= 0:
        # Warp's device-side stopping: no check reported, but iterations stop once every batch has
        # converged (CG, CR and BiCGSTAB would move nothing more; GMRES would refine on, and its
        # Arnoldi step can break down on a zero residual). Outside a graph capture that test is a
        # read of two small arrays per cycle; under capture every iteration is recorded.
        from ...runtime import recording
        done = 0
        for _ in range(cycles):
            if recording.capture is None and bool(np.all(r_norm_sq.numpy() <= atol_sq.numpy())):
                break
            do_cycle()
            done += 1
        return done * cycle_size, r_norm_sq, atol_sq
    every = int(check_every)

    def check(iteration):
        r, a = r_norm_sq.numpy().astype(np.float64), atol_sq.numpy().astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            excess = np.where(r <= a, r / np.maximum(a, np.finfo(np.float64).tiny), np.inf)
        excess = np.where(np.isnan(r), np.inf, excess)
        worst = int(np.argmax(excess)) if len(r) else 0
        err, tol = (float(np.sqrt(r[worst])), float(np.sqrt(a[worst]))) if len(r) else (0.0, 0.0)
        if callback is not None:
            callback(iteration, err, tol)
        return bool(np.all(r <= a)), err, tol

    done, err, tol = check(0)
    cycle = 0
    while not done and cycle < cycles:
        do_cycle()
        cycle += 1
        # as Warp: after the cycle in which the iteration count reached or passed a multiple of
        # check_every (cycles of 8 checked every 10 iterations: at 16, 24, 32, 40, 56, ...)
        if (cycle * cycle_size) // every > ((cycle - 1) * cycle_size) // every or cycle == cycles:
            done, err, tol = check(cycle * cycle_size)
    if not done:
        warnings.warn(f"{name} did not converge: residual norm {err:.6g} > tolerance {tol:.6g} after "
                      f"{cycle * cycle_size} iterations (maxiter={maxiter})", RuntimeWarning, stacklevel=4)
    return cycle * cycle_size, err, tol


def check_restart(restart) -> int | None:
    """restart: None, or a positive integer (numpy integers too; bools and floats refused)."""
    if restart is None:
        return None
    if isinstance(restart, (bool, np.bool_)) or not isinstance(restart, (int, np.integer)):
        raise TypeError(f"restart must be a positive integer or None, got {restart!r}")
    if restart <= 0:
        raise ValueError(f"restart must be a positive integer, got {restart}")
    return int(restart)


def as_preconditioner(M, n: int, name: str):
    if M is None:
        return None
    op = aslinearoperator(M)
    if op.shape != (n, n):
        raise ValueError(f"{name}: the preconditioner M has shape {op.shape}, the system has {n} unknowns")
    return op


class LinearSolverState:
    """Pre-allocated state for a linear iterative solver: the problem (A, b, x, optional M), the
    work vectors and the per-batch scalars. Calling it runs the solver, optionally on a new
    A, b, x or M, which must match the construction's shape, dtype, device and batch layout."""

    name = "solver"

    def __init__(self, A, b, x, tol=None, atol=None, maxiter=0, M=None, callback=None, check_every=10,
                 use_cuda_graph=True):
        self.A = _checked_operator(A, self.name)
        n = self.A.shape[0]
        _check_vector("b", b, n, self.A, self.name)
        _check_vector("x", x, n, self.A, self.name)
        if not (x.dtype is b.dtype or T.types_equal(x.dtype, b.dtype)) or x.shape != b.shape:
            raise ValueError(f"{self.name}: x ({T.type_name(x.dtype)}, shape {x.shape}) and b "
                             f"({T.type_name(b.dtype)}, shape {b.shape}) must have the same dtype and shape")
        self.b, self.x = b, x
        self.M = as_preconditioner(M, n, self.name)
        self.n = n
        self.scalar = T.scalar_type_of(b.dtype)
        self.acc = K.acc_type(self.scalar)
        self.device = self.A.device
        self.tol, self.atol = default_tolerances(self.scalar, tol, atol)
        self.maxiter = n if not maxiter else maxiter
        self.callback = callback
        self.check_every = check_every
        self.use_cuda_graph = use_cuda_graph
        self._layout = _batch_layout(self.A, b, n, self.name)
        self.offsets, self.nb = self._layout[0], self._layout[1]
        self.k = K.kernels(self.scalar)
        self._cur_iter_and_condition = wp.zeros(2, dtype=wp.int32, device=self.device)
        self._b_sq = self.scalars_per_batch()
        self._atol_sq = self.scalars_per_batch()
        self._r_norm_sq = self.scalars_per_batch()
        self._zero_coef = self.scalars_per_batch()  # ratio(zero, zero) == 0: a step that moves nothing
        self._live = wp.zeros(self.nb, dtype=wp.int32, device=self.device)  # 0: the batch has converged
        self._allocate()

    # -- what subclasses use ------------------------------------------------------------------

    def vector(self):
        """A work vector like b (zeros), with its scalar view."""
        v = wp.zeros_like(self.b)
        return v, scalars(v)

    def scalars_per_batch(self):
        return wp.zeros(self.nb, dtype=self.acc, device=self.device)

    def dot(self, x, y, out) -> None:
        out.zero_()
        wp.launch(self.k["dot"], dim=K.chunks(self.n), inputs=[x, y, self.offsets, self.nb, out],
                  device=self.device)

    def dot2(self, x, y, u, v, out_xy, out_uv) -> None:
        out_xy.zero_()
        out_uv.zero_()
        wp.launch(self.k["dot2"], dim=K.chunks(self.n), inputs=[x, y, u, v, self.offsets, self.nb, out_xy, out_uv],
                  device=self.device)

    def copy_active(self, src, dst) -> None:
        wp.launch(self.k["copy_active"], dim=K.chunks(self.n), inputs=[src, dst, self.offsets, self.nb],
                  device=self.device)

    def mark_live(self) -> None:
        """Before an iteration: which batches are not yet within their tolerance. The kernels that
        move x and r leave the others where they are."""
        wp.launch(self.k["liveness"], dim=self.nb, inputs=[self._r_norm_sq, self._atol_sq, self._live],
                  device=self.device)

    def launch(self, name, inputs) -> None:
        wp.launch(self.k[name], dim=K.chunks(self.n), inputs=inputs, device=self.device)

    # -- running ---------------------------------------------------------------------------

    def __call__(self, A=None, b=None, x=None, M=_KEEP):
        A = self.A if A is None else self._compatible_operator(A)
        b = self.b if b is None else self._compatible_vector("b", b)
        x = self.x if x is None else self._compatible_vector("x", x)
        M = self.M if M is _KEEP else as_preconditioner(M, self.n, self.name)
        self._check_preconditioner(M)
        bs = scalars(b)
        self.dot(bs, bs, self._b_sq)
        wp.launch(self.k["tolerance"], dim=self.nb, inputs=[self._b_sq, self.tol, self.atol, self._atol_sq],
                  device=self.device)
        do_cycle, cycle_size = self._prepare(A, b, x, M)
        niter, err, atol = run_solver_loop(do_cycle, cycle_size, self._r_norm_sq, self.maxiter, self._atol_sq,
                                           self.callback, self.check_every, self.use_cuda_graph, self.device,
                                           name=self.name)
        if isinstance(err, array):
            self._cur_iter_and_condition.fill_(niter)
            return self._cur_iter_and_condition, err, atol
        return niter, err, atol

    def _check_preconditioner(self, M) -> None:
        """BiCGSTAB and GMRES fix whether M is present at construction; CG and CR do not."""

    def _compatible_operator(self, A) -> LinearOperator:
        op = _checked_operator(A, self.name)
        if op.shape != self.A.shape or op.scalar_type is not self.A.scalar_type or op.device != self.device:
            raise ValueError(f"{self.name}: the new A (shape {op.shape}, {T.type_name(op.scalar_type)}, {op.device}) "
                             f"does not match the state's (shape {self.A.shape}, "
                             f"{T.type_name(self.A.scalar_type)}, {self.device})")
        mine, theirs = self.A.batch_offsets, op.batch_offsets
        if (mine is None) != (theirs is None) or (mine is not None and mine.ptr != theirs.ptr):
            raise ValueError(f"{self.name}: the new A's batch_offsets differ from the state's batch layout")
        if op.max_batch_length != self.A.max_batch_length:
            raise ValueError(f"{self.name}: the new A's max_batch_length ({op.max_batch_length}) differs from the "
                             f"state's ({self.A.max_batch_length})")
        return op

    def _compatible_vector(self, what, v):
        if not isinstance(v, array) or v.shape != self.b.shape or not T.types_equal(v.dtype, self.b.dtype) \
                or v.device != self.device:
            got = (f"shape {v.shape}, {T.type_name(v.dtype)}, {v.device}" if isinstance(v, array)
                   else type(v).__name__)
            raise ValueError(f"{self.name}: the new {what} ({got}) does not match the state's (shape "
                             f"{self.b.shape}, {T.type_name(self.b.dtype)}, {self.device})")
        return v

    def _allocate(self) -> None:
        raise NotImplementedError

    def _prepare(self, A, b, x, M):
        """(do_cycle, cycle_size) for one solve; do_cycle leaves the squared residuals in _r_norm_sq."""
        raise NotImplementedError


def _checked_operator(A, name) -> LinearOperator:
    op = aslinearoperator(A)
    if op.shape[0] != op.shape[1]:
        raise ValueError(f"{name}: A must be a square matrix, got shape {op.shape}")
    if op.scalar_type not in FLOAT_SCALARS:
        raise TypeError(f"{name}: A must hold float16, float32 or float64 values, got {T.type_name(op.scalar_type)}")
    return op


def _check_vector(what, v, n, A, name) -> None:
    if not isinstance(v, array):
        raise TypeError(f"{name}: {what} must be a warp array, got {type(v).__name__}")
    if T.scalar_type_of(v.dtype) is not A.scalar_type:
        raise ValueError(f"{name}: {what} holds {T.type_name(v.dtype)}, A holds {T.type_name(A.scalar_type)}")
    if scalar_count(v) != n:
        raise ValueError(f"{name}: {what} has {scalar_count(v)} scalars, A has shape {A.shape}")
    if v.device != A.device:
        raise ValueError(f"{name}: {what} is on {v.device}, A on {A.device}")
    if not v.is_contiguous:
        raise ValueError(f"{name}: {what} must be a contiguous array")


def _batch_layout(A: LinearOperator, b, n: int, name: str):
    """(offsets array, batch count): A's batch_offsets, checked once on the host, or [0, n]."""
    if A.batch_offsets is None:
        return wp.array([0, n], dtype=wp.int32, device=A.device), 1
    offsets = A.batch_offsets
    host = offsets.numpy().astype(np.int64)
    length = T.type_length(b.dtype)
    if host[0] < 0 or np.any(np.diff(host) < 0) or host[-1] > n:
        raise ValueError(f"{name}: batch_offsets must be non-decreasing within [0, {n}], got {host.tolist()}")
    if length > 1 and np.any(host % length):
        raise ValueError(f"{name}: batch_offsets must be multiples of the vector length {length}")
    if A.max_batch_length is not None and len(host) > 1 and np.diff(host).max() > A.max_batch_length:
        raise ValueError(f"{name}: max_batch_length {A.max_batch_length} is smaller than the longest batch "
                         f"({int(np.diff(host).max())})")
    if offsets.device != A.device:
        offsets = offsets.to(A.device)
    return offsets, len(host) - 1
