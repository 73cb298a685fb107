"""End to end: atomics (add/sub/min/max/cas/exch on scalars and vectors), random numbers and
multi-threaded launches, checked against numpy and independent formulas."""

import numpy as np
import pytest

import warp_nb as wp
from tests.support.helpers import config, rng, run

pytestmark = pytest.mark.needs_cxx


def vec_array(values, dtype=wp.vec3):
    return wp.array(np.asarray(values, np.float32), dtype=dtype)


# --- atomics ------------------------------------------------------------------------------------


@wp.kernel
def k_vec_atomics(idx: wp.array(dtype=int), vals: wp.array(dtype=wp.vec3), acc: wp.array(dtype=wp.vec3),
                  acc2: wp.array(dtype=wp.vec3), lo: wp.array(dtype=wp.vec3), hi: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    b = idx[i]
    acc[b] += vals[i]
    wp.atomic_sub(acc2, b, vals[i])
    wp.atomic_min(lo, b, vals[i])
    wp.atomic_max(hi, b, vals[i])


def test_vector_atomics_componentwise():
    n, bins = 5000, 7
    g = rng(30)
    idx = g.integers(0, bins, n).astype(np.int32)
    vals = g.integers(-50, 50, (n, 3)).astype(np.float32)  # integers: float sums are exact in any order
    acc, acc2 = wp.zeros(bins, dtype=wp.vec3), wp.zeros(bins, dtype=wp.vec3)
    lo, hi = vec_array(np.full((bins, 3), 1e9)), vec_array(np.full((bins, 3), -1e9))
    run(k_vec_atomics, n, wp.array(idx, dtype=int), vec_array(vals), acc, acc2, lo, hi)
    exp = np.zeros((bins, 3))
    np.add.at(exp, idx, vals)
    np.testing.assert_array_equal(acc.numpy(), exp)
    np.testing.assert_array_equal(acc2.numpy(), -exp)
    for b in range(bins):
        np.testing.assert_array_equal(lo.numpy()[b], vals[idx == b].min(0))
        np.testing.assert_array_equal(hi.numpy()[b], vals[idx == b].max(0))


@wp.kernel
def k_2d_atomics(rows: wp.array(dtype=int), cols: wp.array(dtype=int), grid: wp.array2d(dtype=int),
                 grid_f: wp.array2d(dtype=float), cube: wp.array3d(dtype=int)):
    i = wp.tid()
    r = rows[i]
    c = cols[i]
    grid[r, c] += 1
    wp.atomic_add(grid_f, r, c, 0.5)
    wp.atomic_add(cube, r, c, i % 2, 1)
    grid[0, 0] -= 1


def test_atomics_on_multi_dim_arrays():
    n = 20000
    g = rng(31)
    rows, cols = g.integers(0, 4, n).astype(np.int32), g.integers(0, 5, n).astype(np.int32)
    grid, grid_f, cube = wp.zeros((4, 5), dtype=int), wp.zeros((4, 5)), wp.zeros((4, 5, 2), dtype=int)
    run(k_2d_atomics, n, wp.array(rows, dtype=int), wp.array(cols, dtype=int), grid, grid_f, cube)
    exp = np.zeros((4, 5), np.int64)
    np.add.at(exp, (rows, cols), 1)
    exp3 = np.zeros((4, 5, 2), np.int64)
    np.add.at(exp3, (rows, cols, np.arange(n) % 2), 1)
    np.testing.assert_array_equal(cube.numpy(), exp3)
    np.testing.assert_array_equal(grid_f.numpy(), exp * 0.5)
    exp[0, 0] -= n
    np.testing.assert_array_equal(grid.numpy(), exp)


@wp.kernel
def k_min_max_old(vals: wp.array(dtype=int), lo: wp.array(dtype=int), hi: wp.array(dtype=int),
                  old_lo: wp.array(dtype=int), old_hi: wp.array(dtype=int), lo_f: wp.array(dtype=wp.float64)):
    i = wp.tid()
    old_lo[i] = wp.atomic_min(lo, i % 3, vals[i])
    old_hi[i] = wp.atomic_max(hi, i % 3, vals[i])
    wp.atomic_min(lo_f, 0, wp.float64(vals[i]) * wp.float64(0.5))


def test_atomic_min_max_return_old_values():
    n = 3000
    vals = rng(32).integers(-10 ** 6, 10 ** 6, n).astype(np.int32)
    lo, hi = wp.full(3, 2 ** 30, dtype=int), wp.full(3, -(2 ** 30), dtype=int)
    old_lo, old_hi, lo_f = wp.zeros(n, dtype=int), wp.zeros(n, dtype=int), wp.full(1, 1e300, dtype=wp.float64)
    run(k_min_max_old, n, wp.array(vals, dtype=int), lo, hi, old_lo, old_hi, lo_f)
    b = np.arange(n) % 3
    for k in range(3):
        assert lo.numpy()[k] == vals[b == k].min()
        assert hi.numpy()[k] == vals[b == k].max()
        # the values seen before each update are never past the final extreme, and the initial value
        # is seen exactly once per slot (by the first update)
        assert (old_lo.numpy()[b == k] >= vals[b == k].min()).all()
        assert (old_hi.numpy()[b == k] <= vals[b == k].max()).all()
        assert (old_lo.numpy()[b == k] == 2 ** 30).sum() == 1
        assert (old_hi.numpy()[b == k] == -(2 ** 30)).sum() == 1
    assert lo_f.numpy()[0] == vals.min() * 0.5


@wp.kernel
def k_cas_claim(slots: wp.array(dtype=int), won: wp.array(dtype=int), n_slots: int):
    i = wp.tid()
    old = wp.atomic_cas(slots, i % n_slots, 0, i + 1)
    if old == 0:
        won[i] = 1


@wp.kernel
def k_cas_counter(counter: wp.array(dtype=int), retries: wp.array(dtype=int)):
    i = wp.tid()
    done = int(0)
    while done == 0:  # a lock-free increment built from compare-and-swap
        cur = counter[0]
        if wp.atomic_cas(counter, 0, cur, cur + 1) == cur:
            done = 1
        else:
            wp.atomic_add(retries, 0, 1)


@wp.kernel
def k_exch(slot: wp.array(dtype=int), vals: wp.array(dtype=int), olds: wp.array(dtype=int)):
    i = wp.tid()
    olds[i] = wp.atomic_exch(slot, 0, vals[i])


@wp.kernel
def k_tickets(counter: wp.array(dtype=int), tickets: wp.array(dtype=int), acc: wp.array(dtype=wp.vec3),
              olds: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    tickets[i] = wp.atomic_add(counter, 0, 1)
    olds[i] = wp.atomic_sub(acc, 0, wp.vec3(1.0, 2.0, 3.0))

def test_atomic_add_sub_return_old_values():
    n = 5000
    counter, tickets, acc, olds = wp.zeros(1, dtype=int), wp.zeros(n, dtype=int), wp.zeros(1, dtype=wp.vec3), \
        wp.zeros(n, dtype=wp.vec3)
    run(k_tickets, n, counter, tickets, acc, olds)
    assert counter.numpy()[0] == n
    np.testing.assert_array_equal(np.sort(tickets.numpy()), np.arange(n))  # every ticket handed out once
    np.testing.assert_array_equal(acc.numpy()[0], [-n, -2 * n, -3 * n])
    np.testing.assert_array_equal(np.sort(olds.numpy()[:, 2]), -3 * np.arange(n)[::-1])

def test_atomic_cas_and_exch():
    n, n_slots = 4000, 16
    slots, won = wp.zeros(n_slots, dtype=int), wp.zeros(n, dtype=int)
    run(k_cas_claim, n, slots, won, n_slots)
    w = won.numpy()
    assert w.sum() == n_slots  # exactly one winner per slot
    winners = np.nonzero(w)[0]
    np.testing.assert_array_equal(np.sort(slots.numpy()), np.sort(winners + 1))
    np.testing.assert_array_equal(slots.numpy()[winners % n_slots], winners + 1)

    counter, retries = wp.zeros(1, dtype=int), wp.zeros(1, dtype=int)
    run(k_cas_counter, n, counter, retries)
    assert counter.numpy()[0] == n

    vals = np.arange(1, n + 1, dtype=np.int32) * 3
    slot, olds = wp.full(1, -7, dtype=int), wp.zeros(n, dtype=int)
    run(k_exch, n, slot, wp.array(vals, dtype=int), olds)
    # every value was stored once and read back once: the olds plus the final value are the
    # initial value plus all the stored values
    seen = np.sort(np.append(olds.numpy(), slot.numpy()[0]))
    np.testing.assert_array_equal(seen, np.sort(np.append(vals, -7)))


# --- random numbers -----------------------------------------------------------------------------


@wp.kernel
def k_random(seed: int, f: wp.array(dtype=float), f_range: wp.array(dtype=float), ints: wp.array(dtype=int),
             normal: wp.array(dtype=float), raw: wp.array(dtype=int)):
    i = wp.tid()
    state = wp.rand_init(seed, i)
    f[i] = wp.randf(state)
    f_range[i] = wp.randf(state, -3.0, 5.0)
    ints[i] = wp.randi(state, -4, 9)
    normal[i] = wp.randn(state)
    raw[i] = wp.randi(state)


@wp.kernel
def k_random_stream(seed: int, out: wp.array2d(dtype=float)):
    i = wp.tid()
    state = wp.rand_init(seed)  # one stream, drawn from repeatedly (in an unrolled loop)
    for k in range(16):
        out[i, k] = wp.randf(state)


def _draw(seed, n=200000):
    outs = [wp.zeros(n), wp.zeros(n), wp.zeros(n, dtype=int), wp.zeros(n), wp.zeros(n, dtype=int)]
    run(k_random, n, seed, *outs)
    return [o.numpy().copy() for o in outs]


def test_random_distributions():
    n = 200000
    f, fr, ints, normal, raw = _draw(42, n)
    se = 5 / np.sqrt(n)  # about five standard errors (unit variance)
    assert f.min() >= 0.0 and f.max() < 1.0
    assert abs(f.mean() - 0.5) < se * np.sqrt(1 / 12) and abs(f.var() - 1 / 12) < 0.002
    assert fr.min() >= -3.0 and fr.max() < 5.0 and abs(fr.mean() - 1.0) < se * 8 / np.sqrt(12)
    assert ints.min() == -4 and ints.max() == 8
    counts = np.bincount(ints + 4, minlength=13)
    assert abs(counts / n - 1 / 13).max() < 0.005
    assert abs(normal.mean()) < se and abs(normal.var() - 1.0) < 0.02
    assert abs((np.abs(normal) < 1).mean() - 0.6827) < 0.005
    assert len(np.unique(raw)) > 0.99 * n and (raw < 0).any() and (raw > 0).any()
    # consecutive draws of one thread and draws of neighbouring threads are uncorrelated
    assert abs(np.corrcoef(f, fr)[0, 1]) < 0.02 and abs(np.corrcoef(f[:-1], f[1:])[0, 1]) < 0.02


def test_random_seeds_offsets_and_determinism():
    a, b, c = _draw(1, 5000), _draw(1, 5000), _draw(2, 5000)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)  # same seed, same offsets: the same numbers
    assert (a[0] != c[0]).mean() > 0.99  # another seed: different numbers
    assert len(np.unique(a[0])) > 0.99 * 5000  # offsets (thread indices) give different streams
    out = wp.zeros((4, 16))
    run(k_random_stream, 4, 7, out)
    o = out.numpy()
    assert (o[1:] == o[0]).all()  # no offset: every thread draws the same stream
    assert len(np.unique(o[0])) == 16  # each draw advances the state


# --- multi-threaded correctness -----------------------------------------------------------------


@wp.kernel
def k_histogram(x: wp.array(dtype=float), bins: wp.array(dtype=int), sum_i: wp.array(dtype=wp.int64),
                sum_f: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    b = int(v * float(bins.shape[0]))
    wp.atomic_add(bins, b, 1)
    wp.atomic_add(sum_i, 0, wp.int64(b) * wp.int64(1000003))
    sum_f[0] += v


def test_histogram_and_sums_over_a_million_elements():
    n, nbins = 1_000_000, 64
    x = rng(40).random(n).astype(np.float32)
    bins, sum_i, sum_f = wp.zeros(nbins, dtype=int), wp.zeros(1, dtype=wp.int64), wp.zeros(1)
    run(k_histogram, n, wp.array(x), bins, sum_i, sum_f)
    b = (x * nbins).astype(np.int64)
    np.testing.assert_array_equal(bins.numpy(), np.bincount(b, minlength=nbins))
    assert sum_i.numpy()[0] == (b * 1000003).sum()
    assert sum_f.numpy()[0] == pytest.approx(x.astype(np.float64).sum(), rel=1e-3)


@wp.kernel
def k_float_sum(x: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(total, 0, x[i])


def test_single_thread_float_atomic_sum_is_bit_identical():
    n = 300_000
    x = rng(41).standard_normal(n).astype(np.float32) * np.float32(1000.0)
    xa = wp.array(x)
    before = wp.config.cpu_threads
    with config(cpu_threads=1):
        results = []
        for _ in range(4):
            total = wp.zeros(1)
            run(k_float_sum, n, xa, total)
            results.append(total.numpy()[0])
    assert wp.config.cpu_threads == before  # restored
    assert len({r.tobytes() for r in results}) == 1
    # the CPU backend accumulates `total[0] += x` in 16 interleaved partial sums per chunk (see
    # warp_nb/emit_cpu.py), which is at least as accurate as a sequential float32 sum
    exact = x.astype(np.float64).sum()
    sequential_error = abs(float(np.cumsum(x, dtype=np.float32)[-1]) - exact)
    assert abs(float(results[0]) - exact) <= max(sequential_error, 1e-6 * np.abs(x).sum())


@wp.kernel
def k_mat_min_max(vals: wp.array(dtype=wp.mat22), lo: wp.array(dtype=wp.mat22), hi: wp.array(dtype=wp.mat22)):
    i = wp.tid()
    wp.atomic_min(lo, 0, vals[i])
    wp.atomic_max(hi, 0, vals[i])


def test_matrix_atomic_min_max_componentwise():
    vals = rng(31).normal(size=(300, 2, 2)).astype(np.float32)
    lo, hi = wp.full(1, 1e9, dtype=wp.mat22), wp.full(1, -1e9, dtype=wp.mat22)
    run(k_mat_min_max, len(vals), wp.array(vals, dtype=wp.mat22), lo, hi)
    np.testing.assert_array_equal(lo.numpy()[0], vals.min(axis=0))
    np.testing.assert_array_equal(hi.numpy()[0], vals.max(axis=0))


@pytest.mark.parametrize("op, dtype", [("atomic_add", wp.int8), ("atomic_sub", wp.uint16),
                                       ("atomic_min", wp.float16), ("atomic_max", wp.vec3b)])
def test_narrow_atomics_are_refused_as_warp_does(op, dtype):
    scalar = getattr(dtype, "_wp_scalar_type_", dtype)
    atomic = getattr(wp, op)

    def body(a: wp.array(dtype=dtype)):
        atomic(a, 0, dtype(scalar(0)))

    kernel = wp.Kernel(body, key=f"narrow_{op}_{dtype.__name__}")
    with pytest.raises(RuntimeError, match=rf"{op}\(\) operations only work on .* \(with scalar type "
                                           rf"{wp.types.type_repr(scalar)}\)$"):
        wp.launch(kernel, 1, inputs=[wp.zeros(1, dtype=dtype)])


@wp.kernel
def k_narrow_augassign(a: wp.array(dtype=wp.int8)):
    a[0] += wp.int8(2)


def test_narrow_augmented_assignment_still_adds():
    a = wp.zeros(1, dtype=wp.int8)
    run(k_narrow_augassign, 5, a)
    assert a.numpy()[0] == 10


@wp.kernel
def k_bitwise_atomics(bits: wp.array(dtype=wp.uint32), words: wp.array(dtype=wp.vec3ui),
                      anded: wp.array(dtype=wp.uint32), ored: wp.array(dtype=wp.vec3ui),
                      xored: wp.array(dtype=wp.uint32), olds: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    mask = wp.uint32(1) << wp.uint32(i % 32)
    olds[i] = wp.atomic_and(anded, 0, ~mask | bits[i])  # clears bit i % 32 unless bits[i] keeps it
    ored[0] |= words[i] & wp.vec3ui(mask)
    wp.atomic_xor(xored, 0, bits[i])


def test_bitwise_atomics_scalar_and_vector():
    g = rng(32)
    n = 64
    bits = g.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    words = g.integers(0, 2 ** 32, (n, 3), dtype=np.uint64).astype(np.uint32)
    anded, ored = wp.array(np.array([0xFFFFFFFF], np.uint32)), wp.zeros(1, dtype=wp.vec3ui)
    xored, olds = wp.zeros(1, dtype=wp.uint32), wp.zeros(n, dtype=wp.uint32)
    run(k_bitwise_atomics, n, wp.array(bits), wp.array(words, dtype=wp.vec3ui), anded, ored, xored, olds)
    masks = np.uint32(1) << (np.arange(n) % 32).astype(np.uint32)
    np.testing.assert_array_equal(anded.numpy()[0], np.bitwise_and.reduce(~masks | bits))
    np.testing.assert_array_equal(ored.numpy()[0], np.bitwise_or.reduce(words & masks[:, None], axis=0))
    np.testing.assert_array_equal(xored.numpy()[0], np.bitwise_xor.reduce(bits))
    assert olds.numpy().dtype == np.uint32  # each thread saw some earlier value: a subset of the bits
    np.testing.assert_array_equal(olds.numpy() & anded.numpy()[0], anded.numpy()[0])


@wp.kernel
def k_vector_bitwise(a: wp.array(dtype=wp.vec3i), b: wp.array(dtype=wp.vec3i), out: wp.array(dtype=wp.vec3i, ndim=2)):
    i = wp.tid()
    out[i, 0] = a[i] & b[i]
    out[i, 1] = a[i] | b[i]
    out[i, 2] = a[i] ^ b[i]
    out[i, 3] = ~a[i]
    out[i, 4] = a[i] << wp.vec3i(3, 0, 31)
    out[i, 5] = a[i] >> wp.vec3i(1, 2, 40)  # a count past the width: 0, or -1 for a negative value


def test_vector_bitwise_operators_componentwise():
    g = rng(33)
    a, b = g.integers(-1000, 1000, (16, 3)).astype(np.int32), g.integers(-1000, 1000, (16, 3)).astype(np.int32)
    out = wp.zeros((16, 6), dtype=wp.vec3i)
    run(k_vector_bitwise, 16, wp.array(a, dtype=wp.vec3i), wp.array(b, dtype=wp.vec3i), out)
    got = out.numpy()
    np.testing.assert_array_equal(got[:, 0], a & b)
    np.testing.assert_array_equal(got[:, 1], a | b)
    np.testing.assert_array_equal(got[:, 2], a ^ b)
    np.testing.assert_array_equal(got[:, 3], ~a)
    np.testing.assert_array_equal(got[:, 4], a << np.array([3, 0, 31], np.int32))
    np.testing.assert_array_equal(got[:, 5][:, :2], a[:, :2] >> np.array([1, 2], np.int32))
    np.testing.assert_array_equal(got[:, 5][:, 2], np.where(a[:, 2] < 0, -1, 0))


@wp.kernel
def min_result_kept(slot: wp.array(dtype=float), value: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.atomic_min(slot, i, value[i])  # the result is used: the backward pass repeats the (idempotent) min


def test_atomic_min_with_its_result_used_differentiates_as_warp():
    """The value's gradient is the slot's where the value won (the slot ends equal to it, or both are
    NaN), 0 where it lost; and repeating the min in the backward pass leaves the slot unchanged."""
    nan = float("nan")
    slot0 = np.array([nan, nan, 2.0, 5.0, 2.0], dtype=np.float32)
    values = np.array([nan, 2.0, nan, 2.0, 5.0], dtype=np.float32)
    slot = wp.array(slot0, dtype=float, requires_grad=True)
    value = wp.array(values, dtype=float, requires_grad=True)
    out = wp.zeros(len(values), dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(min_result_kept, len(values), inputs=[slot, value, out])
    after_forward = slot.numpy().copy()
    slot.grad.fill_(1.0)
    tape.backward()
    np.testing.assert_array_equal(after_forward, slot.numpy())  # the backward pass did not move the slots
    # forward: NaN in the slot is replaced by a number; a NaN value leaves a number in place
    expected_slot = np.where(np.isnan(slot0), values, np.where(np.isnan(values), slot0, np.minimum(slot0, values)))
    np.testing.assert_array_equal(after_forward, expected_slot)
    won = (expected_slot == values) | (np.isnan(expected_slot) & np.isnan(values))
    np.testing.assert_array_equal(value.grad.numpy(), won.astype(np.float32))
