"""Tiles end to end on the CPU: every tile builtin against numpy, tile errors reported at the
kernel's line before any C++, and every kernel of this file compiled for sm_90 by NVRTC."""

import inspect

import numpy as np
import pytest

import warp_nb as wp

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


# --- shapes ------------------------------------------------------------------------------------------

@wp.kernel
def shapes(a: wp.array2d(dtype=float), row: wp.array(dtype=float), col: wp.array2d(dtype=float),
           tr: wp.array2d(dtype=float), rows: wp.array2d(dtype=float), cols: wp.array2d(dtype=float),
           view_row: wp.array(dtype=float), block: wp.array2d(dtype=float), flat: wp.array(dtype=float),
           doubled: wp.array2d(dtype=wp.float64)):
    t = wp.tile_load(a, shape=(TM, TN))
    wp.tile_store(tr, wp.tile_transpose(t))
    r = wp.tile_load(row, shape=TN)
    wp.tile_store(rows, wp.tile_broadcast(r, shape=(TM, TN)) + t)
    c = wp.tile_load(col, shape=(TM, 1))
    wp.tile_store(cols, wp.tile_broadcast(c, shape=(TM, TN)) * t)
    wp.tile_store(view_row, wp.tile_view(t, offset=(2,)))
    wp.tile_store(block, wp.tile_view(t, offset=(1, 2), shape=(2, 3)))
    wp.tile_store(flat, wp.tile_reshape(t, shape=TM * TN))
    wp.tile_store(doubled, wp.tile_astype(t, dtype=wp.float64) * wp.float64(2.0))


def test_transpose_broadcast_view_reshape_astype():
    a, row, col = rand(TM, TN), rand(TN), rand(TM, 1)
    outs = dict(tr=wp.zeros((TN, TM), dtype=float), rows=wp.zeros((TM, TN), dtype=float),
                cols=wp.zeros((TM, TN), dtype=float), view_row=wp.zeros(TN, dtype=float),
                block=wp.zeros((2, 3), dtype=float), flat=wp.zeros(TM * TN, dtype=float),
                doubled=wp.zeros((TM, TN), dtype=wp.float64))
    wp.launch_tiled(shapes, dim=1, inputs=[wp.array(a), wp.array(row), wp.array(col), *outs.values()], block_dim=16)
    np.testing.assert_allclose(outs["tr"].numpy(), a.T)
    np.testing.assert_allclose(outs["rows"].numpy(), a + row[None, :], rtol=1e-6)
    np.testing.assert_allclose(outs["cols"].numpy(), a * col, rtol=1e-6)
    np.testing.assert_allclose(outs["view_row"].numpy(), a[2])
    np.testing.assert_allclose(outs["block"].numpy(), a[1:3, 2:5])
    np.testing.assert_allclose(outs["flat"].numpy(), a.reshape(-1))
    np.testing.assert_allclose(outs["doubled"].numpy(), a.astype(np.float64) * 2)


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

    with pytest.raises(wp.KernelTypeError, match=r"same shape and dtype.*\(4, 8\).*\(8, 4\)") as err:
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


# --- the same kernels through NVRTC --------------------------------------------------------------------

@pytest.mark.needs_nvrtc
def test_tile_kernels_compile_for_sm90_with_nvrtc():
    from warp_nb.compiler.pipeline import compile_kernel
    from warp_nb.cuda.target import AotCudaTarget
    from warp_nb.toolchain import nvrtc
    try:
        nvrtc.nvrtc_version()
    except nvrtc.NVRTCUnavailableError as e:
        pytest.skip(f"NVRTC unavailable: {e}")
    target = AotCudaTarget(90, use_ptx=True)
    kernels = [arithmetic, ragged_1d, construct, shapes, reductions, tiled_gemm, gemm_forms, through_functions]
    jobs = [(k, options, sig) for k in kernels for options, sig in k.compiled_options("cpu")]
    assert len(jobs) >= len(kernels), "run the CPU tests of this file first (they compile the kernels)"
    for k, options, sig in jobs:
        compile_kernel(k, sig, target, options)
