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
    with pytest.raises(ValueError, match="out of bounds"):
        wp.copy(d, a, dest_offset=9, count=3)


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


def test_grad_arrays():
    a = wp.zeros(3, dtype=wp.vec3, requires_grad=True)
    assert a.grad is not None and a.grad.shape == (3,) and a.grad.dtype is wp.vec3
    assert a._desc[1] == a.grad.ptr  # the kernel-side descriptor carries the gradient pointer
    assert a[1:].grad.shape == (2,)


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
