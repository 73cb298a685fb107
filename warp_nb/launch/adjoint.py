"""Adjoint launches: `wp.launch(..., adjoint=True)` runs a kernel's backward code, with each array's
.grad or the gradients given in adj_inputs / adj_outputs (as in Warp), and what such a gradient
needs when it is laid out otherwise than its array (a compact copy, copied back after the launch).
Called by launcher.py (and its wp.Launch); knows launchers, not how a forward launch is made."""

from __future__ import annotations

import types as _pytypes

from .. import config, types as T
from ..arrays.array import array
from ..arrays.dlpack import from_dlpack
from ..errors import KernelError, at_callers_line
from ..runtime import recording
from ..types.array_type import ArrayType
from ..types.generic import is_generic
from .args import make_packer
from .bounds import THREAD_LIMIT, block_bounds, fit_to_tid, launch_bounds, too_many, too_many_threads


def launch_adjoint(kernel, dim, args, adj_args, forward, block_dim, record_cmd: bool = False):
    """Run the kernel's backward code. Array gradients come from each array's .grad, or from the
    matching entry of adj_inputs/adj_outputs when given (as in Warp)."""
    from .launcher import Launch, launcher_for, launcher_key  # (launcher.py imports this module)
    device, signature, lanes = forward.device, forward.signature, forward.block_dim
    launcher = kernel.launchers.get(launcher_key(device.alias, True, signature, block_dim))
    if launcher is None or launcher.epoch != config.epoch:
        try:
            launcher = launcher_for(kernel, device, True, signature, block_dim)
        except KernelError as e:
            raise at_callers_line(e.with_traceback(None)) from None
    if adj_args:
        if len(adj_args) != len(args):
            raise at_callers_line(TypeError(f"adjoint launch of kernel `{kernel.key}`: adj_inputs + adj_outputs must "
                                            f"give one entry per argument ({len(args)}), got {len(adj_args)}"))
        # as Warp, explicit adjoints of a raw adjoint launch are not consumed: the adjoint of a store
        # zeroes the stored element's gradient (what a Tape wants), so such an array's adjoint is
        # given as a copy (the analysis of the typed IR loads with the compiler, not with warp_nb)
        from ..compiler.param_access import param_access, stored_params
        read, _ = param_access(forward.compiled.typed)
        consumed = stored_params(forward.compiled.typed) - read
        write_back: list = []
        args = tuple(with_grad(a, g, kernel, k, write_back, k in consumed)
                     for k, (a, g) in enumerate(zip(args, adj_args)))
        if write_back and record_cmd:
            raise at_callers_line(TypeError(f"adjoint launch of kernel `{kernel.key}` with record_cmd=True: an "
                                            "adjoint array laid out differently from its array needs a copy per "
                                            "launch; pass adjoints with the same strides"))
    if record_cmd:
        return Launch(kernel, device, list(args), dim, adjoint=True, launcher=launcher)
    if recording.capture is not None and not (adj_args and write_back):  # a Tape's backward inside wp.ScopedCapture
        recording.capture.record(Launch(kernel, device, list(args), dim, adjoint=True, launcher=launcher))
        return None
    bounds, ndim, size = launch_bounds(dim, launcher.tid_reads)
    if size > THREAD_LIMIT and too_many(dim, size, launcher.tid_count, lanes, launcher.device.is_cpu):
        raise at_callers_line(too_many_threads(kernel.key, dim, size))
    repeat = 1
    if lanes > 1:
        bounds, size = block_bounds(dim, lanes)
    elif ndim > 1:
        bounds, size, repeat = fit_to_tid(bounds, ndim, launcher.tid_count)
    packed = launcher.pack(*args)
    seeded = _write_seeds(launcher, adj_args) if adj_args else 0
    try:
        for _ in range(repeat):
            try:
                launcher.target.run(launcher, packed, bounds, size)
            except (IndexError, AssertionError, FloatingPointError) as check:  # a failed check:
                raise at_callers_line(check.with_traceback(None)) from None  # (without the target's frames)
    finally:
        if seeded:  # back to zeros: a Tape's backward launch of the kernel gives its value parameters none
            launcher.target.write_adjoint_seeds(launcher.compiled.loaded, b"", clear=seeded)
    for given, used in (write_back if adj_args else ()):
        _copy_into(given, used)


def _write_seeds(launcher, adj_args) -> int:
    """Write the adjoints adj_inputs/adj_outputs give the value parameters whose adjoints the
    backward code prints (compiler/emit/adjoint.py seeded_params) into the module global it starts
    them from; returns the bytes written (0: the kernel has no such global)."""
    address = getattr(launcher.compiled.loaded, "adjoint_seeds", None)
    if address is None:
        return 0
    seeded = launcher.compiled.unit.seeded
    pack = getattr(launcher, "seed_pack", None)
    types_ = list(launcher.signature) if launcher.signature is not None else launcher.kernel.param_types
    if pack is None:  # the packer of an argument struct of just those parameters: the global's layout
        kernel = launcher.kernel
        named = _pytypes.SimpleNamespace(key=kernel.key, param_names=[kernel.param_names[k] for k in seeded])
        pack = launcher.seed_pack = make_packer(named, launcher.device, [types_[k] for k in seeded])
    values = [_zero(types_[k]) if adj_args[k] is None else adj_args[k] for k in seeded]
    data = pack(*values)
    launcher.target.write_adjoint_seeds(launcher.compiled.loaded, data)
    return len(data)


def _zero(t):
    if t is T.bool:
        return False
    return 0 if T.is_scalar_type(t) else t()


def with_grad(a, grad, kernel, index, write_back: list, protect: bool):
    """`a` seen with `grad` as its gradient buffer (for explicit adj_inputs). A kernel reads an
    array and its gradient with one set of strides: a gradient laid out differently (torch hands a
    backward pass expanded, stride-0 tensors) is given as a compact copy, copied back after the
    launch through `write_back`, since the adjoint adds into it (inputs) or consumes it (outputs)."""
    if grad is not None and not isinstance(a, array) and hasattr(a, "__dlpack__"):  # a torch tensor, say
        t = kernel.param_types[index]
        a = from_dlpack(a, dtype=t.dtype if isinstance(t, ArrayType) and not is_generic(t) else None)
    if grad is None or not isinstance(a, array) or grad is a.grad:
        return a
    if not isinstance(grad, array) and hasattr(grad, "__dlpack__"):
        grad = from_dlpack(grad, dtype=a.dtype)
    if not isinstance(grad, array) or grad.shape != a.shape or grad.dtype is not a.dtype:
        raise at_callers_line(TypeError(f"adjoint launch of kernel `{kernel.key}`: the adjoint of argument "
                                        f"`{kernel.param_names[index]}` must be an array like it "
                                        f"({a.type.type_name()}, shape {a.shape})"))
    if protect or grad.strides != a.strides:
        compact = _compact_copy(grad)
        if not protect:
            write_back.append((grad, compact))
        grad = compact
        if not a.is_contiguous:
            a = _compact_copy(a)
    view = array(ptr=a.ptr, dtype=a.dtype, shape=a.shape, strides=a.strides, device=a.device, owner=a)
    view.grad = grad
    return view


def _compact_copy(a):
    out = array(shape=a.shape, dtype=a.dtype, device=a.device)
    _copy_into(out, a)
    return out


def _copy_into(dst, src) -> None:
    from ..arrays.create import copy
    copy(dst, src)
