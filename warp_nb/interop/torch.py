"""PyTorch <-> warp_nb without copies, with Warp's names: `from_torch`, `to_torch`, the dtype,
device and stream conversions. A tensor becomes a view of its memory (its strides kept, so
slices, transposes and expanded tensors need no copy), and a tensor that requires grad brings its
`.grad` along: the array's `.grad` aliases `t.grad`, so adjoints a Tape writes land where torch
reads them. torch is imported lazily: warp_nb never needs it unless these are called.

Knows torch's Python API only; knows nothing of autograd.Function (see docs/compat.md for the
pattern that wraps a launch and a Tape in one)."""

from __future__ import annotations

from .. import types as T
from ..arrays.array import array
from ..arrays.dlpack import view_elements
from ..runtime.devices import get_device
from .shared import descriptor, shared_scalar


def _torch():
    try:
        import torch
    except ImportError:
        raise ImportError("this needs PyTorch: pip install torch (a CPU build is enough)") from None
    return torch


def _scalar_table(torch) -> dict:
    return {torch.float16: T.float16, torch.bfloat16: T.bfloat16, torch.float32: T.float32,
            torch.float64: T.float64, torch.int8: T.int8, torch.int16: T.int16, torch.int32: T.int32,
            torch.int64: T.int64, torch.uint8: T.uint8, torch.bool: T.bool}


def dtype_from_torch(torch_dtype):
    """The warp_nb scalar type of a torch dtype (torch.float32 -> wp.float32)."""
    torch = _torch()
    scalar = _scalar_table(torch).get(torch_dtype)
    if scalar is None:
        raise TypeError(f"cannot convert torch dtype {torch_dtype} to a Warp type; supported are "
                        + ", ".join(str(t) for t in _scalar_table(torch)))
    return scalar


def dtype_to_torch(warp_dtype):
    """The torch dtype of a warp_nb scalar type. As in Warp, unsigned types wider than 8 bits map
    to the signed torch type of the same size (torch's own uint16/32/64 do few operations)."""
    torch = _torch()
    signed = shared_scalar(warp_dtype)
    for torch_dtype, wp_dtype in _scalar_table(torch).items():
        if wp_dtype is signed:
            return torch_dtype
    raise TypeError(f"cannot convert Warp type {T.type_name(warp_dtype)} to a torch dtype")


def device_from_torch(torch_device):
    """The warp_nb device of a torch device or device string ('cpu', 'cuda', 'cuda:1')."""
    torch = _torch()
    dev = torch.device(torch_device) if not isinstance(torch_device, torch.device) else torch_device
    if dev.type == "cpu":
        return get_device("cpu")
    if dev.type == "cuda":
        index = dev.index if dev.index is not None else torch.cuda.current_device()
        return get_device(f"cuda:{index}")
    raise TypeError(f"torch device '{dev}' has no Warp equivalent: warp_nb runs on 'cpu' and 'cuda' devices; "
                    f"move the tensor with t.to('cpu')")


def device_to_torch(warp_device):
    """The torch device (a string torch accepts) of a warp_nb device."""
    dev = get_device(warp_device)
    return "cpu" if dev.is_cpu else f"cuda:{dev.ordinal}"


def stream_from_torch(stream_or_device=None):
    """The warp_nb Stream of a torch CUDA stream (or of a device's current torch stream)."""
    torch = _torch()
    if stream_or_device is None or not hasattr(stream_or_device, "cuda_stream"):
        stream_or_device = torch.cuda.current_stream(stream_or_device)
    from ..cuda.streams import Stream
    device = device_from_torch(stream_or_device.device)
    return Stream(device, cuda_stream=stream_or_device.cuda_stream)


def stream_to_torch(stream_or_device=None):
    """The torch ExternalStream of a warp_nb stream (or of a CUDA device's current stream)."""
    torch = _torch()
    from ..cuda.streams import Stream
    stream = stream_or_device if isinstance(stream_or_device, Stream) else get_device(stream_or_device).stream
    return torch.cuda.ExternalStream(stream.cuda_stream, device=device_to_torch(stream.device))


def _check_device(t):
    if t.device.type not in ("cpu", "cuda"):
        raise TypeError(f"a tensor on torch device '{t.device}' cannot be shared with Warp: move it to the CPU "
                        f"(t.cpu()) or to a CUDA device")
    dev = device_from_torch(t.device)  # raises, naming the fix, for 'cuda' on a machine without a GPU
    return dev


def _view(t, dtype, device, grad=None, requires_grad=False, retain_grad=False) -> array:
    dev = device if device is not None else _check_device(t)
    scalar = dtype_from_torch(t.dtype)
    itemsize = t.element_size()
    strides = tuple(int(s) * itemsize for s in t.stride())
    element, shape, strides = view_elements(scalar, tuple(t.shape), strides, dtype, source_name="Torch")
    # what is left of the tensor's storage from its first element: Warp's capacity of a view
    capacity = t.untyped_storage().nbytes() - t.storage_offset() * itemsize
    return array(ptr=t.data_ptr(), dtype=element, shape=shape, strides=strides, capacity=capacity, device=dev,
                 owner=t, grad=grad, requires_grad=requires_grad, retain_grad=retain_grad)


def from_torch(t, dtype=None, requires_grad=None, grad=None, return_ctype=False, retain_grad=False):
    """A wp.array sharing the memory of torch tensor `t`, without a copy. `dtype` may be a vector or
    matrix type taking the trailing dimensions (a (n, 3) float32 tensor as n wp.vec3), or an integer
    type of the same size. When `t` requires grad (or `requires_grad=True`), the array's `.grad`
    views `t.grad`, created as zeros when missing; `grad` (a tensor or wp.array) sets it instead."""
    torch = _torch()
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"from_torch expects a torch.Tensor, got {type(t).__name__}")
    requires_grad = t.requires_grad if requires_grad is None else bool(requires_grad)
    data = t.detach()
    if grad is None and requires_grad:
        if t.grad is None:  # as Warp: even on a tensor that does not require grad
            # laid out as the tensor (a kernel reads an array and its gradient with one set of
            # strides); zeros_like would compact a sliced tensor's gradient
            t.grad = torch.empty_strided(data.shape, data.stride(), dtype=data.dtype, device=data.device).zero_()
        grad = t.grad
    if isinstance(grad, torch.Tensor):
        if tuple(grad.shape) != tuple(t.shape) or grad.dtype != t.dtype:
            raise ValueError(f"the gradient tensor must match the tensor: shape {tuple(t.shape)} and {t.dtype}, "
                             f"got {tuple(grad.shape)} and {grad.dtype}")
        if grad.numel() > 1 and grad.stride() != t.stride():
            raise ValueError(f"the gradient tensor must have the tensor's strides {t.stride()}, got {grad.stride()} "
                             "(kernels read an array and its gradient alike); create it with torch.empty_strided("
                             "t.shape, t.stride()) or make both contiguous")
        grad = _view(grad.detach(), dtype, None)
    elif grad is not None and not isinstance(grad, array):
        raise TypeError(f"grad must be a torch.Tensor or a wp.array, got {type(grad).__name__}")
    a = _view(data, dtype, None, grad=grad, requires_grad=requires_grad or grad is not None,
              retain_grad=retain_grad)
    if return_ctype:
        return descriptor(a)
    return a


def to_torch(a: array, requires_grad=None):
    """A torch tensor sharing the memory of `a` (vectors and matrices add trailing dimensions).
    When `a` requires grad (or `requires_grad=True`), the tensor requires grad and its `.grad` views
    `a.grad`."""
    torch = _torch()
    if not isinstance(a, array):
        raise TypeError(f"to_torch expects a wp.array, got {type(a).__name__}")
    t = _tensor(torch, a)
    requires_grad = a.requires_grad if requires_grad is None else bool(requires_grad)
    if requires_grad:
        if not t.is_floating_point():
            raise TypeError(f"an array of {T.type_name(a.dtype)} cannot require grad in torch (floating types only)")
        t.requires_grad_(True)
        if a.grad is not None:
            t.grad = _tensor(torch, a.grad)
    return t


def _tensor(torch, a: array):
    scalar = T.scalar_type_of(a.dtype)
    if scalar is None:
        raise TypeError(f"an array of {T.type_name(a.dtype)} has no torch equivalent (structs cannot be shared)")
    if a.size == 0:  # no memory to share: DLPack of a null pointer is refused by some torch versions
        inner = T.numpy_inner_shape(a.dtype)
        return torch.empty(a.shape + inner, dtype=dtype_to_torch(scalar), device=device_to_torch(a.device))
    t = torch.from_dlpack(a)
    wanted = dtype_to_torch(scalar)
    return t if t.dtype == wanted else t.view(wanted)  # uint16/32/64 as torch's signed types, as Warp
