"""Restarted GMRES (GMRES[k]): the `GMRES` state and Warp's `gmres` function.

A cycle builds an orthonormal basis V of the Krylov space of the (left- or right-) preconditioned
operator with classical Gram-Schmidt applied twice (CGS2: as stable as modified Gram-Schmidt in
practice, but each pass is one batched multi-dot kernel and one fused subtraction, not j+1
sequential launches), solves the small least-squares problem of the Hessenberg matrix per batch
on the device (Givens rotations, one thread per batch), and updates x. The cycle ends with the
true residual b - A x, which the convergence check reads and the next cycle starts from."""


import functools

import warp_nb as wp

from ... import types as T
from ...arrays.array import array
from . import _kernels as K
from ._kernels import CHUNK, acc_type, batch_at
from .state import LinearSolverState, check_restart


@functools.cache
def _gmres_kernels(scalar):
    acc = acc_type(scalar)
    vec = wp.array(dtype=scalar)
    accs = wp.array(dtype=acc)
    acc2 = wp.array2d(dtype=acc)
    basis = wp.array2d(dtype=scalar)
    offs = wp.array(dtype=wp.int32)

    def multi_dot(V: basis, w: vec, offsets: offs, nb: int, out: acc2):
        # out[b, i] += V[i] . w over batch b, for the rows i < dim 0 of the launch
        i, t = wp.tid()
        stop = wp.min(t * CHUNK + CHUNK, offsets[nb])
        e0 = t * CHUNK
        while e0 < stop:
            b = batch_at(offsets, nb, e0)
            seg = wp.min(stop, offsets[b + 1])
            s = acc(0.0)
            for e in range(e0, seg):
                s += acc(V[i, e]) * acc(w[e])
            wp.atomic_add(out, b, i, s)
            e0 = seg

    def subtract(V: basis, h: acc2, rows: int, w: vec, offsets: offs, nb: int, nrm: accs):
        # w -= sum_i h[b, i] V[i] for i < rows, and nrm[b] += |w|^2
        t = wp.tid()
        stop = wp.min(t * CHUNK + CHUNK, offsets[nb])
        e0 = t * CHUNK
        while e0 < stop:
            b = batch_at(offsets, nb, e0)
            seg = wp.min(stop, offsets[b + 1])
            sq = acc(0.0)
            for e in range(e0, seg):
                v = acc(w[e])
                for i in range(rows):
                    v -= h[b, i] * acc(V[i, e])
                w[e] = scalar(v)
                sq += v * v
            wp.atomic_add(nrm, b, sq)
            e0 = seg

    def column(h1: acc2, h2: acc2, nrm: accs, H: wp.array3d(dtype=acc), j: int):
        b = wp.tid()
        for i in range(j + 1):
            H[b, i, j] = h1[b, i] + h2[b, i]
        H[b, j + 1, j] = wp.sqrt(nrm[b])

    def scale_into(w: vec, norm_sq: accs, take_sqrt: int, H: wp.array3d(dtype=acc), j: int, V: basis, row: int,
                   offsets: offs, nb: int):
        # V[row] = w / |w|, |w| per batch from norm_sq (sqrt taken) or from H[b, j + 1, j]; 0 for |w| = 0
        t = wp.tid()
        stop = wp.min(t * CHUNK + CHUNK, offsets[nb])
        e0 = t * CHUNK
        while e0 < stop:
            b = batch_at(offsets, nb, e0)
            seg = wp.min(stop, offsets[b + 1])
            d = acc(0.0)
            if take_sqrt != 0:
                d = wp.sqrt(norm_sq[b])
            else:
                d = H[b, j + 1, j]
            inv = acc(0.0)
            if d > acc(0.0):
                inv = acc(1.0) / d
            for e in range(e0, seg):
                V[row, e] = scalar(acc(w[e]) * inv)
            e0 = seg

    def least_squares(H: wp.array3d(dtype=acc), beta_sq: accs, k: int, g: acc2, cs: acc2, sn: acc2, y: acc2):
        # min |beta e1 - H y| for one batch: Givens rotations reduce H to upper triangular, then
        # back substitution; a zero pivot (a basis that ended early) gives a zero coefficient
        b = wp.tid()
        for i in range(k + 1):
            g[b, i] = acc(0.0)
        g[b, 0] = wp.sqrt(beta_sq[b])
        for j in range(k):
            for i in range(j):
                hi = H[b, i, j]
                hn = H[b, i + 1, j]
                H[b, i, j] = cs[b, i] * hi + sn[b, i] * hn
                H[b, i + 1, j] = cs[b, i] * hn - sn[b, i] * hi
            a = H[b, j, j]
            c = H[b, j + 1, j]
            d = wp.sqrt(a * a + c * c)
            co = acc(1.0)
            si = acc(0.0)
            if d > acc(0.0):
                co = a / d
                si = c / d
            cs[b, j] = co
            sn[b, j] = si
            H[b, j, j] = d
            H[b, j + 1, j] = acc(0.0)
            g[b, j + 1] = -si * g[b, j]
            g[b, j] = co * g[b, j]
        for jj in range(k):
            j = k - 1 - jj
            s = g[b, j]
            for l in range(j + 1, k):
                s -= H[b, j, l] * y[b, l]
            piv = H[b, j, j]
            if piv != acc(0.0):
                y[b, j] = s / piv
            else:
                y[b, j] = acc(0.0)

    def combine(V: basis, y: acc2, k: int, out: vec, add: int, offsets: offs, nb: int):
        # out = (out if add) + sum_j y[b, j] V[j]
        t = wp.tid()
        stop = wp.min(t * CHUNK + CHUNK, offsets[nb])
        e0 = t * CHUNK
        while e0 < stop:
            b = batch_at(offsets, nb, e0)
            seg = wp.min(stop, offsets[b + 1])
            for e in range(e0, seg):
                s = acc(0.0)
                if add != 0:
                    s = acc(out[e])
                for j in range(k):
                    s += y[b, j] * acc(V[j, e])
                out[e] = scalar(s)
            e0 = seg

    key = T.type_name(scalar)
    made = dict(multi_dot=multi_dot, subtract=subtract, column=column, scale_into=scale_into,
                least_squares=least_squares, combine=combine)
    return {n: wp.kernel(f, key=f"linear_gmres_{n}_{key}", enable_backward=False) for n, f in made.items()}


class GMRES(LinearSolverState):
    """Pre-allocated state for restarted GMRES (the k of GMRES[k] is `restart`), M applied on
    the right (default) or on the left. Whether M is present is fixed at construction."""

    name = "gmres"

    def __init__(self, A, b, x, tol=None, atol=None, restart=31, maxiter=0, M=None, callback=None, check_every=31,
                 use_cuda_graph=True, is_left_preconditioner=False):
        self.restart = check_restart(restart)
        if self.restart is None:
            raise TypeError("gmres: restart must be a positive integer")
        self.is_left_preconditioner = bool(is_left_preconditioner)
        super().__init__(A, b, x, tol, atol, maxiter, M, callback, check_every, use_cuda_graph)

    def _check_preconditioner(self, M):
        if (M is None) != (self.M is None):
            raise ValueError("gmres: a preconditioner must be given on every call if and only if one was given at "
                             "construction (its work vectors are allocated then)")

    def _allocate(self):
        k, nb = self.restart, self.nb
        self.gk = _gmres_kernels(self.scalar)
        (self.r, self.rs), (self.u, self.us) = self.vector(), self.vector()
        (self.w, self.ws), (self.z, self.zs) = self.vector(), self.vector()
        self.V = wp.zeros((k + 1, self.n), dtype=self.scalar, device=self.device)
        # rows of V typed like b, for the operators' matvec
        self.rows = [array(ptr=self.V[j].ptr, dtype=self.b.dtype, shape=self.b.shape, device=self.device,
                           owner=self.V) for j in range(k + 1)]
        self.H = wp.zeros((nb, k + 1, k), dtype=self.acc, device=self.device)
        self.h1, self.h2 = (wp.zeros((nb, k + 1), dtype=self.acc, device=self.device) for _ in range(2))
        self.g = wp.zeros((nb, k + 1), dtype=self.acc, device=self.device)
        self.cs, self.sn, self.y = (wp.zeros((nb, k), dtype=self.acc, device=self.device) for _ in range(3))
        self.nrm, self.beta_sq = self.scalars_per_batch(), self.scalars_per_batch()

    def _prepare(self, A, b, x, M):
        from .operator import scalars
        xs = scalars(x)
        k, gk, dev = self.restart, self.gk, self.device
        left = M is not None and self.is_left_preconditioner
        off, nb, nchunks = self.offsets, self.nb, K.chunks(self.n)

        def residual():
            A.matvec(x, b, self.r, -1.0, 1.0)
            self.dot(self.rs, self.rs, self._r_norm_sq)

        def apply(j):  # w = M A V[j] (left) or A M V[j] (right)
            if left:
                A.matvec(self.rows[j], self.u, self.u, 1.0, 0.0)
                M.matvec(self.u, self.w, self.w, 1.0, 0.0)
            elif M is not None:
                M.matvec(self.rows[j], self.u, self.u, 1.0, 0.0)
                A.matvec(self.u, self.w, self.w, 1.0, 0.0)
            else:
                A.matvec(self.rows[j], self.w, self.w, 1.0, 0.0)

        def orthogonalize(j, h):
            h.zero_()
            wp.launch(gk["multi_dot"], dim=(j + 1, nchunks), inputs=[self.V, self.ws, off, nb, h], device=dev)
            self.nrm.zero_()
            wp.launch(gk["subtract"], dim=nchunks, inputs=[self.V, h, j + 1, self.ws, off, nb, self.nrm], device=dev)

        def cycle():
            start_s = self.rs
            if left:
                M.matvec(self.r, self.z, self.z, 1.0, 0.0)
                start_s = self.zs
            self.dot(start_s, start_s, self.beta_sq)
            wp.launch(gk["scale_into"], dim=nchunks, inputs=[start_s, self.beta_sq, 1, self.H, 0, self.V, 0, off, nb],
                      device=dev)
            self.H.zero_()
            for j in range(k):
                apply(j)
                orthogonalize(j, self.h1)
                orthogonalize(j, self.h2)
                wp.launch(gk["column"], dim=nb, inputs=[self.h1, self.h2, self.nrm, self.H, j], device=dev)
                wp.launch(gk["scale_into"], dim=nchunks,
                          inputs=[self.ws, self.nrm, 0, self.H, j, self.V, j + 1, off, nb], device=dev)
            wp.launch(gk["least_squares"], dim=nb, inputs=[self.H, self.beta_sq, k, self.g, self.cs, self.sn, self.y],
                      device=dev)
            if M is None or left:
                wp.launch(gk["combine"], dim=nchunks, inputs=[self.V, self.y, k, xs, 1, off, nb], device=dev)
            else:
                wp.launch(gk["combine"], dim=nchunks, inputs=[self.V, self.y, k, self.us, 0, off, nb], device=dev)
                M.matvec(self.u, x, x, 1.0, 1.0)
            residual()

        residual()
        return cycle, k


def gmres(A, b, x, tol=None, atol=None, restart=31, maxiter=0, M=None, callback=None, check_every=31,
          use_cuda_graph=True, is_left_preconditioner=False, run=True):
    """Solve the square system A x = b with restarted GMRES[restart], M applied on the right
    unless is_left_preconditioner. Iterations are counted in whole cycles of `restart`, so up to
    restart - 1 past maxiter. Returns (iterations, residual norm, absolute tolerance), or the
    `GMRES` state with run=False."""
    state = GMRES(A, b, x, tol, atol, restart, maxiter, M, callback, check_every, use_cuda_graph,
                  is_left_preconditioner)
    return state() if run else state
