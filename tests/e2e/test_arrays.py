"""Arrays in Python scope: construction, views, numpy interop, filling, copying, refusals."""

import numpy as np
import pytest

import warp_nb as wp


def test_construction_and_properties():
    a = wp.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert a.shape == (3, 4) and a.ndim == 2 and a.size == 12 and a.dtype is wp.float32
    assert a.strides == (16, 4) and a.device == "cpu" and len(a) == 3
    assert wp.array([1, 2, 3], dtype=wp.int16).dtype is wp.int16
    assert wp.array([1.0, 2.0]).dtype is wp.float64  # inferred from numpy's dtype, as Warp does
    v = wp.array(np.ones((5, 3)), dtype=wp.vec3)
    assert v.shape == (5,) and v.numpy().shape == (5, 3) and v.numpy().dtype == np.float32
    m = wp.zeros(2, dtype=wp.mat22d)
    assert m.numpy().shape == (2, 2, 2) and m.numpy().dtype == np.float64
    assert wp.empty((2, 3), dtype=wp.uint8).shape == (2, 3)
    assert wp.full(3, 7, dtype=wp.int64).numpy().tolist() == [7, 7, 7]
    assert wp.ones(2, dtype=wp.vec2).list() == [wp.vec2(1.0, 1.0)] * 2
    assert wp.array(np.zeros(6), dtype=wp.vec3, shape=(2,)).shape == (2,)


def test_like_clone_and_copy():
    a = wp.array(np.arange(10, dtype=np.float32), requires_grad=True)
    for f in (wp.zeros_like, wp.ones_like, wp.empty_like):
        b = f(a)
        assert b.shape == a.shape and b.dtype is a.dtype and b.requires_grad
    assert wp.full_like(a, 3.0).numpy().tolist() == [3.0] * 10
    c = wp.clone(a)
    c.fill_(1.0)
    assert a.numpy()[0] == 0.0  # a clone does not share memory
    d = wp.zeros(10)
    wp.copy(d, a, dest_offset=2, src_offset=5, count=3)
    assert d.numpy().tolist() == [0, 0, 5, 6, 7, 0, 0, 0, 0, 0]
    with pytest.raises(ValueError, match="exceeds the destination size"):
        wp.copy(d, a, dest_offset=9, count=3)


def test_copy_windows_of_strided_views_and_refusals():
    src = wp.array(np.arange(12, dtype=np.float32))[::3]  # [0, 3, 6, 9], non-contiguous
    dst = wp.full(8, -1.0)[::2]
    wp.copy(dst, src, dest_offset=1, src_offset=2, count=2)
    assert dst.numpy().tolist() == [-1, 6, 9, -1]
    for kwargs, words in (({"src_offset": -1}, "Source offset must be non-negative"),
                          ({"count": 1.5}, "must be integers"), ({"count": 9}, "exceeds the source size")):
        with pytest.raises(RuntimeError, match=words):  # Warp's RuntimeErrors (ValueErrors as well)
            wp.copy(dst, src, **kwargs)
    grid = wp.array(np.arange(16, dtype=np.float32).reshape(4, 4))[::2, ::2]
    with pytest.raises(RuntimeError, match="only supported for 1-D"):
        wp.copy(wp.zeros_like(grid), grid, count=2)
    with pytest.raises(RuntimeError, match=r"destination dtype=float64, source dtype=float32"):
        wp.copy(wp.zeros(4, dtype=wp.float64), wp.zeros(4))


def test_numpy_sharing_both_ways():
    src = np.arange(6, dtype=np.float32)
    alias = wp.array(src, copy=False)
    src[0] = 42.0
    assert alias.numpy()[0] == 42.0
    copied = wp.array(src)
    src[1] = -1.0
    assert copied.numpy()[1] == 1.0
    a = wp.zeros(4)
    view = np.asarray(a)  # __array_interface__: no copy
    view[2] = 5.0
    assert a.numpy()[2] == 5.0 and a.__array_interface__["data"][0] == a.ptr


def test_views_are_strided_and_share_memory():
    a = wp.array(np.arange(20, dtype=np.float32).reshape(4, 5))
    col = a[:, 1]
    assert col.shape == (4,) and col.strides == (20,) and not col.is_contiguous
    assert col.numpy().tolist() == [1, 6, 11, 16]
    row = a[2]
    assert row.shape == (5,) and row.numpy().tolist() == [10, 11, 12, 13, 14]
    step = a.flatten()[::3]
    assert step.numpy().tolist() == list(range(0, 20, 3))
    col.fill_(-1.0)
    assert (a.numpy()[:, 1] == -1).all()
    assert a[1:3].shape == (2, 5) and a[-1].numpy()[0] == 15.0
    assert a.transpose().shape == (5, 4) and a.transpose().numpy()[1, 2] == a.numpy()[2, 1]
    assert a.reshape((5, 4)).shape == (5, 4) and a.reshape(-1).shape == (20,)


def test_element_access_from_python_is_refused_with_guidance():
    a = wp.zeros(4)
    with pytest.raises(TypeError) as info:
        a[0] = 1.0
    for words in ("wp.full", "fill_", "assign", "numpy"):
        assert words in str(info.value)
    with pytest.raises(TypeError, match="a.numpy"):
        a[1]


def test_assign_and_fill():
    a = wp.zeros(3, dtype=wp.vec3)
    a.fill_(wp.vec3(1.0, 2.0, 3.0))
    assert a.numpy().tolist() == [[1, 2, 3]] * 3
    a.assign(np.arange(9).reshape(3, 3))
    assert a.numpy()[2].tolist() == [6, 7, 8]
    a.zero_()
    assert not a.numpy().any()
    with pytest.raises(ValueError, match="cannot assign 4 values"):
        a.assign([1, 2, 3, 4])


def test_annotations():
    assert wp.array(dtype=float) == wp.array(dtype=wp.float32, ndim=1)
    assert wp.array2d(dtype=wp.vec3).ndim == 2
    assert wp.array[float].dtype is wp.float32
    assert wp.array3d(dtype=int).type_name() == "array(dtype=int32, ndim=3)"


@pytest.mark.parametrize("make, error", [
    (lambda: wp.zeros((2, 2, 2, 2, 2)), ValueError),
    (lambda: wp.zeros(-1), ValueError),
    (lambda: wp.array(np.zeros(5), dtype=wp.vec3), ValueError),
    (lambda: wp.zeros(3, dtype=list), TypeError),
    (lambda: wp.zeros(3, device="cuda"), wp.DeviceError),
    (lambda: wp.zeros(3, device="gpu7"), wp.DeviceError),
    (lambda: wp.zeros(4).reshape((3, 3)), ValueError),
    (lambda: wp.zeros(4).view(wp.float64), TypeError),
])
def test_bad_input_raises_clearly(make, error):
    with pytest.raises(error):
        make()


def test_five_dimensions_are_refused_with_warps_runtime_error():
    # Warp raises a RuntimeError; warp_nb raised a ValueError only (utils_against_warp found it)
    for make in (lambda: wp.zeros((1, 1, 1, 1, 2)), lambda: wp.empty((1, 1, 1, 1, 2)),
                 lambda: wp.array(np.zeros((1, 1, 1, 1, 2)), dtype=wp.float32)):
        with pytest.raises(RuntimeError, match=r"shape \(1, 1, 1, 1, 2\), the maximum number of dimensions is 4"):
            make()


def test_grad_arrays():
    a = wp.zeros(3, dtype=wp.vec3, requires_grad=True)
    assert a.grad is not None and a.grad.shape == (3,) and a.grad.dtype is wp.vec3
    assert a._desc[1] == a.grad.ptr  # the kernel-side descriptor carries the gradient pointer
    assert a[1:].grad.shape == (2,)


def test_views_as_other_element_types():
    data = np.arange(16, dtype=np.float32)
    flat = wp.array(data)
    vectors = flat.reshape((4, 4)).view(wp.vec4)  # the last dimension becomes the components
    assert vectors.shape == (4,) and vectors.dtype is wp.vec4
    np.testing.assert_array_equal(vectors.numpy(), data.reshape(4, 4))
    back = vectors.view(wp.float32)
    assert back.shape == (4, 4)
    np.testing.assert_array_equal(flat.view(wp.uint32).numpy(), data.view(np.uint32))
    with pytest.raises(TypeError, match="source dtype has size 4 bytes, but target dtype has size 2 bytes"):
        flat.view(wp.uint16)
    with pytest.raises(TypeError, match="source scalar dtype float32 has size 4 bytes"):
        vectors.view(wp.float64)


def test_retain_grad_needs_requires_grad():
    with pytest.raises(ValueError):
        wp.zeros(3, retain_grad=True)
    a = wp.zeros(3, requires_grad=True, retain_grad=True)
    a.requires_grad = False
    assert not a.retain_grad


def test_rows_of_several_vectors():
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    a = wp.array(data, dtype=wp.vec3)  # each row holds two vectors, as Warp reads it
    assert a.shape == (4, 2)
    np.testing.assert_array_equal(a.numpy(), data.reshape(4, 2, 3))


def test_strides_after_a_zero_dimension_are_zero():
    view = np.asarray(wp.zeros((1, 0), dtype=wp.vec2))  # Warp's layout: (0, 8, 4)
    assert view.shape == (1, 0, 2) and view.strides == (0, 8, 4)


def test_full_infers_vectors_and_matrices_from_values():
    v = wp.full(3, np.array([1.5, 2.5], dtype=np.float64))
    assert wp.types.types_equal(v.dtype, wp.vec2d) and v.dtype._wp_generic_type_str_ == "vec_t"
    np.testing.assert_array_equal(v.numpy(), np.tile([1.5, 2.5], (3, 1)))
    m = wp.full(2, [[1.0, 2.0], [3.0, 4.0]])
    assert m.dtype._wp_generic_type_str_ == "mat_t" and m.numpy().shape == (2, 2, 2)


def test_chained_subscripts_read_and_write_one_element():
    """a[i][j][k] is a[i, j, k], for reading and for storing (as in Warp)."""

    @wp.kernel(module="unique")
    def chained(a: wp.array3d(dtype=int)):
        i, j, k = wp.tid()
        a[i][j][k] = a[i][j][k] * 2 + a[i, j][k]

    data = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    a = wp.array(data, dtype=int)
    wp.launch(chained, (2, 3, 4), inputs=[a])
    np.testing.assert_array_equal(a.numpy(), data * 3)


def test_rows_that_split_vectors_are_refused():
    """12 floats in rows of 4 are not vec3s (Warp refuses it too); a flat run of 12 is 4 of them."""
    with pytest.raises(ValueError, match="inner dimensions of the input data are not compatible"):
        wp.array(np.zeros((3, 4), dtype=np.float32), dtype=wp.vec3)
    assert wp.array(np.arange(12, dtype=np.float32), dtype=wp.vec3).shape == (4,)


def test_view_between_scalars_and_one_component_types():
    a = wp.array(np.arange(7.0), dtype=wp.float64)
    m = a.view(wp.types.matrix((1, 1), wp.float64))
    assert m.shape == (7,)
    np.testing.assert_array_equal(m.numpy().ravel(), np.arange(7.0))
    assert m.view(wp.float64).shape == (7,)


def test_an_array_from_a_shape_or_pointer_needs_a_dtype():
    """As in Warp: wp.array(shape=...) or wp.array(ptr=...) without a dtype is a TypeError, not a
    float32 array; the allocating functions keep their float32 default, and data gives its own."""
    with pytest.raises(TypeError, match="A concrete type is required"):
        wp.array(shape=10)
    with pytest.raises(TypeError, match="A concrete type is required"):
        wp.array(ptr=wp.zeros(4).ptr, shape=(4,))
    assert wp.array(shape=10, dtype=wp.vec3).shape == (10,)
    assert wp.zeros(3).dtype is wp.float32 and wp.empty(3).dtype is wp.float32
    assert wp.array(np.arange(3, dtype=np.int16)).dtype is wp.int16


# (data shape, dtype, the array shape warp-lang 1.19 gives, or None: refused)
_WHOLE_ELEMENTS = [
    ((4, 3, 1), wp.vec3, (4,)), ((6, 1), wp.vec3, (2,)), ((2, 6, 1), wp.vec3, (2, 2)), ((3, 1, 1, 1), wp.vec3, (1,)),
    ((4, 1, 3), wp.vec3, (4, 1)), ((2, 1, 6), wp.vec3, (2, 1, 2)), ((9,), wp.vec3, (3,)), ((3,), wp.vec3, (1,)),
    ((4, 3, 2), wp.vec3, None), ((2, 3, 2, 1), wp.vec3, None),
    ((4, 3, 3, 1), wp.mat33, (4,)), ((4, 9), wp.mat33, (4,)), ((4, 1, 9), wp.mat33, (4, 1)),
    ((4, 18, 1), wp.mat33, (4, 2)), ((9, 1), wp.mat33, (1,)), ((4, 3, 6), wp.mat33, None),
    ((4, 2, 1, 2), wp.mat22, None), ((4, 1), wp.float32, (4, 1)),
]


@pytest.mark.parametrize("shape, dtype, expected", _WHOLE_ELEMENTS)
def test_data_is_read_as_whole_vector_and_matrix_elements_as_warp_reads_it(shape, dtype, expected):
    data = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    if expected is None:
        with pytest.raises(ValueError, match="do not hold whole elements"):
            wp.array(data, dtype=dtype, device="cpu")
        return
    a = wp.array(data, dtype=dtype, device="cpu")
    assert a.shape == expected
    np.testing.assert_array_equal(a.numpy().ravel(), data.ravel())  # the values in their order


def test_ndim_may_be_set_where_it_agrees_with_the_shape():
    a = wp.zeros((2, 3), device="cpu")
    a.ndim = 2
    with pytest.raises(AttributeError, match="shape"):
        a.ndim = 1
    bare = wp.array.__new__(wp.array)  # no shape yet: accepted, as Warp's attribute
    bare.ndim = 1
