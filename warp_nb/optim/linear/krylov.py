"""Conjugate Gradient, Conjugate Residual and BiCGSTAB: the solver states (`CG`, `CR`,
`BiCGSTAB`) and Warp's functions (`cg`, `cr`, `bicgstab`), built from the kernels of _kernels.py.

One iteration is the products by A (and M), a fused dot kernel and one or two fused update
kernels; the coefficients never leave the device. A Jacobi (diagonal) preconditioner is fused
into CG's update kernel instead of costing a product and a dot of its own. CG and CR take
`restart`: every `restart` iterations the residual is recomputed as b - A x and the search
direction reset, which bounds the drift of the updated residual in float32; the convergence
check after a cycle reads that fresh residual."""

from __future__ import annotations

import warp_nb as wp

from .operator import scalars
from .state import LinearSolverState, check_restart


class CG(LinearSolverState):
    """Pre-allocated state for the (preconditioned) Conjugate Gradient solver of a symmetric
    positive definite system. M may change (or be dropped) between calls."""

    name = "cg"

    def __init__(self, A, b, x, tol=None, atol=None, maxiter=0, M=None, callback=None, check_every=10,
                 use_cuda_graph=True, *, restart=None):
        self.restart = check_restart(restart)
        super().__init__(A, b, x, tol, atol, maxiter, M, callback, check_every, use_cuda_graph)

    def _allocate(self):
        (self.r, self.rs), (self.z, self.zs) = self.vector(), self.vector()
        (self.p, self.ps), (self.ap, self.aps) = self.vector(), self.vector()
        self.rz = [self.scalars_per_batch(), self.scalars_per_batch()]
        self.pap = self.scalars_per_batch()

    def _prepare(self, A, b, x, M):
        xs = scalars(x)
        diag = getattr(M, "_diag", None)
        mode = 0 if M is None else 1 if diag is not None else 3
        zs = self.rs if M is None else self.zs
        diag = self.rs if diag is None else diag
        rr, zero, live = self._r_norm_sq, self._zero_coef, self._live
        state = {"cur": 0}

        def reset():  # r = b - A x, z = M r, p = z, with |r|^2 and r.z
            A.matvec(x, b, self.r, -1.0, 1.0)
            rz = self.rz[state["cur"]]
            if mode == 3:
                M.matvec(self.r, self.z, self.z, 1.0, 0.0)
                self.dot2(self.rs, self.rs, self.rs, self.zs, rr, rz)
            else:  # a step that moves nothing (coefficient 0) computes |r|^2, z and r.z
                rr.zero_()
                rz.zero_()
                self.launch("step", [zero, zero, live, self.rs, self.rs, xs, self.rs, zs, self.rs, diag, mode,
                                     self.offsets, self.nb, rr, rz])
            self.copy_active(zs, self.ps)

        def iteration():
            rz, rz_new = self.rz[state["cur"]], self.rz[1 - state["cur"]]
            self.mark_live()
            A.matvec(self.p, self.ap, self.ap, 1.0, 0.0)
            self.dot(self.ps, self.aps, self.pap)
            rr.zero_()
            rz_new.zero_()
            self.launch("step", [rz, self.pap, live, self.ps, self.aps, xs, self.rs, zs, self.rs, diag, mode,
                                 self.offsets, self.nb, rr, rz_new])
            if mode == 3:
                M.matvec(self.r, self.z, self.z, 1.0, 0.0)
                self.dot(self.rs, self.zs, rz_new)
            self.launch("direction", [rz_new, rz, zs, self.ps, zs, self.ps, 0, self.offsets, self.nb])
            state["cur"] = 1 - state["cur"]

        return _cycles(reset, iteration, self.restart)


class CR(CG):
    """Pre-allocated state for the (preconditioned) Conjugate Residual solver of a symmetric
    (positive definite) system. M may change (or be dropped) between calls."""

    name = "cr"

    def _allocate(self):
        super()._allocate()
        (self.az, self.azs), (self.y, self.ys) = self.vector(), self.vector()

    def _prepare(self, A, b, x, M):
        xs = scalars(x)
        z, zs = (self.r, self.rs) if M is None else (self.z, self.zs)
        ys = self.aps if M is None else self.ys
        mode = 3 if M is None else 2  # mode 2: z -= alpha M A p, the preconditioned residual
        rr, zaz, apy = self._r_norm_sq, self.rz, self.pap
        state = {"cur": 0}

        def reset():  # r = b - A x, z = M r, p = z, Ap = Az
            A.matvec(x, b, self.r, -1.0, 1.0)
            if M is not None:
                M.matvec(self.r, self.z, self.z, 1.0, 0.0)
            A.matvec(z, self.az, self.az, 1.0, 0.0)
            self.dot2(self.rs, self.rs, zs, self.azs, rr, zaz[state["cur"]])
            self.copy_active(zs, self.ps)
            self.copy_active(self.azs, self.aps)

        def iteration():
            cur, new = zaz[state["cur"]], zaz[1 - state["cur"]]
            self.mark_live()
            if M is not None:
                M.matvec(self.ap, self.y, self.y, 1.0, 0.0)
            self.dot(self.aps, ys, apy)
            rr.zero_()
            self.launch("step", [cur, apy, self._live, self.ps, self.aps, xs, self.rs, zs, ys, self.rs, mode,
                                 self.offsets, self.nb, rr, rr])
            A.matvec(z, self.az, self.az, 1.0, 0.0)
            self.dot(zs, self.azs, new)
            self.launch("direction", [new, cur, zs, self.ps, self.azs, self.aps, 1, self.offsets, self.nb])
            state["cur"] = 1 - state["cur"]

        return _cycles(reset, iteration, self.restart)


class BiCGSTAB(LinearSolverState):
    """Pre-allocated state for the BiConjugate Gradient Stabilized solver of a general square
    system, M applied on the right (default) or on the left. Whether M is present is fixed at
    construction."""

    name = "bicgstab"

    def __init__(self, A, b, x, tol=None, atol=None, maxiter=0, M=None, callback=None, check_every=10,
                 use_cuda_graph=True, is_left_preconditioner=False):
        self.is_left_preconditioner = bool(is_left_preconditioner)
        super().__init__(A, b, x, tol, atol, maxiter, M, callback, check_every, use_cuda_graph)

    def _check_preconditioner(self, M):
        if (M is None) != (self.M is None):
            raise ValueError("bicgstab: a preconditioner must be given on every call if and only if one was given "
                             "at construction (its work vectors are allocated then)")

    def _allocate(self):
        names = ("r", "r0", "p", "v", "s", "t", "y", "z")
        if self.is_left_preconditioner:
            names += ("mt",)
        for name in names:
            v, s = self.vector()
            setattr(self, name, v)
            setattr(self, name + "_s", s)
        self.rho = [self.scalars_per_batch(), self.scalars_per_batch()]
        self.r0v, self.ts, self.tt_ = self.scalars_per_batch(), self.scalars_per_batch(), self.scalars_per_batch()
        self.ss = self.scalars_per_batch()  # |s|^2 after the half step

    def _prepare(self, A, b, x, M):
        xs = scalars(x)
        left = M is not None and self.is_left_preconditioner
        rr = self._r_norm_sq
        state = {"cur": 0}
        # y = M p, z = M s, x += alpha y + omega z, and r is b - A x, with M on either side. On the
        # left, as in Warp (van der Vorst's split form with M as the left factor), omega minimises
        # the preconditioned residual |M (s - omega t)|: omega = (M t . M s) / (M t . M t), M s
        # being z; on the right (or without M) omega = (t . s) / (t . t).
        y, ys = (self.p, self.p_s) if M is None else (self.y, self.y_s)
        z, zs = (self.s, self.s_s) if M is None else (self.z, self.z_s)

        def reset():
            rho = self.rho[state["cur"]]
            A.matvec(x, b, self.r, -1.0, 1.0)
            self.dot(self.r_s, self.r_s, rho)
            wp.copy(rr, rho)
            self.copy_active(self.r_s, self.r0_s)
            self.copy_active(self.r_s, self.p_s)

        def iteration():
            rho, rho_new = self.rho[state["cur"]], self.rho[1 - state["cur"]]
            self.mark_live()
            if M is not None:
                M.matvec(self.p, self.y, self.y, 1.0, 0.0)
            A.matvec(y, self.v, self.v, 1.0, 0.0)
            self.dot(self.r0_s, self.v_s, self.r0v)
            self.ss.zero_()
            self.launch("bicg_half", [rho, self.r0v, self._live, self.r_s, self.v_s, self.s_s, xs, ys, self.offsets,
                                      self.nb, self.ss])
            if M is not None:
                M.matvec(self.s, self.z, self.z, 1.0, 0.0)
            A.matvec(z, self.t, self.t, 1.0, 0.0)
            if left:
                M.matvec(self.t, self.mt, self.mt, 1.0, 0.0)
                self.dot2(self.mt_s, zs, self.mt_s, self.mt_s, self.ts, self.tt_)
            else:
                self.dot2(self.t_s, self.s_s, self.t_s, self.t_s, self.ts, self.tt_)
            rr.zero_()
            rho_new.zero_()
            self.launch("bicg_full", [self.ts, self.tt_, self._live, self.ss, self._atol_sq, self.s_s, self.t_s, zs, xs,
                                      self.r_s, self.r0_s, self.offsets, self.nb, rr, rho_new])
            self.launch("bicg_direction", [rho_new, rho, self.r0v, self.ts, self.tt_, self.r_s, self.v_s, self.p_s,
                                           self.offsets, self.nb])
            state["cur"] = 1 - state["cur"]

        return _cycles(reset, iteration, None)


def _cycles(reset, iteration, restart):
    """The solver's first residual now, and (do_cycle, cycle_size): one iteration, or `restart`
    iterations followed by a fresh residual b - A x, which the convergence check then reads."""
    reset()
    if restart is None:
        return iteration, 1

    def cycle():
        for _ in range(restart):
            iteration()
        reset()

    return cycle, restart


def cg(A, b, x, tol=None, atol=None, maxiter=0, M=None, callback=None, check_every=10, use_cuda_graph=True,
       run=True, *, restart=None):
    """Solve the symmetric positive definite system A x = b with the Conjugate Gradient method,
    starting from x. Returns (iterations, residual norm, absolute tolerance); with check_every=0,
    device arrays (iterations, squared residual, squared tolerance). run=False returns the `CG`
    state instead, to be called (with new operands of the same layout) later."""
    state = CG(A, b, x, tol, atol, maxiter, M, callback, check_every, use_cuda_graph, restart=restart)
    return state() if run else state


def cr(A, b, x, tol=None, atol=None, maxiter=0, M=None, callback=None, check_every=10, use_cuda_graph=True,
       run=True, *, restart=None):
    """Solve the symmetric system A x = b with the Conjugate Residual method; arguments and
    results as `cg`."""
    state = CR(A, b, x, tol, atol, maxiter, M, callback, check_every, use_cuda_graph, restart=restart)
    return state() if run else state


def bicgstab(A, b, x, tol=None, atol=None, maxiter=0, M=None, callback=None, check_every=10, use_cuda_graph=True,
             is_left_preconditioner=False, run=True):
    """Solve the square system A x = b with BiCGSTAB, M applied on the right unless
    is_left_preconditioner; arguments and results as `cg`."""
    state = BiCGSTAB(A, b, x, tol, atol, maxiter, M, callback, check_every, use_cuda_graph, is_left_preconditioner)
    return state() if run else state
