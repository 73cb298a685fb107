"""Tiles end to end on the CPU: every tile builtin against numpy, tile errors reported at the
kernel's line before any C++, and every kernel of this file compiled for sm_90 by NVRTC."""

import inspect

import numpy as np
import pytest

import warp_nb as wp
from tests.support.nvrtc_sm90 import compile_for_sm90

TM, TN, TK = 4, 8, 4
rng = np.random.default_rng(7)


def rand(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


@wp.func
def square(x: float):
    return x * x


@wp.func
def blend(x: float, y: float):
    return 0.25 * x + y


# --- loads, stores, arithmetic, maps ---------------------------------------------------------------

@wp.kernel
def arithmetic(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), out: wp.array2d(dtype=float),
               total: wp.array(dtype=float)):
    i, j = wp.tid()
    t = wp.tile_load(a, shape=(TM, TN), offset=(i * TM, j * TN))
    u = wp.tile_load(b, shape=(TM, TN), offset=(i * TM, j * TN))
    v = wp.tile_map(square, t) + u * 2.0 - wp.tile_map(wp.sin, u) / 3.0 + wp.tile_map(blend, t, u) - (-t)
    wp.tile_store(out, v, offset=(i * TM, j * TN))
    wp.tile_atomic_add(total, wp.tile_sum(v))


def test_load_arithmetic_map_store_and_sum():
    a, b = rand(8, 16), rand(8, 16)
    out, total = wp.zeros((8, 16), dtype=float), wp.zeros(1, dtype=float)
    wp.launch_tiled(arithmetic, dim=[2, 2], inputs=[wp.array(a), wp.array(b), out, total], block_dim=64)
    ref = a * a + b * 2 - np.sin(b) / 3 + (0.25 * a + b) + a
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(total.numpy()[0], ref.sum(), rtol=1e-4)


@wp.kernel
def ragged_1d(a: wp.array(dtype=float), out: wp.array(dtype=float), old: wp.array(dtype=float),
              prev: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=8, offset=i * 8)  # the last tile runs past the end: zeros there
    wp.tile_store(out, t * 10.0 + 1.0, offset=i * 8)  # and nothing is written past the end
    wp.tile_store(prev, wp.tile_atomic_add(old, t, offset=i * 8), offset=i * 8)


def test_1d_loads_pad_with_zeros_and_stores_stay_inside():
    a = rand(20)
    backing = wp.array(np.full(30, -5.0, np.float32))
    out = backing[:20]  # a view: the elements after it must not be written
    old, prev = wp.array(np.arange(20, dtype=np.float32)), wp.zeros(24, dtype=float)
    wp.launch_tiled(ragged_1d, dim=3, inputs=[wp.array(a), out, old, prev], block_dim=8)
    got = backing.numpy()
    np.testing.assert_allclose(got[:20], a * 10 + 1, rtol=1e-6)
    assert np.all(got[20:] == -5.0)
    np.testing.assert_allclose(prev.numpy(), np.r_[np.arange(20), np.zeros(4)])  # previous values; 0 outside
    np.testing.assert_allclose(old.numpy(), np.arange(20) + a, rtol=1e-6)


@wp.func
def fma3(x: float, y: float, z: float):
    return x + y * z


@wp.kernel
def composite_elements(v: wp.array(dtype=wp.vec3), s: wp.array(dtype=float), m: wp.array(dtype=wp.mat22),
                       out_v: wp.array(dtype=wp.vec3), out_m: wp.array(dtype=wp.mat22), out_s: wp.array(dtype=float)):
    tv = wp.tile_load(v, shape=TN)
    ts = wp.tile_load(s, shape=TN)
    tm = wp.tile_load(m, shape=TN)
    scaled = tv * 2.0 + ts * tv - (-tv) / ts + wp.tile_map(wp.mul, ts, wp.vec3(1.0, 2.0, 3.0))
    wp.tile_store(out_v, scaled)
    wp.tile_store(out_m, 0.5 * tm / 4.0 + tm * ts)
    wp.tile_store(out_s, wp.tile_map(fma3, ts, ts, wp.tile_ones(shape=TN, dtype=float) * 3.0))


def test_tiles_of_vectors_and_matrices_with_scalars():
    v, s, m = rand(TN, 3), rand(TN) + 2.0, rand(TN, 2, 2)
    out_v, out_m, out_s = wp.zeros(TN, dtype=wp.vec3), wp.zeros(TN, dtype=wp.mat22), wp.zeros(TN, dtype=float)
    wp.launch_tiled(composite_elements, dim=1, inputs=[wp.array(v, dtype=wp.vec3), wp.array(s),
                                                       wp.array(m, dtype=wp.mat22), out_v, out_m, out_s], block_dim=8)
    sc = s[:, None]
    np.testing.assert_allclose(out_v.numpy(), v * 2 + sc * v + v / sc + sc * np.array([1, 2, 3]), rtol=1e-5)
    np.testing.assert_allclose(out_m.numpy(), 0.5 * m / 4 + m * s[:, None, None], rtol=1e-5)
    np.testing.assert_allclose(out_s.numpy(), s + s * 3, rtol=1e-5)


def test_vector_by_vector_tile_products_are_refused():
    @wp.kernel
    def vv(a: wp.array(dtype=wp.vec3)):
        t = wp.tile_load(a, shape=4)
        wp.tile_store(a, t * wp.vec3(1.0, 2.0, 3.0))

    with pytest.raises(wp.KernelTypeError, match="at least one operand must be a scalar type"):
        wp.launch_tiled(vv, dim=1, inputs=[wp.zeros(4, dtype=wp.vec3)], block_dim=8)


# --- construction, tile/untile, indexing ------------------------------------------------------------

@wp.kernel
def construct(out: wp.array2d(dtype=float), ints: wp.array(dtype=int), floats: wp.array(dtype=float),
              x: wp.array(dtype=float), y: wp.array(dtype=float), picks: wp.array(dtype=float)):
    i = wp.tid()
    z = wp.tile_zeros(shape=(2, 3), dtype=float) + wp.tile_ones(shape=(2, 3), dtype=float) * 2.0
    z += wp.tile_full((2, 3), 0.5, dtype=float)
    wp.tile_store(out, z)
    wp.tile_store(ints, wp.tile_arange(2, 12, 3))
    wp.tile_store(floats, wp.tile_arange(5, dtype=float) * 0.5, offset=4)
    t = wp.tile(x[i] * 2.0)
    y[i] = wp.untile(t) + 1.0
    m = wp.tile_load(out, shape=(2, 3))
    picks[0] = m[1, 2] + wp.tile_extract(m, 0, 1)
    r = wp.tile_arange(6, dtype=float)
    picks[1] = r[-1] + r[2]
    picks[2] = float(wp.block_dim())


def test_construction_tile_untile_and_indexing():
    out, ints, floats = wp.zeros((2, 3), dtype=float), wp.zeros(4, dtype=int), wp.zeros(9, dtype=float)
    x, y, picks = wp.array(np.arange(5, dtype=np.float32)), wp.zeros(5, dtype=float), wp.zeros(3, dtype=float)
    wp.launch_tiled(construct, dim=5, inputs=[out, ints, floats, x, y, picks], block_dim=32)
    np.testing.assert_allclose(out.numpy(), np.full((2, 3), 2.5))
    np.testing.assert_array_equal(ints.numpy(), np.arange(2, 12, 3))
    np.testing.assert_allclose(floats.numpy()[4:], np.arange(5) * 0.5)
    np.testing.assert_allclose(y.numpy(), np.arange(5) * 2 + 1)
    np.testing.assert_allclose(picks.numpy(), [5.0, 5.0 + 2.0, 1.0])


# --- fused operations ---------------------------------------------------------------------------------

@wp.kernel
def fused(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), out: wp.array2d(dtype=float),
          dots: wp.array(dtype=float), flat: wp.array(dtype=float), alpha: float):
    x = wp.tile_load(a, shape=(TM, TN))
    y = wp.tile_load(b, shape=(TM, TN))
    wp.tile_axpy(alpha, x, y)  # y += alpha * x
    wp.tile_store(out, y)
    wp.tile_store(dots, wp.tile_dot(x, y))
    e = wp.tile_empty(shape=(1, TM * TN), dtype=float)
    e += wp.tile_reshape(x, shape=(1, -1))
    wp.tile_store(flat, wp.tile_squeeze(e))


def test_axpy_dot_empty_squeeze_and_reshape_minus_one():
    a, b = rand(TM, TN), rand(TM, TN)
    out, dots, flat = wp.zeros((TM, TN), dtype=float), wp.zeros(1, dtype=float), wp.zeros(TM * TN, dtype=float)
    wp.launch_tiled(fused, dim=1, inputs=[wp.array(a), wp.array(b), out, dots, flat, 0.5], block_dim=16)
    y = b + 0.5 * a
    np.testing.assert_allclose(out.numpy(), y, rtol=1e-6)
    np.testing.assert_allclose(dots.numpy()[0], (a * y).sum(), rtol=1e-5)
    np.testing.assert_allclose(flat.numpy(), a.reshape(-1))


# --- reductions ---------------------------------------------------------------------------------------

@wp.func
def larger(x: float, y: float):
    return wp.max(x, y)


@wp.kernel
def reductions(a: wp.array2d(dtype=float), out: wp.array(dtype=float), where: wp.array(dtype=int)):
    i = wp.tid()
    t = wp.tile_load(a, shape=(TM, TN), offset=(i * TM, 0))
    wp.tile_store(out, wp.tile_sum(t), offset=i * 5)
    wp.tile_store(out, wp.tile_min(t), offset=i * 5 + 1)
    wp.tile_store(out, wp.tile_max(t), offset=i * 5 + 2)
    wp.tile_store(out, wp.tile_reduce(wp.add, t), offset=i * 5 + 3)
    wp.tile_store(out, wp.tile_reduce(larger, t), offset=i * 5 + 4)
    wp.tile_store(where, wp.tile_argmin(t), offset=i * 2)
    wp.tile_store(where, wp.tile_argmax(t), offset=i * 2 + 1)


def test_reductions():
    a = rand(3 * TM, TN)
    out, where = wp.zeros(15, dtype=float), wp.zeros(6, dtype=int)
    wp.launch_tiled(reductions, dim=3, inputs=[wp.array(a), out, where], block_dim=64)
    got, idx = out.numpy().reshape(3, 5), where.numpy().reshape(3, 2)
    for i in range(3):
        blk = a[i * TM:(i + 1) * TM]
        np.testing.assert_allclose(got[i], [blk.sum(), blk.min(), blk.max(), blk.sum(), blk.max()], rtol=1e-5,
                                   atol=1e-5)
        assert list(idx[i]) == [blk.argmin(), blk.argmax()]


@wp.kernel
def along_axes(a: wp.array2d(dtype=float), sums: wp.array2d(dtype=float), extremes: wp.array2d(dtype=float),
               where: wp.array2d(dtype=int), scans: wp.array2d(dtype=float)):
    t = wp.tile_load(a, shape=(TM, TN))
    wp.tile_store(sums, wp.tile_reshape(wp.tile_sum(t, axis=0), shape=(1, TN)))
    wp.tile_store(sums, wp.tile_reshape(wp.tile_reduce(wp.add, t, axis=1), shape=(1, TM)), offset=(1, 0))
    wp.tile_store(extremes, wp.tile_reshape(wp.tile_max(t, axis=1), shape=(1, TM)))
    wp.tile_store(extremes, wp.tile_reshape(wp.tile_min(t, axis=0), shape=(1, TN)), offset=(1, 0))
    wp.tile_store(where, wp.tile_reshape(wp.tile_argmax(t, axis=0), shape=(1, TN)))
    wp.tile_store(where, wp.tile_reshape(wp.tile_argmin(t, axis=-1), shape=(1, TM)), offset=(1, 0))
    wp.tile_store(scans, wp.tile_scan_inclusive(t))
    wp.tile_store(scans, wp.tile_scan_exclusive(t), offset=(TM, 0))
    wp.tile_store(scans, wp.tile_scan_max_inclusive(t), offset=(2 * TM, 0))
    wp.tile_store(scans, wp.tile_scan_min_inclusive(t), offset=(3 * TM, 0))


def test_reductions_along_an_axis_and_scans():
    a = rand(TM, TN)
    sums, extremes = wp.zeros((2, TN), dtype=float), wp.zeros((2, TN), dtype=float)
    where, scans = wp.zeros((2, TN), dtype=int), wp.zeros((4 * TM, TN), dtype=float)
    wp.launch_tiled(along_axes, dim=1, inputs=[wp.array(a), sums, extremes, where, scans], block_dim=16)
    np.testing.assert_allclose(sums.numpy()[0], a.sum(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(sums.numpy()[1, :TM], a.sum(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(extremes.numpy()[0, :TM], a.max(1))
    np.testing.assert_allclose(extremes.numpy()[1], a.min(0))
    np.testing.assert_array_equal(where.numpy()[0], a.argmax(0))
    np.testing.assert_array_equal(where.numpy()[1, :TM], a.argmin(1))
    flat = a.reshape(-1)
    got = scans.numpy().reshape(4, -1)
    np.testing.assert_allclose(got[0], np.cumsum(flat), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], np.r_[0, np.cumsum(flat)[:-1]], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[2], np.maximum.accumulate(flat))
    np.testing.assert_allclose(got[3], np.minimum.accumulate(flat))


# --- matrix products ----------------------------------------------------------------------------------

@wp.kernel
def tiled_gemm(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), c: wp.array2d(dtype=float), k_tiles: int):
    i, j = wp.tid()
    acc = wp.tile_zeros(shape=(TM, TN), dtype=float)
    for k in range(k_tiles):
        ta = wp.tile_load(a, shape=(TM, TK), offset=(i * TM, k * TK))
        tb = wp.tile_load(b, shape=(TK, TN), offset=(k * TK, j * TN))
        wp.tile_matmul(ta, tb, acc)
    wp.tile_store(c, acc, offset=(i * TM, j * TN))


@wp.kernel
def gemm_forms(a: wp.array2d(dtype=wp.float64), b: wp.array2d(dtype=wp.float64), c: wp.array2d(dtype=wp.float64),
               d: wp.array2d(dtype=wp.float64)):
    ta = wp.tile_load(a, shape=(3, 5))
    tb = wp.tile_load(b, shape=(5, 2))
    wp.tile_store(c, wp.tile_matmul(ta, tb))
    out = wp.tile_load(d, shape=(3, 2))
    wp.tile_matmul(ta, tb, out, wp.float64(0.5), wp.float64(-2.0))
    wp.tile_store(d, out)


def test_tiled_matmul_accumulates_over_k():
    m, n, k = 2 * TM, 3 * TN, 5 * TK
    a, b = rand(m, k), rand(k, n)
    c = wp.zeros((m, n), dtype=float)
    wp.launch_tiled(tiled_gemm, dim=[2, 3], inputs=[wp.array(a), wp.array(b), c, 5], block_dim=64)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-4, atol=1e-4)


def test_matmul_value_and_alpha_beta_forms():
    a, b, d = rand(3, 5, dtype=np.float64), rand(5, 2, dtype=np.float64), rand(3, 2, dtype=np.float64)
    c, dd = wp.zeros((3, 2), dtype=wp.float64), wp.array(d)
    wp.launch_tiled(gemm_forms, dim=1, inputs=[wp.array(a), wp.array(b), c, dd], block_dim=32)
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-12)
    np.testing.assert_allclose(dd.numpy(), 0.5 * (a @ b) - 2.0 * d, rtol=1e-12)


# --- tiles through functions --------------------------------------------------------------------------

@wp.func
def scale_tile(t: wp.tile[float, TM, TN], s: float) -> wp.tile[float, TM, TN]:
    return t * s


@wp.func
def any_tile_plus_one(t: wp.tile[float]):
    return t + 1.0


@wp.kernel
def through_functions(a: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    t = wp.tile_load(a, shape=(TM, TN))
    wp.tile_store(out, any_tile_plus_one(scale_tile(t, 3.0)))


def test_tiles_as_function_arguments_and_results():
    a = rand(TM, TN)
    out = wp.zeros((TM, TN), dtype=float)
    wp.launch_tiled(through_functions, dim=1, inputs=[wp.array(a), out], block_dim=16)
    np.testing.assert_allclose(out.numpy(), a * 3 + 1, rtol=1e-6)


def test_lane_index_of_a_tiled_launch_is_zero():
    @wp.kernel
    def lanes(out: wp.array2d(dtype=int)):
        i, lane = wp.tid()
        out[i, 0] = i
        out[i, 1] = lane + 7

    out = wp.zeros((3, 2), dtype=int)
    wp.launch_tiled(lanes, dim=3, inputs=[out], block_dim=64)
    np.testing.assert_array_equal(out.numpy(), [[0, 7], [1, 7], [2, 7]])


@wp.kernel
def stacks(out: wp.array(dtype=int), counts: wp.array(dtype=int), n: int):
    s = wp.tile_stack(capacity=4, dtype=int)
    for q in range(n):  # a dynamic loop carries the stack
        wp.tile_stack_push(s, q * 10, q % 2 == 0)
    counts[0] = wp.tile_stack_count(s)
    val, slot = wp.tile_stack_pop(s)
    out[0] = val
    out[1] = slot
    counts[1] = wp.tile_stack_count(s)
    wp.tile_stack_clear(s)
    _empty_val, empty_slot = wp.tile_stack_pop(s)
    out[2] = empty_slot
    counts[2] = wp.tile_stack_push(s, 7, True) * 10 + wp.tile_stack_push(s, 8, False)


def test_tile_stack_push_pop_count_clear():
    out, counts = wp.zeros(3, dtype=int), wp.zeros(3, dtype=int)
    wp.launch_tiled(stacks, dim=1, inputs=[out, counts, 11], block_dim=32)
    pushed = [q * 10 for q in range(11) if q % 2 == 0][:4]  # capacity 4: later pushes are dropped
    # a push gives the slot it filled (0 in the emptied stack), or -1 when there is nothing to push
    np.testing.assert_array_equal(counts.numpy(), [len(pushed), len(pushed) - 1, 0 * 10 - 1])
    np.testing.assert_array_equal(out.numpy(), [pushed[-1], len(pushed) - 1, -1])


@wp.kernel
def sort_pairs(ik: wp.array(dtype=float), iv: wp.array(dtype=int), ok: wp.array(dtype=float), ov: wp.array(dtype=int)):
    keys = wp.tile_load(ik, shape=37)
    values = wp.tile_load(iv, shape=37)
    wp.tile_sort(keys, values)
    wp.tile_store(ok, keys)
    wp.tile_store(ov, values)


def test_tile_sort_is_a_stable_sort_by_key():
    keys = rand(37)
    keys[5] = keys[9] = keys[30]  # ties keep their order
    values = np.arange(37, dtype=np.int32)
    ok, ov = wp.zeros(37, dtype=float), wp.zeros(37, dtype=int)
    wp.launch_tiled(sort_pairs, dim=1, inputs=[wp.array(keys), wp.array(values), ok, ov], block_dim=32)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(ok.numpy(), keys[order])
    np.testing.assert_array_equal(ov.numpy(), values[order])


# --- errors before C++ -------------------------------------------------------------------------------

def _line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


def test_shape_mismatch_in_arithmetic_is_reported_at_the_line():
    @wp.kernel
    def bad_add(a: wp.array2d(dtype=float)):
        t = wp.tile_load(a, shape=(4, 8))
        u = wp.tile_load(a, shape=(8, 4))
        wp.tile_store(a, t + u)

    with pytest.raises(wp.KernelTypeError, match=r"tile \+ tile needs tiles of the same shape.*\(4, 8\).*\(8, 4\)") as err:
        wp.launch_tiled(bad_add, dim=1, inputs=[wp.zeros((8, 8), dtype=float)], block_dim=16)
    assert f"line {_line_of(bad_add.func, 't + u')}" in str(err.value)
    assert "warp_nb" not in str(err.value).split("\n")[0]


def test_matmul_inner_extent_mismatch_is_reported():
    @wp.kernel
    def bad_matmul(a: wp.array2d(dtype=float)):
        t = wp.tile_load(a, shape=(4, 8))
        wp.tile_store(a, wp.tile_matmul(t, t))

    with pytest.raises(wp.KernelTypeError, match=r"inner extents.*\(4, 8\).*\(4, 8\)") as err:
        wp.launch_tiled(bad_matmul, dim=1, inputs=[wp.zeros((8, 8), dtype=float)], block_dim=16)
    assert f"line {_line_of(bad_matmul.func, 'tile_matmul(t, t)')}" in str(err.value)


@pytest.mark.parametrize("body, words", [
    ("wp.tile_store(a, wp.tile_load(a, shape=(n, 4)))", "integer constant"),
    ("wp.tile_store(a, wp.tile_load(a, shape=4))", "one extent per array dimension"),
    ("wp.tile_store(a, wp.tile_ones(shape=(4, 4), dtype=int))", "convert with wp.tile_astype"),
    ("wp.tile_store(a, wp.tile_broadcast(wp.tile_ones(shape=(3, 2)), shape=(4, 4)))", "cannot broadcast"),
    ("wp.tile_store(a, wp.tile_reshape(wp.tile_ones(shape=(3, 2)), shape=(4, 4)))", "cannot reshape"),
])
def test_bad_tile_calls_name_the_fix(body, words):
    """Typed only (no C++ is written): the error names the fix, the file and the line."""
    from warp_nb.compiler.parse import parse_source
    from warp_nb.compiler.scope import Scope
    from warp_nb.compiler.typecheck import Context, typecheck_kernel
    from warp_nb.types.array_type import ArrayType

    fdef = parse_source(f"def k(a: wp.array2d(dtype=float), n: int):\n    {body}\n", "k.py")
    scope = Scope(lambda: None)
    scope.globals = {"wp": wp}
    with pytest.raises(wp.KernelTypeError, match=words) as err:
        typecheck_kernel(fdef, [ArrayType(wp.float32, 2), wp.int32], scope, Context("release"))
    assert "k.py, line 2" in str(err.value) and "warp_nb." not in str(err.value)


# --- gradients against finite differences -------------------------------------------------------------

@wp.kernel
def tile_loss(a: wp.array2d(dtype=wp.float64), b: wp.array2d(dtype=wp.float64), row: wp.array(dtype=wp.float64),
              out: wp.array2d(dtype=wp.float64), loss: wp.array(dtype=wp.float64)):
    ta = wp.tile_load(a, shape=(3, 5))
    tb = wp.tile_load(b, shape=(5, 4))
    c = wp.tile_matmul(ta, tb)                                   # 3 x 4
    r = wp.tile_broadcast(wp.tile_load(row, shape=4), shape=(3, 4))
    d = wp.tile_map(wp.sin, c) * wp.float64(2.0) + r * c - wp.tile_transpose(wp.tile_transpose(wp.tile_view(
        ta, offset=(0, 1), shape=(3, 4))))
    acc = wp.tile_zeros(shape=(3, 4), dtype=wp.float64)
    wp.tile_matmul(ta, tb, acc, wp.float64(0.5), wp.float64(1.0))
    e = d / (wp.tile_ones(shape=(3, 4), dtype=wp.float64) * wp.float64(3.0)) + acc + wp.tile_astype(
        wp.tile_astype(d, dtype=float), dtype=wp.float64)
    e[0:2, 1:3] = e[1:3, ::2] * wp.float64(3.0)  # slices read and written
    wp.tile_store(out, e)
    extra = wp.tile_sum(wp.tile_sum(c, axis=1) * wp.tile_max(c, axis=0)[0:3]) + wp.tile_sum(wp.tile_scan_inclusive(ta))
    wp.tile_atomic_add(loss, wp.tile_sum(wp.tile_map(square64, e)) + wp.tile_max(c) + wp.tile(e[1, 2]) + extra)


@wp.func
def square64(x: wp.float64):
    return x * x


def _numpy_loss(a, b, row):
    c = a @ b
    d = np.sin(c) * 2 + row[None, :] * c - a[0:3, 1:5]
    e = d / 3 + 0.5 * c + d  # the float32 round trip of d: within the tolerance
    e[0:2, 1:3] = e[1:3, ::2] * 3
    extra = (c.sum(1) * c.max(0)[0:3]).sum() + np.cumsum(a.reshape(-1)).sum()
    return (e * e).sum() + c.max() + e[1, 2] + extra


def test_gradients_through_tile_ops_match_finite_differences():
    a, b, row = rand(3, 5, dtype=np.float64), rand(5, 4, dtype=np.float64), rand(4, dtype=np.float64)
    A, B, ROW = (wp.array(x, dtype=wp.float64, requires_grad=True) for x in (a, b, row))
    out, loss = wp.zeros((3, 4), dtype=wp.float64, requires_grad=True), wp.zeros(1, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(tile_loss, dim=1, inputs=[A, B, ROW, out, loss], block_dim=32)
    np.testing.assert_allclose(loss.numpy()[0], _numpy_loss(a, b, row), rtol=1e-6)
    tape.backward(loss=loss)
    eps = 1e-6
    for x, got in ((a, A.grad.numpy()), (b, B.grad.numpy()), (row, ROW.grad.numpy())):
        fd = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            old = x[idx]
            x[idx] = old + eps
            up = _numpy_loss(a, b, row)
            x[idx] = old - eps
            down = _numpy_loss(a, b, row)
            x[idx] = old
            fd[idx] = (up - down) / (2 * eps)
        np.testing.assert_allclose(got, fd, rtol=1e-4, atol=1e-5)


# --- the same kernels through NVRTC --------------------------------------------------------------------

@pytest.mark.needs_nvrtc
def test_tile_kernels_compile_for_sm90_with_nvrtc():
    compile_for_sm90([arithmetic, ragged_1d, construct, reductions, tiled_gemm, gemm_forms, through_functions,
               tile_loss, along_axes, composite_elements, stacks, fused, sort_pairs])


def test_tile_builtins_from_python_scope_say_where_they_belong():
    with pytest.raises(RuntimeError, match=r"wp.tile_zeros\(\) is a tile builtin: call it inside a @wp.kernel"):
        wp.tile_zeros(shape=(4,), dtype=float)
    with pytest.raises(RuntimeError, match="wp.launch_tiled"):
        wp.tile_sum(wp.zeros(4))


@wp.func
def _six_arguments(a: float, b: float, c: float, d: float, e: float, s: float) -> float:
    return a * b + c * d * e + s


@wp.kernel
def _tile_map_six(x: wp.array(dtype=float), y: wp.array(dtype=float), s: wp.array(dtype=float),
                  out: wp.array(dtype=float)):
    tx = wp.tile_load(x, shape=(4,))
    ty = wp.tile_load(y, shape=(4,))
    wp.tile_store(out, wp.tile_map(_six_arguments, tx, ty, tx, ty, tx, s[0]))


def test_tile_map_of_a_function_of_six_arguments_and_its_adjoint():
    # Warp maps a @wp.func of up to eight arguments; values and gradients probed from warp-lang 1.19
    x = wp.array([1.0, 2.0, 3.0, 4.0], dtype=float, requires_grad=True)
    y = wp.array([0.5, 1.0, 1.5, 2.0], dtype=float, requires_grad=True)
    s = wp.array([10.0], dtype=float, requires_grad=True)
    out = wp.zeros(4, dtype=float, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch_tiled(_tile_map_six, dim=[1], inputs=[x, y, s, out], block_dim=1)
    np.testing.assert_allclose(out.numpy(), [11.0, 16.0, 28.0, 50.0])
    tape.backward(grads={out: wp.array(np.ones(4, np.float32))})
    np.testing.assert_allclose(x.grad.numpy(), [1.5, 5.0, 10.5, 18.0])
    np.testing.assert_allclose(y.grad.numpy(), [2.0, 6.0, 12.0, 20.0])
    np.testing.assert_allclose(s.grad.numpy(), [4.0])
