"""End to end: control flow (if/elif/else, constant and dynamic loops, while, break, continue,
augmented assignment) and thread indices with early returns, compiled, launched on the CPU and
checked against numpy or plain Python."""

import numpy as np
import pytest

import warp_nb as wp
from tests.support.helpers import Body, arr, config, rng, run

pytestmark = pytest.mark.needs_cxx


# --- control flow -------------------------------------------------------------------------------

@wp.kernel
def k_branches(x: wp.array(dtype=float), out: wp.array(dtype=float, ndim=2)):
    i = wp.tid()
    v = x[i]
    code = int(0)
    if v < -1.0:
        code = 1
    elif v < 0.0:
        if v < -0.5:
            code = 2
        else:
            code = 3
    elif v == 0.0:
        code = 4
    else:
        if v > 10.0:
            code = 5
        elif v > 1.0:
            code = 6 if v > 5.0 else 7
    y = v
    if v > 0.0:
        y = 2.0 * v
    else:
        y = -v
        if v < -1.0:
            y = y + 100.0
    if v > 1.0:
        z = v * v  # first bound in both branches
    else:
        z = 0.5
    w = v
    if v > 0.5:
        w = w + 1.0  # only one branch reassigns
    if int(v):  # a nonzero int is true
        w = w + 1000.0
    t = wp.vec2(v, 1.0) if v < 0.0 else wp.vec2(0.0, v)
    out[i, 0] = float(code)
    out[i, 1] = y
    out[i, 2] = z
    out[i, 3] = w
    out[i, 4] = v if v > 0.0 else -2.0 * v
    out[i, 5] = 1.0 if v > 0.0 else 0.0
    out[i, 6] = (3.0 if v > 1.0 else 4.0) if v > 0.0 else (5.0 if v < -1.0 else v)
    out[i, 7] = t[0] + 10.0 * t[1]

@pytest.mark.slow
def test_branches_reassignment_and_conditional_expressions():
    x = np.array([-3.0, -0.75, -0.25, 0.0, 20.0, 7.0, 2.0, 0.5, 0.7, -1.0, -0.5], np.float32)
    out = wp.zeros((len(x), 8))
    run(k_branches, len(x), arr(x), out)
    exp = np.stack([np.select([x < -1, x < -0.5, x < 0, x == 0, x > 10, x > 5, x > 1], [1, 2, 3, 4, 5, 6, 7], 0),
                    np.where(x > 0, 2 * x, np.where(x < -1, -x + 100, -x)), np.where(x > 1, x * x, 0.5),
                    np.where(x > 0.5, x + 1, x) + np.where(np.trunc(x) != 0, 1000, 0),
                    np.where(x > 0, x, -2 * x), (x > 0).astype(float),
                    np.where(x > 0, np.where(x > 1, 3, 4), np.where(x < -1, 5, x)), np.where(x < 0, x + 10, 10 * x)], 1)
    np.testing.assert_allclose(out.numpy(), exp, rtol=1e-6)

@wp.kernel
def k_const_loops(x: wp.array(dtype=float), out: wp.array(dtype=float, ndim=2)):
    i = wp.tid()
    s = float(0.0)
    for k in range(4):  # unrolled
        s += x[i] * float(k + 1)
    s2 = float(0.0)
    for k in range(10, 0, -3):  # unrolled, negative step: 10 7 4 1
        s2 = s2 * 2.0 + float(k)
    s3 = float(0.0)
    for k in range(40):  # too long to unroll
        s3 += float(k % 7) * x[i]
    s4 = float(0.0)
    for a in range(3):  # nested loops, the inner range depends on the outer counter
        for b in range(a, 3):
            s4 += float(a * 10 + b)
    out[i, 0] = s
    out[i, 1] = s2
    out[i, 2] = s3
    out[i, 3] = s4

def test_a_name_bound_on_some_paths_keeps_its_last_value_as_in_warp():
    """`s` bound by an if/elif without else and read after it: Warp reads the C++ variable the
    branch assigns, zero where no branch ran, and in a loop the value of the last iteration that
    assigned it. warp_nb does the same and says so once, at compile time, at the branch's line."""

    @wp.kernel(module="unique")
    def pick(x: wp.array(dtype=float), op: int, out: wp.array(dtype=float), total: wp.array(dtype=float), n: int):
        i = wp.tid()
        if op == 1:
            s = x[i] * 2.0
        elif op == 2:
            s = x[i] + 1.0
        out[i] = s
        t = float(0.0)
        for j in range(n):  # (a dynamic loop: the branch is not folded)
            if j % 3 == 0:
                v = float(j) + x[i]
            t += v
        total[i] = t

    xs = np.arange(1.0, 6.0, dtype=np.float32)
    x, out, total = arr(xs), wp.zeros(5), wp.zeros(5)
    with pytest.warns(UserWarning, match=r"`s` is assigned on only some paths of this branch.*as in Warp") as seen:
        wp.launch(pick, 5, inputs=[x, 2, out, total, 7])
    assert any("`v` is assigned on only some paths" in str(w.message) for w in seen)
    np.testing.assert_array_equal(out.numpy(), xs + 1.0)
    # j = 0..6: v is set at j = 0, 3, 6 and kept in between
    want = 3 * (0.0 + xs) + 3 * (3.0 + xs) + (6.0 + xs)
    np.testing.assert_allclose(total.numpy(), want)
    wp.launch(pick, 5, inputs=[x, 3, out, total, 0])  # no branch taken: zero, as Warp's zeroed local
    np.testing.assert_array_equal(out.numpy(), np.zeros(5))
    np.testing.assert_array_equal(total.numpy(), np.zeros(5))


def test_two_ifs_that_bind_a_name_in_turn():
    """`if a: s = 1.0` then `if b: s = 2.0`: after the second, s is 2 where b, else what the first
    left (1 where a, else zero), as Warp selects between its two branch variables."""

    @wp.kernel(module="unique")
    def twice(out: wp.array(dtype=float), a: int, b: int):
        if a == 1:
            s = 1.0
        if b == 1:
            s = 2.0
        out[0] = s

    out = wp.zeros(1)
    with pytest.warns(UserWarning, match="`s` is assigned on only some paths"):
        wp.launch(twice, 1, inputs=[out, 0, 0])
    for a in (0, 1):
        for b in (0, 1):
            wp.launch(twice, 1, inputs=[out, a, b])
            assert out.numpy()[0] == (2.0 if b else 1.0 if a else 0.0), (a, b)


def test_an_array_bound_on_some_paths_is_that_array_where_bound_and_empty_elsewhere():
    """`if op == 1: src = a` / `elif op == 2: src = b` with no else, read only where bound (MuJoCo
    Warp's collision code does this): the arrays bound, forward and backward; where no path bound
    it, an empty array, so checked code reports the read (warp_nb used to refuse the kernel)."""

    @wp.kernel(module="unique")
    def pick(op: int, a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        if op == 1:
            src = a
        elif op == 2:
            src = b
        if op == 1 or op == 2:
            out[i] = src[i] * 2.0
        else:
            out[i] = -1.0

    a = wp.array(np.arange(4, dtype=np.float32), requires_grad=True)
    b = wp.array(np.full(4, 5.0, dtype=np.float32), requires_grad=True)
    out = wp.zeros(4, dtype=float, requires_grad=True)
    with pytest.warns(UserWarning, match="`src` is assigned on only some paths"):
        wp.launch(pick, 4, inputs=[1, a, b], outputs=[out])
    for op, want in ((1, 2 * a.numpy()), (2, 2 * b.numpy()), (3, np.full(4, -1.0))):
        wp.launch(pick, 4, inputs=[op, a, b], outputs=[out])
        np.testing.assert_array_equal(out.numpy(), want)
    tape = wp.Tape()
    with tape:
        wp.launch(pick, 4, inputs=[2, a, b], outputs=[out])
    tape.backward(grads={out: wp.ones(4, dtype=float)})
    np.testing.assert_array_equal(a.grad.numpy(), np.zeros(4))
    np.testing.assert_array_equal(b.grad.numpy(), np.full(4, 2.0))

    @wp.kernel(module="unique")
    def unbound_read(op: int, a: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        if op == 1:
            src = a
        out[i] = src[i]

    with pytest.warns(UserWarning, match="`src` is assigned on only some paths"):
        wp.launch(unbound_read, 4, inputs=[1, a], outputs=[out])
    np.testing.assert_array_equal(out.numpy(), a.numpy())
    if wp.config.bounds_check is not False:  # (on by default) the empty array's read is reported
        with pytest.raises(IndexError, match="array `src` with size 0"):
            wp.launch(unbound_read, 4, inputs=[0, a], outputs=[out])
            wp.synchronize()

def test_names_rebound_before_they_are_read_give_no_warning(recwarn):
    """A name bound in a branch and bound again before any later read needs no phi, and no
    warning (warp_nb.fem's own kernels do this)."""

    @wp.kernel(module="unique")
    def rebound(x: wp.array(dtype=float), out: wp.array(dtype=float)):
        i = wp.tid()
        if x[i] > 0.0:
            t = x[i] * 2.0
            out[i] = t
        t = x[i] + 1.0
        out[i] = out[i] + t

    xs = np.array([-1.0, 2.0], dtype=np.float32)
    out = wp.zeros(2)
    wp.launch(rebound, 2, inputs=[arr(xs), out])
    np.testing.assert_array_equal(out.numpy(), np.where(xs > 0, 2 * xs, 0) + xs + 1)
    assert not [w for w in recwarn if "only some paths" in str(w.message)]


def test_constant_range_loops():
    x = np.array([1.0, -2.0, 0.5], np.float32)
    out = wp.zeros((3, 4))
    run(k_const_loops, 3, arr(x), out)
    s2 = ((10 * 2 + 7) * 2 + 4) * 2 + 1
    s4 = sum(a * 10 + b for a in range(3) for b in range(a, 3))
    exp = np.stack([x * 10, np.full(3, s2), x * sum(k % 7 for k in range(40)), np.full(3, s4)], axis=1)
    np.testing.assert_allclose(out.numpy(), exp, rtol=1e-6)

@wp.kernel
def k_dyn_range(bounds: wp.array(dtype=int, ndim=2), out: wp.array(dtype=int, ndim=2)):
    i = wp.tid()
    start, stop, step = bounds[i, 0], bounds[i, 1], bounds[i, 2]
    total = int(0)
    count = int(0)
    last = int(-999)
    for k in range(start, stop, step):
        total += k
        count += 1
        last = k
    t2 = int(0)
    for k in range(stop):  # one-argument dynamic range
        t2 += k * k
    out[i, 0] = total
    out[i, 1] = count
    out[i, 2] = last
    out[i, 3] = t2

DYN_RANGES = [(0, 10, 1), (3, 17, 4), (10, 0, -1), (9, -8, -3), (5, 5, 1), (5, 2, 1), (2, 5, -1), (-4, 3, 2),
              (7, 6, -7)]

def test_dynamic_range_start_stop_negative_step():
    out = wp.zeros((len(DYN_RANGES), 4), dtype=int)
    run(k_dyn_range, len(DYN_RANGES), wp.array(np.array(DYN_RANGES, np.int32), dtype=int), out)
    exp = [[sum(range(*r)), len(range(*r)), (list(range(*r)) or [-999])[-1], sum(k * k for k in range(r[1]))]
           for r in DYN_RANGES]
    np.testing.assert_array_equal(out.numpy(), exp)

@wp.func
def collatz_steps(n: int):
    steps = int(0)
    while n != 1:  # reassigns its argument
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps

@wp.kernel
def k_while(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = collatz_steps(x[i])

def test_while_loop():
    def steps(n, s=0):
        while n != 1:
            n, s = (n // 2 if n % 2 == 0 else 3 * n + 1), s + 1
        return s
    x = np.arange(1, 200, dtype=np.int32)
    out = wp.zeros(len(x), dtype=int)
    run(k_while, len(x), wp.array(x, dtype=int), out)
    np.testing.assert_array_equal(out.numpy(), [steps(int(n)) for n in x])

@wp.kernel
def k_break_continue(m: wp.array(dtype=float, ndim=2), out: wp.array(dtype=float, ndim=2)):
    i = wp.tid()
    n = m.shape[1]
    s = float(0.0)  # sum of the positive entries before the first value > 100
    for j in range(n):
        v = m[i, j]
        if v > 100.0:
            break
        if v <= 0.0:
            continue
        s += v
    c = float(0.0)
    for j in range(6):  # a constant range with break and continue (not unrolled)
        if j == 1:
            continue
        if m[i, j] > 100.0:
            break
        c += m[i, j]
    j = int(0)
    w = float(0.0)
    while True:
        j += 1
        if j >= n:
            break
        if j % 2 == 0:
            continue
        w += m[i, j]
    cnt = float(0.0)
    for a in range(n):
        for b in range(n):
            if b > a:
                break  # leaves the inner loop only
            cnt += 1.0
    out[i, 0] = s
    out[i, 1] = c
    out[i, 2] = w
    out[i, 3] = cnt

def test_break_continue_in_for_and_while():
    m = rng(1).uniform(-10, 10, size=(20, 8)).astype(np.float32)
    m[3, 4], m[7, 0], m[9, 2] = 500.0, 200.0, 101.0
    out = wp.zeros((20, 4))
    run(k_break_continue, 20, wp.array(m), out)
    exp = np.zeros((20, 4), np.float32)
    for i, row in enumerate(m):
        stop = next((j for j, v in enumerate(row) if v > 100), 8)
        stop6 = next((j for j in range(6) if j != 1 and row[j] > 100), 6)
        exp[i] = [row[:stop][row[:stop] > 0].sum(), sum(row[j] for j in range(stop6) if j != 1),
                  row[1::2].sum(), 8 * 9 / 2]
    np.testing.assert_allclose(out.numpy(), exp, rtol=1e-5, atol=1e-5)


@wp.kernel
def k_carried(n: int, out_f: wp.array(dtype=float), out_v: wp.array(dtype=wp.vec3), out_b: wp.array(dtype=Body)):
    i = wp.tid()
    f = float(i)
    v = wp.vec3(0.0, 0.0, 0.0)
    b = Body()
    b.vel = wp.vec3(1.0, float(i), -1.0)
    for k in range(n):
        f = f * 0.5 + 1.0
        v = v + wp.vec3(float(k), 1.0, float(i))
        b.pos = b.pos + b.vel * 0.5
        if b.pos[0] > 2.0:
            b.hits += 1
            b.pos[0] = 0.0
    k = int(0)
    while k < n:  # a vector carried through a while loop, updated by component
        v[2] = v[2] - 1.0
        v[k % 2] += 0.5
        k += 1
    out_f[i] = f
    out_v[i] = v
    out_b[i] = b

def test_loop_carried_scalar_vector_struct():
    n, threads = 11, 4
    out_f, out_v, out_b = wp.zeros(threads), wp.zeros(threads, dtype=wp.vec3), wp.zeros(threads, dtype=Body)
    run(k_carried, threads, n, out_f, out_v, out_b)
    for i in range(threads):
        f, v, pos, vel, hits = float(i), np.zeros(3), np.zeros(3), np.array([1.0, i, -1.0]), 0
        for k in range(n):
            f = f * 0.5 + 1.0
            v += [k, 1.0, i]
            pos = pos + vel * 0.5
            if pos[0] > 2.0:
                hits, pos[0] = hits + 1, 0.0
        v += [0.5 * 6, 0.5 * 5, -n]
        assert out_f.numpy()[i] == pytest.approx(f, rel=1e-6)
        np.testing.assert_allclose(out_v.numpy()[i], v, rtol=1e-6)
        rec = out_b.numpy()[i]
        np.testing.assert_allclose(rec["pos"], pos, rtol=1e-6)
        np.testing.assert_allclose(rec["vel"], vel)
        assert rec["hits"] == hits

@wp.kernel
def k_guarded(a: wp.array(dtype=float), out: wp.array(dtype=int)):
    i = wp.tid()
    n = a.shape[0]
    r = int(0)
    if i < n and a[i] > 0.0:
        r = 1
    if i >= n or a[i] <= 0.0:
        r += 10
    if not (i < n and a[i] > 0.5) or i == 0:
        r += 100
    out[i] = r

@wp.kernel
def k_unguarded(a: wp.array(dtype=float), out: wp.array(dtype=int)):
    i = wp.tid()
    if a[i] > 0.0:
        out[i] = 1

@pytest.mark.slow
def test_short_circuit_protects_out_of_range_read():
    a = np.array([1.0, -1.0, 0.25, 2.0], np.float32)
    n_threads = 9
    out = wp.zeros(n_threads, dtype=int)
    with config(mode="debug"):  # an unprotected read out of range raises IndexError
        run(k_guarded, n_threads, arr(a), out)
        with pytest.raises(IndexError):  # the check is live: without the guard it fires
            run(k_unguarded, n_threads, arr(a), wp.zeros(n_threads, dtype=int))
    exp = []
    for i in range(n_threads):
        inb = i < len(a)
        exp.append((1 if inb and a[i] > 0 else 0) + (10 if not inb or a[i] <= 0 else 0)
                   + (100 if not (inb and a[i] > 0.5) or i == 0 else 0))
    np.testing.assert_array_equal(out.numpy(), exp)

@wp.func
def bump(counter: wp.array(dtype=int), value: bool):
    wp.atomic_add(counter, 0, 1)
    return value

@wp.kernel
def k_short_circuit_effects(flags: wp.array(dtype=int), counter: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    f = flags[i] != 0
    r = int(0)
    if f and bump(counter, True):  # bump only runs when f is true
        r += 1
    if f or bump(counter, False):  # bump only runs when f is false
        r += 2
    out[i] = r

def test_short_circuit_skips_side_effects():
    flags = np.array([1, 0, 1, 1, 0, 0, 0], np.int32)
    counter, out = wp.zeros(1, dtype=int), wp.zeros(len(flags), dtype=int)
    run(k_short_circuit_effects, len(flags), wp.array(flags, dtype=int), counter, out)
    assert counter.numpy()[0] == len(flags)  # exactly one call per thread
    np.testing.assert_array_equal(out.numpy(), np.where(flags != 0, 3, 0))

# --- thread indices and early return ------------------------------------------------------------

@wp.kernel
def k_tid1(out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = i * 7

@wp.kernel
def k_tid2(out: wp.array2d(dtype=int)):
    i, j = wp.tid()
    out[i, j] = i * 100 + j

@wp.kernel
def k_tid3(out: wp.array3d(dtype=int)):
    i, j, k = wp.tid()
    out[i, j, k] = i * 10000 + j * 100 + k

@wp.kernel
def k_tid4(out: wp.array4d(dtype=int)):
    i, j, k, l = wp.tid()
    out[i, j, k, l] = i * 1000000 + j * 10000 + k * 100 + l

@pytest.mark.parametrize("shape", [(37,), (5, 7), (3, 4, 5), (2, 3, 4, 5)])
def test_tid_per_dimension(shape):
    out = wp.full(shape, -1, dtype=int)
    run({1: k_tid1, 2: k_tid2, 3: k_tid3, 4: k_tid4}[len(shape)], shape, out)
    weights = {1: [7], 2: [100, 1], 3: [10000, 100, 1], 4: [1000000, 10000, 100, 1]}[len(shape)]
    np.testing.assert_array_equal(out.numpy(), sum(w * ix for w, ix in zip(weights, np.indices(shape))))

@wp.kernel
def k_tid_leading(out: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(out, i, 1)

@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4)])
def test_single_tid_on_multi_dim_launch_is_leading_index(shape):
    # Warp: a scalar wp.tid() in a launch of more dimensions is the leading coordinate, so each
    # leading index is seen once per coordinate of the trailing dimensions
    n = int(np.prod(shape))
    out = wp.zeros(n, dtype=int)
    run(k_tid_leading, shape, out)
    expected = np.zeros(n, dtype=int)
    expected[:shape[0]] = n // shape[0]
    np.testing.assert_array_equal(out.numpy(), expected)

@wp.kernel
def k_early_return(x: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    if x[i] % 3 == 0:
        return
    for j in range(3):  # a return inside an unrolled loop
        if j * 1000 > x[i]:
            out[i] = -j
            return
    for k in range(100):
        if k * k > x[i]:
            out[i] = k
            return
    out[i] = -1

def test_early_return_in_kernel():
    x = np.arange(0, 12000, 7, dtype=np.int32)
    out = wp.full(len(x), 5555, dtype=int)
    run(k_early_return, len(x), wp.array(x, dtype=int), out)
    exp = [5555 if v % 3 == 0 else -next((j for j in range(3) if j * 1000 > v), None)
           if v < 2000 else next((k for k in range(100) if k * k > v), -1) for v in x]
    np.testing.assert_array_equal(out.numpy(), exp)


@wp.kernel
def _empty_constant_range_keeps_the_name(n: int, out: wp.array(dtype=float)):
    i = 5
    for _j in range(n):
        for i in range(20, 0):  # empty: never rebinds i
            out[1] = float(i)
        i = i + 1
    out[0] = float(i)


def _python_reference(n: int) -> float:
    i = 5
    for _j in range(n):
        for i in range(20, 0):  # noqa: B007
            pass
        i = i + 1
    return float(i)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_an_empty_constant_range_leaves_its_variable_as_it_was(n):
    out = wp.zeros(2, dtype=float, device="cpu")
    wp.launch(_empty_constant_range_keeps_the_name, dim=1, inputs=[n, out], device="cpu")
    assert out.numpy()[0] == _python_reference(n)
    assert out.numpy()[1] == 0.0  # the empty loop's body never ran


@wp.kernel
def k_unrolled_loop_var_carried(n: int, out: wp.array(dtype=int)):
    k = int(5)
    for j in range(n):
        for k in range(wp.static(2)):  # unrolled: k ends the body as the constant 1
            out[j] += 1
        out[j] += k * 10
    out[n] = k


def test_unrolled_loop_variable_carried_by_a_dynamic_loop():
    # a name a dynamic loop carries, last bound by an unrolled inner loop (a constant), as in
    # MuJoCo Warp's block Cholesky; values probed from warp-lang 1.19
    out = wp.zeros(4, dtype=int)
    wp.launch(k_unrolled_loop_var_carried, dim=1, inputs=[3, out])
    np.testing.assert_array_equal(out.numpy(), [12, 12, 12, 1])


@wp.kernel
def k_partial_local_named_like_a_builtin(t: wp.array(dtype=int), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    if t[i] == 0:
        lower_bound = wp.vec3(1.0, 2.0, 3.0)  # wp.lower_bound is a builtin: the local wins
    elif t[i] == 1:
        lower_bound = wp.vec3(4.0, 5.0, 6.0)
    out[i] = lower_bound


@pytest.mark.filterwarnings("ignore:`lower_bound` is assigned on only some paths")
def test_local_bound_on_some_paths_shadows_a_builtin_of_its_name():
    # values probed from warp-lang 1.19 (the path that binds nothing reads the zeroed local)
    out = wp.zeros(3, dtype=wp.vec3)
    wp.launch(k_partial_local_named_like_a_builtin, dim=3, inputs=[wp.array([0, 1, 2], dtype=int), out])
    np.testing.assert_array_equal(out.numpy(), [[1, 2, 3], [4, 5, 6], [0, 0, 0]])
