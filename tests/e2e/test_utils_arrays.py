"""wp.utils array operations against numpy: reductions (whole array, along an axis, counts),
scans, radix and segmented sorts, run-length encoding, casts, and their refusals."""

import itertools

import numpy as np
import pytest

import warp_nb as wp

pytestmark = pytest.mark.needs_cxx

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("dtype, np_dtype", [(wp.float32, np.float32), (wp.float64, np.float64)])
def test_array_sum_and_inner_match_numpy(dtype, np_dtype):
    x = RNG.standard_normal(3001).astype(np_dtype)
    y = RNG.standard_normal(3001).astype(np_dtype)
    a, b = wp.array(x, dtype=dtype), wp.array(y, dtype=dtype)
    tol = 1e-3 if dtype is wp.float32 else 1e-10
    assert abs(wp.utils.array_sum(a) - x.astype(np.float64).sum()) < tol
    assert abs(wp.utils.array_inner(a, b) - np.dot(x.astype(np.float64), y)) < tol
    out = wp.zeros(1, dtype=dtype)
    assert wp.utils.array_sum(a, out=out, value_count=17) is out
    assert abs(out.numpy()[0] - x[:17].sum()) < tol


def test_vector_and_matrix_reductions():
    v = RNG.standard_normal((257, 3)).astype(np.float32)
    w = RNG.standard_normal((257, 3)).astype(np.float32)
    a, b = wp.array(v, dtype=wp.vec3), wp.array(w, dtype=wp.vec3)
    np.testing.assert_allclose(wp.utils.array_sum(a), v.sum(axis=0), rtol=1e-4, atol=1e-4)
    assert abs(wp.utils.array_inner(a, b) - np.sum(v * w)) < 1e-3
    m = RNG.standard_normal((40, 2, 2))
    am = wp.array(m, dtype=wp.mat22d)
    np.testing.assert_allclose(wp.utils.array_sum(am), m.sum(axis=0))
    assert abs(wp.utils.array_inner(am, am) - np.sum(m * m)) < 1e-9


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_axis_reductions_keep_the_axis(axis):
    x = RNG.standard_normal((4, 5, 6))
    y = RNG.standard_normal((4, 5, 6))
    a, b = wp.array(x), wp.array(y)
    np.testing.assert_allclose(wp.utils.array_sum(a, axis=axis).numpy(), x.sum(axis=axis, keepdims=True))
    np.testing.assert_allclose(wp.utils.array_inner(a, b, axis=axis).numpy(), (x * y).sum(axis=axis, keepdims=True))
    n = x.shape[axis] - 2
    part = np.take(x, range(n), axis=axis)
    np.testing.assert_allclose(wp.utils.array_sum(a, axis=axis, value_count=n).numpy(),
                               part.sum(axis=axis, keepdims=True))


def test_reductions_of_strided_views_and_empty_arrays():
    x = RNG.standard_normal((6, 8))
    a = wp.array(x)[:, ::2]  # not contiguous
    assert abs(wp.utils.array_sum(a) - x[:, ::2].sum()) < 1e-10
    np.testing.assert_allclose(wp.utils.array_sum(a, axis=0).numpy(), x[:, ::2].sum(axis=0, keepdims=True))
    assert wp.utils.array_sum(wp.zeros(0, dtype=wp.float32)) == 0.0
    np.testing.assert_array_equal(wp.utils.array_sum(wp.zeros((0, 3)), axis=0).numpy(), np.zeros((1, 3)))


def test_reduction_refusals():
    with pytest.raises(RuntimeError, match="Unsupported data type: int32"):
        wp.utils.array_sum(wp.zeros(3, dtype=int))
    with pytest.raises(RuntimeError, match="out array should have type float32"):
        wp.utils.array_sum(wp.zeros(3), out=wp.zeros(1, dtype=wp.float64))
    with pytest.raises(RuntimeError, match=r"out array should have shape \(1,\)"):
        wp.utils.array_sum(wp.zeros(3), out=wp.zeros(2))
    with pytest.raises(ValueError, match=r"same shape, got \(2,\) and \(3,\)"):
        wp.utils.array_inner(wp.zeros(2), wp.zeros(3))
    with pytest.raises(RuntimeError, match=r"data types do not match \(float32 vs float64\)"):
        wp.utils.array_inner(wp.zeros(2), wp.zeros(2, dtype=wp.float64))
    with pytest.raises(IndexError, match=r"array_sum\(\) axis 2 is out of bounds"):
        wp.utils.array_sum(wp.zeros((2, 2)), axis=2)


@pytest.mark.parametrize("dtype, np_dtype", [(wp.int32, np.int32), (wp.int64, np.int64), (wp.float64, np.float64)])
@pytest.mark.parametrize("n", [1, 7, 5000])
def test_array_scan_matches_cumsum(dtype, np_dtype, n):
    x = RNG.integers(-100, 100, n).astype(np_dtype)
    a, inc, exc = wp.array(x, dtype=dtype), wp.zeros(n, dtype=dtype), wp.zeros(n, dtype=dtype)
    wp.utils.array_scan(a, inc, True)
    wp.utils.array_scan(a, exc, False)
    np.testing.assert_array_equal(inc.numpy(), np.cumsum(x))
    np.testing.assert_array_equal(exc.numpy(), np.concatenate([[0], np.cumsum(x)[:-1]]))


def test_array_scan_vectors_and_strided_views():
    x = RNG.integers(-9, 9, (300, 3)).astype(np.int32)
    a, out = wp.array(x, dtype=wp.vec3i), wp.zeros(300, dtype=wp.vec3i)
    wp.utils.array_scan(a, out)
    np.testing.assert_array_equal(out.numpy(), np.cumsum(x, axis=0))
    base, dest = wp.array(np.arange(20, dtype=np.int64)), wp.full(20, -1, dtype=wp.int64)
    wp.utils.array_scan(base[::2], dest[1::2], False)
    expect = np.full(20, -1)
    expect[1::2] = np.concatenate([[0], np.cumsum(np.arange(0, 20, 2))[:-1]])
    np.testing.assert_array_equal(dest.numpy(), expect)
    with pytest.raises(RuntimeError, match="Unsupported data type: vec3h"):
        wp.utils.array_scan(wp.zeros(3, dtype=wp.vec3h), wp.zeros(3, dtype=wp.vec3h))
    with pytest.raises(RuntimeError, match=r"sizes do not match \(3 vs 4\)"):
        wp.utils.array_scan(wp.zeros(3, dtype=int), wp.zeros(4, dtype=int))


_KEY_CASES = [(wp.int32, np.int32), (wp.uint32, np.uint32), (wp.float32, np.float32), (wp.int64, np.int64),
              (wp.uint64, np.uint64), (wp.float64, np.float64)]


@pytest.mark.parametrize("key_type, np_key", _KEY_CASES)
@pytest.mark.parametrize("n", [1, 13, 4000])
def test_radix_sort_pairs_is_a_stable_argsort(key_type, np_key, n):
    if np.issubdtype(np_key, np.floating):
        keys = (RNG.standard_normal(n) * 1e3).astype(np_key)
        keys[::5] = keys[0]  # duplicates test stability
        keys[1::7] = -0.0 if n > 1 else keys[1::7]
    elif np.issubdtype(np_key, np.signedinteger):
        keys = RNG.integers(-2**20, 2**20, n).astype(np_key)
    else:
        keys = RNG.integers(0, 2**20, n).astype(np_key) * (2**12 if np_key == np.uint64 else 1)
    values = np.arange(n, dtype=np.int32)
    k = wp.array(np.concatenate([keys, np.zeros(n, np_key)]), dtype=key_type)
    v = wp.array(np.concatenate([values, np.zeros(n, np.int32)]), dtype=wp.int32)
    wp.utils.radix_sort_pairs(k, v, n)
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(v.numpy()[:n], values[order])
    np.testing.assert_array_equal(k.numpy()[:n], keys[order])


def test_radix_sort_pairs_bit_range_and_refusals():
    keys = np.array([8, 1, 10, 3, 4, 5, 6, 7], dtype=np.uint32)
    k = wp.array(np.concatenate([keys, keys]), dtype=wp.uint32)
    v = wp.array(np.arange(16, dtype=np.int64), dtype=wp.int64)
    wp.utils.radix_sort_pairs(k, v, 8, begin_bit=1, end_bit=3)  # an odd number of passes: 1
    order = np.argsort((keys >> 1) & 3, kind="stable")
    np.testing.assert_array_equal(v.numpy()[:8], order)
    with pytest.raises(RuntimeError, match="2\\*count"):
        wp.utils.radix_sort_pairs(wp.zeros(3, dtype=int), wp.zeros(3, dtype=int), 3)
    with pytest.raises(RuntimeError, match="Unsupported keys and values data types: int32, float16"):
        wp.utils.radix_sort_pairs(wp.zeros(4, dtype=int), wp.zeros(4, dtype=wp.float16), 1)
    with pytest.raises(RuntimeError, match=r"bit range \[0, 33\) for 32-bit keys"):
        wp.utils.radix_sort_pairs(wp.zeros(4, dtype=int), wp.zeros(4, dtype=int), 1, end_bit=33)
    with pytest.raises(RuntimeError, match="contiguous keys"):
        wp.utils.radix_sort_pairs(wp.zeros(8, dtype=int)[::2], wp.zeros(8, dtype=int), 2)


@pytest.mark.parametrize("key_type, np_key", [(wp.int32, np.int32), (wp.float32, np.float32)])
def test_segmented_sort_pairs_sorts_each_segment(key_type, np_key):
    n = 500
    keys = RNG.integers(-50, 50, n).astype(np_key)
    values = np.arange(n, dtype=np.int32)
    offsets = np.array([0, 3, 3, 130, 131, 400, n], dtype=np.int32)
    k = wp.array(np.concatenate([keys, keys]), dtype=key_type)
    v = wp.array(np.concatenate([values, values]), dtype=wp.int32)
    wp.utils.segmented_sort_pairs(k, v, n, wp.array(offsets))
    for lo, hi in itertools.pairwise(offsets):
        order = lo + np.argsort(keys[lo:hi], kind="stable")
        np.testing.assert_array_equal(v.numpy()[lo:hi], values[order])
        np.testing.assert_array_equal(k.numpy()[lo:hi], keys[order])


def test_segmented_sort_pairs_refusals_leave_the_input():
    keys = wp.array(np.array([2, 1, 4, 3, 0, 0, 0, 0], dtype=np.int32))
    values = wp.array(np.array([20, 10, 40, 30, 0, 0, 0, 0], dtype=np.int32))
    with pytest.raises(ValueError, match="Invalid segment range at index 1"):
        wp.utils.segmented_sort_pairs(keys, values, 4, wp.array([0, 2], dtype=int), wp.array([2, 5], dtype=int))
    assert keys.numpy().tolist() == [2, 1, 4, 3, 0, 0, 0, 0]
    with pytest.raises(TypeError, match="count must be an integer"):
        wp.utils.segmented_sort_pairs(keys, values, True, wp.array([0], dtype=int))
    with pytest.raises(ValueError, match="count must be non-negative, got -1"):
        wp.utils.segmented_sort_pairs(keys, values, -1, wp.array([0], dtype=int))
    with pytest.raises(RuntimeError, match="Unsupported data type: int32"):
        wp.utils.segmented_sort_pairs(keys, wp.zeros(8), 1, wp.array([0, 1], dtype=int))


@pytest.mark.parametrize("n", [0, 1, 300])
def test_runlength_encode_matches_numpy(n):
    values = np.sort(RNG.integers(-5, 5, n)).astype(np.int32)
    a = wp.array(values, dtype=wp.int32) if n else wp.zeros(0, dtype=wp.int32)
    run_values, run_lengths = wp.empty(max(n, 1), dtype=wp.int32), wp.empty(max(n, 1), dtype=wp.int32)
    count = wp.utils.runlength_encode(a, run_values, run_lengths)
    unique, counts = np.unique(values, return_counts=True)
    assert count == len(unique)
    np.testing.assert_array_equal(run_values.numpy()[:count], unique)
    np.testing.assert_array_equal(run_lengths.numpy()[:count], counts)
    device_count = wp.zeros(1, dtype=wp.int32)
    assert wp.utils.runlength_encode(a, run_values, run_lengths, run_count=device_count) is device_count  # as Warp
    assert device_count.numpy()[0] == len(unique)


def test_runlength_encode_refusals():
    with pytest.raises(RuntimeError, match="Unsupported data type: float32"):
        wp.utils.runlength_encode(wp.zeros(3), wp.zeros(3), wp.zeros(3, dtype=int))
    with pytest.raises(RuntimeError, match=r"at least equal to value_count \(3\)"):
        wp.utils.runlength_encode(wp.zeros(3, dtype=int), wp.zeros(1, dtype=int), wp.zeros(3, dtype=int))
    with pytest.raises(RuntimeError, match="value_count must be non-negative, got -2"):
        wp.utils.runlength_encode(wp.zeros(3, dtype=int), wp.zeros(3, dtype=int), wp.zeros(3, dtype=int),
                                  value_count=-2)


def test_array_cast_like_numpy_astype():
    x = RNG.uniform(-9, 9, (3, 4)).astype(np.float32)
    out = wp.zeros((3, 4), dtype=wp.int32)
    wp.utils.array_cast(wp.array(x), out)
    np.testing.assert_array_equal(out.numpy(), x.astype(np.int32))  # truncation toward zero, as C++
    out64 = wp.zeros(12, dtype=wp.float64)
    wp.utils.array_cast(wp.array(x), out64)  # different shapes: flattened
    np.testing.assert_array_equal(out64.numpy(), x.astype(np.float64).ravel())
    vec = wp.array(np.arange(6, dtype=np.float32).reshape(3, 2), dtype=wp.vec2)
    scalars = wp.zeros(6, dtype=wp.float64)
    wp.utils.array_cast(vec, scalars, count=2)  # two vec2 elements: four scalars
    np.testing.assert_array_equal(scalars.numpy(), [0, 1, 2, 3, 0, 0])
    with pytest.raises(RuntimeError, match=r"Array shapes do not match \(\(2, 3\) vs \(3, 2\)\)"):
        wp.utils.array_cast(wp.zeros((2, 3)), wp.zeros((3, 2), dtype=wp.float64))
    with pytest.raises(RuntimeError, match=r"Cast count \(5\) exceeds the input size \(3\)"):
        wp.utils.array_cast(wp.zeros(3), wp.zeros(10, dtype=int), count=5)


# --- what tests/fuzz/utils_against_warp found different from warp-lang 1.19 -------------------------
def test_runlength_encode_edges_as_warp():
    values = wp.array([1, 1, 2], dtype=wp.int32)
    out = wp.full(3, 7, dtype=wp.int32)
    count = wp.full(1, 7, dtype=wp.int32)
    assert wp.utils.runlength_encode(values, out, out, run_count=count) is count
    # nothing to encode: no runs, whatever the values' type
    assert wp.utils.runlength_encode(wp.zeros(3, dtype=wp.int64), wp.zeros(3, dtype=wp.int64), out, value_count=0) == 0
    assert wp.utils.runlength_encode(wp.zeros(3, dtype=wp.float32), wp.zeros(3), out, run_count=count,
                                     value_count=0) is count
    assert count.numpy()[0] == 0
    # past the end of values Warp reads garbage; refused (an IndexError from inside a kernel before)
    with pytest.raises(RuntimeError, match=r"value_count \(4\) exceeds the number of values \(3\)"):
        wp.utils.runlength_encode(values, wp.zeros(4, dtype=int), wp.zeros(4, dtype=int), value_count=4)


def test_radix_sort_pairs_counts_and_value_types_as_warp():
    # a count of 0 returns before anything is checked; a negative one sorts nothing
    wp.utils.radix_sort_pairs(wp.zeros(8, dtype=wp.int8)[::2], wp.zeros(1, dtype=wp.int8), 0, 5, 3)
    keys, values = wp.array([3, 1, 2, 0], dtype=wp.int32), wp.array([0, 1, 2, 3], dtype=wp.int32)
    wp.utils.radix_sort_pairs(keys, values, -1)
    assert keys.numpy().tolist() == [3, 1, 2, 0]
    # values of any type 4 or 8 bytes wide move with their keys
    for vtype, data in ((wp.vec2, [[0, 1], [2, 3], [4, 5]]), (wp.vec2h, [[0, 1], [2, 3], [4, 5]]),
                        (wp.vec4ub, [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]])):
        keys = wp.array([3, 1, 2, 0, 0, 0], dtype=wp.int32)
        values = wp.array(data + data, dtype=vtype)
        wp.utils.radix_sort_pairs(keys, values, 3)
        np.testing.assert_array_equal(values.numpy()[:3], np.array(data)[[1, 2, 0]])
    with pytest.raises(RuntimeError, match="Unsupported keys and values data types: int32, vec3f"):
        wp.utils.radix_sort_pairs(wp.zeros(4, dtype=int), wp.zeros(4, dtype=wp.vec3), 1)


def test_segmented_sort_pairs_orders_floats_as_warp():
    # Warp's order is the radix sort's: -NaN < -inf < ... < -0.0 < +0.0 < ... < inf < NaN
    keys = np.array([0.0, -0.0, np.nan, -np.nan, 1.0, -1.0, np.inf, -np.inf, 0.0, -0.0], dtype=np.float32)
    k = wp.array(np.concatenate([keys, keys]), dtype=wp.float32)
    v = wp.array(np.arange(20), dtype=wp.int32)
    wp.utils.segmented_sort_pairs(k, v, 10, wp.array([0, 10], dtype=wp.int32))
    assert v.numpy()[:10].tolist() == [3, 7, 5, 1, 9, 0, 8, 4, 6, 2]
    np.testing.assert_array_equal(k.numpy()[:10].view(np.uint32), keys[[3, 7, 5, 1, 9, 0, 8, 4, 6, 2]].view(np.uint32))


def test_segmented_sort_pairs_checks_in_warps_order():
    z = lambda n, dtype=wp.int32: wp.zeros(n, dtype=dtype)
    wp.utils.segmented_sort_pairs(z(2, wp.int64), z(2), 0, z((1, 1)))  # count 0: nothing checked
    wp.utils.segmented_sort_pairs(z(2, wp.int64), z(2, wp.float32), 1, z(1))  # no segments: types not checked
    with pytest.raises(RuntimeError, match="segment_start_indices array must be of type int32"):
        wp.utils.segmented_sort_pairs(z(2), z(2), 1, z(1, wp.int64))
    with pytest.raises(RuntimeError, match="segment_end_indices array must be of type int32"):
        wp.utils.segmented_sort_pairs(z(2), z(2), 1, z(1), z(1, wp.int64))
    # a contiguous 2-d array is sorted as its storage
    keys = wp.array(np.array([[3, 1], [2, 0]]), dtype=wp.int32)
    values = wp.array(np.arange(4), dtype=wp.int32)
    wp.utils.segmented_sort_pairs(keys, values, 2, wp.array([0, 2], dtype=wp.int32))
    assert keys.numpy().tolist() == [[1, 3], [1, 3]] and values.numpy()[:2].tolist() == [1, 0]


def test_array_scan_types_as_warp():
    for dtype in (wp.uint32, wp.float16, wp.mat22, wp.quat):  # empty: no error, whatever the type
        wp.utils.array_scan(wp.zeros(0, dtype=dtype), wp.zeros(0, dtype=dtype))
    for dtype in (wp.mat22, wp.quat, wp.transform):  # Warp scans scalars and vectors only
        with pytest.raises(RuntimeError, match="Unsupported data type"):
            wp.utils.array_scan(wp.ones(2, dtype=dtype), wp.zeros(2, dtype=dtype))


def test_reductions_of_nothing_as_warp():
    # a sum of nothing is zero whatever the type; Warp's inner product of nothing is the float 0.0
    assert wp.utils.array_sum(wp.zeros(0, dtype=wp.float16)) == 0
    assert wp.utils.array_sum(wp.ones(3, dtype=wp.int32), value_count=0) == 0
    inner = wp.utils.array_inner(wp.zeros(0), wp.zeros(0))
    assert type(inner) is float and inner == 0.0
    out = wp.full(1, 7.0, dtype=wp.float16)
    assert wp.utils.array_inner(wp.ones(2, dtype=wp.float16), wp.ones(2, dtype=wp.float16), out=out, count=0) is out
    assert out.numpy()[0] == 0
    along = wp.utils.array_sum(wp.ones((2, 3), dtype=wp.float16), axis=1, value_count=0)
    assert along.shape == (2, 1) and not along.numpy().any()
    # a negative count sums nothing (it raised before)
    assert wp.utils.array_sum(wp.ones(3), value_count=-1) == 0
    assert wp.utils.array_inner(wp.ones(3), wp.ones(3), count=-2) == 0
    np.testing.assert_array_equal(wp.utils.array_sum(wp.ones((3, 2)), axis=0, value_count=-1).numpy(), [[0, 0]])


def test_reduction_checks_in_warps_order():
    # out is checked before the input's type, the axis before both
    with pytest.raises(RuntimeError, match="out array should have type float16"):
        wp.utils.array_sum(wp.zeros((2, 3), dtype=wp.float16), axis=0, out=wp.zeros((1, 3)))
    with pytest.raises(IndexError, match="axis 5 is out of bounds for an array with 2 dimensions"):
        wp.utils.array_sum(wp.zeros((3, 2), dtype=wp.int32), axis=5)
    with pytest.raises(RuntimeError, match="Unsupported data type: float16"):
        wp.utils.array_sum(wp.zeros(0, dtype=wp.float16), value_count=2)


def test_inner_products_of_quaternions_and_transforms():
    q = np.arange(8, dtype=np.float32).reshape(2, 4)
    assert wp.utils.array_inner(wp.array(q, dtype=wp.quat), wp.array(q, dtype=wp.quat)) == np.sum(q * q)
    t = np.arange(14, dtype=np.float64).reshape(2, 7)
    a = wp.array(t, dtype=wp.transformd)
    assert wp.utils.array_inner(a, a) == np.sum(t * t)
    np.testing.assert_array_equal(wp.utils.array_inner(a, a, axis=0).numpy(), [np.sum(t * t)])


def test_array_cast_shapes_and_counts_as_warp():
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    # element types of other shapes: cast over the scalars, whatever the arrays' shapes, count included
    out = wp.zeros((2, 3), dtype=wp.vec2)
    wp.utils.array_cast(wp.array(x), out, count=2)
    np.testing.assert_array_equal(out.numpy().reshape(-1)[:3], [1, 2, 0])
    wide = wp.zeros((3, 4), dtype=wp.float32)
    wp.utils.array_cast(wp.array(np.ones((2, 3, 2), dtype=np.float32), dtype=wp.vec2), wide)
    assert wide.numpy().all()
    # the same scalar type is a copy: a count of 0 copies everything
    flat = wp.zeros(6, dtype=wp.float32)
    wp.utils.array_cast(wp.array(x.reshape(3, 2), dtype=wp.vec2), flat, count=0)
    np.testing.assert_array_equal(flat.numpy(), x.ravel())
    # a count of a whole 2-d array is no partial cast; the same type of another shape is a copy
    half = wp.zeros((2, 3), dtype=wp.float16)
    wp.utils.array_cast(wp.array(x), half, count=6)
    np.testing.assert_array_equal(half.numpy(), x)
    other = wp.zeros((3, 2), dtype=wp.float32)
    wp.utils.array_cast(wp.array(x), other)
    np.testing.assert_array_equal(other.numpy().ravel(), x.ravel())
    with pytest.raises(RuntimeError, match="Partial cast"):
        wp.utils.array_cast(wp.array(x), half, count=5)
    # sizes in the scalar-level message are scalars (3 elements were 6 scalars)
    with pytest.raises(RuntimeError, match=r"Cast count \(6\) exceeds the input size \(6\) or output size \(4\)"):
        wp.utils.array_cast(wp.array(x.reshape(3, 2), dtype=wp.vec2), wp.zeros(4, dtype=wp.float64))
