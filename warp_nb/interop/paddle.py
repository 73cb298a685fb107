"""PaddlePaddle <-> warp_nb without copies, with Warp's names: `from_paddle`, `to_paddle`, the
dtype, device and stream conversions. A tensor becomes a view of its memory (strides kept, so
slices need no copy), and a tensor that takes part in autograd (`stop_gradient=False`) brings its
gradient along: the array's `.grad` views the tensor's gradient buffer, so adjoints a Tape writes
land where Paddle reads them. Paddle is imported lazily: warp_nb never needs it unless these are
called.

Paddle's `tensor.grad = g` copies g into the tensor's own gradient buffer, so `to_paddle` gives
the tensor that buffer first and then makes it share the array's gradient memory
(`Tensor._share_buffer_to`, Paddle's own way of aliasing a buffer); that needs a contiguous
gradient. Knows Paddle's Python API only; see docs/compat.md (Interop) for a PyLayer that wraps
a launch and its adjoint."""

from __future__ import annotations

import math

from .. import types as T
from ..arrays.array import array
from ..arrays.dlpack import view_elements
from ..runtime.devices import get_device
from .shared import descriptor, shared_scalar


def _paddle():
    try:
        import paddle
    except ImportError:
        raise ImportError("this needs PaddlePaddle: pip install paddlepaddle (the CPU build is enough)") from None
    return paddle


def _scalar_table(paddle) -> dict:
    # (paddle.uint16 is Paddle's name for bfloat16, not an unsigned integer: left out)
    return {paddle.float16: T.float16, paddle.bfloat16: T.bfloat16, paddle.float32: T.float32,
            paddle.float64: T.float64, paddle.int8: T.int8, paddle.int16: T.int16, paddle.int32: T.int32,
            paddle.int64: T.int64, paddle.uint8: T.uint8, paddle.bool: T.bool}


def dtype_from_paddle(paddle_dtype):
    """The warp_nb scalar type of a Paddle dtype (paddle.float32 -> wp.float32)."""
    paddle = _paddle()
    for p_dtype, wp_dtype in _scalar_table(paddle).items():
        if paddle_dtype == p_dtype:
            return wp_dtype
    raise TypeError(f"cannot convert Paddle dtype {paddle_dtype} to a Warp type; supported are "
                    + ", ".join(str(t) for t in _scalar_table(paddle)))


def dtype_to_paddle(warp_dtype):
    """The Paddle dtype of a warp_nb scalar type. As in Warp, unsigned types wider than 8 bits map
    to the signed Paddle type of the same size."""
    paddle = _paddle()
    signed = shared_scalar(warp_dtype)
    for p_dtype, wp_dtype in _scalar_table(paddle).items():
        if wp_dtype is signed:
            return p_dtype
    raise TypeError(f"cannot convert Warp type {T.type_name(warp_dtype)} to a Paddle dtype")


def device_from_paddle(paddle_device):
    """The warp_nb device of a Paddle device string ('cpu', 'gpu', 'gpu:1') or place
    (paddle.CPUPlace(), paddle.CUDAPlace(1), a tensor's `.place`)."""
    paddle = _paddle()
    if isinstance(paddle_device, str):
        kind, _, index = paddle_device.partition(":")
        if kind == "cpu" and not index:
            return get_device("cpu")
        if kind in ("gpu", "cuda"):
            ordinal = int(index) if index else paddle.device.get_device().partition(":")[2] or 0
            return get_device(f"cuda:{int(ordinal)}")
    elif hasattr(paddle_device, "is_cpu_place"):  # paddle.base.libpaddle.Place, as tensor.place gives
        if paddle_device.is_cpu_place():
            return get_device("cpu")
        if paddle_device.is_gpu_place():
            return get_device(f"cuda:{paddle_device.gpu_device_id()}")
    elif isinstance(paddle_device, paddle.CPUPlace):
        return get_device("cpu")
    elif isinstance(paddle_device, paddle.CUDAPlace):
        return get_device(f"cuda:{paddle_device.get_device_id()}")
    raise TypeError(f"Paddle device {paddle_device!r} has no Warp equivalent: warp_nb runs on 'cpu' and CUDA "
                    f"('gpu:N') devices")


def device_to_paddle(warp_device):
    """The Paddle device string ('cpu', 'gpu:N') of a warp_nb device."""
    dev = get_device(warp_device)
    return "cpu" if dev.is_cpu else f"gpu:{dev.ordinal}"


def stream_from_paddle(stream_or_device=None):
    """The warp_nb Stream of a Paddle CUDA stream (or of a device's current Paddle stream)."""
    paddle = _paddle()
    stream = stream_or_device
    if stream is None or not hasattr(stream, "stream_base"):
        stream = paddle.device.current_stream(stream)
    from ..cuda.streams import Stream
    handle = stream.__cuda_stream__()[1] if hasattr(stream, "__cuda_stream__") else stream.stream_base.cuda_stream
    return Stream(device_from_paddle(stream.device), cuda_stream=int(handle))


def stream_to_paddle(stream_or_device=None):
    """The Paddle stream of a warp_nb stream (or of a CUDA device's current stream). Paddle does not
    own it: the warp_nb stream must outlive it."""
    paddle = _paddle()
    from ..cuda.streams import Stream
    stream = stream_or_device if isinstance(stream_or_device, Stream) else get_device(stream_or_device).stream
    return paddle.device.get_stream_from_external(int(stream.cuda_stream), device_to_paddle(stream.device))


def _view(t, dtype, grad=None, requires_grad=False, retain_grad=False) -> array:
    dev = device_from_paddle(t.place)
    scalar = dtype_from_paddle(t.dtype)
    itemsize = t.element_size()
    strides = tuple(int(s) * itemsize for s in t.strides)
    element, shape, strides = view_elements(scalar, tuple(t.shape), strides, dtype, source_name="Paddle")
    return array(ptr=t.data_ptr(), dtype=element, shape=shape, strides=strides, device=dev, owner=t, grad=grad,
                 requires_grad=requires_grad, retain_grad=retain_grad)


def _same_layout(g, t) -> bool:
    return (tuple(g.shape) == tuple(t.shape) and g.dtype == t.dtype
            and (g.size <= 1 or list(g.strides) == list(t.strides)))


def from_paddle(t, dtype=None, requires_grad=None, grad=None, return_ctype=False, retain_grad=False):
    """A wp.array sharing the memory of Paddle tensor `t`, without a copy. `dtype` may be a vector or
    matrix type taking the trailing dimensions (a [n, 3] float32 tensor as n wp.vec3), or an integer
    type of the same size. When `t` takes part in autograd (`stop_gradient=False`) or
    `requires_grad=True`, the array's `.grad` views `t.grad`, created as zeros when missing; `grad`
    (a tensor or wp.array) sets it instead."""
    paddle = _paddle()
    if not isinstance(t, paddle.Tensor):
        raise TypeError(f"from_paddle expects a paddle.Tensor, got {type(t).__name__}")
    requires_grad = (not t.stop_gradient) if requires_grad is None else bool(requires_grad)
    if grad is None and requires_grad:
        if t.grad is None:  # as Warp: even on a tensor that stops gradients
            t.grad = paddle.zeros_like(t)
        grad = t.grad
        if not _same_layout(grad, t):
            raise ValueError(f"the gradient of a Paddle tensor with strides {list(t.strides)} is laid out with strides "
                             f"{list(grad.strides)}, and kernels read an array and its gradient alike: pass "
                             "t.contiguous(), or grad= with the tensor's layout")
    if isinstance(grad, paddle.Tensor):
        if not _same_layout(grad, t):
            raise ValueError(f"the gradient tensor must match the tensor: shape {list(t.shape)}, {t.dtype} and strides "
                             f"{list(t.strides)}, got {list(grad.shape)}, {grad.dtype} and {list(grad.strides)}")
        grad = _view(grad, dtype)
    elif grad is not None and not isinstance(grad, array):
        raise TypeError(f"grad must be a paddle.Tensor or a wp.array, got {type(grad).__name__}")
    a = _view(t, dtype, grad=grad, requires_grad=requires_grad or grad is not None, retain_grad=retain_grad)
    return descriptor(a) if return_ctype else a


def to_paddle(a: array, requires_grad=None):
    """A Paddle tensor sharing the memory of `a` (vectors and matrices add trailing dimensions).
    When `a` requires grad (or `requires_grad=True`), the tensor takes part in autograd
    (`stop_gradient=False`) and its gradient buffer is `a.grad`'s memory."""
    paddle = _paddle()
    if not isinstance(a, array):
        raise TypeError(f"to_paddle expects a wp.array, got {type(a).__name__}")
    t = _tensor(paddle, a)
    requires_grad = a.requires_grad if requires_grad is None else bool(requires_grad)
    if requires_grad:
        if not t.is_floating_point():
            raise TypeError(f"an array of {T.type_name(a.dtype)} cannot take part in Paddle's autograd "
                            "(floating types only)")
        t.stop_gradient = False
        if a.grad is not None and a.size:
            if not a.grad.is_contiguous:
                raise ValueError("to_paddle: Paddle can share only a contiguous gradient buffer; this array's "
                                 "gradient is strided (pass a.contiguous())")
            t.grad = paddle.zeros_like(t)  # the tensor's own gradient buffer, then made to share a.grad's memory
            _tensor(paddle, a.grad)._share_buffer_to(t._grad_ivar())
    return t


def _tensor(paddle, a: array):
    scalar = T.scalar_type_of(a.dtype)
    if scalar is None:
        raise TypeError(f"an array of {T.type_name(a.dtype)} has no Paddle equivalent (structs cannot be shared)")
    if a.size == 0:  # no memory to share
        inner = T.numpy_inner_shape(a.dtype)
        return paddle.empty(list(a.shape + inner), dtype=dtype_to_paddle(scalar)).to(device=device_to_paddle(a.device))
    signed = shared_scalar(scalar)
    if signed is not T.canonical_scalar(scalar):  # shared as Paddle's signed type, as dtype_to_paddle says
        # (through DLPack a uint16 array would come as paddle.uint16, Paddle's name for bfloat16)
        inner = T.numpy_inner_shape(a.dtype)
        size = T.type_size_in_bytes(signed)
        inner_strides = tuple(size * math.prod(inner[k + 1:]) for k in range(len(inner)))
        a = array(ptr=a.ptr, dtype=signed, shape=a.shape + inner, strides=a.strides + inner_strides, device=a.device,
                  owner=a)
    return paddle.from_dlpack(a)
