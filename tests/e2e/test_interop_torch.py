"""PyTorch on the CPU: zero-copy both ways for every dtype both share (written through one side,
read through the other), gradients that alias, a torch.autograd.Function over a launch and a
Tape checked by torch.autograd.gradcheck, and clear errors at the boundary. Skips when torch is
not installed (.ci/run installs the CPU build)."""

import numpy as np
import pytest

import warp_nb as wp

torch = pytest.importorskip("torch", reason="torch is not installed (optional interop; .ci/run installs a CPU build)")

pytestmark = pytest.mark.needs_cxx

# torch dtype -> the warp_nb type it shares memory as (unsigned wider types map to signed, as Warp)
SHARED = [(torch.float16, wp.float16), (torch.bfloat16, wp.bfloat16), (torch.float32, wp.float32),
          (torch.float64, wp.float64), (torch.int8, wp.int8), (torch.int16, wp.int16), (torch.int32, wp.int32),
          (torch.int64, wp.int64), (torch.uint8, wp.uint8), (torch.bool, wp.bool)]


def _values(torch_dtype, n, rng):
    if torch_dtype == torch.bool:
        return torch.from_numpy(rng.integers(0, 2, n).astype(bool))
    if torch_dtype.is_floating_point:
        return torch.from_numpy(rng.integers(-50, 50, n).astype(np.float32)).to(torch_dtype)
    return torch.from_numpy(rng.integers(0, 100, n)).to(torch_dtype)


@pytest.mark.parametrize("torch_dtype, warp_dtype", SHARED, ids=[str(t) for t, _ in SHARED])
def test_from_torch_shares_memory_for_every_dtype(torch_dtype, warp_dtype):
    rng = np.random.default_rng(1)
    t = _values(torch_dtype, 7, rng)
    a = wp.from_torch(t)
    assert a.dtype is warp_dtype and a.ptr == t.data_ptr() and a.shape == (7,)
    # write through torch, read through warp: the same bytes
    t.copy_(_values(torch_dtype, 7, rng))
    assert a.numpy().tobytes() == t.view(torch.uint8).numpy().tobytes()
    # write through warp, read through torch
    src = wp.from_torch(_values(torch_dtype, 7, rng))
    wp.copy(a, src)
    assert torch.equal(t, wp.to_torch(src))


@pytest.mark.parametrize("torch_dtype, warp_dtype", SHARED, ids=[str(t) for t, _ in SHARED])
def test_to_torch_shares_memory_for_every_dtype(torch_dtype, warp_dtype):
    rng = np.random.default_rng(2)
    a = wp.zeros(5, dtype=warp_dtype)
    t = wp.to_torch(a)
    assert t.dtype == torch_dtype and t.data_ptr() == a.ptr
    values = _values(torch_dtype, 5, rng)
    t.copy_(values)  # written through torch ...
    back = wp.to_torch(wp.clone(a))  # ... read through a warp_nb copy of the array
    assert torch.equal(back, values)


@pytest.mark.parametrize("warp_dtype, torch_dtype", [(wp.uint16, torch.int16), (wp.uint32, torch.int32),
                                                      (wp.uint64, torch.int64)])
def test_unsigned_arrays_are_shared_as_the_signed_torch_type(warp_dtype, torch_dtype):
    a = wp.array(np.array([1, 2, 2 ** 15 - 1], dtype=np.dtype(warp_dtype._np)), dtype=warp_dtype)
    t = wp.to_torch(a)
    assert t.dtype == torch_dtype and t.tolist() == a.numpy().astype(np.int64).tolist()
    assert wp.from_torch(t, dtype=warp_dtype).ptr == a.ptr


@wp.kernel
def _scale_rows(x: wp.array2d(dtype=float), s: float, y: wp.array2d(dtype=float)):
    i, j = wp.tid()
    y[i, j] = x[i, j] * s


def test_strided_views_and_vectors_without_copies():
    base = torch.arange(60, dtype=torch.float32).reshape(6, 10)
    view = base[1:5:2, 3:9]  # non-contiguous in both dimensions
    a = wp.from_torch(view)
    assert a.ptr == view.data_ptr() and not a.is_contiguous
    out = torch.zeros(view.shape)
    wp.launch(_scale_rows, dim=a.shape, inputs=[a, 3.0, wp.from_torch(out)])
    np.testing.assert_array_equal(out.numpy(), 3.0 * view.numpy())
    # trailing (3,) becomes a vec3 element; the tensor is passed to launch directly, no wrapper
    points = torch.arange(12, dtype=torch.float32).reshape(4, 3)
    v = wp.from_torch(points, dtype=wp.vec3)
    assert v.shape == (4,) and v.dtype is wp.vec3
    v.fill_(wp.vec3(1.0, 2.0, 3.0))
    assert points.tolist() == [[1.0, 2.0, 3.0]] * 4


def test_grad_aliases_both_ways():
    t = torch.zeros(4, dtype=torch.float64, requires_grad=True)
    a = wp.from_torch(t)
    assert a.requires_grad and a.grad is not None and a.grad.ptr == t.grad.data_ptr()
    a.grad.fill_(2.5)
    assert t.grad.tolist() == [2.5] * 4
    b = wp.zeros(3, dtype=wp.float32, requires_grad=True)
    tb = wp.to_torch(b)
    assert tb.requires_grad and tb.grad.data_ptr() == b.grad.ptr
    tb.grad.fill_(-1.0)
    assert b.grad.numpy().tolist() == [-1.0] * 3


@wp.kernel
def _poly(x: wp.array(dtype=wp.float64), w: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = wp.sin(x[i]) * x[i] * x[i] + w[i] * wp.exp(x[i] * wp.float64(0.3))


class _PolyFunction(torch.autograd.Function):
    """y = sin(x) x^2 + w exp(0.3 x), forward by a warp_nb launch on a Tape, backward by the Tape."""

    @staticmethod
    def forward(ctx, x, w):
        xa, wa = wp.from_torch(x.detach(), requires_grad=True), wp.from_torch(w.detach(), requires_grad=True)
        ya = wp.zeros(x.shape[0], dtype=wp.float64, requires_grad=True)
        tape = wp.Tape()
        with tape:
            wp.launch(_poly, dim=x.shape[0], inputs=[xa, wa], outputs=[ya])
        ctx.tape, ctx.arrays = tape, (xa, wa, ya)
        return wp.to_torch(ya, requires_grad=False).clone()

    @staticmethod
    def backward(ctx, adj_y):
        xa, wa, ya = ctx.arrays
        ctx.tape.backward(grads={ya: wp.from_torch(adj_y.contiguous())})
        grads = wp.to_torch(xa.grad).clone(), wp.to_torch(wa.grad).clone()
        ctx.tape.zero()
        return grads


def test_autograd_function_over_a_tape_passes_gradcheck():
    gen = torch.Generator().manual_seed(3)
    x = torch.rand(9, dtype=torch.float64, generator=gen, requires_grad=True)
    w = torch.rand(9, dtype=torch.float64, generator=gen, requires_grad=True)
    assert torch.autograd.gradcheck(_PolyFunction.apply, (x, w), eps=1e-6, atol=1e-6)
    # and the values are torch's own formula
    expected = torch.sin(x) * x * x + w * torch.exp(0.3 * x)
    torch.testing.assert_close(_PolyFunction.apply(x, w), expected)


def test_explicit_adjoint_launch_with_an_expanded_gradient():
    """torch hands backward() a stride-0 tensor for sum(); explicit adjoints are read, not consumed."""
    x = torch.linspace(-1, 1, 6, dtype=torch.float64)
    y = torch.empty_like(x)
    adj_x = torch.zeros_like(x)
    adj_y = torch.ones((), dtype=torch.float64).expand(6)
    wp.launch(_poly, dim=6, inputs=[x, torch.ones_like(x)], outputs=[y], adj_inputs=[adj_x, None],
              adj_outputs=[adj_y], adjoint=True)
    xr = x.clone().requires_grad_(True)
    (torch.sin(xr) * xr * xr + torch.exp(0.3 * xr)).sum().backward()
    torch.testing.assert_close(adj_x, xr.grad)
    assert adj_y.tolist() == [1.0] * 6


def test_bad_input_names_the_fix():
    with pytest.raises(RuntimeError, match="Incompatible data types: Torch float32 and Warp float64"):
        wp.from_torch(torch.zeros(3), dtype=wp.float64)
    with pytest.raises(TypeError, match=r"last dimensions must be \(3,\)"):
        wp.from_torch(torch.zeros(4, 2), dtype=wp.vec3)
    with pytest.raises(TypeError, match=r"not contiguous.*\.contiguous\(\)"):
        wp.from_torch(torch.zeros(3, 4).t(), dtype=wp.vec3)
    with pytest.raises(TypeError, match="move it to the CPU"):
        wp.from_torch(torch.zeros(3, device="meta"))
    with pytest.raises(TypeError, match="argument `y`"):
        wp.launch(_poly, dim=3, inputs=[torch.zeros(3, dtype=torch.float64)] * 2, outputs=[torch.zeros(3)])
    with pytest.raises(TypeError, match="expects a torch.Tensor"):
        wp.from_torch(np.zeros(3))
    if not wp.is_cuda_available():
        with pytest.raises(wp.DeviceError, match="no NVIDIA GPU"):
            wp.device_from_torch("cuda:0")


@wp.kernel
def _square(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    y[i] = x[i] * x[i]


def test_a_sliced_tensor_gets_a_gradient_laid_out_like_it():
    base = torch.arange(12.0, dtype=torch.float64).reshape(4, 3)
    x = base[:, 1]  # stride 3: the kernel reads its gradient with the same stride
    xa = wp.from_torch(x, requires_grad=True)
    assert x.grad.stride() == x.stride() and xa.grad.strides == xa.strides
    ya = wp.zeros(4, dtype=wp.float64, requires_grad=True)
    tape = wp.Tape()
    with tape:
        wp.launch(_square, dim=4, inputs=[xa], outputs=[ya])
    tape.backward(grads={ya: wp.array(np.ones(4))})
    torch.testing.assert_close(x.grad, 2 * x)
