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


# --- found by tests/fuzz/arrays_against_warp.py: warp_nb did otherwise than warp-lang 1.19 ---------


def test_index_errors_are_also_runtime_errors_as_in_warp():
    a = wp.zeros((3, 4))
    for key, also in (((1, 2), TypeError), ((5, slice(None)), IndexError), (-4, IndexError), (Ellipsis, TypeError),
                      (None, TypeError), ((0, 0, None), TypeError), ((0, 0, 0), IndexError)):
        with pytest.raises(RuntimeError) as info:  # Warp: RuntimeError ("Invalid index", "Item indexing ...")
            a[key]
        assert isinstance(info.value, also)


def test_data_errors_are_also_runtime_errors_as_in_warp():
    for make in (lambda: wp.array(np.zeros(5), dtype=float, shape=(2, 3)), lambda: wp.array([-1, 300], dtype=wp.uint8),
                 lambda: wp.array([[1.0, 2.0], [3.0]], dtype=float), lambda: wp.zeros((1, 1, 1, 1, 1)),
                 lambda: wp.array(np.zeros((4, 4)), dtype=wp.vec3), lambda: wp.zeros(6).reshape((1, 1, 1, 2, 3))):
        with pytest.raises(RuntimeError):
            make()


def test_a_number_is_not_array_data_as_in_warp():
    for data in (3.0, 3, np.float32(3.0), wp.float32(3.0)):
        with pytest.raises(RuntimeError, match="Data must be a sequence or array"):
            wp.array(data, dtype=wp.float32)
    with pytest.raises(RuntimeError, match="Data must be a sequence or array"):
        wp.zeros(3).assign(2.0)
    assert wp.array(np.array(3.0)).shape == (1,)  # a 0-d numpy array is data (as in Warp)


def test_wp_scalar_objects_need_a_dtype_as_in_warp():
    with pytest.raises(RuntimeError, match="Unsupported input data dtype: object"):
        wp.array([wp.int32(1), wp.int32(2)])  # (they used to become float64)
    assert wp.array([wp.int32(1), wp.int32(2)], dtype=wp.int32).numpy().tolist() == [1, 2]


def test_from_numpy_reads_rows_as_vectors_and_matrices_as_warp():
    v = wp.from_numpy(np.arange(12, dtype=np.float32).reshape(4, 3))
    assert v.shape == (4,) and wp.types.types_equal(v.dtype, wp.vec3f)
    m = wp.from_numpy(np.zeros((2, 3, 3)))
    assert m.shape == (2,) and wp.types.types_equal(m.dtype, wp.mat33d)
    assert wp.from_numpy(np.zeros(3)).dtype is wp.float64 and wp.from_numpy(np.zeros((1, 2, 3, 4))).ndim == 4
    assert wp.from_numpy(np.zeros((4, 3)), dtype=wp.float32).shape == (4, 3)
    with pytest.raises(RuntimeError):  # the shape does not change the dtype: 6 values are 2 vec3s
        wp.from_numpy(np.zeros((2, 3)), shape=(6,))
    with pytest.raises(TypeError, match="no components"):
        wp.from_numpy(np.zeros((3, 0)))


def test_views_need_gradients_where_their_array_does_as_in_warp():
    g = wp.zeros((4, 3), requires_grad=True)
    for view in (g[1], g[:, 1], g.reshape(12), g.transpose(), g.flatten(), g.view(wp.int32), g.view(wp.vec3)):
        assert view.requires_grad and view.grad is not None and view.grad.shape == view.shape
    assert wp.clone(g.transpose()).requires_grad and wp.zeros_like(g[:, 1]).requires_grad


def test_the_gradient_of_a_strided_view_has_its_strides():
    """A kernel indexes data and gradient with one set of strides: a strided view's gradient must be
    laid out as the view (as Warp allocates it), or the backward pass writes past a smaller buffer."""

    @wp.kernel(module="unique")
    def twice_second_column(x: wp.array2d(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = 2.0 * x[i, 1]

    x = wp.array(np.arange(16, dtype=np.float32).reshape(4, 4))[:, ::2]
    x.requires_grad = True
    assert x.grad.strides == x.strides == (16, 8) and x.grad.capacity == 60  # (3 * 16 + 1 * 8 + 4, as Warp)
    y = wp.zeros(4, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(twice_second_column, dim=4, inputs=[x, y])
    tape.backward(grads={y: wp.ones(4)})
    np.testing.assert_array_equal(x.grad.numpy(), [[0.0, 2.0]] * 4)


def test_capacity_of_a_view_is_warps():
    a = wp.zeros((4, 3))
    assert a[:, 1].capacity == 48 and a[1:3].capacity == 24 and a.transpose().capacity == 12
    assert wp.zeros((6, 4, 2))[:, 1:1].capacity == 192  # (the first dimension's extent, though empty)
    assert wp.zeros((2, 0, 3)).transpose().capacity == 0  # (a view of no memory)
    assert wp.array(ptr=a.ptr, shape=(3, 4), strides=(4, 12), dtype=wp.float32).capacity == 12


def test_reshape_and_flatten_keep_sharing_memory_as_in_warp():
    t = wp.zeros((4, 3)).transpose()
    with pytest.raises(RuntimeError, match="Reshaping non-contiguous arrays is unsupported"):
        t.reshape(12)  # (it used to return a copy, which writes do not reach)
    with pytest.raises(RuntimeError, match="Flattening non-contiguous arrays is unsupported"):
        t.flatten()
    strided = wp.zeros(6)[::2]
    assert strided.flatten() is strided  # a 1-D array is flat already (Warp: itself)
    with pytest.raises(RuntimeError, match="more than one index is -1"):
        wp.zeros(6).reshape((-1, -1))


def test_transpose_checks_its_axes():
    a = wp.zeros((4, 3))
    with pytest.raises(RuntimeError, match="Length of parameter axes"):
        a.transpose([0])  # (it used to return a 1-D view)
    assert a.transpose([-1, 0]).shape == (3, 4)
    b = wp.zeros(3)
    assert b.transpose() is b


def test_views_of_elements_of_one_size_keep_the_shape_as_in_warp():
    assert wp.zeros(4, dtype=wp.vec2h).view(wp.float32).shape == (4,)
    assert wp.zeros(4, dtype=wp.vec2)[::2].view(wp.float64).shape == (2,)
    with pytest.raises(RuntimeError, match="does not end in the components"):
        wp.zeros((4, 3)).view(wp.vec2)


def test_fill_converts_values_as_warp():
    assert wp.full(2, -1, dtype=wp.uint32).numpy().tolist() == [2**32 - 1] * 2  # low bits kept
    assert wp.full(1, 200, dtype=wp.int8).numpy().tolist() == [-56]
    for value in (2.5, 2.0, np.float32(2.0)):
        with pytest.raises(ValueError, match="not floats"):
            wp.full(2, value, dtype=wp.int32)  # (it used to truncate)
    assert wp.full(2, [3.0], dtype=wp.vec2).numpy().tolist() == [[3.0, 3.0]] * 2  # one value for all
    with pytest.raises(ValueError, match="takes its rows or its 4 components"):
        wp.full(1, [1.0, 2.0], dtype=wp.mat22)  # (it used to repeat the row)
    with pytest.raises(ValueError, match="not a number"):
        wp.zeros(2).fill_("1")


def test_assign_is_a_copy_as_in_warp():
    a = wp.zeros(4)
    a.assign(np.ones(2))  # fewer values fill the first elements
    assert a.numpy().tolist() == [1.0, 1.0, 0.0, 0.0]
    a.assign(wp.full(4, 3, dtype=wp.int32))  # an array's bytes, as wp.copy moves them
    assert a.view(wp.int32).numpy().tolist() == [3] * 4
    with pytest.raises(RuntimeError, match="same size"):
        a.assign(wp.ones(4, dtype=wp.float64))
    with pytest.raises(RuntimeError, match="same shape"):
        wp.zeros((4, 4))[:, ::2].assign(np.ones(8))
    with pytest.raises(TypeError, match="None"):
        a.assign(None)


def test_copy_between_element_types_of_one_size():
    dest = wp.zeros(2, dtype=wp.int64)
    wp.copy(dest, wp.ones(2, dtype=wp.mat22h))  # (numpy refused to view the halves as int64)
    assert dest.numpy().tobytes() == np.ones((2, 2, 2), np.float16).tobytes()


def test_copy_of_nothing_checks_nothing_and_an_offset_past_the_end_is_refused():
    wp.copy(wp.zeros(3, dtype=wp.vec4), wp.zeros(0, dtype=wp.int8))  # as Warp: nothing to copy
    with pytest.raises(RuntimeError, match="past the end of the source"):
        wp.copy(wp.zeros(3), wp.ones(3), src_offset=4)  # (it used to copy nothing, silently)


def test_assign_reads_data_as_wp_array_reads_it():
    """Rows of 3 values do not hold 9-vectors, whatever the total count (seed 25 of the tool)."""
    a = wp.zeros(2, dtype=wp.types.vector(9, wp.float64))
    with pytest.raises(RuntimeError, match="do not hold whole elements"):
        a.assign(np.zeros((2, 3, 3)))
    a.assign(np.arange(18.0).reshape(2, 9))
    assert a.numpy()[1, 8] == 17.0
    b = wp.zeros(16)
    b.assign(np.ones((1, 1, 2, 2, 2)))  # more dimensions than an array has: copied flat (seed 29)
    assert b.numpy().sum() == 8.0


def test_copy_between_strided_arrays_takes_a_count_of_the_whole_array():
    """As Warp: a count equal to both sizes, without offsets, is a whole copy (seed 45 of the tool)."""
    dest = wp.zeros((8, 2))[::2]
    wp.copy(dest, wp.ones((4, 2)), count=8)
    assert dest.numpy().sum() == 8.0
    with pytest.raises(RuntimeError, match="only supported for 1-D"):
        wp.copy(dest, wp.ones((4, 2)), count=4)


def test_bool_is_not_the_scalar_of_a_vector_view_as_in_warp():
    """vec4ub as bool, or bool rows as vec4ub, is refused as Warp refuses it (seed 59 of the tool)."""
    with pytest.raises(TypeError, match="source dtype has size 4 bytes"):
        wp.zeros(3, dtype=wp.vec4ub).view(wp.bool)
    with pytest.raises(TypeError, match="source dtype has size 1 bytes"):
        wp.zeros((3, 4), dtype=wp.bool).view(wp.vec4ub)
    assert wp.zeros(3, dtype=wp.vec4ub).view(wp.uint8).shape == (3, 4) and wp.zeros(3, dtype=wp.bool).view(wp.uint8)


def test_data_with_a_shape_leaving_one_length_as_minus_one():
    # as Warp 1.19 (probed): the -1 length is what the data leaves, counted in elements
    a = wp.array(np.arange(6, dtype=np.float64), dtype=wp.float32, shape=(2, -1))
    assert a.shape == (2, 3) and a.numpy().tolist() == [[0, 1, 2], [3, 4, 5]]
    assert wp.array(np.arange(6, dtype=np.float32), dtype=wp.vec3, shape=(-1,)).shape == (2,)
    with pytest.raises(ValueError, match="does not fit shape"):
        wp.array(np.arange(6, dtype=np.float32), dtype=wp.float32, shape=(4, -1))
