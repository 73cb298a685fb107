"""The vector kernels every Krylov solver here is built from: dot products and fused updates of
the solver's vectors, per batch of degrees of freedom, as warp_nb kernels made per scalar type.

Everything works on scalar views (a vec3 array of n elements is 3n scalars), because the batch
offsets of a LinearOperator count scalars. Each thread takes a chunk of consecutive scalars and
walks it batch segment by batch segment: the segment's batch is found once (a binary search in
the offsets), so its coefficients are read once and its partial dot products are added with one
atomic per segment. Scalars at or past offsets[-1] are the inactive tail: no kernel here reads
or writes them. Coefficients (alpha, beta, ...) stay on the device as per-batch numerators and
denominators; a zero denominator gives a zero coefficient (no NaN from 0/0). The kernels that
move x and r take the per-batch `live` flags (`liveness`, set before each iteration): a batch whose
residual is already within its tolerance gets zero coefficients, so it stays where it converged
while the other batches iterate, and a solve checked every k iterations ends where one checked
every iteration does (as Warp's solvers, whose iterations past convergence change nothing).

Dot products accumulate in float32 for float16 vectors (`acc_type`). Knows nothing about
operators, tolerances or the iteration loop."""

import functools

import warp_nb as wp

from ... import types as T

#: scalars per thread: enough to amortise the segment search, small enough to spread 10k
#: unknowns over a few CPU threads
CHUNK = 2048


def acc_type(scalar):
    """The type dot products and coefficients of a `scalar` system are kept in."""
    return wp.float32 if scalar is wp.float16 else scalar


def chunks(n: int) -> int:
    return max(1, (n + CHUNK - 1) // CHUNK)


@wp.func
def batch_at(offsets: wp.array(dtype=wp.int32), nb: int, i: int):
    """The batch holding scalar i: the last b < nb with offsets[b] <= i (empty batches skipped)."""
    lo = int(0)
    hi = nb
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if offsets[mid] <= i:
            lo = mid
        else:
            hi = mid
    return lo


@functools.cache
def kernels(scalar):
    """The solver kernels for vectors of `scalar` (float16, float32 or float64)."""
    acc = acc_type(scalar)
    key = T.type_name(scalar)
    vec = wp.array(dtype=scalar)
    accs = wp.array(dtype=acc)
    offs = wp.array(dtype=wp.int32)
    ints = wp.array(dtype=wp.int32)

    def ratio(num: accs, den: accs, b: int):
        d = den[b]
        if d == acc(0.0):
            return acc(0.0)
        return num[b] / d

    ratio = wp.func(_named(ratio, key))

    def segment_dot(x: vec, y: vec, start: int, stop: int):
        # four partial sums: a single running sum is one long dependency chain the compiler may
        # not reorder (floating point), four let the products overlap (4x on 1M float64)
        s0 = acc(0.0)
        s1 = acc(0.0)
        s2 = acc(0.0)
        s3 = acc(0.0)
        e = start
        while e + 4 <= stop:
            s0 += acc(x[e]) * acc(y[e])
            s1 += acc(x[e + 1]) * acc(y[e + 1])
            s2 += acc(x[e + 2]) * acc(y[e + 2])
            s3 += acc(x[e + 3]) * acc(y[e + 3])
            e += 4
        while e < stop:
            s0 += acc(x[e]) * acc(y[e])
            e += 1
        return (s0 + s1) + (s2 + s3)

    segment_dot = wp.func(_named(segment_dot, key))

    def dot(x: vec, y: vec, offsets: offs, nb: int, out: accs):
        t = wp.tid()
        stop = wp.min(t * CHUNK + CHUNK, offsets[nb])
        i = t * CHUNK
        while i < stop:
            b = batch_at(offsets, nb, i)
            seg = wp.min(stop, offsets[b + 1])
            wp.atomic_add(out, b, segment_dot(x, y, i, seg))
            i = seg

    def dot2(x: vec, y: vec, u: vec, v: vec, offsets: offs, nb: int, out_xy: accs, out_uv: accs):
        t = wp.tid()
        stop = wp.min(t * CHUNK + CHUNK, offsets[nb])
        i = t * CHUNK
        while i < stop:
            b = batch_at(offsets, nb, i)
            seg = wp.min(stop, offsets[b + 1])
            wp.atomic_add(out_xy, b, segment_dot(x, y, i, seg))
            wp.atomic_add(out_uv, b, segment_dot(u, v, i, seg))  # the segment is in cache by now
            i = seg

    def live_ratio(num: accs, den: accs, live: ints, b: int):
        if live[b] == 0:
            return acc(0.0)
        return ratio(num, den, b)

    live_ratio = wp.func(_named(live_ratio, key))

    def step(num: accs, den: accs, live: ints, p: vec, q: vec, x: vec, r: vec, z: vec, y: vec, diag: vec,
             mode: int, offsets: offs, nb: int, rr: accs, rz: accs):
        # x += a p; r -= a q; rr = |r|^2, a = num/den per live batch (0 for a converged one). mode 0:
        # rz = |r|^2 too (no preconditioner: z is r); mode 1: z = diag * r, rz = r.z (Jacobi fused in); mode 2:
        # z -= a y (CR's preconditioned residual); mode 3: nothing more.
        t = wp.tid()
        stop = wp.min(t * CHUNK + CHUNK, offsets[nb])
        i = t * CHUNK
        while i < stop:
            b = batch_at(offsets, nb, i)
            seg = wp.min(stop, offsets[b + 1])
            a = live_ratio(num, den, live, b)
            for e in range(i, seg):
                x[e] = scalar(acc(x[e]) + a * acc(p[e]))
                re = acc(r[e]) - a * acc(q[e])
                r[e] = scalar(re)
                if mode == 1:
                    z[e] = scalar(acc(diag[e]) * re)
                elif mode == 2:
                    z[e] = scalar(acc(z[e]) - a * acc(y[e]))
            # the sums read the segment just written, from cache
            s = segment_dot(r, r, i, seg)
            wp.atomic_add(rr, b, s)
            if mode == 0:
                wp.atomic_add(rz, b, s)
            elif mode == 1:
                wp.atomic_add(rz, b, segment_dot(r, z, i, seg))
            i = seg

    def direction(num: accs, den: accs, z: vec, p: vec, az: vec, ap: vec, both: int, offsets: offs, nb: int):
        # p = z + beta p (and ap = az + beta ap when both), beta = num/den per batch
        t = wp.tid()
        stop = wp.min(t * CHUNK + CHUNK, offsets[nb])
        i = t * CHUNK
        while i < stop:
            b = batch_at(offsets, nb, i)
            seg = wp.min(stop, offsets[b + 1])
            beta = ratio(num, den, b)
            for e in range(i, seg):
                p[e] = scalar(acc(z[e]) + beta * acc(p[e]))
                if both != 0:
                    ap[e] = scalar(acc(az[e]) + beta * acc(ap[e]))
            i = seg

    def copy_active(src: vec, dst: vec, offsets: offs, nb: int):
        t = wp.tid()
        stop = wp.min(t * CHUNK + CHUNK, offsets[nb])
        for e in range(t * CHUNK, stop):
            dst[e] = src[e]

    def bicg_half(rho: accs, r0v: accs, live: ints, r: vec, v: vec, s: vec, x: vec, y: vec, offsets: offs, nb: int,
                  ss: accs):
        # BiCGSTAB's first half step: alpha = rho / (r0.v); s = r - alpha v; x += alpha y; ss = |s|^2
        t = wp.tid()
        stop = wp.min(t * CHUNK + CHUNK, offsets[nb])
        i = t * CHUNK
        while i < stop:
            b = batch_at(offsets, nb, i)
            seg = wp.min(stop, offsets[b + 1])
            a = live_ratio(rho, r0v, live, b)
            for e in range(i, seg):
                s[e] = scalar(acc(r[e]) - a * acc(v[e]))
                x[e] = scalar(acc(x[e]) + a * acc(y[e]))
            wp.atomic_add(ss, b, segment_dot(s, s, i, seg))
            i = seg

    def bicg_full(ts: accs, tt: accs, live: ints, ss: accs, atol_sq: accs, s: vec, t_: vec, z: vec, x: vec,
                  r: vec, r0: vec, offsets: offs, nb: int, rr: accs, rho_new: accs):
        # the second half: omega = ts / tt; x += omega z; r = s - omega t; rr = |r|^2 (r is the
        # true residual b - A x, M on either side); rho_new = r0.r. A batch whose half-step
        # residual s is already within its tolerance stops there (omega = 0: r = s), as Warp's does.
        t = wp.tid()
        stop = wp.min(t * CHUNK + CHUNK, offsets[nb])
        i = t * CHUNK
        while i < stop:
            b = batch_at(offsets, nb, i)
            seg = wp.min(stop, offsets[b + 1])
            om = acc(0.0)
            if not (ss[b] <= atol_sq[b]):
                om = live_ratio(ts, tt, live, b)
            for e in range(i, seg):
                x[e] = scalar(acc(x[e]) + om * acc(z[e]))
                r[e] = scalar(acc(s[e]) - om * acc(t_[e]))
            wp.atomic_add(rho_new, b, segment_dot(r0, r, i, seg))
            wp.atomic_add(rr, b, segment_dot(r, r, i, seg))
            i = seg

    def bicg_direction(rho_new: accs, rho: accs, r0v: accs, ts: accs, tt: accs, r: vec, v: vec, p: vec,
                       offsets: offs, nb: int):
        # p = r + beta (p - omega v), beta = (rho_new / rho) (alpha / omega)
        t = wp.tid()
        stop = wp.min(t * CHUNK + CHUNK, offsets[nb])
        i = t * CHUNK
        while i < stop:
            b = batch_at(offsets, nb, i)
            seg = wp.min(stop, offsets[b + 1])
            a = ratio(rho, r0v, b)
            om = ratio(ts, tt, b)
            beta = acc(0.0)
            if om != acc(0.0):
                beta = ratio(rho_new, rho, b) * a / om
            for e in range(i, seg):
                p[e] = scalar(acc(r[e]) + beta * (acc(p[e]) - om * acc(v[e])))
            i = seg

    def liveness(rr: accs, atol_sq: accs, live: ints):
        # 0 for a batch whose squared residual is within its tolerance; a NaN residual stays live
        i = wp.tid()
        if rr[i] <= atol_sq[i]:
            live[i] = 0
        else:
            live[i] = 1

    def tolerance(b_sq: accs, tol: acc, atol: acc, out: accs):
        # per batch: the larger of atol and tol |b|, squared (residuals are compared squared)
        i = wp.tid()
        a = wp.max(atol, tol * wp.sqrt(b_sq[i]))
        out[i] = a * a

    made = dict(dot=dot, dot2=dot2, step=step, direction=direction, copy_active=copy_active,
                bicg_half=bicg_half, bicg_full=bicg_full, bicg_direction=bicg_direction, liveness=liveness,
                tolerance=tolerance)
    return {k: wp.kernel(f, key=f"linear_{k}_{key}", enable_backward=False) for k, f in made.items()}


def _named(fn, suffix):
    fn.__qualname__ = f"{fn.__qualname__}_{suffix}"
    fn.__name__ = f"{fn.__name__}_{suffix}"
    return fn
