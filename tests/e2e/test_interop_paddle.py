"""PaddlePaddle on the CPU: zero-copy both ways for every dtype both share (written through one
side, read through the other), gradients that alias both ways, a PyLayer over a launch and its
adjoint, and clear errors at the boundary. Skips when Paddle is not installed (.ci/run installs
the CPU build)."""

import numpy as np
import pytest

import warp_nb as wp

paddle = pytest.importorskip("paddle", reason="paddle is not installed (optional interop; .ci/run installs it)")

pytestmark = pytest.mark.needs_cxx

SHARED = [(paddle.float16, wp.float16), (paddle.float32, wp.float32), (paddle.float64, wp.float64),
          (paddle.int8, wp.int8), (paddle.int16, wp.int16), (paddle.int32, wp.int32), (paddle.int64, wp.int64),
          (paddle.uint8, wp.uint8), (paddle.bool, wp.bool)]


@wp.kernel
def _double(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = 2.0 * x[i] * x[i]


@wp.kernel
def _add_one_2d(a: wp.array2d(dtype=float)):
    i, j = wp.tid()
    a[i, j] = a[i, j] + 1.0


@pytest.mark.parametrize("paddle_dtype, warp_dtype", SHARED, ids=[str(t) for t, _ in SHARED])
def test_from_paddle_shares_memory_for_every_dtype(paddle_dtype, warp_dtype):
    t = paddle.to_tensor(np.arange(6) % 2 if warp_dtype is wp.bool else np.arange(6)).astype(paddle_dtype)
    a = wp.from_paddle(t)
    assert a.dtype is warp_dtype and a.shape == (6,) and a.ptr == t.data_ptr()
    assert wp.dtype_from_paddle(paddle_dtype) is warp_dtype and wp.dtype_to_paddle(warp_dtype) == paddle_dtype
    np.testing.assert_array_equal(a.numpy(), t.numpy())
    a.fill_(1)  # written through warp_nb, read through Paddle
    np.testing.assert_array_equal(t.numpy(), np.ones(6, dtype=t.numpy().dtype))


@pytest.mark.parametrize("paddle_dtype, warp_dtype", SHARED, ids=[str(t) for t, _ in SHARED])
def test_to_paddle_shares_memory_for_every_dtype(paddle_dtype, warp_dtype):
    a = wp.zeros(5, dtype=warp_dtype)
    t = wp.to_paddle(a)
    assert t.dtype == paddle_dtype and list(t.shape) == [5] and t.data_ptr() == a.ptr
    a.fill_(1)
    np.testing.assert_array_equal(t.numpy(), np.ones(5, dtype=t.numpy().dtype))


@pytest.mark.parametrize("warp_dtype, paddle_dtype", [(wp.uint16, "int16"), (wp.uint32, "int32"), (wp.uint64, "int64")])
def test_unsigned_arrays_are_shared_as_the_signed_paddle_type(warp_dtype, paddle_dtype):
    # (through DLPack alone a uint16 array would come out as paddle.uint16, Paddle's bfloat16)
    a = wp.array(np.array([[1, 2, 3], [4, 5, 6]]), dtype=warp_dtype)
    t = wp.to_paddle(a[:, 1:])
    assert t.dtype == getattr(paddle, paddle_dtype) and t.data_ptr() == a.ptr + a.strides[1]
    np.testing.assert_array_equal(t.numpy(), [[2, 3], [5, 6]])


def test_strided_views_and_vectors_without_copies():
    base = paddle.arange(24, dtype="float32").reshape([4, 6])
    s = base[1:, ::2]
    a = wp.from_paddle(s)
    assert a.ptr == s.data_ptr() and a.shape == (3, 3) and a.strides == (24, 8)
    wp.launch(_add_one_2d, dim=a.shape, inputs=[a])
    expected = np.arange(24, dtype=np.float32).reshape(4, 6)
    expected[1:, ::2] += 1.0
    np.testing.assert_array_equal(base.numpy(), expected)
    v = wp.from_paddle(paddle.arange(12, dtype="float32").reshape([4, 3]), dtype=wp.vec3)
    assert v.dtype is wp.vec3 and v.shape == (4,)
    np.testing.assert_array_equal(v.numpy()[2], [6.0, 7.0, 8.0])
    m = wp.to_paddle(wp.zeros(2, dtype=wp.mat33))
    assert list(m.shape) == [2, 3, 3] and m.dtype == paddle.float32


def test_gradients_alias_both_ways():
    # from Paddle: a tensor in autograd brings its gradient; a Tape's backward writes into it
    x = paddle.to_tensor([1.0, 2.0, 3.0])
    x.stop_gradient = False
    xa = wp.from_paddle(x)
    assert xa.requires_grad and xa.grad.ptr == x.grad.data_ptr()
    y = wp.zeros(3, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_double, dim=3, inputs=[xa, y])
    tape.backward(grads={y: wp.ones(3)})
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0, 12.0])  # d(2x^2)/dx
    # to Paddle: the tensor's gradient buffer is the array's; Paddle's backward accumulates into it
    a = wp.array([1.0, 2.0], dtype=float, requires_grad=True)
    t = wp.to_paddle(a)
    assert not t.stop_gradient and t.grad.data_ptr() == a.grad.ptr
    (t * t).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 4.0])
    assert not wp.from_paddle(paddle.ones([3]), requires_grad=False).requires_grad


def test_a_pylayer_over_a_launch_and_its_adjoint():
    class Double(paddle.autograd.PyLayer):
        @staticmethod
        def forward(ctx, x):
            y = paddle.empty_like(x)
            ctx.x, ctx.y = x, y
            wp.launch(_double, dim=x.shape[0], inputs=[wp.from_paddle(x)], outputs=[wp.from_paddle(y)])
            return y

        @staticmethod
        def backward(ctx, adj_y):
            adj_x = paddle.zeros_like(ctx.x)
            wp.launch(_double, dim=ctx.x.shape[0], inputs=[wp.from_paddle(ctx.x, grad=adj_x)],
                      outputs=[wp.from_paddle(ctx.y, grad=adj_y.contiguous())], adj_inputs=[None], adj_outputs=[None],
                      adjoint=True)
            return adj_x

    x = paddle.to_tensor([0.5, -1.0, 2.0])
    x.stop_gradient = False
    y = Double.apply(x)
    np.testing.assert_allclose(y.numpy(), [0.5, 2.0, 8.0])
    (y * paddle.to_tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, -8.0, 24.0])  # 4x times the upstream weights


def test_devices():
    assert wp.device_from_paddle("cpu") == wp.get_device("cpu")
    assert wp.device_from_paddle(paddle.CPUPlace()) == wp.get_device("cpu")
    assert wp.device_from_paddle(paddle.zeros([1]).place) == wp.get_device("cpu")
    assert wp.device_to_paddle("cpu") == "cpu"
    with pytest.raises(TypeError, match="no Warp equivalent"):
        wp.device_from_paddle("xpu:0")


def test_bad_input_names_the_problem():
    with pytest.raises(TypeError, match="expects a paddle.Tensor"):
        wp.from_paddle(np.zeros(3))
    with pytest.raises(TypeError, match="expects a wp.array"):
        wp.to_paddle(np.zeros(3))
    with pytest.raises(TypeError, match="complex64"):
        wp.dtype_from_paddle(paddle.complex64)
    with pytest.raises((TypeError, ValueError), match="vec3f"):
        wp.from_paddle(paddle.zeros([4, 2]), dtype=wp.vec3)
    s = paddle.arange(12, dtype="float32").reshape([3, 4])[:, 1]  # a strided tensor: Paddle's gradient is compact
    s.stop_gradient = False
    with pytest.raises(ValueError, match="contiguous"):
        wp.from_paddle(s)
    with pytest.raises(ValueError, match="must match the tensor"):
        wp.from_paddle(paddle.zeros([3]), grad=paddle.zeros([4]))
    with pytest.raises(TypeError, match="floating types only"):
        wp.to_paddle(wp.zeros(3, dtype=wp.int32), requires_grad=True)
