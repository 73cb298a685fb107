"""`wp.Tape`: records kernel launches (and array copies) made inside `with tape:`, and
`tape.backward()` replays their adjoints in reverse order, so every array created with
requires_grad=True ends up holding the gradient of the loss.

As in Warp, the gradient of an array that a launch writes is consumed (zeroed) once that
launch's adjoint has passed it on (retain_grad=True on the array keeps it); gradients of
arrays that are only read accumulate across backward passes until `tape.zero()`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import recording, types as T
from .arrays.array import array
from .types.structs import StructInstance


@dataclass
class _Launch:
    kernel: object
    dim: object
    inputs: tuple
    outputs: tuple
    device: object


@dataclass
class _Copy:
    dest: array
    src: array
    dest_offset: int
    src_offset: int
    count: int


@dataclass
class _Func:
    backward: object
    arrays: tuple


class Tape:
    """Records launches for reverse-mode differentiation (Warp's wp.Tape)."""

    def __init__(self):
        self.launches: list = []
        self.gradients: dict = {}
        self._outer = None

    # --- recording ----------------------------------------------------------------------
    def __enter__(self):
        self._outer = recording.tape
        recording.tape = self
        return self

    def __exit__(self, *exc):
        recording.tape = self._outer
        self._outer = None

    def record_launch(self, kernel, dim, inputs, outputs, device, *args, **kwargs) -> None:
        self.launches.append(_Launch(kernel, dim, tuple(inputs), tuple(outputs), device))

    def record_copy(self, dest, src, dest_offset=0, src_offset=0, count=0) -> None:
        if src.requires_grad or dest.requires_grad:
            self.launches.append(_Copy(dest, src, dest_offset, src_offset, count or src.size - src_offset))

    def record_func(self, backward, arrays) -> None:
        """Record a Python step: `backward()` is called at its place in the reverse pass."""
        self.launches.append(_Func(backward, tuple(arrays)))

    # --- backward -----------------------------------------------------------------------
    def backward(self, loss: array | None = None, grads: dict | None = None) -> None:
        """Propagate gradients back through every recorded launch, from `loss` (its gradient is
        seeded with ones), from `grads` ({array: seed gradient}), or, with neither, from the
        gradients already set on the outputs (as in Warp). An empty tape does nothing."""
        if not self.launches:
            return
        if loss is not None:
            if not isinstance(loss, array):
                raise TypeError(f"tape.backward(loss) expects a wp.array, got {type(loss).__name__}")
            if loss.grad is None:
                raise ValueError("the loss array has no gradient buffer: create it with requires_grad=True, "
                                 "e.g. wp.zeros(1, requires_grad=True)")
            loss.grad.fill_(1.0)
            self.gradients[loss] = loss.grad
        for a, seed in (grads or {}).items():
            if a.grad is None:
                raise ValueError("an array in grads={...} has no gradient buffer: create it with requires_grad=True")
            a.grad.assign(seed.numpy() if isinstance(seed, array) else seed)
            self.gradients[a] = a.grad
        self._check_gradient_chain()
        from .launcher import launch
        for record in reversed(self.launches):
            if isinstance(record, _Launch):
                launch(record.kernel, record.dim, inputs=record.inputs, outputs=record.outputs, device=record.device,
                       adjoint=True, record_tape=False)
                args = record.inputs + record.outputs
                for a in args:
                    if isinstance(a, array) and a.grad is not None:
                        self.gradients[a] = a.grad
                # the gradient of an array this launch wrote has been passed on to its inputs:
                # consume it (as Warp does), so a second backward pass or an earlier launch that
                # wrote the same array does not count it twice; retain_grad=True keeps it
                read, written = _usage(record)
                for k in written - read:
                    a = args[k]
                    if isinstance(a, array) and a.grad is not None and not getattr(a, "retain_grad", False):
                        a.grad.zero_()
            elif isinstance(record, _Copy):
                _copy_adjoint(record)
            else:
                record.backward()

    def _check_gradient_chain(self) -> None:
        """Refuse a backward pass that would silently lose gradients: an array that a recorded
        kernel writes from differentiable inputs, and that a later launch reads, must have a
        gradient buffer."""
        needs_grad: dict = {}  # id(array) -> (array, where it was written)
        for n, record in enumerate(self.launches):
            if not isinstance(record, _Launch):
                continue
            args = record.inputs + record.outputs
            read, written = _usage(record)
            for k in read:
                a = args[k]
                where = needs_grad.get(id(a))
                if where is not None and a.grad is None:
                    raise ValueError(f"gradients cannot flow back through argument `{where[1]}` of kernel "
                                     f"`{where[0]}`: that array is written from inputs that require gradients and "
                                     f"read by kernel `{record.kernel.key}` later on the tape, but it has no "
                                     "gradient buffer; create it with requires_grad=True")
            differentiable_input = any(isinstance(args[k], array) and args[k].requires_grad for k in read)
            if differentiable_input:
                for k in written:
                    a = args[k]
                    if isinstance(a, array) and a.grad is None and _float_type(a.dtype):
                        needs_grad[id(a)] = (record.kernel.key, record.kernel.param_names[k])

    # --- housekeeping -------------------------------------------------------------------
    def zero(self) -> None:
        """Zero the gradients of every array the tape has seen."""
        for a in self._arrays():
            if a.grad is not None:
                a.grad.zero_()

    def reset(self) -> None:
        """Forget the recorded launches and zero the gradients."""
        self.zero()
        self.launches = []
        self.gradients = {}

    def get_adjoint(self, a: array):
        return a.grad

    def record_scope_begin(self, scope_name: str, metadata: dict | None = None) -> None:
        """Warp's named scopes (for its tape visualisation); warp_nb records launches only."""

    def record_scope_end(self, remove_scope_if_empty: bool = True) -> None:
        """See record_scope_begin."""

    def _arrays(self):
        seen = {}
        for record in self.launches:
            items = record.inputs + record.outputs if isinstance(record, _Launch) else (
                (record.dest, record.src) if isinstance(record, _Copy) else record.arrays)
            for a in _arrays_in(items):
                seen[id(a)] = a
        for a in self.gradients:
            seen[id(a)] = a
        return list(seen.values())


def _usage(record: _Launch):
    from .compiler.ir import array_param_usage
    typed = record.kernel.compiled(record.device).typed
    return array_param_usage(typed)


def _float_type(t) -> bool:
    s = T.scalar_type_of(t)
    return s is not None and s._kind == "float" or getattr(t, "_wp_struct_", False)


def _copy_adjoint(c: _Copy) -> None:
    """wp.copy(dest, src, ...) forwards values; backwards, dest's gradient flows into src's."""
    if c.src.grad is None or c.dest.grad is None:
        return
    src_g = c.src.grad.numpy().reshape((c.src.size,) + T.numpy_inner_shape(c.src.dtype))
    dst_g = c.dest.grad.numpy().reshape((c.dest.size,) + T.numpy_inner_shape(c.dest.dtype))
    src_g[c.src_offset: c.src_offset + c.count] += dst_g[c.dest_offset: c.dest_offset + c.count]
    np.copyto(dst_g[c.dest_offset: c.dest_offset + c.count], 0)


def _arrays_in(values):
    """The arrays among launch arguments, including those held in struct arguments (recursively)."""
    for v in values:
        if isinstance(v, array):
            yield v
        elif isinstance(v, StructInstance):
            yield from _arrays_in(getattr(v, name) for name in v._struct.fields)
